#ifndef CCODECSHIMS_H
#define CCODECSHIMS_H
// libtiff behind plain, non-variadic C calls: every failure is a return code plus a message,
// nothing is printed to stderr and nothing ends the process.
#include <stddef.h>
#include <stdint.h>
#include "capped_alloc.h"
#include "turn_band.h"

enum {
    CY_TIFF_OK = 0,
    CY_TIFF_ERR_OPEN = -1,        // not a readable TIFF header / first directory
    CY_TIFF_ERR_READ = -2,        // a strip or tile failed to decode
    CY_TIFF_ERR_UNSUPPORTED = -3, // a layout we do not decode
    CY_TIFF_ERR_NOMEM = -4,       // an allocation failed or exceeded the cap
    CY_TIFF_ERR_ARG = -5,         // bad argument
    CY_TIFF_ERR_WRITE = -6        // the encoder failed
};

/// What to produce: samples as stored (8/16-bit unsigned, 32-bit float) or libtiff's RGBA
/// interface (8-bit, for palette, YCbCr, CMYK, 1/2/4-bit and other layouts).
enum { CY_TIFF_MODE_U8 = 1, CY_TIFF_MODE_U16 = 2, CY_TIFF_MODE_F32 = 3, CY_TIFF_MODE_RGBA8 = 4 };

typedef struct {
    uint32_t width, height;
    uint16_t samplesPerPixel, bitsPerSample, sampleFormat, photometric, planarConfig, orientation;
    uint16_t extraSamples, alphaType; // alphaType 0 none, 1 associated, 2 unassociated
    uint16_t compression, resolutionUnit;
    int tiled;
    float xResolution;                // 0 when absent
    int mode;                         // CY_TIFF_MODE_* this file decodes with; 0 = unsupported
} cy_tiff_info;

typedef struct cy_tiff_reader cy_tiff_reader;

/// Opens a TIFF held in memory (not copied: `data` must outlive the reader). Returns NULL only
/// when out of memory; check `cy_tiff_status` for open errors.
cy_tiff_reader *cy_tiff_open(const void *data, size_t size, int64_t maxSingleAlloc);
/// Opens the TIFF file open as `fd` (read with pread as libtiff asks; the reader closes `fd`,
/// also when this fails). NULL when out of memory or `fd` cannot be examined.
cy_tiff_reader *cy_tiff_open_fd(int fd, int64_t maxSingleAlloc);
/// Tells a reader made by `cy_tiff_open` where its bytes now lie (the same bytes, possibly
/// moved), before a call that reads them.
void cy_tiff_rebind(cy_tiff_reader *r, const void *data);
int cy_tiff_status(const cy_tiff_reader *r);
/// The first error libtiff reported (or ""), and whether any read ran past the end of the data.
const char *cy_tiff_message(const cy_tiff_reader *r);
int cy_tiff_hit_eof(const cy_tiff_reader *r);
int cy_tiff_get_info(cy_tiff_reader *r, cy_tiff_info *info);
/// The ICC profile (TIFFTAG_ICCPROFILE), or NULL.
const void *cy_tiff_icc(cy_tiff_reader *r, uint32_t *length);
/// Decodes the first image into `out` (width*height*4 samples of the mode's type, straight
/// alpha, top-down, orientation not applied). `rowsDone` gets the rows completed; with
/// `strict == 0` a failing strip stops the decode and still returns CY_TIFF_OK with fewer rows.
int cy_tiff_decode(cy_tiff_reader *r, int mode, void *out, size_t outBytes, int strict, uint32_t *rowsDone);
/// Decodes rows `first ..< first + count` of an 8 or 16-bit image (mode CY_TIFF_MODE_U8 or
/// CY_TIFF_MODE_U16) into `out`, `outRowBytes` apart, as `cy_tiff_decode` gives them (RGBA,
/// straight alpha). Decodes a strip or a row of tiles at a time, kept for the next call: read
/// top to bottom, each strip or tile is decoded once. CY_TIFF_ERR_READ when one fails.
int cy_tiff_read_rows(cy_tiff_reader *r, int mode, void *out, size_t outRowBytes, uint32_t first, uint32_t count);
void cy_tiff_close(cy_tiff_reader *r);

/// Where a TIFF being written goes (`cy_tiff_stream`): `append` adds bytes at the end,
/// `patch` overwrites bytes already appended (at `offset` from the file's start), `read` reads
/// them back; each returns 0 (read: the count read) or -1 on failure.
typedef struct {
    void *context;
    int (*append)(void *context, const void *bytes, size_t count);
    int (*patch)(void *context, uint64_t offset, const void *bytes, size_t count);
    int64_t (*read)(void *context, uint64_t offset, void *bytes, size_t count);
} cy_tiff_output;
typedef struct cy_tiff_stream cy_tiff_stream;
/// A TIFF written into `output` as rows arrive: interleaved samples (`channels` 1 grey, 2
/// grey + alpha, 3 RGB, 4 RGBA; `bits` 8, 16 or 32 = float) with compression 1 none, 5 LZW,
/// 8 deflate, in strips of libtiff's default size, each appended once full. NULL with a
/// message when the parameters are out of range or libtiff cannot start.
cy_tiff_stream *cy_tiff_stream_create(cy_tiff_output output, uint32_t width, uint32_t height, int channels, int bits,
                                      int compression, int orientation, const void *icc, uint32_t iccLength, double dpi,
                                      char *message, size_t messageLength);
/// Appends `count` rows, `rowBytes` apart, top first; libtiff may change the rows (predictor).
int cy_tiff_stream_write(cy_tiff_stream *s, void *rows, size_t rowBytes, uint32_t count, char *message, size_t messageLength);
/// Writes the last strip and the directory once every row is written; `length` gets the file's size.
int cy_tiff_stream_finish(cy_tiff_stream *s, uint64_t *length, char *message, size_t messageLength);
/// Frees a stream, finished or not (an unfinished file is left as written so far).
void cy_tiff_stream_destroy(cy_tiff_stream *s);
void cy_tiff_free(void *p);

// Multi-page TIFF: choosing a page to read, and writing several pages (directories).
/// Makes page `index` (0-based directory) the one `cy_tiff_get_info`/`cy_tiff_icc`/`cy_tiff_decode`
/// read. 0, or CY_TIFF_ERR_OPEN with a message when there is no such directory.
int cy_tiff_set_directory(cy_tiff_reader *r, uint32_t index);
typedef struct cy_tiff_writer cy_tiff_writer;
/// A writer of pages into memory; NULL when out of memory or libtiff cannot start.
cy_tiff_writer *cy_tiff_writer_create(void);
/// Appends one page (the parameters of `cy_tiff_stream_create`, `pixels` packed rows); `pageCount` > 1 also writes the
/// PageNumber and NewSubfileType (page) tags. 0, or an error code with a message.
int cy_tiff_writer_add_page(cy_tiff_writer *w, const void *pixels, uint32_t width, uint32_t height, int channels, int bits,
                            int compression, int orientation, const void *icc, uint32_t iccLength, double dpi,
                            int pageNumber, int pageCount, char *message, size_t messageLength);
/// Ends the file; on success `*out` is malloc'd (free with cy_tiff_free). The writer is freed either way.
int cy_tiff_writer_finish(cy_tiff_writer *w, void **out, size_t *outLength, char *message, size_t messageLength);
/// Frees a writer that was not finished.
void cy_tiff_writer_destroy(cy_tiff_writer *w);

// JPEG encoding a band of rows at a time (libjpeg's scanline API, errors as return codes).
// Input rows are RGBA8 (alpha ignored). The output is what TurboJPEG's tjCompress2 writes for
// the same settings with TJFLAG_ACCURATEDCT.
enum { CY_JPEG_444 = 0, CY_JPEG_422 = 1, CY_JPEG_420 = 2 };
typedef struct cy_jpeg_encoder cy_jpeg_encoder;
/// NULL when the size is out of range (1...65500) or libjpeg fails to start.
cy_jpeg_encoder *cy_jpeg_encoder_create(int width, int height, int quality, int subsampling, int progressive);
/// What an encoder's rows hold: RGBA8 (alpha ignored); interleaved 8-bit Y'CbCr (3 bytes a
/// pixel, full-size chroma), written without a colour conversion; or the Y, Cb and Cr planes
/// as the file stores them (libjpeg's raw_data_in, `cy_jpeg_encoder_write_planes`).
enum { CY_JPEG_INPUT_RGBA8 = 0, CY_JPEG_INPUT_YCBCR8 = 1, CY_JPEG_INPUT_PLANES = 2 };
/// As cy_jpeg_encoder_create, taking rows of `input` (a CY_JPEG_INPUT_ value).
cy_jpeg_encoder *cy_jpeg_encoder_create_input(int width, int height, int quality, int subsampling, int progressive, int input);
/// Appends `count` rows, top first. 0, or -1 with a message.
int cy_jpeg_encoder_write(cy_jpeg_encoder *e, const uint8_t *rows, size_t rowBytes, int count, char *message, size_t messageSize);
/// For a CY_JPEG_INPUT_PLANES encoder: the next 8 x (2 at 4:2:0, else 1) luma rows and their
/// chroma rows (8 each, at the chroma's own size), top first, each row padded to a whole
/// number of 8 x 8 blocks and the rows past the image's bottom given too (repeat the last).
/// 0, or -1 with a message.
int cy_jpeg_encoder_write_planes(cy_jpeg_encoder *e, uint8_t *const *y, uint8_t *const *cb, uint8_t *const *cr, char *message,
                                 size_t messageSize);
/// Ends the image (all rows written); `bytes` stays valid until destroy. 0, or -1 with a message.
int cy_jpeg_encoder_finish(cy_jpeg_encoder *e, const uint8_t **bytes, size_t *size, char *message, size_t messageSize);
void cy_jpeg_encoder_destroy(cy_jpeg_encoder *e);

// JPEG decoding a band of RGBA8 rows at a time (the pixels tjDecompress2 gives for TJPF_RGBA).
typedef struct cy_jpeg_decoder cy_jpeg_decoder;
/// Reads the header and starts decompression; NULL with a message when that fails. `data`
/// must stay valid until destroy (or until `cy_jpeg_decoder_rebase` gives its new address).
cy_jpeg_decoder *cy_jpeg_decoder_create(const uint8_t *data, size_t size, int strict, int *width, int *height,
                                        char *message, size_t messageSize);
/// The next `count` rows, top first. 0, or -1 with a message (in strict mode also on warnings).
int cy_jpeg_decoder_read(cy_jpeg_decoder *d, uint8_t *rows, size_t rowBytes, int count, char *message, size_t messageSize);
/// As cy_jpeg_decoder_create, decoding at 1/`scaleDenom` (1, 2, 4 or 8) in the IDCT
/// (libjpeg's scale_denom): `width`/`height` get the scaled size (rounded up).
cy_jpeg_decoder *cy_jpeg_decoder_create_scaled(const uint8_t *data, size_t size, int strict, int scaleDenom, int *width,
                                               int *height, char *message, size_t messageSize);
/// As cy_jpeg_decoder_create_scaled, reading the compressed bytes from the open file `fd` (from
/// its start, 64 KiB at a time, with pread). The decoder owns `fd` and closes it (also when
/// creation fails).
cy_jpeg_decoder *cy_jpeg_decoder_create_fd(int fd, int strict, int scaleDenom, int *width, int *height, char *message,
                                           size_t messageSize);
/// Tells the decoder its compressed bytes (the same `size` bytes) now lie at `data`: for callers
/// whose buffer may move between calls (Swift's `Data`), who pass its address for the call.
/// Returns -1, changing nothing, when `size` differs.
int cy_jpeg_decoder_rebase(cy_jpeg_decoder *d, const uint8_t *data, size_t size);
void cy_jpeg_decoder_destroy(cy_jpeg_decoder *d);

// A whole JPEG (progressive files too) decoded to its planes as stored: Y full size, Cb and
// Cr subsampled by 2^shiftX x 2^shiftY (libjpeg's raw_data_out, no upsampling or colour
// conversion). Each plane is padded to whole blocks: `*RowBytes` samples a row, `*Rows` rows.
typedef struct {
    int width, height, shiftX, shiftY;
    int lumaRowBytes, lumaRows, chromaRowBytes, chromaRows;
    /// The chroma planes' own size in samples (libjpeg's downsampled width and height).
    int chromaWidth, chromaHeight;
    /// Whether libjpeg upsamples this file's chroma with its "fancy" (triangle) filter; 0 when
    /// it replicates samples (a subsampled width of 2 samples or fewer).
    int fancy;
} cy_jpeg_planar_info;
/// Reads the header of the JPEG in memory and starts a planar decode (for a progressive file
/// this reads every scan): 0 with `*out` and `info` set; 1 when the file is not 8-bit YCbCr
/// sampled 4:4:4, 4:2:2, 4:4:0 or 4:2:0 (nothing to free); -1 with a message on an error. A
/// progressive file of more than 500 scans is an error (as TurboJPEG's TJFLAG_LIMITSCANS).
int cy_jpeg_decoder_create_planar(const uint8_t *data, size_t size, int strict, cy_jpeg_planar_info *info, cy_jpeg_decoder **out,
                                  char *message, size_t messageSize);
/// As cy_jpeg_decoder_create_planar, reading the compressed bytes from the open file `fd` (from
/// its start, 64 KiB at a time): the decoder owns `fd` and closes it (also when this fails or
/// returns 1).
int cy_jpeg_decoder_create_planar_fd(int fd, int strict, cy_jpeg_planar_info *info, cy_jpeg_decoder **out, char *message,
                                     size_t messageSize);
/// Decodes every row (`data` must not have moved since create) into planes turned upright for EXIF
/// `orientation` (1...8) band by band as they decode: luma `width` x `height` and chroma
/// `chromaWidth` x `chromaHeight` as stored (sides swapped for 5...8), unpadded, `yStride` and
/// `chromaStride` bytes a row. 0, or -1 with a message.
int cy_jpeg_decoder_read_planes_upright(cy_jpeg_decoder *d, const cy_jpeg_planar_info *info, int orientation, uint8_t *y, size_t yStride,
                                        uint8_t *cb, uint8_t *cr, size_t chromaStride, char *message, size_t messageSize);

#endif
