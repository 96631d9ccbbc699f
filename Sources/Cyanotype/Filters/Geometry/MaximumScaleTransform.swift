// CIMaximumScaleTransform: scaling that keeps the brightest value under each output pixel,
// on the resampling kind with a box kernel combined by maximum.

/// The box of one output pixel's footprint, combined by maximum: the source pixels whose
/// centres lie inside the footprint (when enlarging, the one pixel whose centre is nearest,
/// or the upper of two equally near).
struct MaximumBox: ResamplingKernel {
    var support: Double { 0.5 }
    @inline(__always) func weight(_ x: Double) -> Double { abs(x) < 0.5 ? 1 : 0 }
    var combination: ResamplingCombination { .maximum }
    var label: String { "maximum" }
}

extension BuiltinFilters {
    /// CIMaximumScaleTransform: Downscales taking the maximum of neighbouring pixels instead of averaging.
    static let maximumScaleTransform = BuiltinFilter(
        FilterDescriptor(
            "CIMaximumScaleTransform", "Maximum Scale Transform", "Downscales taking the maximum of neighbouring pixels instead of averaging.",
            categories: [.builtIn, .geometryAdjustment, .highDynamicRange, .stillImage, .video], macOS: "15.0", iOS: "18", factory: "maximumScaleTransform",
            doc: """
                Scales by `scale` vertically and `scale * aspectRatio`
                horizontally, each output pixel the per-channel maximum (premultiplied working-space
                values) of the source pixels whose centres lie inside its footprint (the output pixel's
                square mapped back onto the source), so thin bright lines survive any reduction. When
                enlarging, the footprint holds at most one centre: the nearest source pixel (ties to
                the upper one). Reductions beyond 16x run in stages, each a maximum. Output extent: the
                input's, scaled. A zero scale gives an empty image; scale 1 and aspect ratio 1, the
                image itself.
                """,
            inputs: [
                .image(),
                .number("inputScale", nil, .scalar, default: 1, min: 0, slider: 0.05...1.5),
                .number("inputAspectRatio", nil, .scalar, default: 1, min: 0, slider: 0.5...2),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let s = try args.number(kCIInputScaleKey), a = try args.number(kCIInputAspectRatioKey)
        if s <= 0 || a <= 0 || image.extent.isEmpty { return .empty() }
        if s == 1 && a == 1 { return image }
        return CIImage(node: ResamplingNode<MaximumBox>.staged(image.node, kernel: MaximumBox(), sx: s * a, sy: s))
    }
}
