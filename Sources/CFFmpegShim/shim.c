#include "CFFmpegShim.h"
#include <libavutil/display.h>
#include <libavutil/log.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

int cy_averror_eagain(void) { return AVERROR(EAGAIN); }
int cy_averror_eof(void) { return AVERROR_EOF; }
int64_t cy_nopts_value(void) { return AV_NOPTS_VALUE; }

uint8_t *cy_frame_data(const AVFrame *frame, int i) { return (i >= 0 && i < AV_NUM_DATA_POINTERS) ? frame->data[i] : NULL; }
int cy_frame_linesize(const AVFrame *frame, int i) { return (i >= 0 && i < AV_NUM_DATA_POINTERS) ? frame->linesize[i] : 0; }

struct cy_cancel_flag { atomic_int value; };

cy_cancel_flag *cy_cancel_flag_new(void) {
    cy_cancel_flag *f = malloc(sizeof *f);
    if (f) atomic_init(&f->value, 0);
    return f;
}
void cy_cancel_flag_free(cy_cancel_flag *flag) { free(flag); }
void cy_cancel_flag_set(cy_cancel_flag *flag) { if (flag) atomic_store(&flag->value, 1); }
int cy_cancel_flag_get(cy_cancel_flag *flag) { return flag ? atomic_load(&flag->value) : 0; }

static int cy_interrupt(void *opaque) { return cy_cancel_flag_get((cy_cancel_flag *)opaque); }

void cy_install_interrupt(AVFormatContext *ctx, cy_cancel_flag *flag) {
    if (!ctx) return;
    ctx->interrupt_callback.callback = cy_interrupt;
    ctx->interrupt_callback.opaque = flag;
}

void cy_configure_logging(void) {
    static atomic_int done = 0;
    if (atomic_exchange(&done, 1)) return;
    const char *want = getenv("CYANOTYPE_FFMPEG_LOG");
    int level = AV_LOG_QUIET;
    if (want) {
        if (!strcmp(want, "verbose")) level = AV_LOG_VERBOSE;
        else if (!strcmp(want, "info")) level = AV_LOG_INFO;
        else if (!strcmp(want, "warning")) level = AV_LOG_WARNING;
        else if (!strcmp(want, "error")) level = AV_LOG_ERROR;
    }
    av_log_set_level(level);
}

int cy_stream_set_rotation(AVStream *stream, double degrees) {
    uint8_t *data = av_stream_new_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, 9 * sizeof(int32_t));
    if (!data) return AVERROR(ENOMEM);
    av_display_rotation_set((int32_t *)data, degrees);
    return 0;
}

double cy_stream_rotation(const AVStream *stream, int *flipped) {
    size_t size = 0;
    const uint8_t *data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size);
    if (flipped) *flipped = 0;
    if (!data || size < 9 * sizeof(int32_t)) return 0;
    const int32_t *m = (const int32_t *)data;
    double r = av_display_rotation_get(m);
    if (r != r) return 0;   /* NaN: a degenerate matrix */
    /* A negative determinant means the matrix mirrors as well. */
    double det = (double)m[0] * m[4] - (double)m[1] * m[3];
    if (flipped && det < 0) *flipped = 1;
    return r;
}
