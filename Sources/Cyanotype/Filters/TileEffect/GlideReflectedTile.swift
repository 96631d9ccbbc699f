import Foundation

/// pg: square cells of side w centred on (i w, j w); the cells of odd columns i are mirrored
/// top to bottom (a glide reflection: a step of w along x with a flip in y).
struct GlideReflectedSymmetry: PlaneFold {
    var frame = FoldFrame()
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
