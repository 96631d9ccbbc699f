// CIDepthOfField: a fake tilt-shift from two points. The band between them stays sharp
// (saturated and unsharp-masked, as Apple describes the in-focus region), and the image
// blends into a Gaussian blur with the distance from the band (one colour stage that reads
// its own coordinates).

extension BuiltinFilters {
    /// CIDepthOfField: Fake tilt-shift: sharp band between two points, blur and saturation outside.
    static let depthOfField = BuiltinFilter(
        FilterDescriptor(
            "CIDepthOfField", "Depth of Field", "Fake tilt-shift: sharp band between two points, blur and saturation outside.",
            categories: [.builtIn, .stillImage, .stylize, .video], macOS: "10.6", iOS: "9", factory: "depthOfField",
            doc: """
                A tilt-shift "miniature" from two points, not depth data. Apple
                describes a sharp band through the two points, saturated and sharpened, with blur
                outside; it publishes no formula. Ours: the in-focus band is the strip between the
                lines through `point0` and `point1` perpendicular to the segment joining them (a
                horizontal line through point0 when the points coincide). There the image is
                saturated (CIColorControls' saturation) and then unsharp-masked (CIUnsharpMask with
                `unsharpMaskRadius` and `unsharpMaskIntensity`); outside, at distance d from the band,
                it is mixed with a Gaussian blur of standard deviation `radius` (of the input clamped
                to its extent) by `smoothstep(0, T, d)`, T = max(half the band's width, radius, 1)
                pixels, so the blur sets in gradually. The extent is the input's.
                """,
            inputs: [
                .image(),
                .vector("inputPoint0", "Point 0", .position, default: [0, 300], "One edge of the in-focus band."),
                .vector("inputPoint1", "Point 1", .position, default: [300, 300], "The other edge of the in-focus band."),
                .number("inputSaturation", "Saturation", .scalar, default: 1.5, min: 0, slider: 0...10, "The in-focus band's saturation (1 keeps the colour)."),
                .number(
                    "inputUnsharpMaskRadius", "Unsharp Mask Radius", .scalar, default: 2.5, min: 0, slider: 0...10, limit: .gaussianSigma,
                    """
                    The standard deviation, in pixels, of the in-focus band's
                    unsharp mask.
                    """),
                .number("inputUnsharpMaskIntensity", "Unsharp Mask Intensity", .scalar, default: 0.5, min: 0, slider: 0...10, "The strength of the in-focus band's unsharp mask."),
                .number(
                    "inputRadius", "Radius", .scalar, default: 6, min: 0, slider: 0...30, limit: .gaussianSigma,
                    "The standard deviation, in pixels, of the blur outside the band."),
            ])
    ) {
        args throws(CIFilterError) in
        let image = try args.image()
        let p0 = try args.point("inputPoint0"), p1 = try args.point("inputPoint1")
        let saturation = try args.float(kCIInputSaturationKey)
        let sharpRadius = try args.number("inputUnsharpMaskRadius"), sharpAmount = try args.float("inputUnsharpMaskIntensity")
        let radius = try args.number(kCIInputRadiusKey)
        if image.extent.isEmpty { return image }
        var sharp = image
        if saturation != 1 {
            sharp = sharp.applying(MatrixStage(m: colorControlsMatrix(saturation: saturation, brightness: 0, contrast: 1), wantsUnpremultiplied: false, name: "saturation"))
        }
        if sharpRadius > 0 && sharpAmount != 0 {
            sharp = sharp.applying(DetailStage(mode: .unsharp, amount: sharpAmount), extras: [gaussianBlurred(sharp, sigma: sharpRadius)], extent: image.extent)
        }
        if radius <= 0 { return sharp }
        let clamped = image.extent.isInfinite ? image : image.clampedToExtent()
        let blurred = gaussianBlurred(clamped, sigma: radius)
        let band = FocusBand(x0: Double(p0.x), y0: Double(p0.y), x1: Double(p1.x), y1: Double(p1.y), radius: radius)
        return sharp.applying(band, extras: [blurred], extent: image.extent)
    }
}

/// CIDepthOfField's mix: the row (in focus) and `extra[0]` (blurred) by
/// `smoothstep(0, ramp, d)`, d the distance of the pixel's centre from the band between the
/// lines through (x0, y0) and (x1, y1) perpendicular to the segment joining them.
struct FocusBand: ColorStage {
    /// The band's start and unit direction across it; `width` its width.
    let ox: Double, oy: Double, ux: Double, uy: Double, width: Double
    /// The distance over which the blur sets in.
    let ramp: Double

    init(x0: Double, y0: Double, x1: Double, y1: Double, radius: Double) {
        let dx = x1 - x0, dy = y1 - y0, len = (dx * dx + dy * dy).squareRoot()
        ox = x0; oy = y0
        if len > 1e-9 && len.isFinite {
            ux = dx / len; uy = dy / len; width = len
        } else {
            ux = 0; uy = 1; width = 0
        }
        ramp = max(width / 2, radius, 1)
    }

    var extraInputCount: Int { 1 }
    var wantsUnpremultiplied: Bool { false }

    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let blurred = extra[0]
        let py = Double(y) + 0.5 - oy
        for i in 0..<count {
            let along = (Double(x + i) + 0.5 - ox) * ux + py * uy
            let d = max(0, -along, along - width)
            let s = min(d / ramp, 1)
            let t = Float(s * s * (3 - 2 * s))
            row[i] = row[i] + (blurred[i] - row[i]) * t
        }
    }

    var label: String { "depth of field band (\(ox), \(oy)) width \(width), ramp \(ramp)" }
}
