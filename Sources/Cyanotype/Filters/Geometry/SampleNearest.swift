// CISampleNearest: a mark on the recipe, no pixels of its own.

extension BuiltinFilters {
    /// CISampleNearest: Forces nearest-neighbour sampling for later geometric operations.
    static let sampleNearest = BuiltinFilter(
        FilterDescriptor(
            "CISampleNearest", "Sample Nearest", "Forces nearest-neighbour sampling for later geometric operations.",
            categories: [.builtIn, .highDynamicRange, .stillImage, .stylize, .video], macOS: "10.14", iOS: "12",
            doc: """
                The image unchanged, marked so that the transforms applied after it
                (`transformed(by:)`, CIAffineTransform and the other affine filters) sample it at the
                nearest pixel instead of interpolating: `samplingNearest()`. Warps and resampling
                filters keep their own sampling.
                """,
            inputs: [
                .image()
            ])
    ) { args throws(CIFilterError) in
        try args.image().samplingNearest()
    }
}
