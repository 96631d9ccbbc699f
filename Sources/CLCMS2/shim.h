#include <lcms2.h>
// Macros built from other macros are not imported into Swift; re-export the ones we use.
static const cmsUInt32Number SHIM_TYPE_RGBA_FLT = TYPE_RGBA_FLT;
static const cmsUInt32Number SHIM_TYPE_RGB_FLT = TYPE_RGB_FLT;
static const cmsUInt32Number SHIM_TYPE_RGBA_8 = TYPE_RGBA_8;
static const cmsUInt32Number SHIM_TYPE_RGBA_16 = TYPE_RGBA_16;
