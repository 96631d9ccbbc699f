// Geometry: these build transform and crop nodes; consecutive transforms concatenate.

extension BuiltinFilters {
    /// CIAffineTransform: Scales, rotates, translates or skews the image with a 2D affine matrix.
    static let affineTransform = BuiltinFilter(
        FilterDescriptor(
            "CIAffineTransform", "Affine Transform", "Scales, rotates, translates or skews the image with a 2D affine matrix.",
            categories: [.builtIn, .geometryAdjustment, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "5",
            doc: "The image through `inputTransform`, sampled bilinearly.",
            inputs: [
                .image(),
                .other(
                    "NSAffineTransform", "inputTransform", "Transform", .transform, default: .transform([1.0, 0.0, 0.0, 1.0, 0.0, 0.0]),
                    identity: .transform([1.0, 0.0, 0.0, 1.0, 0.0, 0.0])),
            ]),
        geometry: .affine(key: kCIInputTransformKey)
    ) { args throws(CIFilterError) in
        try args.image().transformed(by: try args.transform(kCIInputTransformKey))
    }

    /// CICrop: Crops the image to a rectangle.
    static let crop = BuiltinFilter(
        FilterDescriptor(
            "CICrop", "Crop", "Crops the image to a rectangle.",
            categories: [.builtIn, .geometryAdjustment, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "5",
            doc: "The part of the image inside `inputRectangle` (whole pixels, rounded outward).",
            inputs: [
                .image(),
                .vector(
                    "inputRectangle", "Rectangle", .rectangle, default: [-8.988465674311579e+307, -8.988465674311579e+307, 1.7976931348623157e+308, 1.7976931348623157e+308],
                    identity: [-8.988465674311579e+307, -8.988465674311579e+307, 1.7976931348623157e+308, 1.7976931348623157e+308]),
            ]),
        geometry: .uprightRectangle
    ) { args throws(CIFilterError) in
        try args.image().cropped(to: try args.rect("inputRectangle"))
    }

    /// CILanczosScaleTransform: High-quality Lanczos resampling by a scale factor and aspect ratio.
    static let lanczosScaleTransform = BuiltinFilter(
        FilterDescriptor(
            "CILanczosScaleTransform", "Lanczos Scale Transform", "High-quality Lanczos resampling by a scale factor and aspect ratio.",
            categories: [.builtIn, .geometryAdjustment, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "6", factory: "lanczosScaleTransform",
            doc: """
                Scales by `scale` vertically and `scale * aspectRatio`
                horizontally with a Lanczos-3 filter (widened when shrinking, so no aliasing).
                """,
            inputs: [
                .image(),
                .number("inputScale", "Scale", .scalar, default: 1, identity: 1, min: 0, slider: 0.05...1.5),
                .number("inputAspectRatio", "Aspect Ratio", .scalar, default: 1, identity: 1, min: 0, slider: 0.5...2),
            ]),
        geometry: .uprightRectangle
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let s = try args.number(kCIInputScaleKey), a = try args.number(kCIInputAspectRatioKey)
        if s <= 0 || a <= 0 { return .empty() }
        if s == 1 && a == 1 { return image }
        return CIImage(node: lanczosScaled(image.node, sx: s * a, sy: s))
    }
}

/// CILanczosScaleTransform's resampling, in stages of at most 16x per axis.
func lanczosScaled(_ node: RecipeNode, sx: Double, sy: Double) -> RecipeNode {
    LanczosScaleNode.staged(node, kernel: Lanczos3(), sx: sx, sy: sy)
}

/// A single Lanczos-3 resampling (what `CIImage.transformed(by:highQualityDownsample:)` uses).
typealias LanczosScaleNode = ResamplingNode<Lanczos3>

extension ResamplingNode where Kernel == Lanczos3 {
    convenience init(input: RecipeNode, scaleX: Double, scaleY: Double) {
        self.init(input: input, kernel: Lanczos3(), scaleX: scaleX, scaleY: scaleY)
    }
}

/// The Lanczos-3 kernel: sinc(x) sinc(x / 3) for |x| < 3.
struct Lanczos3: ResamplingKernel {
    var support: Double { 3 }
    @inline(__always) func weight(_ x: Double) -> Double {
        if x == 0 { return 1 }
        if abs(x) >= 3 { return 0 }
        let px = Double.pi * x
        return 3 * sin(px) * sin(px / 3) / (px * px)
    }
    var label: String { "lanczos" }
}
