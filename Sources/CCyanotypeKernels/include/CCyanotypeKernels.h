#ifndef CCYANOTYPE_KERNELS_H
#define CCYANOTYPE_KERNELS_H
#include <stddef.h>
#include <stdint.h>

/// Writes `n` RGBA float pixels from `src` to `dst` (16-byte aligned) with non-temporal
/// stores, so a destination that is not read again is not first read into the cache
/// (no read-for-ownership). With `clamp`, colour is clamped to 0...alpha and alpha to 0...1
/// (premultiplied colour in a clipped space); NaN becomes 0.
void cyan_store_rgbaf_stream(float *dst, const float *src, size_t n, int clamp);

/// `n` RGBA float pixels to RGBA8 as they are (already encoded): clamped to 0...1 (NaN to 0),
/// rounded half up; with `unpremultiply`, colour divided by alpha first.
void cyan_quantize_rgba8(uint8_t *dst, const float *src, size_t n, int unpremultiply);

#endif
