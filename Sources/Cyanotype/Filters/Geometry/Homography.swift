/// A plane projective transform (homography) in Core Image coordinates, in Double:
/// (x, y) -> ((a x + b y + c) / w, (d x + e y + f) / w) with w = g x + h y + i.
struct Homography: Equatable, Sendable {
    var a, b, c, d, e, f, g, h, i: Double

    static let identity = Homography(a: 1, b: 0, c: 0, d: 0, e: 1, f: 0, g: 0, h: 0, i: 1)

    /// The homography taking `rect`'s corners to the four points: bottom-left (minX, minY),
    /// bottom-right, top-right and top-left (y up). Nil when the points are not finite, the
    /// rectangle is empty or infinite, or three of the points are collinear (no projective
    /// map exists): callers turn that into an empty image.
    init?(rect: CGRect, bottomLeft p0: CGPoint, bottomRight p1: CGPoint, topRight p2: CGPoint, topLeft p3: CGPoint) {
        let xs = [p0.x, p1.x, p2.x, p3.x].map(Double.init), ys = [p0.y, p1.y, p2.y, p3.y].map(Double.init)
        let rx = Double(rect.minX), ry = Double(rect.minY), rw = Double(rect.width), rh = Double(rect.height)
        guard !rect.isNull, !rect.isInfinite, rw > 0, rh > 0, [rx, ry, rw, rh].allSatisfy(\.isFinite),
            (xs + ys).allSatisfy(\.isFinite)
        else { return nil }
        // Unit square to quadrilateral (Heckbert, "Fundamentals of Texture Mapping", 1989).
        let sx = xs[0] - xs[1] + xs[2] - xs[3], sy = ys[0] - ys[1] + ys[2] - ys[3]
        let dx1 = xs[1] - xs[2], dx2 = xs[3] - xs[2], dy1 = ys[1] - ys[2], dy2 = ys[3] - ys[2]
        let den = dx1 * dy2 - dx2 * dy1
        var g = 0.0, h = 0.0
        if sx != 0 || sy != 0 {
            guard den != 0 else { return nil }
            g = (sx * dy2 - dx2 * sy) / den
            h = (dx1 * sy - sx * dy1) / den
        }
        let square = Homography(
            a: xs[1] - xs[0] + g * xs[1], b: xs[3] - xs[0] + h * xs[3], c: xs[0],
            d: ys[1] - ys[0] + g * ys[1], e: ys[3] - ys[0] + h * ys[3], f: ys[0],
            g: g, h: h, i: 1)
        // Rectangle to unit square.
        let normalize = Homography(a: 1 / rw, b: 0, c: -rx / rw, d: 0, e: 1 / rh, f: -ry / rh, g: 0, h: 0, i: 1)
        var m = square.concatenating(after: normalize)
        // w > 0 at the rectangle's centre: the side of the plane that is drawn.
        if m.g * (rx + rw / 2) + m.h * (ry + rh / 2) + m.i < 0 { m = m.scaled(-1) }
        guard m.isInvertible else { return nil }
        self = m
    }

    init(a: Double, b: Double, c: Double, d: Double, e: Double, f: Double, g: Double, h: Double, i: Double) {
        self.a = a; self.b = b; self.c = c; self.d = d; self.e = e; self.f = f; self.g = g; self.h = h; self.i = i
    }

    private var entries: [Double] { [a, b, c, d, e, f, g, h, i] }
    func scaled(_ k: Double) -> Homography {
        Homography(a: a * k, b: b * k, c: c * k, d: d * k, e: e * k, f: f * k, g: g * k, h: h * k, i: i * k)
    }
    var determinant: Double { a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g) }
    /// Finite and not (numerically) singular: |det| against the entries' scale cubed.
    var isInvertible: Bool {
        let n = entries.map(abs).max() ?? 0
        let det = determinant
        return entries.allSatisfy(\.isFinite) && n > 0 && det.isFinite && abs(det) > 1e-12 * n * n * n
    }
    /// self after `first`: the map x -> self(first(x)).
    func concatenating(after m: Homography) -> Homography {
        Homography(
            a: a * m.a + b * m.d + c * m.g, b: a * m.b + b * m.e + c * m.h, c: a * m.c + b * m.f + c * m.i,
            d: d * m.a + e * m.d + f * m.g, e: d * m.b + e * m.e + f * m.h, f: d * m.c + e * m.f + f * m.i,
            g: g * m.a + h * m.d + i * m.g, h: g * m.b + h * m.e + i * m.h, i: g * m.c + h * m.f + i * m.i)
    }
    /// The inverse (adjugate over the determinant, so w keeps its sign: a point drawn by
    /// `self` has w > 0 under the inverse too).
    var inverse: Homography {
        let det = determinant
        return Homography(
            a: (e * i - f * h) / det, b: (c * h - b * i) / det, c: (b * f - c * e) / det,
            d: (f * g - d * i) / det, e: (a * i - c * g) / det, f: (c * d - a * f) / det,
            g: (d * h - e * g) / det, h: (b * g - a * h) / det, i: (a * e - b * d) / det)
    }
    /// Homogeneous image of (x, y): (X, Y, W).
    @inline(__always) func apply(_ x: Double, _ y: Double) -> (Double, Double, Double) {
        (a * x + b * y + c, d * x + e * y + f, g * x + h * y + i)
    }

    /// The image of `rect`: the bounding box of its mapped corners when all four lie on the
    /// drawn side (w > 0), infinite when the rectangle crosses the vanishing line (its image
    /// is unbounded), empty for an empty rectangle.
    func mappedExtent(_ rect: CGRect) -> CGRect {
        if rect.isNull || rect.isEmpty { return .zero }
        if rect.isInfiniteOrHuge { return .infinite }
        var lo = (Double.infinity, Double.infinity), hi = (-Double.infinity, -Double.infinity)
        for (x, y) in [(rect.minX, rect.minY), (rect.maxX, rect.minY), (rect.maxX, rect.maxY), (rect.minX, rect.maxY)] {
            let (X, Y, W) = apply(Double(x), Double(y))
            guard W > 0 else { return .infinite }
            let px = X / W, py = Y / W
            guard px.isFinite, py.isFinite else { return .infinite }
            lo = (min(lo.0, px), min(lo.1, py)); hi = (max(hi.0, px), max(hi.1, py))
        }
        let r = CGRect(x: lo.0, y: lo.1, width: hi.0 - lo.0, height: hi.1 - lo.1)
        return r.isInfiniteOrHuge ? .infinite : r
    }
}

/// The perspective filters' map: each output pixel centre goes through the inverse
/// homography; where w <= 0 (beyond the vanishing line) the output is clear.
struct ProjectiveMap: WarpMap {
    /// Input to output.
    let forward: Homography
    /// Output to input.
    let inverse: Homography

    init(forward: Homography) {
        self.forward = forward
        self.inverse = forward.inverse
    }

    /// Three multiply-adds and a division, from the point's own coordinates (the terms in y
    /// grouped first, so the loop keeps them per row).
    @inline(__always) func source(_ x: Double, _ y: Double) -> (Double, Double)? {
        let m = inverse
        let W = m.g * x + (m.h * y + m.i)
        let u = (m.a * x + (m.b * y + m.c)) / W, v = (m.d * x + (m.e * y + m.f)) / W
        return W > 0 ? (u, v) : nil
    }

    /// The pre-image of a box of centres is the quadrilateral of its mapped corners when w > 0
    /// at all four; otherwise it is unbounded: one point beyond the vanishing line reads
    /// nothing, a larger box may read anything (the tile is then split).
    func sourceBounds(_ box: PointBox) -> PointBox? {
        var out = PointBox(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)
        for (x, y) in [(box.minX, box.minY), (box.maxX, box.minY), (box.maxX, box.maxY), (box.minX, box.maxY)] {
            let (X, Y, W) = inverse.apply(x, y)
            let u = X / W, v = Y / W
            guard W > 0, u.isFinite, v.isFinite else {
                return box.minX == box.maxX && box.minY == box.maxY ? nil : .everywhere
            }
            out.include(u, v)
        }
        return out
    }

    var label: String {
        let m = forward
        return "perspective [\(m.a), \(m.b), \(m.c); \(m.d), \(m.e), \(m.f); \(m.g), \(m.h), \(m.i)]"
    }
}
