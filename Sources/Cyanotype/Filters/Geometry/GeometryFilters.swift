// Geometry: these build transform and crop nodes; consecutive transforms concatenate.

extension BuiltinFilters {
    /// CIAffineTransform: the image through `inputTransform`, sampled bilinearly.
    static let affineTransform = BuiltinFilter(Catalog.CIAffineTransform, geometry: .affine(key: kCIInputTransformKey)) { args throws(CIFilterError) in
        try args.image().transformed(by: try args.transform(kCIInputTransformKey))
    }

    /// CICrop: the part of the image inside `inputRectangle` (whole pixels, rounded outward).
    static let crop = BuiltinFilter(Catalog.CICrop, geometry: .uprightRectangle) { args throws(CIFilterError) in
        try args.image().cropped(to: try args.rect("inputRectangle"))
    }

    /// CILanczosScaleTransform: scales by `scale` vertically and `scale * aspectRatio`
    /// horizontally with a Lanczos-3 filter (widened when shrinking, so no aliasing).
    static let lanczosScaleTransform = BuiltinFilter(Catalog.CILanczosScaleTransform, geometry: .uprightRectangle) { args throws(CIFilterError) in
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
