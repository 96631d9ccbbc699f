// Geometry: these build transform and crop nodes; consecutive transforms concatenate.

extension BuiltinFilters {
    /// CIAffineTransform: the image through `inputTransform`, sampled bilinearly.
    static let affineTransform = BuiltinFilter(Catalog.CIAffineTransform) { args throws(CIFilterError) in
        try args.image().transformed(by: try args.transform(kCIInputTransformKey))
    }

    /// CICrop: the part of the image inside `inputRectangle` (whole pixels, rounded outward).
    static let crop = BuiltinFilter(Catalog.CICrop) { args throws(CIFilterError) in
        try args.image().cropped(to: try args.rect("inputRectangle"))
    }

    /// CILanczosScaleTransform: scales by `scale` vertically and `scale * aspectRatio`
    /// horizontally with a Lanczos-3 filter (widened when shrinking, so no aliasing).
    static let lanczosScaleTransform = BuiltinFilter(Catalog.CILanczosScaleTransform) { args throws(CIFilterError) in
        let image = try args.image()
        let s = try args.number(kCIInputScaleKey), a = try args.number(kCIInputAspectRatioKey)
        if s <= 0 || a <= 0 { return .empty() }
        if s == 1 && a == 1 { return image }
        return CIImage(node: lanczosScaled(image.node, sx: s * a, sy: s))
    }
}

/// Strong reductions run in stages of at most 16x per axis, so one output pixel never reads
/// more than about 100x100 source pixels (a 1000x shrink in one step would read 6000x6000).
func lanczosScaled(_ node: RecipeNode, sx: Double, sy: Double) -> RecipeNode {
    let limit = 1.0 / 16
    if sx >= limit && sy >= limit { return LanczosScaleNode(input: node, scaleX: sx, scaleY: sy) }
    let stepX = sx < limit ? sx.squareRoot() : sx, stepY = sy < limit ? sy.squareRoot() : sy
    let first = lanczosScaled(node, sx: stepX, sy: stepY)
    return lanczosScaled(first, sx: sx / stepX, sy: sy / stepY)
}
