#include "CCyanotypeKernels.h"
#include <stdint.h>
#include <string.h>
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

// Float RGBA -> 8-bit RGBA with values as they are (no transfer curve): clamp to 0...1 (NaN
// to 0: maxps returns its second operand when one is NaN), scale, round half up, and narrow
// with saturating packs, four channels per instruction. With `unpremultiply`, translucent
// colour is divided by its alpha first (clear pixels become 0).
static inline uint8_t cyan_q8(float v) {
    v = v > 0.0f ? v : 0.0f;   // NaN -> 0
    v = v < 1.0f ? v : 1.0f;
    return (uint8_t)(v * 255.0f + 0.5f);
}

void cyan_quantize_rgba8(uint8_t *dst, const float *src, size_t n, int unpremultiply) {
#if !defined(__SSE2__)
    for (size_t i = 0; i < n; i++) {
        float r = src[4 * i], g = src[4 * i + 1], b = src[4 * i + 2], a = src[4 * i + 3];
        if (unpremultiply && !(a >= 1.0f)) {
            float inv = a > 0.0f ? 1.0f / a : 0.0f;
            r *= inv; g *= inv; b *= inv;
        }
        dst[4 * i] = cyan_q8(r); dst[4 * i + 1] = cyan_q8(g); dst[4 * i + 2] = cyan_q8(b); dst[4 * i + 3] = cyan_q8(a);
    }
#else
    const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f);
    const __m128 scale = _mm_set1_ps(255.0f), half = _mm_set1_ps(0.5f);
    for (size_t i = 0; i < n; i++) {
        __m128 v = _mm_loadu_ps(src + 4 * i);
        if (unpremultiply) {
            float a = src[4 * i + 3];
            if (!(a >= 1.0f)) {
                float inv = a > 0.0f ? 1.0f / a : 0.0f;
                __m128 k = _mm_set_ps(1.0f, inv, inv, inv);   // lanes a, b, g, r
                v = _mm_mul_ps(v, k);
            }
        }
        v = _mm_min_ps(_mm_max_ps(v, zero), one);
        __m128i q = _mm_cvttps_epi32(_mm_add_ps(_mm_mul_ps(v, scale), half));
        q = _mm_packs_epi32(q, q);
        q = _mm_packus_epi16(q, q);
        int packed = _mm_cvtsi128_si32(q);
        memcpy(dst + 4 * i, &packed, 4);
    }
#endif
}
