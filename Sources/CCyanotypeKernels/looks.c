// Row loops of the looks (Instafilter's CSS filter functions and film grain) and of
// `CIBlendFunction`'s vector blend modes, with the vector width chosen at run time: eight
// pixels a step with AVX2, four with SSE2 (every x86-64), channels transposed to one vector
// each. Every pixel goes through the same separate multiplies and adds, in the order of the
// portable Swift loops these replace (no fused multiply-add), so results are bit for bit those
// loops' on every path and wherever a pixel sits in a row.
#include "CCyanotypeKernels.h"
#include <stddef.h>
#include <stdint.h>

#if defined(__clang__)
#pragma clang fp contract(off)
#endif

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include "vector_paths.h"

// MARK: Channel transposes

// Four pixels to r, g, b, a vectors, per 128-bit lane (the 4x4 transpose). A transpose is its
// own inverse, so the same macro turns channel vectors back into pixels:
// CYAN_TRANSPOSE4(r, g, b, a, p0, p1, p2, p3, W).
#define CYAN_TRANSPOSE4(P0, P1, P2, P3, R, G, B, A, W)                                           \
    do {                                                                                         \
        __m##W t0 = _mm##W##_unpacklo_ps(P0, P1), t1 = _mm##W##_unpackhi_ps(P0, P1);             \
        __m##W t2 = _mm##W##_unpacklo_ps(P2, P3), t3 = _mm##W##_unpackhi_ps(P2, P3);             \
        R = _mm##W##_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));                                \
        G = _mm##W##_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));                                \
        B = _mm##W##_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));                                \
        A = _mm##W##_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));                                \
    } while (0)

// With W empty the macros name the SSE types and intrinsics (__m128 is spelled out below).
typedef __m128 __m;

// MARK: CSS affines

// The Swift loop: q = c0 r + c1 g + c2 b + c3 a + c4 per lane, summed left to right, where
// lane i of column j holds m[4i + j] for colour and the alpha lane holds only c3 = sa; then
// q > 0 ? q : 0 (NaN to 0) and q > 1 ? 1 : q. max(q, 0) and min(q, 1) in that operand order
// are exactly those selects.
//
// When every channel of the group is finite (always, after the first map's clamp), the terms
// 0 * a (colour) and 0 * r, 0 * g, 0 * b and + 0 (alpha) are zeros whose only effect is the
// sign of a zero result, which the clamp to 0 erases: they are skipped, with the same bits.
#define CYAN_AFFINES_BODY(W, SET1, MUL, ADD, MAX, MIN)                                           \
    for (int j = 0; j < k && finite; j++) {                                                      \
        const float *c = m + 13 * j;                                                             \
        W nr = ADD(ADD(ADD(MUL(SET1(c[0]), r), MUL(SET1(c[1]), g)), MUL(SET1(c[2]), b)), SET1(c[3])); \
        W ng = ADD(ADD(ADD(MUL(SET1(c[4]), r), MUL(SET1(c[5]), g)), MUL(SET1(c[6]), b)), SET1(c[7])); \
        W nb = ADD(ADD(ADD(MUL(SET1(c[8]), r), MUL(SET1(c[9]), g)), MUL(SET1(c[10]), b)), SET1(c[11])); \
        W na = MUL(SET1(c[12]), a);                                                              \
        r = MIN(MAX(nr, zero), one);                                                             \
        g = MIN(MAX(ng, zero), one);                                                             \
        b = MIN(MAX(nb, zero), one);                                                             \
        a = MIN(MAX(na, zero), one);                                                             \
    }                                                                                            \
    for (int j = 0; j < k && !finite; j++) {                                                     \
        const float *c = m + 13 * j;                                                             \
        W zr = MUL(zero, r), zg = MUL(zero, g), zb = MUL(zero, b), za = MUL(zero, a);             \
        W nr = ADD(ADD(ADD(ADD(MUL(SET1(c[0]), r), MUL(SET1(c[1]), g)), MUL(SET1(c[2]), b)), za), SET1(c[3])); \
        W ng = ADD(ADD(ADD(ADD(MUL(SET1(c[4]), r), MUL(SET1(c[5]), g)), MUL(SET1(c[6]), b)), za), SET1(c[7])); \
        W nb = ADD(ADD(ADD(ADD(MUL(SET1(c[8]), r), MUL(SET1(c[9]), g)), MUL(SET1(c[10]), b)), za), SET1(c[11])); \
        W na = ADD(ADD(ADD(ADD(zr, zg), zb), MUL(SET1(c[12]), a)), zero);                          \
        r = MIN(MAX(nr, zero), one);                                                             \
        g = MIN(MAX(ng, zero), one);                                                             \
        b = MIN(MAX(nb, zero), one);                                                             \
        a = MIN(MAX(na, zero), one);                                                             \
    }

// Whether every lane of `z` is zero: every channel of the group finite.
static inline int cyan_all_zero_(__m128 z) { return _mm_movemask_ps(_mm_cmpeq_ps(z, _mm_setzero_ps())) == 0xF; }
CYAN_AVX2 static inline int cyan_all_zero_256(__m256 z) { return _mm256_movemask_ps(_mm256_cmp_ps(z, _mm256_setzero_ps(), _CMP_EQ_OQ)) == 0xFF; }

// The maps over the row, LANES pixels a step in W-bit vectors (W empty: SSE); `*done` is where
// the vector steps stopped (the caller takes the tail one pixel at a time).
#define CYAN_AFFINES_ROWS(W, LANES)                                                              \
    const __m##W zero = _mm##W##_setzero_ps(), one = _mm##W##_set1_ps(1.0f);                     \
    size_t i = 0;                                                                                \
    for (; i + LANES <= n; i += LANES) {                                                         \
        float *q = row + 4 * i;                                                                  \
        __m##W p0 = _mm##W##_loadu_ps(q), p1 = _mm##W##_loadu_ps(q + LANES);                     \
        __m##W p2 = _mm##W##_loadu_ps(q + 2 * LANES), p3 = _mm##W##_loadu_ps(q + 3 * LANES);     \
        __m##W r, g, b, a;                                                                       \
        CYAN_TRANSPOSE4(p0, p1, p2, p3, r, g, b, a, W);                                          \
        __m##W z = _mm##W##_add_ps(_mm##W##_add_ps(_mm##W##_mul_ps(r, zero), _mm##W##_mul_ps(g, zero)), \
                                   _mm##W##_add_ps(_mm##W##_mul_ps(b, zero), _mm##W##_mul_ps(a, zero))); \
        int finite = cyan_all_zero_##W(z);                                                       \
        CYAN_AFFINES_BODY(__m##W, _mm##W##_set1_ps, _mm##W##_mul_ps, _mm##W##_add_ps, _mm##W##_max_ps, _mm##W##_min_ps) \
        CYAN_TRANSPOSE4(r, g, b, a, p0, p1, p2, p3, W);                                          \
        _mm##W##_storeu_ps(q, p0); _mm##W##_storeu_ps(q + LANES, p1);                            \
        _mm##W##_storeu_ps(q + 2 * LANES, p2); _mm##W##_storeu_ps(q + 3 * LANES, p3);            \
    }                                                                                            \
    *done = i;

static inline void cyan_affines_sse(float *row, size_t n, const float *m, int k, size_t *done) { CYAN_AFFINES_ROWS(, 4) }

CYAN_AVX2 static void cyan_affines_avx2(float *row, size_t n, const float *m, int k, size_t *done) { CYAN_AFFINES_ROWS(256, 8) }
#endif

// One pixel at a time with the same operations (the row's tail, and CPUs without SSE).
static inline float cyan_clamp01_select(float v) {
    v = v > 0.0f ? v : 0.0f;
    return v > 1.0f ? 1.0f : v;
}

static void cyan_affines_scalar(float *p, size_t n, const float *m, int k) {
    for (size_t i = 0; i < n; i++, p += 4) {
        float r = p[0], g = p[1], b = p[2], a = p[3];
        for (int j = 0; j < k; j++) {
            const float *c = m + 13 * j;
            float za = 0.0f * a;
            float nr = c[0] * r + c[1] * g + c[2] * b + za + c[3];
            float ng = c[4] * r + c[5] * g + c[6] * b + za + c[7];
            float nb = c[8] * r + c[9] * g + c[10] * b + za + c[11];
            float na = 0.0f * r + 0.0f * g + 0.0f * b + c[12] * a + 0.0f;
            r = cyan_clamp01_select(nr); g = cyan_clamp01_select(ng); b = cyan_clamp01_select(nb); a = cyan_clamp01_select(na);
        }
        p[0] = r; p[1] = g; p[2] = b; p[3] = a;
    }
}

int cyan_css_affines_rgbaf(float *row, size_t n, const float *m, int k) {
    if (k <= 0 || n == 0) return 1;
    size_t done = 0;
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (cyan_vector_bits() >= 256) cyan_affines_avx2(row, n, m, k, &done);
    else cyan_affines_sse(row, n, m, k, &done);
#else
    return 0;
#endif
    cyan_affines_scalar(row + 4 * done, n - done, m, k);
    return 1;
}

// MARK: Blend functions: Cb + As (B(Cb, Cs) - Cb) on straight colour, backdrop alpha kept

// B per mode, lane for lane the Swift `blend4` expressions (BlendStage.swift), selects as
// masks (and / andnot / or, so SSE2 needs no blendv).
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define CYAN_SEL(W, MASK, YES, NO) _mm##W##_or_ps(_mm##W##_and_ps(MASK, YES), _mm##W##_andnot_ps(MASK, NO))

#define CYAN_BLEND_FN(NAME, W, ATTR, LE, LT, GT, GE)                                                           \
    ATTR static inline __m##W NAME(int mode, __m##W cb, __m##W cs) {                              \
        const __m##W one = _mm##W##_set1_ps(1.0f), two = _mm##W##_set1_ps(2.0f);                  \
        const __m##W half = _mm##W##_set1_ps(0.5f);                                              \
        switch (mode) {                                                                          \
        case CYAN_BLEND_NORMAL: return cs;                                                        \
        case CYAN_BLEND_MULTIPLY: return _mm##W##_mul_ps(cb, cs);                                 \
        case CYAN_BLEND_SCREEN: return _mm##W##_sub_ps(_mm##W##_add_ps(cb, cs), _mm##W##_mul_ps(cb, cs)); \
        case CYAN_BLEND_OVERLAY: case CYAN_BLEND_HARD_LIGHT: {                                    \
            /* hardLightB4(x, y): y <= 0.5 ? x (2y) : x + t - x t with t = 2y - 1 */             \
            __m##W x = mode == CYAN_BLEND_OVERLAY ? cs : cb, y = mode == CYAN_BLEND_OVERLAY ? cb : cs; \
            __m##W y2 = _mm##W##_mul_ps(two, y), t = _mm##W##_sub_ps(y2, one);                   \
            __m##W high = _mm##W##_sub_ps(_mm##W##_add_ps(x, t), _mm##W##_mul_ps(x, t));          \
            return CYAN_SEL(W, LE(y, half), _mm##W##_mul_ps(x, y2), high); \
        }                                                                                        \
        case CYAN_BLEND_SOFT_LIGHT: {                                                            \
            __m##W cs2 = _mm##W##_mul_ps(two, cs);                                               \
            __m##W low = _mm##W##_sub_ps(cb, _mm##W##_mul_ps(_mm##W##_mul_ps(_mm##W##_sub_ps(one, cs2), cb), _mm##W##_sub_ps(one, cb))); \
            __m##W poly = _mm##W##_mul_ps(_mm##W##_add_ps(_mm##W##_mul_ps(_mm##W##_sub_ps(_mm##W##_mul_ps(_mm##W##_set1_ps(16.0f), cb), _mm##W##_set1_ps(12.0f)), cb), _mm##W##_set1_ps(4.0f)), cb); \
            __m##W d = CYAN_SEL(W, LE(cb, _mm##W##_set1_ps(0.25f)), poly, _mm##W##_sqrt_ps(cb)); \
            __m##W high = _mm##W##_add_ps(cb, _mm##W##_mul_ps(_mm##W##_sub_ps(cs2, one), _mm##W##_sub_ps(d, cb))); \
            return CYAN_SEL(W, LE(cs, half), low, high);                \
        }                                                                                        \
        case CYAN_BLEND_DIFFERENCE:                                                              \
            return CYAN_SEL(W, GT(cb, cs), _mm##W##_sub_ps(cb, cs), _mm##W##_sub_ps(cs, cb)); \
        case CYAN_BLEND_EXCLUSION:                                                               \
            return _mm##W##_sub_ps(_mm##W##_add_ps(cb, cs), _mm##W##_mul_ps(_mm##W##_mul_ps(two, cb), cs)); \
        case CYAN_BLEND_DARKEN: return CYAN_SEL(W, LT(cs, cb), cs, cb);   \
        case CYAN_BLEND_LIGHTEN: return CYAN_SEL(W, GE(cs, cb), cs, cb);  \
        default: return cb;                                                                      \
        }                                                                                        \
    }

// Ordered compares (false for NaN, as Swift's `.<=` and friends); SSE2 has no _mm_cmp_ps.
#define CYAN_LE256(a, b) _mm256_cmp_ps(a, b, _CMP_LE_OQ)
#define CYAN_LT256(a, b) _mm256_cmp_ps(a, b, _CMP_LT_OQ)
#define CYAN_GT256(a, b) _mm256_cmp_ps(a, b, _CMP_GT_OQ)
#define CYAN_GE256(a, b) _mm256_cmp_ps(a, b, _CMP_GE_OQ)
CYAN_BLEND_FN(cyan_blend256, 256, CYAN_AVX2, CYAN_LE256, CYAN_LT256, CYAN_GT256, CYAN_GE256)
CYAN_BLEND_FN(cyan_blend128, , , _mm_cmple_ps, _mm_cmplt_ps, _mm_cmpgt_ps, _mm_cmpge_ps)

// Colour dodge and burn (W3C, with BlendStage's edge rules) and the non-separable modes
// (SetLum / SetSat / ClipColor), lane for lane the Swift scalar code, its branches as selects.
// Swift's min(x, y) is y < x ? y : x and max(x, y) is y >= x ? y : x (NaN included).
#define CYAN_NS_FNS(SUFFIX, W, ATTR, LE, LT, GT, GE, EQ)                                        \
    ATTR static inline __m##W cyan_smin##SUFFIX(__m##W x, __m##W y) { return CYAN_SEL(W, LT(y, x), y, x); } \
    ATTR static inline __m##W cyan_smax##SUFFIX(__m##W x, __m##W y) { return CYAN_SEL(W, GE(y, x), y, x); } \
    ATTR static inline __m##W cyan_dodge##SUFFIX(__m##W cb, __m##W cs) {                          \
        const __m##W one = _mm##W##_set1_ps(1.0f), zero = _mm##W##_setzero_ps();                  \
        __m##W v = cyan_smin##SUFFIX(one, _mm##W##_div_ps(cb, _mm##W##_sub_ps(one, cs)));          \
        v = CYAN_SEL(W, GE(cs, one), one, v);                                                    \
        return CYAN_SEL(W, EQ(cb, zero), zero, v);                                               \
    }                                                                                            \
    ATTR static inline __m##W cyan_burn##SUFFIX(__m##W cb, __m##W cs) {                           \
        const __m##W one = _mm##W##_set1_ps(1.0f), zero = _mm##W##_setzero_ps();                  \
        __m##W v = _mm##W##_sub_ps(one, cyan_smin##SUFFIX(one, _mm##W##_div_ps(_mm##W##_sub_ps(one, cb), cs))); \
        v = CYAN_SEL(W, LE(cs, zero), zero, v);                                                  \
        return CYAN_SEL(W, GE(cb, one), one, v);                                                 \
    }                                                                                            \
    ATTR static inline __m##W cyan_lum##SUFFIX(__m##W r, __m##W g, __m##W b) {                    \
        return _mm##W##_add_ps(_mm##W##_add_ps(_mm##W##_mul_ps(_mm##W##_set1_ps(0.3f), r), _mm##W##_mul_ps(_mm##W##_set1_ps(0.59f), g)), \
                               _mm##W##_mul_ps(_mm##W##_set1_ps(0.11f), b));                     \
    }                                                                                            \
    /* SetLum(c, l) = ClipColor(c + (l - Lum(c))), in place */                                   \
    ATTR static inline void cyan_setlum##SUFFIX(__m##W *r, __m##W *g, __m##W *b, __m##W l) {      \
        const __m##W one = _mm##W##_set1_ps(1.0f), zero = _mm##W##_setzero_ps();                  \
        __m##W d = _mm##W##_sub_ps(l, cyan_lum##SUFFIX(*r, *g, *b));                              \
        __m##W cr = _mm##W##_add_ps(*r, d), cg = _mm##W##_add_ps(*g, d), cbl = _mm##W##_add_ps(*b, d); \
        __m##W L = cyan_lum##SUFFIX(cr, cg, cbl);                                                 \
        __m##W n = cyan_smin##SUFFIX(cr, cyan_smin##SUFFIX(cg, cbl));                             \
        __m##W x = cyan_smax##SUFFIX(cr, cyan_smax##SUFFIX(cg, cbl));                             \
        __m##W m1 = _mm##W##_and_ps(LT(n, zero), GT(_mm##W##_sub_ps(L, n), zero));               \
        __m##W k1 = _mm##W##_div_ps(L, _mm##W##_sub_ps(L, n));                                   \
        cr = CYAN_SEL(W, m1, _mm##W##_add_ps(L, _mm##W##_mul_ps(_mm##W##_sub_ps(cr, L), k1)), cr); \
        cg = CYAN_SEL(W, m1, _mm##W##_add_ps(L, _mm##W##_mul_ps(_mm##W##_sub_ps(cg, L), k1)), cg); \
        cbl = CYAN_SEL(W, m1, _mm##W##_add_ps(L, _mm##W##_mul_ps(_mm##W##_sub_ps(cbl, L), k1)), cbl); \
        __m##W m2 = _mm##W##_and_ps(GT(x, one), GT(_mm##W##_sub_ps(x, L), zero));                 \
        __m##W k2 = _mm##W##_div_ps(_mm##W##_sub_ps(one, L), _mm##W##_sub_ps(x, L));             \
        *r = CYAN_SEL(W, m2, _mm##W##_add_ps(L, _mm##W##_mul_ps(_mm##W##_sub_ps(cr, L), k2)), cr); \
        *g = CYAN_SEL(W, m2, _mm##W##_add_ps(L, _mm##W##_mul_ps(_mm##W##_sub_ps(cg, L), k2)), cg); \
        *b = CYAN_SEL(W, m2, _mm##W##_add_ps(L, _mm##W##_mul_ps(_mm##W##_sub_ps(cbl, L), k2)), cbl); \
    }                                                                                            \
    /* SetSat(c, s): (c - min) * (s / (max - min)), zero where max <= min */                     \
    ATTR static inline void cyan_setsat##SUFFIX(__m##W *r, __m##W *g, __m##W *b, __m##W sat) {    \
        __m##W n = cyan_smin##SUFFIX(*r, cyan_smin##SUFFIX(*g, *b));                              \
        __m##W x = cyan_smax##SUFFIX(*r, cyan_smax##SUFFIX(*g, *b));                              \
        __m##W ok = GT(x, n), k = _mm##W##_div_ps(sat, _mm##W##_sub_ps(x, n));                    \
        *r = _mm##W##_and_ps(ok, _mm##W##_mul_ps(_mm##W##_sub_ps(*r, n), k));                     \
        *g = _mm##W##_and_ps(ok, _mm##W##_mul_ps(_mm##W##_sub_ps(*g, n), k));                     \
        *b = _mm##W##_and_ps(ok, _mm##W##_mul_ps(_mm##W##_sub_ps(*b, n), k));                     \
    }                                                                                            \
    ATTR static inline __m##W cyan_sat##SUFFIX(__m##W r, __m##W g, __m##W b) {                    \
        return _mm##W##_sub_ps(cyan_smax##SUFFIX(r, cyan_smax##SUFFIX(g, b)), cyan_smin##SUFFIX(r, cyan_smin##SUFFIX(g, b))); \
    }                                                                                            \
    /* B for the modes of the Swift `mixRow` loop (separable and non-separable) */                \
    ATTR static inline void cyan_blend_other##SUFFIX(int mode, __m##W dr, __m##W dg, __m##W db, __m##W sr, __m##W sg, __m##W sb, \
                                                     __m##W *r, __m##W *g, __m##W *b) {           \
        switch (mode) {                                                                          \
        case CYAN_BLEND_COLOR_DODGE:                                                             \
            *r = cyan_dodge##SUFFIX(dr, sr); *g = cyan_dodge##SUFFIX(dg, sg); *b = cyan_dodge##SUFFIX(db, sb); return; \
        case CYAN_BLEND_COLOR_BURN:                                                              \
            *r = cyan_burn##SUFFIX(dr, sr); *g = cyan_burn##SUFFIX(dg, sg); *b = cyan_burn##SUFFIX(db, sb); return; \
        case CYAN_BLEND_HUE:                                                                     \
            *r = sr; *g = sg; *b = sb;                                                           \
            cyan_setsat##SUFFIX(r, g, b, cyan_sat##SUFFIX(dr, dg, db));                           \
            cyan_setlum##SUFFIX(r, g, b, cyan_lum##SUFFIX(dr, dg, db)); return;                   \
        case CYAN_BLEND_SATURATION:                                                              \
            *r = dr; *g = dg; *b = db;                                                           \
            cyan_setsat##SUFFIX(r, g, b, cyan_sat##SUFFIX(sr, sg, sb));                           \
            cyan_setlum##SUFFIX(r, g, b, cyan_lum##SUFFIX(dr, dg, db)); return;                   \
        case CYAN_BLEND_COLOR:                                                                   \
            *r = sr; *g = sg; *b = sb;                                                           \
            cyan_setlum##SUFFIX(r, g, b, cyan_lum##SUFFIX(dr, dg, db)); return;                   \
        default: /* luminosity */                                                                \
            *r = dr; *g = dg; *b = db;                                                           \
            cyan_setlum##SUFFIX(r, g, b, cyan_lum##SUFFIX(sr, sg, sb)); return;                   \
        }                                                                                        \
    }

#define CYAN_EQ256(a, b) _mm256_cmp_ps(a, b, _CMP_EQ_OQ)
CYAN_NS_FNS(256, 256, CYAN_AVX2, CYAN_LE256, CYAN_LT256, CYAN_GT256, CYAN_GE256, CYAN_EQ256)
CYAN_NS_FNS(128, , , _mm_cmple_ps, _mm_cmplt_ps, _mm_cmpgt_ps, _mm_cmpge_ps, _mm_cmpeq_ps)

// The mix loops' step: `PX` backdrop pixels at `q` (row `b`, from pixel `i`) and as many
// source pixels (from `s`, or its one colour when `step` is 0) as channel vectors dr...da and
// sr...sa; and the backdrop's channels stored back.
#define CYAN_MIX_LOAD(W, PX)                                                                     \
    float *q = b + 4 * i;                                                                        \
    __m##W d0 = _mm##W##_loadu_ps(q), d1 = _mm##W##_loadu_ps(q + PX), d2 = _mm##W##_loadu_ps(q + 2 * PX), d3 = _mm##W##_loadu_ps(q + 3 * PX); \
    __m##W dr, dg, db, da, sr, sg, sb, sa;                                                       \
    CYAN_TRANSPOSE4(d0, d1, d2, d3, dr, dg, db, da, W);                                          \
    if (step) {                                                                                  \
        const float *u = s + 4 * i;                                                              \
        __m##W s0 = _mm##W##_loadu_ps(u), s1 = _mm##W##_loadu_ps(u + PX), s2 = _mm##W##_loadu_ps(u + 2 * PX), s3 = _mm##W##_loadu_ps(u + 3 * PX); \
        CYAN_TRANSPOSE4(s0, s1, s2, s3, sr, sg, sb, sa, W);                                      \
    } else {                                                                                     \
        sr = _mm##W##_set1_ps(s[0]); sg = _mm##W##_set1_ps(s[1]);                                \
        sb = _mm##W##_set1_ps(s[2]); sa = _mm##W##_set1_ps(s[3]);                                \
    }

#define CYAN_MIX_STORE(W, PX)                                                                    \
    CYAN_TRANSPOSE4(dr, dg, db, da, d0, d1, d2, d3, W);                                          \
    _mm##W##_storeu_ps(q, d0); _mm##W##_storeu_ps(q + PX, d1);                                   \
    _mm##W##_storeu_ps(q + 2 * PX, d2); _mm##W##_storeu_ps(q + 3 * PX, d3)

// The `mixRow` loops: pixels the source does not cover (As <= 0) stay as they are, the others
// get d + As (B - d).
#define CYAN_MIX_OTHER_LOOP(W, SUFFIX, PX, LE)                                                   \
    for (; i + PX <= n; i += PX) {                                                               \
        CYAN_MIX_LOAD(W, PX);                                                                    \
        __m##W br, bg, bb;                                                                       \
        cyan_blend_other##SUFFIX(mode, dr, dg, db, sr, sg, sb, &br, &bg, &bb);                   \
        __m##W skip = LE(sa, _mm##W##_setzero_ps());                                             \
        dr = CYAN_SEL(W, skip, dr, _mm##W##_add_ps(dr, _mm##W##_mul_ps(sa, _mm##W##_sub_ps(br, dr)))); \
        dg = CYAN_SEL(W, skip, dg, _mm##W##_add_ps(dg, _mm##W##_mul_ps(sa, _mm##W##_sub_ps(bg, dg)))); \
        db = CYAN_SEL(W, skip, db, _mm##W##_add_ps(db, _mm##W##_mul_ps(sa, _mm##W##_sub_ps(bb, db)))); \
        CYAN_MIX_STORE(W, PX);                                                                   \
    }

CYAN_AVX2 static size_t cyan_mix_other_avx2(float *b, const float *s, int step, size_t n, int mode) {
    size_t i = 0;
    CYAN_MIX_OTHER_LOOP(256, 256, 8, CYAN_LE256)
    return i;
}

static size_t cyan_mix_other_sse(float *b, const float *s, int step, size_t n, int mode) {
    size_t i = 0;
    CYAN_MIX_OTHER_LOOP(, 128, 4, _mm_cmple_ps)
    return i;
}

// Backdrop `b` (row, in place) and source `s` (advancing by `step` floats a pixel: 4, or 0 for
// one colour): lanes rgb get d + (B - d) * as, alpha stays.
#define CYAN_MIX_LOOP(W, BLEND, PX)                                                              \
    for (; i + PX <= n; i += PX) {                                                               \
        CYAN_MIX_LOAD(W, PX);                                                                    \
        dr = _mm##W##_add_ps(dr, _mm##W##_mul_ps(_mm##W##_sub_ps(BLEND(mode, dr, sr), dr), sa));  \
        dg = _mm##W##_add_ps(dg, _mm##W##_mul_ps(_mm##W##_sub_ps(BLEND(mode, dg, sg), dg), sa));  \
        db = _mm##W##_add_ps(db, _mm##W##_mul_ps(_mm##W##_sub_ps(BLEND(mode, db, sb), db), sa));  \
        CYAN_MIX_STORE(W, PX);                                                                   \
    }

CYAN_AVX2 static size_t cyan_mix_avx2(float *b, const float *s, int step, size_t n, int mode) {
    size_t i = 0;
    CYAN_MIX_LOOP(256, cyan_blend256, 8)
    return i;
}

static size_t cyan_mix_sse(float *b, const float *s, int step, size_t n, int mode) {
    size_t i = 0;
    CYAN_MIX_LOOP(, cyan_blend128, 4)
    return i;
}
#endif

int cyan_blend_mix_rgbaf(float *backdrop, const float *source, int sourceStep, size_t n, int mode) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (mode < CYAN_BLEND_NORMAL || mode > CYAN_BLEND_LUMINOSITY) return 0;
    int step = sourceStep ? 4 : 0;
    if (mode > CYAN_BLEND_LIGHTEN) {
        size_t done = cyan_vector_bits() >= 256 ? cyan_mix_other_avx2(backdrop, source, step, n, mode)
                                                : cyan_mix_other_sse(backdrop, source, step, n, mode);
        // The tail: four copies of one pixel through the SSE loop.
        for (size_t i = done; i < n; i++) {
            float *q = backdrop + 4 * i;
            const float *u = source + (size_t)step * i;
            float bq[16], uq[16];
            for (int c = 0; c < 16; c++) { bq[c] = q[c % 4]; uq[c] = u[c % 4]; }
            cyan_mix_other_sse(bq, uq, 4, 4, mode);
            q[0] = bq[0]; q[1] = bq[1]; q[2] = bq[2];
        }
        return 1;
    }
    size_t done = cyan_vector_bits() >= 256 ? cyan_mix_avx2(backdrop, source, step, n, mode)
                                            : cyan_mix_sse(backdrop, source, step, n, mode);
    // The tail, one pixel in the low lanes of SSE vectors: the same operations.
    for (size_t i = done; i < n; i++) {
        float *q = backdrop + 4 * i;
        const float *u = source + (size_t)step * i;
        __m128 d = _mm_loadu_ps(q), sv = _mm_loadu_ps(u);
        __m128 sa = _mm_shuffle_ps(sv, sv, _MM_SHUFFLE(3, 3, 3, 3));
        __m128 o = _mm_add_ps(d, _mm_mul_ps(_mm_sub_ps(cyan_blend128(mode, d, sv), d), sa));
        float out[4];
        _mm_storeu_ps(out, o);
        q[0] = out[0]; q[1] = out[1]; q[2] = out[2];
    }
    return 1;
#else
    (void)backdrop; (void)source; (void)sourceStep; (void)n; (void)mode;
    return 0;
#endif
}

// MARK: Film grain

// The Swift noise: a hash of (x >> 1, y, seed) per pixel, u in [0, 1) from its top 24 bits,
// u or 1 - u by the parity of x and the hash (antithetic pairs), as (v, v, v, 1).
static inline uint32_t cyan_grain_hash(int64_t x, uint32_t base) {
    uint32_t h = ((uint32_t)(x >> 1) * 0xC2B2AE3Du) ^ base;
    h ^= h >> 16; h *= 0x7FEB352Du;
    h ^= h >> 15; h *= 0x846CA68Bu;
    h ^= h >> 16;
    return h;
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
CYAN_AVX2 static size_t cyan_grain_noise_avx2(float *out, size_t n, int64_t x0, uint32_t base) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), oneBit = _mm256_set1_epi32(1);
    const __m256 scale = _mm256_set1_ps(1.0f / 16777216.0f), onef = _mm256_set1_ps(1.0f);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        // x (64-bit) >> 1 truncated to 32 bits equals the 32-bit x >> 1 computed from x's low
        // 33 bits; the pixel index x0 + i + lane is formed in 64 bits first.
        int64_t xs = x0 + (int64_t)i;
        __m256i xl = _mm256_add_epi32(_mm256_set1_epi32((int32_t)(uint32_t)xs), lane);
        // Carry of the low word into bit 32 for the shift: (x >> 1) low 32 bits =
        // (low >> 1) | (bit 32 << 31); bit 32 flips where the low word wrapped.
        uint32_t lo = (uint32_t)xs;
        uint32_t hi0 = (uint32_t)((uint64_t)xs >> 32) & 1u;
        __m256i wrapped = _mm256_cmpgt_epi32(_mm256_set1_epi32((int32_t)(lo ^ 0x80000000u)),
                                             _mm256_xor_si256(xl, _mm256_set1_epi32((int32_t)0x80000000u)));
        __m256i bit32 = _mm256_xor_si256(_mm256_set1_epi32((int32_t)hi0), _mm256_and_si256(wrapped, oneBit));
        __m256i xs1 = _mm256_or_si256(_mm256_srli_epi32(xl, 1), _mm256_slli_epi32(bit32, 31));
        __m256i h = _mm256_xor_si256(_mm256_mullo_epi32(xs1, _mm256_set1_epi32((int32_t)0xC2B2AE3Du)), _mm256_set1_epi32((int32_t)base));
        h = _mm256_xor_si256(h, _mm256_srli_epi32(h, 16));
        h = _mm256_mullo_epi32(h, _mm256_set1_epi32(0x7FEB352D));
        h = _mm256_xor_si256(h, _mm256_srli_epi32(h, 15));
        h = _mm256_mullo_epi32(h, _mm256_set1_epi32((int32_t)0x846CA68Bu));
        h = _mm256_xor_si256(h, _mm256_srli_epi32(h, 16));
        __m256 u = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32(h, 8)), scale);
        __m256i flip = _mm256_and_si256(_mm256_xor_si256(xl, h), oneBit);   // parity of x and of h
        __m256 keep = _mm256_castsi256_ps(_mm256_cmpeq_epi32(flip, _mm256_setzero_si256()));
        __m256 v = _mm256_blendv_ps(_mm256_sub_ps(onef, u), u, keep);
        // (v, v, v, 1) for eight pixels.
        __m256 lo2 = _mm256_unpacklo_ps(v, v), hi2 = _mm256_unpackhi_ps(v, v);   // v0 v0 v1 v1 | v4 v4 v5 v5
        // Pixels 0 | 4, 1 | 5, 2 | 6 and 3 | 7 (low | high 128 bits), as (v, v, v, 1).
        __m256 p04 = _mm256_blend_ps(_mm256_unpacklo_ps(lo2, lo2), onef, 0x88);
        __m256 p15 = _mm256_blend_ps(_mm256_unpackhi_ps(lo2, lo2), onef, 0x88);
        __m256 p26 = _mm256_blend_ps(_mm256_unpacklo_ps(hi2, hi2), onef, 0x88);
        __m256 p37 = _mm256_blend_ps(_mm256_unpackhi_ps(hi2, hi2), onef, 0x88);
        float *q = out + 4 * i;
        _mm256_storeu_ps(q, _mm256_permute2f128_ps(p04, p15, 0x20));
        _mm256_storeu_ps(q + 8, _mm256_permute2f128_ps(p26, p37, 0x20));
        _mm256_storeu_ps(q + 16, _mm256_permute2f128_ps(p04, p15, 0x31));
        _mm256_storeu_ps(q + 24, _mm256_permute2f128_ps(p26, p37, 0x31));
    }
    return i;
}
#endif

void cyan_grain_noise_rgbaf(float *out, size_t n, int64_t x0, int64_t y, uint32_t seed) {
    uint32_t base = ((uint32_t)y * 0x9E3779B1u) ^ (seed * 0x85EBCA77u);
    size_t i = 0;
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (cyan_vector_bits() >= 256) i = cyan_grain_noise_avx2(out, n, x0, base);
#endif
    for (; i < n; i++) {
        int64_t x = x0 + (int64_t)i;
        uint32_t h = cyan_grain_hash(x, base);
        float u = (float)(h >> 8) * (1.0f / 16777216.0f);
        float v = (((uint32_t)(x & 1) ^ (h & 1u)) == 0) ? u : 1.0f - u;
        float *q = out + 4 * i;
        q[0] = v; q[1] = v; q[2] = v; q[3] = 1.0f;
    }
}

// The Swift overlay: l = 0.2126 r + 0.7152 g + 0.0722 b, d = strength 4 l (1 - l) (n - 0.5),
// colour + d, alpha + 0.
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define CYAN_GRAIN_LOOP(W, PX)                                                                   \
    for (; i + PX <= n; i += PX) {                                                               \
        float *q = row + 4 * i;                                                                  \
        const float *u = noise + 4 * i;                                                          \
        __m##W p0 = _mm##W##_loadu_ps(q), p1 = _mm##W##_loadu_ps(q + PX), p2 = _mm##W##_loadu_ps(q + 2 * PX), p3 = _mm##W##_loadu_ps(q + 3 * PX); \
        __m##W n0 = _mm##W##_loadu_ps(u), n1 = _mm##W##_loadu_ps(u + PX), n2 = _mm##W##_loadu_ps(u + 2 * PX), n3 = _mm##W##_loadu_ps(u + 3 * PX); \
        __m##W r, g, b, a, nr, ng, nb, na;                                                       \
        CYAN_TRANSPOSE4(p0, p1, p2, p3, r, g, b, a, W);                                                 \
        CYAN_TRANSPOSE4(n0, n1, n2, n3, nr, ng, nb, na, W);                                             \
        (void)ng; (void)nb; (void)na;                                                            \
        __m##W l = _mm##W##_add_ps(_mm##W##_add_ps(_mm##W##_mul_ps(_mm##W##_set1_ps(0.2126f), r), _mm##W##_mul_ps(_mm##W##_set1_ps(0.7152f), g)), _mm##W##_mul_ps(_mm##W##_set1_ps(0.0722f), b)); \
        __m##W d = _mm##W##_mul_ps(_mm##W##_mul_ps(_mm##W##_mul_ps(s4, l), _mm##W##_sub_ps(_mm##W##_set1_ps(1.0f), l)), _mm##W##_sub_ps(nr, _mm##W##_set1_ps(0.5f))); \
        r = _mm##W##_add_ps(r, d); g = _mm##W##_add_ps(g, d); b = _mm##W##_add_ps(b, d);        \
        a = _mm##W##_add_ps(a, _mm##W##_setzero_ps());                                           \
        CYAN_TRANSPOSE4(r, g, b, a, p0, p1, p2, p3, W);                                                 \
        _mm##W##_storeu_ps(q, p0); _mm##W##_storeu_ps(q + PX, p1);                               \
        _mm##W##_storeu_ps(q + 2 * PX, p2); _mm##W##_storeu_ps(q + 3 * PX, p3);                  \
    }

CYAN_AVX2 static size_t cyan_grain_overlay_avx2(float *row, const float *noise, size_t n, float s4f) {
    const __m256 s4 = _mm256_set1_ps(s4f);
    size_t i = 0;
    CYAN_GRAIN_LOOP(256, 8)
    return i;
}
static size_t cyan_grain_overlay_sse(float *row, const float *noise, size_t n, float s4f) {
    const __m128 s4 = _mm_set1_ps(s4f);
    size_t i = 0;
    CYAN_GRAIN_LOOP(, 4)
    return i;
}
#endif

void cyan_grain_overlay_rgbaf(float *row, const float *noise, size_t n, float strength) {
    const float s4 = strength * 4.0f;
    size_t i = 0;
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    i = cyan_vector_bits() >= 256 ? cyan_grain_overlay_avx2(row, noise, n, s4) : cyan_grain_overlay_sse(row, noise, n, s4);
#endif
    for (; i < n; i++) {
        float *q = row + 4 * i;
        float l = 0.2126f * q[0] + 0.7152f * q[1] + 0.0722f * q[2];
        float d = s4 * l * (1.0f - l) * (noise[4 * i] - 0.5f);
        q[0] = q[0] + d; q[1] = q[1] + d; q[2] = q[2] + d; q[3] = q[3] + 0.0f;
    }
}

// MARK: Vignette

// The Swift stage's factor: d = min(sqrt(dx^2 + dy^2) * scale, 1) (a select), s = d^2 (3 - 2d),
// f = max(1 - k s s, 0) as a select, colour times f, alpha kept. dx runs in groups of four
// lanes, (0, 1, 2, 3) + dx0 and then + 4 per group, each group from the one before (as the
// Swift loop steps), so the positions are the same floats.
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define CYAN_VIGNETTE_F(W, DX)                                                                   \
    ({                                                                                           \
        __m##W d = _mm##W##_mul_ps(_mm##W##_sqrt_ps(_mm##W##_add_ps(_mm##W##_mul_ps(DX, DX), dy2)), sc); \
        d = CYAN_SEL(W, GT##W(d, one), one, d);                                                  \
        __m##W s = _mm##W##_mul_ps(_mm##W##_mul_ps(d, d), _mm##W##_sub_ps(three, _mm##W##_mul_ps(two, d))); \
        __m##W f = _mm##W##_sub_ps(one, _mm##W##_mul_ps(_mm##W##_mul_ps(kv, s), s));             \
        _mm##W##_and_ps(GT##W(f, _mm##W##_setzero_ps()), f);                                     \
    })
#define GT256(a, b) _mm256_cmp_ps(a, b, _CMP_GT_OQ)
#define GT(a, b) _mm_cmpgt_ps(a, b)

CYAN_AVX2 static size_t cyan_vignette_avx2(float *row, size_t n, __m128 *dx4, float dy, float scale, float k) {
    const __m256 one = _mm256_set1_ps(1.0f), two = _mm256_set1_ps(2.0f), three = _mm256_set1_ps(3.0f);
    const __m256 dy2 = _mm256_set1_ps(dy * dy), sc = _mm256_set1_ps(scale), kv = _mm256_set1_ps(k);
    const __m128 four = _mm_set1_ps(4.0f);
    const __m256i i0 = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1), i1 = _mm256_setr_epi32(2, 2, 2, 2, 3, 3, 3, 3);
    const __m256i i2 = _mm256_setr_epi32(4, 4, 4, 4, 5, 5, 5, 5), i3 = _mm256_setr_epi32(6, 6, 6, 6, 7, 7, 7, 7);
    __m128 dx = *dx4;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128 next = _mm_add_ps(dx, four);
        __m256 x = _mm256_set_m128(next, dx);
        dx = _mm_add_ps(next, four);
        __m256 f = CYAN_VIGNETTE_F(256, x);
        float *q = row + 4 * i;
        _mm256_storeu_ps(q, _mm256_mul_ps(_mm256_loadu_ps(q), _mm256_blend_ps(_mm256_permutevar8x32_ps(f, i0), one, 0x88)));
        _mm256_storeu_ps(q + 8, _mm256_mul_ps(_mm256_loadu_ps(q + 8), _mm256_blend_ps(_mm256_permutevar8x32_ps(f, i1), one, 0x88)));
        _mm256_storeu_ps(q + 16, _mm256_mul_ps(_mm256_loadu_ps(q + 16), _mm256_blend_ps(_mm256_permutevar8x32_ps(f, i2), one, 0x88)));
        _mm256_storeu_ps(q + 24, _mm256_mul_ps(_mm256_loadu_ps(q + 24), _mm256_blend_ps(_mm256_permutevar8x32_ps(f, i3), one, 0x88)));
    }
    *dx4 = dx;
    return i;
}
#endif

int cyan_vignette_rgbaf(float *row, size_t n, float dx0, float dy, float scale, float k) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    __m128 dx = _mm_add_ps(_mm_setr_ps(0.0f, 1.0f, 2.0f, 3.0f), _mm_set1_ps(dx0));
    size_t i = 0;
    if (cyan_vector_bits() >= 256) i = cyan_vignette_avx2(row, n, &dx, dy, scale, k);
    const __m128 one = _mm_set1_ps(1.0f), two = _mm_set1_ps(2.0f), three = _mm_set1_ps(3.0f), four = _mm_set1_ps(4.0f);
    const __m128 dy2 = _mm_set1_ps(dy * dy), sc = _mm_set1_ps(scale), kv = _mm_set1_ps(k);
    const __m128 alpha = _mm_castsi128_ps(_mm_setr_epi32(0, 0, 0, -1));
    for (; i < n; i += 4) {
        __m128 f = CYAN_VIGNETTE_F(, dx);
        dx = _mm_add_ps(dx, four);
        float fs[4];
        _mm_storeu_ps(fs, f);
        for (size_t j = 0; j < 4 && i + j < n; j++) {
            float *q = row + 4 * (i + j);
            __m128 m = CYAN_SEL(, alpha, one, _mm_set1_ps(fs[j]));
            _mm_storeu_ps(q, _mm_mul_ps(_mm_loadu_ps(q), m));
        }
    }
    return 1;
#else
    (void)row; (void)n; (void)dx0; (void)dy; (void)scale; (void)k;
    return 0;
#endif
}
