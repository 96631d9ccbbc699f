extension BuiltinFilters {
    /// CIVortexDistortion: like the twirl, with a rotation that falls off linearly,
    /// `inputAngle * (1 - r/R)`, so a large angle (the default is 18 pi, nine turns) winds the
    /// disc into evenly spaced spiral arms. Outside the disc, unchanged. Output extent: the
    /// input's.
    static let vortexDistortion = BuiltinFilter(Catalog.CIVortexDistortion) { args throws(CIFilterError) in
        let image = try args.image()
        let (cx, cy, radius) = try centreAndRadius(args)
        let angle = try args.number(kCIInputAngleKey)
        if angle == 0 || radius <= 0 { return image }
        return warped(image, RadialMap(cx: cx, cy: cy, radius: radius, profile: VortexProfile(amount: angle)), extent: image.extent)
    }
}

/// CIVortexDistortion: rotation by amount * (1 - r/R).
struct VortexProfile: RadialProfile {
    static var name: String { "vortex" }
    static var rotates: Bool { true }
    let amount: Double
    @inline(__always) func value(_ r: Double, _ radius: Double) -> Double { amount * (1 - r / radius) }
}
