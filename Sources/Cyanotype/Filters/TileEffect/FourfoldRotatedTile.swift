import Foundation

/// p4: square cells of side w centred on the origin; four cells meet at each corner with a
/// quarter-turn between neighbours (the 4-fold centres at (±w/2, ±w/2), period 2w).
struct FourfoldRotatedSymmetry: PlaneFold {
    var frame = FoldFrame()
    let width: Double

    @inline(__always) func fold(_ x: Double, _ y: Double) -> (Double, Double) {
        let w = width, h = w / 2
        // Offsets from the 4-fold centre (h, h) of this 2w x 2w block, in [-w, w).
        let dx = centredRemainder(x - h, 2 * w), dy = centredRemainder(y - h, 2 * w)
        let (ex, ey): (Double, Double)
        switch (dx < 0, dy < 0) {
        case (true, true): (ex, ey) = (dx, dy)
        case (false, true): (ex, ey) = (dy, -dx)  // a quarter-turn clockwise
        case (false, false): (ex, ey) = (-dx, -dy)  // a half-turn
        case (true, false): (ex, ey) = (-dy, dx)  // a quarter-turn anticlockwise
        }
        return (h + ex, h + ey)
    }
    var cellVertices: [(Double, Double)]? {
        let h = width / 2
        return [(-h, -h), (h, -h), (h, h), (-h, h)]
    }
    var name: String { "p4" }
}
