import Foundation

// The page curls: the input is a sheet lying face up; a cylinder of radius r rolls across it
// along n = (cos angle, sin angle), lifting the sheet from its far side and laying it back
// over itself, face down. With p = dot(point, n) and the cylinder touching the sheet at p = a,
// a sheet point at s > a lies on the cylinder at angle theta = (s - a) / r (0 at the contact
// line, pi at the top), seen from above at p = a + r sin(theta), and beyond the top (s > a +
// pi r) lies flat and face down at p = 2a + pi r - s. Looking down at a pixel p:
// - p <= a: the flipped sheet, back up, at s = 2a + pi r - p, over the flat sheet (s = p);
// - a < p < a + r: the cylinder's top half, back outward, at s = a + r (pi - asin((p - a)/r)),
//   over its bottom half, face inward, at s = a + r asin((p - a)/r);
// - beyond: the target.
// The sheet's back is the backside image (or the input) at the same sheet point. Each layer
// is a warp (one map each, from the pixel's own coordinates), and one colour stage stacks
// them: back over front over target, `out = B + (1 - B.a) (F + (1 - F.a) T)`.

/// Where the cylinder is and which way it rolls.
struct PageCurlGeometry: Sendable, Equatable {
    let nx: Double, ny: Double
    /// The contact line's position along n, and the cylinder's radius.
    let a: Double, r: Double

    @inline(__always) func along(_ x: Double, _ y: Double) -> Double { x * nx + y * ny }
    /// (x, y) moved by `ds` along n.
    @inline(__always) func moved(_ x: Double, _ y: Double, _ ds: Double) -> (Double, Double) { (x + ds * nx, y + ds * ny) }

    /// The box of points whose p lies in [s0, s1] and whose position across n is that of
    /// `box`'s points.
    func box(_ box: PointBox, along s0: Double, _ s1: Double) -> PointBox {
        var q0 = Double.infinity, q1 = -Double.infinity
        for (x, y) in [(box.minX, box.minY), (box.maxX, box.minY), (box.maxX, box.maxY), (box.minX, box.maxY)] {
            let q = -x * ny + y * nx
            q0 = min(q0, q); q1 = max(q1, q)
        }
        var out = PointBox(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)
        for s in [s0, s1] { for q in [q0, q1] { out.include(s * nx - q * ny, s * ny + q * nx) } }
        return out
    }
    /// The range of p over `box`.
    func range(_ box: PointBox) -> (Double, Double) {
        let ps = [along(box.minX, box.minY), along(box.maxX, box.minY), along(box.maxX, box.maxY), along(box.minX, box.maxY)]
        return (ps.min() ?? 0, ps.max() ?? 0)
    }

    /// How lit the curl is at p: 1 on flat sheet, `0.4 + 0.6 sqrt(1 - u^2)` on the cylinder
    /// (u = (p - a) / r: the surface turns away towards its edge).
    @inline(__always) func shade(_ p: Double) -> Float {
        if p <= a || p >= a + r { return 1 }
        let u = (p - a) / r
        return Float(0.4 + 0.6 * max(0, 1 - u * u).squareRoot())
    }
}

/// The sheet's back (topmost): flipped flat part and the cylinder's top half.
struct PageCurlBackMap: WarpMap {
    let curl: PageCurlGeometry

    @inline(__always) func source(_ x: Double, _ y: Double) -> (Double, Double)? {
        let c = curl, p = c.along(x, y)
        if p <= c.a { return c.moved(x, y, 2 * c.a + Double.pi * c.r - 2 * p) }
        if p >= c.a + c.r { return nil }
        let s = c.a + c.r * (Double.pi - asin(min((p - c.a) / c.r, 1)))
        return c.moved(x, y, s - p)
    }

    func sourceBounds(_ box: PointBox) -> PointBox? {
        let c = curl
        let (p0, p1) = c.range(box)
        var out: PointBox? = nil
        if p0 <= c.a {
            let flat = c.box(box, along: 2 * c.a + Double.pi * c.r - min(p1, c.a), 2 * c.a + Double.pi * c.r - p0)
            out = flat
        }
        if p1 > c.a && p0 < c.a + c.r {
            let roll = c.box(box, along: c.a + c.r * Double.pi / 2, c.a + c.r * Double.pi)
            out = out.map { $0.union(roll) } ?? roll
        }
        return out
    }
    var label: String { "page curl (back) axis \(curl.a) radius \(curl.r)" }
}

/// The sheet's face: flat where it still lies, the cylinder's bottom half (seen from inside).
struct PageCurlFrontMap: WarpMap {
    let curl: PageCurlGeometry

    @inline(__always) func source(_ x: Double, _ y: Double) -> (Double, Double)? {
        let c = curl, p = c.along(x, y)
        if p <= c.a { return (x, y) }
        if p >= c.a + c.r { return nil }
        let s = c.a + c.r * asin(min((p - c.a) / c.r, 1))
        return c.moved(x, y, s - p)
    }

    func sourceBounds(_ box: PointBox) -> PointBox? {
        let c = curl
        let (p0, p1) = c.range(box)
        var out: PointBox? = nil
        if p0 <= c.a { out = c.box(box, along: p0, min(p1, c.a)) }
        if p1 > c.a && p0 < c.a + c.r {
            let roll = c.box(box, along: c.a, c.a + c.r * Double.pi / 2)
            out = out.map { $0.union(roll) } ?? roll
        }
        return out
    }
    var label: String { "page curl (front) axis \(curl.a) radius \(curl.r)" }
}

/// The shading image's middle row, read at the fraction theta / pi of its width for the
/// back's angle theta (pi on the flipped flat part).
struct PageCurlShadingMap: WarpMap {
    let curl: PageCurlGeometry
    let x0: Double, width: Double, midY: Double

    @inline(__always) func source(_ x: Double, _ y: Double) -> (Double, Double)? {
        let c = curl, p = c.along(x, y)
        if p >= c.a + c.r { return nil }
        let theta = p <= c.a ? Double.pi : Double.pi - asin(min((p - c.a) / c.r, 1))
        return (x0 + 0.5 + (width - 1) * theta / Double.pi, midY)
    }
    func sourceBounds(_ box: PointBox) -> PointBox? { PointBox(minX: x0, minY: midY, maxX: x0 + width, maxY: midY) }
    var label: String { "page curl shading" }
}

/// Stacks the layers: `out = B * shade + (1 - B.a) (F * shade + (1 - F.a) T * (1 - shadow))`.
/// The row is the back layer; extras: front, target, and the shading row when there is one.
struct PageCurlStage: ColorStage {
    let curl: PageCurlGeometry
    let shaded: Bool
    /// The shadow on the target: `amount` under the cylinder, fading (squared) over `width`
    /// pixels beyond it; only inside `limit` when it is set.
    let shadowAmount: Float, shadowWidth: Double
    let limit: CGRect?

    var extraInputCount: Int { shaded ? 3 : 2 }
    var wantsUnpremultiplied: Bool { false }

    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let front = extra[0], target = extra[1]
        let shading: UnsafeMutablePointer<SIMD4<Float>>? = shaded ? extra[2] : nil
        let c = curl, yc = Double(y) + 0.5
        let rowInLimit = limit.map { yc >= Double($0.minY) && yc < Double($0.maxY) } ?? true
        for i in 0..<count {
            let xc = Double(x + i) + 0.5
            let p = c.along(xc, yc)
            let k = c.shade(p)
            var b = row[i], f = front[i]
            if let shading {
                let s = shading[i]
                b = SIMD4(b.x * s.x, b.y * s.y, b.z * s.z, b.w)
            } else {
                b = SIMD4(b.x * k, b.y * k, b.z * k, b.w)
            }
            f = SIMD4(f.x * k, f.y * k, f.z * k, f.w)
            var t = target[i]
            if shadowAmount > 0, p >= c.a, rowInLimit, limit.map({ xc >= Double($0.minX) && xc < Double($0.maxX) }) ?? true {
                let d = p - c.a - c.r
                var veil: Float = 0
                if d <= 0 { veil = shadowAmount } else if d < shadowWidth { let u = Float(1 - d / shadowWidth); veil = shadowAmount * u * u }
                t *= 1 - veil
            }
            row[i] = b + (1 - b.w) * (f + (1 - f.w) * t)
        }
    }
    var label: String { "page curl stack" }
}

/// The shared recipe of both page curls.
private func pageCurl(_ args: FilterArguments, shading: CIImage?, shadowAmount: Float, shadowSize: Double, shadowExtent: CGRect?) throws(CIFilterError) -> CIImage {
    let image = try args.image(), target = try args.image(kCIInputTargetImageKey)
    let back = try args.optionalImage("inputBacksideImage") ?? image
    let t = try args.number(kCIInputTimeKey), angle = try args.number(kCIInputAngleKey), r = try args.number(kCIInputRadiusKey)
    var sweep = try args.rect(kCIInputExtentKey).standardized
    if t <= 0 { return image }
    if t >= 1 { return target }
    if sweep.isNull || sweep.isEmpty || sweep.isInfiniteOrHuge { sweep = image.extent }
    if sweep.isNull || sweep.isEmpty || sweep.isInfiniteOrHuge { sweep = target.extent }
    let nx = cos(angle), ny = sin(angle)
    var lo = Double.infinity, hi = -Double.infinity
    if !(sweep.isNull || sweep.isEmpty || sweep.isInfiniteOrHuge) {
        for (x, y) in [(sweep.minX, sweep.minY), (sweep.maxX, sweep.minY), (sweep.maxX, sweep.maxY), (sweep.minX, sweep.maxY)] {
            let p = Double(x) * nx + Double(y) * ny
            lo = min(lo, p); hi = max(hi, p)
        }
    } else {
        lo = 0; hi = 0
    }
    let a = hi - t * (hi - lo + (1 + Double.pi / 2) * r)
    let curl = PageCurlGeometry(nx: nx, ny: ny, a: a, r: r)
    // Where the flipped sheet lands: the input reflected about p = a + pi r / 2.
    var extent = image.extent.union(target.extent)
    let e = image.extent
    if e.isInfiniteOrHuge {
        extent = .infinite
    } else if !e.isEmpty {
        var flipped = PointBox(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)
        for (x, y) in [(e.minX, e.minY), (e.maxX, e.minY), (e.maxX, e.maxY), (e.minX, e.maxY)] {
            let p = curl.along(Double(x), Double(y))
            let (fx, fy) = curl.moved(Double(x), Double(y), 2 * a + Double.pi * r - 2 * p)
            flipped.include(fx, fy)
        }
        extent = extent.union(CGRect(x: flipped.minX, y: flipped.minY, width: flipped.maxX - flipped.minX, height: flipped.maxY - flipped.minY))
    }
    let backLayer = CIImage(node: WarpNode(input: back.node, map: PageCurlBackMap(curl: curl), extent: extent))
    let frontLayer = CIImage(node: WarpNode(input: image.node, map: PageCurlFrontMap(curl: curl), extent: extent))
    var extras = [frontLayer, target]
    if let shading {
        let s = shading.extent
        if !s.isEmpty && !s.isInfiniteOrHuge {
            extras.append(
                CIImage(node: WarpNode(input: shading.node, map: PageCurlShadingMap(curl: curl, x0: Double(s.minX), width: Double(s.width), midY: Double(s.midY)), extent: extent)))
        }
    }
    let limit = shadowExtent.flatMap { $0.isNull || $0.isEmpty || $0.isInfiniteOrHuge ? nil : $0 }
    let stage = PageCurlStage(curl: curl, shaded: extras.count == 3, shadowAmount: shadowAmount, shadowWidth: 2 * r * shadowSize, limit: limit)
    return backLayer.applying(stage, extras: extras, extent: extent)
}

extension BuiltinFilters {
    /// CIPageCurlTransition: Transition that curls the page to reveal the target, with optional backside and shading images.
    static let pageCurlTransition = BuiltinFilter(
        FilterDescriptor(
            "CIPageCurlTransition", "Page Curl", "Transition that curls the page to reveal the target, with optional backside and shading images.",
            categories: [.builtIn, .highDynamicRange, .stillImage, .transition, .video], macOS: "10.4", iOS: "9", factory: "pageCurlTransition",
            doc: """
                The input is a sheet lying face up that curls away, rolled over
                a cylinder of radius `radius` travelling along `angle` (0: from the right edge to the
                left), and lands face down beyond, uncovering the target. With `p` the position along
                the travel direction and `[p0, p1]` its range over `extent` (the input's extent when
                `extent` is empty), the cylinder's contact line is at `a = p1 - time (p1 - p0 + (1 +
                pi/2) radius)`, so at time 1 the whole sheet over `extent` has turned over and moved
                off it. The geometry is exact (see PageCurl.swift): the flipped part and the
                cylinder's top half show the sheet's back, the backside image (the input when there
                is none) at the same sheet point; the cylinder's bottom half shows its face from
                inside. The cylinder is shaded `0.4 + 0.6 sqrt(1 - u^2)` (u the distance from the
                contact line in radii), or, with a shading image, the back is multiplied by the
                shading image's middle row at the fraction theta / pi of its width (theta the sheet's
                angle on the cylinder, pi on the flipped part). Time 0 is the input, time 1 the
                target. Output extent: both images' and the flipped sheet's.
                """,
            inputs: [
                .image(),
                .image("inputTargetImage", "Target Image"),
                .image("inputBacksideImage", "Backside Image", "What the back of the sheet shows (the input when not set)."),
                .image(
                    "inputShadingImage", "Shading Image",
                    """
                    A light ramp whose middle row shades the curl's back from its
                    edge (left) to its top (right).
                    """),
                .vector("inputExtent", "Extent", .rectangle, default: [0, 0, 300, 300], "The rectangle the curl travels across."),
                .number("inputTime", "Time", .time, default: 0, identity: 0, min: 0, max: 1, slider: 0...1),
                .number(
                    "inputAngle", "Angle", .angle, default: 0, identity: 0, slider: -3.141592653589793...3.141592653589793,
                    "The direction of travel, in radians (0: the right edge lifts first)."),
                .number("inputRadius", "Radius", .distance, default: 100, min: 0.01, slider: 0.01...400, "The cylinder's radius, in pixels."),
            ]),
        reach: .unbounded
    ) { args throws(CIFilterError) in
        try pageCurl(args, shading: try args.optionalImage("inputShadingImage"), shadowAmount: 0, shadowSize: 0, shadowExtent: nil)
    }

    /// CIPageCurlWithShadowTransition: Page-curl transition that also casts a shadow.
    static let pageCurlWithShadowTransition = BuiltinFilter(
        FilterDescriptor(
            "CIPageCurlWithShadowTransition", "Page Curl With Shadow", "Page-curl transition that also casts a shadow.",
            categories: [.builtIn, .highDynamicRange, .stillImage, .transition, .video], macOS: "10.9", iOS: "9", factory: "pageCurlWithShadowTransition",
            doc: """
                CIPageCurlTransition without a shading image, and the
                curl casts a shadow on the target: a veil of `shadowAmount` under the cylinder, fading
                as the square over `2 * radius * shadowSize` pixels ahead of it
                (`target * (1 - veil)`), inside `shadowExtent` when it is not empty.
                """,
            inputs: [
                .image(),
                .image("inputTargetImage", "Target Image"),
                .image("inputBacksideImage", "Backside Image", "What the back of the sheet shows (the input when not set)."),
                .vector("inputExtent", "Extent", .rectangle, default: [0, 0, 0, 0], "The rectangle the curl travels across (empty: the input's extent)."),
                .number("inputTime", "Time", .time, default: 0, identity: 0, min: 0, max: 1, slider: 0...1),
                .number(
                    "inputAngle", "Angle", .angle, default: 0, identity: 0, slider: -3.141592653589793...3.141592653589793,
                    "The direction of travel, in radians (0: the right edge lifts first)."),
                .number("inputRadius", "Radius", .distance, default: 100, min: 0.01, slider: 0.01...400, "The cylinder's radius, in pixels."),
                .number(
                    "inputShadowSize", "Shadow Size", .distance, default: 0.5, min: 0, max: 1, slider: 0...1,
                    "How far the shadow reaches ahead of the cylinder, in diameters."),
                .number("inputShadowAmount", "Shadow Amount", .distance, default: 0.7, min: 0, max: 1, slider: 0...1, "How dark the shadow is (0 none, 1 black)."),
                .vector("inputShadowExtent", "Shadow Extent", .rectangle, default: [0, 0, 0, 0], "Where the shadow may fall (empty: everywhere)."),
            ]),
        reach: .unbounded
    ) { args throws(CIFilterError) in
        try pageCurl(
            args, shading: nil, shadowAmount: try args.float("inputShadowAmount"), shadowSize: try args.number("inputShadowSize"),
            shadowExtent: try args.rect("inputShadowExtent").standardized)
    }
}
