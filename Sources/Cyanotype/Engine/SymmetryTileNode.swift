import Foundation

// Symmetric tilings (wallpaper groups) and the kaleidoscope: every output pixel centre p is
// taken into the cell frame (origin at the centre, x axis along the angle), folded into the
// fundamental cell by the symmetry group's operations, and taken back; the input is sampled
// there bilinearly (premultiplied, clear outside the input), as `ProjectiveNode` samples.
//
// The symmetry is a value type chosen once (the node's generic parameter): the per-pixel fold
// is plain Double arithmetic with no closure, existential or allocation.

/// A fold of the plane, in the cell frame, into a fundamental cell.
protocol TileSymmetry: Sendable {
    /// The point of the fundamental cell that the symmetry group maps (x, y) from.
    func fold(_ x: Double, _ y: Double) -> (Double, Double)
    /// Vertices of a convex polygon holding the fundamental cell (cell frame), or nil when
    /// the cell is unbounded (the kaleidoscope's wedge).
    var cellVertices: [(Double, Double)]? { get }
    /// For an unbounded cell: how much farther from the centre than the pixel its source
    /// point can lie.
    var reach: Double { get }
    /// A short description for `CIContext.explain`.
    var name: String { get }
}

extension TileSymmetry {
    var reach: Double { 0 }
}

/// x - period * floor(x / period + 0.5): x reduced into [-period / 2, period / 2).
@inline(__always) func centredRemainder(_ x: Double, _ period: Double) -> Double {
    x - period * (x / period + 0.5).rounded(.down)
}

/// x reflected into [-0.5, 0.5] by mirrors at every half-integer (a triangle wave of period 2).
@inline(__always) func reflectedUnit(_ x: Double) -> Double {
    let m = x - 2 * ((x + 0.5) / 2).rounded(.down)   // [-0.5, 1.5)
    return m > 0.5 ? 1 - m : m
}

/// A parallelogram lattice: a = (w, 0), b = w (cos acute, sin acute). The cell is
/// {s a + t b : s, t in [-1/2, 1/2]}. Translated: (s, t) reduced modulo 1 (p1). Reflected:
/// s and t reflected in the cell's sides (a triangle wave in each lattice coordinate; pmm
/// when the acute angle is a right angle, its affine image otherwise).
struct ParallelogramSymmetry: TileSymmetry {
    let width: Double, cosA: Double, sinA: Double
    let reflected: Bool

    @inline(__always) func fold(_ x: Double, _ y: Double) -> (Double, Double) {
        let t = y / (width * sinA)
        let s = x / width - t * cosA
        let s2 = reflected ? reflectedUnit(s) : centredRemainder(s, 1)
        let t2 = reflected ? reflectedUnit(t) : centredRemainder(t, 1)
        return (width * (s2 + t2 * cosA), width * t2 * sinA)
    }
    var cellVertices: [(Double, Double)]? {
        [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)].map { s, t in (width * (s + t * cosA), width * t * sinA) }
    }
    var name: String { reflected ? "reflected parallelogram" : "translated parallelogram" }
}

/// p4: square cells of side w centred on the origin; four cells meet at each corner with a
/// quarter-turn between neighbours (the 4-fold centres at (±w/2, ±w/2), period 2w).
struct FourfoldRotatedSymmetry: TileSymmetry {
    let width: Double

    @inline(__always) func fold(_ x: Double, _ y: Double) -> (Double, Double) {
        let w = width, h = w / 2
        // Offsets from the 4-fold centre (h, h) of this 2w x 2w block, in [-w, w).
        let dx = centredRemainder(x - h, 2 * w), dy = centredRemainder(y - h, 2 * w)
        let (ex, ey): (Double, Double)
        switch (dx < 0, dy < 0) {
        case (true, true): (ex, ey) = (dx, dy)
        case (false, true): (ex, ey) = (dy, -dx)     // a quarter-turn clockwise
        case (false, false): (ex, ey) = (-dx, -dy)   // a half-turn
        case (true, false): (ex, ey) = (-dy, dx)     // a quarter-turn anticlockwise
        }
        return (h + ex, h + ey)
    }
    var cellVertices: [(Double, Double)]? {
        let h = width / 2
        return [(-h, -h), (h, -h), (h, h), (-h, h)]
    }
    var name: String { "p4" }
}

/// p4m: mirrors at x, y = k w / 2 and on the diagonals of each w x w square centred on a
/// lattice point; the cell is the triangle (0, 0), (w/2, 0), (w/2, w/2).
struct EightfoldReflectedSymmetry: TileSymmetry {
    let width: Double

    @inline(__always) func fold(_ x: Double, _ y: Double) -> (Double, Double) {
        let u = abs(centredRemainder(x, width)), v = abs(centredRemainder(y, width))
        return v > u ? (v, u) : (u, v)
    }
    var cellVertices: [(Double, Double)]? { [(0, 0), (width / 2, 0), (width / 2, width / 2)] }
    var name: String { "p4m" }
}

/// pg: square cells of side w centred on (i w, j w); the cells of odd columns i are mirrored
/// top to bottom (a glide reflection: a step of w along x with a flip in y).
struct GlideReflectedSymmetry: TileSymmetry {
    let width: Double

    @inline(__always) func fold(_ x: Double, _ y: Double) -> (Double, Double) {
        let i = (x / width + 0.5).rounded(.down)
        let u = x - width * i
        let v = centredRemainder(y, width)
        let odd = (i / 2).rounded(.down) * 2 != i
        return (u, odd ? -v : v)
    }
    var cellVertices: [(Double, Double)]? {
        let h = width / 2
        return [(-h, -h), (h, -h), (h, h), (-h, h)]
    }
    var name: String { "pg" }
}

/// The hexagonal groups. Lattice points (6-fold centres) lie w * sqrt(3) apart, in
/// directions 30 + 60 k degrees, one at the origin; each point's Voronoi cell is a hexagon of
/// circumradius w with vertices at 0, 60, ... degrees. A pixel is taken relative to its
/// nearest lattice point (polar angle theta, radius r), then:
/// - p6 (sixfold rotated): theta reduced modulo 60 degrees (rotations by 60 degrees); cell the
///   equilateral triangle (0, 0), (w, 0), w (1/2, sqrt(3)/2).
/// - p3m1 (sixfold reflected): theta reflected into [0, 60] by mirrors at 0, 60 and 120
///   degrees (the triangle of side w reflected in its sides); same cell.
/// - p6m (twelvefold reflected): theta reflected into [0, 30] by mirrors every 30 degrees;
///   cell the triangle (0, 0), (w, 0), w (3/4, sqrt(3)/4).
struct HexagonalSymmetry: TileSymmetry {
    enum Kind: Sendable { case p6, p3m1, p6m }
    let width: Double
    let kind: Kind

    @inline(__always) func fold(_ x: Double, _ y: Double) -> (Double, Double) {
        let w = width, s3 = 3.0.squareRoot()
        // Lattice coordinates on a1 = w (3/2, sqrt(3)/2), a2 = w (0, sqrt(3)).
        let i = x / (1.5 * w)
        let j = (y - i * (s3 / 2) * w) / (s3 * w)
        let i0 = i.rounded(.down), j0 = j.rounded(.down)
        // The nearest lattice point is a corner of the rhombus holding the point.
        var (dx, dy) = offset(x, y, i0, j0)
        var best = dx * dx + dy * dy
        let o1 = offset(x, y, i0 + 1, j0), o2 = offset(x, y, i0, j0 + 1), o3 = offset(x, y, i0 + 1, j0 + 1)
        let d1 = o1.0 * o1.0 + o1.1 * o1.1, d2 = o2.0 * o2.0 + o2.1 * o2.1, d3 = o3.0 * o3.0 + o3.1 * o3.1
        if d1 < best { best = d1; (dx, dy) = o1 }
        if d2 < best { best = d2; (dx, dy) = o2 }
        if d3 < best { (dx, dy) = o3 }
        let r = (dx * dx + dy * dy).squareRoot()
        var theta = atan2(dy, dx)
        if theta < 0 { theta += 2 * Double.pi }
        let t: Double
        switch kind {
        case .p6:
            t = theta - (Double.pi / 3) * (theta / (Double.pi / 3)).rounded(.down)
        case .p3m1:
            let m = theta - (2 * Double.pi / 3) * (theta / (2 * Double.pi / 3)).rounded(.down)
            t = m > Double.pi / 3 ? 2 * Double.pi / 3 - m : m
        case .p6m:
            let m = theta - (Double.pi / 3) * (theta / (Double.pi / 3)).rounded(.down)
            t = m > Double.pi / 6 ? Double.pi / 3 - m : m
        }
        return (r * cos(t), r * sin(t))
    }
    /// (x, y) relative to lattice point (ci, cj).
    @inline(__always) private func offset(_ x: Double, _ y: Double, _ ci: Double, _ cj: Double) -> (Double, Double) {
        let s3 = 3.0.squareRoot()
        return (x - ci * 1.5 * width, y - (ci * (s3 / 2) + cj * s3) * width)
    }
    var cellVertices: [(Double, Double)]? {
        let w = width, s3 = 3.0.squareRoot()
        return kind == .p6m ? [(0, 0), (w, 0), (0.75 * w, s3 / 4 * w)] : [(0, 0), (w, 0), (0.5 * w, s3 / 2 * w)]
    }
    var name: String { "\(kind)" }
}

/// The kaleidoscope: mirrors through the centre every 180 / n degrees; theta reflected into
/// [0, 180 / n] degrees, the radius kept. The cell is an unbounded wedge.
struct KaleidoscopeSymmetry: TileSymmetry {
    let count: Int

    @inline(__always) func fold(_ x: Double, _ y: Double) -> (Double, Double) {
        let wedge = 2 * Double.pi / Double(count)
        var theta = atan2(y, x)
        if theta < 0 { theta += 2 * Double.pi }
        let m = theta - wedge * (theta / wedge).rounded(.down)
        let t = m > wedge / 2 ? wedge - m : m
        let r = (x * x + y * y).squareRoot()
        return (r * cos(t), r * sin(t))
    }
    var cellVertices: [(Double, Double)]? { nil }
    var name: String { "kaleidoscope \(count)" }
}

/// p2 on equilateral triangles of side w: the triangle with its centroid at the origin, base
/// horizontal (vertices (-w/2, -h/3), (w/2, -h/3), (0, 2h/3), h = w sqrt(3) / 2), tiled by
/// the lattice of its sides' vectors e1 = (w, 0), e2 = (w/2, h); the triangles between point the
/// other way and are half-turns of it about its sides' midpoints.
struct TriangleTileSymmetry: TileSymmetry {
    let width: Double

    @inline(__always) func fold(_ x: Double, _ y: Double) -> (Double, Double) {
        let w = width, h = width * 3.0.squareRoot() / 2
        // Lattice coordinates from the vertex A = (-w/2, -h/3).
        let px = x + w / 2, py = y + h / 3
        let t = py / h, s = px / w - t / 2
        var fs = s - s.rounded(.down), ft = t - t.rounded(.down)
        if fs + ft > 1 { fs = 1 - fs; ft = 1 - ft }   // the half-turn about the shared edge's midpoint
        return (-w / 2 + w * (fs + ft / 2), -h / 3 + h * ft)
    }
    var cellVertices: [(Double, Double)]? {
        let w = width, h = width * 3.0.squareRoot() / 2
        return [(-w / 2, -h / 3), (w / 2, -h / 3), (0, 2 * h / 3)]
    }
    var name: String { "p2 triangles" }
}

/// Op art tiles: squares of side w centred on (i w, j w); a pixel at offset o from its
/// square's centre m reads the input at m + scale * o (each square shows the image around its
/// own centre, scaled by 1 / scale). Not a symmetry group: every square reads its own region.
struct OpTileSymmetry: TileSymmetry {
    let width: Double, scale: Double

    @inline(__always) func fold(_ x: Double, _ y: Double) -> (Double, Double) {
        let mx = width * (x / width + 0.5).rounded(.down), my = width * (y / width + 0.5).rounded(.down)
        return (mx + scale * (x - mx), my + scale * (y - my))
    }
    var cellVertices: [(Double, Double)]? { nil }
    var reach: Double { (1 + scale) * width * 0.75 }
    var name: String { "op tile \(scale)" }
}

/// Resamples its input through a symmetry fold: output pixel centre p reads the input at
/// `center + R(angle) fold(R(-angle) (p - center))`, bilinearly. The extent is infinite.
///
/// Region of interest: the source pixels the bilinear samples of the rectangle's pixels read,
/// found by folding every pixel centre when the rectangle is small, or else the bounding box of
/// the fundamental cell plus the sampler's pixel; so a crop anywhere reads at most that cell.
final class SymmetryTileNode<S: TileSymmetry>: RecipeNode, @unchecked Sendable {
    let symmetry: S
    let cx: Double, cy: Double, cosA: Double, sinA: Double
    /// The fundamental cell's source pixels (with the bilinear margin); nil when unbounded.
    let cellRect: PixelRect?
    /// Colour (not alpha) scaled by exp(-fadeRate * distance from fadeCenter); 0: none.
    let fadeRate: Double, fadeCenter: SIMD2<Double>
    override var isExpensive: Bool { true }

    init(input: RecipeNode, symmetry: S, center: SIMD2<Double>, angle: Double, fadeRate: Double = 0, fadeCenter: SIMD2<Double> = .zero) {
        self.symmetry = symmetry
        self.fadeRate = fadeRate.isFinite ? max(fadeRate, 0) : 0
        self.fadeCenter = fadeCenter
        cx = center.x; cy = center.y
        cosA = cos(angle); sinA = sin(angle)
        if let v = symmetry.cellVertices {
            var lo = (Double.infinity, Double.infinity), hi = (-Double.infinity, -Double.infinity)
            for (x, y) in v {
                let u = cx + cosA * x - sinA * y, w = cy + sinA * x + cosA * y
                lo = (min(lo.0, u), min(lo.1, w)); hi = (max(hi.0, u), max(hi.1, w))
            }
            cellRect = SymmetryTileNode.taps(lo, hi)
        } else {
            cellRect = nil
        }
        super.init(extent: .infinite, inputs: [input])
    }

    /// The pixels bilinear samples in [lo, hi] read (slack for rounding), limited to ±2^30.
    private static func taps(_ lo: (Double, Double), _ hi: (Double, Double)) -> PixelRect {
        let lim = Double(PixelRect.limit)
        func cl(_ v: Double) -> Int { Int(min(max(v.isNaN ? 0 : v, -lim), lim)) }
        return PixelRect(minX: cl((lo.0 - 0.5 - 1e-6).rounded(.down)), minY: cl((lo.1 - 0.5 - 1e-6).rounded(.down)),
                         maxX: cl((hi.0 - 0.5 + 1e-6).rounded(.down)) + 2, maxY: cl((hi.1 - 0.5 + 1e-6).rounded(.down)) + 2)
    }

    /// The source point output pixel centre (px, py) samples.
    @inline(__always) func sourcePoint(_ px: Double, _ py: Double) -> (Double, Double) {
        let dx = px - cx, dy = py - cy
        let (u, v) = symmetry.fold(cosA * dx + sinA * dy, -sinA * dx + cosA * dy)
        return (cx + cosA * u - sinA * v, cy + sinA * u + cosA * v)
    }

    /// Pixel rectangles up to this area have their region of interest found pixel by pixel.
    static var scanLimit: Int { 1 << 14 }

    override func inputRect(_ index: Int, for rect: PixelRect) -> PixelRect {
        if rect.isEmpty { return .empty }
        if rect.area <= SymmetryTileNode.scanLimit {
            var lo = (Double.infinity, Double.infinity), hi = (-Double.infinity, -Double.infinity)
            for y in rect.minY..<rect.maxY {
                let py = Double(y) + 0.5
                for x in rect.minX..<rect.maxX {
                    let (u, v) = sourcePoint(Double(x) + 0.5, py)
                    guard abs(u) < 1e9, abs(v) < 1e9 else { continue }
                    lo = (min(lo.0, u), min(lo.1, v)); hi = (max(hi.0, u), max(hi.1, v))
                }
            }
            if lo.0 > hi.0 { return .empty }
            return SymmetryTileNode.taps(lo, hi)
        }
        if let cellRect { return cellRect }
        // An unbounded cell: the disk through the rectangle's farthest corner, grown by the
        // symmetry's reach (the kaleidoscope keeps the radius).
        var rmax = symmetry.reach
        for (x, y) in [(rect.minX, rect.minY), (rect.maxX, rect.minY), (rect.maxX, rect.maxY), (rect.minX, rect.maxY)] {
            rmax = max(rmax, symmetry.reach + ((Double(x) - cx) * (Double(x) - cx) + (Double(y) - cy) * (Double(y) - cy)).squareRoot())
        }
        return SymmetryTileNode.taps((cx - rmax, cy - rmax), (cx + rmax, cy + rmax))
    }

    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        let input = inputs[0]
        let src = inputRect(0, for: rect).intersection(input.pixelExtent)
        if src.isEmpty { out.zero(); return }
        // A large cell read by a large tile: split the tile until its pixels are folded one by
        // one (a single pixel reads at most 2x2).
        if src.area > max(4 * rect.area, 1 << 18), rect.area > 1 {
            evaluateInQuarters(rect, into: out, ev)
            return
        }
        let block = PixelBlock(rect: src)
        ev.fill(input, src, block.buffer)
        let sb = block.buffer
        let sx0 = src.minX, sy0 = src.minY
        for r in 0..<out.height {
            let py = Double(rect.minY + r) + 0.5
            let d = out.row(r)
            for k in 0..<out.width {
                // Each pixel from its own coordinates: tiled and whole renders agree bit for bit.
                let (su, sv) = sourcePoint(Double(rect.minX + k) + 0.5, py)
                let u = su - 0.5, v = sv - 0.5
                guard abs(u) < 1e9, abs(v) < 1e9 else { d[k] = .zero; continue }
                var c = sb.bilinearClear(u: u, v: v, originX: sx0, originY: sy0)
                if fadeRate > 0 {
                    let ex = Double(rect.minX + k) + 0.5 - fadeCenter.x, ey = py - fadeCenter.y
                    let f = Float(exp(-fadeRate * (ex * ex + ey * ey).squareRoot()))
                    c = SIMD4(c.x * f, c.y * f, c.z * f, c.w)
                }
                d[k] = c
            }
        }
    }

    override var label: String { "symmetry tile \(symmetry.name) centre (\(cx), \(cy)) angle (\(cosA), \(sinA))" }
}
