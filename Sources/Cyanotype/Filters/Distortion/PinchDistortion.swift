extension BuiltinFilters {
    /// CIPinchDistortion: Pinches pixels toward a center within a radius.
    static let pinchDistortion = BuiltinFilter(
        FilterDescriptor(
            "CIPinchDistortion", "Pinch Distortion", "Pinches pixels toward a center within a radius.",
            categories: [.builtIn, .distortionEffect, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "6", factory: "pinchDistortion",
            doc: """
                Pinches the disc towards its centre. The point at distance r < R
                samples the input at distance `R * (r/R)^(1 / (1 + inputScale))` in the same direction
                (a radial power: the centre is shrunk, the rim stays put). `inputScale` 0 is the
                identity; it is clamped at 0 as Apple's minimum says. Outside the disc, unchanged.
                Output extent: the input's.
                """,
            inputs: [
                .image(),
                .vector("inputCenter", "Center", .position, default: [150, 150]),
                .number("inputRadius", "Radius", .distance, default: 300, identity: 0, min: 0, slider: 0...1000),
                .number("inputScale", "Scale", .scalar, default: 0.5, identity: 0, min: 0, slider: 0...2),
            ]),
        pictureRelative: [kCIInputRadiusKey]
    ) { args throws(CIFilterError) in
        try radiallyWarped(PinchMap.self, args, amountKey: kCIInputScaleKey)
    }
}

/// CIPinchDistortion: source distance R * (r/R)^(1 / (1 + amount)).
struct PinchMap: RadialWarp {
    static var name: String { "pinch" }
    static var rotates: Bool { false }
    let cx: Double, cy: Double, radius: Double, amount: Double
    @inline(__always) func value(_ r: Double, _ radius: Double) -> Double {
        r > 0 ? radius * pow(r / radius, 1 / (1 + amount)) : 0
    }
}
