// EXIF orientations applied to bands of stored rows as they decode: one routine for samples
// of 1 byte (JPEG planes), 4 (RGBA8) and 8 (RGBA16) bytes, so every decoder turns its rows
// with the same index mapping.
#include "turn_band.h"

#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
// 16 rows of 16 bytes transposed in place (r[j] becomes column j): four rounds of the perfect
// shuffle, each interleaving row i with row i + 8.
static inline void cy_transpose16x8(__m128i r[16]) {
    __m128i t[16];
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < 8; i++) {
            t[2 * i] = _mm_unpacklo_epi8(r[i], r[i + 8]);
            t[2 * i + 1] = _mm_unpackhi_epi8(r[i], r[i + 8]);
        }
        for (int i = 0; i < 16; i++) r[i] = t[i];
    }
}

// 4 rows of 4 32-bit samples transposed in place.
static inline void cy_transpose4x32(__m128i r[4]) {
    __m128i a = _mm_unpacklo_epi32(r[0], r[1]), b = _mm_unpacklo_epi32(r[2], r[3]);
    __m128i c = _mm_unpackhi_epi32(r[0], r[1]), d = _mm_unpackhi_epi32(r[2], r[3]);
    r[0] = _mm_unpacklo_epi64(a, b);
    r[1] = _mm_unpackhi_epi64(a, b);
    r[2] = _mm_unpacklo_epi64(c, d);
    r[3] = _mm_unpackhi_epi64(c, d);
}
#endif

// Rows that keep their row-ness (1 to 4): each stored row is copied, mirrored for 2 and 3,
// to its upright row (from the bottom for 3 and 4).
#define CY_FLIP_ROWS(T)                                                                                          \
    do {                                                                                                         \
        int flipX = o == 2 || o == 3, flipY = o == 3 || o == 4;                                                  \
        for (int r = 0; r < rows; r++) {                                                                         \
            const T *s = (const T *)((const uint8_t *)src + (size_t)r * srcStride);                              \
            T *d = (T *)((uint8_t *)dst + (size_t)(flipY ? ph - 1 - (y0 + r) : y0 + r) * dstStride);             \
            if (!flipX) {                                                                                        \
                memcpy(d, s, (size_t)pw * sizeof(T));                                                            \
            } else {                                                                                             \
                for (int x = 0; x < pw; x++) d[pw - 1 - x] = s[x];                                               \
            }                                                                                                    \
        }                                                                                                        \
    } while (0)

// The columns from `x` on of a quarter turn (5 to 8), one at a time: stored column x becomes
// upright row x (5, 6) or pw - 1 - x (7, 8), the band's rows landing side by side in it, from
// column y0 (5, 8) or leftwards from ph - 1 - y0 (6, 7).
#define CY_TURN_COLUMNS(T)                                                                                       \
    do {                                                                                                         \
        for (; x < pw; x++) {                                                                                    \
            T *d = (T *)((uint8_t *)dst + (size_t)(flipY ? pw - 1 - x : x) * dstStride);                         \
            const uint8_t *s = (const uint8_t *)src + (size_t)x * sizeof(T);                                     \
            if (!flipX) {                                                                                        \
                d += y0;                                                                                         \
                for (int r = 0; r < rows; r++) memcpy(d + r, s + (size_t)r * srcStride, sizeof(T));              \
            } else {                                                                                             \
                d += ph - 1 - y0;                                                                                \
                for (int r = 0; r < rows; r++) memcpy(d - r, s + (size_t)r * srcStride, sizeof(T));              \
            }                                                                                                    \
        }                                                                                                        \
    } while (0)

void cy_orient_band(const void *src, size_t srcStride, int y0, int rows, int pw, int ph, int orientation, int sampleBytes, void *dst,
                    size_t dstStride) {
    int o = orientation;
    if (rows <= 0 || pw <= 0) return;
    if (o < 1 || o > 8) o = 1;
    if (o <= 4) {
        switch (sampleBytes) {
        case 1: CY_FLIP_ROWS(uint8_t); break;
        case 2: CY_FLIP_ROWS(uint16_t); break;
        case 4: CY_FLIP_ROWS(uint32_t); break;
        case 8: CY_FLIP_ROWS(uint64_t); break;
        default: break;
        }
        return;
    }
    int flipX = o == 6 || o == 7, flipY = o == 7 || o == 8;
    int x = 0;
    switch (sampleBytes) {
    case 1:
#if defined(__SSE2__)
        // 16 columns at a time: the band's rows (bottom first when flipped) transposed, each
        // column then one run of `rows` bytes in its upright row.
        for (; rows <= 16 && x + 16 <= pw; x += 16) {
            __m128i r[16];
            for (int i = 0; i < 16; i++) {
                int sr = flipX ? rows - 1 - i : i;
                r[i] = i < rows ? _mm_loadu_si128((const __m128i *)((const uint8_t *)src + (size_t)sr * srcStride + (size_t)x))
                                : _mm_setzero_si128();
            }
            cy_transpose16x8(r);
            size_t at = (size_t)(flipX ? ph - y0 - rows : y0);
            for (int j = 0; j < 16; j++) {
                uint8_t *d = (uint8_t *)dst + (size_t)(flipY ? pw - 1 - (x + j) : x + j) * dstStride + at;
                if (rows == 16) {
                    _mm_storeu_si128((__m128i *)d, r[j]);
                } else if (rows == 8) {
                    _mm_storel_epi64((__m128i *)d, r[j]);
                } else {
                    uint8_t column[16];
                    _mm_storeu_si128((__m128i *)column, r[j]);
                    memcpy(d, column, (size_t)rows);
                }
            }
        }
#endif
        CY_TURN_COLUMNS(uint8_t);
        break;
    case 2: CY_TURN_COLUMNS(uint16_t); break;
    case 4:
#if defined(__SSE2__)
        // 4 columns of 4 rows at a time, transposed: each column then 16 bytes in its upright
        // row (the rows' order reversed first when flipped).
        for (; x + 4 <= pw; x += 4) {
            int r0 = 0;
            for (; r0 + 4 <= rows; r0 += 4) {
                __m128i v[4];
                for (int i = 0; i < 4; i++) {
                    int sr = flipX ? r0 + 3 - i : r0 + i;
                    v[i] = _mm_loadu_si128((const __m128i *)((const uint8_t *)src + (size_t)sr * srcStride + (size_t)x * 4));
                }
                cy_transpose4x32(v);
                size_t at = (size_t)(flipX ? ph - 1 - y0 - r0 - 3 : y0 + r0) * 4;
                for (int j = 0; j < 4; j++) {
                    uint8_t *d = (uint8_t *)dst + (size_t)(flipY ? pw - 1 - (x + j) : x + j) * dstStride + at;
                    _mm_storeu_si128((__m128i *)d, v[j]);
                }
            }
            for (; r0 < rows; r0++) {
                const uint8_t *s = (const uint8_t *)src + (size_t)r0 * srcStride + (size_t)x * 4;
                size_t at = (size_t)(flipX ? ph - 1 - (y0 + r0) : y0 + r0) * 4;
                for (int j = 0; j < 4; j++) {
                    uint8_t *d = (uint8_t *)dst + (size_t)(flipY ? pw - 1 - (x + j) : x + j) * dstStride + at;
                    memcpy(d, s + j * 4, 4);
                }
            }
        }
#endif
        CY_TURN_COLUMNS(uint32_t);
        break;
    case 8: CY_TURN_COLUMNS(uint64_t); break;
    default: break;
    }
}
