#ifndef CCYANOTYPE_YCBCR_H
#define CCYANOTYPE_YCBCR_H
// Row loops of the planar Y'CbCr source and destination (CIPlanarImageBuffer): in C so they
// vectorise (AVX2 + FMA where the CPU has it, checked at run time; SSE2 otherwise).
#include <stddef.h>
#include <stdint.h>

/// Vertical chroma interpolation: out[i] = c0[j] * (1 - w) + c1[j] * w, j = clamp(jLo + i, 0, cw - 1).
void cy_ycc_vertical_u8(const uint8_t *c0, const uint8_t *c1, float w, long jLo, long n, long cw, float *out);
void cy_ycc_vertical_u16(const uint16_t *c0, const uint16_t *c1, float w, long jLo, long n, long cw, float *out);

/// n pixels from column x0: luma from `y` (indexed by column), chroma from `cb`/`cr` (float,
/// index 0 is chroma column jLo). shiftX 0: chroma column = x. shiftX 1: pixel x = 2m + p takes
/// chroma m + d[p] and m + d[p] + 1 mixed by w[p]. coef: luma[4], blue[4], red[4], bias[4];
/// out: RGBA floats, colour clamped to 0...1, alpha 1.
void cy_ycc_to_rgba_u8(const uint8_t *y, const float *cb, const float *cr, long x0, long n, int shiftX, long jLo,
                       int d0, float w0, int d1, float w1, const float *coef, float *out);
void cy_ycc_to_rgba_u16(const uint16_t *y, const float *cb, const float *cr, long x0, long n, int shiftX, long jLo,
                        int d0, float w0, int d1, float w1, const float *coef, float *out);

/// Clamps the colour of n RGBA pixels to 0...1 in place (NaN to 0).
void cy_rgba_clamp01(float *rgba, long n);

/// Luma codes of n RGBA pixels (colour already in 0...1): round(dot(toY, rgb) + off), at most max.
/// coef: toY r, g, b, off, max.
void cy_rgba_to_luma_u8(const float *rgba, long n, const float *coef, uint8_t *out);
void cy_rgba_to_luma_u16(const float *rgba, long n, const float *coef, uint16_t *out);

/// Chroma of `count` blocks: block k averages pixels 2k, 2k+1 (shiftX 1) or pixel k (shiftX 0)
/// of row a, and of row b too when b is not NULL. coef: toCb r, g, b, offCb, toCr r, g, b,
/// offCr, max.
void cy_rgba_to_chroma_u8(const float *a, const float *b, long count, int shiftX, const float *coef, uint8_t *cb, uint8_t *cr);
void cy_rgba_to_chroma_u16(const float *a, const float *b, long count, int shiftX, const float *coef, uint16_t *cb, uint16_t *cr);
/// Bytes of scratch `cy_jpeg_row_rgba8` needs for `n` pixels.
long cy_jpeg_row_scratch_bytes(long n);
/// n pixels (columns x0...) of one upright row of a JPEG's turned planes as RGBA8 (alpha 255),
/// the values libjpeg's fancy upsampling and YCbCr -> RGB give: luma `y` (the row, indexed by
/// column); chroma rows near and far (the far row weighs `farWeight` of 4: 1, or 0 for none),
/// `chromaWidth` samples each. shiftX 1: pixel x belongs to chroma column (x + phaseX) >> 1,
/// its pair's first or second by (x + phaseX) & 1, mixed 3:1 with the column before or after
/// when `fancyX` (else the column alone). A chroma value is (sixteenths + bias) >> 4, the bias
/// `biasEven` for a pair's first pixel (and every pixel when shiftX is 0), `biasOdd` for its
/// second. `scratch`: `cy_jpeg_row_scratch_bytes(n)` bytes, 2-byte aligned.
void cy_jpeg_row_rgba8(const uint8_t *y, const uint8_t *cbNear, const uint8_t *crNear, const uint8_t *cbFar, const uint8_t *crFar,
                       int farWeight, long x0, long n, int shiftX, int fancyX, int phaseX, long chromaWidth, int biasEven, int biasOdd,
                       int16_t *scratch, uint8_t *out);
/// As `cy_jpeg_row_rgba8`, the n pixels as interleaved 8-bit Y'CbCr (3 bytes a pixel): the luma
/// and libjpeg's upsampled chroma, with no conversion to RGB (a JPEG re-encoded from its planes).
void cy_jpeg_row_ycc8(const uint8_t *y, const uint8_t *cbNear, const uint8_t *crNear, const uint8_t *cbFar, const uint8_t *crFar,
                      int farWeight, long x0, long n, int shiftX, int fancyX, int phaseX, long chromaWidth, int biasEven, int biasOdd,
                      int16_t *scratch, uint8_t *out);
/// As `cy_jpeg_row_ycc8`, only the n pixels' upsampled chroma, as rows of a Cb and a Cr plane
/// (`cb`, `cr`: n bytes each).
void cy_jpeg_row_chroma8(const uint8_t *cbNear, const uint8_t *crNear, const uint8_t *cbFar, const uint8_t *crFar, int farWeight, long x0,
                         long n, int shiftX, int fancyX, int phaseX, long chromaWidth, int biasEven, int biasOdd, int16_t *scratch,
                         uint8_t *cb, uint8_t *cr);
#endif
