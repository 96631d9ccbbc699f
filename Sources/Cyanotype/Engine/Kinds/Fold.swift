import Foundation

// The fold kind: a warp whose map folds the whole plane into one cell. Every output pixel
// centre p is taken into the cell frame (origin at `center`, x axis along `angle`), folded
// into the fundamental cell by the filter's `PlaneFold`, and taken back; the input is sampled
// there as every warp samples. Periodic tilings (wallpaper groups), mirror wedges about a
// point and repeated cells are this kind with a different fold.

/// Where a fold's cell frame sits in the image: its origin and the direction of its x axis.
struct FoldFrame: Sendable {
    var cx = 0.0, cy = 0.0, cosA = 1.0, sinA = 0.0

    /// The image's own frame.
    init() {}
    /// The frame with its origin at `center` and its x axis at `angle` (radians).
    init(center: SIMD2<Double>, angle: Double) {
        cx = center.x; cy = center.y
        cosA = cos(angle); sinA = sin(angle)
    }
}

/// A fold of the plane, in the cell frame, into a fundamental cell: all a tiling filter
/// supplies. The fold is a `WarpMap` whose `source`, region of interest and label come from
/// here; the fold kind's node is the warp's.
///
/// To add a tiling, write a struct conforming to this in the filter's own file (with a
/// `var frame = FoldFrame()`) and build
/// `FoldNode(input: image.node, map: MyFold(...).placed(at: center, angle: angle), extent: .infinite)`.
/// Make it a concrete struct, so the pixel loop is specialised for it and `fold` inlined.
///
/// Region of interest: found by folding every pixel centre when the rectangle is small, or
/// else the bounding box of the fundamental cell (so a crop anywhere reads at most that
/// cell); an unbounded cell reads the disc through the rectangle's farthest corner, grown by
/// the fold's reach.
protocol PlaneFold: WarpMap {
    /// Where the cell frame sits in the image (`placed(at:angle:)` sets it).
    var frame: FoldFrame { get set }
    /// The point of the fundamental cell that the symmetry group maps (x, y) from.
    func fold(_ x: Double, _ y: Double) -> (Double, Double)
    /// Vertices of a convex polygon holding the fundamental cell (cell frame), or nil when
    /// the cell is unbounded (a wedge between mirrors through the centre).
    var cellVertices: [(Double, Double)]? { get }
    /// For an unbounded cell: how much farther from the centre than the pixel its source
    /// point can lie (default 0: folds that keep the distance).
    var reach: Double { get }
    /// A short description for `CIContext.explain`.
    var name: String { get }
}

/// x - period * floor(x / period + 0.5): x reduced into [-period / 2, period / 2).
@inline(__always) func centredRemainder(_ x: Double, _ period: Double) -> Double {
    x - period * (x / period + 0.5).rounded(.down)
}

/// x reflected into [-0.5, 0.5] by mirrors at every half-integer (a triangle wave of period 2).
@inline(__always) func reflectedUnit(_ x: Double) -> Double {
    let m = x - 2 * ((x + 0.5) / 2).rounded(.down)  // [-0.5, 1.5)
    return m > 0.5 ? 1 - m : m
}

extension PlaneFold {
    var reach: Double { 0 }
    var isExpensive: Bool { true }

    /// This fold with its cell frame's origin at `center` and its x axis at `angle`.
    func placed(at center: SIMD2<Double>, angle: Double) -> Self {
        var f = self
        f.frame = FoldFrame(center: center, angle: angle)
        return f
    }

    /// Output point p reads the input at `center + R(angle) fold(R(-angle) (p - center))`.
    @inline(__always) func source(_ px: Double, _ py: Double) -> (Double, Double)? {
        let f = frame
        let dx = px - f.cx, dy = py - f.cy
        let (u, v) = fold(f.cosA * dx + f.sinA * dy, -f.sinA * dx + f.cosA * dy)
        return (f.cx + f.cosA * u - f.sinA * v, f.cy + f.sinA * u + f.cosA * v)
    }

    /// Rectangles of up to this many pixels have their region of interest found pixel by pixel.
    static var scanLimit: Int { 1 << 14 }

    func sourceBounds(_ box: PointBox) -> PointBox? {
        let columns = box.maxX - box.minX + 1, rows = box.maxY - box.minY + 1
        if columns * rows <= Double(Self.scanLimit) {
            var out = PointBox(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)
            var py = box.minY
            while py <= box.maxY {
                var px = box.minX
                while px <= box.maxX {
                    if let (u, v) = source(px, py), abs(u) < 1e9, abs(v) < 1e9 { out.include(u, v) }
                    px += 1
                }
                py += 1
            }
            return out.minX <= out.maxX ? out : nil
        }
        let f = frame
        if let vertices = cellVertices {
            // The fundamental cell's bounding box in the image.
            var cell = PointBox(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)
            for (x, y) in vertices { cell.include(f.cx + f.cosA * x - f.sinA * y, f.cy + f.sinA * x + f.cosA * y) }
            return cell
        }
        // An unbounded cell: the disc through the rectangle's farthest corner (pixel edges,
        // half a pixel beyond the centres), grown by the fold's reach.
        var rmax = reach
        for x in [box.minX - 0.5, box.maxX + 0.5] {
            for y in [box.minY - 0.5, box.maxY + 0.5] {
                rmax = max(rmax, reach + ((x - f.cx) * (x - f.cx) + (y - f.cy) * (y - f.cy)).squareRoot())
            }
        }
        return PointBox(minX: f.cx - rmax, minY: f.cy - rmax, maxX: f.cx + rmax, maxY: f.cy + rmax)
    }

    var label: String { "fold \(name) centre (\(frame.cx), \(frame.cy)) angle (\(frame.cosA), \(frame.sinA))" }
}

/// The fold kind's node: a warp through a `PlaneFold`.
typealias FoldNode<Fold: PlaneFold> = WarpNode<Fold>
