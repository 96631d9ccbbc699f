import Foundation

/// p2 on equilateral triangles of side w: the triangle with its centroid at the origin, base
/// horizontal (vertices (-w/2, -h/3), (w/2, -h/3), (0, 2h/3), h = w sqrt(3) / 2), tiled by
/// the lattice of its sides' vectors e1 = (w, 0), e2 = (w/2, h); the triangles between point the
/// other way and are half-turns of it about its sides' midpoints.
struct TriangleTileSymmetry: PlaneFold {
    var frame = FoldFrame()
    let width: Double

    @inline(__always) func fold(_ x: Double, _ y: Double) -> (Double, Double) {
        let w = width, h = width * 3.0.squareRoot() / 2
        // Lattice coordinates from the vertex A = (-w/2, -h/3).
        let px = x + w / 2, py = y + h / 3
        let t = py / h, s = px / w - t / 2
        var fs = s - s.rounded(.down), ft = t - t.rounded(.down)
        if fs + ft > 1 { fs = 1 - fs; ft = 1 - ft }  // the half-turn about the shared edge's midpoint
        return (-w / 2 + w * (fs + ft / 2), -h / 3 + h * ft)
    }
    var cellVertices: [(Double, Double)]? {
        let w = width, h = width * 3.0.squareRoot() / 2
        return [(-w / 2, -h / 3), (w / 2, -h / 3), (0, 2 * h / 3)]
    }
    var name: String { "p2 triangles" }
}
