#include "CCyanotypeKernels.h"
#include <stdint.h>

// Tetrahedral 3D LUT lookups, eight pixels per step: cells, fractions and weights in AVX2
// vectors, then each pixel's four corners as whole 16-byte entries (1.4x the speed of
// gathering the twelve values per pixel on a Zen 4, bit for bit the same). The arithmetic is
// LUTSampler.tetrahedralSorted's (Swift), operation for operation and in the same order, with
// no fused multiply-adds, so the results are the same bits: the Swift loop stays the
// reference and the portable path.
#pragma STDC FP_CONTRACT OFF

// The cell index (floor of t, capped at the last cell) and the fraction, as LUTSampler.axis.
static inline int cyan_lut_axis(float v, float lo, float scale, float maxIndex, int last, float *f) {
    float raw = (v - lo) * scale;
    float t = raw > 0 ? (raw < maxIndex ? raw : maxIndex) : 0;   // NaN -> 0
    float r = (t - 0.5f) + 12582912.0f;
    union { float f; uint32_t u; } bits = { r };
    int i = (int)(bits.u & 0x3FFFFF);
    int k = i < last ? i : last;
    *f = t - (float)k;
    return k;
}

static inline float cyan_maxf(float a, float b) { return b >= a ? b : a; }
static inline float cyan_minf(float a, float b) { return b < a ? b : a; }

// One pixel, exactly as the vector loop (and the Swift loop) computes it.
static void cyan_lut_tetrahedral_1(float *p, const float *table, int n, const float *lo, const float *scale,
                                   float intensity, const int *corners) {
    const float maxIndex = (float)(n - 1);
    const int last = n - 2;
    float fr, fg, fb;
    int ir = cyan_lut_axis(p[0], lo[0], scale[0], maxIndex, last, &fr);
    int ig = cyan_lut_axis(p[1], lo[1], scale[1], maxIndex, last, &fg);
    int ib = cyan_lut_axis(p[2], lo[2], scale[2], maxIndex, last, &fb);
    const float *c = table + 4 * ((long)ir + (long)ig * n + (long)ib * n * n);
    int code = (fr >= fg ? 1 : 0) | (fr >= fb ? 2 : 0) | (fg >= fb ? 4 : 0);
    const float *cHi = c + 4 * corners[code], *cPair = c + 4 * corners[code + 8], *c111 = c + 4 * ((long)n * n + n + 1);
    float hi = cyan_maxf(fr, cyan_maxf(fg, fb)), lw = cyan_minf(fr, cyan_minf(fg, fb));
    float mid = fr + fg + fb - hi - lw;
    for (int ch = 0; ch < 3; ch++) {
        float o = c[ch] * (1 - hi) + cHi[ch] * (hi - mid) + cPair[ch] * (mid - lw) + c111[ch] * lw;
        if (intensity != 1) o = p[ch] + (o - p[ch]) * intensity;
        p[ch] = o;
    }
}

// For each order code (bit 0: r >= g, bit 1: r >= b, bit 2: g >= b): 0...7, the corner one
// step along the largest fraction's axis; 8...15, the corner along the two largest (as
// LUTSampler.tetrahedronCorners). Offsets in entries.
static void cyan_lut_corners(int n, int *t) {
    const int r = 1, g = n, b = n * n, o111 = n * n + n + 1;
    const int hiAxis[8] = { b, b, b, r, g, r, g, r }, loAxis[8] = { r, g, r, g, r, b, b, b };
    for (int code = 0; code < 8; code++) {
        t[code] = hiAxis[code];
        t[code + 8] = o111 - loAxis[code];
    }
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include "vector_paths.h"

CYAN_AVX2 static void cyan_lut_tetrahedral_avx2(float *row, size_t count, const float *table, int n, const float *lo,
                                      const float *scale, float intensity, const int *corners) {
    const __m256 zero = _mm256_setzero_ps(), half = _mm256_set1_ps(0.5f), magic = _mm256_set1_ps(12582912.0f);
    const __m256 maxIndex = _mm256_set1_ps((float)(n - 1)), one = _mm256_set1_ps(1.0f);
    const __m128 k4 = _mm_set1_ps(intensity);
    static const int lanePixel[8] = { 0, 2, 4, 6, 1, 3, 5, 7 };
    int32_t idx[4][8] __attribute__((aligned(32)));
    float wt[4][8] __attribute__((aligned(32)));
    const __m256i mask22 = _mm256_set1_epi32(0x3FFFFF), last = _mm256_set1_epi32(n - 2);
    const __m256i gStride = _mm256_set1_epi32(n), bStride = _mm256_set1_epi32(n * n);
    const __m256i hiTable = _mm256_slli_epi32(_mm256_loadu_si256((const __m256i *)corners), 2);
    const __m256i pairTable = _mm256_slli_epi32(_mm256_loadu_si256((const __m256i *)(corners + 8)), 2);
    const __m256i o111 = _mm256_set1_epi32(4 * (n * n + n + 1));
    const __m256 lo0 = _mm256_set1_ps(lo[0]), lo1 = _mm256_set1_ps(lo[1]), lo2 = _mm256_set1_ps(lo[2]);
    const __m256 sc0 = _mm256_set1_ps(scale[0]), sc1 = _mm256_set1_ps(scale[1]), sc2 = _mm256_set1_ps(scale[2]);
    const int mix = intensity != 1;
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        float *q = row + 4 * i;
        __m256 a = _mm256_loadu_ps(q), b = _mm256_loadu_ps(q + 8), c = _mm256_loadu_ps(q + 16), d = _mm256_loadu_ps(q + 24);
        // Channels across pixels 0 2 4 6 1 3 5 7 (lanePixel).
        __m256 t0 = _mm256_unpacklo_ps(a, b), t1 = _mm256_unpackhi_ps(a, b);
        __m256 t2 = _mm256_unpacklo_ps(c, d), t3 = _mm256_unpackhi_ps(c, d);
        __m256 R = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)), G = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
        __m256 B = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
        __m256i ki[3];
        __m256 f[3];
        const __m256 ch[3] = { R, G, B }, los[3] = { lo0, lo1, lo2 }, scs[3] = { sc0, sc1, sc2 };
        for (int x = 0; x < 3; x++) {
            __m256 raw = _mm256_mul_ps(_mm256_sub_ps(ch[x], los[x]), scs[x]);
            // raw > 0 ? min(raw, maxIndex) : 0, NaN -> 0 (the ordered compare is false).
            __m256 t = _mm256_and_ps(_mm256_min_ps(raw, maxIndex), _mm256_cmp_ps(raw, zero, _CMP_GT_OQ));
            __m256 r = _mm256_add_ps(_mm256_sub_ps(t, half), magic);
            __m256i kk = _mm256_min_epi32(_mm256_and_si256(_mm256_castps_si256(r), mask22), last);
            ki[x] = kk;
            f[x] = _mm256_sub_ps(t, _mm256_cvtepi32_ps(kk));
        }
        __m256i base = _mm256_add_epi32(_mm256_add_epi32(ki[0], _mm256_mullo_epi32(ki[1], gStride)), _mm256_mullo_epi32(ki[2], bStride));
        base = _mm256_slli_epi32(base, 2);
        __m256i code = _mm256_and_si256(_mm256_castps_si256(_mm256_cmp_ps(f[0], f[1], _CMP_GE_OQ)), _mm256_set1_epi32(1));
        code = _mm256_or_si256(code, _mm256_and_si256(_mm256_castps_si256(_mm256_cmp_ps(f[0], f[2], _CMP_GE_OQ)), _mm256_set1_epi32(2)));
        code = _mm256_or_si256(code, _mm256_and_si256(_mm256_castps_si256(_mm256_cmp_ps(f[1], f[2], _CMP_GE_OQ)), _mm256_set1_epi32(4)));
        _mm256_store_si256((__m256i *)idx[0], base);
        _mm256_store_si256((__m256i *)idx[1], _mm256_add_epi32(base, _mm256_permutevar8x32_epi32(hiTable, code)));
        _mm256_store_si256((__m256i *)idx[2], _mm256_add_epi32(base, _mm256_permutevar8x32_epi32(pairTable, code)));
        _mm256_store_si256((__m256i *)idx[3], _mm256_add_epi32(base, o111));
        // The fractions are in 0...1 (never NaN or -0), so max/min match Swift's.
        __m256 hi = _mm256_max_ps(f[0], _mm256_max_ps(f[1], f[2])), lw = _mm256_min_ps(f[0], _mm256_min_ps(f[1], f[2]));
        __m256 mid = _mm256_sub_ps(_mm256_sub_ps(_mm256_add_ps(_mm256_add_ps(f[0], f[1]), f[2]), hi), lw);
        _mm256_store_ps(wt[0], _mm256_sub_ps(one, hi));
        _mm256_store_ps(wt[1], _mm256_sub_ps(hi, mid));
        _mm256_store_ps(wt[2], _mm256_sub_ps(mid, lw));
        _mm256_store_ps(wt[3], lw);
        // Each pixel's four corners as whole entries, mixed on 128 bits; alpha kept.
        for (int j = 0; j < 8; j++) {
            float *px = q + 4 * lanePixel[j];
            __m128 v = _mm_mul_ps(_mm_loadu_ps(table + idx[0][j]), _mm_broadcast_ss(&wt[0][j]));
            v = _mm_add_ps(v, _mm_mul_ps(_mm_loadu_ps(table + idx[1][j]), _mm_broadcast_ss(&wt[1][j])));
            v = _mm_add_ps(v, _mm_mul_ps(_mm_loadu_ps(table + idx[2][j]), _mm_broadcast_ss(&wt[2][j])));
            v = _mm_add_ps(v, _mm_mul_ps(_mm_loadu_ps(table + idx[3][j]), _mm_broadcast_ss(&wt[3][j])));
            __m128 p = _mm_loadu_ps(px);
            if (mix) v = _mm_add_ps(p, _mm_mul_ps(_mm_sub_ps(v, p), k4));
            _mm_storeu_ps(px, _mm_blend_ps(v, p, 0x8));
        }
    }
    for (; i < count; i++) cyan_lut_tetrahedral_1(row + 4 * i, table, n, lo, scale, intensity, corners);
}
#endif

int cyan_lut_tetrahedral_rgbaf(float *row, size_t count, const float *table, int size, const float *domainLo,
                               const float *domainScale, float intensity) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (size >= 2 && size <= 256 && cyan_vector_bits() >= 256) {
        int corners[16];
        cyan_lut_corners(size, corners);
        cyan_lut_tetrahedral_avx2(row, count, table, size, domainLo, domainScale, intensity, corners);
        return 1;
    }
#endif
    (void)row; (void)count; (void)table; (void)size; (void)domainLo; (void)domainScale; (void)intensity;
    (void)cyan_lut_tetrahedral_1; (void)cyan_lut_corners;
    return 0;
}
