// Infinite images from finite ones: edges extended (clamp) or the image repeated (tile).

extension BuiltinFilters {
    /// CIAffineClamp: the image with its edge pixels extended to infinity, through
    /// `inputTransform` (the clamp happens in the image's own space, so a rotated or scaled
    /// result has no soft clear fringe: `clampedToExtent()` then `transformed(by:)`). A
    /// singular transform gives an empty image.
    static let affineClamp = BuiltinFilter(Catalog.CIAffineClamp) { args throws(CIFilterError) in
        let image = try args.image()
        let t = try args.transform(kCIInputTransformKey)
        if image.extent.isEmpty { return .empty() }
        return image.clampedToExtent().transformed(by: t)
    }

    /// CIAffineTile: the image repeated over the whole plane (period: its extent, in whole
    /// pixels), through `inputTransform`. Neighbouring tiles blend across the seams as one
    /// periodic image. A singular transform gives an empty image.
    static let affineTile = BuiltinFilter(Catalog.CIAffineTile) { args throws(CIFilterError) in
        let image = try args.image()
        let t = try args.transform(kCIInputTransformKey)
        if image.extent.isEmpty { return .empty() }
        if image.extent.isInfiniteOrHuge { return image.transformed(by: t) }
        let tiled = CIImage(node: RepeatNode(input: image.node, period: image.node.pixelExtent))
        return tiled.transformed(by: t)
    }

    /// CIClamp: pixels inside `inputExtent` unchanged, its border pixels extended to
    /// infinity (outside the image the border is clear, as with `clamped(to:)`). An empty
    /// rectangle gives an empty image, an infinite one the image unchanged.
    static let clamp = BuiltinFilter(Catalog.CIClamp) { args throws(CIFilterError) in
        let image = try args.image()
        let r = try args.rect(kCIInputExtentKey).standardized
        if r.isInfiniteOrHuge { return image }
        if r.isNull || r.isEmpty || !(r.minX.isFinite && r.minY.isFinite) { return .empty() }
        return image.clamped(to: r)
    }
}
