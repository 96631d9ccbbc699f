extension BuiltinFilters {
    /// CIHeightFieldFromMask: Turns a grayscale mask into a smooth raised height field.
    static let heightFieldFromMask = BuiltinFilter(
        FilterDescriptor(
            "CIHeightFieldFromMask", "Height Field From Mask", "Turns a grayscale mask into a smooth raised height field.",
            categories: [.builtIn, .stillImage, .stylize, .video], macOS: "10.4", iOS: "9", factory: "heightFieldFromMask",
            doc: """
                A smooth raised height field from a mask, 0 at the mask's edge
                rising to 1 about `radius` pixels inside it, for CIShadedMaterial. With `m` the
                mask's luminance (Rec. 709 weights on premultiplied working-space values, limited to
                0...1; 0 outside its extent), `b` its Gaussian blur of sigma `radius / 2` (the
                neighbourhood kind) and `u = max(0, 2b - 1)` (0 on a straight edge of a hard mask,
                `erf(d / radius * sqrt 2)` at depth d inside it), the height is the rounded profile
                `h = sqrt(1 - (1 - u)^2)`; the output is opaque grey `(h, h, h, 1)` over the mask's
                extent. Radius 0 applies the profile to the mask itself (a hard mask gives 0 and 1).
                """,
            inputs: [
                .image(),
                .number(
                    "inputRadius", "Radius", .distance, default: 10, identity: 10, min: 0, slider: 0...300, limit: .heightFieldRadius,
                    "How far inside the mask's edge the height rises to its top, in pixels."),
            ])
    ) { args throws(CIFilterError) in
        let mask = try args.image()
        let radius = try args.number(kCIInputRadiusKey)
        if mask.extent.isEmpty { return .empty() }
        let coverage = mask.applying(HeightFieldStage(step: .luminance))
        let blurred = gaussianBlurred(coverage, sigma: radius / 2)
        return blurred.applying(HeightFieldStage(step: .profile), extent: mask.extent)
    }
}

extension FilterInputLimit {
    /// CIHeightFieldFromMask's radius: twice the blur's sigma.
    static let heightFieldRadius = FilterInputLimit(minimum: 0, maximum: 500, reason: "the height rises through a Gaussian blur of sigma radius/2, limited to 250 as every blur is")
}

/// The two pointwise steps of CIHeightFieldFromMask.
struct HeightFieldStage: ColorStage {
    enum Step: Sendable {
        /// The mask's clamped luminance, as opaque grey.
        case luminance
        /// `u = max(0, 2b - 1)` of the blurred luminance, then `sqrt(1 - (1 - u)^2)`.
        case profile
    }
    let step: Step

    var wantsUnpremultiplied: Bool { false }

    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        switch step {
        case .luminance:
            for i in 0..<count {
                let m = maskLuminance(row[i])
                row[i] = SIMD4(m, m, m, 1)
            }
        case .profile:
            for i in 0..<count {
                let u = clamp01(2 * row[i].x - 1)
                let h = (1 - (1 - u) * (1 - u)).squareRoot()
                row[i] = SIMD4(h, h, h, 1)
            }
        }
    }
    var label: String { step == .luminance ? "height field: mask luminance" : "height field: rounded profile" }
}
