// Morphology (dilation, erosion, gradient) and the median: rank neighbourhoods (RankNodes).
//
// Apple documents the structuring elements (a circle of `inputRadius`, a rectangle of
// `inputWidth` x `inputHeight`) but no formula; ours are the standard ones, per component on
// premultiplied working-space pixels:
//   maximum(x, y) = max over (dx, dy) in the element of in(x + dx, y + dy), minimum likewise;
//   the circle is every integer offset with dx² + dy² <= radius² (radius < 1: the pixel alone);
//   gradient = maximum - minimum on red, green and blue, with the maximum's alpha (so an opaque
//   image gives opaque edges on black).
// Pixels outside the input read as clear (clamp the input first for solid edges, as with
// Core Image). Extents: a maximum or gradient grows by the element's reach, like a blur; a
// minimum keeps the input's extent (it is clear outside). Reaches are capped at 250 pixels
// (radius 250, width or height 501), as the Gaussian blur caps its sigma, so a tile and its
// halo stay within memory; Core Image's sliders stop at 50 and 49.

/// The largest reach (pixels from the centre) a morphology element may have.
private let maximumReach = 250

extension BuiltinFilters {
    /// CIMorphologyMaximum: dilation with a disc of `radius` (see the file comment).
    static let morphologyMaximum = BuiltinFilter(Catalog.CIMorphologyMaximum) { args throws(CIFilterError) in
        try diskMorphology(args, .maximum)
    }
    /// CIMorphologyMinimum: erosion with a disc of `radius`.
    static let morphologyMinimum = BuiltinFilter(Catalog.CIMorphologyMinimum) { args throws(CIFilterError) in
        try diskMorphology(args, .minimum)
    }
    /// CIMorphologyGradient: dilation minus erosion with a disc of `radius` (an edge finder).
    static let morphologyGradient = BuiltinFilter(Catalog.CIMorphologyGradient) { args throws(CIFilterError) in
        try diskMorphology(args, .gradient)
    }
    /// CIMorphologyRectangleMaximum: dilation with a `width` x `height` rectangle (rounded to
    /// whole pixels; an even side reaches one pixel further right or up).
    static let morphologyRectangleMaximum = BuiltinFilter(Catalog.CIMorphologyRectangleMaximum) { args throws(CIFilterError) in
        try rectangleMorphology(args, isMaximum: true)
    }
    /// CIMorphologyRectangleMinimum: erosion with a `width` x `height` rectangle.
    static let morphologyRectangleMinimum = BuiltinFilter(Catalog.CIMorphologyRectangleMinimum) { args throws(CIFilterError) in
        try rectangleMorphology(args, isMaximum: false)
    }
    /// CIMedianFilter: the per-component median of each pixel's 3x3 neighbourhood (Apple
    /// documents a median over a small neighbourhood; 3x3 is what it uses). The extent is the
    /// input's.
    static let median = BuiltinFilter(Catalog.CIMedianFilter) { args throws(CIFilterError) in
        let image = try args.image()
        return CIImage(node: Median3x3Node(input: image.node))
    }
}

private func diskMorphology(_ args: FilterArguments, _ operation: MorphologyOperation) throws(CIFilterError) -> CIImage {
    let image = try args.image()
    let radius = min(max(try args.number(kCIInputRadiusKey), 0), Double(maximumReach))
    // Below 1 the disc is the pixel alone: maximum and minimum are the identity.
    if radius < 1 && operation != .gradient { return image }
    return CIImage(node: DiskMorphologyNode(input: image.node, radius: radius, operation: operation))
}

private func rectangleMorphology(_ args: FilterArguments, isMaximum: Bool) throws(CIFilterError) -> CIImage {
    let image = try args.image()
    func side(_ key: String) throws(CIFilterError) -> Int {
        Int(min(max(try args.number(key), 1), Double(2 * maximumReach + 1)).rounded())
    }
    let w = try side(kCIInputWidthKey), h = try side("inputHeight")
    if w == 1 && h == 1 { return image }
    return CIImage(node: RectangleMorphologyNode(input: image.node, width: w, height: h, isMaximum: isMaximum))
}
