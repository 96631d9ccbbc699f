// Filters that compare each pixel with a Gaussian blur of its neighbourhood: luminance
// sharpening, highlight and shadow adjustment, gloom. Apple publishes no formula for any of
// them; each doc comment states ours. The blur reads the input clamped to its extent (so the
// border is not darkened by the clear outside) and the result is cropped to the input.

extension BuiltinFilters {
    /// CISharpenLuminance: Sharpens luminance only, leaving chroma unchanged.
    static let sharpenLuminance = BuiltinFilter(
        FilterDescriptor(
            "CISharpenLuminance", "Sharpen Luminance", "Sharpens luminance only, leaving chroma unchanged.",
            categories: [.builtIn, .highDynamicRange, .sharpen, .stillImage, .video], macOS: "10.4", iOS: "6", factory: "sharpenLuminance",
            doc: """
                An unsharp mask on luminance only. Ours (Apple publishes no
                formula) adds the same grey offset to red, green and blue,
                `out.rgb = p.rgb + sharpness * (Y(p) - Y(blur))`, with `Y` the Rec. 709 luma of the
                premultiplied working-space colour and `blur` a Gaussian of standard deviation
                `radius` (the input clamped to its extent): luma moves by exactly that amount, chroma
                (`R - Y`, `B - Y`) and alpha stay. Sharpness 0 or radius 0 leaves the image as it is;
                a negative sharpness softens.
                """,
            inputs: [
                .image(),
                .number("inputSharpness", "Sharpness", .scalar, default: 0.4, identity: 0, slider: 0...2),
                .number(
                    "inputRadius", "Radius", .scalar, default: 1.69, identity: 0, slider: 0...20, limit: .gaussianSigma,
                    "The standard deviation of the Gaussian blur, in pixels."),
            ]),
        reach: .gaussian
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let k = try args.float(kCIInputSharpnessKey), sigma = try args.number(kCIInputRadiusKey)
        if k == 0 || !(sigma > 0) { return image }
        return image.applying(NeighbourhoodToneStage(mode: .sharpenLuminance, amount: k), extras: [clampedBlur(image, sigma)], extent: image.extent)
    }

    /// CIHighlightShadowAdjust: Lifts shadows and/or reduces highlights while keeping local detail.
    static let highlightShadowAdjust = BuiltinFilter(
        FilterDescriptor(
            "CIHighlightShadowAdjust", "Highlight and Shadow Adjust", "Lifts shadows and/or reduces highlights while keeping local detail.",
            categories: [.builtIn, .highDynamicRange, .stillImage, .stylize, .video], macOS: "10.7", iOS: "5", factory: "highlightShadowAdjust",
            doc: """
                Lifts (or deepens) shadows and pulls down highlights, each
                weighted by how dark or bright the neighbourhood is. Ours (Apple publishes no formula),
                on straight linear colour: with `y` the pixel's Rec. 709 luma and `L` the luma of a
                Gaussian blur of standard deviation `radius` (the pixel itself at radius 0), both
                limited to 0...1,
                `y1 = y + s * (1 - L)^2 * (s > 0 ? sqrt(y) - y : y - y^2)` (shadow amount `s`),
                `y2 = y1 - (1 - h) * L^2 * (y1 - y1^2)` (highlight amount `h`; 1 leaves highlights),
                and the colour is scaled by `(Y + y2 - y) / Y` (hue and saturation kept; where `Y` is
                0 the change is added as grey). Values outside 0...1 are left alone. `s = 0, h = 1`
                returns the image as it is.
                """,
            inputs: [
                .image(),
                .number(
                    "inputRadius", "Radius", .scalar, default: 0, identity: 0, min: 0, slider: 0...10, limit: .gaussianSigma,
                    """
                    The standard deviation of the Gaussian blur that measures the
                    neighbourhood's luma, in pixels (0: the pixel's own).
                    """),
                .number("inputShadowAmount", "Shadow Amount", .scalar, default: 0, identity: 0, min: -1, max: 1, slider: -1...1),
                .number("inputHighlightAmount", "Highlight Amount", .scalar, default: 1, identity: 1, min: 0, max: 1, slider: 0.3...1),
            ]),
        reach: .gaussian
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let sigma = try args.number(kCIInputRadiusKey)
        let s = try args.float("inputShadowAmount"), h = try args.float("inputHighlightAmount")
        if s == 0 && h == 1 { return image }
        if sigma > 0 {
            return image.applying(HighlightShadowStage(shadow: s, highlight: h, local: true), extras: [clampedBlur(image, sigma)], extent: image.extent)
        }
        return image.applying(HighlightShadowStage(shadow: s, highlight: h, local: false), extent: image.extent)
    }

    /// CIGloom: Dulls highlights (inverse of bloom).
    static let gloom = BuiltinFilter(
        FilterDescriptor(
            "CIGloom", "Gloom", "Dulls highlights (inverse of bloom).",
            categories: [.builtIn, .highDynamicRange, .stillImage, .stylize, .video], macOS: "10.4", iOS: "6", factory: "gloom",
            doc: """
                Dulls highlights, Apple's "inverse of bloom". Ours (Apple publishes no
                formula) multiplies the image by a Gaussian blur of itself (standard deviation
                `radius`; the image itself at radius 0), weighted by `intensity`, on straight colour:
                `out = p * max(0, 1 - intensity * (1 - blur))` per colour channel, alpha kept (the
                dual of our CIBloom's screen). Intensity 0 leaves the image as it is.
                """,
            inputs: [
                .image(),
                .number(
                    "inputRadius", "Radius", .distance, default: 10, identity: 0, min: 0, slider: 0...100, limit: .gaussianSigma,
                    "The standard deviation of the Gaussian blur, in pixels."),
                .number("inputIntensity", "Intensity", .scalar, default: 0.5, identity: 0, min: 0, slider: 0...1),
            ]),
        reach: .gaussian
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let sigma = try args.number(kCIInputRadiusKey), k = try args.float(kCIInputIntensityKey)
        if k == 0 { return image }
        let blurred = sigma > 0 ? clampedBlur(image, sigma) : image
        return image.applying(NeighbourhoodToneStage(mode: .gloom, amount: k), extras: [blurred], extent: image.extent)
    }
}

/// A Gaussian blur of the image clamped to its extent, cropped back to the extent.
private func clampedBlur(_ image: CIImage, _ sigma: Double) -> CIImage {
    gaussianBlurred(image.clampedToExtent(), sigma: sigma).cropped(to: image.extent)
}

/// Combines an image (the row) with its blur (`extra[0]`).
struct NeighbourhoodToneStage: ColorStage {
    enum Mode: String, Sendable { case sharpenLuminance, gloom }
    let mode: Mode
    let amount: Float
    var extraInputCount: Int { 1 }
    var wantsUnpremultiplied: Bool { mode == .gloom }
    var preservesAlpha: Bool { true }

    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let b = extra[0], k = amount
        switch mode {
        case .sharpenLuminance:
            let w = SIMD4<Float>(lumaWeights, 0)
            for i in 0..<count {
                let p = row[i], d = p - b[i]
                let dy = k * (w.x * d.x + w.y * d.y + w.z * d.z)
                row[i] = SIMD4(p.x + dy, p.y + dy, p.z + dy, p.w)
            }
        case .gloom:
            for i in 0..<count {
                let p = row[i], q = b[i]
                row[i] = SIMD4(p.x * gloomFactor(k, q.x), p.y * gloomFactor(k, q.y), p.z * gloomFactor(k, q.z), p.w)
            }
        }
    }
    var label: String { "\(mode.rawValue) combine" }
}

/// `max(0, 1 - k * (1 - q))`, NaN giving 0.
@inline(__always) func gloomFactor(_ k: Float, _ q: Float) -> Float {
    let f = 1 - k * (1 - q)
    return f > 0 ? f : 0
}

/// CIHighlightShadowAdjust's tone curve on luma, on straight colour; the local luma comes
/// from `extra[0]` (a blur) when `local`, else from the pixel itself.
struct HighlightShadowStage: ColorStage {
    let shadow: Float
    let highlight: Float
    let local: Bool
    var extraInputCount: Int { local ? 1 : 0 }
    var wantsUnpremultiplied: Bool { true }
    var preservesAlpha: Bool { true }

    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let w = SIMD4<Float>(lumaWeights, 0), s = shadow, h = highlight
        let b = local ? extra[0] : row
        for i in 0..<count {
            let p = row[i], q = b[i]
            let yFull = w.x * p.x + w.y * p.y + w.z * p.z
            let yl = unitMaskValue(yFull), l = unitMaskValue(w.x * q.x + w.y * q.y + w.z * q.z)
            let dark = (1 - l) * (1 - l)
            let lift = s > 0 ? yl.squareRoot() - yl : yl - yl * yl
            let y1 = yl + s * dark * lift
            let y2 = y1 - (1 - h) * (l * l) * (y1 - y1 * y1)
            let delta = y2 - yl
            if yFull > 1e-6 {
                let g = (yFull + delta) / yFull
                row[i] = SIMD4(p.x * g, p.y * g, p.z * g, p.w)
            } else {
                row[i] = SIMD4(p.x + delta, p.y + delta, p.z + delta, p.w)
            }
        }
    }
    var label: String { "highlight shadow \(shadow) \(highlight)" }
}
