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

// The runs at both widths (cyan_conv_run_256, cyan_conv_run_512).
#define CYAN_BITS 256
#include "convolution_width.h"
#undef CYAN_BITS
#define CYAN_BITS 512
#include "convolution_width.h"
#undef CYAN_BITS

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
        for (size_t y = 0; y < rows; y++) cyan_conv_run_512(dst + 4 * dstStride * (ptrdiff_t)y, src + 4 * srcStride * (ptrdiff_t)y, width, 4, w, r);
        return 1;
    }
    if (bits >= 256) {
        for (size_t y = 0; y < rows; y++) cyan_conv_run_256(dst + 4 * dstStride * (ptrdiff_t)y, src + 4 * srcStride * (ptrdiff_t)y, width, 4, w, r);
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
            if (bits >= 512) cyan_conv_run_512(d, c, n, step, w, r);
            else cyan_conv_run_256(d, c, n, step, w, r);
        }
    }
    return 1;
#else
    (void)dst; (void)dstStride; (void)src; (void)srcStride; (void)width; (void)rows; (void)w; (void)r; (void)bits;
    return 0;
#endif
}
