// The slot each deferred function's forwarder calls through (forwarders.generated.c defines
// them, NULL until loader.c fills them).
#ifndef CDEFERRED_SLOTS_H
#define CDEFERRED_SLOTS_H

#include "symbols.generated.h"

#define CY_ALL_FUNCTIONS(X) \
    CY_HEIF_FUNCTIONS(X) CY_JXL_FUNCTIONS(X) CY_JXL_THREADS_FUNCTIONS(X) CY_AVUTIL_FUNCTIONS(X) \
    CY_AVCODEC_FUNCTIONS(X) CY_AVFORMAT_FUNCTIONS(X) CY_SWSCALE_FUNCTIONS(X) \
    CY_MICROHTTPD_FUNCTIONS(X) CY_CRYPTO_FUNCTIONS(X) CY_ZBAR_FUNCTIONS(X) CY_RAW_FUNCTIONS(X)

#define CY_DECLARE_SLOT(name) extern __attribute__((visibility("hidden"))) void *cy_slot_##name;
CY_ALL_FUNCTIONS(CY_DECLARE_SLOT)
#undef CY_DECLARE_SLOT

#endif
