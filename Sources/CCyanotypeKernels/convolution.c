// Separable symmetric convolution of float RGBA rows (the Gaussian blur's two passes), with
// the vector width chosen at run time (AVX-512F: four pixels a vector, AVX2: two). Each
// output value is w[0] s[0] + sum over k = 1...r of w[k] (s[-k] + s[+k]), added up in that
// order with a separate multiply and add (never a fused multiply-add), so every lane of every
// width gives the bits of the portable Swift loop, wherever the pixel sits in the row.
#include "CCyanotypeKernels.h"
#include <stddef.h>
#include <stdint.h>

// The order of the sums and the rounding of every product are the contract: no contraction
// of a multiply and an add into one fused operation.
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include "vector_paths.h"

// One pixel (SSE lanes): the tail of every loop below.
CYAN_AVX2 static inline void cyan_conv1(float *d, const float *c, ptrdiff_t step, const float *w, int r) {
    __m128 a = _mm_mul_ps(_mm_loadu_ps(c), _mm_set1_ps(w[0]));
    for (int k = 1; k <= r; k++) {
        __m128 p = _mm_add_ps(_mm_loadu_ps(c - k * step), _mm_loadu_ps(c + k * step));
        a = _mm_add_ps(a, _mm_mul_ps(p, _mm_set1_ps(w[k])));
    }
    _mm_storeu_ps(d, a);
}

// Two pixels (one AVX2 vector).
CYAN_AVX2 static inline void cyan_conv2(float *d, const float *c, ptrdiff_t step, const float *w, int r) {
    __m256 a = _mm256_mul_ps(_mm256_loadu_ps(c), _mm256_set1_ps(w[0]));
    for (int k = 1; k <= r; k++) {
        __m256 p = _mm256_add_ps(_mm256_loadu_ps(c - k * step), _mm256_loadu_ps(c + k * step));
        a = _mm256_add_ps(a, _mm256_mul_ps(p, _mm256_set1_ps(w[k])));
    }
    _mm256_storeu_ps(d, a);
}

// `n` pixels of one output run, `step` floats between taps (4: along a row; a row stride:
// down a column), eight pixels per step in four accumulators, then the tail.
CYAN_AVX2 static void cyan_conv_run_avx2(float *d, const float *c, size_t n, ptrdiff_t step, const float *w, int r) {
    size_t x = 0;
    for (; x + 8 <= n; x += 8) {
        const float *q = c + 4 * x;
        const __m256 w0 = _mm256_set1_ps(w[0]);
        __m256 a0 = _mm256_mul_ps(_mm256_loadu_ps(q), w0), a1 = _mm256_mul_ps(_mm256_loadu_ps(q + 8), w0);
        __m256 a2 = _mm256_mul_ps(_mm256_loadu_ps(q + 16), w0), a3 = _mm256_mul_ps(_mm256_loadu_ps(q + 24), w0);
        for (int k = 1; k <= r; k++) {
            const __m256 wk = _mm256_set1_ps(w[k]);
            const float *lo = q - k * step, *hi = q + k * step;
            a0 = _mm256_add_ps(a0, _mm256_mul_ps(_mm256_add_ps(_mm256_loadu_ps(lo), _mm256_loadu_ps(hi)), wk));
            a1 = _mm256_add_ps(a1, _mm256_mul_ps(_mm256_add_ps(_mm256_loadu_ps(lo + 8), _mm256_loadu_ps(hi + 8)), wk));
            a2 = _mm256_add_ps(a2, _mm256_mul_ps(_mm256_add_ps(_mm256_loadu_ps(lo + 16), _mm256_loadu_ps(hi + 16)), wk));
            a3 = _mm256_add_ps(a3, _mm256_mul_ps(_mm256_add_ps(_mm256_loadu_ps(lo + 24), _mm256_loadu_ps(hi + 24)), wk));
        }
        float *o = d + 4 * x;
        _mm256_storeu_ps(o, a0); _mm256_storeu_ps(o + 8, a1); _mm256_storeu_ps(o + 16, a2); _mm256_storeu_ps(o + 24, a3);
    }
    for (; x + 2 <= n; x += 2) cyan_conv2(d + 4 * x, c + 4 * x, step, w, r);
    if (x < n) cyan_conv1(d + 4 * x, c + 4 * x, step, w, r);
}

// The same with AVX-512: sixteen pixels per step in four accumulators of four pixels.
CYAN_AVX512 static void cyan_conv_run_avx512(float *d, const float *c, size_t n, ptrdiff_t step, const float *w, int r) {
    size_t x = 0;
    for (; x + 16 <= n; x += 16) {
        const float *q = c + 4 * x;
        const __m512 w0 = _mm512_set1_ps(w[0]);
        __m512 a0 = _mm512_mul_ps(_mm512_loadu_ps(q), w0), a1 = _mm512_mul_ps(_mm512_loadu_ps(q + 16), w0);
        __m512 a2 = _mm512_mul_ps(_mm512_loadu_ps(q + 32), w0), a3 = _mm512_mul_ps(_mm512_loadu_ps(q + 48), w0);
        for (int k = 1; k <= r; k++) {
            const __m512 wk = _mm512_set1_ps(w[k]);
            const float *lo = q - k * step, *hi = q + k * step;
            a0 = _mm512_add_ps(a0, _mm512_mul_ps(_mm512_add_ps(_mm512_loadu_ps(lo), _mm512_loadu_ps(hi)), wk));
            a1 = _mm512_add_ps(a1, _mm512_mul_ps(_mm512_add_ps(_mm512_loadu_ps(lo + 16), _mm512_loadu_ps(hi + 16)), wk));
            a2 = _mm512_add_ps(a2, _mm512_mul_ps(_mm512_add_ps(_mm512_loadu_ps(lo + 32), _mm512_loadu_ps(hi + 32)), wk));
            a3 = _mm512_add_ps(a3, _mm512_mul_ps(_mm512_add_ps(_mm512_loadu_ps(lo + 48), _mm512_loadu_ps(hi + 48)), wk));
        }
        float *o = d + 4 * x;
        _mm512_storeu_ps(o, a0); _mm512_storeu_ps(o + 16, a1); _mm512_storeu_ps(o + 32, a2); _mm512_storeu_ps(o + 48, a3);
    }
    for (; x + 4 <= n; x += 4) {
        const float *q = c + 4 * x;
        __m512 a = _mm512_mul_ps(_mm512_loadu_ps(q), _mm512_set1_ps(w[0]));
        for (int k = 1; k <= r; k++) {
            __m512 p = _mm512_add_ps(_mm512_loadu_ps(q - k * step), _mm512_loadu_ps(q + k * step));
            a = _mm512_add_ps(a, _mm512_mul_ps(p, _mm512_set1_ps(w[k])));
        }
        _mm512_storeu_ps(d + 4 * x, a);
    }
    for (; x + 2 <= n; x += 2) cyan_conv2(d + 4 * x, c + 4 * x, step, w, r);
    if (x < n) cyan_conv1(d + 4 * x, c + 4 * x, step, w, r);
}

static int cyan_conv_bits(int bits) {
    int have = cyan_vector_bits();
    return bits < have ? bits : have;
}
#endif

int cyan_convolve_rows_rgbaf(float *dst, ptrdiff_t dstStride, const float *src, ptrdiff_t srcStride,
                             size_t width, size_t rows, const float *w, int r, int bits) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    bits = cyan_conv_bits(bits);
    if (bits >= 512) {
        for (size_t y = 0; y < rows; y++) cyan_conv_run_avx512(dst + 4 * dstStride * (ptrdiff_t)y, src + 4 * srcStride * (ptrdiff_t)y, width, 4, w, r);
        return 1;
    }
    if (bits >= 256) {
        for (size_t y = 0; y < rows; y++) cyan_conv_run_avx2(dst + 4 * dstStride * (ptrdiff_t)y, src + 4 * srcStride * (ptrdiff_t)y, width, 4, w, r);
        return 1;
    }
#endif
    (void)dst; (void)dstStride; (void)src; (void)srcStride; (void)width; (void)rows; (void)w; (void)r; (void)bits;
    return 0;
}

int cyan_convolve_columns_rgbaf(float *dst, ptrdiff_t dstStride, const float *src, ptrdiff_t srcStride,
                                size_t width, size_t rows, const float *w, int r, int bits) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    bits = cyan_conv_bits(bits);
    if (bits < 256) return 0;
    // Strips of 32 (AVX-512) or 16 (AVX2) pixels, each taken down every output row: the
    // 2r + 1 input rows under a strip stay in L1 from one output row to the next (a whole
    // tile row at a time read them all from L2 again for every output row).
    const size_t strip = bits >= 512 ? 32 : 16;
    const ptrdiff_t step = 4 * srcStride;
    for (size_t x0 = 0; x0 < width; x0 += strip) {
        size_t n = width - x0 < strip ? width - x0 : strip;
        for (size_t y = 0; y < rows; y++) {
            float *d = dst + 4 * (dstStride * (ptrdiff_t)y + (ptrdiff_t)x0);
            const float *c = src + 4 * (srcStride * (ptrdiff_t)y + (ptrdiff_t)x0);
            if (bits >= 512) cyan_conv_run_avx512(d, c, n, step, w, r);
            else cyan_conv_run_avx2(d, c, n, step, w, r);
        }
    }
    return 1;
#else
    (void)dst; (void)dstStride; (void)src; (void)srcStride; (void)width; (void)rows; (void)w; (void)r; (void)bits;
    return 0;
#endif
}
