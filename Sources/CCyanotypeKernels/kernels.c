#include "CCyanotypeKernels.h"
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

void cyan_store_rgbaf_stream(float *dst, const float *src, size_t n, int clamp) {
#if defined(__SSE2__)
    if (((uintptr_t)dst & 15) == 0) {
        const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f);
        for (size_t i = 0; i < n; i++) {
            __m128 p = _mm_loadu_ps(src + 4 * i);
            if (clamp) {
                /* alpha in 0...1, broadcast; max/min with a NaN first operand return the second. */
                __m128 a = _mm_shuffle_ps(p, p, _MM_SHUFFLE(3, 3, 3, 3));
                a = _mm_min_ps(_mm_max_ps(a, zero), one);
                __m128 c = _mm_min_ps(_mm_max_ps(p, zero), a);
                /* put alpha back in lane 3 */
                __m128 hi = _mm_shuffle_ps(c, a, _MM_SHUFFLE(3, 3, 2, 2)); /* c2 c2 a a */
                p = _mm_shuffle_ps(c, hi, _MM_SHUFFLE(2, 0, 1, 0));        /* c0 c1 c2 a */
            }
            _mm_stream_ps(dst + 4 * i, p);
        }
        _mm_sfence();
        return;
    }
#endif
    for (size_t i = 0; i < n; i++) {
        float a = src[4 * i + 3];
        for (int k = 0; k < 4; k++) {
            float v = src[4 * i + k];
            if (clamp) {
                float lim = a > 0 ? (a < 1 ? a : 1) : 0;
                v = v > 0 ? (v < (k == 3 ? 1.0f : lim) ? v : (k == 3 ? 1.0f : lim)) : 0;
            }
            dst[4 * i + k] = v;
        }
    }
}
