// LibRaw behind the small C API of CLibRawShim.h. LibRaw is opened on first use
// (CDeferredLibraries); a missing library is reported in `message`, never a stop.
#include "CLibRawShim.h"

#include "ahd.h"

#include <CDeferredLibraries.h>
#include <libraw/libraw.h>
#include <stdio.h>
#include <string.h>

/// Whether LibRaw's decoders reported damaged or missing data while reading.
typedef struct {
    int errors;
} data_errors;

static void on_data_error(void *context, const char *file, const int offset) {
    (void)file;
    (void)offset;
    ((data_errors *)context)->errors++;
}

/// Loads LibRaw and opens the file; NULL with `message` set when either fails.
static libraw_data_t *open_raw(const char *path, const void *data, size_t size, data_errors *errors, char *message,
                               size_t capacity) {
    if (cy_library_load(CY_LIBRARY_RAW, message, capacity) != 0) return NULL;
    libraw_data_t *raw = libraw_init(0);
    if (raw == NULL) {
        snprintf(message, capacity, "LibRaw could not start (out of memory)");
        return NULL;
    }
    if (errors != NULL) libraw_set_dataerror_handler(raw, on_data_error, errors);
    int status = path != NULL ? libraw_open_file(raw, path) : libraw_open_buffer(raw, (void *)data, size);
    if (status != LIBRAW_SUCCESS) {
        if (status == LIBRAW_FILE_UNSUPPORTED) {
            snprintf(message, capacity, "not a RAW file LibRaw %s reads", libraw_version());
        } else {
            snprintf(message, capacity, "LibRaw could not read the file (%s)", libraw_strerror(status));
        }
        libraw_close(raw);
        return NULL;
    }
    return raw;
}

static void copy_text(char *to, size_t capacity, const char *from) {
    snprintf(to, capacity, "%s", from);
}

int cy_raw_identify(const char *path, const void *data, size_t size, cy_raw_info *info, char *message, size_t capacity) {
    memset(info, 0, sizeof *info);
    libraw_data_t *raw = open_raw(path, data, size, NULL, message, capacity);
    if (raw == NULL) return -1;
    info->width = raw->sizes.width;
    info->height = raw->sizes.height;
    info->raw_width = raw->sizes.raw_width;
    info->raw_height = raw->sizes.raw_height;
    info->flip = raw->sizes.flip;
    info->colors = raw->idata.colors;
    info->filters = raw->idata.filters;
    info->dng_version = raw->idata.dng_version;
    copy_text(info->make, sizeof info->make, raw->idata.make);
    copy_text(info->model, sizeof info->model, raw->idata.model);
    copy_text(info->software, sizeof info->software, raw->idata.software);
    copy_text(info->cdesc, sizeof info->cdesc, raw->idata.cdesc);
    copy_text(info->lens, sizeof info->lens, raw->lens.Lens);
    info->iso = raw->other.iso_speed;
    info->shutter = raw->other.shutter;
    info->aperture = raw->other.aperture;
    info->focal_length = raw->other.focal_len;
    info->timestamp = (long long)raw->other.timestamp;
    for (int i = 0; i < 4; i++) {
        info->cam_mul[i] = raw->color.cam_mul[i];
        info->pre_mul[i] = raw->color.pre_mul[i];
        for (int j = 0; j < 3; j++) info->cam_xyz[i][j] = raw->color.cam_xyz[i][j];
    }
    // DNGs keep their ColorMatrix per calibration illuminant: take D65's (21) when there is
    // one, else the last one given, where LibRaw's tables left cam_xyz empty.
    int empty = 1;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) empty = empty && info->cam_xyz[i][j] == 0;
    if (empty && raw->idata.dng_version) {
        int pick = -1;
        for (int k = 0; k < 2; k++) {
            float sum = 0;
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) sum += raw->color.dng_color[k].colormatrix[i][j] != 0;
            if (sum > 0 && (pick < 0 || raw->color.dng_color[k].illuminant == 21)) pick = k;
        }
        if (pick >= 0) {
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) info->cam_xyz[i][j] = raw->color.dng_color[pick].colormatrix[i][j];
        }
    }
    info->black = raw->color.black;
    info->maximum = raw->color.maximum;
    info->baseline_exposure = raw->idata.dng_version ? raw->color.dng_levels.baseline_exposure : 0;
    info->thumb_format = raw->thumbnail.tformat;
    info->thumb_width = raw->thumbnail.twidth;
    info->thumb_height = raw->thumbnail.theight;
    info->thumb_length = raw->thumbnail.tlength;
    libraw_close(raw);
    return 0;
}

/// The development that Cyanotype's AHD runs inside: set on the thread that calls
/// libraw_dcraw_process for the length of that call (LibRaw calls back on the same thread).
typedef struct {
    libraw_data_t *raw;
    const cy_raw_develop_options *options;
    int ran, failed;
} own_demosaic;

static _Thread_local own_demosaic *current_demosaic;

/// LibRaw's interpolate_bayer_cb: Cyanotype's AHD on LibRaw's working image.
static void interpolate_bayer(void *ctx) {
    own_demosaic *d = current_demosaic;
    if (d == NULL || d->raw->parent_class != ctx) return;
    libraw_data_t *raw = d->raw;
    d->ran = 1;
    d->failed = cy_ahd_demosaic(raw->image, raw->sizes.iwidth, raw->sizes.iheight, raw->idata.filters,
                                (const float(*)[4])raw->color.rgb_cam, d->options->parallel, d->options->workers) != 0;
}

/// LibRaw's callbacks of `raw`. LibRaw 0.20's C API sets only some of them, and the table
/// lives in the LibRaw object after `imgdata`: it is found by the data-error handler this
/// file installed (a function and a context no other field holds), so its layout is the
/// header's and nothing is guessed. NULL when not found.
static libraw_callbacks_t *find_callbacks(libraw_data_t *raw, data_errors *errors) {
    const size_t limit = (size_t)64 << 20;
    char *start = (char *)raw + sizeof(libraw_data_t);
    start += (sizeof(void *) - (uintptr_t)start % sizeof(void *)) % sizeof(void *);
    const size_t data_offset = offsetof(libraw_callbacks_t, data_cb);
    for (size_t o = 0; o < limit; o += sizeof(void *)) {
        libraw_callbacks_t *candidate = (libraw_callbacks_t *)(start + o - data_offset);
        data_callback cb;
        void *context;
        memcpy(&cb, start + o, sizeof cb);
        if (cb != on_data_error) continue;
        memcpy(&context, start + o + offsetof(libraw_callbacks_t, datacb_data) - data_offset, sizeof context);
        if (context == errors) return candidate;
    }
    return NULL;
}

/// Whether Cyanotype's AHD can stand in for LibRaw's on this file.
static int own_demosaic_applies(libraw_data_t *raw, const cy_raw_develop_options *o) {
    int pattern[2][2];
    return o->own_demosaic && o->quality == 3 && !o->half_size && raw->idata.colors == 3 && !raw->idata.is_foveon &&
           raw->rawdata.raw_image != NULL && raw->params.four_color_rgb == 0 && raw->sizes.pixel_aspect == 1 &&
           cy_ahd_pattern(raw->idata.filters, pattern) && raw->sizes.width >= 16 && raw->sizes.height >= 16;
}

/// Fills `out` from LibRaw's processed image (owned by `out` from here).
static void take_image(libraw_processed_image_t *image, cy_raw_image *out) {
    out->type = image->type;
    out->width = image->width;
    out->height = image->height;
    out->colors = image->colors;
    out->bits = image->bits;
    out->data = image->data;
    out->length = image->data_size;
    out->owner = image;
}

int cy_raw_develop(const char *path, const void *data, size_t size, const cy_raw_develop_options *options,
                   long long max_pixels, cy_raw_image *out, char *message, size_t capacity) {
    memset(out, 0, sizeof *out);
    data_errors errors = {0};
    libraw_data_t *raw = open_raw(path, data, size, &errors, message, capacity);
    if (raw == NULL) return -1;
    long long pixels = (long long)raw->sizes.raw_width * raw->sizes.raw_height;
    if (pixels <= 0 || pixels > max_pixels) {
        snprintf(message, capacity, "the sensor image is %dx%d, over the limit of %lld pixels", raw->sizes.raw_width,
                 raw->sizes.raw_height, max_pixels);
        libraw_close(raw);
        return -1;
    }
    libraw_output_params_t *p = &raw->params;
    p->half_size = options->half_size;
    p->user_qual = options->quality;
    p->use_camera_wb = options->use_camera_wb;
    p->use_auto_wb = options->use_auto_wb;
    for (int i = 0; i < 4; i++) p->user_mul[i] = options->user_mul[i];
    p->output_color = options->output_color;
    p->output_bps = 16;
    p->gamm[0] = 1;
    p->gamm[1] = 1;
    p->no_auto_bright = 1;
    p->user_flip = 0;
    p->highlight = options->highlight;
    p->threshold = options->threshold;
    p->med_passes = options->med_passes;
    int status = libraw_unpack(raw);
    if (status == LIBRAW_SUCCESS && errors.errors > 0) {
        snprintf(message, capacity, "the image data is damaged or ends early (truncated)");
        libraw_close(raw);
        return -1;
    }
    own_demosaic own = {raw, options, 0, 0};
    libraw_callbacks_t *callbacks = NULL;
    if (status == LIBRAW_SUCCESS && own_demosaic_applies(raw, options)) callbacks = find_callbacks(raw, &errors);
    if (callbacks != NULL) {
        callbacks->interpolate_bayer_cb = interpolate_bayer;
        current_demosaic = &own;
    }
    if (status == LIBRAW_SUCCESS) status = libraw_dcraw_process(raw);
    current_demosaic = NULL;
    if (callbacks != NULL) callbacks->interpolate_bayer_cb = NULL;
    if (status == LIBRAW_SUCCESS && own.ran && own.failed) {
        // Out of memory in the tiles: LibRaw's own AHD, from the start.
        libraw_close(raw);
        cy_raw_develop_options fallback = *options;
        fallback.own_demosaic = 0;
        return cy_raw_develop(path, data, size, &fallback, max_pixels, out, message, capacity);
    }
    if (status != LIBRAW_SUCCESS) {
        snprintf(message, capacity, "LibRaw could not develop the file (%s)", libraw_strerror(status));
        libraw_close(raw);
        return -1;
    }
    // LibRaw's working image is the result when it is not rotated or stretched: no copy.
    if (raw->sizes.flip == 0 && raw->sizes.width == raw->sizes.iwidth && raw->sizes.height == raw->sizes.iheight &&
        raw->idata.colors == 3 && raw->image != NULL) {
        out->type = 3;
        out->width = raw->sizes.width;
        out->height = raw->sizes.height;
        out->colors = 3;
        out->bits = 16;
        out->data = raw->image;
        out->length = (size_t)raw->sizes.width * raw->sizes.height * 8;
        out->owner = raw;
        return 0;
    }
    int error = 0;
    libraw_processed_image_t *image = libraw_dcraw_make_mem_image(raw, &error);
    if (image == NULL) {
        snprintf(message, capacity, "LibRaw could not develop the file (%s)", libraw_strerror(error));
        libraw_close(raw);
        return -1;
    }
    take_image(image, out);
    libraw_close(raw);
    return 0;
}

int cy_raw_preview(const char *path, const void *data, size_t size, cy_raw_image *out, char *message, size_t capacity) {
    memset(out, 0, sizeof *out);
    libraw_data_t *raw = open_raw(path, data, size, NULL, message, capacity);
    if (raw == NULL) return -1;
    int status = libraw_unpack_thumb(raw);
    if (status != LIBRAW_SUCCESS) {
        snprintf(message, capacity, "the file has no preview LibRaw reads (%s)", libraw_strerror(status));
        libraw_close(raw);
        return -1;
    }
    int error = 0;
    libraw_processed_image_t *image = libraw_dcraw_make_mem_thumb(raw, &error);
    if (image == NULL) {
        snprintf(message, capacity, "the file's preview could not be read (%s)", libraw_strerror(error));
        libraw_close(raw);
        return -1;
    }
    take_image(image, out);
    libraw_close(raw);
    return 0;
}

void cy_raw_to_rgba16(const cy_raw_image *image, uint16_t *out, int row0, int row1, const uint16_t *tables) {
    const size_t step = image->type == 3 ? 4 : 3;
    const uint16_t *in = (const uint16_t *)image->data;
    const size_t start = (size_t)row0 * image->width, end = (size_t)row1 * image->width;
    if (tables != NULL) {
        const uint16_t *r = tables, *g = tables + 65536, *b = tables + 2 * 65536;
        for (size_t i = start; i < end; i++) {
            out[4 * i] = r[in[step * i]];
            out[4 * i + 1] = g[in[step * i + 1]];
            out[4 * i + 2] = b[in[step * i + 2]];
            out[4 * i + 3] = 65535;
        }
        return;
    }
    for (size_t i = start; i < end; i++) {
        out[4 * i] = in[step * i];
        out[4 * i + 1] = in[step * i + 1];
        out[4 * i + 2] = in[step * i + 2];
        out[4 * i + 3] = 65535;
    }
}

void cy_raw_finish_in_place(const cy_raw_image *image, int row0, int row1, const uint16_t *tables) {
    if (image->type != 3) return;
    uint16_t *p = (uint16_t *)(uintptr_t)image->data;
    const size_t start = (size_t)row0 * image->width, end = (size_t)row1 * image->width;
    if (tables != NULL) {
        const uint16_t *r = tables, *g = tables + 65536, *b = tables + 2 * 65536;
        for (size_t i = start; i < end; i++) {
            p[4 * i] = r[p[4 * i]];
            p[4 * i + 1] = g[p[4 * i + 1]];
            p[4 * i + 2] = b[p[4 * i + 2]];
            p[4 * i + 3] = 65535;
        }
        return;
    }
    for (size_t i = start; i < end; i++) p[4 * i + 3] = 65535;
}

void cy_raw_image_release(cy_raw_image *image) {
    if (image->owner != NULL && image->type == 3) {
        libraw_close((libraw_data_t *)image->owner);
    } else if (image->owner != NULL) {
        libraw_dcraw_clear_mem((libraw_processed_image_t *)image->owner);
    }
    memset(image, 0, sizeof *image);
}

const char *cy_raw_version(void) {
    char message[400];
    if (cy_library_load(CY_LIBRARY_RAW, message, sizeof message) != 0) return NULL;
    return libraw_version();
}

int cy_raw_camera_count(void) {
    char message[400];
    if (cy_library_load(CY_LIBRARY_RAW, message, sizeof message) != 0) return 0;
    return libraw_cameraCount();
}

const char *cy_raw_camera(int index) {
    if (index < 0 || index >= cy_raw_camera_count()) return NULL;
    const char **list = libraw_cameraList();
    return list != NULL ? list[index] : NULL;
}
