// Distortion effects: warps around a centre point. Apple publishes no formulas for these; each
// filter states the classic one it uses, next to its map (the radial ones, one family, here). Every warp maps an output
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

extension BuiltinFilters {
    /// The family of CITwirlDistortion, CIVortexDistortion, CIBumpDistortion and CIPinchDistortion:
    /// one radial warp each (the maps below), through `radiallyWarped`.
    static let radialDistortions = BuiltinFilter.family(
        categories: [.builtIn, .distortionEffect, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "6",
        [
            (
                FilterDescriptor(
                    "CITwirlDistortion", "Twirl Distortion", "Twists pixels around a center by an angle that fades with distance.",
                    iOS: "5", factory: "twirlDistortion",
                    doc: """
                        Inside the disc of `inputRadius` about `inputCenter`, the point at
                        distance r is the input rotated about the centre by `inputAngle * (1 - r/R)^2`
                        (radians, counter-clockwise for a positive angle, y up): the full angle at the centre,
                        fading to none at the rim. Outside the disc, unchanged. Output extent: the input's.
                        """,
                    inputs: [
                        .image(),
                        .vector("inputCenter", "Center", .position, default: [150, 150]),
                        .number("inputRadius", "Radius", .distance, default: 300, identity: 300, min: 0, slider: 0...500),
                        .number("inputAngle", "Angle", .angle, default: 3.141592653589793, identity: 0, slider: -12.56637061435917...12.56637061435917),
                    ]),
                RadialWarpKind.twirl
            ),
            (
                FilterDescriptor(
                    "CIVortexDistortion", "Vortex Distortion", "Swirls pixels around a center like a vortex.",
                    factory: "vortexDistortion",
                    doc: """
                        Like the twirl, with a rotation that falls off linearly,
                        `inputAngle * (1 - r/R)`, so a large angle (the default is 18 pi, nine turns) winds the
                        disc into evenly spaced spiral arms. Outside the disc, unchanged. Output extent: the
                        input's.
                        """,
                    inputs: [
                        .image(),
                        .vector("inputCenter", "Center", .position, default: [150, 150]),
                        .number("inputRadius", "Radius", .distance, default: 300, identity: 0, min: 0, slider: 0...800),
                        .number("inputAngle", "Angle", .angle, default: 56.548667764616276, identity: 0, slider: -94.24777960769379...94.24777960769379),
                    ]),
                RadialWarpKind.vortex
            ),
            (
                FilterDescriptor(
                    "CIBumpDistortion", "Bump Distortion", "Bulges (or pinches, with negative scale) a circular area around a center point.",
                    factory: "bumpDistortion",
                    doc: """
                        A convex bump (positive `inputScale`, the centre magnified) or a
                        concave one (negative, the centre shrunk). The point at distance r < R samples the
                        input at distance `r * (1 - s * (1 - r/R))^2` in the same direction, s = `inputScale`;
                        at the rim the factor is 1, so the bump joins the unchanged outside. Output extent:
                        the input's.
                        """,
                    inputs: [
                        .image(),
                        .vector("inputCenter", "Center", .position, default: [150, 150]),
                        .number("inputRadius", "Radius", .distance, default: 300, min: 0, slider: 0...600),
                        .number("inputScale", "Scale", .scalar, default: 0.5, identity: 0, slider: -1...1),
                    ]),
                RadialWarpKind.bump
            ),
            (
                FilterDescriptor(
                    "CIPinchDistortion", "Pinch Distortion", "Pinches pixels toward a center within a radius.",
                    factory: "pinchDistortion",
                    doc: """
                        Pinches the disc towards its centre. The point at distance r < R
                        samples the input at distance `R * (r/R)^(1 / (1 + inputScale))` in the same direction
                        (a radial power: the centre is shrunk, the rim stays put). `inputScale` 0 is the
                        identity; it is clamped at 0 as Apple's minimum says. Outside the disc, unchanged.
                        Output extent: the input's.
                        """,
                    inputs: [
                        .image(),
                        .vector("inputCenter", "Center", .position, default: [150, 150]),
                        .number("inputRadius", "Radius", .distance, default: 300, identity: 0, min: 0, slider: 0...1000),
                        .number("inputScale", "Scale", .scalar, default: 0.5, identity: 0, min: 0, slider: 0...2),
                    ]),
                RadialWarpKind.pinch
            ),
        ],
        pictureRelative: [kCIInputRadiusKey]
    ) { args, kind throws(CIFilterError) in
        switch kind {
        case .twirl: try radiallyWarped(TwirlMap.self, args, amountKey: kCIInputAngleKey)
        case .vortex: try radiallyWarped(VortexMap.self, args, amountKey: kCIInputAngleKey)
        case .bump: try radiallyWarped(BumpMap.self, args, amountKey: kCIInputScaleKey)
        case .pinch: try radiallyWarped(PinchMap.self, args, amountKey: kCIInputScaleKey)
        }
    }
}

/// Which radial warp a member of `radialDistortions` is.
enum RadialWarpKind: Sendable { case twirl, vortex, bump, pinch }

/// CITwirlDistortion: rotation by amount * (1 - r/R)^2.
struct TwirlMap: RadialWarp {
    static var name: String { "twirl" }
    static var rotates: Bool { true }
    let cx: Double, cy: Double, radius: Double, amount: Double
    @inline(__always) func value(_ r: Double, _ radius: Double) -> Double {
        let f = 1 - r / radius
        return amount * f * f
    }
}

/// CIVortexDistortion: rotation by amount * (1 - r/R).
struct VortexMap: RadialWarp {
    static var name: String { "vortex" }
    static var rotates: Bool { true }
    let cx: Double, cy: Double, radius: Double, amount: Double
    @inline(__always) func value(_ r: Double, _ radius: Double) -> Double { amount * (1 - r / radius) }
}

/// CIBumpDistortion: source distance r * (1 - amount * (1 - r/R))^2.
struct BumpMap: RadialWarp {
    static var name: String { "bump" }
    static var rotates: Bool { false }
    let cx: Double, cy: Double, radius: Double, amount: Double
    @inline(__always) func value(_ r: Double, _ radius: Double) -> Double {
        let f = 1 - amount * (1 - r / radius)
        return r * f * f
    }
    /// R t (a + k t)^2 with a = 1 - k: extremes at the ends and where its derivative
    /// (a + k t)(a + 3 k t) vanishes.
    func bounds(_ r0: Double, _ r1: Double, _ radius: Double) -> (Double, Double) {
        var lo = min(value(r0, radius), value(r1, radius)), hi = max(value(r0, radius), value(r1, radius))
        if amount != 0 {
            let a = 1 - amount
            for t in [-a / amount, -a / (3 * amount)] where t * radius > r0 && t * radius < r1 {
                let s = value(t * radius, radius)
                lo = min(lo, s); hi = max(hi, s)
            }
        }
        return (max(lo, 0), hi)
    }
}

/// CIPinchDistortion: source distance R * (r/R)^(1 / (1 + amount)).
struct PinchMap: RadialWarp {
    static var name: String { "pinch" }
    static var rotates: Bool { false }
    let cx: Double, cy: Double, radius: Double, amount: Double
    @inline(__always) func value(_ r: Double, _ radius: Double) -> Double {
        r > 0 ? radius * pow(r / radius, 1 / (1 + amount)) : 0
    }
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
