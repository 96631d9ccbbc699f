import Foundation

// The fold kind: a warp whose map folds the whole plane into one cell. Every output pixel
// centre p is taken into the cell frame (origin at `center`, x axis along `angle`), folded
// into the fundamental cell by the filter's `PlaneFold`, and taken back; the input is sampled
// there as every warp samples. Periodic tilings (wallpaper groups), mirror wedges about a
// point and repeated cells are this kind with a different fold.

/// A fold of the plane, in the cell frame, into a fundamental cell: all a tiling filter
/// supplies. ``FoldMap`` adds the frame and the region of interest; `FoldNode` (a
/// `WarpNode`) does the rest.
///
/// To add a tiling, write a struct conforming to this in the filter's own file and build
/// `FoldNode(input: image.node, map: FoldMap(fold: MyFold(...), center: c, angle: a), extent: .infinite)`.
/// The node is generic over the fold, so `fold` is specialised into the pixel loop.
protocol PlaneFold: Sendable {
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

extension PlaneFold {
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

/// A fold placed in the image: output point p reads the input at
/// `center + R(angle) fold(R(-angle) (p - center))`.
///
/// Region of interest: found by folding every pixel centre when the rectangle is small, or
/// else the bounding box of the fundamental cell (so a crop anywhere reads at most that
/// cell); an unbounded cell reads the disc through the rectangle's farthest corner, grown by
/// the fold's reach.
struct FoldMap<Fold: PlaneFold>: WarpMap {
    let fold: Fold
    let cx: Double, cy: Double, cosA: Double, sinA: Double
    /// The fundamental cell's bounding box in the image; nil when unbounded.
    let cellBox: PointBox?

    init(fold: Fold, center: SIMD2<Double>, angle: Double) {
        self.fold = fold
        cx = center.x; cy = center.y
        cosA = cos(angle); sinA = sin(angle)
        if let v = fold.cellVertices {
            var box = PointBox(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)
            for (x, y) in v { box.include(cx + cosA * x - sinA * y, cy + sinA * x + cosA * y) }
            cellBox = box
        } else {
            cellBox = nil
        }
    }

    @inline(__always) func source(_ px: Double, _ py: Double) -> (Double, Double)? {
        let dx = px - cx, dy = py - cy
        let (u, v) = fold.fold(cosA * dx + sinA * dy, -sinA * dx + cosA * dy)
        return (cx + cosA * u - sinA * v, cy + sinA * u + cosA * v)
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
        if let cellBox { return cellBox }
        // An unbounded cell: the disc through the rectangle's farthest corner (pixel edges,
        // half a pixel beyond the centres), grown by the fold's reach.
        var rmax = fold.reach
        for x in [box.minX - 0.5, box.maxX + 0.5] {
            for y in [box.minY - 0.5, box.maxY + 0.5] {
                rmax = max(rmax, fold.reach + ((x - cx) * (x - cx) + (y - cy) * (y - cy)).squareRoot())
            }
        }
        return PointBox(minX: cx - rmax, minY: cy - rmax, maxX: cx + rmax, maxY: cy + rmax)
    }

    var isExpensive: Bool { true }
    var label: String { "fold \(fold.name) centre (\(cx), \(cy)) angle (\(cosA), \(sinA))" }
}

/// The fold kind's node: a warp through a `FoldMap`.
typealias FoldNode<Fold: PlaneFold> = WarpNode<FoldMap<Fold>>
