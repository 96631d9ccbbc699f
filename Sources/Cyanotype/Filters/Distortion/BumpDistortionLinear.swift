extension BuiltinFilters {
    /// CIBumpDistortionLinear: Bulges the image along a line through a center point.
    static let bumpDistortionLinear = BuiltinFilter(
        FilterDescriptor(
            "CIBumpDistortionLinear", "Bump Distortion Linear", "Bulges the image along a line through a center point.",
            categories: [.builtIn, .distortionEffect, .highDynamicRange, .stillImage, .video], macOS: "10.5", iOS: "6", factory: "bumpDistortionLinear",
            doc: """
                The bump of CIBumpDistortion across a line: the line through
                `inputCenter` at `inputAngle` (radians from the x axis). A point at signed distance d
                from the line, |d| < R, samples the point at distance `d * (1 - s * (1 - |d|/R))^2`
                from the line, at the same position along it (s = `inputScale`, clamped at -1 as
                Apple's minimum says); farther away, unchanged. Scale 0 is the identity. Output
                extent: the input's.
                """,
            inputs: [
                .image(),
                .vector("inputCenter", "Center", .position, default: [150, 150]),
                .number("inputRadius", "Radius", .distance, default: 300, identity: 0, min: 0, slider: 0...600),
                .number("inputAngle", "Angle", .angle, default: 0, identity: 0, slider: 0...6.283185307179586),
                .number("inputScale", "Scale", .scalar, default: 0.5, identity: 1, min: -1, slider: 0...1),
            ]),
        pictureRelative: [kCIInputRadiusKey]
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let (cx, cy, radius) = try centreAndRadius(args)
        let angle = try args.number(kCIInputAngleKey), scale = try args.number(kCIInputScaleKey)
        if scale == 0 || radius <= 0 { return image }
        let map = LinearBumpMap(cx: cx, cy: cy, radius: radius, angle: angle, scale: scale)
        return warped(image, map, extent: image.extent)
    }
}

/// CIBumpDistortionLinear: a bump across the line through the centre at `angle`. With d the
/// signed distance from that line, a point with |d| < R samples the point at distance
/// d * (1 - scale * (1 - |d|/R))^2 from the line (same position along it); elsewhere, the
/// identity.
struct LinearBumpMap: WarpMap {
    let cx: Double, cy: Double, radius: Double, scale: Double
    /// The unit normal of the line.
    let nx: Double, ny: Double

    init(cx: Double, cy: Double, radius: Double, angle: Double, scale: Double) {
        self.cx = cx; self.cy = cy; self.radius = radius; self.scale = scale
        nx = -sin(angle); ny = cos(angle)
    }

    /// The new distance from the line for |d| = u < R (unsigned): CIBumpDistortion's profile.
    @inline(__always) func profile(_ u: Double) -> Double { BumpMap(cx: cx, cy: cy, radius: radius, amount: scale).value(u, radius) }

    @inline(__always) func source(_ x: Double, _ y: Double) -> (Double, Double)? {
        let d = (x - cx) * nx + (y - cy) * ny
        let u = abs(d)
        if u >= radius { return (x, y) }
        let shift = (d < 0 ? -profile(u) : profile(u)) - d
        return (x + nx * shift, y + ny * shift)
    }

    private func range(_ u0: Double, _ u1: Double) -> (Double, Double) { BumpMap(cx: cx, cy: cy, radius: radius, amount: scale).bounds(u0, u1, radius) }

    func sourceBounds(_ box: PointBox) -> PointBox? {
        // The box in the line's frame: a along the line, d across it.
        var aLo = Double.infinity, aHi = -Double.infinity, dLo = Double.infinity, dHi = -Double.infinity
        for (x, y) in [(box.minX, box.minY), (box.maxX, box.minY), (box.maxX, box.maxY), (box.minX, box.maxY)] {
            let a = (x - cx) * ny - (y - cy) * nx, d = (x - cx) * nx + (y - cy) * ny
            aLo = min(aLo, a); aHi = max(aHi, a); dLo = min(dLo, d); dHi = max(dHi, d)
        }
        if dLo >= radius || dHi <= -radius { return box }
        // The new signed distances of the part inside the band.
        var nLo = Double.infinity, nHi = -Double.infinity
        if dHi > 0 {  // positive side: u in max(dLo, 0)...min(dHi, R)
            let (lo, hi) = range(max(dLo, 0), min(dHi, radius))
            nLo = min(nLo, lo); nHi = max(nHi, hi)
        }
        if dLo < 0 {  // negative side: u in max(-dHi, 0)...min(-dLo, R), mirrored
            let (lo, hi) = range(max(-dHi, 0), min(-dLo, radius))
            nLo = min(nLo, -hi); nHi = max(nHi, -lo)
        }
        var out = PointBox.point(cx + aLo * ny + nLo * nx, cy - aLo * nx + nLo * ny)
        for (a, d) in [(aHi, nLo), (aLo, nHi), (aHi, nHi)] { out.include(cx + a * ny + d * nx, cy - a * nx + d * ny) }
        return (dLo < -radius || dHi > radius) ? out.union(box) : out
    }

    var label: String { "linear bump centre (\(cx), \(cy)) radius \(radius) scale \(scale)" }
}
