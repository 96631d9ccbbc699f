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

// The colour matrix on opaque pixels: r' = ((c0.r r + bias.r) + c1.r g + c2.r b) + c3.r a as
// cyan_matrix_avx2's chain of fused multiply-adds; with a = 1 the last one is an addition
// (c3.r * 1 is exact, so fma(c3.r, 1, x) and c3.r + x round alike).
CYAN_AVX2 static int cyan_planar_matrix_run(float *R, float *G, float *B, size_t n, const cyan_planar_stage *s) {
    const float *m = s->values;
    const __m256 c00 = _mm256_set1_ps(m[0]), c01 = _mm256_set1_ps(m[1]), c02 = _mm256_set1_ps(m[2]);
    const __m256 c10 = _mm256_set1_ps(m[4]), c11 = _mm256_set1_ps(m[5]), c12 = _mm256_set1_ps(m[6]);
    const __m256 c20 = _mm256_set1_ps(m[8]), c21 = _mm256_set1_ps(m[9]), c22 = _mm256_set1_ps(m[10]);
    const __m256 c30 = _mm256_set1_ps(m[12]), c31 = _mm256_set1_ps(m[13]), c32 = _mm256_set1_ps(m[14]);
    const __m256 b0 = _mm256_set1_ps(m[16]), b1 = _mm256_set1_ps(m[17]), b2 = _mm256_set1_ps(m[18]);
    for (size_t i = 0; i < n; i += 8) {
        __m256 r = _mm256_load_ps(R + i), g = _mm256_load_ps(G + i), b = _mm256_load_ps(B + i);
        __m256 o0 = _mm256_fmadd_ps(c00, r, b0), o1 = _mm256_fmadd_ps(c01, r, b1), o2 = _mm256_fmadd_ps(c02, r, b2);
        o0 = _mm256_fmadd_ps(c10, g, o0); o1 = _mm256_fmadd_ps(c11, g, o1); o2 = _mm256_fmadd_ps(c12, g, o2);
        o0 = _mm256_fmadd_ps(c20, b, o0); o1 = _mm256_fmadd_ps(c21, b, o1); o2 = _mm256_fmadd_ps(c22, b, o2);
        _mm256_store_ps(R + i, _mm256_add_ps(c30, o0));
        _mm256_store_ps(G + i, _mm256_add_ps(c31, o1));
        _mm256_store_ps(B + i, _mm256_add_ps(c32, o2));
    }
    return 0;
}

// Vibrance as cyan_vibrance_avx2: mx = max(b, max(g, r)) (maxps, NaN as there), mean =
// ((r + g) + b) / 3 (times the float nearest 1/3), t = (mx - mean) k, c - (c - mx) t.
CYAN_AVX2 static int cyan_planar_vibrance_run(float *R, float *G, float *B, size_t n, const cyan_planar_stage *s) {
    const __m256 kv = _mm256_set1_ps(s->values[0]), third = _mm256_set1_ps(1.0f / 3.0f);
    for (size_t i = 0; i < n; i += 8) {
        __m256 r = _mm256_load_ps(R + i), g = _mm256_load_ps(G + i), b = _mm256_load_ps(B + i);
        __m256 mx = _mm256_max_ps(b, _mm256_max_ps(g, r));
        __m256 mean = _mm256_mul_ps(_mm256_add_ps(_mm256_add_ps(r, g), b), third);
        __m256 t = _mm256_mul_ps(_mm256_sub_ps(mx, mean), kv);
        _mm256_store_ps(R + i, _mm256_sub_ps(r, _mm256_mul_ps(_mm256_sub_ps(r, mx), t)));
        _mm256_store_ps(G + i, _mm256_sub_ps(g, _mm256_mul_ps(_mm256_sub_ps(g, mx), t)));
        _mm256_store_ps(B + i, _mm256_sub_ps(b, _mm256_mul_ps(_mm256_sub_ps(b, mx), t)));
    }
    return 0;
}

// sign(x) |x|^p through a PowerTable as cyan_power_table_avx2: cell index from the float's
// bits, u from its remaining mantissa bits, a + u (b + u c) by two fused multiply-adds, the
// sign ORed back. Eight values of one channel per step; their eight cells (a, b, c, 0) are
// loaded in pairs and transposed to an a, a b and a c vector.
CYAN_AVX2 static inline __m256i cyan_planar_cell(__m256 p, __m128i shift) {
    return _mm256_srl_epi32(_mm256_and_si256(_mm256_castps_si256(p), _mm256_set1_epi32(0x7FFFFFFF)), shift);
}

CYAN_AVX2 static inline __m256 cyan_planar_power8(__m256 p, const float *cells, __m128i shift, __m256i low, __m256 cellScale) {
    __m256i bits = _mm256_castps_si256(p);
    __m256i j = _mm256_slli_epi32(cyan_planar_cell(p, shift), 2);
    __m256 u = _mm256_mul_ps(_mm256_sub_ps(_mm256_castsi256_ps(_mm256_or_si256(_mm256_and_si256(bits, low), _mm256_set1_epi32(0x3F800000))),
                                           _mm256_set1_ps(1.0f)), cellScale);
    int32_t jj[8];
    _mm256_storeu_si256((__m256i *)jj, j);
    __m256 q0 = _mm256_set_m128(_mm_loadu_ps(cells + jj[4]), _mm_loadu_ps(cells + jj[0]));
    __m256 q1 = _mm256_set_m128(_mm_loadu_ps(cells + jj[5]), _mm_loadu_ps(cells + jj[1]));
    __m256 q2 = _mm256_set_m128(_mm_loadu_ps(cells + jj[6]), _mm_loadu_ps(cells + jj[2]));
    __m256 q3 = _mm256_set_m128(_mm_loadu_ps(cells + jj[7]), _mm_loadu_ps(cells + jj[3]));
    __m256 t0 = _mm256_unpacklo_ps(q0, q1), t1 = _mm256_unpackhi_ps(q0, q1);
    __m256 t2 = _mm256_unpacklo_ps(q2, q3), t3 = _mm256_unpackhi_ps(q2, q3);
    __m256 a = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)), b = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    __m256 c = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    __m256 r = _mm256_fmadd_ps(u, _mm256_fmadd_ps(u, c, b), a);
    return _mm256_or_ps(r, _mm256_castsi256_ps(_mm256_and_si256(bits, _mm256_set1_epi32((int)0x80000000))));
}

// Declines the block (returns 1, touching nothing) when a value is outside the table
// (|x| >= 256, infinity, NaN): the caller then runs the stage's row loop, which sends those
// to the exact vector pow.
CYAN_AVX2 static int cyan_planar_power_run(float *R, float *G, float *B, size_t n, const cyan_planar_stage *s) {
    const int k = s->k;
    const float *cells = s->table;
    const __m128i shift = _mm_cvtsi32_si128(23 - k);
    const __m256i countv = _mm256_set1_epi32(s->count), low = _mm256_set1_epi32((1 << (23 - k)) - 1);
    const __m256 cellScale = _mm256_set1_ps((float)(1 << k));
    __m256i inside = _mm256_set1_epi32(-1);
    for (size_t i = 0; i < n; i += 8) {
        inside = _mm256_and_si256(inside, _mm256_cmpgt_epi32(countv, cyan_planar_cell(_mm256_load_ps(R + i), shift)));
        inside = _mm256_and_si256(inside, _mm256_cmpgt_epi32(countv, cyan_planar_cell(_mm256_load_ps(G + i), shift)));
        inside = _mm256_and_si256(inside, _mm256_cmpgt_epi32(countv, cyan_planar_cell(_mm256_load_ps(B + i), shift)));
    }
    if (_mm256_movemask_ps(_mm256_castsi256_ps(inside)) != 0xFF) return 1;
    for (size_t i = 0; i < n; i += 8) {
        _mm256_store_ps(R + i, cyan_planar_power8(_mm256_load_ps(R + i), cells, shift, low, cellScale));
        _mm256_store_ps(G + i, cyan_planar_power8(_mm256_load_ps(G + i), cells, shift, low, cellScale));
        _mm256_store_ps(B + i, cyan_planar_power8(_mm256_load_ps(B + i), cells, shift, low, cellScale));
    }
    return 0;
}

// Eight pixels to planes; the lanes come out in the order 0 2 4 6 1 3 5 7, which the way
// back undoes (stages never look across lanes).
CYAN_AVX2 static inline void cyan_planar_split8(const float *p, float *R, float *G, float *B) {
    __m256 v0 = _mm256_loadu_ps(p), v1 = _mm256_loadu_ps(p + 8), v2 = _mm256_loadu_ps(p + 16), v3 = _mm256_loadu_ps(p + 24);
    __m256 t0 = _mm256_unpacklo_ps(v0, v1), t1 = _mm256_unpackhi_ps(v0, v1);
    __m256 t2 = _mm256_unpacklo_ps(v2, v3), t3 = _mm256_unpackhi_ps(v2, v3);
    _mm256_store_ps(R, _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)));
    _mm256_store_ps(G, _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2)));
    _mm256_store_ps(B, _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)));
}

CYAN_AVX2 static inline void cyan_planar_join8(float *p, const float *R, const float *G, const float *B) {
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 r = _mm256_load_ps(R), g = _mm256_load_ps(G), b = _mm256_load_ps(B);
    __m256 rg0 = _mm256_unpacklo_ps(r, g), rg1 = _mm256_unpackhi_ps(r, g);
    __m256 ba0 = _mm256_unpacklo_ps(b, one), ba1 = _mm256_unpackhi_ps(b, one);
    _mm256_storeu_ps(p, _mm256_shuffle_ps(rg0, ba0, _MM_SHUFFLE(1, 0, 1, 0)));
    _mm256_storeu_ps(p + 8, _mm256_shuffle_ps(rg0, ba0, _MM_SHUFFLE(3, 2, 3, 2)));
    _mm256_storeu_ps(p + 16, _mm256_shuffle_ps(rg1, ba1, _MM_SHUFFLE(1, 0, 1, 0)));
    _mm256_storeu_ps(p + 24, _mm256_shuffle_ps(rg1, ba1, _MM_SHUFFLE(3, 2, 3, 2)));
}

// One block of `len` pixels (1...CYAN_PLANAR_BLOCK) through the stages; a short block is
// padded with copies of its last pixel (real values, so no stage declines because of the
// padding), and only its own pixels are written back. Returns the index of the stage that
// declined, or `count` when all ran; the block is written back either way.
CYAN_AVX2 static int cyan_planar_block(float *p, size_t len, const cyan_planar_stage *stages, int count) {
    _Alignas(32) float R[CYAN_PLANAR_BLOCK], G[CYAN_PLANAR_BLOCK], B[CYAN_PLANAR_BLOCK];
    const size_t whole = len & ~(size_t)7, padded = (len + 7) & ~(size_t)7;
    for (size_t i = 0; i < whole; i += 8) cyan_planar_split8(p + 4 * i, R + i, G + i, B + i);
    if (whole < len) {
        // Plain order for the last partial group: lanes never mix, so any order is the same.
        for (size_t i = whole; i < padded; i++) {
            const float *q = p + 4 * (i < len ? i : len - 1);
            R[i] = q[0]; G[i] = q[1]; B[i] = q[2];
        }
    }
    int s = 0;
    for (; s < count; s++)
        if (stages[s].run(R, G, B, padded, &stages[s]) != 0) break;
    for (size_t i = 0; i < whole; i += 8) cyan_planar_join8(p + 4 * i, R + i, G + i, B + i);
    for (size_t i = whole; i < len; i++) { float *q = p + 4 * i; q[0] = R[i]; q[1] = G[i]; q[2] = B[i]; }
    return s;
}

// The same with sixteen lanes where the CPU has AVX-512: the same operations lane by lane
// (the stage description says which loop to take, so both widths give the same bits).
CYAN_AVX512 static int cyan_planar_matrix_run512(float *R, float *G, float *B, size_t n, const cyan_planar_stage *s) {
    const float *m = s->values;
    const __m512 c00 = _mm512_set1_ps(m[0]), c01 = _mm512_set1_ps(m[1]), c02 = _mm512_set1_ps(m[2]);
    const __m512 c10 = _mm512_set1_ps(m[4]), c11 = _mm512_set1_ps(m[5]), c12 = _mm512_set1_ps(m[6]);
    const __m512 c20 = _mm512_set1_ps(m[8]), c21 = _mm512_set1_ps(m[9]), c22 = _mm512_set1_ps(m[10]);
    const __m512 c30 = _mm512_set1_ps(m[12]), c31 = _mm512_set1_ps(m[13]), c32 = _mm512_set1_ps(m[14]);
    const __m512 b0 = _mm512_set1_ps(m[16]), b1 = _mm512_set1_ps(m[17]), b2 = _mm512_set1_ps(m[18]);
    for (size_t i = 0; i < n; i += 16) {
        __m512 r = _mm512_load_ps(R + i), g = _mm512_load_ps(G + i), b = _mm512_load_ps(B + i);
        __m512 o0 = _mm512_fmadd_ps(c00, r, b0), o1 = _mm512_fmadd_ps(c01, r, b1), o2 = _mm512_fmadd_ps(c02, r, b2);
        o0 = _mm512_fmadd_ps(c10, g, o0); o1 = _mm512_fmadd_ps(c11, g, o1); o2 = _mm512_fmadd_ps(c12, g, o2);
        o0 = _mm512_fmadd_ps(c20, b, o0); o1 = _mm512_fmadd_ps(c21, b, o1); o2 = _mm512_fmadd_ps(c22, b, o2);
        _mm512_store_ps(R + i, _mm512_add_ps(c30, o0));
        _mm512_store_ps(G + i, _mm512_add_ps(c31, o1));
        _mm512_store_ps(B + i, _mm512_add_ps(c32, o2));
    }
    return 0;
}

CYAN_AVX512 static int cyan_planar_vibrance_run512(float *R, float *G, float *B, size_t n, const cyan_planar_stage *s) {
    const __m512 kv = _mm512_set1_ps(s->values[0]), third = _mm512_set1_ps(1.0f / 3.0f);
    for (size_t i = 0; i < n; i += 16) {
        __m512 r = _mm512_load_ps(R + i), g = _mm512_load_ps(G + i), b = _mm512_load_ps(B + i);
        __m512 mx = _mm512_max_ps(b, _mm512_max_ps(g, r));
        __m512 mean = _mm512_mul_ps(_mm512_add_ps(_mm512_add_ps(r, g), b), third);
        __m512 t = _mm512_mul_ps(_mm512_sub_ps(mx, mean), kv);
        _mm512_store_ps(R + i, _mm512_sub_ps(r, _mm512_mul_ps(_mm512_sub_ps(r, mx), t)));
        _mm512_store_ps(G + i, _mm512_sub_ps(g, _mm512_mul_ps(_mm512_sub_ps(g, mx), t)));
        _mm512_store_ps(B + i, _mm512_sub_ps(b, _mm512_mul_ps(_mm512_sub_ps(b, mx), t)));
    }
    return 0;
}

CYAN_AVX512 static inline __m512i cyan_planar_cell512(__m512 p, __m128i shift) {
    return _mm512_srl_epi32(_mm512_and_si512(_mm512_castps_si512(p), _mm512_set1_epi32(0x7FFFFFFF)), shift);
}

CYAN_AVX512 static inline __m512 cyan_planar_cells4(const float *cells, const int32_t *jj) {
    __m512 q = _mm512_castps128_ps512(_mm_loadu_ps(cells + jj[0]));
    q = _mm512_insertf32x4(q, _mm_loadu_ps(cells + jj[4]), 1);
    q = _mm512_insertf32x4(q, _mm_loadu_ps(cells + jj[8]), 2);
    return _mm512_insertf32x4(q, _mm_loadu_ps(cells + jj[12]), 3);
}

CYAN_AVX512 static inline __m512 cyan_planar_power16(__m512 p, const float *cells, __m128i shift, __m512i low, __m512 cellScale) {
    __m512i bits = _mm512_castps_si512(p);
    __m512i j = _mm512_slli_epi32(cyan_planar_cell512(p, shift), 2);
    __m512 u = _mm512_mul_ps(_mm512_sub_ps(_mm512_castsi512_ps(_mm512_or_si512(_mm512_and_si512(bits, low), _mm512_set1_epi32(0x3F800000))),
                                           _mm512_set1_ps(1.0f)), cellScale);
    int32_t jj[16];
    _mm512_storeu_si512((void *)jj, j);
    __m512 q0 = cyan_planar_cells4(cells, jj), q1 = cyan_planar_cells4(cells, jj + 1);
    __m512 q2 = cyan_planar_cells4(cells, jj + 2), q3 = cyan_planar_cells4(cells, jj + 3);
    __m512 t0 = _mm512_unpacklo_ps(q0, q1), t1 = _mm512_unpackhi_ps(q0, q1);
    __m512 t2 = _mm512_unpacklo_ps(q2, q3), t3 = _mm512_unpackhi_ps(q2, q3);
    __m512 a = _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)), b = _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    __m512 c = _mm512_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    __m512 r = _mm512_fmadd_ps(u, _mm512_fmadd_ps(u, c, b), a);
    return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(r), _mm512_and_si512(bits, _mm512_set1_epi32((int)0x80000000))));
}

CYAN_AVX512 static int cyan_planar_power_run512(float *R, float *G, float *B, size_t n, const cyan_planar_stage *s) {
    const int k = s->k;
    const float *cells = s->table;
    const __m128i shift = _mm_cvtsi32_si128(23 - k);
    const __m512i countv = _mm512_set1_epi32(s->count), low = _mm512_set1_epi32((1 << (23 - k)) - 1);
    const __m512 cellScale = _mm512_set1_ps((float)(1 << k));
    __mmask16 inside = 0xFFFF;
    for (size_t i = 0; i < n; i += 16) {
        inside &= _mm512_cmpgt_epi32_mask(countv, cyan_planar_cell512(_mm512_load_ps(R + i), shift));
        inside &= _mm512_cmpgt_epi32_mask(countv, cyan_planar_cell512(_mm512_load_ps(G + i), shift));
        inside &= _mm512_cmpgt_epi32_mask(countv, cyan_planar_cell512(_mm512_load_ps(B + i), shift));
    }
    if (inside != 0xFFFF) return 1;
    for (size_t i = 0; i < n; i += 16) {
        _mm512_store_ps(R + i, cyan_planar_power16(_mm512_load_ps(R + i), cells, shift, low, cellScale));
        _mm512_store_ps(G + i, cyan_planar_power16(_mm512_load_ps(G + i), cells, shift, low, cellScale));
        _mm512_store_ps(B + i, cyan_planar_power16(_mm512_load_ps(B + i), cells, shift, low, cellScale));
    }
    return 0;
}

CYAN_AVX512 static inline void cyan_planar_split16(const float *p, float *R, float *G, float *B) {
    __m512 v0 = _mm512_loadu_ps(p), v1 = _mm512_loadu_ps(p + 16), v2 = _mm512_loadu_ps(p + 32), v3 = _mm512_loadu_ps(p + 48);
    __m512 t0 = _mm512_unpacklo_ps(v0, v1), t1 = _mm512_unpackhi_ps(v0, v1);
    __m512 t2 = _mm512_unpacklo_ps(v2, v3), t3 = _mm512_unpackhi_ps(v2, v3);
    _mm512_store_ps(R, _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)));
    _mm512_store_ps(G, _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2)));
    _mm512_store_ps(B, _mm512_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)));
}

CYAN_AVX512 static inline void cyan_planar_join16(float *p, const float *R, const float *G, const float *B) {
    const __m512 one = _mm512_set1_ps(1.0f);
    __m512 r = _mm512_load_ps(R), g = _mm512_load_ps(G), b = _mm512_load_ps(B);
    __m512 rg0 = _mm512_unpacklo_ps(r, g), rg1 = _mm512_unpackhi_ps(r, g);
    __m512 ba0 = _mm512_unpacklo_ps(b, one), ba1 = _mm512_unpackhi_ps(b, one);
    _mm512_storeu_ps(p, _mm512_shuffle_ps(rg0, ba0, _MM_SHUFFLE(1, 0, 1, 0)));
    _mm512_storeu_ps(p + 16, _mm512_shuffle_ps(rg0, ba0, _MM_SHUFFLE(3, 2, 3, 2)));
    _mm512_storeu_ps(p + 32, _mm512_shuffle_ps(rg1, ba1, _MM_SHUFFLE(1, 0, 1, 0)));
    _mm512_storeu_ps(p + 48, _mm512_shuffle_ps(rg1, ba1, _MM_SHUFFLE(3, 2, 3, 2)));
}

CYAN_AVX512 static int cyan_planar_block512(float *p, size_t len, const cyan_planar_stage *stages, int count) {
    _Alignas(64) float R[CYAN_PLANAR_BLOCK], G[CYAN_PLANAR_BLOCK], B[CYAN_PLANAR_BLOCK];
    const size_t whole = len & ~(size_t)15, padded = (len + 15) & ~(size_t)15;
    for (size_t i = 0; i < whole; i += 16) cyan_planar_split16(p + 4 * i, R + i, G + i, B + i);
    for (size_t i = whole; i < padded; i++) {
        const float *q = p + 4 * (i < len ? i : len - 1);
        R[i] = q[0]; G[i] = q[1]; B[i] = q[2];
    }
    int s = 0;
    for (; s < count; s++)
        if (stages[s].run512(R, G, B, padded, &stages[s]) != 0) break;
    for (size_t i = 0; i < whole; i += 16) cyan_planar_join16(p + 4 * i, R + i, G + i, B + i);
    for (size_t i = whole; i < len; i++) { float *q = p + 4 * i; q[0] = R[i]; q[1] = G[i]; q[2] = B[i]; }
    return s;
}

CYAN_AVX512 static size_t cyan_planar_run_avx512(float *row, size_t n, const cyan_planar_stage *stages, int count, int *declined) {
    for (size_t done = 0; done < n; done += CYAN_PLANAR_BLOCK) {
        size_t len = n - done < CYAN_PLANAR_BLOCK ? n - done : CYAN_PLANAR_BLOCK;
        int s = cyan_planar_block512(row + 4 * done, len, stages, count);
        if (s < count) { *declined = s; return done; }
    }
    return n;
}

CYAN_AVX2 static size_t cyan_planar_run_avx2(float *row, size_t n, const cyan_planar_stage *stages, int count, int *declined) {
    for (size_t done = 0; done < n; done += CYAN_PLANAR_BLOCK) {
        size_t len = n - done < CYAN_PLANAR_BLOCK ? n - done : CYAN_PLANAR_BLOCK;
        int s = cyan_planar_block(row + 4 * done, len, stages, count);
        if (s < count) { *declined = s; return done; }
    }
    return n;
}
#endif

size_t cyan_planar_block_length(void) { return CYAN_PLANAR_BLOCK; }

long cyan_planar_run(float *row, size_t n, const cyan_planar_stage *stages, int count, int *declined) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (cyan_vector_bits() >= 512) return (long)cyan_planar_run_avx512(row, n, stages, count, declined);
    if (cyan_planar_available()) return (long)cyan_planar_run_avx2(row, n, stages, count, declined);
#endif
    (void)row; (void)n; (void)stages; (void)count; (void)declined;
    return -1;
}

// The stages' constructors. On a CPU without AVX2 they still build the description; the run
// then reports -1 and nothing calls them.
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define CYAN_PLANAR_FN(name) name
#define CYAN_PLANAR_FN512(name) name##512
#else
static int cyan_planar_none(float *R, float *G, float *B, size_t n, const cyan_planar_stage *s) {
    (void)R; (void)G; (void)B; (void)n; (void)s;
    return 1;
}
#define CYAN_PLANAR_FN(name) cyan_planar_none
#define CYAN_PLANAR_FN512(name) cyan_planar_none
#endif

cyan_planar_stage cyan_planar_matrix(const float *m) {
    cyan_planar_stage s;
    memset(&s, 0, sizeof s);
    s.run = CYAN_PLANAR_FN(cyan_planar_matrix_run);
    s.run512 = CYAN_PLANAR_FN512(cyan_planar_matrix_run);
    memcpy(s.values, m, 20 * sizeof(float));
    return s;
}

cyan_planar_stage cyan_planar_vibrance(float amount) {
    cyan_planar_stage s;
    memset(&s, 0, sizeof s);
    s.run = CYAN_PLANAR_FN(cyan_planar_vibrance_run);
    s.run512 = CYAN_PLANAR_FN512(cyan_planar_vibrance_run);
    s.values[0] = -3.0f * amount;
    return s;
}

cyan_planar_stage cyan_planar_power_table(const float *cells, int k, int count) {
    cyan_planar_stage s;
    memset(&s, 0, sizeof s);
    s.run = CYAN_PLANAR_FN(cyan_planar_power_run);
    s.run512 = CYAN_PLANAR_FN512(cyan_planar_power_run);
    s.table = cells;
    s.k = k;
    s.count = count;
    return s;
}
