// Edge filters: the Sobel operator (`Sobel`, a neighbourhood operation) in the outputs Apple's edge filters describe.
// Apple publishes no formulas; each doc comment states ours.
//
// Shared choices: the 3x3 Sobel sums run on premultiplied working-space pixels and are not
// normalised (a unit step gives 4):
//   gx = (ne + 2 e + se) - (nw + 2 w + sw),  gy = (nw + 2 n + ne) - (sw + 2 s + se)
// with n the pixel above (y + 1 in Core Image's y-up coordinates). The input is read clamped
// to its extent (edge pixels repeat), so an image's border is not an edge; the output extent
// is the input's (infinite stays infinite). "Luma" is Rec. 709 (0.2125, 0.7154, 0.0721), as in
// the colour filters.

extension BuiltinFilters {
    /// CIEdges: Highlights edges with colored outlines.
    static let edges = BuiltinFilter(
        FilterDescriptor(
            "CIEdges", "Edges", "Highlights edges with colored outlines.",
            categories: [.builtIn, .highDynamicRange, .stillImage, .stylize, .video], macOS: "10.4", iOS: "9", factory: "edges",
            doc: """
                Per colour channel, `intensity * sqrt(gx² + gy²)`, opaque (alpha 1). Flat
                areas are black; edges take the colour of the channels that change. Not clamped
                (Core Image lists it as high-dynamic-range). Intensity 0 gives opaque black.
                """,
            inputs: [
                .image(),
                .number("inputIntensity", "Intensity", .scalar, default: 1, identity: 0, min: 0, slider: 0...10),
            ]),
        reach: .pixels(1)
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let k = try args.float(kCIInputIntensityKey)
        return sobel(image, .magnitude(intensity: k))
    }

    /// CISobelGradients: Multichannel 3x3 Sobel gradient filter (signed x/y derivatives).
    static let sobelGradients = BuiltinFilter(
        FilterDescriptor(
            "CISobelGradients", "Sobel Gradients", "Multichannel 3x3 Sobel gradient filter (signed x/y derivatives).",
            categories: [.builtIn, .highDynamicRange, .stillImage, .stylize, .video], macOS: "14.0", iOS: "17", factory: "sobelGradients",
            doc: """
                Apple's "maximum horizontal gradient in the red channel and maximum
                vertical gradient in the green channel", signed: red is the gx of largest magnitude
                over red, green and blue (the first on ties), green the same for gy, blue 0, alpha 1.
                Values may be negative or above 1: render to a float format to keep them.
                """,
            inputs: [
                .image()
            ]),
        reach: .pixels(1)
    ) { args throws(CIFilterError) in
        sobel(try args.image(), .signedGradients)
    }

    /// CIEdgeWork: Black-and-white woodcut-style edge rendering.
    static let edgeWork = BuiltinFilter(
        FilterDescriptor(
            "CIEdgeWork", "Edge Work", "Black-and-white woodcut-style edge rendering.",
            categories: [.builtIn, .stillImage, .stylize, .video], macOS: "10.4", iOS: "9", factory: "edgeWork",
            doc: """
                A black-and-white woodcut. The input, clamped to its extent, is blurred
                by a Gaussian of standard deviation `radius` (not at all at radius 0: a larger radius
                gives thicker strokes); E is the Sobel magnitude of the blur's luma; black ink covers
                `ink = clamp((E - 0.1) / 0.1, 0, 1)` of each pixel over white paper:
                `out = (1 - ink, 1 - ink, 1 - ink, 1)`. Flat areas are white.
                """,
            inputs: [
                .image(),
                .number(
                    "inputRadius", "Radius", .distance, default: 3, min: 0, slider: 0...20, limit: .gaussianSigma,
                    "The standard deviation of the blur before the edges are found, in pixels."),
            ]),
        reach: .gaussian
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let sigma = try args.number(kCIInputRadiusKey)
        let clamped = image.extent.isInfinite ? image : image.clampedToExtent()
        let blurred = sigma > 0 ? gaussianBlurred(clamped, sigma: sigma) : clamped
        return CIImage(node: NeighbourhoodNode(input: blurred.node, operation: Sobel(output: .ink(low: edgeWorkLow, high: edgeWorkHigh), outputExtent: image.extent)))
    }

    /// CILineOverlay: Sketch effect: black edge lines over transparency, with noise reduction.
    static let lineOverlay = BuiltinFilter(
        FilterDescriptor(
            "CILineOverlay", "Line Overlay", "Sketch effect: black edge lines over transparency, with noise reduction.",
            categories: [.builtIn, .stillImage, .stylize, .video], macOS: "10.5", iOS: "9", factory: "lineOverlay",
            doc: """
                Black lines over clear, Apple's documented pipeline (noise reduction,
                Sobel edges, threshold, contrast). Noise reduction (`NoiseReduction`), on the input
                clamped to its extent: `smooth` is the mean of the 3x3 neighbours whose luma is within
                `NRNoiseLevel` of the pixel's, `mean` the mean of all nine, and
                `N = smooth + NRSharpness * (smooth - mean)`. Then with E the Sobel magnitude of N's
                luma, `alpha = clamp(contrast * (edgeIntensity * E - threshold), 0, 1)`, colour black
                (premultiplied (0, 0, 0, alpha)). Composite it over an image to see it.
                """,
            inputs: [
                .image(),
                .number("inputNRNoiseLevel", "NR Noise Level", .scalar, default: 0.07, identity: 0, min: 0, slider: 0...0.1),
                .number("inputNRSharpness", "NR Sharpness", .scalar, default: 0.71, identity: 0, min: 0, slider: 0...2),
                .number("inputEdgeIntensity", "Edge Intensity", .scalar, default: 1, identity: 0, min: 0, slider: 0...200),
                .number("inputThreshold", "Threshold", .scalar, default: 0.1, identity: 0, min: 0, slider: 0...1),
                .number("inputContrast", "Contrast", .scalar, default: 50, identity: 1, min: 0.25, slider: 0.25...200),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        return try lineOverlayImage(
            image, noise: args.float("inputNRNoiseLevel"), sharpness: args.float("inputNRSharpness"),
            intensity: args.float("inputEdgeIntensity"), threshold: args.float("inputThreshold"),
            contrast: args.float("inputContrast"))
    }

    /// CIComicEffect: Comic-book look: edge outlines plus a halftone-like color treatment.
    static let comicEffect = BuiltinFilter(
        FilterDescriptor(
            "CIComicEffect", "Comic Effect", "Comic-book look: edge outlines plus a halftone-like color treatment.",
            categories: [.builtIn, .stillImage, .stylize, .video], macOS: "10.5", iOS: "9", factory: "comicEffect",
            doc: """
                Apple describes "outlining edges and applying a color halftone effect".
                Ours reduces the colours instead of half-toning them: CILineOverlay at its defaults
                (noise 0.07, sharpness 0.71, edge intensity 1, threshold 0.1, contrast 50) composited
                source-over CIColorPosterize at its default 6 levels (`floor(v * 6 + 0.5) / 6` per
                straight channel), cropped to the input's extent.
                """,
            inputs: [
                .image()
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let lines = lineOverlayImage(image, noise: 0.07, sharpness: 0.71, intensity: 1, threshold: 0.1, contrast: 50)
        let flat = image.applying(PosterizeStage(levels: 6))
        return lines.composited(over: flat).cropped(to: image.extent)
    }
}

/// CIEdgeWork's ink ramp on the luma gradient magnitude.
let edgeWorkLow: Float = 0.1, edgeWorkHigh: Float = 0.2

/// A Sobel node over the image clamped to its extent, with the image's extent.
private func sobel(_ image: CIImage, _ output: SobelOutput) -> CIImage {
    let clamped = image.extent.isInfinite ? image : image.clampedToExtent()
    return CIImage(node: NeighbourhoodNode(input: clamped.node, operation: Sobel(output: output, outputExtent: image.extent)))
}

/// CILineOverlay's pipeline (see `BuiltinFilters.lineOverlay`).
private func lineOverlayImage(_ image: CIImage, noise: Float, sharpness: Float, intensity: Float, threshold: Float, contrast: Float) -> CIImage {
    let clamped = image.extent.isInfinite ? image : image.clampedToExtent()
    let reduced = NeighbourhoodNode(input: clamped.node, operation: NoiseReduction(noiseLevel: noise, sharpness: sharpness))
    return CIImage(
        node: NeighbourhoodNode(input: reduced, operation: Sobel(output: .lines(intensity: intensity, threshold: threshold, contrast: contrast), outputExtent: image.extent)))
}

/// What `Sobel` outputs, from the per-channel gradients on premultiplied pixels
///   gx = (ne + 2 e + se) - (nw + 2 w + sw),  gy = (nw + 2 n + ne) - (sw + 2 s + se)
/// (n is the pixel above, at y + 1 in Core Image's y-up coordinates; unnormalised, so a unit
/// step gives 4).
enum SobelOutput: Sendable {
    /// `intensity * sqrt(gx² + gy²)` per colour channel, opaque.
    case magnitude(intensity: Float)
    /// red: the gx of largest magnitude over red, green and blue (signed); green: the same
    /// for gy; blue 0; opaque.
    case signedGradients
    /// White paper with black ink where the luma gradient is strong:
    /// `ink = clamp((E - low) / (high - low), 0, 1)`, `out = (1 - ink, 1 - ink, 1 - ink, 1)`,
    /// E the magnitude of the gradient of Rec. 709 luma.
    case ink(low: Float, high: Float)
    /// Black lines over clear: `alpha = clamp(contrast * (intensity * E - threshold), 0, 1)`,
    /// colour black, E as for `ink`.
    case lines(intensity: Float, threshold: Float, contrast: Float)
}

/// The 3x3 Sobel operator on premultiplied pixels, in one of its outputs. The filters hand it
/// an input clamped to its extent (so the border sees its own edge pixels rather than clear)
/// and the unclamped input's extent as `outputExtent`.
struct Sobel: NeighbourhoodRowOperation {
    let output: SobelOutput
    /// The output extent (the filters pass the unclamped input's).
    let outputExtent: CGRect
    var reach: NeighbourhoodReach { NeighbourhoodReach(1) }
    func extent(of input: CGRect) -> CGRect { outputExtent }

    func run(_ m: UnsafeMutablePointer<SIMD4<Float>>, stride sw: Int, into d: UnsafeMutablePointer<SIMD4<Float>>, count w: Int) {
        let luma = SIMD4<Float>(lumaWeights, 0)
        // Rows ascend in y, so `n` (above) is one row on.
        let n = m + sw, s = m - sw
        switch output {
        case .magnitude(let k):
            for x in 0..<w {
                let gx = (n[x + 1] + 2 * m[x + 1] + s[x + 1]) - (n[x - 1] + 2 * m[x - 1] + s[x - 1])
                let gy = (n[x - 1] + 2 * n[x] + n[x + 1]) - (s[x - 1] + 2 * s[x] + s[x + 1])
                var v = (gx * gx + gy * gy).squareRoot() * k
                v.w = 1
                d[x] = v
            }
        case .signedGradients:
            for x in 0..<w {
                let gx = (n[x + 1] + 2 * m[x + 1] + s[x + 1]) - (n[x - 1] + 2 * m[x - 1] + s[x - 1])
                let gy = (n[x - 1] + 2 * n[x] + n[x + 1]) - (s[x - 1] + 2 * s[x] + s[x + 1])
                d[x] = SIMD4(largest(gx), largest(gy), 0, 1)
            }
        case .ink(let low, let high):
            let scale = 1 / (high - low)
            for x in 0..<w {
                let e = lumaGradient(n, m, s, x, luma)
                let ink = min(max((e - low) * scale, 0), 1)
                d[x] = SIMD4(1 - ink, 1 - ink, 1 - ink, 1)
            }
        case .lines(let k, let t, let c):
            for x in 0..<w {
                let e = lumaGradient(n, m, s, x, luma)
                let a = min(max(c * (k * e - t), 0), 1)
                d[x] = SIMD4(0, 0, 0, a)
            }
        }
    }

    /// The component of red, green, blue with the largest magnitude (the first on ties).
    @inline(__always) private func largest(_ g: SIMD4<Float>) -> Float {
        var v = g.x
        if abs(g.y) > abs(v) { v = g.y }
        if abs(g.z) > abs(v) { v = g.z }
        return v
    }

    /// Magnitude of the Sobel gradient of luma at column x.
    @inline(__always) private func lumaGradient(
        _ n: UnsafeMutablePointer<SIMD4<Float>>, _ m: UnsafeMutablePointer<SIMD4<Float>>,
        _ s: UnsafeMutablePointer<SIMD4<Float>>, _ x: Int, _ luma: SIMD4<Float>
    ) -> Float {
        let gx = (n[x + 1] + 2 * m[x + 1] + s[x + 1]) - (n[x - 1] + 2 * m[x - 1] + s[x - 1])
        let gy = (n[x - 1] + 2 * n[x] + n[x + 1]) - (s[x - 1] + 2 * s[x] + s[x + 1])
        let lx = gx.x * luma.x + gx.y * luma.y + gx.z * luma.z
        let ly = gy.x * luma.x + gy.y * luma.y + gy.z * luma.z
        return (lx * lx + ly * ly).squareRoot()
    }

    var label: String { "sobel \(output)" }
}
