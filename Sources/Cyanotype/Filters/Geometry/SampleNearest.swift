// CISampleNearest: a mark on the recipe, no pixels of its own.

extension BuiltinFilters {
    /// CISampleNearest: the image unchanged, marked so that the transforms applied after it
    /// (`transformed(by:)`, CIAffineTransform and the other affine filters) sample it at the
    /// nearest pixel instead of interpolating: `samplingNearest()`. Warps and resampling
    /// filters keep their own sampling.
    static let sampleNearest = BuiltinFilter(Catalog.CISampleNearest) { args throws(CIFilterError) in
        try args.image().samplingNearest()
    }
}
