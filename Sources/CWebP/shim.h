#include <webp/decode.h>
#include <webp/encode.h>
// Animated WebP: the demuxer (frame table, animation decoder) and the animation encoder.
#include <webp/demux.h>
#include <webp/mux.h>
