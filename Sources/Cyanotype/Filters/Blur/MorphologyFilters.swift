// Morphology (dilation, erosion, gradient) and the median: rank neighbourhoods (RankNodes).
// The morphology filters are one family (formula and element shapes in its declaration);
// their reaches are limited to 250 pixels, as the Gaussian blur limits its sigma.

extension FilterInputLimit {
    /// A disc's radius: at most 250 pixels, so a tile and its halo stay within memory;
    /// Core Image's slider stops at 50. Negative radii are 0 (Apple sets no minimum).
    static let morphologyRadius = FilterInputLimit(minimum: 0, maximum: 250, reason: "a tile reads its input with a halo of the radius, and past 250 pixels that halo outgrows memory")
    /// A rectangle's side: at most 501 pixels (a reach of 250); Core Image's slider stops at 49.
    static let morphologySide = FilterInputLimit(maximum: 501, reason: "a tile reads its input with a halo of half the side, and past 501 pixels that halo outgrows memory")
}

/// The structuring element of a morphology filter, and what it computes.
enum MorphologyElement: Sendable {
    /// Every integer offset within `inputRadius` of the pixel.
    case disc(MorphologyOperation)
    /// `inputWidth` x `inputHeight` pixels (rounded to whole pixels; an even side reaches one
    /// pixel further right or up).
    case rectangle(isMaximum: Bool)
}

extension BuiltinFilters {
    /// Morphology: the maximum (dilation), minimum (erosion) or their difference (gradient) of
    /// each component over a structuring element, on premultiplied working-space pixels.
    /// Apple documents the elements but no formula; ours are the standard ones:
    /// `maximum(x, y)` is the maximum over the offsets `(dx, dy)` of the element of
    /// `in(x + dx, y + dy)`, the minimum likewise; the disc is every integer offset with
    /// `dx² + dy² <= radius²` (radius below 1: the pixel alone, so maximum and minimum are the
    /// identity); the gradient is maximum minus minimum on red, green and blue, with the
    /// maximum's alpha (an opaque image gives opaque edges on black). Pixels outside the input
    /// read as clear (clamp the input first for solid edges, as with Core Image). Extents: a
    /// maximum or gradient grows by the element's reach, like a blur; a minimum keeps the
    /// input's extent (it is clear outside).
    ///
    /// - inputRadius: The disc's radius, in pixels.
    /// - inputWidth: The rectangle's width, in pixels (rounded).
    /// - inputHeight: The rectangle's height, in pixels (rounded).
    static let morphology = BuiltinFilter.family([
        /// CIMorphologyMaximum: dilation with a disc of `radius`.
        (Catalog.CIMorphologyMaximum, MorphologyElement.disc(.maximum)),
        /// CIMorphologyMinimum: erosion with a disc of `radius`.
        (Catalog.CIMorphologyMinimum, .disc(.minimum)),
        /// CIMorphologyGradient: dilation minus erosion with a disc of `radius` (an edge finder).
        (Catalog.CIMorphologyGradient, .disc(.gradient)),
        /// CIMorphologyRectangleMaximum: dilation with a `width` x `height` rectangle.
        (Catalog.CIMorphologyRectangleMaximum, .rectangle(isMaximum: true)),
        /// CIMorphologyRectangleMinimum: erosion with a `width` x `height` rectangle.
        (Catalog.CIMorphologyRectangleMinimum, .rectangle(isMaximum: false)),
    ], limits: [kCIInputRadiusKey: .morphologyRadius, kCIInputWidthKey: .morphologySide, "inputHeight": .morphologySide]) { args, element throws(CIFilterError) in
        switch element {
        case .disc(let operation): try diskMorphology(args, operation)
        case .rectangle(let isMaximum): try rectangleMorphology(args, isMaximum: isMaximum)
        }
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
    let radius = try args.number(kCIInputRadiusKey)
    // Below 1 the disc is the pixel alone: maximum and minimum are the identity.
    if radius < 1 && operation != .gradient { return image }
    return CIImage(node: DiskMorphologyNode(input: image.node, radius: radius, operation: operation))
}

private func rectangleMorphology(_ args: FilterArguments, isMaximum: Bool) throws(CIFilterError) -> CIImage {
    let image = try args.image()
    func side(_ key: String) throws(CIFilterError) -> Int {
        Int(try args.number(key).rounded())
    }
    let w = try side(kCIInputWidthKey), h = try side("inputHeight")
    if w == 1 && h == 1 { return image }
    return CIImage(node: RectangleMorphologyNode(input: image.node, width: w, height: h, isMaximum: isMaximum))
}
