extension BuiltinFilters {
    /// CIDisplacementDistortion: Offsets pixels by amounts read from a displacement image.
    static let displacementDistortion = BuiltinFilter(
        FilterDescriptor(
            "CIDisplacementDistortion", "Displacement Distortion", "Offsets pixels by amounts read from a displacement image.",
            categories: [.builtIn, .distortionEffect, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "9", factory: "displacementDistortion",
            doc: """
                Moves each pixel's sample point by the displacement image:
                the output at p is the input at `p + inputScale * (r - 0.5, g - 0.5)`, r and g the
                displacement image's red and green at p (working-space values, clamped to 0...1; clear
                outside its extent, so there the shift is -scale/2 on both axes). Scale 0 is the
                identity. Output extent: the input's, grown by scale/2 (the farthest a pixel moves).
                """,
            inputs: [
                .image(),
                .image("inputDisplacementImage", "Displacement Image"),
                .number("inputScale", "Scale", .distance, default: 50, identity: 0, min: 0, slider: 0...200),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let displacement = try args.image("inputDisplacementImage")
        let scale = try args.number(kCIInputScaleKey)
        if scale == 0 { return image }
        let e = image.extent
        if e.isEmpty { return .empty() }
        let extent = e.isInfiniteOrHuge ? CGRect.infinite : e.insetBy(dx: -scale / 2, dy: -scale / 2)
        return CIImage(node: WarpNode(input: image.node, map: DisplacementMap(scale: scale, mode: .channels), extent: extent, auxiliary: [displacement.node]))
    }
}

/// How `DisplacementMap` turns its image into offsets.
enum DisplacementSource: Sendable {
    /// CIDisplacementDistortion: `scale * (r - 0.5, g - 0.5)` of the pixel (values clamped
    /// to 0...1).
    case channels
    /// CIGlassDistortion: `scale * (dL/dx, dL/dy)`, the central differences of the
    /// luminance L = 0.2126 r + 0.7152 g + 0.0722 b (clamped to 0...1) of the texture, so a
    /// sample moves up the texture's slopes.
    case gradient
}

/// The offsets of one output tile's pixels, rows ascending.
final class OffsetField: @unchecked Sendable {
    let rect: PixelRect
    let offsets: UnsafeMutablePointer<SIMD2<Double>>

    init(rect: PixelRect) {
        self.rect = rect
        offsets = .allocate(capacity: max(1, rect.area))
    }
    deinit { offsets.deallocate() }

    /// The offset of the pixel whose centre is (x, y); nil outside the tile.
    @inline(__always) func offset(_ x: Double, _ y: Double) -> SIMD2<Double>? {
        let fx = x - Double(rect.minX), fy = y - Double(rect.minY)
        guard fx >= 0, fy >= 0 else { return nil }
        let k = Int(fx), r = Int(fy)
        guard k < rect.width, r < rect.height else { return nil }
        return offsets[r * rect.width + k]
    }

    /// The box of the source points (pixel centre plus offset) of every pixel with a finite
    /// one; nil when none is finite.
    func sourceBounds() -> PointBox? {
        let n = rect.width
        var out = PointBox(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)
        for r in 0..<rect.height {
            let yc = Double(rect.minY + r) + 0.5
            for k in 0..<n {
                let o = offsets[r * n + k]
                let u = Double(rect.minX + k) + 0.5 + o.x, v = yc + o.y
                if u.isFinite && v.isFinite { out.include(u, v) }
            }
        }
        return out.minX <= out.maxX ? out : nil
    }
}

/// The displacement warps' map: each output pixel centre p samples its input at p plus an
/// offset read from the second image at p (`DisplacementSource`; working-space, premultiplied
/// values; no offset exceeds scale/2 on either axis). Per tile, `tile` reads the offsets and
/// the tile reads only the box of the source points they give.
struct DisplacementMap: WarpMap {
    let scale: Double
    let mode: DisplacementSource
    /// The tile's offsets once `tile` has read them; nil for the map as planned (whose
    /// `source` knows no point).
    var field: OffsetField? = nil

    static var auxiliaryCount: Int { 1 }

    /// The tile's pixels, and their neighbours for a gradient.
    func auxiliaryRect(_ index: Int, for rect: PixelRect) -> PixelRect {
        mode == .gradient ? rect.insetBy(dx: -1, dy: -1) : rect
    }

    @inline(__always) func source(_ x: Double, _ y: Double) -> (Double, Double)? {
        guard let o = field?.offset(x, y) else { return nil }
        return (x + o.x, y + o.y)
    }

    /// Planned: the centres moved by up to scale/2 each way. Per tile: the box of the source
    /// points the offsets give.
    func sourceBounds(_ box: PointBox) -> PointBox? {
        guard let field else {
            let k = scale / 2
            return PointBox(minX: box.minX - k, minY: box.minY - k, maxX: box.maxX + k, maxY: box.maxY + k)
        }
        return field.sourceBounds()
    }

    /// The clamped luminance of a premultiplied working-space pixel.
    @inline(__always) private static func luma(_ p: SIMD4<Float>) -> Double {
        min(max(0.2126 * Double(p.x) + 0.7152 * Double(p.y) + 0.0722 * Double(p.z), 0), 1)
    }

    /// Reads each pixel's offset from the second image (over `auxiliaryRect`).
    func tile(_ rect: PixelRect, auxiliary: [PixelBlock]) -> DisplacementMap {
        let field = OffsetField(rect: rect)
        let offsets = field.offsets, n = rect.width
        let image = auxiliary[0].buffer
        switch mode {
        case .channels:
            for r in 0..<rect.height {
                let dr = image.row(r)
                for k in 0..<n {
                    let rx = Double(min(max(dr[k].x, 0), 1)), gy = Double(min(max(dr[k].y, 0), 1))
                    offsets[r * n + k] = SIMD2(scale * (rx - 0.5), scale * (gy - 0.5))
                }
            }
        case .gradient:
            for r in 0..<rect.height {
                let below = image.row(r), row = image.row(r + 1), above = image.row(r + 2)
                for k in 0..<n {
                    let gx = (Self.luma(row[k + 2]) - Self.luma(row[k])) / 2
                    let gy = (Self.luma(above[k + 1]) - Self.luma(below[k + 1])) / 2
                    offsets[r * n + k] = SIMD2(scale * gx, scale * gy)
                }
            }
        }
        var map = self
        map.field = field
        return map
    }

    var label: String { "displacement (\(mode)) scale \(scale)" }
}
