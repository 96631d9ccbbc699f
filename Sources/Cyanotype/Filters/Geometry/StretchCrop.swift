// CIStretchCrop: fit an image to a size by stretching it, cropping it, or a mix, with the
// stretch optionally concentrated in the middle. One separable warp.

/// One axis of CIStretchCrop: output coordinate -> source coordinate.
struct StretchCropAxis: Sendable, Equatable {
    /// The source centre, the half-length of the source read, the output half-length.
    let centre: Double, sourceHalf: Double, outputHalf: Double
    /// How much of the stretch goes to the middle: g(u) = u + amount (u^3 - u) / 2.
    let amount: Double

    /// u in [-1, 1] across the output; the source at `centre + sourceHalf * g(u)`, g odd,
    /// increasing (g' >= 1 - amount / 2 > 0 for amount <= 1), g(±1) = ±1: slopes below 1
    /// in the middle stretch it more than the ends.
    @inline(__always) func source(_ v: Double) -> Double {
        let u = (v - outputHalf) / outputHalf
        return centre + sourceHalf * (u + amount * (u * u * u - u) / 2)
    }
}

struct StretchCropMap: WarpMap {
    let x: StretchCropAxis, y: StretchCropAxis

    @inline(__always) func source(_ px: Double, _ py: Double) -> (Double, Double)? { (x.source(px), y.source(py)) }

    /// Each axis is increasing: the box's ends bound it.
    func sourceBounds(_ box: PointBox) -> PointBox? {
        PointBox(minX: x.source(box.minX), minY: y.source(box.minY), maxX: x.source(box.maxX), maxY: y.source(box.maxY))
    }

    var label: String { "stretch crop x \(x.sourceHalf * 2) -> \(x.outputHalf * 2) y \(y.sourceHalf * 2) -> \(y.outputHalf * 2)" }
}

extension FilterInputLimit {
    /// CIStretchCrop's output size, per axis.
    static let outputSize = FilterInputLimit(minimum: 0, maximum: 1_073_741_824, reason: "the renderer addresses pixels within ±2^30")
}

extension BuiltinFilters {
    /// CIStretchCrop: Fits the image to a target size by a mix of stretching and cropping.
    static let stretchCrop = BuiltinFilter(
        FilterDescriptor(
            "CIStretchCrop", "Stretch Crop", "Fits the image to a target size by a mix of stretching and cropping.",
            categories: [.builtIn, .distortionEffect, .highDynamicRange, .stillImage, .video], macOS: "10.6", iOS: "9", factory: "stretchCrop",
            doc: """
                Fits the image to `size` (output extent `[0, 0, size.x, size.y]`). With
                the input w x h, stretching alone scales by `W/w` and `H/h`, cropping alone by the
                uniform `s = max(W/w, H/h)` then keeps the middle; `cropAmount` c mixes the two:
                `sx = (1 - c) W/w + c s`, `sy = (1 - c) H/h + c s` (both at least the stretch, so the
                scaled image covers the size), and the middle `W x H` of the scaled image is kept.
                `centerStretchAmount` k moves the stretch towards the middle: along an axis scaled by
                more than the other, with `u` in [-1, 1] across the output, the source is read at
                `g(u) = u + a (u^3 - u) / 2` of the kept half-span, `a = k (1 - min(sx, sy) / s_axis)`:
                the middle is stretched more (slope 1 - a/2) and the ends less (1 + a). Equal aspect
                ratios or k = 0 give a uniform scale. A size with a zero side, or an image without a
                finite extent, gives an empty image.
                """,
            inputs: [
                .image(),
                .vector("inputSize", "Size", .position, default: [1280, 720], limit: .outputSize, "The output's width (x) and height (y), in pixels."),
                .number("inputCropAmount", "Crop Amount", .scalar, default: 0.25, min: 0, max: 1, slider: 0...1, "0 stretches the image to the size, 1 crops it (uniform scale)."),
                .number(
                    "inputCenterStretchAmount", "Center Stretch Amount", .scalar, default: 0.25, min: 0, max: 1, slider: 0...1,
                    "How much more the middle is stretched than the ends."),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let size = try args.point("inputSize")
        let c = try args.number("inputCropAmount"), k = try args.number("inputCenterStretchAmount")
        let e = image.extent
        let W = Double(size.x), H = Double(size.y)
        guard !e.isEmpty, !e.isInfiniteOrHuge, W > 0, H > 0 else { return .empty() }
        let w = Double(e.width), h = Double(e.height)
        let s = max(W / w, H / h)
        let sx = (1 - c) * W / w + c * s, sy = (1 - c) * H / h + c * s
        let lesser = min(sx, sy)
        let x = StretchCropAxis(centre: Double(e.midX), sourceHalf: W / (2 * sx), outputHalf: W / 2, amount: k * (1 - lesser / sx))
        let y = StretchCropAxis(centre: Double(e.midY), sourceHalf: H / (2 * sy), outputHalf: H / 2, amount: k * (1 - lesser / sy))
        return warped(image, StretchCropMap(x: x, y: y), extent: CGRect(x: 0, y: 0, width: W, height: H))
    }
}
