extension BuiltinFilters {
    /// CILightTunnel: Spirals the image into a light-tunnel vortex around a center.
    static let lightTunnel = BuiltinFilter(
        FilterDescriptor(
            "CILightTunnel", "Light Tunnel Distortion", "Spirals the image into a light-tunnel vortex around a center.",
            categories: [.builtIn, .distortionEffect, .highDynamicRange, .stillImage, .video], macOS: "10.10", iOS: "6", factory: "lightTunnel",
            doc: """
                Turns the disc of `inputRadius` about `inputCenter` into a tunnel whose
                walls are the disc's rim: a point at distance r < R and angle phi samples the rim point
                at angle `phi - inputRotation * ln(R / r)` (a logarithmic spiral, tighter towards the
                centre; radial streaks for rotation 0). Outside the disc, unchanged; radius 0 is the
                identity. Output extent: the input's.
                """,
            inputs: [
                .image(),
                .vector("inputCenter", "Center", .position, default: [150, 150]),
                .number("inputRotation", "Rotation", .angle, default: 0, identity: 0, slider: 0...1.570796326794897),
                .number("inputRadius", "Radius", .distance, default: 100, identity: 0, slider: 1...500),
            ]),
        pictureRelative: [kCIInputRadiusKey]
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let (cx, cy, radius) = try centreAndRadius(args)
        let rotation = try args.number("inputRotation")
        if radius <= 0 { return image }
        return warped(image, LightTunnelMap(cx: cx, cy: cy, radius: radius, rotation: rotation), extent: image.extent)
    }
}

/// CILightTunnel: the disc of `radius` becomes a tunnel whose walls are the rim: the point at
/// distance r < R and angle phi samples the rim point (distance R) at angle
/// `phi - rotation * ln(R / r)`, a logarithmic spiral winding tighter towards the centre
/// (straight radial streaks for rotation 0). Outside the disc, unchanged.
struct LightTunnelMap: WarpMap {
    let cx: Double, cy: Double, radius: Double, rotation: Double

    @inline(__always) func source(_ x: Double, _ y: Double) -> (Double, Double)? {
        let dx = x - cx, dy = y - cy
        let r2 = dx * dx + dy * dy
        if r2 >= radius * radius { return (x, y) }
        if r2 == 0 { return (cx + radius, cy) }
        let r = r2.squareRoot()
        let th = rotation * log(radius / r)
        let c = cos(th), s = sin(th), k = radius / r
        return (cx + k * (c * dx + s * dy), cy + k * (c * dy - s * dx))
    }

    func sourceBounds(_ box: PointBox) -> PointBox? {
        let (near, far) = box.distances(from: cx, cy)
        if near >= radius { return box }
        var span = box.angles(from: cx, cy)
        if let (a0, a1) = span {
            let t0 = rotation * log(radius / min(far, radius)), t1 = rotation * log(radius / near)
            span = (a0 - max(t0, t1), a1 - min(t0, t1))
            if !(span!.0.isFinite && span!.1.isFinite) { span = nil }
        }
        let rim = PointBox.sector(cx, cy, angles: span, radius, radius)
        return far > radius ? rim.union(box) : rim
    }

    var label: String { "light tunnel centre (\(cx), \(cy)) radius \(radius) rotation \(rotation)" }
}
