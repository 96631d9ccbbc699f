extension BuiltinFilters {
    /// CICircleSplashDistortion: Keeps a circle intact and streaks the pixels on its rim outward.
    static let circleSplashDistortion = BuiltinFilter(
        FilterDescriptor(
            "CICircleSplashDistortion", "Circle Splash Distortion", "Keeps a circle intact and streaks the pixels on its rim outward.",
            categories: [.builtIn, .distortionEffect, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "6", factory: "circleSplashDistortion",
            doc: """
                The disc of `inputRadius` about `inputCenter` unchanged;
                outside it, each point takes the colour of the rim point in its direction (the point at
                distance R), so the rim streaks outward. Output extent: infinite (the streaks never
                end), as in Core Image.
                """,
            inputs: [
                .image(),
                .vector("inputCenter", "Center", .position, default: [150, 150]),
                .number("inputRadius", "Radius", .distance, default: 150, min: 0, slider: 0...1000),
            ]),
        pictureRelative: [kCIInputRadiusKey]
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let (cx, cy, radius) = try centreAndRadius(args)
        return warped(image, CircleSplashMap(cx: cx, cy: cy, radius: radius), extent: .infinite)
    }
}

/// CICircleSplashDistortion: the disc of `radius` unchanged; outside it, each point samples
/// the rim point in its direction (distance R), so the rim streaks outward to infinity.
struct CircleSplashMap: WarpMap {
    let cx: Double, cy: Double, radius: Double

    @inline(__always) func source(_ x: Double, _ y: Double) -> (Double, Double)? {
        let dx = x - cx, dy = y - cy
        let r2 = dx * dx + dy * dy
        if r2 <= radius * radius { return (x, y) }
        let k = radius / r2.squareRoot()
        return (cx + dx * k, cy + dy * k)
    }

    func sourceBounds(_ box: PointBox) -> PointBox? {
        let (near, far) = box.distances(from: cx, cy)
        if far <= radius { return box }
        let rim = PointBox.sector(cx, cy, angles: box.angles(from: cx, cy), radius, radius)
        return near <= radius ? rim.union(box) : rim
    }

    var label: String { "circle splash centre (\(cx), \(cy)) radius \(radius)" }
}
