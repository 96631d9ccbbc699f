import Cyanotype

/// Instafilter: named looks, filter chains with intensity, film grain and an exporter, built
/// only on Cyanotype's public API.
///
/// ```swift
/// let clarendon = InstaClarendon()
/// clarendon.intensity = 0.7
/// let chain = FilterChain()
/// chain.append(clarendon)
/// chain.append(InstaGrain())
/// let preview = Renderer.shared.render(image: image, with: chain)          // lazy CIImage
/// let jpeg = try Renderer.shared.export(image: image, with: chain,
///                                       format: .jpeg(compressionQuality: 0.9), maxSize: 2048)
/// ```
///
/// ## Colour
/// Images stay in Cyanotype's working space (premultiplied linear sRGB) between filters. A
/// CSS look decodes to sRGB-encoded straight values inside its own colour kernel, does all of
/// its work there (overlays, then filter functions, clamped to [0, 1] after each), and encodes
/// back, with the exact sRGB transfer formulas (tabulated, error < 5e-6). One kernel per look,
/// so it fuses with neighbouring colour work. Exports are 8-bit sRGB.
///
/// ## What matches CSS exactly, and what is approximated
/// - Exact (to float rounding; tests: within 1/255 of a Double reference from the published
///   data): the W3C filter-function matrices (editor's draft coefficients 0.2126/0.7152/0.0722),
///   the W3C blend formulas on sRGB-encoded values (all 16 modes), gradient geometry
///   (farthest-corner circles, `at X Y`, `to right`/`to bottom`, CSS stop fix-up,
///   premultiplied interpolation) and the evaluation order of cssgram_presets.json.
/// - Browsers differ slightly: Chromium uses 0.213/0.715/0.072 for saturate and hue-rotate
///   (at most 1 level apart on 8-bit output) and may blend and filter at different precision.
/// - CSSgram assumes opaque images. For translucent pixels, colour is processed as if opaque
///   and alpha is kept (times any `opacity()` function): overlays are clipped to the image.
/// - `intensity` mixes the look with the original in linear light (working space).
/// - Own looks (Juno, Ludwig, Crema, Sierra, Portra, Tri-X) are our own interpretations, not
///   Instagram's filters; the film looks add grain.
///
/// ## Not supported yet
/// HEIF export where libheif has no HEVC encoder, embedding ICC profiles or keeping EXIF
/// metadata on export (exports are sRGB, metadata stripped), SVG filters (`blur()`, `drop-shadow()` and `url()` are refused by the CSS
/// parser).
public enum Instafilter {
    /// Every look name a recipe accepts (`FilterRegistry.names`).
    public static var lookNames: [String] { FilterRegistry.names }
}
