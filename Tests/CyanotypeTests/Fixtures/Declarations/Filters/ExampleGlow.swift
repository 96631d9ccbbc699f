// A test fixture, not compiled: how a filter of our own is declared. Its table (attributes in
// Apple's terms, documentation, limits) is here, next to the maths, exactly as for Apple's
// filters.

extension FilterInputLimit {
    /// The glow's blur.
    static let exampleGlowRadius = FilterInputLimit(minimum: 0, maximum: 250, reason: "the glow is a Gaussian blur, limited as every blur is")
}

extension BuiltinFilters {
    /// CYExampleGlow: a filter of our own.
    static let exampleGlow = BuiltinFilter(
        FilterDescriptor(
            "CYExampleGlow", "Example Glow", "A filter of our own, declared as Apple's are (a test fixture for the catalogue script).",
            categories: [.builtIn, .stylize, .stillImage], factory: "exampleGlow",
            doc: "The image over a blur of itself tinted by `color`.",
            inputs: [
                .image(),
                .number("inputRadius", "Radius", .distance, default: 10, identity: 0, min: 0, slider: 0...100, limit: .exampleGlowRadius, "The glow's standard deviation, in pixels."),
                .color("inputColor", "Color", .color, default: [1, 0.9, 0.6, 1], "The glow's tint."),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        return image
    }
}
