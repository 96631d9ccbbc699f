import Foundation

extension BuiltinFilters {
    /// CIGlassLozenge: Magnifies/refracts the image through a lozenge-shaped lens.
    static let glassLozenge = BuiltinFilter(
        FilterDescriptor(
            "CIGlassLozenge", "Glass Lozenge", "Magnifies/refracts the image through a lozenge-shaped lens.",
            categories: [.builtIn, .distortionEffect, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "9", factory: "glassLozenge",
            doc: """
                The image seen through a glass lozenge lying on it: a capsule (all
                points within `radius` of the segment from `point0` to `point1`) with a round top, its
                height at distance d from the segment `z = sqrt(R^2 - d^2)`. Each pixel is seen
                straight down through the glass: the view ray meets the surface at height z with the
                surface normal `n = (q / R, z / R)` (q the offset from the segment), refracts by
                Snell's law with the ratio `1 / refraction`, and travels on to the image plane; the
                output is the image where it lands (refraction 1: unchanged; above 1 the lozenge
                magnifies, as glass does). Where the ray is totally reflected (refraction below 1, far
                enough out) the output is clear. Outside the lozenge the image is unchanged. Output
                extent: the input's. Radius 0 is the identity.
                """,
            inputs: [
                .image(),
                .vector("inputPoint0", "Point 0", .position, default: [150, 150], "One end of the lozenge's axis."),
                .vector("inputPoint1", "Point 1", .position, default: [350, 150], "The other end of the lozenge's axis."),
                .number("inputRadius", "Radius", .distance, default: 100, identity: 100, min: 0, slider: 0...1000, "The lozenge's half-width, in pixels."),
                .number("inputRefraction", "Refraction", .scalar, default: 1.7, identity: 1, min: 0, slider: 0...5, limit: .refractiveIndex, "The glass's index of refraction."),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let p0 = try args.point("inputPoint0"), p1 = try args.point("inputPoint1")
        let radius = try args.number(kCIInputRadiusKey), refraction = try args.number("inputRefraction")
        if radius <= 0 || refraction == 1 { return image }
        let map = GlassLozengeMap(p0: SIMD2(Double(p0.x), Double(p0.y)), p1: SIMD2(Double(p1.x), Double(p1.y)), radius: radius, eta: 1 / refraction)
        return warped(image, map, extent: image.extent)
    }
}

extension FilterInputLimit {
    /// CIGlassLozenge's refraction.
    static let refractiveIndex = FilterInputLimit(minimum: 0.001, reason: "Snell's law divides by the index, so it must be positive")
}

/// CIGlassLozenge's map: refraction through a round-topped capsule (see the declaration).
struct GlassLozengeMap: WarpMap {
    let p0: SIMD2<Double>, axis: SIMD2<Double>, lengthSquared: Double
    let radius: Double, eta: Double
    /// The farthest a point moves (for the region of interest).
    let reach: Double

    init(p0: SIMD2<Double>, p1: SIMD2<Double>, radius: Double, eta: Double) {
        self.p0 = p0
        axis = p1 - p0
        lengthSquared = (axis * axis).sum()
        self.radius = radius; self.eta = eta
        var most = 0.0
        for k in 0...1024 {
            let d = radius * Double(k) / 1024
            if let o = GlassLozengeMap.shift(d, radius: radius, eta: eta) { most = max(most, abs(o)) }
        }
        reach = most * 1.01 + 1
    }

    /// The signed shift along q (the offset from the axis) of a pixel at distance d: nil
    /// where the ray is totally reflected.
    @inline(__always) static func shift(_ d: Double, radius: Double, eta: Double) -> Double? {
        let z = max(radius * radius - d * d, 0).squareRoot()
        let cosI = z / radius, nq = d / radius
        let k = 1 - eta * eta * (1 - cosI * cosI)
        if k < 0 { return nil }
        let b = eta * cosI - k.squareRoot()
        // Refracted direction T = eta * (0, 0, -1) + b * n.
        let tq = b * nq, tz = -eta + b * cosI
        if tz > -1e-12 { return nil }
        return tq * (z / -tz)
    }

    @inline(__always) func source(_ x: Double, _ y: Double) -> (Double, Double)? {
        let p = SIMD2(x, y)
        let t = lengthSquared > 0 ? min(max(((p - p0) * axis).sum() / lengthSquared, 0), 1) : 0
        let q = p - (p0 + t * axis)
        let d = (q * q).sum().squareRoot()
        if d >= radius { return (x, y) }
        guard let s = GlassLozengeMap.shift(d, radius: radius, eta: eta) else { return nil }
        if d == 0 { return (x, y) }
        return (x + q.x / d * s, y + q.y / d * s)
    }

    /// Points outside the lozenge's bounding box read themselves; inside, up to `reach` away.
    func sourceBounds(_ box: PointBox) -> PointBox? {
        let p1 = p0 + axis
        let lo = SIMD2(min(p0.x, p1.x) - radius, min(p0.y, p1.y) - radius), hi = SIMD2(max(p0.x, p1.x) + radius, max(p0.y, p1.y) + radius)
        if box.maxX < lo.x || box.minX > hi.x || box.maxY < lo.y || box.minY > hi.y { return box }
        return PointBox(minX: box.minX - reach, minY: box.minY - reach, maxX: box.maxX + reach, maxY: box.maxY + reach)
    }

    var label: String { "glass lozenge from (\(p0.x), \(p0.y)) along (\(axis.x), \(axis.y)) radius \(radius) eta \(eta)" }
}
