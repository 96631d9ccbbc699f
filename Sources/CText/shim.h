// Debian's text stack, called straight from Swift: fontconfig finds fonts by name and by the
// characters they cover, FriBidi orders right-to-left text, HarfBuzz shapes, FreeType draws.
#include <ft2build.h>
#include FT_FREETYPE_H
#include <hb.h>
#include <hb-ot.h>
#include <fontconfig/fontconfig.h>
#include <fribidi.h>

// Macros built from other macros are not imported into Swift; re-export the ones we use.
static const FT_Int32 SHIM_FT_LOAD_RENDER_UNHINTED = FT_LOAD_NO_HINTING | FT_LOAD_NO_BITMAP | FT_LOAD_RENDER | FT_LOAD_TARGET_NORMAL;
static const FriBidiParType SHIM_FRIBIDI_PAR_ON = FRIBIDI_PAR_ON;
static const FriBidiParType SHIM_FRIBIDI_PAR_LTR = FRIBIDI_PAR_LTR;
static const FriBidiParType SHIM_FRIBIDI_PAR_RTL = FRIBIDI_PAR_RTL;
