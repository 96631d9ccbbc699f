// What Cyanotype needs from LibRaw, as plain C structs Swift reads directly: a file's
// metadata, one development into 16-bit linear RGB, and the embedded preview. LibRaw's own
// structs are large and change between versions; only this file reads their fields.
// Every function opens its own LibRaw handle (libraw_r, loaded on first use), so calls on
// different threads never share state.
#ifndef CLIBRAW_SHIM_H
#define CLIBRAW_SHIM_H

#include <stddef.h>
#include <stdint.h>

/// What a RAW file says about itself (no pixels decoded).
typedef struct {
    /// The developed image's size before orientation (LibRaw's sizes.width/height).
    int width, height;
    /// The sensor's stored size.
    int raw_width, raw_height;
    /// LibRaw's flip: 0 none, 3 rotate 180, 5 rotate 90 CCW, 6 rotate 90 CW.
    int flip;
    /// Colour channels of the sensor (3 for Bayer RGB, 4 for CMYG) and LibRaw's CFA pattern.
    int colors;
    unsigned filters;
    /// The DNG version (0 for other formats).
    unsigned dng_version;
    char make[64], model[64], lens[128], software[64], cdesc[8];
    float iso, shutter, aperture, focal_length;
    long long timestamp;
    /// As-shot white balance multipliers (R, G, B, G2) and the daylight ones.
    float cam_mul[4], pre_mul[4];
    /// The camera's XYZ -> camera matrix (rows per camera channel), from the file or LibRaw's tables.
    float cam_xyz[4][3];
    /// Black and white levels of the raw data.
    unsigned black, maximum;
    /// The DNG BaselineExposure in EV (0 when absent).
    float baseline_exposure;
    /// The embedded preview: LibRaw's format (known only once unpacked: 0 here) and size.
    int thumb_format, thumb_width, thumb_height;
    unsigned thumb_length;
} cy_raw_info;

/// The body of a parallel loop: called once per index, on any thread.
typedef void (*cy_parallel_body)(void *context, int index);
/// A parallel loop the caller provides (Cyanotype's executor): runs `body(context, i)` for
/// every i in 0..<count, on up to that many threads, and returns when all are done.
typedef void (*cy_parallel_for)(int count, cy_parallel_body body, void *context);

/// How to develop: LibRaw's output parameters that Cyanotype sets.
typedef struct {
    /// Half-size decoding (each 2x2 CFA block gives one pixel; no demosaicking).
    int half_size;
    /// Demosaic: 0 linear, 1 VNG, 2 PPG, 3 AHD, 11 DHT, 12 AAHD.
    int quality;
    /// White balance: the file's as-shot one, LibRaw's grey-world one, or user_mul when its
    /// entries are positive.
    int use_camera_wb, use_auto_wb;
    float user_mul[4];
    /// 0 camera RGB, 1 sRGB primaries (always linear: gamma 1,1, no auto-brightening, 16 bits).
    int output_color;
    /// Highlights: 0 clip (white, never magenta), 2 blend.
    int highlight;
    /// Wavelet denoising threshold (0 none) and median passes on colour differences.
    float threshold;
    int med_passes;
    /// With `quality` 3 on a 2x2 Bayer sensor: Cyanotype's tiled AHD (ahd.c) on `workers`
    /// bodies of `parallel` in place of LibRaw's single-threaded one (LibRaw's own otherwise).
    int own_demosaic;
    cy_parallel_for parallel;
    int workers;
} cy_raw_develop_options;

/// Pixels or bytes LibRaw made: 16-bit RGB rows (`type` 2), a JPEG stream (`type` 1), or
/// LibRaw's own working image (`type` 3: 16-bit R, G, B and an unused word per pixel, kept
/// without a copy).
typedef struct {
    int type, width, height, colors, bits;
    const void *data;
    size_t length;
    void *owner;
} cy_raw_image;

/// Reads the file at `path` (or `size` bytes at `data` when `path` is NULL) far enough to
/// fill `info`. Returns 0, or -1 with a sentence in `message`.
int cy_raw_identify(const char *path, const void *data, size_t size, cy_raw_info *info, char *message, size_t capacity);

/// Develops the file into 16-bit linear RGB (LibRaw's dcraw_process; orientation not
/// applied). `max_pixels` refuses larger sensors before anything is decoded. Returns 0 with
/// `out` filled (release it with cy_raw_image_release), or -1 with a sentence in `message`.
int cy_raw_develop(const char *path, const void *data, size_t size, const cy_raw_develop_options *options,
                   long long max_pixels, cy_raw_image *out, char *message, size_t capacity);

/// The embedded preview (a JPEG stream, or 8-bit RGB rows). Returns 0 or -1 as above.
int cy_raw_preview(const char *path, const void *data, size_t size, cy_raw_image *out, char *message, size_t capacity);

/// Writes rows [row0, row1) of a developed image (type 2 or 3) as 16-bit RGBA (alpha 65535),
/// `out` pointing at row 0 of the whole image; through `tables` (three 65536-entry tables,
/// R, G, B) when it is not NULL.
void cy_raw_to_rgba16(const cy_raw_image *image, uint16_t *out, int row0, int row1, const uint16_t *tables);

/// Turns rows [row0, row1) of LibRaw's working image (type 3) into 16-bit RGBA in place
/// (alpha 65535), through `tables` as cy_raw_to_rgba16 does.
void cy_raw_finish_in_place(const cy_raw_image *image, int row0, int row1, const uint16_t *tables);

/// Frees what cy_raw_develop or cy_raw_preview made.
void cy_raw_image_release(cy_raw_image *image);

/// LibRaw's version ("0.20.2-Release"), or NULL when LibRaw cannot be loaded.
const char *cy_raw_version(void);

/// The number of camera models LibRaw knows, and model `index` ("Canon EOS 5D").
int cy_raw_camera_count(void);
const char *cy_raw_camera(int index);

#endif
