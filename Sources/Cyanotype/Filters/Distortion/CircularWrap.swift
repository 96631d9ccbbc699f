extension BuiltinFilters {
    /// CICircularWrap: Wraps the image around a transparent circle.
    static let circularWrap = BuiltinFilter(
        FilterDescriptor(
            "CICircularWrap", "Circular Wrap Distortion", "Wraps the image around a transparent circle.",
            categories: [.builtIn, .distortionEffect, .highDynamicRange, .stillImage, .video], macOS: "10.5", iOS: "9", factory: "circularWrap",
            doc: """
                Wraps the image around a clear circle of `inputRadius` about
                `inputCenter`: the image's bottom edge on the circle, its middle column at the top
                (turned counter-clockwise by `inputAngle`), columns following the circle clockwise at
                their own arc length and rows running outward, so the distortion grows with the
                distance from the centre. A point at distance r >= R, angle phi samples
                `(midX - R * wrap(phi - angle - pi/2), minY + r - R)`, wrap into -pi...pi; columns
                farther than pi R from the middle are not shown. Output extent: the square about the
                centre of half-side R + the image's height; an infinite image wraps about the centre's
                own column and row, with an infinite extent.
                """,
            inputs: [
                .image(),
                .vector("inputCenter", "Center", .position, default: [150, 150]),
                .number("inputRadius", "Radius", .distance, default: 150, min: 0, slider: 0...600),
                .number("inputAngle", "Angle", .angle, default: 0, identity: 0, slider: -3.141592653589793...3.141592653589793),
            ]),
        pictureRelative: [kCIInputRadiusKey]
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let (cx, cy, radius) = try centreAndRadius(args)
        let angle = try args.number(kCIInputAngleKey)
        let e = image.extent
        if e.isEmpty { return .empty() }
        if e.isInfiniteOrHuge {
            let map = CircularWrapMap(cx: cx, cy: cy, radius: radius, angle: angle, midX: cx, minY: cy)
            return warped(image, map, extent: .infinite)
        }
        let reach = radius + Double(e.height)
        let map = CircularWrapMap(cx: cx, cy: cy, radius: radius, angle: angle, midX: Double(e.midX), minY: Double(e.minY))
        return warped(image, map, extent: CGRect(x: cx - reach, y: cy - reach, width: 2 * reach, height: 2 * reach))
    }
}

/// CICircularWrap: the image wrapped around a clear circle of `radius`. The image's bottom
/// edge lies on the circle and its middle column at the angle pi/2 + `angle` (the top, for
/// angle 0); the point at distance r >= R and angle phi samples column
/// `midX - R * wrap(phi - angle - pi/2)` (wrap to -pi...pi: the image reads left to right
/// clockwise) and row `minY + (r - R)`. Arc lengths on the circle are the image's; farther
/// out they stretch by r/R. Inside the circle, clear.
struct CircularWrapMap: WarpMap {
    let cx: Double, cy: Double, radius: Double, angle: Double
    /// The image's middle column and bottom row.
    let midX: Double, minY: Double

    @inline(__always) func source(_ x: Double, _ y: Double) -> (Double, Double)? {
        let dx = x - cx, dy = y - cy
        let r = (dx * dx + dy * dy).squareRoot()
        if r < radius { return nil }
        let th = remainder(atan2(dy, dx) - angle - Double.pi / 2, 2 * Double.pi)
        return (midX - radius * th, minY + (r - radius))
    }

    func sourceBounds(_ box: PointBox) -> PointBox? {
        let (near, far) = box.distances(from: cx, cy)
        if far < radius { return nil }
        var lo = -Double.pi, hi = Double.pi
        if let (a0, a1) = box.angles(from: cx, cy) {
            let b0 = remainder(a0 - angle - Double.pi / 2, 2 * Double.pi), b1 = b0 + (a1 - a0)
            // A span reaching the cut at +-pi may hold both ends of the image.
            if b0 > -Double.pi + 1e-9 && b1 < Double.pi - 1e-9 { lo = b0; hi = b1 }
        }
        return PointBox(
            minX: midX - radius * hi, minY: minY + max(near - radius, 0),
            maxX: midX - radius * lo, maxY: minY + (far - radius))
    }

    var label: String { "circular wrap centre (\(cx), \(cy)) radius \(radius) angle \(angle)" }
}
