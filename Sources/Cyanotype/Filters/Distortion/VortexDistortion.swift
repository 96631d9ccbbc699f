extension BuiltinFilters {
    /// CIVortexDistortion: like the twirl, with a rotation that falls off linearly,
    /// `inputAngle * (1 - r/R)`, so a large angle (the default is 18 pi, nine turns) winds the
    /// disc into evenly spaced spiral arms. Outside the disc, unchanged. Output extent: the
    /// input's.
    static let vortexDistortion = BuiltinFilter(Catalog.CIVortexDistortion, pictureRelative: [kCIInputRadiusKey]) { args throws(CIFilterError) in
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
