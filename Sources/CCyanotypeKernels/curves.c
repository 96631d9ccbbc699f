// The sRGB curve both ways on float RGBA rows through SRGBCurveTables' 4096-cell tables
// (Swift: encodeSRGB / decodeSRGB in LUTStage.swift), two pixels per AVX2 vector with the
// table cells gathered. The arithmetic is curveLookup's, operation for operation and in the
// same order (square root, scale, the rounding-magic floor, the fraction, a + (b - a) f with
// no fused multiply-add), so the results are the Swift loop's bits: that loop stays the
// reference and the portable path.
#include "CCyanotypeKernels.h"
#include <stddef.h>
#include <stdint.h>

#pragma STDC FP_CONTRACT OFF
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include "vector_paths.h"

CYAN_AVX2 static long cyan_srgb_curve_avx2(float *row, size_t n, const float *table, int cells, int encode, int32_t *outside) {
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f), half = _mm256_set1_ps(0.5f);
    const __m256 scale = _mm256_set1_ps((float)cells), magic = _mm256_set1_ps(12582912.0f);
    const __m256i magicBits = _mm256_set1_epi32(0x4B400000), zeroi = _mm256_setzero_si256();
    long left = 0;
    for (size_t i = 0; i < n; i += 2) {
        float *q = row + 4 * i;
        const int pair = i + 2 <= n;
        // The odd last pixel rides in both halves; only the low one is stored.
        __m256 p = pair ? _mm256_loadu_ps(q) : _mm256_broadcast_ps((const __m128 *)q);
        __m256 c = _mm256_blend_ps(p, zero, 0x88);   // colour, alpha lanes 0 (as SIMD4(x, y, z, 0))
        int inside = _mm256_movemask_ps(_mm256_and_ps(_mm256_cmp_ps(c, zero, _CMP_GE_OQ), _mm256_cmp_ps(c, one, _CMP_LE_OQ)));
        int lo = (inside & 0x0F) == 0x0F, hi = (inside & 0xF0) == 0xF0;
        if (!lo && !(pair && hi)) {
            outside[left++] = (int32_t)i;
            if (pair) outside[left++] = (int32_t)(i + 1);
            continue;
        }
        __m256 s = _mm256_mul_ps(encode ? _mm256_sqrt_ps(c) : c, scale);
        __m256i k = _mm256_sub_epi32(_mm256_castps_si256(_mm256_add_ps(_mm256_sub_ps(s, half), magic)), magicBits);
        k = _mm256_max_epi32(k, zeroi);
        __m256 f = _mm256_sub_ps(s, _mm256_sub_ps(_mm256_castsi256_ps(_mm256_add_epi32(k, magicBits)), magic));
        // Lanes of a pixel left to the caller (out of range, NaN) index cell 0: read, never stored.
        k = _mm256_and_si256(k, _mm256_set_epi32(-hi, -hi, -hi, -hi, -lo, -lo, -lo, -lo));
        __m256 a = _mm256_i32gather_ps(table, k, 4);
        __m256 b = _mm256_i32gather_ps(table + 1, k, 4);
        __m256 r = _mm256_add_ps(a, _mm256_mul_ps(_mm256_sub_ps(b, a), f));
        r = _mm256_blend_ps(r, p, 0x88);   // alpha as it was, bit for bit
        if (pair && lo && hi) {
            _mm256_storeu_ps(q, r);
            continue;
        }
        if (lo) _mm_storeu_ps(q, _mm256_castps256_ps128(r));
        else outside[left++] = (int32_t)i;
        if (pair) {
            if (hi) _mm_storeu_ps(q + 4, _mm256_extractf128_ps(r, 1));
            else outside[left++] = (int32_t)(i + 1);
        }
    }
    return left;
}
#endif

long cyan_srgb_curve_rgbaf(float *row, size_t n, const float *table, int cells, int encode, int32_t *outside) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (cyan_vector_bits() >= 256) return cyan_srgb_curve_avx2(row, n, table, cells, encode, outside);
#endif
    (void)row; (void)n; (void)table; (void)cells; (void)encode; (void)outside;
    return -1;
}
