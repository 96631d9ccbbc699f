extension BuiltinFilters {
    /// CITorusLensDistortion: Refracts the image through a torus-shaped lens.
    static let torusLensDistortion = BuiltinFilter(
        FilterDescriptor(
            "CITorusLensDistortion", "Torus Lens Distortion", "Refracts the image through a torus-shaped lens.",
            categories: [.builtIn, .distortionEffect, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "9", factory: "torusLensDistortion",
            doc: """
                A ring-shaped glass lens over the image: centre-line radius
                `inputRadius`, width `inputWidth`, a half-disc cross-section, refractive index
                `inputRefraction`. A vertical ray meeting the lens at offset p = r - R from the centre
                line (|p| < W/2, surface height h = sqrt((W/2)^2 - p^2), sin i = |p| / (W/2)) refracts
                to sin t = sin i / n and lands h * tan(i - t) closer to the centre line (farther for
                n < 1; capped at W): the point samples the input at distance R + p - sign(p) * that,
                in its own direction. Refraction 1 or width 0 is the identity. Outside the ring,
                unchanged. Output extent: the input's.
                """,
            inputs: [
                .image(),
                .vector("inputCenter", "Center", .position, default: [150, 150]),
                .number("inputRadius", "Radius", .distance, default: 160, identity: 0, min: 0, slider: 0...500),
                .number("inputWidth", "Width", .distance, default: 80, identity: 0, min: 0, slider: 0...200),
                .number("inputRefraction", "Refraction", .scalar, default: 1.7, identity: 1, min: 0, slider: 0...5),
            ]),
        pictureRelative: [kCIInputRadiusKey]
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let (cx, cy, radius) = try centreAndRadius(args)
        let width = try args.number(kCIInputWidthKey), n = try args.number("inputRefraction")
        if width <= 0 || n == 1 { return image }
        let map = TorusLensMap(cx: cx, cy: cy, radius: radius, width: width, refraction: n)
        return warped(image, map, extent: image.extent)
    }
}

/// CITorusLensDistortion: a ring-shaped lens of centre-line radius R and `width` W, whose
/// cross-section is a half disc of radius W/2 (height h = sqrt((W/2)^2 - p^2) at offset
/// p = r - R from the centre line). A vertical ray through the curved surface refracts
/// (Snell, index `refraction`: sin t = sin i / n, sin i = |p| / (W/2)) and reaches the image
/// plane displaced by h * tan(i - t) towards the centre line (away from it for n < 1), the
/// displacement capped at W; so the point samples distance R + p - sign(p) * shift. Outside
/// the ring, unchanged.
struct TorusLensMap: WarpMap {
    let cx: Double, cy: Double, radius: Double, width: Double, refraction: Double

    @inline(__always) func source(_ x: Double, _ y: Double) -> (Double, Double)? {
        let dx = x - cx, dy = y - cy
        let r = (dx * dx + dy * dy).squareRoot()
        let half = width / 2, p = r - radius
        if abs(p) >= half || r == 0 { return (x, y) }
        let si = abs(p) / half
        let st = min(si / max(refraction, 1e-9), 1)
        let h = (half * half - p * p).squareRoot()
        let shift = min(max(h * tan(asin(si) - asin(st)), -width), width)
        let s = radius + (p < 0 ? p + shift : p - shift)
        return (cx + dx * (s / r), cy + dy * (s / r))
    }

    func sourceBounds(_ box: PointBox) -> PointBox? {
        let (near, far) = box.distances(from: cx, cy)
        let half = width / 2
        if far <= radius - half || near >= radius + half { return box }
        // Distances in the ring move by at most W.
        let lo = max(near, radius - half) - width, hi = min(far, radius + half) + width
        let ring =
            lo < 0
            ? PointBox.sector(cx, cy, angles: nil, 0, max(hi, -lo))
            : PointBox.sector(cx, cy, angles: box.angles(from: cx, cy), lo, hi)
        return near < radius - half || far > radius + half ? ring.union(box) : ring
    }

    var label: String { "torus lens centre (\(cx), \(cy)) radius \(radius) width \(width) refraction \(refraction)" }
}
