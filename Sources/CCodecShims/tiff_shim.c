// libtiff behind a non-variadic API; see include/CCodecShims.h.
#include "CCodecShims.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

struct cy_tiff_reader {
    const uint8_t *data;
    size_t size, pos;
    int fd;  // >= 0: the bytes are read from this file (pread), not `data`
    int hitEOF;
    int status;
    int64_t maxAlloc;
    TIFF *tif;
    char message[256];
    // Row reading (cy_tiff_read_rows): the strip or row of tiles last decoded, as stored.
    uint8_t *band;
    size_t bandCapacity;
    uint32_t bandFirst, bandRows;  // the image rows `band` holds
    int bandValid;
};

static pthread_once_t quietOnce = PTHREAD_ONCE_INIT;
static void quietGlobal(void) {
    // Errors from calls without a per-file handler would go to stderr: silence them.
    TIFFSetErrorHandler(NULL);
    TIFFSetWarningHandler(NULL);
}

static int onError(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif;
    char *msg = (char *)user;
    if (msg && msg[0] == 0) {
        char body[200];
        vsnprintf(body, sizeof body, fmt, ap);
        snprintf(msg, 256, "%s%s%s", module ? module : "", module ? ": " : "", body);
    }
    return 1;  // handled: nothing reaches the global handler
}
static int onWarning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif; (void)user; (void)module; (void)fmt; (void)ap;
    return 1;
}

// Memory I/O for reading.
static tmsize_t rRead(thandle_t h, void *buf, tmsize_t n) {
    cy_tiff_reader *r = (cy_tiff_reader *)h;
    if (n < 0) return -1;
    if (r->fd >= 0) {
        size_t done = 0;
        while (done < (size_t)n) {
            ssize_t k = pread(r->fd, (uint8_t *)buf + done, (size_t)n - done, (off_t)(r->pos + done));
            if (k < 0 && errno == EINTR) continue;
            if (k <= 0) break;
            done += (size_t)k;
        }
        if (done < (size_t)n) r->hitEOF = 1;
        r->pos += done;
        return (tmsize_t)done;
    }
    size_t avail = r->pos < r->size ? r->size - r->pos : 0;
    size_t k = (size_t)n < avail ? (size_t)n : avail;
    if (k < (size_t)n) r->hitEOF = 1;
    if (k) memcpy(buf, r->data + r->pos, k);
    r->pos += k;
    return (tmsize_t)k;
}
static tmsize_t rWrite(thandle_t h, void *buf, tmsize_t n) { (void)h; (void)buf; (void)n; return -1; }
static toff_t rSeek(thandle_t h, toff_t off, int whence) {
    cy_tiff_reader *r = (cy_tiff_reader *)h;
    uint64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? r->pos : r->size;
    uint64_t p = base + off;
    if (whence != SEEK_SET && (int64_t)off < 0 && (uint64_t)(-(int64_t)off) > base) return (toff_t)-1;
    if (p > (uint64_t)SIZE_MAX) return (toff_t)-1;
    r->pos = (size_t)p;
    return p;
}
static int rClose(thandle_t h) { (void)h; return 0; }
static toff_t rSize(thandle_t h) { return ((cy_tiff_reader *)h)->size; }
static int rMap(thandle_t h, void **base, toff_t *size) {
    cy_tiff_reader *r = (cy_tiff_reader *)h;
    if (r->fd >= 0) return 0;  // a file is read, not mapped
    *base = (void *)r->data;
    *size = r->size;
    return 1;
}
static void rUnmap(thandle_t h, void *base, toff_t size) { (void)h; (void)base; (void)size; }

static cy_tiff_reader *openReader(const void *data, size_t size, int fd, int64_t maxSingleAlloc) {
    pthread_once(&quietOnce, quietGlobal);
    cy_tiff_reader *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->data = data;
    r->size = size;
    r->fd = fd;
    r->maxAlloc = maxSingleAlloc;
    TIFFOpenOptions *o = TIFFOpenOptionsAlloc();
    if (!o) { r->status = CY_TIFF_ERR_NOMEM; return r; }
    if (maxSingleAlloc > 0) TIFFOpenOptionsSetMaxSingleMemAlloc(o, (tmsize_t)maxSingleAlloc);
    TIFFOpenOptionsSetErrorHandlerExtR(o, onError, r->message);
    TIFFOpenOptionsSetWarningHandlerExtR(o, onWarning, NULL);
    r->tif = TIFFClientOpenExt("data", "rm", (thandle_t)r, rRead, rWrite, rSeek, rClose, rSize, rMap, rUnmap, o);
    TIFFOpenOptionsFree(o);
    if (!r->tif) r->status = CY_TIFF_ERR_OPEN;
    return r;
}

cy_tiff_reader *cy_tiff_open(const void *data, size_t size, int64_t maxSingleAlloc) {
    return openReader(data, size, -1, maxSingleAlloc);
}

cy_tiff_reader *cy_tiff_open_fd(int fd, int64_t maxSingleAlloc) {
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < 0) {
        close(fd);
        return NULL;
    }
    cy_tiff_reader *r = openReader(NULL, (size_t)st.st_size, fd, maxSingleAlloc);
    if (!r) close(fd);
    return r;
}

void cy_tiff_rebind(cy_tiff_reader *r, const void *data) { r->data = data; }

int cy_tiff_status(const cy_tiff_reader *r) { return r->status; }
const char *cy_tiff_message(const cy_tiff_reader *r) { return r->message; }
int cy_tiff_hit_eof(const cy_tiff_reader *r) { return r->hitEOF; }

void cy_tiff_close(cy_tiff_reader *r) {
    if (!r) return;
    if (r->tif) TIFFClose(r->tif);
    if (r->fd >= 0) close(r->fd);
    free(r->band);
    free(r);
}

const void *cy_tiff_icc(cy_tiff_reader *r, uint32_t *length) {
    *length = 0;
    if (!r->tif) return NULL;
    uint32_t n = 0;
    void *p = NULL;
    if (TIFFGetField(r->tif, TIFFTAG_ICCPROFILE, &n, &p) && p && n > 0) {
        *length = n;
        return p;
    }
    return NULL;
}

int cy_tiff_get_info(cy_tiff_reader *r, cy_tiff_info *info) {
    memset(info, 0, sizeof *info);
    if (!r->tif) return CY_TIFF_ERR_OPEN;
    TIFF *t = r->tif;
    uint32_t w = 0, h = 0;
    if (!TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &w) || !TIFFGetField(t, TIFFTAG_IMAGELENGTH, &h)) {
        if (!r->message[0]) snprintf(r->message, sizeof r->message, "the image has no width or height tag");
        return CY_TIFF_ERR_OPEN;
    }
    info->width = w;
    info->height = h;
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLESPERPIXEL, &info->samplesPerPixel);
    TIFFGetFieldDefaulted(t, TIFFTAG_BITSPERSAMPLE, &info->bitsPerSample);
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLEFORMAT, &info->sampleFormat);
    TIFFGetFieldDefaulted(t, TIFFTAG_PLANARCONFIG, &info->planarConfig);
    TIFFGetFieldDefaulted(t, TIFFTAG_ORIENTATION, &info->orientation);
    TIFFGetFieldDefaulted(t, TIFFTAG_COMPRESSION, &info->compression);
    TIFFGetFieldDefaulted(t, TIFFTAG_RESOLUTIONUNIT, &info->resolutionUnit);
    if (!TIFFGetField(t, TIFFTAG_PHOTOMETRIC, &info->photometric))
        info->photometric = info->samplesPerPixel >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
    float xr = 0;
    if (TIFFGetField(t, TIFFTAG_XRESOLUTION, &xr) && xr > 0 && xr < 1e7) info->xResolution = xr;
    uint16_t nExtra = 0, *extra = NULL;
    if (TIFFGetField(t, TIFFTAG_EXTRASAMPLES, &nExtra, &extra) && nExtra > 0 && extra) {
        info->extraSamples = nExtra;
        if (extra[0] == EXTRASAMPLE_ASSOCALPHA) info->alphaType = 1;
        else if (extra[0] == EXTRASAMPLE_UNASSALPHA) info->alphaType = 2;
        else info->alphaType = 2;  // unspecified: treat as straight alpha, as most readers do
    }
    info->tiled = TIFFIsTiled(t);
    if (info->orientation < 1 || info->orientation > 8) info->orientation = 1;

    uint16_t spp = info->samplesPerPixel, bps = info->bitsPerSample, fmt = info->sampleFormat;
    uint16_t ph = info->photometric;
    int colourOK = (ph == PHOTOMETRIC_RGB && spp >= 3) ||
                   ((ph == PHOTOMETRIC_MINISBLACK || ph == PHOTOMETRIC_MINISWHITE) && spp >= 1);
    int base = ph == PHOTOMETRIC_RGB ? 3 : 1;
    int alphaOK = spp == base || (info->extraSamples >= 1 && spp >= base + 1);
    int contig = spp == 1 || info->planarConfig == PLANARCONFIG_CONTIG;
    if (colourOK && alphaOK && contig && spp <= 16) {
        if (bps == 8 && fmt == SAMPLEFORMAT_UINT) info->mode = CY_TIFF_MODE_U8;
        else if (bps == 16 && fmt == SAMPLEFORMAT_UINT) info->mode = CY_TIFF_MODE_U16;
        else if (bps == 32 && fmt == SAMPLEFORMAT_IEEEFP) info->mode = CY_TIFF_MODE_F32;
    }
    if (!info->mode) {
        char why[1024];
        if (TIFFRGBAImageOK(t, why)) info->mode = CY_TIFF_MODE_RGBA8;
        else if (!r->message[0]) snprintf(r->message, sizeof r->message, "%s", why);
    }
    return CY_TIFF_OK;
}

// One run of `n` pixels of file samples -> RGBA of the same sample type.
#define EMIT(T, MAXV, INVERT)                                                                   \
    static void emit_##T(const T *s, T *d, uint32_t n, int spp, int rgb, int alphaType, int inv) { \
        for (uint32_t i = 0; i < n; i++, s += spp, d += 4) {                                    \
            T r, g, b, a;                                                                       \
            if (rgb) { r = s[0]; g = s[1]; b = s[2]; a = alphaType ? s[3] : (T)(MAXV); }        \
            else { r = g = b = inv ? INVERT(s[0]) : s[0]; a = alphaType ? s[1] : (T)(MAXV); }   \
            d[0] = r; d[1] = g; d[2] = b; d[3] = a;                                             \
        }                                                                                       \
    }
#define INV8(v) (uint8_t)(255 - (v))
#define INV16(v) (uint16_t)(65535 - (v))
#define INVF(v) (1.0f - (v))
EMIT(uint8_t, 255, INV8)
EMIT(uint16_t, 65535, INV16)
typedef float float_t_;
EMIT(float_t_, 1.0f, INVF)

static void emit(int mode, const uint8_t *src, uint8_t *dst, uint32_t n, int spp, int rgb, int alphaType, int inv) {
    switch (mode) {
    case CY_TIFF_MODE_U8: emit_uint8_t(src, dst, n, spp, rgb, alphaType, inv); break;
    case CY_TIFF_MODE_U16: emit_uint16_t((const uint16_t *)src, (uint16_t *)dst, n, spp, rgb, alphaType, inv); break;
    default: emit_float_t_((const float *)src, (float *)dst, n, spp, rgb, alphaType, inv); break;
    }
}

// Associated (premultiplied) alpha -> straight.
static void unpremultiply(int mode, void *px, size_t count) {
    if (mode == CY_TIFF_MODE_U8 || mode == CY_TIFF_MODE_RGBA8) {
        uint8_t *p = px;
        for (size_t i = 0; i < count; i++, p += 4) {
            unsigned a = p[3];
            if (a == 0 || a == 255) continue;
            for (int c = 0; c < 3; c++) { unsigned v = (p[c] * 255u + a / 2) / a; p[c] = v > 255 ? 255 : (uint8_t)v; }
        }
    } else if (mode == CY_TIFF_MODE_U16) {
        uint16_t *p = px;
        for (size_t i = 0; i < count; i++, p += 4) {
            uint32_t a = p[3];
            if (a == 0 || a == 65535) continue;
            for (int c = 0; c < 3; c++) { uint32_t v = (p[c] * 65535u + a / 2) / a; p[c] = v > 65535 ? 65535 : (uint16_t)v; }
        }
    } else {
        float *p = px;
        for (size_t i = 0; i < count; i++, p += 4) {
            float a = p[3];
            if (a > 0 && a != 1) { p[0] /= a; p[1] /= a; p[2] /= a; }
        }
    }
}

static int readFailure(cy_tiff_reader *r, const char *what, uint32_t index, uint32_t count) {
    char lib[256];
    snprintf(lib, sizeof lib, "%s", r->message);
    if (lib[0]) snprintf(r->message, sizeof r->message, "%s %u of %u: %s", what, index + 1, count, lib);
    else snprintf(r->message, sizeof r->message, "%s %u of %u could not be decoded", what, index + 1, count);
    return CY_TIFF_ERR_READ;
}

int cy_tiff_decode(cy_tiff_reader *r, int mode, void *out, size_t outBytes, int strict, uint32_t *rowsDone) {
    *rowsDone = 0;
    if (!r->tif) return CY_TIFF_ERR_OPEN;
    cy_tiff_info info;
    int rc = cy_tiff_get_info(r, &info);
    if (rc) return rc;
    if (mode != info.mode || mode == 0) return CY_TIFF_ERR_UNSUPPORTED;
    size_t bytesPerSample = mode == CY_TIFF_MODE_U16 ? 2 : mode == CY_TIFF_MODE_F32 ? 4 : 1;
    uint64_t need = (uint64_t)info.width * info.height * 4 * bytesPerSample;
    if (info.width == 0 || info.height == 0 || need > outBytes) return CY_TIFF_ERR_ARG;
    TIFF *t = r->tif;
    size_t outRow = (size_t)info.width * 4 * bytesPerSample;

    if (mode == CY_TIFF_MODE_RGBA8) {
        // libtiff's RGBA interface; it flips rows/columns toward top-left itself, which we undo
        // so the pixels stay as stored (the caller applies the orientation).
        if (!TIFFReadRGBAImageOriented(t, info.width, info.height, out, ORIENTATION_TOPLEFT, 0)) {
            if (strict) return readFailure(r, "image", 0, 1);
        }
        int o = info.orientation;
        int flipH = o == 2 || o == 3 || o == 6 || o == 7;
        int flipV = o == 3 || o == 4 || o == 7 || o == 8;
        uint32_t *p = out;
        if (flipH) for (uint32_t y = 0; y < info.height; y++) {
            uint32_t *row = p + (size_t)y * info.width;
            for (uint32_t a = 0, b = info.width - 1; a < b; a++, b--) { uint32_t tmp = row[a]; row[a] = row[b]; row[b] = tmp; }
        }
        if (flipV) for (uint32_t a = 0, b = info.height - 1; a < b; a++, b--) {
            uint32_t *ra = p + (size_t)a * info.width, *rb = p + (size_t)b * info.width;
            for (uint32_t x = 0; x < info.width; x++) { uint32_t tmp = ra[x]; ra[x] = rb[x]; rb[x] = tmp; }
        }
        size_t count = (size_t)info.width * info.height;
        for (size_t i = 0; i < count; i++) {  // packed ABGR words -> R,G,B,A bytes on any endianness
            uint32_t v = p[i];
            uint8_t *b = (uint8_t *)(p + i);
            b[0] = (uint8_t)TIFFGetR(v); b[1] = (uint8_t)TIFFGetG(v); b[2] = (uint8_t)TIFFGetB(v); b[3] = (uint8_t)TIFFGetA(v);
        }
        if (info.extraSamples) unpremultiply(mode, out, count);
        *rowsDone = info.height;
        return CY_TIFF_OK;
    }

    int rgb = info.photometric == PHOTOMETRIC_RGB;
    int alphaType = info.extraSamples && info.samplesPerPixel > (rgb ? 3 : 1) ? info.alphaType : 0;
    int inv = info.photometric == PHOTOMETRIC_MINISWHITE;
    int spp = info.samplesPerPixel;
    size_t pixelBytes = (size_t)spp * bytesPerSample;
    uint8_t *dst = out;
    if (!info.tiled) {
        tmsize_t stripSize = TIFFStripSize(t);
        uint32_t rps = 0;
        TIFFGetFieldDefaulted(t, TIFFTAG_ROWSPERSTRIP, &rps);
        if (rps == 0 || rps > info.height) rps = info.height;
        if (stripSize <= 0 || (r->maxAlloc > 0 && stripSize > r->maxAlloc)) {
            snprintf(r->message, sizeof r->message, "strip size %lld is invalid or above the limit", (long long)stripSize);
            return CY_TIFF_ERR_NOMEM;
        }
        uint8_t *buf = malloc((size_t)stripSize);
        if (!buf) return CY_TIFF_ERR_NOMEM;
        for (uint32_t row = 0; row < info.height; row += rps) {
            uint32_t nrows = info.height - row < rps ? info.height - row : rps;
            uint32_t strip = TIFFComputeStrip(t, row, 0);
            tmsize_t want = (tmsize_t)((size_t)nrows * info.width * pixelBytes);
            tmsize_t got = TIFFReadEncodedStrip(t, strip, buf, want);
            if (got < want) {
                free(buf);
                if (strict || *rowsDone == 0) return readFailure(r, "strip", strip, TIFFNumberOfStrips(t));
                return CY_TIFF_OK;
            }
            for (uint32_t k = 0; k < nrows; k++)
                emit(mode, buf + (size_t)k * info.width * pixelBytes, dst + (size_t)(row + k) * outRow, info.width, spp, rgb, alphaType, inv);
            *rowsDone = row + nrows;
        }
        free(buf);
    } else {
        uint32_t tw = 0, th = 0;
        TIFFGetField(t, TIFFTAG_TILEWIDTH, &tw);
        TIFFGetField(t, TIFFTAG_TILELENGTH, &th);
        tmsize_t tileSize = TIFFTileSize(t);
        if (tw == 0 || th == 0 || tileSize <= 0 || (r->maxAlloc > 0 && tileSize > r->maxAlloc) ||
            (uint64_t)tw * th * pixelBytes > (uint64_t)tileSize) {
            snprintf(r->message, sizeof r->message, "tile size %ux%u is invalid or above the limit", tw, th);
            return CY_TIFF_ERR_NOMEM;
        }
        uint8_t *buf = malloc((size_t)tileSize);
        if (!buf) return CY_TIFF_ERR_NOMEM;
        for (uint32_t y = 0; y < info.height; y += th) {
            for (uint32_t x = 0; x < info.width; x += tw) {
                uint32_t tile = TIFFComputeTile(t, x, y, 0, 0);
                if (TIFFReadEncodedTile(t, tile, buf, tileSize) < 0) {
                    free(buf);
                    if (strict || *rowsDone == 0) return readFailure(r, "tile", tile, TIFFNumberOfTiles(t));
                    return CY_TIFF_OK;
                }
                uint32_t nx = info.width - x < tw ? info.width - x : tw;
                uint32_t ny = info.height - y < th ? info.height - y : th;
                for (uint32_t k = 0; k < ny; k++)
                    emit(mode, buf + (size_t)k * tw * pixelBytes, dst + (size_t)(y + k) * outRow + (size_t)x * 4 * bytesPerSample,
                         nx, spp, rgb, alphaType, inv);
            }
            *rowsDone = (y + th) < info.height ? y + th : info.height;
        }
        free(buf);
    }
    if (alphaType == 1) unpremultiply(mode, out, (size_t)info.width * *rowsDone);
    return CY_TIFF_OK;
}

int cy_tiff_read_rows(cy_tiff_reader *r, int mode, void *out, size_t outRowBytes, uint32_t first, uint32_t count) {
    if (!r->tif) return CY_TIFF_ERR_OPEN;
    cy_tiff_info info;
    int rc = cy_tiff_get_info(r, &info);
    if (rc) return rc;
    if (mode != info.mode || (mode != CY_TIFF_MODE_U8 && mode != CY_TIFF_MODE_U16)) return CY_TIFF_ERR_UNSUPPORTED;
    size_t bytesPerSample = mode == CY_TIFF_MODE_U16 ? 2 : 1;
    if (info.width == 0 || info.height == 0 || first > info.height || count > info.height - first ||
        outRowBytes < (size_t)info.width * 4 * bytesPerSample)
        return CY_TIFF_ERR_ARG;
    TIFF *t = r->tif;
    int rgb = info.photometric == PHOTOMETRIC_RGB;
    int alphaType = info.extraSamples && info.samplesPerPixel > (rgb ? 3 : 1) ? info.alphaType : 0;
    int inv = info.photometric == PHOTOMETRIC_MINISWHITE;
    int spp = info.samplesPerPixel;
    size_t pixelBytes = (size_t)spp * bytesPerSample;
    uint32_t bandHeight = 0, tw = 0, th = 0;
    tmsize_t pieceSize = 0;  // one strip, or one tile
    if (!info.tiled) {
        TIFFGetFieldDefaulted(t, TIFFTAG_ROWSPERSTRIP, &bandHeight);
        if (bandHeight == 0 || bandHeight > info.height) bandHeight = info.height;
        pieceSize = TIFFStripSize(t);
    } else {
        TIFFGetField(t, TIFFTAG_TILEWIDTH, &tw);
        TIFFGetField(t, TIFFTAG_TILELENGTH, &th);
        pieceSize = TIFFTileSize(t);
        bandHeight = th;
        if (tw == 0 || th == 0 || (uint64_t)tw * th * pixelBytes > (uint64_t)pieceSize) pieceSize = 0;
    }
    uint32_t across = info.tiled ? (info.width + tw - 1) / tw : 1;
    uint64_t bandBytes = (uint64_t)(pieceSize > 0 ? pieceSize : 0) * across;
    if (pieceSize <= 0 || (r->maxAlloc > 0 && bandBytes > (uint64_t)r->maxAlloc) || bandBytes > SIZE_MAX) {
        snprintf(r->message, sizeof r->message, "%s size is invalid or above the limit", info.tiled ? "tile" : "strip");
        return CY_TIFF_ERR_NOMEM;
    }
    if (r->bandCapacity < bandBytes) {
        free(r->band);
        r->band = malloc((size_t)bandBytes);
        r->bandCapacity = r->band ? (size_t)bandBytes : 0;
        r->bandValid = 0;
        if (!r->band) return CY_TIFF_ERR_NOMEM;
    }
    uint8_t *dst = out;
    for (uint32_t y = first; y < first + count; y++, dst += outRowBytes) {
        if (!r->bandValid || y < r->bandFirst || y >= r->bandFirst + r->bandRows) {
            uint32_t top = y / bandHeight * bandHeight;
            uint32_t rows = info.height - top < bandHeight ? info.height - top : bandHeight;
            r->bandValid = 0;
            if (!info.tiled) {
                uint32_t strip = TIFFComputeStrip(t, top, 0);
                tmsize_t want = (tmsize_t)((size_t)rows * info.width * pixelBytes);
                if (TIFFReadEncodedStrip(t, strip, r->band, want) < want) return readFailure(r, "strip", strip, TIFFNumberOfStrips(t));
            } else {
                for (uint32_t i = 0; i < across; i++) {
                    uint32_t tile = TIFFComputeTile(t, i * tw, top, 0, 0);
                    if (TIFFReadEncodedTile(t, tile, r->band + (size_t)i * pieceSize, pieceSize) < 0)
                        return readFailure(r, "tile", tile, TIFFNumberOfTiles(t));
                }
            }
            r->bandFirst = top;
            r->bandRows = rows;
            r->bandValid = 1;
        }
        uint32_t k = y - r->bandFirst;
        if (!info.tiled) {
            emit(mode, r->band + (size_t)k * info.width * pixelBytes, dst, info.width, spp, rgb, alphaType, inv);
        } else {
            for (uint32_t i = 0; i < across; i++) {
                uint32_t x = i * tw, nx = info.width - x < tw ? info.width - x : tw;
                emit(mode, r->band + (size_t)i * pieceSize + (size_t)k * tw * pixelBytes, dst + (size_t)x * 4 * bytesPerSample, nx, spp,
                     rgb, alphaType, inv);
            }
        }
        if (alphaType == 1) unpremultiply(mode, dst, info.width);
    }
    return CY_TIFF_OK;
}

// Memory I/O for writing: a growable buffer with seeks (libtiff rewrites the directory).
typedef struct { uint8_t *buf; size_t size, cap, pos; int failed; } memout;

static tmsize_t wWrite(thandle_t h, void *src, tmsize_t n) {
    memout *m = (memout *)h;
    if (n < 0) return -1;
    size_t end = m->pos + (size_t)n;
    if (end > m->cap) {
        size_t cap = m->cap ? m->cap : 65536;
        while (cap < end) cap *= 2;
        uint8_t *nb = realloc(m->buf, cap);
        if (!nb) { m->failed = 1; return -1; }
        memset(nb + m->cap, 0, cap - m->cap);
        m->buf = nb;
        m->cap = cap;
    }
    memcpy(m->buf + m->pos, src, (size_t)n);
    m->pos = end;
    if (end > m->size) m->size = end;
    return n;
}
static tmsize_t wRead(thandle_t h, void *dst, tmsize_t n) {
    memout *m = (memout *)h;
    if (n < 0) return -1;
    size_t avail = m->pos < m->size ? m->size - m->pos : 0;
    size_t k = (size_t)n < avail ? (size_t)n : avail;
    memcpy(dst, m->buf + m->pos, k);
    m->pos += k;
    return (tmsize_t)k;
}
static toff_t wSeek(thandle_t h, toff_t off, int whence) {
    memout *m = (memout *)h;
    uint64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? m->pos : m->size;
    m->pos = (size_t)(base + off);
    return m->pos;
}
static int wClose(thandle_t h) { (void)h; return 0; }
static toff_t wSize(thandle_t h) { return ((memout *)h)->size; }
static int wMap(thandle_t h, void **b, toff_t *s) { (void)h; (void)b; (void)s; return 0; }
static void wUnmap(thandle_t h, void *b, toff_t s) { (void)h; (void)b; (void)s; }

void cy_tiff_free(void *p) { free(p); }

// What both writers (one image, and page by page) accept: 1-4 channels (grey, grey + alpha,
// RGB, RGBA) of 8, 16 or 32-bit (float) samples; no, LZW or Deflate compression; EXIF orientations.
static int validImageParameters(uint32_t width, uint32_t height, int channels, int bits, int compression, int orientation) {
    return width > 0 && height > 0 && channels >= 1 && channels <= 4 && (bits == 8 || bits == 16 || bits == 32) &&
           (compression == 1 || compression == 5 || compression == 8) && orientation >= 1 && orientation <= 8;
}

// The tags of one image (or page): size, samples, colour model, orientation, compression with
// its predictor, unassociated alpha, the ICC profile and the resolution.
static void setImageTags(TIFF *t, uint32_t width, uint32_t height, int channels, int bits, int compression, int orientation,
                         const void *icc, uint32_t iccLength, double dpi) {
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, width);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, height);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)channels);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, (uint16_t)bits);
    TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, (uint16_t)(bits == 32 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT));
    // 1 or 2 channels: grey (and alpha), 3 or 4: RGB (and alpha).
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, (uint16_t)(channels <= 2 ? PHOTOMETRIC_MINISBLACK : PHOTOMETRIC_RGB));
    TIFFSetField(t, TIFFTAG_PLANARCONFIG, (uint16_t)PLANARCONFIG_CONTIG);
    TIFFSetField(t, TIFFTAG_ORIENTATION, (uint16_t)orientation);
    TIFFSetField(t, TIFFTAG_COMPRESSION, (uint16_t)compression);
    if (compression != 1)
        TIFFSetField(t, TIFFTAG_PREDICTOR, (uint16_t)(bits == 32 ? PREDICTOR_FLOATINGPOINT : PREDICTOR_HORIZONTAL));
    if (channels == 2 || channels == 4) {
        uint16_t extra = EXTRASAMPLE_UNASSALPHA;
        TIFFSetField(t, TIFFTAG_EXTRASAMPLES, (uint16_t)1, &extra);
    }
    if (icc && iccLength) TIFFSetField(t, TIFFTAG_ICCPROFILE, iccLength, icc);
    if (dpi > 0) {
        TIFFSetField(t, TIFFTAG_XRESOLUTION, (float)dpi);
        TIFFSetField(t, TIFFTAG_YRESOLUTION, (float)dpi);
        TIFFSetField(t, TIFFTAG_RESOLUTIONUNIT, (uint16_t)RESUNIT_INCH);
    }
}

// MARK: - One image written as its rows arrive

// libtiff writes through these callbacks: bytes at the end are appended to the caller's
// output, bytes before it (the header's directory offset, a directory written into the gap
// left before its values) overwrite what is there, and a write past the end fills the gap
// with zeros first. Strips are appended as they fill, so only a strip is ever held.
struct cy_tiff_stream {
    cy_tiff_output out;
    uint64_t pos, size;
    int failed;
    TIFF *t;
    uint32_t height, next;
    char msg[256];
};

static tmsize_t sWrite(thandle_t h, void *src, tmsize_t n) {
    cy_tiff_stream *s = (cy_tiff_stream *)h;
    if (n < 0 || s->failed) return -1;
    const uint8_t *p = src;
    uint64_t end = s->pos + (uint64_t)n;
    // The part over bytes already written.
    if (s->pos < s->size) {
        uint64_t k = end < s->size ? (uint64_t)n : s->size - s->pos;
        if (s->out.patch(s->out.context, s->pos, p, (size_t)k) != 0) { s->failed = 1; return -1; }
        p += k;
        s->pos += k;
    }
    // A gap between the end and the write: zeros.
    static const uint8_t zeros[4096];
    while (s->pos > s->size) {
        uint64_t gap = s->pos - s->size;
        size_t k = gap < sizeof zeros ? (size_t)gap : sizeof zeros;
        if (s->out.append(s->out.context, zeros, k) != 0) { s->failed = 1; return -1; }
        s->size += k;
    }
    if (s->pos < end) {
        if (s->out.append(s->out.context, p, (size_t)(end - s->pos)) != 0) { s->failed = 1; return -1; }
        s->pos = end;
    }
    if (s->pos > s->size) s->size = s->pos;
    return n;
}
static tmsize_t sRead(thandle_t h, void *dst, tmsize_t n) {
    cy_tiff_stream *s = (cy_tiff_stream *)h;
    if (n < 0) return -1;
    uint64_t avail = s->pos < s->size ? s->size - s->pos : 0;
    size_t k = (uint64_t)n < avail ? (size_t)n : (size_t)avail;
    if (k == 0) return 0;
    int64_t got = s->out.read(s->out.context, s->pos, dst, k);
    if (got < 0) return -1;
    s->pos += (uint64_t)got;
    return (tmsize_t)got;
}
static toff_t sSeek(thandle_t h, toff_t off, int whence) {
    cy_tiff_stream *s = (cy_tiff_stream *)h;
    uint64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? s->pos : s->size;
    s->pos = base + off;
    return s->pos;
}
static toff_t sSize(thandle_t h) { return ((cy_tiff_stream *)h)->size; }

cy_tiff_stream *cy_tiff_stream_create(cy_tiff_output output, uint32_t width, uint32_t height, int channels, int bits,
                                      int compression, int orientation, const void *icc, uint32_t iccLength, double dpi,
                                      char *message, size_t messageLength) {
    pthread_once(&quietOnce, quietGlobal);
    if (!output.append || !output.patch || !output.read ||
        !validImageParameters(width, height, channels, bits, compression, orientation)) {
        snprintf(message, messageLength, "unsupported TIFF encoding parameters");
        return NULL;
    }
    cy_tiff_stream *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(message, messageLength, "out of memory");
        return NULL;
    }
    s->out = output;
    s->height = height;
    TIFFOpenOptions *o = TIFFOpenOptionsAlloc();
    if (!o) { free(s); snprintf(message, messageLength, "out of memory"); return NULL; }
    TIFFOpenOptionsSetErrorHandlerExtR(o, onError, s->msg);
    TIFFOpenOptionsSetWarningHandlerExtR(o, onWarning, NULL);
    s->t = TIFFClientOpenExt("data", "wm", (thandle_t)s, sRead, sWrite, sSeek, wClose, sSize, wMap, wUnmap, o);
    TIFFOpenOptionsFree(o);
    if (!s->t) {
        snprintf(message, messageLength, "%s", s->msg[0] ? s->msg : "cannot start a TIFF writer");
        free(s);
        return NULL;
    }
    setImageTags(s->t, width, height, channels, bits, compression, orientation, icc, iccLength, dpi);
    TIFFSetField(s->t, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(s->t, 0));
    return s;
}

int cy_tiff_stream_write(cy_tiff_stream *s, void *rows, size_t rowBytes, uint32_t count, char *message, size_t messageLength) {
    if (!s || !s->t || count > s->height - s->next) {
        snprintf(message, messageLength, "more rows than the image has");
        return CY_TIFF_ERR_ARG;
    }
    for (uint32_t i = 0; i < count; i++, s->next++) {
        if (TIFFWriteScanline(s->t, (uint8_t *)rows + (size_t)i * rowBytes, s->next, 0) < 0 || s->failed) {
            snprintf(message, messageLength, "%s", s->msg[0] ? s->msg : "the TIFF writer failed");
            return s->failed ? CY_TIFF_ERR_WRITE : CY_TIFF_ERR_WRITE;
        }
    }
    return CY_TIFF_OK;
}

int cy_tiff_stream_finish(cy_tiff_stream *s, uint64_t *length, char *message, size_t messageLength) {
    *length = 0;
    if (!s || !s->t || s->next != s->height) {
        snprintf(message, messageLength, "%u of %u rows written", s ? s->next : 0, s ? s->height : 0);
        return CY_TIFF_ERR_ARG;
    }
    int rc = TIFFFlush(s->t) ? CY_TIFF_OK : CY_TIFF_ERR_WRITE;
    TIFFClose(s->t);
    s->t = NULL;
    if (s->failed) rc = CY_TIFF_ERR_WRITE;
    if (rc != CY_TIFF_OK) {
        snprintf(message, messageLength, "%s", s->msg[0] ? s->msg : "the TIFF writer failed");
        return rc;
    }
    *length = s->size;
    return CY_TIFF_OK;
}

void cy_tiff_stream_destroy(cy_tiff_stream *s) {
    if (!s) return;
    if (s->t) TIFFCleanup(s->t);  // an unfinished file, not flushed: what it wrote is the caller's to discard
    free(s);
}

// MARK: - Multi-page TIFF

int cy_tiff_set_directory(cy_tiff_reader *r, uint32_t index) {
    if (!r->tif) return CY_TIFF_ERR_OPEN;
    if (!TIFFSetDirectory(r->tif, (tdir_t)index)) {
        if (!r->message[0]) snprintf(r->message, sizeof r->message, "page %u cannot be read", index + 1);
        return CY_TIFF_ERR_OPEN;
    }
    return CY_TIFF_OK;
}

struct cy_tiff_writer {
    memout m;
    TIFF *t;
    char msg[256];
};

cy_tiff_writer *cy_tiff_writer_create(void) {
    pthread_once(&quietOnce, quietGlobal);
    cy_tiff_writer *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    TIFFOpenOptions *o = TIFFOpenOptionsAlloc();
    if (!o) { free(w); return NULL; }
    TIFFOpenOptionsSetErrorHandlerExtR(o, onError, w->msg);
    TIFFOpenOptionsSetWarningHandlerExtR(o, onWarning, NULL);
    w->t = TIFFClientOpenExt("data", "wm", (thandle_t)&w->m, wRead, wWrite, wSeek, wClose, wSize, wMap, wUnmap, o);
    TIFFOpenOptionsFree(o);
    if (!w->t) { free(w->m.buf); free(w); return NULL; }
    return w;
}

int cy_tiff_writer_add_page(cy_tiff_writer *w, const void *pixels, uint32_t width, uint32_t height, int channels, int bits,
                            int compression, int orientation, const void *icc, uint32_t iccLength, double dpi,
                            int pageNumber, int pageCount, char *message, size_t messageLength) {
    if (!w || !w->t || !pixels || !validImageParameters(width, height, channels, bits, compression, orientation)) {
        snprintf(message, messageLength, "unsupported TIFF encoding parameters");
        return CY_TIFF_ERR_ARG;
    }
    TIFF *t = w->t;
    setImageTags(t, width, height, channels, bits, compression, orientation, icc, iccLength, dpi);
    if (pageCount > 1) {
        TIFFSetField(t, TIFFTAG_SUBFILETYPE, (uint32_t)FILETYPE_PAGE);
        TIFFSetField(t, TIFFTAG_PAGENUMBER, (uint16_t)pageNumber, (uint16_t)pageCount);
    }
    TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(t, 0));
    size_t rowBytes = (size_t)width * channels * (bits / 8);
    uint8_t *row = malloc(rowBytes);  // libtiff may modify the row it is given (predictor)
    int rc = row ? CY_TIFF_OK : CY_TIFF_ERR_NOMEM;
    for (uint32_t y = 0; rc == CY_TIFF_OK && y < height; y++) {
        memcpy(row, (const uint8_t *)pixels + (size_t)y * rowBytes, rowBytes);
        if (TIFFWriteScanline(t, row, y, 0) < 0) rc = CY_TIFF_ERR_WRITE;
    }
    free(row);
    if (rc == CY_TIFF_OK && !TIFFWriteDirectory(t)) rc = CY_TIFF_ERR_WRITE;
    if (w->m.failed) rc = CY_TIFF_ERR_NOMEM;
    if (rc != CY_TIFF_OK) snprintf(message, messageLength, "%s", w->msg[0] ? w->msg : "the TIFF writer failed");
    return rc;
}

int cy_tiff_writer_finish(cy_tiff_writer *w, void **out, size_t *outLength, char *message, size_t messageLength) {
    *out = NULL;
    *outLength = 0;
    if (!w) return CY_TIFF_ERR_ARG;
    TIFFClose(w->t);
    w->t = NULL;
    int rc = w->m.failed ? CY_TIFF_ERR_NOMEM : (w->m.size == 0 ? CY_TIFF_ERR_WRITE : CY_TIFF_OK);
    if (rc != CY_TIFF_OK) {
        snprintf(message, messageLength, "%s", w->msg[0] ? w->msg : "the TIFF writer failed");
        free(w->m.buf);
    } else {
        *out = w->m.buf;
        *outLength = w->m.size;
    }
    free(w);
    return rc;
}

void cy_tiff_writer_destroy(cy_tiff_writer *w) {
    if (!w) return;
    if (w->t) TIFFClose(w->t);
    free(w->m.buf);
    free(w);
}
