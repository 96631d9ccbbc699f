// Cyanotype's tiled, parallel AHD demosaic (ahd.c), used inside LibRaw's development.
#ifndef CY_AHD_H
#define CY_AHD_H

#include "CLibRawShim.h"

/// Whether LibRaw's `filters` word is a 2x2 Bayer pattern (one red, two greens, one blue);
/// fills `pattern` ([row & 1][col & 1]: 0 R, 1 G, 2 B) when it is.
int cy_ahd_pattern(unsigned filters, int pattern[2][2]);

/// Demosaics LibRaw's `image` (width x height, the recorded colour of each pixel in its
/// channel, white balanced, 0...65535) in place with AHD; `rgb_cam` is LibRaw's camera ->
/// sRGB matrix (for the CIELab the homogeneity is measured in). Runs on `workers` bodies of
/// `parallel` (serially when it is NULL). Returns 0, or -1 (image too small, not a 2x2
/// Bayer pattern, out of memory: the image is then not fully demosaicked).
int cy_ahd_demosaic(uint16_t (*image)[4], int width, int height, unsigned filters, const float rgb_cam[3][4],
                    cy_parallel_for parallel, int workers);

#endif
