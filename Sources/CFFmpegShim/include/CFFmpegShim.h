#ifndef CFFMPEG_SHIM_H
#define CFFMPEG_SHIM_H
// What Swift cannot reach in FFmpeg's API: macros built from macros (AVERROR(EAGAIN),
// AVERROR_EOF, AV_NOPTS_VALUE), fixed-size arrays in structs, and C callbacks that read a
// flag another thread sets (the cancel hook).
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/frame.h>

int cy_averror_eagain(void);
int cy_averror_eof(void);
int64_t cy_nopts_value(void);

/// Plane `i` of a frame and its row stride.
uint8_t *cy_frame_data(const AVFrame *frame, int i);
int cy_frame_linesize(const AVFrame *frame, int i);

/// A flag the cancel hook reads: set it from any thread to interrupt blocking I/O.
typedef struct cy_cancel_flag cy_cancel_flag;
cy_cancel_flag *cy_cancel_flag_new(void);
void cy_cancel_flag_free(cy_cancel_flag *flag);
void cy_cancel_flag_set(cy_cancel_flag *flag);
int cy_cancel_flag_get(cy_cancel_flag *flag);
/// Makes `ctx`'s blocking reads and writes give up once `flag` is set.
void cy_install_interrupt(AVFormatContext *ctx, cy_cancel_flag *flag);

/// Sets FFmpeg's log level once (quiet by default: errors come back as codes and our own
/// messages; CYANOTYPE_FFMPEG_LOG=verbose|info|warning|error shows FFmpeg's own lines).
void cy_configure_logging(void);

/// Sets the 3x3 display matrix as stream side data: the picture is shown turned `degrees` clockwise.
int cy_stream_set_rotation(AVStream *stream, double degrees);
/// The rotation of a stream's display matrix in degrees (anticlockwise), or 0 when none; sets
/// *flipped when the matrix also mirrors.
double cy_stream_rotation(const AVStream *stream, int *flipped);
#endif
