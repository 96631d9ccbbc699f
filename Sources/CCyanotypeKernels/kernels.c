#include "CCyanotypeKernels.h"
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <math.h>
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

static inline void cyan_quantize_8(uint8_t *dst, const float *src, size_t n, int unpremultiply, int swapRB) {
#if !defined(__SSE2__)
    for (size_t i = 0; i < n; i++) {
        float r = src[4 * i], g = src[4 * i + 1], b = src[4 * i + 2], a = src[4 * i + 3];
        if (unpremultiply && !(a >= 1.0f)) {
            float inv = a > 0.0f ? 1.0f / a : 0.0f;
            r *= inv; g *= inv; b *= inv;
        }
        if (swapRB) { float t = r; r = b; b = t; }
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
        if (swapRB) v = _mm_shuffle_ps(v, v, _MM_SHUFFLE(3, 0, 1, 2));
        v = _mm_min_ps(_mm_max_ps(v, zero), one);
        __m128i q = _mm_cvttps_epi32(_mm_add_ps(_mm_mul_ps(v, scale), half));
        q = _mm_packs_epi32(q, q);
        q = _mm_packus_epi16(q, q);
        int packed = _mm_cvtsi128_si32(q);
        memcpy(dst + 4 * i, &packed, 4);
    }
#endif
}

static void cyan_quantize_rgba8_sse(uint8_t *dst, const float *src, size_t n, int unpremultiply) { cyan_quantize_8(dst, src, n, unpremultiply, 0); }
void cyan_quantize_bgra8(uint8_t *dst, const float *src, size_t n, int unpremultiply) { cyan_quantize_8(dst, src, n, unpremultiply, 1); }

// Float RGBA (premultiplied, linear) -> 8-bit through an encoding table indexed by
// round(sqrt(clamp(v, 0, 1)) * 65535) (see TransferTables.encode8), in the byte order given by
// the channel offsets. Opaque pixels, and translucent ones when the output is straight, are
// written here; translucent pixels for a premultiplied output need the exact curve and are
// left for the caller (their count is returned). Clear pixels are written as zeros.
static size_t cyan_encode_rgba8_scalar(uint8_t *dst, const float *src, size_t n, const uint8_t *table,
                                       int ri, int gi, int bi, int ai, int premultipliedOut) {
    size_t left = 0;
    for (size_t i = 0; i < n; i++) {
        const float *p = src + 4 * i;
        uint8_t *q = dst + 4 * i;
        float a = p[3];
        float r = p[0], g = p[1], b = p[2];
        if (!(a >= 1.0f)) {
            if (!(a > 0.0f)) { q[0] = 0; q[1] = 0; q[2] = 0; q[3] = 0; continue; }
            if (premultipliedOut) { left++; continue; }
            float inv = 1.0f / a;
            r *= inv; g *= inv; b *= inv;
            q[ai] = cyan_q8(a);
        } else {
            q[ai] = 255;
        }
#if defined(__SSE2__)
        __m128 v = _mm_set_ps(0.0f, b, g, r);
        v = _mm_min_ps(_mm_max_ps(v, _mm_setzero_ps()), _mm_set1_ps(1.0f));   // NaN -> 0
        __m128i k = _mm_cvtps_epi32(_mm_mul_ps(_mm_sqrt_ps(v), _mm_set1_ps(65535.0f)));  // nearest, ties even
        int idx[4];
        _mm_storeu_si128((__m128i *)idx, k);
        q[ri] = table[idx[0]]; q[gi] = table[idx[1]]; q[bi] = table[idx[2]];
#else
        float c[3] = {r, g, b};
        int off[3] = {ri, gi, bi};
        for (int k = 0; k < 3; k++) {
            float v = c[k] > 0.0f ? c[k] : 0.0f;
            v = v < 1.0f ? v : 1.0f;
            q[off[k]] = table[(int)nearbyintf(sqrtf(v) * 65535.0f)];
        }
#endif
    }
    return left;
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
static int cyan_cpu_has_avx2_fma(void);
#include "vector_paths.h"
// Eight pixels per step when all eight are opaque (photos): clamp, square root and scale on
// two pixels per vector, then one 32-bit store per pixel assembled from the table. Groups
// with any translucent pixel take the per-pixel path, which gives opaque pixels the same
// bytes (same clamp, sqrtps and round-to-nearest conversion).
CYAN_AVX2 static size_t cyan_encode_rgba8_avx2(uint8_t *dst, const float *src, size_t n, const uint8_t *table,
                                     int ri, int gi, int bi, int ai, int premultipliedOut) {
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f), scale = _mm256_set1_ps(65535.0f);
    const int sr = 8 * ri, sg = 8 * gi, sb = 8 * bi;
    const uint32_t alpha = 255u << (8 * ai);
    size_t left = 0, i = 0;
    for (; i + 8 <= n; i += 8) {
        const float *p = src + 4 * i;
        __m256 v0 = _mm256_loadu_ps(p), v1 = _mm256_loadu_ps(p + 8), v2 = _mm256_loadu_ps(p + 16), v3 = _mm256_loadu_ps(p + 24);
        // Alpha >= 1 in all eight (NaN fails): lanes 3 and 7 of each vector.
        __m256 o = _mm256_and_ps(_mm256_and_ps(_mm256_cmp_ps(v0, one, _CMP_GE_OQ), _mm256_cmp_ps(v1, one, _CMP_GE_OQ)),
                                 _mm256_and_ps(_mm256_cmp_ps(v2, one, _CMP_GE_OQ), _mm256_cmp_ps(v3, one, _CMP_GE_OQ)));
        if ((_mm256_movemask_ps(o) & 0x88) != 0x88) {
            left += cyan_encode_rgba8_scalar(dst + 4 * i, p, 8, table, ri, gi, bi, ai, premultipliedOut);
            continue;
        }
        int32_t idx[32];
        __m256 vs[4] = {v0, v1, v2, v3};
        for (int k = 0; k < 4; k++) {
            __m256 c = _mm256_min_ps(_mm256_max_ps(vs[k], zero), one);      // NaN -> 0
            _mm256_storeu_si256((__m256i *)(idx + 8 * k), _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_sqrt_ps(c), scale)));
        }
        for (int k = 0; k < 8; k++) {
            uint32_t word = alpha | ((uint32_t)table[idx[4 * k]] << sr) | ((uint32_t)table[idx[4 * k + 1]] << sg)
                          | ((uint32_t)table[idx[4 * k + 2]] << sb);
            memcpy(dst + 4 * (i + k), &word, 4);
        }
    }
    return left + cyan_encode_rgba8_scalar(dst + 4 * i, src + 4 * i, n - i, table, ri, gi, bi, ai, premultipliedOut);
}
#endif

size_t cyan_encode_rgba8(uint8_t *dst, const float *src, size_t n, const uint8_t *table,
                         int ri, int gi, int bi, int ai, int premultipliedOut) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    // Little-endian words: byte offset k is bits 8k...8k+7.
    if (cyan_cpu_has_avx2_fma()) return cyan_encode_rgba8_avx2(dst, src, n, table, ri, gi, bi, ai, premultipliedOut);
#endif
    return cyan_encode_rgba8_scalar(dst, src, n, table, ri, gi, bi, ai, premultipliedOut);
}

// MARK: Colour matrix

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))

// Two pixels per 256-bit vector. Every pixel goes through the same fused multiply-adds,
// whether it is one of a pair or the odd last one, and opaque pixels skipped past the
// division give the same bits as the general path (1/1 and a product by 1 are exact when the
// matrix keeps alpha 1), so results never depend on where a pixel sits in a row.
CYAN_AVX2 static void cyan_matrix_avx2(float *row, size_t n, const float *m, int straight) {
    const __m256 c0 = _mm256_broadcast_ps((const __m128 *)(m + 0));
    const __m256 c1 = _mm256_broadcast_ps((const __m128 *)(m + 4));
    const __m256 c2 = _mm256_broadcast_ps((const __m128 *)(m + 8));
    const __m256 c3 = _mm256_broadcast_ps((const __m128 *)(m + 12));
    const __m256 bias = _mm256_broadcast_ps((const __m128 *)(m + 16));
    const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
    // Opaque pixels stay opaque and need no division: no alpha row feeds from colour and
    // alpha's own coefficient plus its bias is exactly 1.
    const int keepsOpaque = m[3] == 0.0f && m[7] == 0.0f && m[11] == 0.0f && m[15] + m[19] == 1.0f;
    size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        float *q = row + 4 * i;
        __m256 p = _mm256_loadu_ps(q);
        __m256 a = _mm256_permute_ps(p, 0xFF);
        int general = straight && !(keepsOpaque && _mm256_movemask_ps(_mm256_cmp_ps(a, one, _CMP_EQ_OQ)) == 0xFF);
        __m256 u = p;
        if (general) {
            __m256 inv = _mm256_and_ps(_mm256_div_ps(one, a), _mm256_cmp_ps(a, zero, _CMP_GT_OQ));
            u = _mm256_blend_ps(_mm256_mul_ps(p, inv), p, 0x88);
        }
        __m256 o = _mm256_fmadd_ps(c0, _mm256_permute_ps(u, 0x00), bias);
        o = _mm256_fmadd_ps(c1, _mm256_permute_ps(u, 0x55), o);
        o = _mm256_fmadd_ps(c2, _mm256_permute_ps(u, 0xAA), o);
        o = _mm256_fmadd_ps(c3, _mm256_permute_ps(u, 0xFF), o);
        if (general) o = _mm256_blend_ps(_mm256_mul_ps(o, _mm256_permute_ps(o, 0xFF)), o, 0x88);
        _mm256_storeu_ps(q, o);
    }
    if (i < n) {
        float *q = row + 4 * i;
        __m128 p = _mm_loadu_ps(q);
        __m128 a = _mm_permute_ps(p, 0xFF), one4 = _mm_set1_ps(1.0f);
        __m128 u = p;
        if (straight) {
            __m128 inv = _mm_and_ps(_mm_div_ps(one4, a), _mm_cmp_ps(a, _mm_setzero_ps(), _CMP_GT_OQ));
            u = _mm_blend_ps(_mm_mul_ps(p, inv), p, 0x8);
        }
        __m128 o = _mm_fmadd_ps(_mm256_castps256_ps128(c0), _mm_permute_ps(u, 0x00), _mm256_castps256_ps128(bias));
        o = _mm_fmadd_ps(_mm256_castps256_ps128(c1), _mm_permute_ps(u, 0x55), o);
        o = _mm_fmadd_ps(_mm256_castps256_ps128(c2), _mm_permute_ps(u, 0xAA), o);
        o = _mm_fmadd_ps(_mm256_castps256_ps128(c3), _mm_permute_ps(u, 0xFF), o);
        if (straight) o = _mm_blend_ps(_mm_mul_ps(o, _mm_permute_ps(o, 0xFF)), o, 0x8);
        _mm_storeu_ps(q, o);
    }
}

// Vibrance on straight colour, two pixels per vector: the same expression as the Swift
// stage (mx = max by `>` so NaN propagates, mean = (r + g + b) / 3, t = (mx - mean) k,
// c - (c - mx) t), alpha copied back bit for bit.
CYAN_AVX2 static void cyan_vibrance_avx2(float *row, size_t n, float k) {
    const __m256 kv = _mm256_set1_ps(k), third = _mm256_set1_ps(1.0f / 3.0f);
    for (size_t i = 0; i < n; i += 2) {
        float *q = row + 4 * i;
        // The odd last pixel rides in the low half; the high half is a copy of it.
        __m256 c = i + 2 <= n ? _mm256_loadu_ps(q) : _mm256_broadcast_ps((const __m128 *)q);
        __m256 gbr = _mm256_permute_ps(c, _MM_SHUFFLE(3, 0, 2, 1));
        __m256 brg = _mm256_permute_ps(c, _MM_SHUFFLE(3, 1, 0, 2));
        __m256 mx = _mm256_max_ps(brg, _mm256_max_ps(gbr, c));          // lane 0: max(r, g, b)
        __m256 mean = _mm256_mul_ps(_mm256_add_ps(_mm256_add_ps(c, gbr), brg), third);
        __m256 t = _mm256_mul_ps(_mm256_sub_ps(mx, mean), kv);
        mx = _mm256_permute_ps(mx, 0x00);
        t = _mm256_permute_ps(t, 0x00);
        __m256 o = _mm256_blend_ps(_mm256_sub_ps(c, _mm256_mul_ps(_mm256_sub_ps(c, mx), t)), c, 0x88);
        if (i + 2 <= n) _mm256_storeu_ps(q, o);
        else _mm_storeu_ps(q, _mm256_castps256_ps128(o));
    }
}

// |x|^p through a PowerTable (see FastMath.swift): each colour lane's cell is found from its
// float bits (exponent and top k mantissa bits), holding a + b u + c u^2 for the position u in
// the cell; the sign is put back and alpha copied. Cells are (a, b, c, 0), 16 bytes.
// One pixel (SSE) and two (AVX2) do the same operations, so results never depend on pairing.
CYAN_AVX2 static inline __m128 cyan_power_cells1(__m128 A, __m128 B, __m128 C, __m128 u, __m128i bits, __m128 p) {
    __m128 r = _mm_fmadd_ps(u, _mm_fmadd_ps(u, C, B), A);
    r = _mm_or_ps(r, _mm_castsi128_ps(_mm_and_si128(bits, _mm_set1_epi32((int)0x80000000))));
    return _mm_blend_ps(r, p, 0x8);
}

CYAN_AVX2 static long cyan_power_table_avx2(float *row, size_t n, const float *cells, int k, int count, int32_t *outside) {
    const __m128i shift = _mm_cvtsi32_si128(23 - k);
    const __m256i absMask = _mm256_set1_epi32(0x7FFFFFFF), countv = _mm256_set1_epi32(count);
    const __m256i low = _mm256_set1_epi32((1 << (23 - k)) - 1), oneBits = _mm256_set1_epi32(0x3F800000);
    const __m256 one = _mm256_set1_ps(1.0f), cellScale = _mm256_set1_ps((float)(1 << k));
    const __m256 zero = _mm256_setzero_ps();
    long skipped = 0;
    for (size_t i = 0; i < n; i += 2) {
        float *q = row + 4 * i;
        const int pair = i + 2 <= n;
        __m256 p = pair ? _mm256_loadu_ps(q) : _mm256_broadcast_ps((const __m128 *)q);
        __m256i bits = _mm256_castps_si256(p);
        __m256i j = _mm256_srl_epi32(_mm256_and_si256(bits, absMask), shift);
        int inside = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(countv, j)));
        __m256 u = _mm256_mul_ps(_mm256_sub_ps(_mm256_castsi256_ps(_mm256_or_si256(_mm256_and_si256(bits, low), oneBits)), one), cellScale);
        int32_t jj[8];
        _mm256_storeu_si256((__m256i *)jj, j);
        if (pair && (inside & 0x77) == 0x77) {
            __m256 R = _mm256_set_m128(_mm_loadu_ps(cells + 4 * jj[4]), _mm_loadu_ps(cells + 4 * jj[0]));
            __m256 G = _mm256_set_m128(_mm_loadu_ps(cells + 4 * jj[5]), _mm_loadu_ps(cells + 4 * jj[1]));
            __m256 B = _mm256_set_m128(_mm_loadu_ps(cells + 4 * jj[6]), _mm_loadu_ps(cells + 4 * jj[2]));
            __m256 lo1 = _mm256_unpacklo_ps(R, G), hi1 = _mm256_unpackhi_ps(R, G);
            __m256 lo2 = _mm256_unpacklo_ps(B, zero), hi2 = _mm256_unpackhi_ps(B, zero);
            __m256 Av = _mm256_shuffle_ps(lo1, lo2, _MM_SHUFFLE(1, 0, 1, 0));
            __m256 Bv = _mm256_shuffle_ps(lo1, lo2, _MM_SHUFFLE(3, 2, 3, 2));
            __m256 Cv = _mm256_shuffle_ps(hi1, hi2, _MM_SHUFFLE(1, 0, 1, 0));
            __m256 r = _mm256_fmadd_ps(u, _mm256_fmadd_ps(u, Cv, Bv), Av);
            r = _mm256_or_ps(r, _mm256_castsi256_ps(_mm256_and_si256(bits, _mm256_set1_epi32((int)0x80000000))));
            _mm256_storeu_ps(q, _mm256_blend_ps(r, p, 0x88));
            continue;
        }
        // One pixel at a time: covered ones through the same arithmetic on 128 bits, the
        // others (|x| >= 256, infinity, NaN) listed for the caller.
        for (int h = 0; h < (pair ? 2 : 1); h++) {
            if (((inside >> (4 * h)) & 0x7) != 0x7) { outside[skipped++] = (int32_t)(i + h); continue; }
            __m128 R = _mm_loadu_ps(cells + 4 * jj[4 * h]), G = _mm_loadu_ps(cells + 4 * jj[4 * h + 1]);
            __m128 Bc = _mm_loadu_ps(cells + 4 * jj[4 * h + 2]), z = _mm_setzero_ps();
            __m128 lo1 = _mm_unpacklo_ps(R, G), hi1 = _mm_unpackhi_ps(R, G), lo2 = _mm_unpacklo_ps(Bc, z), hi2 = _mm_unpackhi_ps(Bc, z);
            __m128 ph = h ? _mm256_extractf128_ps(p, 1) : _mm256_castps256_ps128(p);
            __m128 uh = h ? _mm256_extractf128_ps(u, 1) : _mm256_castps256_ps128(u);
            __m128i bh = _mm_castps_si128(ph);
            __m128 r = cyan_power_cells1(_mm_shuffle_ps(lo1, lo2, _MM_SHUFFLE(1, 0, 1, 0)), _mm_shuffle_ps(lo1, lo2, _MM_SHUFFLE(3, 2, 3, 2)),
                                         _mm_shuffle_ps(hi1, hi2, _MM_SHUFFLE(1, 0, 1, 0)), uh, bh, ph);
            _mm_storeu_ps(q + 4 * h, r);
        }
    }
    return skipped;
}

static int cyan_cpu_has_avx2_fma(void) { return cyan_vector_bits() >= 256; }
#endif

// The widest vector the CPU itself offers (AVX-512F with AVX2 and FMA: 512; AVX2 and FMA: 256;
// else 0), whatever the environment says. Checked once.
int cyan_hardware_vector_bits(void) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    static int known = -1;   // every thread that races here computes the same answer
    int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (k < 0) {
        __builtin_cpu_init();
        k = 0;
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) k = __builtin_cpu_supports("avx512f") ? 512 : 256;
        __atomic_store_n(&known, k, __ATOMIC_RELAXED);
    }
    return k;
#else
    return 0;
#endif
}

// The path chosen on this thread by cyan_select_vector_bits (-1: none, the environment's
// choice applies). Per thread, so a test's choice never reaches another test's renders; the
// executor carries it into the loop bodies it runs on other threads.
static _Thread_local int cyan_selected_bits = -1;

int cyan_select_vector_bits(int bits) {
    int hw = cyan_hardware_vector_bits();
    cyan_selected_bits = bits < 0 ? -1 : bits >= 512 && hw >= 512 ? 512 : bits >= 256 && hw >= 256 ? 256 : 0;
    return cyan_vector_bits();
}

int cyan_selected_vector_bits(void) { return cyan_selected_bits; }

int cyan_vector_bits(void) {
    int selected = cyan_selected_bits;
    if (selected >= 0) return selected;
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    static int known = -1;   // every thread that races here computes the same answer
    int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (k < 0) {
        // CYANOTYPE_PORTABLE_KERNELS=1 takes the portable loops, so tests cover them here too.
        const char *portable = getenv("CYANOTYPE_PORTABLE_KERNELS");
        int hw = cyan_hardware_vector_bits();
        k = 0;
        if (!(portable && portable[0] == '1') && hw >= 256) {
            // CYANOTYPE_VECTOR_BITS=256 keeps AVX-512 CPUs on the AVX2 loops (to compare them).
            const char *cap = getenv("CYANOTYPE_VECTOR_BITS");
            k = hw >= 512 && !(cap && atoi(cap) < 512) ? 512 : 256;
        }
        __atomic_store_n(&known, k, __ATOMIC_RELAXED);
    }
    return k;
#else
    return 0;
#endif
}

int cyan_matrix_rgbaf(float *row, size_t n, const float *m, int straightOnPremultiplied) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (cyan_cpu_has_avx2_fma()) { cyan_matrix_avx2(row, n, m, straightOnPremultiplied); return 1; }
#endif
    (void)row; (void)n; (void)m; (void)straightOnPremultiplied;
    return 0;
}

int cyan_vibrance_rgbaf(float *row, size_t n, float amount) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (cyan_cpu_has_avx2_fma()) { cyan_vibrance_avx2(row, n, -3.0f * amount); return 1; }
#endif
    (void)row; (void)n; (void)amount;
    return 0;
}


// MARK: 8-bit sources

// 8-bit RGBA (any byte order) -> premultiplied linear float RGBA through a 256-entry decoding
// table, in one pass. Straight input is premultiplied by alpha after decoding. Premultiplied
// input is opaque (used as is) or clear (all zero) here; its translucent pixels need colour
// divided by alpha before the curve, so they are left for the caller, who is told how many.
// One pixel; returns 1 when it is left for the caller. Without a table, codes are read as
// values (code / 255).
static inline float cyan_decode_code(const float *table, uint8_t c) { return table ? table[c] : (float)c / 255.0f; }

static inline size_t cyan_decode_rgba8_1(float *d, const uint8_t *q, const float *table, int ri, int gi, int bi, int ai,
                                         int premultipliedIn) {
    uint8_t a8 = q[ai];
    float r = cyan_decode_code(table, q[ri]), g = cyan_decode_code(table, q[gi]), b = cyan_decode_code(table, q[bi]);
    if (a8 == 255) {
        d[0] = r; d[1] = g; d[2] = b; d[3] = 1.0f;
    } else if (!premultipliedIn) {
        float a = (float)a8 * (1.0f / 255.0f);
        d[0] = r * a; d[1] = g * a; d[2] = b * a; d[3] = a;
    } else if (a8 == 0) {
        d[0] = 0; d[1] = 0; d[2] = 0; d[3] = 0;
    } else {
        return 1;
    }
    return 0;
}

static size_t cyan_decode_rgba8_scalar(float *dst, const uint8_t *src, size_t n, const float *table,
                                       int ri, int gi, int bi, int ai, int premultipliedIn) {
    size_t left = 0;
    size_t i = 0;
#if defined(__SSE2__)
    // Four pixels at a time: opaque ones (photos: all of them) with one test and four vector
    // stores, the same values the one-pixel path gives them.
    for (; i + 4 <= n; i += 4) {
        const uint8_t *q = src + 4 * i;
        float *d = dst + 4 * i;
        if ((q[ai] & q[4 + ai] & q[8 + ai] & q[12 + ai]) != 255) {
            for (int h = 0; h < 4; h++) left += cyan_decode_rgba8_1(d + 4 * h, q + 4 * h, table, ri, gi, bi, ai, premultipliedIn);
            continue;
        }
        for (int h = 0; h < 4; h++) {
            const uint8_t *p = q + 4 * h;
            _mm_storeu_ps(d + 4 * h, _mm_setr_ps(cyan_decode_code(table, p[ri]), cyan_decode_code(table, p[gi]), cyan_decode_code(table, p[bi]), 1.0f));
        }
    }
#endif
    for (; i < n; i++) left += cyan_decode_rgba8_1(dst + 4 * i, src + 4 * i, table, ri, gi, bi, ai, premultipliedIn);
    return left;
}

long cyan_power_table_rgbaf(float *row, size_t n, const float *cells, int k, int count, int32_t *outside) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (cyan_cpu_has_avx2_fma()) return cyan_power_table_avx2(row, n, cells, k, count, outside);
#endif
    (void)row; (void)n; (void)cells; (void)k; (void)count; (void)outside;
    return -1;
}

// MARK: Eight pixels a step (AVX2): 8-bit reads and writes, opacity checks

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
// Eight opaque pixels at a time: bytes reordered to r, g, b, a and widened, then either codes
// as values (no table: code / 255, and alpha 255 / 255 is exactly the scalar loop's 1) or
// through a decoding table (the sRGB curve of an 8-bit read: the table gathered, alpha set to
// exactly 1): the values the scalar loop gives. Groups with a pixel that is not opaque take
// the scalar loop.
CYAN_AVX2 static size_t cyan_decode_rgba8_avx2(float *dst, const uint8_t *src, size_t n, const float *table,
                                               int ri, int gi, int bi, int ai, int premultipliedIn) {
    const __m256i alphaMask = _mm256_set1_epi32((int)(0xFFu << (8 * ai)));
    const __m128i order = _mm_setr_epi8((char)ri, (char)gi, (char)bi, (char)ai, (char)(4 + ri), (char)(4 + gi), (char)(4 + bi), (char)(4 + ai),
                                        (char)(8 + ri), (char)(8 + gi), (char)(8 + bi), (char)(8 + ai), (char)(12 + ri), (char)(12 + gi),
                                        (char)(12 + bi), (char)(12 + ai));
    const __m256 k255 = _mm256_set1_ps(255.0f), one = _mm256_set1_ps(1.0f);
    size_t left = 0, i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i w = _mm256_loadu_si256((const __m256i *)(src + 4 * i));
        float *d = dst + 4 * i;
        if (!_mm256_testc_si256(_mm256_and_si256(w, alphaMask), alphaMask)) {
            left += cyan_decode_rgba8_scalar(d, src + 4 * i, 8, table, ri, gi, bi, ai, premultipliedIn);
            continue;
        }
        __m128i lo = _mm_shuffle_epi8(_mm256_castsi256_si128(w), order), hi = _mm_shuffle_epi8(_mm256_extracti128_si256(w, 1), order);
        __m128i parts[4] = {lo, _mm_srli_si128(lo, 8), hi, _mm_srli_si128(hi, 8)};
        for (int k = 0; k < 4; k++) {
            __m256i codes = _mm256_cvtepu8_epi32(parts[k]);
            __m256 v = table ? _mm256_blend_ps(_mm256_i32gather_ps(table, codes, 4), one, 0x88) : _mm256_div_ps(_mm256_cvtepi32_ps(codes), k255);
            _mm256_storeu_ps(d + 8 * k, v);
        }
    }
    return left + cyan_decode_rgba8_scalar(dst + 4 * i, src + 4 * i, n - i, table, ri, gi, bi, ai, premultipliedIn);
}

// Eight pixels at a time when no colour needs dividing by alpha (the same clamp, scale, add
// and truncation as the SSE loop, so the same bytes); other groups take the SSE loop.
CYAN_AVX2 static void cyan_quantize_rgba8_avx2(uint8_t *dst, const float *src, size_t n, int unpremultiply) {
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
    const __m256 scale = _mm256_set1_ps(255.0f), half = _mm256_set1_ps(0.5f);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const float *p = src + 4 * i;
        __m256 v[4];
        for (int k = 0; k < 4; k++) v[k] = _mm256_loadu_ps(p + 8 * k);
        if (unpremultiply) {
            __m256 o = _mm256_and_ps(_mm256_and_ps(_mm256_cmp_ps(v[0], one, _CMP_GE_OQ), _mm256_cmp_ps(v[1], one, _CMP_GE_OQ)),
                                     _mm256_and_ps(_mm256_cmp_ps(v[2], one, _CMP_GE_OQ), _mm256_cmp_ps(v[3], one, _CMP_GE_OQ)));
            if ((_mm256_movemask_ps(o) & 0x88) != 0x88) {
                cyan_quantize_rgba8_sse(dst + 4 * i, p, 8, unpremultiply);
                continue;
            }
        }
        __m256i q[4];
        for (int k = 0; k < 4; k++) {
            __m256 c = _mm256_min_ps(_mm256_max_ps(v[k], zero), one);
            q[k] = _mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(c, scale), half));
        }
        // Per 128-bit half: words of pixels 0, 2, 4, 6 | 1, 3, 5, 7; reordered to 0...7.
        __m256i h = _mm256_packus_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3]));
        _mm256_storeu_si256((__m256i *)(dst + 4 * i), _mm256_permutevar8x32_epi32(h, order));
    }
    cyan_quantize_rgba8_sse(dst + 4 * i, src + 4 * i, n - i, unpremultiply);
}

CYAN_AVX2 static int cyan_alpha_is_one_avx2(const float *row, size_t n) {
    const __m256 one = _mm256_set1_ps(1.0f);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const float *p = row + 4 * i;
        __m256 o = _mm256_and_ps(_mm256_and_ps(_mm256_cmp_ps(_mm256_loadu_ps(p), one, _CMP_EQ_OQ), _mm256_cmp_ps(_mm256_loadu_ps(p + 8), one, _CMP_EQ_OQ)),
                                 _mm256_and_ps(_mm256_cmp_ps(_mm256_loadu_ps(p + 16), one, _CMP_EQ_OQ), _mm256_cmp_ps(_mm256_loadu_ps(p + 24), one, _CMP_EQ_OQ)));
        if ((_mm256_movemask_ps(o) & 0x88) != 0x88) return 0;
    }
    for (; i < n; i++) if (!(row[4 * i + 3] == 1.0f)) return 0;
    return 1;
}
#endif

size_t cyan_decode_rgba8(float *dst, const uint8_t *src, size_t n, const float *table,
                         int ri, int gi, int bi, int ai, int premultipliedIn) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (cyan_cpu_has_avx2_fma()) {
        return cyan_decode_rgba8_avx2(dst, src, n, table, ri, gi, bi, ai, premultipliedIn);
    }
#endif
    return cyan_decode_rgba8_scalar(dst, src, n, table, ri, gi, bi, ai, premultipliedIn);
}

void cyan_quantize_rgba8(uint8_t *dst, const float *src, size_t n, int unpremultiply) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (cyan_cpu_has_avx2_fma()) { cyan_quantize_rgba8_avx2(dst, src, n, unpremultiply); return; }
#endif
    cyan_quantize_rgba8_sse(dst, src, n, unpremultiply);
}

int cyan_alpha_is_one_rgbaf(const float *row, size_t n) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (cyan_cpu_has_avx2_fma()) return cyan_alpha_is_one_avx2(row, n);
#endif
    for (size_t i = 0; i < n; i++) if (!(row[4 * i + 3] == 1.0f)) return 0;
    return 1;
}
