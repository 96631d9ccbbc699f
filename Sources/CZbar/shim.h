// zbar's declarations only: libzbar (with D-Bus, X11, V4L and the rest it pulls in) is opened on
// first use by CDeferredLibraries, so this module map links nothing.
#include <zbar.h>
