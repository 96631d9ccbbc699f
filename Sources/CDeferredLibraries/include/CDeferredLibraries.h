// Libraries Cyanotype loads on first use (dlopen) rather than at start-up: FFmpeg, libheif,
// libjxl, libmicrohttpd, libcrypto, libzbar and LibRaw, with the hundred-odd libraries they pull in, are most of
// what a process maps before it reads a pixel. A tool that converts a JPEG never maps them.
//
// Each function Cyanotype calls in them is defined here under its own name (a C forwarder that
// calls through a slot; symbols.generated.h lists them, forwarders.generated.c defines them), so
// Swift and C call them as usual and the linker needs no -l flag for them. The first call of any
// of a library's functions, or cy_library_load, opens the library and fills all its slots.
// Callers load first, so that a missing library is an error in the user's terms; a call that
// skipped that gets the function's failure value (NULL, an error code), never a stop.
#ifndef CDEFERRED_LIBRARIES_H
#define CDEFERRED_LIBRARIES_H

#include <stddef.h>

/// A library loaded on first use.
typedef enum {
    CY_LIBRARY_HEIF,
    CY_LIBRARY_JXL,
    CY_LIBRARY_JXL_THREADS,
    CY_LIBRARY_AVUTIL,
    CY_LIBRARY_AVCODEC,
    CY_LIBRARY_AVFORMAT,
    CY_LIBRARY_SWSCALE,
    CY_LIBRARY_MICROHTTPD,
    CY_LIBRARY_CRYPTO,
    CY_LIBRARY_ZBAR,
    CY_LIBRARY_RAW,
    CY_LIBRARY_COUNT
} cy_library;

/// Opens `library` (once per process; later calls return at once) and binds every function
/// Cyanotype calls in it. Returns 0, or -1 with a sentence naming the library file and the
/// loader's reason in `message` (always NUL-terminated when `capacity` > 0).
int cy_library_load(cy_library library, char *message, size_t capacity);

/// Whether `library` is loaded (no attempt to load it).
int cy_library_is_loaded(cy_library library);

#endif
