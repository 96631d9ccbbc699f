extension BuiltinFilters {
    /// CIVortexDistortion: Swirls pixels around a center like a vortex.
    static let vortexDistortion = BuiltinFilter(
        FilterDescriptor(
            "CIVortexDistortion", "Vortex Distortion", "Swirls pixels around a center like a vortex.",
            categories: [.builtIn, .distortionEffect, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "6", factory: "vortexDistortion",
            doc: """
                Like the twirl, with a rotation that falls off linearly,
                `inputAngle * (1 - r/R)`, so a large angle (the default is 18 pi, nine turns) winds the
                disc into evenly spaced spiral arms. Outside the disc, unchanged. Output extent: the
                input's.
                """,
            inputs: [
                .image(),
                .vector("inputCenter", "Center", .position, default: [150, 150]),
                .number("inputRadius", "Radius", .distance, default: 300, identity: 0, min: 0, slider: 0...800),
                .number("inputAngle", "Angle", .angle, default: 56.548667764616276, identity: 0, slider: -94.24777960769379...94.24777960769379),
            ]),
        pictureRelative: [kCIInputRadiusKey]
    ) { args throws(CIFilterError) in
        try radiallyWarped(VortexMap.self, args, amountKey: kCIInputAngleKey)
    }
}

/// CIVortexDistortion: rotation by amount * (1 - r/R).
struct VortexMap: RadialWarp {
    static var name: String { "vortex" }
    static var rotates: Bool { true }
    let cx: Double, cy: Double, radius: Double, amount: Double
    @inline(__always) func value(_ r: Double, _ radius: Double) -> Double { amount * (1 - r / radius) }
}
