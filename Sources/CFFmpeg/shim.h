// Debian's FFmpeg libraries (libavformat, libavcodec, libavutil, libswscale), called from
// Swift by CyanotypeVideo. pixdesc.h and display.h are not reached through avformat.h.
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libavutil/display.h>
#include <libavutil/opt.h>
#include <libavutil/channel_layout.h>
#include <libswscale/swscale.h>
