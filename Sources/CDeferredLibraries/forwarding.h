// What forwarders.generated.c needs: the libraries' own headers (so each forwarder is checked
// against the real prototype and calls through a pointer of exactly its type), and the lookup
// of a function's slot. scripts/generate-deferred-symbols.py reads these same headers to write
// the forwarders.
#ifndef CDEFERRED_FORWARDING_H
#define CDEFERRED_FORWARDING_H

#include "CDeferredLibraries.h"
#include "slots.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <libheif/heif.h>
#include <jxl/decode.h>
#include <jxl/encode.h>
#include <jxl/thread_parallel_runner.h>
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libavutil/display.h>
#include <libavutil/opt.h>
#include <libavutil/channel_layout.h>
#include <libswscale/swscale.h>
#include <microhttpd.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <zbar.h>
#include <libraw/libraw.h>

/// Loads `library` if it is not loaded yet and returns 0, or returns -1 (the reason written to
/// standard error once): the forwarders' path when a caller skipped cy_library_load.
__attribute__((visibility("hidden"))) int cy_library_bind(cy_library library);

/// The function behind `slot`, loading its library on first use; NULL when it cannot be loaded.
static inline void *cy_deferred_function(cy_library library, void *const *slot) {
    void *function = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (__builtin_expect(function != NULL, 1)) return function;
    if (cy_library_bind(library) != 0) return NULL;
    return __atomic_load_n(slot, __ATOMIC_ACQUIRE);
}

#endif
