// A JPEG encoder fed a band of rows at a time (libjpeg's scanline API), so a renderer can
// encode the top of an image while it is still computing the rest. libjpeg reports errors
// by calling error_exit, which must not return: it longjmps back into the shim call that
// failed, which returns an error code with the message.
#include "include/CCodecShims.h"
#include <stdio.h>
#include <jpeglib.h>
#include <jerror.h>
#include <setjmp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pthread.h>

// The output buffer is ours (not jpeg_mem_dest's, which frees and replaces its buffer as it
// grows and only reports the live one at the end): an encoder destroyed before it finished
// frees exactly what it holds.
struct cy_destination {
    struct jpeg_destination_mgr pub;
    unsigned char *buffer;
    size_t capacity;
};

struct cy_jpeg_encoder {
    struct jpeg_compress_struct cinfo;
    struct jpeg_error_mgr jerr;
    struct cy_destination dest;
    jmp_buf escape;
    char message[JMSG_LENGTH_MAX];
    int started, finished;
};

static void cy_init_destination(j_compress_ptr cinfo) { (void)cinfo; }
static boolean cy_empty_output_buffer(j_compress_ptr cinfo) {
    struct cy_destination *d = (struct cy_destination *)cinfo->dest;
    size_t grown = d->capacity * 2;
    unsigned char *b = realloc(d->buffer, grown);
    if (!b) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 99);
    d->pub.next_output_byte = b + d->capacity;
    d->pub.free_in_buffer = grown - d->capacity;
    d->buffer = b;
    d->capacity = grown;
    return TRUE;
}
static void cy_term_destination(j_compress_ptr cinfo) { (void)cinfo; }

static void cy_error_exit(j_common_ptr cinfo) {
    struct cy_jpeg_encoder *e = (struct cy_jpeg_encoder *)cinfo->client_data;
    (*cinfo->err->format_message)(cinfo, e->message);
    longjmp(e->escape, 1);
}
static void cy_output_message(j_common_ptr cinfo) { (void)cinfo; }  // warnings: silent

cy_jpeg_encoder *cy_jpeg_encoder_create(int width, int height, int quality, int subsampling, int progressive) {
    return cy_jpeg_encoder_create_input(width, height, quality, subsampling, progressive, CY_JPEG_INPUT_RGBA8);
}

// Y'CbCr input (CY_JPEG_INPUT_YCBCR8) goes through libjpeg's null colour conversion: the
// file's samples are the rows' own, downsampled as for RGB input.
cy_jpeg_encoder *cy_jpeg_encoder_create_input(int width, int height, int quality, int subsampling, int progressive, int input) {
    if (input != CY_JPEG_INPUT_RGBA8 && input != CY_JPEG_INPUT_YCBCR8 && input != CY_JPEG_INPUT_PLANES) return NULL;
    if (width <= 0 || height <= 0 || width > 65500 || height > 65500) return NULL;
    struct cy_jpeg_encoder *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->cinfo.err = jpeg_std_error(&e->jerr);
    e->jerr.error_exit = cy_error_exit;
    e->jerr.output_message = cy_output_message;
    e->cinfo.client_data = e;
    if (setjmp(e->escape)) {
        jpeg_destroy_compress(&e->cinfo);
        free(e->dest.buffer);
        free(e);
        return NULL;
    }
    jpeg_create_compress(&e->cinfo);
    e->dest.capacity = 1 << 16;
    e->dest.buffer = malloc(e->dest.capacity);
    if (!e->dest.buffer) ERREXIT1(&e->cinfo, JERR_OUT_OF_MEMORY, 98);
    e->dest.pub.init_destination = cy_init_destination;
    e->dest.pub.empty_output_buffer = cy_empty_output_buffer;
    e->dest.pub.term_destination = cy_term_destination;
    e->dest.pub.next_output_byte = e->dest.buffer;
    e->dest.pub.free_in_buffer = e->dest.capacity;
    e->cinfo.dest = &e->dest.pub;
    e->cinfo.image_width = (JDIMENSION)width;
    e->cinfo.image_height = (JDIMENSION)height;
    e->cinfo.input_components = input == CY_JPEG_INPUT_RGBA8 ? 4 : 3;
    e->cinfo.in_color_space = input == CY_JPEG_INPUT_RGBA8 ? JCS_EXT_RGBA : JCS_YCbCr;
    jpeg_set_defaults(&e->cinfo);
    // What TurboJPEG's tjCompress2 does with TJFLAG_ACCURATEDCT: the same bytes.
    jpeg_set_quality(&e->cinfo, quality < 1 ? 1 : (quality > 100 ? 100 : quality), TRUE);
    e->cinfo.dct_method = JDCT_ISLOW;
    e->cinfo.comp_info[0].h_samp_factor = subsampling == CY_JPEG_444 ? 1 : 2;
    e->cinfo.comp_info[0].v_samp_factor = subsampling == CY_JPEG_420 ? 2 : 1;
    for (int c = 1; c < 3; c++) { e->cinfo.comp_info[c].h_samp_factor = 1; e->cinfo.comp_info[c].v_samp_factor = 1; }
    if (progressive) jpeg_simple_progression(&e->cinfo);
    e->cinfo.raw_data_in = input == CY_JPEG_INPUT_PLANES ? TRUE : FALSE;
    jpeg_start_compress(&e->cinfo, TRUE);
    e->started = 1;
    return e;
}

int cy_jpeg_encoder_write_planes(cy_jpeg_encoder *e, uint8_t *const *y, uint8_t *const *cb, uint8_t *const *cr, char *message,
                                 size_t messageSize) {
    if (!e || !e->started || e->finished || !e->cinfo.raw_data_in) return -1;
    if (setjmp(e->escape)) {
        if (message && messageSize) snprintf(message, messageSize, "%s", e->message);
        return -1;
    }
    JSAMPARRAY planes[3] = {(JSAMPARRAY)y, (JSAMPARRAY)cb, (JSAMPARRAY)cr};
    JDIMENSION rows = (JDIMENSION)(e->cinfo.max_v_samp_factor * DCTSIZE);
    if (jpeg_write_raw_data(&e->cinfo, planes, rows) != rows) {
        if (message && messageSize) snprintf(message, messageSize, "JPEG: rows refused");
        return -1;
    }
    return 0;
}

int cy_jpeg_encoder_write(cy_jpeg_encoder *e, const uint8_t *rows, size_t rowBytes, int count, char *message, size_t messageSize) {
    if (!e || !e->started || e->finished) return -1;
    if (setjmp(e->escape)) {
        if (message && messageSize) snprintf(message, messageSize, "%s", e->message);
        return -1;
    }
    for (int i = 0; i < count; i++) {
        JSAMPROW row = (JSAMPROW)(rows + (size_t)i * rowBytes);
        if (jpeg_write_scanlines(&e->cinfo, &row, 1) != 1) {
            if (message && messageSize) snprintf(message, messageSize, "JPEG: scanline refused");
            return -1;
        }
    }
    return 0;
}

int cy_jpeg_encoder_finish(cy_jpeg_encoder *e, const uint8_t **bytes, size_t *size, char *message, size_t messageSize) {
    if (!e || !e->started) return -1;
    if (setjmp(e->escape)) {
        if (message && messageSize) snprintf(message, messageSize, "%s", e->message);
        return -1;
    }
    if (!e->finished) {
        jpeg_finish_compress(&e->cinfo);
        e->finished = 1;
    }
    *bytes = e->dest.buffer;
    *size = e->dest.capacity - e->dest.pub.free_in_buffer;
    return 0;
}

void cy_jpeg_encoder_destroy(cy_jpeg_encoder *e) {
    if (!e) return;
    jpeg_destroy_compress(&e->cinfo);
    free(e->dest.buffer);
    free(e);
}

// ---------------------------------------------------------------------------------------
// A JPEG decoder handing out RGBA8 rows a band at a time, so rendering can start on the top
// of an image while the rest decodes. Same settings as TurboJPEG's tjDecompress2 to RGBA
// (accurate integer IDCT, fancy upsampling), hence the same pixels. Warnings (corrupt or
// truncated data) are errors when `strict`, as TJFLAG_STOPONWARNING makes them.

struct cy_jpeg_decoder {
    struct jpeg_decompress_struct dinfo;
    struct jpeg_error_mgr jerr;
    struct jpeg_progress_mgr progress;
    jmp_buf escape;
    char message[JMSG_LENGTH_MAX];
    int strict, started;
    const uint8_t *base;  // where the compressed bytes lie now (NULL when read from a file)
    size_t size;
    struct cy_file_source *file;  // the file the bytes are read from, or NULL
};

// The compressed bytes read from a file a buffer at a time (pread), so a decode holds 64 KiB of
// the file rather than all of it. Past the end (a file cut short) it inserts an EOI marker with
// libjpeg's premature-end warning, as libjpeg's own memory and stdio sources do.
struct cy_file_source {
    struct jpeg_source_mgr pub;
    int fd;
    off_t offset;
    int failed;  // a read error (not the end of the file)
    JOCTET buffer[1 << 16];
};

static void cy_fs_init(j_decompress_ptr cinfo) { (void)cinfo; }
static boolean cy_fs_fill(j_decompress_ptr cinfo) {
    struct cy_file_source *s = (struct cy_file_source *)cinfo->src;
    ssize_t n;
    do { n = pread(s->fd, s->buffer, sizeof s->buffer, s->offset); } while (n < 0 && errno == EINTR);
    if (n < 0) {
        s->failed = errno;
        ERREXIT(cinfo, JERR_FILE_READ);
    }
    if (n == 0) {
        WARNMS(cinfo, JWRN_JPEG_EOF);
        s->buffer[0] = (JOCTET)0xFF;
        s->buffer[1] = (JOCTET)JPEG_EOI;
        n = 2;
    } else {
        s->offset += n;
    }
    s->pub.next_input_byte = s->buffer;
    s->pub.bytes_in_buffer = (size_t)n;
    return TRUE;
}
static void cy_fs_skip(j_decompress_ptr cinfo, long count) {
    struct cy_file_source *s = (struct cy_file_source *)cinfo->src;
    if (count <= 0) return;
    if ((size_t)count <= s->pub.bytes_in_buffer) {
        s->pub.next_input_byte += count;
        s->pub.bytes_in_buffer -= (size_t)count;
        return;
    }
    s->offset += (off_t)((size_t)count - s->pub.bytes_in_buffer);
    s->pub.bytes_in_buffer = 0;
}
static void cy_fs_term(j_decompress_ptr cinfo) { (void)cinfo; }

static void cy_d_error_exit(j_common_ptr cinfo) {
    struct cy_jpeg_decoder *d = (struct cy_jpeg_decoder *)cinfo->client_data;
    (*cinfo->err->format_message)(cinfo, d->message);
    longjmp(d->escape, 1);
}
static void cy_d_emit_message(j_common_ptr cinfo, int level) {
    struct cy_jpeg_decoder *d = (struct cy_jpeg_decoder *)cinfo->client_data;
    if (level < 0 && d->strict) {
        (*cinfo->err->format_message)(cinfo, d->message);
        longjmp(d->escape, 1);
    }
}

cy_jpeg_decoder *cy_jpeg_decoder_create(const uint8_t *data, size_t size, int strict, int *width, int *height,
                                        char *message, size_t messageSize) {
    return cy_jpeg_decoder_create_scaled(data, size, strict, 1, width, height, message, messageSize);
}

// As cy_jpeg_decoder_create, decoding at 1/scaleDenom (1, 2, 4 or 8) in the IDCT: libjpeg's
// scale_num/scale_denom, the pixels tjDecompress2 gives for the same scaling factor.
// A zeroed decoder whose libjpeg errors come back to it (`cy_d_error_exit` jumps to its
// `escape`, which each caller sets with its own setjmp); NULL when out of memory.
static cy_jpeg_decoder *cy_jpeg_decoder_new(int strict) {
    struct cy_jpeg_decoder *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->strict = strict;
    d->dinfo.err = jpeg_std_error(&d->jerr);
    d->jerr.error_exit = cy_d_error_exit;
    d->jerr.emit_message = cy_d_emit_message;
    d->jerr.output_message = cy_output_message;
    d->dinfo.client_data = d;
    return d;
}

// Starts a decoder over the bytes in memory (`data`, `size`) or, when `file` is set, in it.
/* Points the decoder at its compressed bytes: the file source when reading a file as it
   decodes, else the bytes in memory. */
static void cy_jpeg_decoder_set_source(cy_jpeg_decoder *d, const uint8_t *data, size_t size, struct cy_file_source *file) {
    if (file) {
        file->pub.init_source = cy_fs_init;
        file->pub.fill_input_buffer = cy_fs_fill;
        file->pub.skip_input_data = cy_fs_skip;
        file->pub.resync_to_restart = jpeg_resync_to_restart;
        file->pub.term_source = cy_fs_term;
        d->dinfo.src = &file->pub;
    } else {
        d->base = data;
        d->size = size;
        jpeg_mem_src(&d->dinfo, data, (unsigned long)size);
    }
}

static cy_jpeg_decoder *cy_jpeg_decoder_start(const uint8_t *data, size_t size, struct cy_file_source *file, int strict, int scaleDenom,
                                              int *width, int *height, char *message, size_t messageSize) {
    if (scaleDenom != 1 && scaleDenom != 2 && scaleDenom != 4 && scaleDenom != 8) {
        if (message && messageSize) snprintf(message, messageSize, "JPEG: unsupported scale 1/%d", scaleDenom);
        return NULL;
    }
    struct cy_jpeg_decoder *d = cy_jpeg_decoder_new(strict);
    if (!d) return NULL;
    d->file = file;
    if (setjmp(d->escape)) {
        if (message && messageSize) snprintf(message, messageSize, "%s", d->message);
        d->file = NULL;  // the caller closes it
        cy_jpeg_decoder_destroy(d);
        return NULL;
    }
    jpeg_create_decompress(&d->dinfo);
    cy_jpeg_decoder_set_source(d, data, size, file);
    jpeg_read_header(&d->dinfo, TRUE);
    d->dinfo.out_color_space = JCS_EXT_RGBA;
    d->dinfo.dct_method = JDCT_ISLOW;
    d->dinfo.do_fancy_upsampling = TRUE;
    d->dinfo.scale_num = 1;
    d->dinfo.scale_denom = (unsigned int)scaleDenom;
    jpeg_start_decompress(&d->dinfo);
    d->started = 1;
    *width = (int)d->dinfo.output_width;
    *height = (int)d->dinfo.output_height;
    return d;
}

cy_jpeg_decoder *cy_jpeg_decoder_create_scaled(const uint8_t *data, size_t size, int strict, int scaleDenom, int *width,
                                               int *height, char *message, size_t messageSize) {
    return cy_jpeg_decoder_start(data, size, NULL, strict, scaleDenom, width, height, message, messageSize);
}

cy_jpeg_decoder *cy_jpeg_decoder_create_fd(int fd, int strict, int scaleDenom, int *width, int *height, char *message,
                                           size_t messageSize) {
    struct cy_file_source *file = calloc(1, sizeof *file);
    if (!file) {
        close(fd);
        if (message && messageSize) snprintf(message, messageSize, "JPEG: out of memory");
        return NULL;
    }
    file->fd = fd;
    cy_jpeg_decoder *d = cy_jpeg_decoder_start(NULL, 0, file, strict, scaleDenom, width, height, message, messageSize);
    if (!d) {
        close(fd);
        free(file);
    }
    return d;
}

int cy_jpeg_decoder_read(cy_jpeg_decoder *d, uint8_t *rows, size_t rowBytes, int count, char *message, size_t messageSize) {
    if (!d || !d->started) return -1;
    if (setjmp(d->escape)) {
        if (message && messageSize) snprintf(message, messageSize, "%s", d->message);
        return -1;
    }
    for (int i = 0; i < count; i++) {
        JSAMPROW row = (JSAMPROW)(rows + (size_t)i * rowBytes);
        if (jpeg_read_scanlines(&d->dinfo, &row, 1) != 1) {
            if (message && messageSize) snprintf(message, messageSize, "Premature end of JPEG data");
            return -1;
        }
    }
    return 0;
}

// The memory source reads through next_input_byte alone; past the end it points at a fake
// EOI marker of its own, which stays where it is.
int cy_jpeg_decoder_rebase(cy_jpeg_decoder *d, const uint8_t *data, size_t size) {
    if (!d || d->file || size != d->size || !data) return -1;
    struct jpeg_source_mgr *src = d->dinfo.src;
    uintptr_t at = (uintptr_t)(src ? src->next_input_byte : NULL), from = (uintptr_t)d->base;
    if (src && at >= from && at - from <= d->size) src->next_input_byte = data + (at - from);
    d->base = data;
    return 0;
}

void cy_jpeg_decoder_destroy(cy_jpeg_decoder *d) {
    if (!d) return;
    jpeg_destroy_decompress(&d->dinfo);
    if (d->file) {
        close(d->file->fd);
        free(d->file);
    }
    free(d);
}

// ---------------------------------------------------------------------------------------
// A whole JPEG (progressive too) decoded to its Y, Cb and Cr planes as stored (libjpeg's
// raw_data_out: no upsampling, no colour conversion), 1.5 bytes a pixel at 4:2:0 instead of
// RGBA's 4. Same decoder structure and error handling as the row decoder above.

// As TurboJPEG's TJFLAG_LIMITSCANS: a progressive file of more than 500 scans is refused (a
// crafted file can make each scan cost a pass over the whole coefficient image).
static void cy_d_limit_scans(j_common_ptr cinfo) {
    struct cy_jpeg_decoder *d = (struct cy_jpeg_decoder *)cinfo->client_data;
    if (cinfo->is_decompressor && ((j_decompress_ptr)cinfo)->input_scan_number > 500) {
        snprintf(d->message, sizeof d->message, "Progressive JPEG image has more than 500 scans");
        longjmp(d->escape, 1);
    }
}

// Starts a planar decode over the bytes in memory or, when `file` is set, in it (the decoder
// then owns it: destroy closes it).
static int cy_jpeg_planar_start(const uint8_t *data, size_t size, struct cy_file_source *file, int strict, cy_jpeg_planar_info *info,
                                cy_jpeg_decoder **out, char *message, size_t messageSize) {
    *out = NULL;
    struct cy_jpeg_decoder *d = cy_jpeg_decoder_new(strict);
    if (!d) {
        if (file) {
            close(file->fd);
            free(file);
        }
        if (message && messageSize) snprintf(message, messageSize, "JPEG: out of memory");
        return -1;
    }
    d->file = file;
    if (setjmp(d->escape)) {
        if (message && messageSize) snprintf(message, messageSize, "%s", d->message);
        cy_jpeg_decoder_destroy(d);
        return -1;
    }
    jpeg_create_decompress(&d->dinfo);
    d->progress.progress_monitor = cy_d_limit_scans;
    d->dinfo.progress = &d->progress;
    cy_jpeg_decoder_set_source(d, data, size, file);
    jpeg_read_header(&d->dinfo, TRUE);
    jpeg_component_info *c = d->dinfo.comp_info;
    int h0 = c[0].h_samp_factor, v0 = c[0].v_samp_factor;
    if (d->dinfo.num_components != 3 || d->dinfo.jpeg_color_space != JCS_YCbCr || d->dinfo.data_precision != 8 ||
        c[1].h_samp_factor != 1 || c[1].v_samp_factor != 1 || c[2].h_samp_factor != 1 || c[2].v_samp_factor != 1 ||
        !((h0 == 1 && v0 == 1) || (h0 == 2 && v0 == 1) || (h0 == 1 && v0 == 2) || (h0 == 2 && v0 == 2))) {
        cy_jpeg_decoder_destroy(d);
        return 1;
    }
    d->dinfo.raw_data_out = TRUE;
    d->dinfo.out_color_space = JCS_YCbCr;
    d->dinfo.dct_method = JDCT_ISLOW;
    jpeg_start_decompress(&d->dinfo);
    d->started = 1;
    c = d->dinfo.comp_info;
    info->width = (int)d->dinfo.output_width;
    info->height = (int)d->dinfo.output_height;
    info->shiftX = h0 == 2 ? 1 : 0;
    info->shiftY = v0 == 2 ? 1 : 0;
    int rowsPerCall = d->dinfo.max_v_samp_factor * DCTSIZE;
    int calls = ((int)d->dinfo.output_height + rowsPerCall - 1) / rowsPerCall;
    info->lumaRowBytes = (int)c[0].width_in_blocks * DCTSIZE;
    info->lumaRows = calls * rowsPerCall;
    info->chromaRowBytes = (int)c[1].width_in_blocks * DCTSIZE;
    info->chromaRows = calls * DCTSIZE;
    info->chromaWidth = (int)c[1].downsampled_width;
    info->chromaHeight = (int)c[1].downsampled_height;
    // libjpeg's fancy upsampling needs more than 2 chroma columns across a subsampled width;
    // with fewer it replicates samples (jdsample.c), vertically too at 4:2:0.
    info->fancy = !(h0 == 2 && c[1].downsampled_width <= 2);
    *out = d;
    return 0;
}

int cy_jpeg_decoder_create_planar(const uint8_t *data, size_t size, int strict, cy_jpeg_planar_info *info, cy_jpeg_decoder **out,
                                  char *message, size_t messageSize) {
    return cy_jpeg_planar_start(data, size, NULL, strict, info, out, message, messageSize);
}

int cy_jpeg_decoder_create_planar_fd(int fd, int strict, cy_jpeg_planar_info *info, cy_jpeg_decoder **out, char *message,
                                     size_t messageSize) {
    *out = NULL;
    struct cy_file_source *file = calloc(1, sizeof *file);
    if (!file) {
        close(fd);
        if (message && messageSize) snprintf(message, messageSize, "JPEG: out of memory");
        return -1;
    }
    file->fd = fd;
    return cy_jpeg_planar_start(NULL, 0, file, strict, info, out, message, messageSize);
}


// The turn of each decoded band runs on a second thread while libjpeg decodes the next band
// into the other of two band buffers: decoding and turning overlap.
struct cy_turner {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int pending[2];  // the call whose band waits in buffer 0 or 1 to be turned, or -1
    int next;        // the next call to turn
    int stop;        // no more bands come
    uint8_t *slot[2];
    const cy_jpeg_planar_info *info;
    int orientation, rowsPerCall;
    size_t lumaBand, chromaBand, yStride, chromaStride;
    uint8_t *y, *cb, *cr;
};

// Writes decode call `call`'s band (in `band`: luma, then Cb, then Cr) where the orientation
// puts it in the upright planes.
static void cy_turn_call(const struct cy_turner *t, const uint8_t *band, int call) {
    const cy_jpeg_planar_info *info = t->info;
    int w = info->width, h = info->height, cw = info->chromaWidth, ch = info->chromaHeight;
    int ly = call * t->rowsPerCall, cy = call * DCTSIZE;
    int ln = h - ly < t->rowsPerCall ? h - ly : t->rowsPerCall, cn = ch - cy < DCTSIZE ? ch - cy : DCTSIZE;
    if (ln > 0) cy_orient_band(band, (size_t)info->lumaRowBytes, ly, ln, w, h, t->orientation, 1, t->y, t->yStride);
    if (cn > 0) {
        cy_orient_band(band + t->lumaBand, (size_t)info->chromaRowBytes, cy, cn, cw, ch, t->orientation, 1, t->cb, t->chromaStride);
        cy_orient_band(band + t->lumaBand + t->chromaBand, (size_t)info->chromaRowBytes, cy, cn, cw, ch, t->orientation, 1, t->cr, t->chromaStride);
    }
}

static void *cy_turner_main(void *arg) {
    struct cy_turner *t = arg;
    pthread_mutex_lock(&t->lock);
    for (;;) {
        int s = t->next & 1;
        while (t->pending[s] != t->next && !t->stop) pthread_cond_wait(&t->cond, &t->lock);
        if (t->pending[s] != t->next) break;  // stopped, nothing left to turn
        pthread_mutex_unlock(&t->lock);
        cy_turn_call(t, t->slot[s], t->next);
        pthread_mutex_lock(&t->lock);
        t->pending[s] = -1;
        t->next++;
        pthread_cond_broadcast(&t->cond);
    }
    pthread_mutex_unlock(&t->lock);
    return NULL;
}

// Tells the turning thread no more bands come and waits for it to turn those it has.
static void cy_turner_end(struct cy_turner *t, pthread_t thread) {
    pthread_mutex_lock(&t->lock);
    t->stop = 1;
    pthread_cond_broadcast(&t->cond);
    pthread_mutex_unlock(&t->lock);
    pthread_join(thread, NULL);
}

int cy_jpeg_decoder_read_planes_upright(cy_jpeg_decoder *d, const cy_jpeg_planar_info *info, int orientation, uint8_t *y, size_t yStride,
                                        uint8_t *cb, uint8_t *cr, size_t chromaStride, char *message, size_t messageSize) {
    if (!d || !d->started || !d->dinfo.raw_data_out || orientation < 1 || orientation > 8) return -1;
    int rowsPerCall = d->dinfo.max_v_samp_factor * DCTSIZE;
    size_t lumaBand = (size_t)info->lumaRowBytes * (size_t)rowsPerCall, chromaBand = (size_t)info->chromaRowBytes * DCTSIZE;
    size_t bandBytes = lumaBand + 2 * chromaBand;
    struct cy_turner *t = calloc(1, sizeof *t);
    uint8_t *memory = malloc(2 * bandBytes);
    if (!t || !memory) {
        free(t);
        free(memory);
        if (message && messageSize) snprintf(message, messageSize, "JPEG: out of memory");
        return -1;
    }
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->cond, NULL);
    t->pending[0] = t->pending[1] = -1;
    t->slot[0] = memory;
    t->slot[1] = memory + bandBytes;
    t->info = info;
    t->orientation = orientation;
    t->rowsPerCall = rowsPerCall;
    t->lumaBand = lumaBand;
    t->chromaBand = chromaBand;
    t->y = y;
    t->cb = cb;
    t->cr = cr;
    t->yStride = yStride;
    t->chromaStride = chromaStride;
    pthread_t thread;
    // Without a thread the bands are turned here, one after the other.
    const int threaded = pthread_create(&thread, NULL, cy_turner_main, t) == 0;
    volatile int result = -1;
    if (setjmp(d->escape)) {
        if (message && messageSize) snprintf(message, messageSize, "%s", d->message);
        goto done;
    }
    JSAMPROW yRows[2 * DCTSIZE], cbRows[DCTSIZE], crRows[DCTSIZE];
    JSAMPARRAY planes[3] = {yRows, cbRows, crRows};
    for (int call = 0; d->dinfo.output_scanline < d->dinfo.output_height; call++) {
        int s = call & 1;
        if (threaded) {
            pthread_mutex_lock(&t->lock);
            while (t->pending[s] != -1) pthread_cond_wait(&t->cond, &t->lock);
            pthread_mutex_unlock(&t->lock);
        }
        uint8_t *band = t->slot[s];
        for (int i = 0; i < rowsPerCall; i++) yRows[i] = band + (size_t)i * (size_t)info->lumaRowBytes;
        for (int i = 0; i < DCTSIZE; i++) {
            cbRows[i] = band + lumaBand + (size_t)i * (size_t)info->chromaRowBytes;
            crRows[i] = band + lumaBand + chromaBand + (size_t)i * (size_t)info->chromaRowBytes;
        }
        if ((int)jpeg_read_raw_data(&d->dinfo, planes, (JDIMENSION)rowsPerCall) != rowsPerCall) {
            if (message && messageSize) snprintf(message, messageSize, "Premature end of JPEG data");
            goto done;
        }
        if (threaded) {
            pthread_mutex_lock(&t->lock);
            t->pending[s] = call;
            pthread_cond_broadcast(&t->cond);
            pthread_mutex_unlock(&t->lock);
        } else {
            cy_turn_call(t, band, call);
        }
    }
    result = 0;
done:
    if (threaded) cy_turner_end(t, thread);
    pthread_cond_destroy(&t->cond);
    pthread_mutex_destroy(&t->lock);
    free(memory);
    free(t);
    return result;
}
