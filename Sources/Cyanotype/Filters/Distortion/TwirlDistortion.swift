extension BuiltinFilters {
    /// CITwirlDistortion: Twists pixels around a center by an angle that fades with distance.
    static let twirlDistortion = BuiltinFilter(
        FilterDescriptor(
            "CITwirlDistortion", "Twirl Distortion", "Twists pixels around a center by an angle that fades with distance.",
            categories: [.builtIn, .distortionEffect, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "5", factory: "twirlDistortion",
            doc: """
                Inside the disc of `inputRadius` about `inputCenter`, the point at
                distance r is the input rotated about the centre by `inputAngle * (1 - r/R)^2`
                (radians, counter-clockwise for a positive angle, y up): the full angle at the centre,
                fading to none at the rim. Outside the disc, unchanged. Output extent: the input's.
                """,
            inputs: [
                .image(),
                .vector("inputCenter", "Center", .position, default: [150, 150]),
                .number("inputRadius", "Radius", .distance, default: 300, identity: 300, min: 0, slider: 0...500),
                .number("inputAngle", "Angle", .angle, default: 3.141592653589793, identity: 0, slider: -12.56637061435917...12.56637061435917),
            ]),
        pictureRelative: [kCIInputRadiusKey]
    ) { args throws(CIFilterError) in
        try radiallyWarped(TwirlMap.self, args, amountKey: kCIInputAngleKey)
    }
}

/// CITwirlDistortion: rotation by amount * (1 - r/R)^2.
struct TwirlMap: RadialWarp {
    static var name: String { "twirl" }
    static var rotates: Bool { true }
    let cx: Double, cy: Double, radius: Double, amount: Double
    @inline(__always) func value(_ r: Double, _ radius: Double) -> Double {
        let f = 1 - r / radius
        return amount * f * f
    }
}
