#include "CCyanotypeKernels.h"
#include <string.h>
#include "vector_paths.h"

// Planar runs of colour stages (see CCyanotypeKernels.h): a row of opaque RGBA pixels is cut
// into blocks of CYAN_PLANAR_BLOCK pixels, each block turned into three planes (red, green,
// blue; alpha is 1 throughout and is not stored), every stage run over the planes while they
// sit in L1, and the block turned back. A stage then works on eight pixels of one channel per
// vector with no lane shuffling, instead of two pixels per vector with shuffles, and the row
// is read and written once for the whole run. Each stage does, lane by lane, exactly the
// operations its row loop (kernels.c) does on one pixel, in the same order, so a planar run
// gives the same bits as the stages one after another.

#define CYAN_PLANAR_BLOCK 64

int cyan_planar_available(void) { return cyan_vector_bits() >= 256; }

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))

// What the two widths do differently: loading four (a, b, c, 0) table cells, for lanes j,
// j + 4, ..., into one vector, and keeping the set of lanes whose cells are inside the table
// (a vector of all-ones lanes with AVX2, a lane mask with AVX-512).
typedef __m256i cyan_planar_lanes_256;
CYAN_AVX2 static inline __m256i cyan_planar_all_lanes_256(void) { return _mm256_set1_epi32(-1); }
CYAN_AVX2 static inline __m256i cyan_planar_below_256(__m256i lanes, __m256i count, __m256i cell) {
    return _mm256_and_si256(lanes, _mm256_cmpgt_epi32(count, cell));
}
CYAN_AVX2 static inline int cyan_planar_everywhere_256(__m256i lanes) { return _mm256_movemask_ps(_mm256_castsi256_ps(lanes)) == 0xFF; }
CYAN_AVX2 static inline __m256 cyan_planar_cells_256(const float *cells, const int32_t *jj) {
    return _mm256_set_m128(_mm_loadu_ps(cells + jj[4]), _mm_loadu_ps(cells + jj[0]));
}

typedef __mmask16 cyan_planar_lanes_512;
CYAN_AVX512 static inline __mmask16 cyan_planar_all_lanes_512(void) { return 0xFFFF; }
CYAN_AVX512 static inline __mmask16 cyan_planar_below_512(__mmask16 lanes, __m512i count, __m512i cell) {
    return lanes & _mm512_cmpgt_epi32_mask(count, cell);
}
CYAN_AVX512 static inline int cyan_planar_everywhere_512(__mmask16 lanes) { return lanes == 0xFFFF; }
CYAN_AVX512 static inline __m512 cyan_planar_cells_512(const float *cells, const int32_t *jj) {
    __m512 q = _mm512_castps128_ps512(_mm_loadu_ps(cells + jj[0]));
    q = _mm512_insertf32x4(q, _mm_loadu_ps(cells + jj[4]), 1);
    q = _mm512_insertf32x4(q, _mm_loadu_ps(cells + jj[8]), 2);
    return _mm512_insertf32x4(q, _mm_loadu_ps(cells + jj[12]), 3);
}

// The stages and the run at both widths (cyan_planar_matrix_run_256, ..., cyan_planar_run_512).
#define CYAN_BITS 256
#include "planar_width.h"
#undef CYAN_BITS
#define CYAN_BITS 512
#include "planar_width.h"
#undef CYAN_BITS
#endif

size_t cyan_planar_block_length(void) { return CYAN_PLANAR_BLOCK; }

long cyan_planar_run(float *row, size_t n, const cyan_planar_stage *stages, int count, int *declined) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (cyan_vector_bits() >= 512) return (long)cyan_planar_run_512(row, n, stages, count, declined);
    if (cyan_planar_available()) return (long)cyan_planar_run_256(row, n, stages, count, declined);
#endif
    (void)row; (void)n; (void)stages; (void)count; (void)declined;
    return -1;
}

// The stages' constructors. On a CPU without AVX2 they still build the description; the run
// then reports -1 and nothing calls them.
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define CYAN_PLANAR_STAGE(name) cyan_planar_stage_of(name##_256, name##_512)
#else
static int cyan_planar_none(float *R, float *G, float *B, size_t n, const cyan_planar_stage *s) {
    (void)R; (void)G; (void)B; (void)n; (void)s;
    return 1;
}
#define CYAN_PLANAR_STAGE(name) cyan_planar_stage_of(cyan_planar_none, cyan_planar_none)
#endif

typedef int (*cyan_planar_run_fn)(float *, float *, float *, size_t, const cyan_planar_stage *);

static cyan_planar_stage cyan_planar_stage_of(cyan_planar_run_fn run_256, cyan_planar_run_fn run_512) {
    cyan_planar_stage s;
    memset(&s, 0, sizeof s);
    s.run_256 = run_256;
    s.run_512 = run_512;
    return s;
}

cyan_planar_stage cyan_planar_matrix(const float *m) {
    cyan_planar_stage s = CYAN_PLANAR_STAGE(cyan_planar_matrix_run);
    memcpy(s.values, m, 20 * sizeof(float));
    return s;
}

cyan_planar_stage cyan_planar_vibrance(float amount) {
    cyan_planar_stage s = CYAN_PLANAR_STAGE(cyan_planar_vibrance_run);
    s.values[0] = -3.0f * amount;
    return s;
}

cyan_planar_stage cyan_planar_power_table(const float *cells, int k, int count) {
    cyan_planar_stage s = CYAN_PLANAR_STAGE(cyan_planar_power_run);
    s.table = cells;
    s.k = k;
    s.count = count;
    return s;
}
