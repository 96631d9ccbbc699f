extension BuiltinFilters {
    /// CITwirlDistortion: inside the disc of `inputRadius` about `inputCenter`, the point at
    /// distance r is the input rotated about the centre by `inputAngle * (1 - r/R)^2`
    /// (radians, counter-clockwise for a positive angle, y up): the full angle at the centre,
    /// fading to none at the rim. Outside the disc, unchanged. Output extent: the input's.
    static let twirlDistortion = BuiltinFilter(Catalog.CITwirlDistortion) { args throws(CIFilterError) in
        let image = try args.image()
        let (cx, cy, radius) = try centreAndRadius(args)
        let angle = try args.number(kCIInputAngleKey)
        if angle == 0 || radius <= 0 { return image }
        return warped(image, RadialMap(cx: cx, cy: cy, radius: radius, profile: TwirlProfile(amount: angle)), extent: image.extent)
    }
}

/// CITwirlDistortion: rotation by amount * (1 - r/R)^2.
struct TwirlProfile: RadialProfile {
    static var name: String { "twirl" }
    static var rotates: Bool { true }
    let amount: Double
    @inline(__always) func value(_ r: Double, _ radius: Double) -> Double {
        let f = 1 - r / radius
        return amount * f * f
    }
}
