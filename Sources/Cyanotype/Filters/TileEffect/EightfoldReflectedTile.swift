import Foundation

/// p4m: mirrors at x, y = k w / 2 and on the diagonals of each w x w square centred on a
/// lattice point; the cell is the triangle (0, 0), (w/2, 0), (w/2, w/2).
struct EightfoldReflectedSymmetry: PlaneFold {
    var frame = FoldFrame()
    let width: Double

    @inline(__always) func fold(_ x: Double, _ y: Double) -> (Double, Double) {
        let u = abs(centredRemainder(x, width)), v = abs(centredRemainder(y, width))
        return v > u ? (v, u) : (u, v)
    }
    var cellVertices: [(Double, Double)]? { [(0, 0), (width / 2, 0), (width / 2, width / 2)] }
    var name: String { "p4m" }
}
