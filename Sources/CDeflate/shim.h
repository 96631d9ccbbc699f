// libdeflate compresses the PNG image data; zlib finds the block boundaries in what it wrote
// (inflate's Z_BLOCK) and combines the Adler-32 checksums of the bands (adler32_combine).
#include <libdeflate.h>
#include <zlib.h>
