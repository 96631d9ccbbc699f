// The distortion warps: each output pixel centre goes through a small map to a source point,
// which is sampled bilinearly (premultiplied, neighbours outside the input clear), as
// `ProjectiveNode` does for homographies. The maps are value types; the node picks the map's
// specialised loop once per tile, so the pixel loop has no closure, existential or allocation.

/// A rectangle of points in Double: the pixel centres of a tile, or the source points they map to.
struct PointBox: Equatable, Sendable {
    var minX, minY, maxX, maxY: Double

    init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX; self.minY = minY; self.maxX = maxX; self.maxY = maxY
    }
    /// The centres of `rect`'s pixels.
    init(centresOf rect: PixelRect) {
        self.init(minX: Double(rect.minX) + 0.5, minY: Double(rect.minY) + 0.5,
                  maxX: Double(rect.maxX) - 0.5, maxY: Double(rect.maxY) - 0.5)
    }
    func union(_ o: PointBox) -> PointBox {
        PointBox(minX: min(minX, o.minX), minY: min(minY, o.minY), maxX: max(maxX, o.maxX), maxY: max(maxY, o.maxY))
    }
    mutating func include(_ x: Double, _ y: Double) {
        minX = min(minX, x); minY = min(minY, y); maxX = max(maxX, x); maxY = max(maxY, y)
    }
    static func point(_ x: Double, _ y: Double) -> PointBox { PointBox(minX: x, minY: y, maxX: x, maxY: y) }

    /// The distances from (cx, cy) to the nearest and farthest point of the box.
    func distances(from cx: Double, _ cy: Double) -> (near: Double, far: Double) {
        let dx = max(minX - cx, 0, cx - maxX), dy = max(minY - cy, 0, cy - maxY)
        let fx = max(abs(minX - cx), abs(maxX - cx)), fy = max(abs(minY - cy), abs(maxY - cy))
        return ((dx * dx + dy * dy).squareRoot(), (fx * fx + fy * fy).squareRoot())
    }

    /// The angles (radians) the box spans seen from (cx, cy): nil when the box contains that
    /// point (every direction). The span is less than pi otherwise (the box is convex).
    func angles(from cx: Double, _ cy: Double) -> (Double, Double)? {
        if distances(from: cx, cy).near <= 0 { return nil }
        let ref = atan2((minY + maxY) / 2 - cy, (minX + maxX) / 2 - cx)
        var lo = Double.infinity, hi = -Double.infinity
        for (x, y) in [(minX, minY), (maxX, minY), (maxX, maxY), (minX, maxY)] {
            let d = remainder(atan2(y - cy, x - cx) - ref, 2 * Double.pi)
            lo = min(lo, d); hi = max(hi, d)
        }
        return (ref + lo, ref + hi)
    }

    /// The bounding box of the annular sector around (cx, cy) of distances smin...smax and
    /// angles a0...a1 (every angle when nil or when the span reaches a full turn).
    static func sector(_ cx: Double, _ cy: Double, angles: (Double, Double)?, _ smin: Double, _ smax: Double) -> PointBox {
        guard let (a0, a1) = angles, a1 - a0 < 2 * Double.pi else {
            return PointBox(minX: cx - smax, minY: cy - smax, maxX: cx + smax, maxY: cy + smax)
        }
        var b = PointBox.point(cx + smin * cos(a0), cy + smin * sin(a0))
        for (a, s) in [(a0, smax), (a1, smin), (a1, smax)] { b.include(cx + s * cos(a), cy + s * sin(a)) }
        // The axis directions inside the span reach farthest along x or y.
        var k = (a0 / (Double.pi / 2)).rounded(.up)
        while k * Double.pi / 2 <= a1 {
            let a = k * Double.pi / 2
            b.include(cx + smax * cos(a), cy + smax * sin(a))
            k += 1
        }
        return b
    }
}

/// A distortion's maths: where the output pixel centre (x, y) samples its input.
protocol WarpMap: Sendable {
    /// The source point of the output point (x, y); nil where the output is clear.
    func source(_ x: Double, _ y: Double) -> (Double, Double)?
    /// A box holding the source points of every point of `box` (conservative); nil when
    /// none of them reads the input.
    func sourceBounds(_ box: PointBox) -> PointBox?
}

/// The distortions `DistortionNode` runs; the case is chosen once per tile.
enum DistortionMap: Sendable {
    case twirl(RadialMap<TwirlProfile>)
    case vortex(RadialMap<VortexProfile>)
    case pinch(RadialMap<PinchProfile>)
    case bump(RadialMap<BumpProfile>)
    case hole(HoleMap)
    case splash(CircleSplashMap)
    case linearBump(LinearBumpMap)
    case circularWrap(CircularWrapMap)
    case tunnel(LightTunnelMap)
    case torus(TorusLensMap)

    /// The map's source point for (x, y), switching per call: for tests and one-off use, not
    /// for pixel loops.
    func source(_ x: Double, _ y: Double) -> (Double, Double)? {
        switch self {
        case .twirl(let m): return m.source(x, y)
        case .vortex(let m): return m.source(x, y)
        case .pinch(let m): return m.source(x, y)
        case .bump(let m): return m.source(x, y)
        case .hole(let m): return m.source(x, y)
        case .splash(let m): return m.source(x, y)
        case .linearBump(let m): return m.source(x, y)
        case .circularWrap(let m): return m.source(x, y)
        case .tunnel(let m): return m.source(x, y)
        case .torus(let m): return m.source(x, y)
        }
    }

    func sourceBounds(_ box: PointBox) -> PointBox? {
        switch self {
        case .twirl(let m): return m.sourceBounds(box)
        case .vortex(let m): return m.sourceBounds(box)
        case .pinch(let m): return m.sourceBounds(box)
        case .bump(let m): return m.sourceBounds(box)
        case .hole(let m): return m.sourceBounds(box)
        case .splash(let m): return m.sourceBounds(box)
        case .linearBump(let m): return m.sourceBounds(box)
        case .circularWrap(let m): return m.sourceBounds(box)
        case .tunnel(let m): return m.sourceBounds(box)
        case .torus(let m): return m.sourceBounds(box)
        }
    }

    var label: String {
        switch self {
        case .twirl(let m): return "twirl centre (\(m.cx), \(m.cy)) radius \(m.radius) angle \(m.profile.amount)"
        case .vortex(let m): return "vortex centre (\(m.cx), \(m.cy)) radius \(m.radius) angle \(m.profile.amount)"
        case .pinch(let m): return "pinch centre (\(m.cx), \(m.cy)) radius \(m.radius) scale \(m.profile.amount)"
        case .bump(let m): return "bump centre (\(m.cx), \(m.cy)) radius \(m.radius) scale \(m.profile.amount)"
        case .hole(let m): return "hole centre (\(m.cx), \(m.cy)) radius \(m.radius)"
        case .splash(let m): return "circle splash centre (\(m.cx), \(m.cy)) radius \(m.radius)"
        case .linearBump(let m): return "linear bump centre (\(m.cx), \(m.cy)) radius \(m.radius) scale \(m.scale)"
        case .circularWrap(let m): return "circular wrap centre (\(m.cx), \(m.cy)) radius \(m.radius) angle \(m.angle)"
        case .tunnel(let m): return "light tunnel centre (\(m.cx), \(m.cy)) radius \(m.radius) rotation \(m.rotation)"
        case .torus(let m): return "torus lens centre (\(m.cx), \(m.cy)) radius \(m.radius) width \(m.width) refraction \(m.refraction)"
        }
    }
}

/// The per-filter part of a `RadialMap`: a rotation angle (twirl, vortex) or a source
/// distance (pinch, bump) as a function of the distance r < R from the centre.
protocol RadialProfile: Sendable {
    /// True when the profile is an angle (distances kept), false when it is a distance
    /// (directions kept).
    static var rotates: Bool { get }
    var amount: Double { get }
    /// The profile at distance r of a disc of radius R.
    func value(_ r: Double, _ radius: Double) -> Double
    /// Bounds of the profile over r0...r1 (within 0...R).
    func bounds(_ r0: Double, _ r1: Double, _ radius: Double) -> (Double, Double)
}

extension RadialProfile {
    /// Monotone profiles: the ends bound them.
    func bounds(_ r0: Double, _ r1: Double, _ radius: Double) -> (Double, Double) {
        let a = value(r0, radius), b = value(r1, radius)
        return (min(a, b), max(a, b))
    }
}

/// CITwirlDistortion: rotation by amount * (1 - r/R)^2.
struct TwirlProfile: RadialProfile {
    static var rotates: Bool { true }
    let amount: Double
    @inline(__always) func value(_ r: Double, _ radius: Double) -> Double {
        let f = 1 - r / radius
        return amount * f * f
    }
}

/// CIVortexDistortion: rotation by amount * (1 - r/R).
struct VortexProfile: RadialProfile {
    static var rotates: Bool { true }
    let amount: Double
    @inline(__always) func value(_ r: Double, _ radius: Double) -> Double { amount * (1 - r / radius) }
}

/// CIPinchDistortion: source distance R * (r/R)^(1 / (1 + amount)).
struct PinchProfile: RadialProfile {
    static var rotates: Bool { false }
    let amount: Double
    @inline(__always) func value(_ r: Double, _ radius: Double) -> Double {
        r > 0 ? radius * pow(r / radius, 1 / (1 + amount)) : 0
    }
}

/// CIBumpDistortion: source distance r * (1 - amount * (1 - r/R))^2.
struct BumpProfile: RadialProfile {
    static var rotates: Bool { false }
    let amount: Double
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

/// The warps that move points only inside the disc of `radius` about the centre: rotations
/// by an angle falling off with distance (twirl, vortex), and radial rescalings (pinch, bump),
/// as the profile says. Outside the disc, the identity.
struct RadialMap<Profile: RadialProfile>: WarpMap {
    let cx: Double, cy: Double, radius: Double
    let profile: Profile

    @inline(__always) func source(_ x: Double, _ y: Double) -> (Double, Double)? {
        let dx = x - cx, dy = y - cy
        let r2 = dx * dx + dy * dy
        if r2 >= radius * radius { return (x, y) }
        let r = r2.squareRoot()
        if Profile.rotates {
            // Destination angle phi shows the source at phi - theta: the content turns
            // counter-clockwise (y up) by theta for a positive angle.
            let th = profile.value(r, radius)
            let c = cos(th), s = sin(th)
            return (cx + c * dx + s * dy, cy - s * dx + c * dy)
        }
        if r == 0 { return (cx, cy) }
        let k = profile.value(r, radius) / r
        return (cx + dx * k, cy + dy * k)
    }

    func sourceBounds(_ box: PointBox) -> PointBox? {
        let (near, far) = box.distances(from: cx, cy)
        if near >= radius { return box }
        let r0 = near, r1 = min(far, radius)
        let span = box.angles(from: cx, cy)
        let (lo, hi) = profile.bounds(r0, r1, radius)
        let out: PointBox
        if Profile.rotates {
            // Distances kept, angles turned back by the profile's range over r0...r1.
            out = PointBox.sector(cx, cy, angles: span.map { ($0.0 - hi, $0.1 - lo) }, r0, r1)
        } else {
            out = PointBox.sector(cx, cy, angles: span, max(lo, 0), hi)
        }
        // The part of the box outside the disc reads itself.
        return far > radius ? out.union(box) : out
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
    @inline(__always) func profile(_ u: Double) -> Double { BumpProfile(amount: scale).value(u, radius) }

    @inline(__always) func source(_ x: Double, _ y: Double) -> (Double, Double)? {
        let d = (x - cx) * nx + (y - cy) * ny
        let u = abs(d)
        if u >= radius { return (x, y) }
        let shift = (d < 0 ? -profile(u) : profile(u)) - d
        return (x + nx * shift, y + ny * shift)
    }

    private func range(_ u0: Double, _ u1: Double) -> (Double, Double) { BumpProfile(amount: scale).bounds(u0, u1, radius) }

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
        if dHi > 0 {   // positive side: u in max(dLo, 0)...min(dHi, R)
            let (lo, hi) = range(max(dLo, 0), min(dHi, radius))
            nLo = min(nLo, lo); nHi = max(nHi, hi)
        }
        if dLo < 0 {   // negative side: u in max(-dHi, 0)...min(-dLo, R), mirrored
            let (lo, hi) = range(max(-dHi, 0), min(-dLo, radius))
            nLo = min(nLo, -hi); nHi = max(nHi, -lo)
        }
        var out = PointBox.point(cx + aLo * ny + nLo * nx, cy - aLo * nx + nLo * ny)
        for (a, d) in [(aHi, nLo), (aLo, nHi), (aHi, nHi)] { out.include(cx + a * ny + d * nx, cy - a * nx + d * ny) }
        return (dLo < -radius || dHi > radius) ? out.union(box) : out
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
        return PointBox(minX: midX - radius * hi, minY: minY + max(near - radius, 0),
                        maxX: midX - radius * lo, maxY: minY + (far - radius))
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
        let ring = lo < 0 ? PointBox.sector(cx, cy, angles: nil, 0, max(hi, -lo))
            : PointBox.sector(cx, cy, angles: box.angles(from: cx, cy), lo, hi)
        return near < radius - half || far > radius + half ? ring.union(box) : ring
    }
}

/// Resamples its input through a `DistortionMap`: each output pixel centre's source point is
/// computed from the pixel's own coordinates (so tiled and whole renders agree bit for bit)
/// and sampled bilinearly in the premultiplied working space, neighbours outside the input
/// clear.
final class DistortionNode: RecipeNode, @unchecked Sendable {
    let map: DistortionMap

    init(input: RecipeNode, map: DistortionMap, extent: CGRect) {
        self.map = map
        super.init(extent: extent, inputs: [input])
    }

    override var halo: Int { 1 }

    /// The source pixels the bilinear samples of `rect`'s pixel centres read: the map's
    /// bound on their source points, plus the sampling margin.
    override func inputRect(_ index: Int, for rect: PixelRect) -> PixelRect {
        if rect.isEmpty { return .empty }
        guard let b = map.sourceBounds(PointBox(centresOf: rect)),
              !b.minX.isNaN, !b.minY.isNaN, !b.maxX.isNaN, !b.maxY.isNaN else { return .empty }
        // Sample point p reads pixels floor(p - 0.5) and the one after; a hair of slack covers
        // rounding between the bound and the per-pixel arithmetic.
        let lim = Double(PixelRect.limit)
        func cl(_ v: Double) -> Int { Int(min(max(v, -lim), lim)) }
        func slack(_ v: Double) -> Double { 1e-6 * (1 + abs(v)) }
        return PixelRect(minX: cl((b.minX - 0.5 - slack(b.minX)).rounded(.down)),
                         minY: cl((b.minY - 0.5 - slack(b.minY)).rounded(.down)),
                         maxX: cl((b.maxX - 0.5 + slack(b.maxX)).rounded(.down)) + 2,
                         maxY: cl((b.maxY - 0.5 + slack(b.maxY)).rounded(.down)) + 2)
    }

    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        let input = inputs[0]
        let src = inputRect(0, for: rect).intersection(input.pixelExtent)
        if src.isEmpty { out.zero(); return }
        // A tile whose source points spread far (near a strong twirl's centre, a large
        // bump) would read a big block: split it (one pixel reads at most 2x2).
        if src.area > max(4 * rect.area, 1 << 18), rect.area > 1 {
            evaluateInQuarters(rect, into: out, ev)
            return
        }
        let block = PixelBlock(rect: src)
        ev.fill(input, src, block.buffer)
        switch map {
        case .twirl(let m): resample(m, rect, out, block.buffer, src)
        case .vortex(let m): resample(m, rect, out, block.buffer, src)
        case .pinch(let m): resample(m, rect, out, block.buffer, src)
        case .bump(let m): resample(m, rect, out, block.buffer, src)
        case .hole(let m): resample(m, rect, out, block.buffer, src)
        case .splash(let m): resample(m, rect, out, block.buffer, src)
        case .linearBump(let m): resample(m, rect, out, block.buffer, src)
        case .circularWrap(let m): resample(m, rect, out, block.buffer, src)
        case .tunnel(let m): resample(m, rect, out, block.buffer, src)
        case .torus(let m): resample(m, rect, out, block.buffer, src)
        }
    }

    /// The pixel loop, specialised for each map.
    @inline(__always)
    private func resample<M: WarpMap>(_ m: M, _ rect: PixelRect, _ out: TileBuffer, _ sb: TileBuffer, _ src: PixelRect) {
        let sx0 = src.minX, sy0 = src.minY
        for r in 0..<out.height {
            let yc = Double(rect.minY + r) + 0.5
            let d = out.row(r)
            for k in 0..<out.width {
                let xc = Double(rect.minX + k) + 0.5
                guard let (su, sv) = m.source(xc, yc) else { d[k] = .zero; continue }
                let u = su - 0.5, v = sv - 0.5
                // Far outside (or NaN): clear.
                guard abs(u) < 1e9, abs(v) < 1e9 else { d[k] = .zero; continue }
                d[k] = sb.bilinearClear(u: u, v: v, originX: sx0, originY: sy0)
            }
        }
    }

    override var label: String { "distortion \(map.label)" }
}

/// How `DisplacementNode` turns its second image into offsets.
enum DisplacementSource: Sendable {
    /// CIDisplacementDistortion: `scale * (r - 0.5, g - 0.5)` of the pixel (values clamped
    /// to 0...1).
    case channels
    /// CIGlassDistortion: `scale * (dL/dx, dL/dy)`, the central differences of the
    /// luminance L = 0.2126 r + 0.7152 g + 0.0722 b (clamped to 0...1) of the texture, so a
    /// sample moves up the texture's slopes.
    case gradient
}

/// The displacement distortions' resampler: each output pixel centre p samples its input at
/// p plus an offset read from the second image at p (`DisplacementSource`; working-space,
/// premultiplied values; no offset exceeds scale/2 on either axis), bilinearly and
/// premultiplied, neighbours outside the input clear.
final class DisplacementNode: RecipeNode, @unchecked Sendable {
    let scale: Double
    let mode: DisplacementSource

    init(input: RecipeNode, displacement: RecipeNode, scale: Double, mode: DisplacementSource = .channels, extent: CGRect) {
        self.scale = scale
        self.mode = mode
        super.init(extent: extent, inputs: [input, displacement])
    }

    override var halo: Int { 1 }

    /// Input 0: the centres moved by up to scale/2 each way, plus the bilinear margin (the
    /// tile itself narrows this to the offsets it finds). Input 1: the tile's pixels, and
    /// their neighbours for a gradient.
    override func inputRect(_ index: Int, for rect: PixelRect) -> PixelRect {
        if rect.isEmpty { return .empty }
        if index == 1 { return mode == .gradient ? rect.insetBy(dx: -1, dy: -1) : rect }
        let b = PointBox(centresOf: rect), k = scale / 2
        return Self.covering(PointBox(minX: b.minX - k, minY: b.minY - k, maxX: b.maxX + k, maxY: b.maxY + k))
    }
    /// The pixels bilinear samples at the points of `b` read.
    static func covering(_ b: PointBox) -> PixelRect {
        let lim = Double(PixelRect.limit)
        func cl(_ v: Double) -> Int { Int(min(max(v, -lim), lim)) }
        func slack(_ v: Double) -> Double { 1e-6 * (1 + abs(v)) }
        return PixelRect(minX: cl((b.minX - 0.5 - slack(b.minX)).rounded(.down)),
                         minY: cl((b.minY - 0.5 - slack(b.minY)).rounded(.down)),
                         maxX: cl((b.maxX - 0.5 + slack(b.maxX)).rounded(.down)) + 2,
                         maxY: cl((b.maxY - 0.5 + slack(b.maxY)).rounded(.down)) + 2)
    }

    /// The clamped luminance of a premultiplied working-space pixel.
    @inline(__always) private static func luma(_ p: SIMD4<Float>) -> Double {
        min(max(0.2126 * Double(p.x) + 0.7152 * Double(p.y) + 0.0722 * Double(p.z), 0), 1)
    }

    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        let input = inputs[0]
        let n = rect.width
        // Each pixel's offset, from the second image.
        let offsets = UnsafeMutablePointer<SIMD2<Double>>.allocate(capacity: rect.area)
        defer { offsets.deallocate() }
        switch mode {
        case .channels:
            let disp = PixelBlock(rect: rect)
            ev.fill(inputs[1], rect, disp.buffer)
            for r in 0..<rect.height {
                let dr = disp.buffer.row(r)
                for k in 0..<n {
                    let rx = Double(min(max(dr[k].x, 0), 1)), gy = Double(min(max(dr[k].y, 0), 1))
                    offsets[r * n + k] = SIMD2(scale * (rx - 0.5), scale * (gy - 0.5))
                }
            }
        case .gradient:
            let around = rect.insetBy(dx: -1, dy: -1)
            let tex = PixelBlock(rect: around)
            ev.fill(inputs[1], around, tex.buffer)
            for r in 0..<rect.height {
                let below = tex.buffer.row(r), row = tex.buffer.row(r + 1), above = tex.buffer.row(r + 2)
                for k in 0..<n {
                    let gx = (Self.luma(row[k + 2]) - Self.luma(row[k])) / 2
                    let gy = (Self.luma(above[k + 1]) - Self.luma(below[k + 1])) / 2
                    offsets[r * n + k] = SIMD2(scale * gx, scale * gy)
                }
            }
        }
        // The box of the source points this tile really reads.
        var box = PointBox(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)
        for r in 0..<rect.height {
            let yc = Double(rect.minY + r) + 0.5
            for k in 0..<n {
                let o = offsets[r * n + k]
                let u = Double(rect.minX + k) + 0.5 + o.x, v = yc + o.y
                if u.isFinite && v.isFinite { box.include(u, v) }
            }
        }
        let src = box.minX <= box.maxX ? Self.covering(box).intersection(input.pixelExtent) : .empty
        if src.isEmpty { out.zero(); return }
        let block = PixelBlock(rect: src)
        ev.fill(input, src, block.buffer)
        let sb = block.buffer
        let sx0 = src.minX, sy0 = src.minY
        for r in 0..<out.height {
            let yc = Double(rect.minY + r) + 0.5
            let d = out.row(r)
            for k in 0..<out.width {
                let o = offsets[r * n + k]
                let u = Double(rect.minX + k) + 0.5 + o.x - 0.5, v = yc + o.y - 0.5
                guard abs(u) < 1e9, abs(v) < 1e9 else { d[k] = .zero; continue }
                d[k] = sb.bilinearClear(u: u, v: v, originX: sx0, originY: sy0)
            }
        }
    }

    override var label: String { "displacement (\(mode)) scale \(scale)" }
}
