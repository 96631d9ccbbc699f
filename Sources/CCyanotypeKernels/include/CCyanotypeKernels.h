#ifndef CCYANOTYPE_KERNELS_H
#define CCYANOTYPE_KERNELS_H
#include <stddef.h>
#include <stdint.h>

/// Writes `n` RGBA float pixels from `src` to `dst` (16-byte aligned) with non-temporal
/// stores, so a destination that is not read again is not first read into the cache
/// (no read-for-ownership). With `clamp`, colour is clamped to 0...alpha and alpha to 0...1
/// (premultiplied colour in a clipped space); NaN becomes 0.
void cyan_store_rgbaf_stream(float *dst, const float *src, size_t n, int clamp);

/// `n` RGBA float pixels to RGBA8 as they are (already encoded): clamped to 0...1 (NaN to 0),
/// rounded half up; with `unpremultiply`, colour divided by alpha first.
void cyan_quantize_rgba8(uint8_t *dst, const float *src, size_t n, int unpremultiply);
/// The same written in BGRA order (red and blue swapped).
void cyan_quantize_bgra8(uint8_t *dst, const float *src, size_t n, int unpremultiply);

/// `n` premultiplied linear RGBA float pixels to 8-bit through `table` (65536 entries indexed
/// by round(sqrt(v) * 65535)), channels at byte offsets ri, gi, bi, ai. Translucent pixels of a
/// premultiplied output are skipped (returned count) for the caller's exact path.
size_t cyan_encode_rgba8(uint8_t *dst, const float *src, size_t n, const uint8_t *table,
                         int ri, int gi, int bi, int ai, int premultipliedOut);

/// A colour matrix over `n` RGBA float pixels in place: o = c0 r + c1 g + c2 b + c3 a + bias,
/// with `m` holding c0, c1, c2, c3 and bias, four floats each. With `straightOnPremultiplied`
/// the row is premultiplied and the matrix applies to straight colour: each pixel is divided by
/// its alpha (0 for alpha <= 0), multiplied, and the result premultiplied by its new alpha.
/// Each pixel's result depends on that pixel alone (never on its position in the row), so a
/// tiled render equals a whole one. Returns 0, touching nothing, when the CPU lacks AVX2/FMA
/// (checked once): the Swift stage then runs its own loop.
int cyan_matrix_rgbaf(float *row, size_t n, const float *m, int straightOnPremultiplied);

/// Vibrance (`amount`) on straight RGBA float pixels in place, alpha kept bit for bit, each
/// pixel independent of its neighbours. Returns 0, touching nothing, when the CPU lacks
/// AVX2/FMA: the Swift stage then runs its own loop.
int cyan_vibrance_rgbaf(float *row, size_t n, float amount);

/// `n` 8-bit RGBA pixels (channels at byte offsets ri, gi, bi, ai) to premultiplied linear
/// float RGBA through `table` (256 entries: code -> linear; NULL for code / 255, the codes as
/// values; eight opaque pixels a step where the CPU has AVX2, a table gathered). Straight
/// input is premultiplied after decoding. With `premultipliedIn`, translucent pixels (0 < alpha < 255) are skipped,
/// for the caller's exact path (divide, then decode), and their number returned.
size_t cyan_decode_rgba8(float *dst, const uint8_t *src, size_t n, const float *table,
                         int ri, int gi, int bi, int ai, int premultipliedIn);

/// sign(x) |x|^p on the colour of `n` RGBA float pixels through a `PowerTable`'s `count`
/// cells of (a, b, c, 0) with k mantissa bits per binade; alpha kept bit for bit. Pixels with
/// a colour the table does not cover (|x| >= 256, infinity, NaN) are left as they are and
/// their indices written to `outside` (room for `n`); returns how many, or -1, touching
/// nothing, when the CPU lacks AVX2/FMA.
long cyan_power_table_rgbaf(float *row, size_t n, const float *cells, int k, int count, int32_t *outside);

/// One colour stage of a planar run (`cyan_planar_run`), made by one of the constructors
/// below. `run_256` transforms `n` (a multiple of 8) opaque pixels held as three 32-byte-aligned
/// planes of red, green and blue in place, or declines (returns nonzero, touching nothing).
typedef struct cyan_planar_stage {
    int (*run_256)(float *r, float *g, float *b, size_t n, const struct cyan_planar_stage *stage);
    /// The same with 16-lane vectors (AVX-512; `n` a multiple of 16, planes 64-byte aligned).
    int (*run_512)(float *r, float *g, float *b, size_t n, const struct cyan_planar_stage *stage);
    float values[20];
    const float *table;
    int32_t k, count;
} cyan_planar_stage;

/// A colour matrix laid out as for `cyan_matrix_rgbaf`, whose alpha row keeps alpha (the
/// planar run holds opaque pixels only).
cyan_planar_stage cyan_planar_matrix(const float *m);
/// Vibrance (`amount`), as `cyan_vibrance_rgbaf`.
cyan_planar_stage cyan_planar_vibrance(float amount);
/// sign(x) |x|^p through a `PowerTable` as `cyan_power_table_rgbaf`; declines a block with a
/// colour the table does not cover.
cyan_planar_stage cyan_planar_power_table(const float *cells, int k, int count);

/// Whether planar runs are available on this CPU (AVX2 and FMA; checked once).
int cyan_planar_available(void);
/// The number of pixels a planar run takes at a time (a block).
size_t cyan_planar_block_length(void);
/// Runs `count` stages over `n` opaque RGBA float pixels in place (alpha exactly 1 in all),
/// a block of `cyan_planar_block_length()` pixels at a time held as planes in L1, each stage
/// doing lane by lane what its row function does, so the result is bit for bit that of the
/// stages' row functions run one after another. Returns `n` when all ran; else the number of
/// pixels done, with the next block's stages before `*declined` applied (the one at
/// `*declined` declined it, and the caller runs the rest of that block). -1, touching
/// nothing, when the CPU lacks AVX2/FMA.
long cyan_planar_run(float *row, size_t n, const cyan_planar_stage *stages, int count, int *declined);

/// The widest vector, in bits, the pixel loops use on this CPU: 512 (AVX-512F, with AVX2 and
/// FMA), 256 (AVX2 and FMA) or 0 (none: the portable Swift loops run; also when
/// CYANOTYPE_PORTABLE_KERNELS=1). Checked once; `cyan_select_vector_bits` overrides it.
int cyan_vector_bits(void);

/// The widest vector, in bits, this CPU offers the pixel loops (512, 256 or 0), whatever
/// CYANOTYPE_PORTABLE_KERNELS and CYANOTYPE_VECTOR_BITS say.
int cyan_hardware_vector_bits(void);

/// Test hook: makes every later `cyan_vector_bits` on the calling thread answer `bits` (0: the
/// portable loops, 256: AVX2 + FMA, 512: AVX-512), lowered to the widest the CPU has; a
/// negative `bits` gives the choice back to the environment. Per thread: the engine's executor
/// carries the caller's choice into the loop bodies it runs (`cyan_selected_vector_bits`), so
/// a render made on this thread takes the path throughout and other threads' renders do not.
/// Returns the path now in effect on this thread.
int cyan_select_vector_bits(int bits);

/// The path the calling thread selected with `cyan_select_vector_bits`, or -1 when none.
int cyan_selected_vector_bits(void);

/// The horizontal pass of a separable symmetric convolution over `rows` rows of `width` float
/// RGBA pixels: dst[x] = w[0] src[x] + sum over k = 1...r of w[k] (src[x - k] + src[x + k]),
/// summed in that order, each product rounded (no fused multiply-add), so results never depend
/// on the vector width or where a pixel sits. `src` points at the input pixel under output
/// pixel 0 of row 0 (it reads r pixels either side); strides are in pixels. Rows run first
/// to last, each read whole before it is written, so `dst` may be `src`'s rows one row back
/// (in place, each row's results over the row before it). Uses at most `bits`-wide vectors
/// (see `cyan_vector_bits`); returns 0, touching nothing, below 256.
int cyan_convolve_rows_rgbaf(float *dst, ptrdiff_t dstStride, const float *src, ptrdiff_t srcStride,
                             size_t width, size_t rows, const float *w, int r, int bits);

/// The vertical pass of the same: dst[x] = w[0] src[x] + sum of w[k] (src[x - k rows] +
/// src[x + k rows]) for `rows` output rows (`src` points at the input row under output row 0
/// and reads r rows below and above it). Same contract as `cyan_convolve_rows_rgbaf`.
int cyan_convolve_columns_rgbaf(float *dst, ptrdiff_t dstStride, const float *src, ptrdiff_t srcStride,
                                size_t width, size_t rows, const float *w, int r, int bits);

/// The horizontal pass of a separable resampling over float RGBA: for each of `n` outputs o,
/// dst[o] = the sum over k < taps[o] of src[first[o] - origin + k] * weights[o * stride + k],
/// added up from zero in that order with every product rounded (no fused multiply-add), so
/// results never depend on the vector width (`src` holds column `origin` first). Uses at most
/// `bits`-wide vectors (see `cyan_vector_bits`); returns 0, touching nothing, below 256.
int cyan_resample_row_rgbaf(float *dst, const float *src, intptr_t origin, size_t n, const intptr_t *first, const intptr_t *taps,
                            const float *weights, size_t stride, int bits);

/// The vertical pass of the same: dst[x] = the sum over k < taps of rows[k][x] * w[k] for `n`
/// float RGBA pixels, in that order, under the same contract as `cyan_resample_row_rgbaf`.
int cyan_resample_column_rgbaf(float *dst, const float *const *rows, const float *w, size_t taps, size_t n, int bits);

/// The sRGB curve on the colour of `n` RGBA float pixels in place, through a 4096-cell table
/// of `cells` + 2 entries (SRGBCurveTables): with `encode`, linear to encoded (indexed by
/// sqrt(v) * cells), else encoded to linear (indexed by v * cells), interpolated linearly;
/// alpha kept bit for bit. The arithmetic of the Swift `curveLookup`, operation for operation
/// with no fused multiply-add, so the same bits. Pixels with a colour outside 0...1 (or NaN)
/// are left as they are and their indices written to `outside` (room for `n`); returns how
/// many, or -1, touching nothing, when the CPU lacks AVX2/FMA.
long cyan_srgb_curve_rgbaf(float *row, size_t n, const float *table, int cells, int encode, int32_t *outside);

/// CSS filter functions as `k` affine colour maps (13 floats each: a row-major 3x4 on r, g, b
/// with an offset column, then the factor alpha is multiplied by), applied in order to `n`
/// straight RGBA float pixels in place, every channel clamped to 0...1 (NaN to 0) after each
/// map. Bit for bit the portable Swift loop's arithmetic (separate multiplies and adds, summed
/// left to right). Returns 0, touching nothing, where no vector path exists (not x86-64).
int cyan_css_affines_rgbaf(float *row, size_t n, const float *m, int k);

/// The blend functions `cyan_blend_mix_rgbaf` runs (W3C names; overlay is hard light with the
/// layers swapped).
enum {
    CYAN_BLEND_NORMAL = 1, CYAN_BLEND_MULTIPLY, CYAN_BLEND_SCREEN, CYAN_BLEND_OVERLAY, CYAN_BLEND_HARD_LIGHT,
    CYAN_BLEND_SOFT_LIGHT, CYAN_BLEND_DIFFERENCE, CYAN_BLEND_EXCLUSION, CYAN_BLEND_DARKEN, CYAN_BLEND_LIGHTEN,
    // Below: pixels the source does not cover (alpha <= 0) are left as they are.
    CYAN_BLEND_COLOR_DODGE, CYAN_BLEND_COLOR_BURN, CYAN_BLEND_HUE, CYAN_BLEND_SATURATION, CYAN_BLEND_COLOR,
    CYAN_BLEND_LUMINOSITY
};

/// Blends straight RGBA float `source` pixels into `backdrop` (`n` pixels, in place):
/// colour `Cb + As (B(Cb, Cs) - Cb)` with blend function `mode` (a `CYAN_BLEND_*`), backdrop
/// alpha kept. With `sourceStep` 0 every pixel blends the one source pixel. Bit for bit the
/// Swift vector loop's arithmetic. Returns 0, touching nothing, for another mode or where no
/// vector path exists (not x86-64).
int cyan_blend_mix_rgbaf(float *backdrop, const float *source, int sourceStep, size_t n, int mode);

/// Film grain noise for `n` pixels of row `y` from column `x0`: a hash of (x >> 1, y, seed)
/// gives u in [0, 1); pixel pairs get u and 1 - u (antithetic), written as (v, v, v, 1).
void cyan_grain_noise_rgbaf(float *out, size_t n, int64_t x0, int64_t y, uint32_t seed);

/// Film grain blended onto `n` straight RGBA float pixels in place: with Rec. 709 luminance l,
/// colour += strength * 4 * l (1 - l) * (noise.r - 0.5); alpha kept.
void cyan_grain_overlay_rgbaf(float *row, const float *noise, size_t n, float strength);

/// Whether every one of `n` RGBA float pixels has alpha exactly 1 (NaN is not).
int cyan_alpha_is_one_rgbaf(const float *row, size_t n);

/// The vignette's darkening of `n` RGBA float pixels in place, alpha kept: with dx stepping
/// in groups of four from (0, 1, 2, 3) + dx0 (+ 4 a group), d = min(sqrt(dx^2 + dy^2) scale, 1),
/// s = d^2 (3 - 2d), colour times max(1 - k s^2, 0); bit for bit the Swift stage's loop.
/// Returns 0, touching nothing, where no vector path exists (not x86-64).
int cyan_vignette_rgbaf(float *row, size_t n, float dx0, float dy, float scale, float k);

/// Tetrahedral 3D LUT lookup over `n` straight RGBA float pixels in place: `table` holds
/// size^3 RGBA float entries (red fastest), a channel's grid coordinate is (v - domainLo[c]) *
/// domainScale[c], clamped to the grid; the result is mixed with the input by `intensity`
/// (1: the lookup alone); alpha is kept. The same bits as LUTSampler.tetrahedralSorted (Swift).
/// Returns 0, touching nothing, when the CPU lacks AVX2/FMA or size is outside 2...256.
int cyan_lut_tetrahedral_rgbaf(float *row, size_t n, const float *table, int size, const float *domainLo,
                               const float *domainScale, float intensity);

// The span IR of kernels compiled from source (Sources/Cyanotype/Kernels/Language): registers
// of `lanes` floats, each instruction run over the first `n` lanes. `op` numbers are the
// Swift `KernelOp` raw values, in the same order.
typedef struct {
    int32_t op, d, a, b, c;
} cyan_ir_instruction;

/// A block of RGBA float pixels a general kernel samples bilinearly (clear outside).
typedef struct {
    const float *pixels;
    int64_t min_x, min_y, width, height, row_stride;
} cyan_ir_sampler;

/// Runs `count` instructions over `n` lanes of `regs`; `loops` holds one iteration count per
/// loop, each cut short past `max_iterations`.
void cyan_ir_execute(const cyan_ir_instruction *code, int64_t count, float *regs, int64_t lanes, int64_t n,
                     const cyan_ir_sampler *samplers, int64_t sampler_count, int64_t *loops, int64_t max_iterations);
/// Splits `n` RGBA pixels into four planes `lanes` floats apart.
void cyan_ir_deinterleave(float *planes, int64_t lanes, const float *pixels, int64_t n);
/// Fills the pixel-centre coordinates of `n` pixels of row `y` from column `x`.
void cyan_ir_coordinates(float *dx, float *dy, int64_t x, int64_t y, int64_t n);
/// Joins four planes (registers r0..r3 of `regs`) into `n` RGBA pixels.
void cyan_ir_interleave(float *pixels, const float *regs, int64_t lanes, int32_t r0, int32_t r1, int32_t r2, int32_t r3, int64_t n);

#endif
