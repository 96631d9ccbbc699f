import Foundation

// CIRippleTransition: a circular wave of width w runs out from the centre; inside it the
// pictures are refracted by the wave's slope and cross-fade, behind it is the target.

/// The ripple ring at one moment: its outer radius R and width w about the centre; u = (R -
/// d) / w runs from 0 (the ring's outer edge, distance d = R) to 1 (its inner edge).
struct RippleRing: Sendable, Equatable {
    let cx: Double, cy: Double, radius: Double, width: Double, scale: Double

    /// u for a point at distance d, or nil outside the ring.
    @inline(__always) func phase(_ d: Double) -> Double? {
        let u = (radius - d) / width
        return u > 0 && u < 1 ? u : nil
    }
    /// The wave's height profile is `sin^2(pi u)`; points move outward by
    /// `scale * sin(2 pi u) / 2` (the slope of the profile over 2 pi), 0 at both edges.
    @inline(__always) func displacement(_ u: Double) -> Double { scale * sin(2 * Double.pi * u) / 2 }
}

/// Both pictures' map: points in the ring move along the radius by the wave's displacement.
struct RippleMap: WarpMap {
    let ring: RippleRing

    @inline(__always) func source(_ x: Double, _ y: Double) -> (Double, Double)? {
        let c = ring, dx = x - c.cx, dy = y - c.cy
        let d = (dx * dx + dy * dy).squareRoot()
        guard d > 0, let u = c.phase(d) else { return (x, y) }
        let k = c.displacement(u) / d
        return (x + dx * k, y + dy * k)
    }

    /// Points within |scale| / 2 of the ring move at most that far.
    func sourceBounds(_ box: PointBox) -> PointBox? {
        let c = ring
        let (near, far) = box.distances(from: c.cx, c.cy)
        if far <= c.radius - c.width || near >= c.radius { return box }
        let k = abs(c.scale) / 2
        return PointBox(minX: box.minX - k, minY: box.minY - k, maxX: box.maxX + k, maxY: box.maxY + k)
    }
    var label: String { "ripple ring radius \(ring.radius) width \(ring.width)" }
}

/// The shading image read where the wave's normal points, as a sphere map over its extent
/// (its middle where the wave is flat).
struct RippleShadingMap: WarpMap {
    let ring: RippleRing
    let sx: Double, sy: Double, rx: Double, ry: Double

    @inline(__always) func source(_ x: Double, _ y: Double) -> (Double, Double)? {
        let c = ring, dx = x - c.cx, dy = y - c.cy
        let d = (dx * dx + dy * dy).squareRoot()
        guard d > 0, let u = c.phase(d) else { return (sx, sy) }
        // The slope of the height scale * sin^2(pi u) along the outward radius (u falls
        // outward): -scale * pi / w * sin(2 pi u).
        let g = -c.scale * Double.pi / c.width * sin(2 * Double.pi * u)
        let inv = 1 / (g * g + 1).squareRoot()
        let nx = -g * dx / d * inv, ny = -g * dy / d * inv
        return (sx + rx * nx, sy + ry * ny)
    }
    /// The middle alone away from the ring; the whole sphere where the box meets it.
    func sourceBounds(_ box: PointBox) -> PointBox? {
        let (near, far) = box.distances(from: ring.cx, ring.cy)
        if far <= ring.radius - ring.width || near >= ring.radius { return .point(sx, sy) }
        return PointBox(minX: sx - rx, minY: sy - ry, maxX: sx + rx, maxY: sy + ry)
    }
    var label: String { "ripple shading" }
}

/// Cross-fades the refracted input (the row) and target (`extra[0]`) across the ring and
/// shades the wave: `extra[1]` is the shading image's colour there when there is one.
struct RippleStage: ColorStage {
    let ring: RippleRing
    let shaded: Bool

    var extraInputCount: Int { shaded ? 2 : 1 }
    var wantsUnpremultiplied: Bool { false }

    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let target = extra[0]
        let shading: UnsafeMutablePointer<SIMD4<Float>>? = shaded ? extra[1] : nil
        let c = ring, dy = Double(y) + 0.5 - c.cy
        for i in 0..<count {
            let dx = Double(x + i) + 0.5 - c.cx
            let d = (dx * dx + dy * dy).squareRoot()
            if d <= c.radius - c.width { row[i] = target[i]; continue }
            guard let u = c.phase(d) else { continue }
            let w = Float(u * u * (3 - 2 * u))
            var p = row[i] * (1 - w) + target[i] * w
            let envelope = Float(sin(Double.pi * u))
            let f: SIMD3<Float>
            if let shading {
                let s = shading[i]
                f = SIMD3(repeating: 1 - envelope) + SIMD3(s.x, s.y, s.z) * (2 * envelope)
            } else {
                // Light from the upper left on the wave's slope.
                let g = -c.scale * Double.pi / c.width * sin(2 * Double.pi * u)
                let lit = d > 0 ? -g * (-dx + dy) / (d * 2.0.squareRoot() * (g * g + 1).squareRoot()) : 0
                f = SIMD3(repeating: 1 + Float(0.5 * lit) * envelope)
            }
            p = SIMD4(p.x * f.x, p.y * f.y, p.z * f.z, p.w)
            row[i] = p
        }
    }
    var label: String { "ripple" }
}

extension BuiltinFilters {
    /// CIRippleTransition: Transition with an expanding circular ripple wave.
    static let rippleTransition = BuiltinFilter(
        FilterDescriptor(
            "CIRippleTransition", "Ripple", "Transition with an expanding circular ripple wave.",
            categories: [.builtIn, .highDynamicRange, .stillImage, .transition, .video], macOS: "10.4", iOS: "9", factory: "rippleTransition",
            doc: """
                A circular wave `width` pixels wide runs out from `center`,
                leaving the target behind it. Its outer radius is `R = time (D + width)`, D the
                distance from the centre to the farthest corner of `extent` and both images' extents,
                so the wave starts at the centre at time 0 and has passed everything at time 1. Inside
                the ring, `u = (R - d) / width` (0 at its outer edge, 1 at its inner one, d the
                distance from the centre): the wave's height is `scale sin^2(pi u)`, and both pictures
                are read moved outward along the radius by `scale sin(2 pi u) / 2` (refraction by its
                slope) and cross-faded by `smoothstep(u)` from input to target. The wave is lit: with
                a shading image, `rgb *= (1 - e) + 2 e S` where S is the shading image (a lit sphere)
                read as a sphere map at the wave's surface normal and `e = sin(pi u)`; without one,
                `rgb *= 1 + 0.5 e (n . l)` for light from the upper left. Outside the ring: the input
                ahead of it, the target behind. Time 0 is the input, time 1 the target. Output extent:
                both images'.
                """,
            inputs: [
                .image(),
                .image("inputTargetImage", "Target Image"),
                .image("inputShadingImage", "Shading Image", "A lit sphere that shades the wave (mid-grey leaves it unlit)."),
                .vector("inputCenter", "Center", .position, default: [150, 150], "Where the wave starts."),
                .vector("inputExtent", "Extent", .rectangle, default: [0, 0, 300, 300], "The rectangle the wave must cross by time 1."),
                .number("inputTime", "Time", .time, default: 0, identity: 0, min: 0, max: 1, slider: 0...1),
                .number("inputWidth", "Width", .distance, default: 100, min: 1, slider: 10...300, "The wave's width, in pixels."),
                .number(
                    "inputScale", "Scale", .scalar, default: 50, identity: 0, min: -50, slider: -50...50,
                    """
                    The wave's height: how far it moves the pictures (twice the largest
                    shift), negative for a trough.
                    """),
            ]),
        reach: .unbounded
    ) { args throws(CIFilterError) in
        let image = try args.image(), target = try args.image(kCIInputTargetImageKey)
        let shading = try args.optionalImage("inputShadingImage")
        let t = try args.number(kCIInputTimeKey)
        let c = try args.point(kCIInputCenterKey), sweep = try args.rect(kCIInputExtentKey).standardized
        let width = try args.number(kCIInputWidthKey), scale = try args.number(kCIInputScaleKey)
        if t <= 0 { return image }
        if t >= 1 { return target }
        var far = 0.0
        for r in [sweep, image.extent, target.extent] where !(r.isNull || r.isEmpty || r.isInfiniteOrHuge) {
            for (x, y) in [(r.minX, r.minY), (r.maxX, r.minY), (r.maxX, r.maxY), (r.minX, r.maxY)] {
                far = max(far, Double(hypot(x - c.x, y - c.y)))
            }
        }
        let ring = RippleRing(cx: Double(c.x), cy: Double(c.y), radius: t * (far + width), width: width, scale: scale)
        let extent = image.extent.union(target.extent)
        let movedInput = CIImage(node: WarpNode(input: image.node, map: RippleMap(ring: ring), extent: extent))
        let movedTarget = CIImage(node: WarpNode(input: target.node, map: RippleMap(ring: ring), extent: extent))
        var extras = [movedTarget]
        if let shading, !shading.extent.isEmpty, !shading.extent.isInfiniteOrHuge {
            let s = shading.extent
            let map = RippleShadingMap(
                ring: ring, sx: Double(s.midX), sy: Double(s.midY),
                rx: max(0, Double(s.width) / 2 - 0.5), ry: max(0, Double(s.height) / 2 - 0.5))
            extras.append(CIImage(node: WarpNode(input: shading.node, map: map, extent: extent)))
        }
        return movedInput.applying(RippleStage(ring: ring, shaded: extras.count == 2), extras: extras, extent: extent)
    }
}
