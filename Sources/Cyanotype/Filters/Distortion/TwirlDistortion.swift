extension BuiltinFilters {
    /// CITwirlDistortion: inside the disc of `inputRadius` about `inputCenter`, the point at
    /// distance r is the input rotated about the centre by `inputAngle * (1 - r/R)^2`
    /// (radians, counter-clockwise for a positive angle, y up): the full angle at the centre,
    /// fading to none at the rim. Outside the disc, unchanged. Output extent: the input's.
    static let twirlDistortion = BuiltinFilter(Catalog.CITwirlDistortion, pictureRelative: [kCIInputRadiusKey]) { args throws(CIFilterError) in
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
