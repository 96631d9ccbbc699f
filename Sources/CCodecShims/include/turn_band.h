#ifndef CY_TURN_BAND_H
#define CY_TURN_BAND_H
#include <stddef.h>

/// Writes one band of a picture's stored rows where EXIF `orientation` (1...8; anything else
/// is 1) puts them in the upright picture: `rows` rows from stored row `y0`, `pw` samples of
/// `sampleBytes` bytes each (1: a JPEG plane, 2, 4: RGBA8, 8: RGBA16), `srcStride` bytes apart,
/// into `dst` (`dstStride` bytes a row) of the upright picture of the `pw` x `ph` stored one.
/// The same index mapping for every sample size (SSE2 transposes for 1 and 4-byte quarter turns).
void cy_orient_band(const void *src, size_t srcStride, int y0, int rows, int pw, int ph, int orientation, int sampleBytes, void *dst,
                    size_t dstStride);

#endif
