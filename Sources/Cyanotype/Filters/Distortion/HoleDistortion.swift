extension BuiltinFilters {
    /// CIHoleDistortion: Pushes pixels outward from a circular hole.
    static let holeDistortion = BuiltinFilter(
        FilterDescriptor(
            "CIHoleDistortion", "Hole Distortion", "Pushes pixels outward from a circular hole.",
            categories: [.builtIn, .distortionEffect, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "6", factory: "holeDistortion",
            doc: """
                A clear hole of `inputRadius` (at least 0.01, Apple's minimum) about
                `inputCenter`, the image pushed outward around it. The point at distance r > R samples
                the input at distance `sqrt(r^2 - R^2)` in the same direction: the pixels next to the
                hole move the most (by up to R), those far away hardly at all. Output extent: the
                input's, grown by R on every side (the farthest any pixel moves); infinite stays
                infinite.
                """,
            inputs: [
                .image(),
                .vector("inputCenter", "Center", .position, default: [150, 150]),
                .number("inputRadius", "Radius", .distance, default: 150, identity: 0.1, min: 0.01, slider: 0.01...1000),
            ]),
        pictureRelative: [kCIInputRadiusKey]
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let (cx, cy, radius) = try centreAndRadius(args)
        let e = image.extent
        let extent = e.isInfiniteOrHuge ? CGRect.infinite : e.insetBy(dx: -radius, dy: -radius)
        return warped(image, HoleMap(cx: cx, cy: cy, radius: radius), extent: extent)
    }
}

/// CIHoleDistortion: clear inside the disc of `radius`; outside, the point at distance r
/// samples the point in the same direction at distance sqrt(r^2 - R^2), so the image is
/// pushed outward, most near the hole, and approaches the identity far from it.
struct HoleMap: WarpMap {
    let cx: Double, cy: Double, radius: Double

    @inline(__always) func source(_ x: Double, _ y: Double) -> (Double, Double)? {
        let dx = x - cx, dy = y - cy
        let r2 = dx * dx + dy * dy, R2 = radius * radius
        if r2 <= R2 { return nil }
        let k = ((r2 - R2) / r2).squareRoot()
        return (cx + dx * k, cy + dy * k)
    }

    func sourceBounds(_ box: PointBox) -> PointBox? {
        let (near, far) = box.distances(from: cx, cy)
        if far <= radius { return nil }
        let R2 = radius * radius
        let s0 = (max(near * near - R2, 0)).squareRoot(), s1 = (far * far - R2).squareRoot()
        return PointBox.sector(cx, cy, angles: box.angles(from: cx, cy), s0, s1)
    }

    var label: String { "hole centre (\(cx), \(cy)) radius \(radius)" }
}
