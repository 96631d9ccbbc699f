// The two passes of a separable resampling (Lanczos and the other scaling kernels) over float
// RGBA, with the vector width chosen at run time. Each output is the weighted sum of its taps
// added up from zero in tap order, every product rounded before its add (never a fused
// multiply-add), so every lane of every width gives the bits of the portable Swift loops.
#include "CCyanotypeKernels.h"
#include <stddef.h>
#include <stdint.h>

// The order of the sums and the rounding of every product are the contract.
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include "vector_paths.h"

// One output of the horizontal pass (SSE lanes: one pixel).
CYAN_AVX2 static inline void cyan_resample1(float *d, const float *s, const float *w, intptr_t taps) {
    __m128 acc = _mm_setzero_ps();
    for (intptr_t k = 0; k < taps; k++) acc = _mm_add_ps(acc, _mm_mul_ps(_mm_loadu_ps(s + 4 * k), _mm_broadcast_ss(w + k)));
    _mm_storeu_ps(d, acc);
}

// Two neighbouring outputs with the same tap count, one per 128-bit half. Taps go two at a
// time: one 256-bit load per output holds its taps k and k + 1, and two lane permutes make the
// pairs (output 0's tap k, output 1's tap k) and (the same for k + 1); the four weights come
// in one 128-bit vector, spread by two permutes. Each tap is still multiplied, then added to
// the running sum, in tap order.
CYAN_AVX2 static inline __m256 cyan_resample2(const float *s0, const float *s1, const float *w0, const float *w1, intptr_t taps) {
    const __m256i spreadK = _mm256_setr_epi32(0, 0, 0, 0, 2, 2, 2, 2), spreadK1 = _mm256_setr_epi32(1, 1, 1, 1, 3, 3, 3, 3);
    __m256 acc = _mm256_setzero_ps();
    intptr_t k = 0;
    for (; k + 2 <= taps; k += 2) {
        __m256 a = _mm256_loadu_ps(s0 + 4 * k), b = _mm256_loadu_ps(s1 + 4 * k);
        __m128 w = _mm_movelh_ps(_mm_castpd_ps(_mm_load_sd((const double *)(w0 + k))), _mm_castpd_ps(_mm_load_sd((const double *)(w1 + k))));
        __m256 ww = _mm256_castps128_ps256(w);
        acc = _mm256_add_ps(acc, _mm256_mul_ps(_mm256_permute2f128_ps(a, b, 0x20), _mm256_permutevar8x32_ps(ww, spreadK)));
        acc = _mm256_add_ps(acc, _mm256_mul_ps(_mm256_permute2f128_ps(a, b, 0x31), _mm256_permutevar8x32_ps(ww, spreadK1)));
    }
    if (k < taps) {
        __m256 p = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(s0 + 4 * k)), _mm_loadu_ps(s1 + 4 * k), 1);
        __m256 wk = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_broadcast_ss(w0 + k)), _mm_broadcast_ss(w1 + k), 1);
        acc = _mm256_add_ps(acc, _mm256_mul_ps(p, wk));
    }
    return acc;
}

CYAN_AVX2 static void cyan_resample_row_avx2(float *dst, const float *src, intptr_t origin, size_t n, const intptr_t *first,
                                             const intptr_t *taps, const float *weights, size_t stride) {
    size_t o = 0;
    while (o < n) {
        if (o + 1 < n && taps[o] == taps[o + 1]) {
            const float *w0 = weights + o * stride;
            __m256 a = cyan_resample2(src + 4 * (first[o] - origin), src + 4 * (first[o + 1] - origin), w0, w0 + stride, taps[o]);
            _mm256_storeu_ps(dst + 4 * o, a);
            o += 2;
        } else {
            cyan_resample1(dst + 4 * o, src + 4 * (first[o] - origin), weights + o * stride, taps[o]);
            o += 1;
        }
    }
}

// The vertical pass at both widths (cyan_resample_column_256, cyan_resample_column_512).
#define CYAN_BITS 256
#include "resampling_width.h"
#undef CYAN_BITS
#define CYAN_BITS 512
#include "resampling_width.h"
#undef CYAN_BITS
#endif

int cyan_resample_row_rgbaf(float *dst, const float *src, intptr_t origin, size_t n, const intptr_t *first, const intptr_t *taps,
                            const float *weights, size_t stride, int bits) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    int have = cyan_vector_bits();
    if ((bits < have ? bits : have) >= 256) {
        cyan_resample_row_avx2(dst, src, origin, n, first, taps, weights, stride);
        return 1;
    }
#endif
    (void)dst; (void)src; (void)origin; (void)n; (void)first; (void)taps; (void)weights; (void)stride; (void)bits;
    return 0;
}

int cyan_resample_column_rgbaf(float *dst, const float *const *rows, const float *w, size_t taps, size_t n, int bits) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    int have = cyan_vector_bits();
    bits = bits < have ? bits : have;
    if (bits >= 512) { cyan_resample_column_512(dst, rows, w, taps, 0, n); return 1; }
    if (bits >= 256) { cyan_resample_column_256(dst, rows, w, taps, 0, n); return 1; }
#endif
    (void)dst; (void)rows; (void)w; (void)taps; (void)n; (void)bits;
    return 0;
}
