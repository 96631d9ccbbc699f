// CIPerspectiveTile: the image repeated over its plane, and that plane seen in perspective.
//
// Not a `PlaneFold`: a fold is a map of the plane onto itself in a rotated frame, and this
// one is projective. It is a warp over the repeated image: each output point goes back
// through the homography and is wrapped into one period, whose neighbours across the seams
// come from the repeat node, so the tiles join without seams.

extension BuiltinFilters {
    /// CIPerspectiveTile: Applies a perspective transform and tiles the result.
    static let perspectiveTile = BuiltinFilter(
        FilterDescriptor(
            "CIPerspectiveTile", "Perspective Tile", "Applies a perspective transform and tiles the result.",
            categories: [.builtIn, .highDynamicRange, .stillImage, .tileEffect, .video], macOS: "10.4", iOS: "6", factory: "perspectiveTile",
            doc: """
                The image repeated without seams over the whole plane (period: its
                extent, in whole pixels), then seen through the projective map that takes the image's
                extent corners to the four points (bottom-left to `inputBottomLeft`, and so on; y up),
                as CIPerspectiveTransform does. The tiles shrink towards the vanishing line; beyond it
                the output is clear. Output extent: infinite. Collinear or coincident points, or an
                image without a finite extent, give an empty image.
                """,
            inputs: [
                .image(),
                .vector("inputTopLeft", "Top Left", .position, default: [118, 484]),
                .vector("inputTopRight", "Top Right", .position, default: [646, 507]),
                .vector("inputBottomRight", "Bottom Right", .position, default: [548, 140]),
                .vector("inputBottomLeft", "Bottom Left", .position, default: [155, 153]),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let cell = image.node.pixelExtent
        let h = try cornerHomography(args, from: cell.cgRect)
        guard !image.extent.isEmpty, !image.extent.isInfiniteOrHuge, let h else { return .empty() }
        let repeated = RepeatNode(input: image.node, period: cell)
        return CIImage(node: WarpNode(input: repeated, map: PerspectiveTileMap(forward: h, cell: cell), extent: .infinite))
    }
}

/// Output point -> the inverse homography -> wrapped into the period `cell`.
struct PerspectiveTileMap: WarpMap {
    let inverse: Homography
    let x0: Double, y0: Double, width: Double, height: Double
    let forward: Homography

    init(forward: Homography, cell: PixelRect) {
        self.forward = forward
        inverse = forward.inverse
        x0 = Double(cell.minX); y0 = Double(cell.minY)
        width = Double(cell.width); height = Double(cell.height)
    }

    /// `v` wrapped into [lo, lo + period).
    @inline(__always) private static func wrap(_ v: Double, _ lo: Double, _ period: Double) -> Double {
        let m = v - lo - period * ((v - lo) / period).rounded(.down)
        return lo + (m < period ? m : 0)
    }

    @inline(__always) func source(_ x: Double, _ y: Double) -> (Double, Double)? {
        let m = inverse
        let W = m.g * x + (m.h * y + m.i)
        guard W > 0 else { return nil }
        let u = (m.a * x + (m.b * y + m.c)) / W, v = (m.d * x + (m.e * y + m.f)) / W
        guard abs(u) < 1e15, abs(v) < 1e15 else { return nil }
        return (Self.wrap(u, x0, width), Self.wrap(v, y0, height))
    }

    /// The pre-image of the box wrapped into the period: the shifted box when it fits in one
    /// period along an axis, else the whole period along it.
    func sourceBounds(_ box: PointBox) -> PointBox? {
        let whole = PointBox(minX: x0, minY: y0, maxX: x0 + width, maxY: y0 + height)
        var pre = PointBox(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)
        for (x, y) in [(box.minX, box.minY), (box.maxX, box.minY), (box.maxX, box.maxY), (box.minX, box.maxY)] {
            let (X, Y, W) = inverse.apply(x, y)
            let u = X / W, v = Y / W
            guard W > 0, abs(u) < 1e15, abs(v) < 1e15 else {
                return box.minX == box.maxX && box.minY == box.maxY ? nil : whole
            }
            pre.include(u, v)
        }
        func axis(_ lo: Double, _ hi: Double, _ start: Double, _ period: Double) -> (Double, Double) {
            let k = ((lo - start) / period).rounded(.down)
            let a = lo - k * period, b = hi - k * period
            return b < start + period ? (a, b) : (start, start + period)
        }
        let (ax, bx) = axis(pre.minX, pre.maxX, x0, width), (ay, by) = axis(pre.minY, pre.maxY, y0, height)
        return PointBox(minX: ax, minY: ay, maxX: bx, maxY: by)
    }

    var label: String {
        let m = forward
        return "perspective tile [\(m.a), \(m.b), \(m.c); \(m.d), \(m.e), \(m.f); \(m.g), \(m.h), \(m.i)] period \(width)x\(height)"
    }
}
