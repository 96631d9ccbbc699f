extension BuiltinFilters {
    /// CIShadedMaterial: Shades a height field using a shading (environment) image.
    static let shadedMaterial = BuiltinFilter(
        FilterDescriptor(
            "CIShadedMaterial", "Shaded Material", "Shades a height field using a shading (environment) image.",
            categories: [.builtIn, .highDynamicRange, .stillImage, .stylize, .video], macOS: "10.4", iOS: "9", factory: "shadedMaterial",
            doc: """
                Shades a height field (`inputImage`; lighter is higher, as
                CIHeightFieldFromMask makes) with an environment image (`inputShadingImage`, a shaded
                sphere seen from the front, as a sphere map). At each pixel the height `h` is the
                luminance (Rec. 709 weights on premultiplied working-space values) and its slope the
                central differences `(gx, gy)`; the surface normal is `n = normalize(-scale gx,
                -scale gy, 1)` and the output is the shading image at `centre + half-size * (nx, ny)`
                of its extent (less half a pixel, so the rim stays inside it): flat ground shows the
                sphere's middle, slopes its sides. Output extent: the height field's. A shading image
                without a finite extent is an error.
                """,
            inputs: [
                .image(),
                .image("inputShadingImage", "Shading Image", "The environment: a lit sphere filling the image."),
                .number("inputScale", "Scale", .distance, default: 10, min: 0, slider: 0.5...200, "How steep the height field is: its height for luminance 1, in pixels."),
            ])
    ) { args throws(CIFilterError) in
        let heights = try args.image(), shading = try args.image("inputShadingImage")
        let scale = try args.number(kCIInputScaleKey)
        let s = shading.extent
        if heights.extent.isEmpty || s.isEmpty { return .empty() }
        guard !s.isInfiniteOrHuge else {
            throw .invalidValue(filter: "CIShadedMaterial", key: "inputShadingImage", reason: "the shading image needs a finite extent (crop it first)")
        }
        let map = ShadedMaterialMap(
            scale: scale, cx: Double(s.midX), cy: Double(s.midY),
            rx: max(0, Double(s.width) / 2 - 0.5), ry: max(0, Double(s.height) / 2 - 0.5))
        return CIImage(node: WarpNode(input: shading.node, map: map, extent: heights.extent, auxiliary: [heights.node]))
    }
}

/// CIShadedMaterial's map: each pixel reads the shading image where its surface normal
/// points (see the declaration). Per tile, `tile` reads the height field with a one-pixel
/// border and keeps each pixel's source point.
struct ShadedMaterialMap: WarpMap {
    let scale: Double
    /// The shading image's centre and half-size (less half a pixel).
    let cx: Double, cy: Double, rx: Double, ry: Double
    /// The tile's offsets from pixel centre to source point once `tile` has read them.
    var field: OffsetField? = nil

    static var auxiliaryCount: Int { 1 }

    func auxiliaryRect(_ index: Int, for rect: PixelRect) -> PixelRect { rect.insetBy(dx: -1, dy: -1) }

    @inline(__always) func source(_ x: Double, _ y: Double) -> (Double, Double)? {
        guard let o = field?.offset(x, y) else { return nil }
        return (x + o.x, y + o.y)
    }

    /// Planned: the shading image's ellipse, where every source point lies. Per tile: the
    /// box of the tile's source points.
    func sourceBounds(_ box: PointBox) -> PointBox? {
        guard let field else { return PointBox(minX: cx - rx, minY: cy - ry, maxX: cx + rx, maxY: cy + ry) }
        return field.sourceBounds()
    }

    @inline(__always) private static func height(_ p: SIMD4<Float>) -> Double {
        0.2125 * Double(p.x) + 0.7154 * Double(p.y) + 0.0721 * Double(p.z)
    }

    func tile(_ rect: PixelRect, auxiliary: [PixelBlock]) -> ShadedMaterialMap {
        let field = OffsetField(rect: rect)
        let offsets = field.offsets, n = rect.width
        let image = auxiliary[0].buffer
        for r in 0..<rect.height {
            let below = image.row(r), row = image.row(r + 1), above = image.row(r + 2)
            let yc = Double(rect.minY + r) + 0.5
            for k in 0..<n {
                let gx = (Self.height(row[k + 2]) - Self.height(row[k])) / 2
                let gy = (Self.height(above[k + 1]) - Self.height(below[k + 1])) / 2
                let nx = -scale * gx, ny = -scale * gy
                let inv = 1 / (nx * nx + ny * ny + 1).squareRoot()
                let xc = Double(rect.minX + k) + 0.5
                offsets[r * n + k] = SIMD2(cx + rx * nx * inv - xc, cy + ry * ny * inv - yc)
            }
        }
        var map = self
        map.field = field
        return map
    }

    var label: String { "shaded material scale \(scale), sphere (\(cx), \(cy)) radii \(rx)x\(ry)" }
}
