extension BuiltinFilters {
    /// CIGlassDistortion: Refracts the image through a texture to look like patterned glass.
    static let glassDistortion = BuiltinFilter(
        FilterDescriptor(
            "CIGlassDistortion", "Glass Distortion", "Refracts the image through a texture to look like patterned glass.",
            categories: [.builtIn, .distortionEffect, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "8", factory: "glassDistortion",
            doc: """
                The input seen through patterned glass whose relief is the
                texture's luminance. The texture is placed with its extent's centre on `inputCenter`
                (an infinite texture stays where it is); the output at p is the input at
                `p + inputScale * (dL/dx, dL/dy)`, the central differences of the texture's luminance
                L = 0.2126 r + 0.7152 g + 0.0722 b (working space, clamped to 0...1) at p, so samples
                move up the relief and its raised parts magnify. Scale 0 is the identity. Output
                extent: the input's, grown by scale/2 (the farthest a pixel moves).
                """,
            inputs: [
                .image(),
                .image("inputTexture", "Texture"),
                .vector("inputCenter", "Center", .position, default: [150, 150]),
                .number("inputScale", "Scale", .distance, default: 200, identity: 0, min: 0, slider: 0.01...500),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        var texture = try args.image("inputTexture")
        let c = try args.point(kCIInputCenterKey)
        let scale = try args.number(kCIInputScaleKey)
        if scale == 0 { return image }
        let e = image.extent, t = texture.extent
        if e.isEmpty { return .empty() }
        if !t.isInfiniteOrHuge && !t.isEmpty {
            texture = texture.transformed(by: CGAffineTransform(translationX: c.x - t.midX, y: c.y - t.midY))
        }
        let extent = e.isInfiniteOrHuge ? CGRect.infinite : e.insetBy(dx: -scale / 2, dy: -scale / 2)
        return CIImage(node: WarpNode(input: image.node, map: DisplacementMap(scale: scale, mode: .gradient), extent: extent, auxiliary: [texture.node]))
    }
}
