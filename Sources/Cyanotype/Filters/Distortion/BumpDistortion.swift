extension BuiltinFilters {
    /// CIBumpDistortion: Bulges (or pinches, with negative scale) a circular area around a center point.
    static let bumpDistortion = BuiltinFilter(
        FilterDescriptor(
            "CIBumpDistortion", "Bump Distortion", "Bulges (or pinches, with negative scale) a circular area around a center point.",
            categories: [.builtIn, .distortionEffect, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "6", factory: "bumpDistortion",
            doc: """
                A convex bump (positive `inputScale`, the centre magnified) or a
                concave one (negative, the centre shrunk). The point at distance r < R samples the
                input at distance `r * (1 - s * (1 - r/R))^2` in the same direction, s = `inputScale`;
                at the rim the factor is 1, so the bump joins the unchanged outside. Output extent:
                the input's.
                """,
            inputs: [
                .image(),
                .vector("inputCenter", "Center", .position, default: [150, 150]),
                .number("inputRadius", "Radius", .distance, default: 300, min: 0, slider: 0...600),
                .number("inputScale", "Scale", .scalar, default: 0.5, identity: 0, slider: -1...1),
            ]),
        pictureRelative: [kCIInputRadiusKey]
    ) { args throws(CIFilterError) in
        try radiallyWarped(BumpMap.self, args, amountKey: kCIInputScaleKey)
    }
}

/// CIBumpDistortion: source distance r * (1 - amount * (1 - r/R))^2.
struct BumpMap: RadialWarp {
    static var name: String { "bump" }
    static var rotates: Bool { false }
    let cx: Double, cy: Double, radius: Double, amount: Double
    @inline(__always) func value(_ r: Double, _ radius: Double) -> Double {
        let f = 1 - amount * (1 - r / radius)
        return r * f * f
    }
    /// R t (a + k t)^2 with a = 1 - k: extremes at the ends and where its derivative
    /// (a + k t)(a + 3 k t) vanishes.
    func bounds(_ r0: Double, _ r1: Double, _ radius: Double) -> (Double, Double) {
        var lo = min(value(r0, radius), value(r1, radius)), hi = max(value(r0, radius), value(r1, radius))
        if amount != 0 {
            let a = 1 - amount
            for t in [-a / amount, -a / (3 * amount)] where t * radius > r0 && t * radius < r1 {
                let s = value(t * radius, radius)
                lo = min(lo, s); hi = max(hi, s)
            }
        }
        return (max(lo, 0), hi)
    }
}
