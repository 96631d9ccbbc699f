import Foundation

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
struct HexagonalSymmetry: PlaneFold {
    var frame = FoldFrame()
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
