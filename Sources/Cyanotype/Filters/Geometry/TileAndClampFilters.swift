// Infinite images from finite ones: edges extended (clamp) or the image repeated (tile).

extension BuiltinFilters {
    /// The family of CIAffineClamp and CIAffineTile: the image made infinite (its edges
    /// extended, or the image repeated), then moved by `inputTransform`.
    static let affineClampAndTile = BuiltinFilter.family(
        categories: [.builtIn, .highDynamicRange, .stillImage, .tileEffect, .video], macOS: "10.4", iOS: "6",
        inputs: [
            .image(),
            .other(
                "NSAffineTransform", "inputTransform", "Transform", .transform, default: .transform([1.0, 0.0, 0.0, 1.0, 0.0, 0.0]),
                identity: .transform([1.0, 0.0, 0.0, 1.0, 0.0, 0.0])),
        ],
        [
            (
                FilterDescriptor(
                    "CIAffineClamp", "Affine Clamp", "Applies an affine transform, then extends edge pixels outward to infinity.",
                    factory: "affineClamp",
                    doc: """
                        The image with its edge pixels extended to infinity, through
                        `inputTransform` (the clamp happens in the image's own space, so a rotated or scaled
                        result has no soft clear fringe: `clampedToExtent()` then `transformed(by:)`). A
                        singular transform gives an empty image.
                        """),
                false
            ),
            (
                FilterDescriptor(
                    "CIAffineTile", "Affine Tile", "Applies an affine transform, then repeats the result as an infinite tiling.",
                    factory: "affineTile",
                    doc: """
                        The image repeated over the whole plane (period: its extent, in whole
                        pixels), through `inputTransform`. Neighbouring tiles blend across the seams as one
                        periodic image. A singular transform gives an empty image.
                        """),
                true
            ),
        ]
    ) { args, tiles throws(CIFilterError) in
        let image = try args.image()
        let t = try args.transform(kCIInputTransformKey)
        if image.extent.isEmpty { return .empty() }
        guard tiles else { return image.clampedToExtent().transformed(by: t) }
        if image.extent.isInfiniteOrHuge { return image.transformed(by: t) }
        let tiled = CIImage(node: RepeatNode(input: image.node, period: image.node.pixelExtent))
        return tiled.transformed(by: t)
    }

    /// CIClamp: Leaves pixels inside a rectangle unchanged and extends its border pixels to infinity.
    static let clamp = BuiltinFilter(
        FilterDescriptor(
            "CIClamp", "Clamp", "Leaves pixels inside a rectangle unchanged and extends its border pixels to infinity.",
            categories: [.builtIn, .highDynamicRange, .stillImage, .tileEffect, .video], macOS: "10.12", iOS: "10",
            doc: """
                Pixels inside `inputExtent` unchanged, its border pixels extended to
                infinity (outside the image the border is clear, as with `clamped(to:)`). An empty
                rectangle gives an empty image, an infinite one the image unchanged.
                """,
            inputs: [
                .image(),
                .vector("inputExtent", "Extent", .rectangle, default: [0, 0, 0, 0]),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let r = try args.rect(kCIInputExtentKey).standardized
        if r.isInfiniteOrHuge { return image }
        if r.isNull || r.isEmpty || !(r.minX.isFinite && r.minY.isFinite) { return .empty() }
        return image.clamped(to: r)
    }
}
