#include "CCyanotypeYCbCr.h"
#include <stdlib.h>
#include <string.h>

// Each loop is written once as a macro body and compiled twice: for the baseline and, where
// the CPU has them (checked once), for AVX2 + FMA; the compiler vectorises both.
#if defined(__x86_64__) && defined(__clang__)
#define CY_HAVE_AVX2 1
#define CY_AVX2 __attribute__((target("avx2,fma")))
static int cy_use_avx2(void) {
    static int k = -1;
    if (k < 0) {
        const char *portable = getenv("CYANOTYPE_PORTABLE_KERNELS");
        k = !(portable && portable[0] == '1') && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }
    return k;
}
#else
#define CY_HAVE_AVX2 0
#endif

static inline float cy_clamp(float v, float lo, float hi) { v = v > lo ? v : lo; return v < hi ? v : hi; }

/* Edge columns repeat; the columns inside are read in a plain loop, which vectorises. */
#define VERTICAL_BODY(T)                                                                 \
    float u = 1.0f - w;                                                                  \
    long i = 0, inside = cw - jLo < n ? cw - jLo : n;                                    \
    for (; i < n && jLo + i < 0; i++) out[i] = (float)c0[0] * u + (float)c1[0] * w;      \
    for (; i < inside; i++) out[i] = (float)c0[jLo + i] * u + (float)c1[jLo + i] * w;    \
    for (; i < n; i++) out[i] = (float)c0[cw - 1] * u + (float)c1[cw - 1] * w;

/* One pixel's R'G'B'A from its Y', Cb and Cr (the coefficients named in TO_RGBA_BODY). */
#define CY_PIXEL(o, yy, u, v)                                                            \
    do {                                                                                 \
        (o)[0] = cy_clamp(lr * (yy) + br * (u) + rr * (v) + zr, 0.0f, 1.0f);              \
        (o)[1] = cy_clamp(lg * (yy) + bg * (u) + rg * (v) + zg, 0.0f, 1.0f);              \
        (o)[2] = cy_clamp(lb * (yy) + bb * (u) + rb * (v) + zb, 0.0f, 1.0f);              \
        (o)[3] = 1.0f;                                                                   \
    } while (0)

/* One column of 4:2:x chroma interpolated on its own (the row's edges). */
#define CY_EDGE_PIXEL(i)                                                                 \
    do {                                                                                 \
        long x = x0 + (i);                                                               \
        int odd = (int)(x & 1);                                                          \
        long j = (x >> 1) + (odd ? d1 : d0) - jLo;                                       \
        float ww = odd ? w1 : w0;                                                        \
        float u = cb[j] + (cb[j + 1] - cb[j]) * ww, v = cr[j] + (cr[j + 1] - cr[j]) * ww; \
        CY_PIXEL(out + 4 * (i), (float)y[x], u, v);                                      \
    } while (0)

#define TO_RGBA_BODY(T)                                                                  \
    const float lr = coef[0], lg = coef[1], lb = coef[2];                                \
    const float br = coef[4], bg = coef[5], bb = coef[6];                                \
    const float rr = coef[8], rg = coef[9], rb = coef[10];                               \
    const float zr = coef[12], zg = coef[13], zb = coef[14];                             \
    if (shiftX == 0) {                                                                   \
        const float *pb = cb + (x0 - jLo), *pr = cr + (x0 - jLo);                         \
        for (long i = 0; i < n; i++) {                                                   \
            CY_PIXEL(out + 4 * i, (float)y[x0 + i], pb[i], pr[i]);                      \
        }                                                                                \
        return;                                                                          \
    }                                                                                    \
    long i = 0;                                                                          \
    /* A leading odd column, then pairs (even, odd), then a trailing even column. */     \
    for (; i < n; i++) {                                                                 \
        if (((x0 + i) & 1) == 0 && i + 1 < n) break;                                     \
        CY_EDGE_PIXEL(i);                                                                \
    }                                                                                    \
    long pairs = (n - i) / 2;                                                            \
    long m0 = (x0 + i) >> 1;                                                             \
    const float u0 = 1.0f - w0, u1 = 1.0f - w1;                                          \
    for (long k = 0; k < pairs; k++) {                                                   \
        long m = m0 + k, x = 2 * m;                                                      \
        long je = m + d0 - jLo, jo = m + d1 - jLo;                                       \
        float ue = cb[je] * u0 + cb[je + 1] * w0, ve = cr[je] * u0 + cr[je + 1] * w0;    \
        float uo = cb[jo] * u1 + cb[jo + 1] * w1, vo = cr[jo] * u1 + cr[jo + 1] * w1;    \
        float ye = (float)y[x], yo = (float)y[x + 1];                                    \
        float *o = out + 4 * (i + 2 * k);                                                \
        CY_PIXEL(o, ye, ue, ve);                                                         \
        CY_PIXEL(o + 4, yo, uo, vo);                                                     \
    }                                                                                    \
    for (i += 2 * pairs; i < n; i++) CY_EDGE_PIXEL(i);

#define CLAMP_BODY                                                                       \
    for (long i = 0; i < n; i++) {                                                       \
        float *p = rgba + 4 * i;                                                         \
        p[0] = cy_clamp(p[0], 0.0f, 1.0f);                                               \
        p[1] = cy_clamp(p[1], 0.0f, 1.0f);                                               \
        p[2] = cy_clamp(p[2], 0.0f, 1.0f);                                               \
    }

#define LUMA_BODY(T)                                                                     \
    const float kr = coef[0], kg = coef[1], kb = coef[2], off = coef[3] + 0.5f, mx = coef[4]; \
    for (long i = 0; i < n; i++) {                                                       \
        const float *p = rgba + 4 * i;                                                   \
        float v = kr * p[0] + kg * p[1] + kb * p[2] + off;                               \
        out[i] = (T)(int)cy_clamp(v, 0.0f, mx);                                          \
    }

#define CHROMA_BODY(T)                                                                   \
    const float br = coef[0], bg = coef[1], bb = coef[2], bo = coef[3] + 0.5f;           \
    const float rr = coef[4], rg = coef[5], rb = coef[6], ro = coef[7] + 0.5f, mx = coef[8]; \
    const long step = shiftX ? 2 : 1;                                                    \
    const float scale = (shiftX ? 0.5f : 1.0f) * (b ? 0.5f : 1.0f);                      \
    for (long k = 0; k < count; k++) {                                                   \
        const float *p = a + 4 * step * k;                                               \
        float r = p[0], g = p[1], bl = p[2];                                             \
        if (shiftX) { r += p[4]; g += p[5]; bl += p[6]; }                                \
        if (b) {                                                                         \
            const float *q = b + 4 * step * k;                                           \
            r += q[0]; g += q[1]; bl += q[2];                                            \
            if (shiftX) { r += q[4]; g += q[5]; bl += q[6]; }                            \
        }                                                                                \
        r *= scale; g *= scale; bl *= scale;                                             \
        cb[k] = (T)(int)cy_clamp(br * r + bg * g + bb * bl + bo, 0.0f, mx);              \
        cr[k] = (T)(int)cy_clamp(rr * r + rg * g + rb * bl + ro, 0.0f, mx);              \
    }

// Baseline versions.
static void vertical_u8_base(const uint8_t *c0, const uint8_t *c1, float w, long jLo, long n, long cw, float *out) { VERTICAL_BODY(uint8_t) }
static void vertical_u16_base(const uint16_t *c0, const uint16_t *c1, float w, long jLo, long n, long cw, float *out) { VERTICAL_BODY(uint16_t) }
static void to_rgba_u8_base(const uint8_t *y, const float *cb, const float *cr, long x0, long n, int shiftX, long jLo,
                            int d0, float w0, int d1, float w1, const float *coef, float *out) { TO_RGBA_BODY(uint8_t) }
static void to_rgba_u16_base(const uint16_t *y, const float *cb, const float *cr, long x0, long n, int shiftX, long jLo,
                             int d0, float w0, int d1, float w1, const float *coef, float *out) { TO_RGBA_BODY(uint16_t) }
static void clamp_base(float *rgba, long n) { CLAMP_BODY }
static void luma_u8_base(const float *rgba, long n, const float *coef, uint8_t *out) { LUMA_BODY(uint8_t) }
static void luma_u16_base(const float *rgba, long n, const float *coef, uint16_t *out) { LUMA_BODY(uint16_t) }
static void chroma_u8_base(const float *a, const float *b, long count, int shiftX, const float *coef, uint8_t *cb, uint8_t *cr) { CHROMA_BODY(uint8_t) }
static void chroma_u16_base(const float *a, const float *b, long count, int shiftX, const float *coef, uint16_t *cb, uint16_t *cr) { CHROMA_BODY(uint16_t) }

#if CY_HAVE_AVX2
static CY_AVX2 void vertical_u8_avx2(const uint8_t *c0, const uint8_t *c1, float w, long jLo, long n, long cw, float *out) { VERTICAL_BODY(uint8_t) }
static CY_AVX2 void vertical_u16_avx2(const uint16_t *c0, const uint16_t *c1, float w, long jLo, long n, long cw, float *out) { VERTICAL_BODY(uint16_t) }
static CY_AVX2 void to_rgba_u8_avx2(const uint8_t *y, const float *cb, const float *cr, long x0, long n, int shiftX, long jLo,
                                    int d0, float w0, int d1, float w1, const float *coef, float *out) { TO_RGBA_BODY(uint8_t) }
static CY_AVX2 void to_rgba_u16_avx2(const uint16_t *y, const float *cb, const float *cr, long x0, long n, int shiftX, long jLo,
                                     int d0, float w0, int d1, float w1, const float *coef, float *out) { TO_RGBA_BODY(uint16_t) }
static CY_AVX2 void clamp_avx2(float *rgba, long n) { CLAMP_BODY }
static CY_AVX2 void luma_u8_avx2(const float *rgba, long n, const float *coef, uint8_t *out) { LUMA_BODY(uint8_t) }
static CY_AVX2 void luma_u16_avx2(const float *rgba, long n, const float *coef, uint16_t *out) { LUMA_BODY(uint16_t) }
static CY_AVX2 void chroma_u8_avx2(const float *a, const float *b, long count, int shiftX, const float *coef, uint8_t *cb, uint8_t *cr) { CHROMA_BODY(uint8_t) }
static CY_AVX2 void chroma_u16_avx2(const float *a, const float *b, long count, int shiftX, const float *coef, uint16_t *cb, uint16_t *cr) { CHROMA_BODY(uint16_t) }
#define PICK(name) (cy_use_avx2() ? name##_avx2 : name##_base)
#else
#define PICK(name) name##_base
#endif

void cy_ycc_vertical_u8(const uint8_t *c0, const uint8_t *c1, float w, long jLo, long n, long cw, float *out) {
    PICK(vertical_u8)(c0, c1, w, jLo, n, cw, out);
}
void cy_ycc_vertical_u16(const uint16_t *c0, const uint16_t *c1, float w, long jLo, long n, long cw, float *out) {
    PICK(vertical_u16)(c0, c1, w, jLo, n, cw, out);
}
void cy_ycc_to_rgba_u8(const uint8_t *y, const float *cb, const float *cr, long x0, long n, int shiftX, long jLo,
                       int d0, float w0, int d1, float w1, const float *coef, float *out) {
    PICK(to_rgba_u8)(y, cb, cr, x0, n, shiftX, jLo, d0, w0, d1, w1, coef, out);
}
void cy_ycc_to_rgba_u16(const uint16_t *y, const float *cb, const float *cr, long x0, long n, int shiftX, long jLo,
                        int d0, float w0, int d1, float w1, const float *coef, float *out) {
    PICK(to_rgba_u16)(y, cb, cr, x0, n, shiftX, jLo, d0, w0, d1, w1, coef, out);
}
void cy_rgba_clamp01(float *rgba, long n) { PICK(clamp)(rgba, n); }
void cy_rgba_to_luma_u8(const float *rgba, long n, const float *coef, uint8_t *out) { PICK(luma_u8)(rgba, n, coef, out); }
void cy_rgba_to_luma_u16(const float *rgba, long n, const float *coef, uint16_t *out) { PICK(luma_u16)(rgba, n, coef, out); }
void cy_rgba_to_chroma_u8(const float *a, const float *b, long count, int shiftX, const float *coef, uint8_t *cb, uint8_t *cr) {
    PICK(chroma_u8)(a, b, count, shiftX, coef, cb, cr);
}
void cy_rgba_to_chroma_u16(const float *a, const float *b, long count, int shiftX, const float *coef, uint16_t *cb, uint16_t *cr) {
    PICK(chroma_u16)(a, b, count, shiftX, coef, cb, cr);
}

// MARK: A JPEG's planes to RGBA8, as libjpeg gives them

// libjpeg's fancy upsampling (jdsample.c) written once for every upright plane layout: a
// chroma sample v is (16-weighted sum of the nearest samples + bias) >> 4, the vertical pass
// first (near row x (4 - farWeight) + far row x farWeight), then the horizontal one (3/4 the
// nearer column and 1/4 the next, or the column alone). libjpeg's biases (1 or 2 in quarters,
// 8 or 7 in sixteenths) depend on the parity of the stored coordinate, which the caller works
// out for the turned planes. Then YCbCr -> RGB with jdcolor.c's fixed-point arithmetic.
#define CY_FIX(x) ((int32_t)((x) * 65536.0 + 0.5))

/* One plane's pairs of upsampled samples from its column sums (3/4 nearer, 1/4 next): eight
   pairs a step with SSE2 (sums fit 16 bits: at most 16 x 255 + 8), the rest one by one. */
#if defined(__SSE2__)
#include <emmintrin.h>
#define CY_SIMD_BIASES const __m128i vbe = _mm_set1_epi16(be), vbo = _mm_set1_epi16(bo);
#define CY_FANCY_PAIRS_SIMD(dst, sums)                                                   \
    for (; m + 8 <= pairs; m += 8) {                                                     \
        __m128i c = _mm_loadu_si128((const __m128i *)(sums + m));                        \
        __m128i c3 = _mm_add_epi16(c, _mm_add_epi16(c, c));                              \
        __m128i e = _mm_add_epi16(_mm_add_epi16(c3, _mm_loadu_si128((const __m128i *)(sums + m - 1))), vbe); \
        __m128i o = _mm_add_epi16(_mm_add_epi16(c3, _mm_loadu_si128((const __m128i *)(sums + m + 1))), vbo); \
        e = _mm_srli_epi16(e, 4);                                                        \
        o = _mm_srli_epi16(o, 4);                                                        \
        __m128i packed = _mm_packus_epi16(_mm_unpacklo_epi16(e, o), _mm_unpackhi_epi16(e, o)); \
        _mm_storeu_si128((__m128i *)(dst + 2 * m), packed);                              \
    }
#else
#define CY_SIMD_BIASES
#define CY_FANCY_PAIRS_SIMD(dst, sums)
#endif
#define CY_FANCY_PAIRS(dst, sums)                                                        \
    {                                                                                    \
        long m = 0;                                                                      \
        CY_FANCY_PAIRS_SIMD(dst, sums)                                                   \
        for (; m < pairs; m++) {                                                         \
            int16_t c3 = (int16_t)(3 * sums[m]);                                         \
            dst[2 * m] = (uint8_t)((int16_t)(c3 + sums[m - 1] + be) >> 4);               \
            dst[2 * m + 1] = (uint8_t)((int16_t)(c3 + sums[m + 1] + bo) >> 4);           \
        }                                                                                \
    }

#define JPEG_ROW_CHROMA                                                                    \
    long t0 = x0 + phaseX;                                                               \
    long jLo = shiftX ? t0 >> 1 : t0, jHi = shiftX ? (t0 + n - 1) >> 1 : t0 + n - 1;     \
    long span = jHi - jLo + 1;                                                           \
    int16_t *restrict csb = scratch, *restrict csr = scratch + span + 2;                 \
    uint8_t *restrict cbv = (uint8_t *)(csr + span + 2), *restrict crv = cbv + n;        \
    /* Column sums: csb[k] is chroma column jLo - 1 + k; columns outside the plane repeat \
       its edge. */                                                                      \
    long lo = jLo - 1;                                                                   \
    long kStart = lo < 0 ? -lo : 0, kEnd = chromaWidth - lo < span + 2 ? chromaWidth - lo : span + 2; \
    {                                                                                    \
        const uint8_t *bn = cbNear + lo, *rn = crNear + lo, *bf = cbFar + lo, *rf = crFar + lo; \
        if (farWeight) {                                                                 \
            for (long k = kStart; k < kEnd; k++) {                                       \
                csb[k] = (int16_t)(3 * bn[k] + bf[k]);                                   \
                csr[k] = (int16_t)(3 * rn[k] + rf[k]);                                   \
            }                                                                            \
        } else {                                                                         \
            for (long k = kStart; k < kEnd; k++) {                                       \
                csb[k] = (int16_t)(4 * bn[k]);                                           \
                csr[k] = (int16_t)(4 * rn[k]);                                           \
            }                                                                            \
        }                                                                                \
        for (long k = 0; k < kStart; k++) { csb[k] = csb[kStart]; csr[k] = csr[kStart]; } \
        for (long k = kEnd; k < span + 2; k++) { csb[k] = csb[kEnd - 1]; csr[k] = csr[kEnd - 1]; } \
    }                                                                                    \
    if (!shiftX) {                                                                       \
        const int16_t be = (int16_t)biasEven;                                            \
        for (long i = 0; i < n; i++) {                                                   \
            cbv[i] = (uint8_t)((int16_t)(4 * csb[i + 1] + be) >> 4);                     \
            crv[i] = (uint8_t)((int16_t)(4 * csr[i + 1] + be) >> 4);                     \
        }                                                                                \
    } else {                                                                             \
        const int wn = fancyX ? 3 : 4, wf = fancyX ? 1 : 0;                              \
        long i = 0, k = 1;                                                               \
        if (t0 & 1) {  /* the first pixel is its pair's second */                        \
            cbv[0] = (uint8_t)((wn * csb[1] + wf * csb[2] + biasOdd) >> 4);              \
            crv[0] = (uint8_t)((wn * csr[1] + wf * csr[2] + biasOdd) >> 4);              \
            i = 1; k = 2;                                                                \
        }                                                                                \
        long pairs = (n - i) >> 1;                                                       \
        uint8_t *restrict pb = cbv + i, *restrict pr = crv + i;                          \
        const int16_t *restrict sb = csb + k, *restrict sr = csr + k;                    \
        const int16_t be = (int16_t)biasEven, bo = (int16_t)biasOdd;                     \
        if (fancyX) {                                                                    \
            CY_SIMD_BIASES CY_FANCY_PAIRS(pb, sb) CY_FANCY_PAIRS(pr, sr)                                \
        } else {                                                                         \
            for (long m = 0; m < pairs; m++) {                                           \
                uint8_t b = (uint8_t)((4 * sb[m]) >> 4), r = (uint8_t)((4 * sr[m]) >> 4); \
                pb[2 * m] = b; pb[2 * m + 1] = b;                                        \
                pr[2 * m] = r; pr[2 * m + 1] = r;                                        \
            }                                                                            \
        }                                                                                \
        i += 2 * pairs; k += pairs;                                                      \
        if (i < n) {  /* a last pixel, its pair's first */                               \
            cbv[i] = (uint8_t)((wn * csb[k] + wf * csb[k - 1] + biasEven) >> 4);         \
            crv[i] = (uint8_t)((wn * csr[k] + wf * csr[k - 1] + biasEven) >> 4);         \
        }                                                                                \
    }                                                                                    \
    (void)0

/* The chroma of n pixels (JPEG_ROW_CHROMA, in cbv and crv) beside their luma, as RGBA8. */
#define JPEG_ROW_BODY                                                                    \
    JPEG_ROW_CHROMA;                                                                     \
    const uint8_t *yy = y + x0;                                                          \
    for (long i = 0; i < n; i++) {                                                       \
        int32_t l = yy[i], b = (int32_t)cbv[i] - 128, r = (int32_t)crv[i] - 128;         \
        int32_t R = l + ((CY_FIX(1.40200) * r + 32768) >> 16);                           \
        int32_t G = l + ((-CY_FIX(0.34414) * b - CY_FIX(0.71414) * r + 32768) >> 16);    \
        int32_t B = l + ((CY_FIX(1.77200) * b + 32768) >> 16);                           \
        out[4 * i] = (uint8_t)(R < 0 ? 0 : (R > 255 ? 255 : R));                         \
        out[4 * i + 1] = (uint8_t)(G < 0 ? 0 : (G > 255 ? 255 : G));                     \
        out[4 * i + 2] = (uint8_t)(B < 0 ? 0 : (B > 255 ? 255 : B));                     \
        out[4 * i + 3] = 255;                                                            \
    }

#define JPEG_ROW_ARGS                                                                                                  \
    const uint8_t *y, const uint8_t *cbNear, const uint8_t *crNear, const uint8_t *cbFar, const uint8_t *crFar,        \
        int farWeight, long x0, long n, int shiftX, int fancyX, int phaseX, long chromaWidth, int biasEven, int biasOdd, \
        int16_t *scratch, uint8_t *out

/* The same n pixels as interleaved Y'CbCr (3 bytes a pixel): the upsampled planes, not converted. */
#define JPEG_YCC_BODY                                                                    \
    JPEG_ROW_CHROMA;                                                                     \
    const uint8_t *yy = y + x0;                                                          \
    for (long i = 0; i < n; i++) {                                                       \
        out[3 * i] = yy[i];                                                              \
        out[3 * i + 1] = cbv[i];                                                         \
        out[3 * i + 2] = crv[i];                                                         \
    }

static void jpeg_row_base(JPEG_ROW_ARGS) { JPEG_ROW_BODY }
#if CY_HAVE_AVX2
static CY_AVX2 void jpeg_row_avx2(JPEG_ROW_ARGS) { JPEG_ROW_BODY }
#endif

static void jpeg_ycc_base(JPEG_ROW_ARGS) { JPEG_YCC_BODY }
#if CY_HAVE_AVX2
static CY_AVX2 void jpeg_ycc_avx2(JPEG_ROW_ARGS) { JPEG_YCC_BODY }
#endif

/* Only the chroma, in two planes' rows. */
#define JPEG_CHROMA_BODY                                                                 \
    JPEG_ROW_CHROMA;                                                                     \
    (void)y;                                                                             \
    memcpy(out, cbv, (size_t)n);                                                         \
    memcpy(crOut, crv, (size_t)n);

static void jpeg_chroma_base(JPEG_ROW_ARGS, uint8_t *crOut) { JPEG_CHROMA_BODY }
#if CY_HAVE_AVX2
static CY_AVX2 void jpeg_chroma_avx2(JPEG_ROW_ARGS, uint8_t *crOut) { JPEG_CHROMA_BODY }
#endif

long cy_jpeg_row_scratch_bytes(long n) { return 2 * (long)sizeof(int16_t) * (n + 4) + 2 * n + 64; }

void cy_jpeg_row_rgba8(JPEG_ROW_ARGS) {
    if (n <= 0) return;
    PICK(jpeg_row)(y, cbNear, crNear, cbFar, crFar, farWeight, x0, n, shiftX, fancyX, phaseX, chromaWidth, biasEven, biasOdd, scratch, out);
}

void cy_jpeg_row_ycc8(JPEG_ROW_ARGS) {
    if (n <= 0) return;
    PICK(jpeg_ycc)(y, cbNear, crNear, cbFar, crFar, farWeight, x0, n, shiftX, fancyX, phaseX, chromaWidth, biasEven, biasOdd, scratch, out);
}

void cy_jpeg_row_chroma8(const uint8_t *cbNear, const uint8_t *crNear, const uint8_t *cbFar, const uint8_t *crFar, int farWeight, long x0,
                         long n, int shiftX, int fancyX, int phaseX, long chromaWidth, int biasEven, int biasOdd, int16_t *scratch,
                         uint8_t *cb, uint8_t *cr) {
    if (n <= 0) return;
    PICK(jpeg_chroma)(NULL, cbNear, crNear, cbFar, crFar, farWeight, x0, n, shiftX, fancyX, phaseX, chromaWidth, biasEven, biasOdd, scratch, cb, cr);
}
