// LibRaw's C API (Debian's libraw-dev). Nothing is linked: CDeferredLibraries opens
// libraw_r on first use, and CLibRawShim is the only caller.
#include <libraw/libraw.h>
