// A test fixture, not compiled: how a filter of our own is declared. Its attributes are in
// ../cyanotype-filters.json (Apple's format); its documentation and limits are here, next to
// the maths, exactly as for Apple's filters.

extension FilterInputLimit {
    /// The glow's blur.
    static let exampleGlowRadius = FilterInputLimit(minimum: 0, maximum: 250, reason: "the glow is a Gaussian blur, limited as every blur is")
}

extension BuiltinFilters {
    /// CYExampleGlow: the image over a blur of itself tinted by `color`.
    ///
    /// - inputRadius: The glow's standard deviation, in pixels.
    /// - inputColor: The glow's tint.
    static let exampleGlow = BuiltinFilter(Catalog.CYExampleGlow, limits: [kCIInputRadiusKey: .exampleGlowRadius]) { args throws(CIFilterError) in
        let image = try args.image()
        return image
    }
}
