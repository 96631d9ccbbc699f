// Opens a deferred library and fills the slots its functions jump through (see
// CDeferredLibraries.h). One lock for all libraries: loading happens a handful of times per
// process, and one lock means no order between locks to get wrong.
#include "CDeferredLibraries.h"
#include "forwarding.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Only the version macros: the sonames follow the headers Cyanotype was compiled against, so a
// library of another ABI is never picked up by accident.
#include <jxl/version.h>
#include <libavcodec/version_major.h>
#include <libavformat/version_major.h>
#include <libavutil/version.h>
#include <libswscale/version_major.h>
#include <openssl/opensslv.h>
#include <libraw/libraw_version.h>

#define CY_TEXT2(x) #x
#define CY_TEXT(x) CY_TEXT2(x)

#if JPEGXL_MAJOR_VERSION == 0
#define CY_JXL_SOVERSION "0." CY_TEXT(JPEGXL_MINOR_VERSION)
#else
#define CY_JXL_SOVERSION CY_TEXT(JPEGXL_MAJOR_VERSION)
#endif

#ifdef OPENSSL_SHLIB_VERSION
#define CY_CRYPTO_SOVERSION CY_TEXT(OPENSSL_SHLIB_VERSION)
#else
#define CY_CRYPTO_SOVERSION "1.1"
#endif

/// A function to bind: its name in the library and the slot its forwarder calls through.
typedef struct {
    const char *name;
    void **slot;
} cy_binding;

#define CY_BINDING(name) {#name, &cy_slot_##name},
static const cy_binding heif_bindings[] = {CY_HEIF_FUNCTIONS(CY_BINDING){NULL, NULL}};
static const cy_binding jxl_bindings[] = {CY_JXL_FUNCTIONS(CY_BINDING){NULL, NULL}};
static const cy_binding jxl_threads_bindings[] = {CY_JXL_THREADS_FUNCTIONS(CY_BINDING){NULL, NULL}};
static const cy_binding avutil_bindings[] = {CY_AVUTIL_FUNCTIONS(CY_BINDING){NULL, NULL}};
static const cy_binding avcodec_bindings[] = {CY_AVCODEC_FUNCTIONS(CY_BINDING){NULL, NULL}};
static const cy_binding avformat_bindings[] = {CY_AVFORMAT_FUNCTIONS(CY_BINDING){NULL, NULL}};
static const cy_binding swscale_bindings[] = {CY_SWSCALE_FUNCTIONS(CY_BINDING){NULL, NULL}};
static const cy_binding microhttpd_bindings[] = {CY_MICROHTTPD_FUNCTIONS(CY_BINDING){NULL, NULL}};
static const cy_binding crypto_bindings[] = {CY_CRYPTO_FUNCTIONS(CY_BINDING){NULL, NULL}};
static const cy_binding zbar_bindings[] = {CY_ZBAR_FUNCTIONS(CY_BINDING){NULL, NULL}};
static const cy_binding raw_bindings[] = {CY_RAW_FUNCTIONS(CY_BINDING){NULL, NULL}};

/// A deferred library: its file, what the user was doing that needs it, and its functions.
typedef struct {
    const char *soname;
    const char *purpose;
    const cy_binding *bindings;
} cy_library_entry;

static const cy_library_entry libraries[CY_LIBRARY_COUNT] = {
    [CY_LIBRARY_HEIF] = {"libheif.so.1", "reading and writing HEIF and AVIF", heif_bindings},
    [CY_LIBRARY_JXL] = {"libjxl.so." CY_JXL_SOVERSION, "reading and writing JPEG XL", jxl_bindings},
    [CY_LIBRARY_JXL_THREADS] = {"libjxl_threads.so." CY_JXL_SOVERSION, "reading and writing JPEG XL", jxl_threads_bindings},
    [CY_LIBRARY_AVUTIL] = {"libavutil.so." CY_TEXT(LIBAVUTIL_VERSION_MAJOR), "reading and writing video", avutil_bindings},
    [CY_LIBRARY_AVCODEC] = {"libavcodec.so." CY_TEXT(LIBAVCODEC_VERSION_MAJOR), "reading and writing video", avcodec_bindings},
    [CY_LIBRARY_AVFORMAT] = {"libavformat.so." CY_TEXT(LIBAVFORMAT_VERSION_MAJOR), "reading and writing video", avformat_bindings},
    [CY_LIBRARY_SWSCALE] = {"libswscale.so." CY_TEXT(LIBSWSCALE_VERSION_MAJOR), "reading and writing video", swscale_bindings},
    [CY_LIBRARY_MICROHTTPD] = {"libmicrohttpd.so.12", "the render server", microhttpd_bindings},
    [CY_LIBRARY_CRYPTO] = {"libcrypto.so." CY_CRYPTO_SOVERSION, "the render server (signatures, content keys)", crypto_bindings},
    [CY_LIBRARY_ZBAR] = {"libzbar.so.0", "detecting QR codes (CIDetector)", zbar_bindings},
    // The reentrant build (libraw_r): several files may develop at once on different threads.
    [CY_LIBRARY_RAW] = {"libraw_r.so." CY_TEXT(LIBRAW_SHLIB_CURRENT), "developing RAW camera files", raw_bindings},
};

enum { CY_UNLOADED = 0, CY_LOADED = 1, CY_FAILED = -1 };
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int states[CY_LIBRARY_COUNT];
static char failures[CY_LIBRARY_COUNT][320];

/// Opens the library and binds all its functions, or none. Called with `lock` held.
static void load_locked(cy_library library) {
    const cy_library_entry *entry = &libraries[library];
    void *handle = dlopen(entry->soname, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(failures[library], sizeof failures[library], "%s needs %s, which could not be loaded (%s)",
                 entry->purpose, entry->soname, reason ? reason : "no reason given");
        atomic_store_explicit(&states[library], CY_FAILED, memory_order_release);
        return;
    }
    size_t count = 0;
    while (entry->bindings[count].name != NULL) count++;
    void **found = calloc(count ? count : 1, sizeof *found);
    if (found == NULL) {
        snprintf(failures[library], sizeof failures[library], "%s: out of memory loading %s", entry->purpose, entry->soname);
        atomic_store_explicit(&states[library], CY_FAILED, memory_order_release);
        return;
    }
    for (size_t i = 0; i < count; i++) {
        found[i] = dlsym(handle, entry->bindings[i].name);
        if (found[i] == NULL) {
            snprintf(failures[library], sizeof failures[library], "%s needs %s() from %s, which this version of it lacks",
                     entry->purpose, entry->bindings[i].name, entry->soname);
            free(found);
            atomic_store_explicit(&states[library], CY_FAILED, memory_order_release);
            return;  // the handle stays open: closing libraries is unsafe once anything ran
        }
    }
    for (size_t i = 0; i < count; i++) {
        __atomic_store_n(entry->bindings[i].slot, found[i], __ATOMIC_RELEASE);
    }
    free(found);
    atomic_store_explicit(&states[library], CY_LOADED, memory_order_release);
}

int cy_library_load(cy_library library, char *message, size_t capacity) {
    if (capacity > 0) message[0] = '\0';
    if ((unsigned)library >= CY_LIBRARY_COUNT) {
        if (capacity > 0) snprintf(message, capacity, "unknown deferred library %d", (int)library);
        return -1;
    }
    if (atomic_load_explicit(&states[library], memory_order_acquire) == CY_LOADED) return 0;
    pthread_mutex_lock(&lock);
    if (atomic_load_explicit(&states[library], memory_order_acquire) == CY_UNLOADED) load_locked(library);
    int state = atomic_load_explicit(&states[library], memory_order_acquire);
    if (state != CY_LOADED && capacity > 0) snprintf(message, capacity, "%s", failures[library]);
    pthread_mutex_unlock(&lock);
    return state == CY_LOADED ? 0 : -1;
}

int cy_library_is_loaded(cy_library library) {
    return (unsigned)library < CY_LIBRARY_COUNT && atomic_load_explicit(&states[library], memory_order_acquire) == CY_LOADED;
}

int cy_library_bind(cy_library library) {
    char message[400];
    if (cy_library_load(library, message, sizeof message) == 0) return 0;
    // Said once per library: the forwarders then return their failure values, which the
    // caller reports as it reports that function failing.
    static _Atomic int told[CY_LIBRARY_COUNT];
    if ((unsigned)library < CY_LIBRARY_COUNT && atomic_exchange(&told[library], 1) == 0) {
        fprintf(stderr, "cyanotype: %s\n", message);
    }
    return -1;
}
