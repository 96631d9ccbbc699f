// Distortion effects: warps around a centre point. Apple publishes no formulas for these; each
// filter's file states the classic one it uses, next to its map. Every warp maps an output
// point to a source point (sampled bilinearly in the premultiplied working space, clear
// outside the input), computed per pixel by the engine's warp kind (`WarpNode`).

/// The distortions' nodes, whatever their map (what tests and tools look for).
typealias DistortionNode = any TypeErasedWarp

/// `image` warped through `map`, with the output extent `extent` (empty stays empty).
func warped<Map: WarpMap>(_ image: CIImage, _ map: Map, extent: CGRect) -> CIImage {
    if image.extent.isEmpty || extent.isEmpty { return .empty() }
    return CIImage(node: WarpNode(input: image.node, map: map, extent: extent))
}

/// The centre and radius every distortion reads (NaN or infinite values throw `nonFinite`;
/// the radius is clamped to the spec's minimum).
func centreAndRadius(_ args: FilterArguments) throws(CIFilterError) -> (Double, Double, Double) {
    let c = try args.point(kCIInputCenterKey)
    return (Double(c.x), Double(c.y), try args.number(kCIInputRadiusKey))
}

/// The recipe of the radial distortions (twirl, vortex, pinch, bump): the image, centre and
/// radius, and the amount under `amountKey`; an amount or radius of 0 is the identity.
/// Output extent: the input's.
func radiallyWarped<Map: RadialWarp>(_ map: Map.Type, _ args: FilterArguments, amountKey: String) throws(CIFilterError) -> CIImage {
    let image = try args.image()
    let (cx, cy, radius) = try centreAndRadius(args)
    let amount = try args.number(amountKey)
    if amount == 0 || radius <= 0 { return image }
    return warped(image, Map(cx: cx, cy: cy, radius: radius, amount: amount), extent: image.extent)
}

/// The warps that move points only inside the disc of `radius` about the centre: rotations
/// by an angle falling off with distance (twirl, vortex), and radial rescalings (pinch, bump).
/// Outside the disc, the identity. Each filter supplies its profile, a rotation angle or a
/// source distance as a function of the distance r < R from the centre; the map's
/// `source` and `sourceBounds` come from here.
protocol RadialWarp: WarpMap {
    /// The distortion's name, for `CIContext.explain`.
    static var name: String { get }
    /// True when the profile is an angle (distances kept), false when it is a distance
    /// (directions kept).
    static var rotates: Bool { get }
    var cx: Double { get }
    var cy: Double { get }
    var radius: Double { get }
    var amount: Double { get }
    init(cx: Double, cy: Double, radius: Double, amount: Double)
    /// The profile at distance r of a disc of radius R.
    func value(_ r: Double, _ radius: Double) -> Double
    /// Bounds of the profile over r0...r1 (within 0...R).
    func bounds(_ r0: Double, _ r1: Double, _ radius: Double) -> (Double, Double)
}

extension RadialWarp {
    /// Monotone profiles: the ends bound them.
    func bounds(_ r0: Double, _ r1: Double, _ radius: Double) -> (Double, Double) {
        let a = value(r0, radius), b = value(r1, radius)
        return (min(a, b), max(a, b))
    }

    @inline(__always) func source(_ x: Double, _ y: Double) -> (Double, Double)? {
        let dx = x - cx, dy = y - cy
        let r2 = dx * dx + dy * dy
        if r2 >= radius * radius { return (x, y) }
        let r = r2.squareRoot()
        if Self.rotates {
            // Destination angle phi shows the source at phi - theta: the content turns
            // counter-clockwise (y up) by theta for a positive angle.
            let th = value(r, radius)
            let c = cos(th), s = sin(th)
            return (cx + c * dx + s * dy, cy - s * dx + c * dy)
        }
        if r == 0 { return (cx, cy) }
        let k = value(r, radius) / r
        return (cx + dx * k, cy + dy * k)
    }

    func sourceBounds(_ box: PointBox) -> PointBox? {
        let (near, far) = box.distances(from: cx, cy)
        if near >= radius { return box }
        let r0 = near, r1 = min(far, radius)
        let span = box.angles(from: cx, cy)
        let (lo, hi) = bounds(r0, r1, radius)
        let out: PointBox
        if Self.rotates {
            // Distances kept, angles turned back by the profile's range over r0...r1.
            out = PointBox.sector(cx, cy, angles: span.map { ($0.0 - hi, $0.1 - lo) }, r0, r1)
        } else {
            out = PointBox.sector(cx, cy, angles: span, max(lo, 0), hi)
        }
        // The part of the box outside the disc reads itself.
        return far > radius ? out.union(box) : out
    }

    var label: String {
        "\(Self.name) centre (\(cx), \(cy)) radius \(radius) \(Self.rotates ? "angle" : "scale") \(amount)"
    }
}
