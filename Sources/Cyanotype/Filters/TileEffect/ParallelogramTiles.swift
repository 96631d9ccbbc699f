import Foundation

/// A parallelogram lattice: a = (w, 0), b = w (cos acute, sin acute). The cell is
/// {s a + t b : s, t in [-1/2, 1/2]}. Translated: (s, t) reduced modulo 1 (p1). Reflected:
/// s and t reflected in the cell's sides (a triangle wave in each lattice coordinate; pmm
/// when the acute angle is a right angle, its affine image otherwise).
struct ParallelogramSymmetry: PlaneFold {
    var frame = FoldFrame()
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

/// The parallelogram tilings, translated (p1) or reflected in the sides (pmm and its affine images).
func parallelogramCells(_ args: FilterArguments, reflected: Bool) throws(CIFilterError) -> CIImage {
    let (image, center, angle, width) = try tileParameters(args)
    let acute = try args.number("inputAcuteAngle")
    let sinA = sin(acute), cosA = cos(acute)
    guard abs(sinA) >= 1e-6 else { return .empty() }
    return tile(image, ParallelogramSymmetry(width: width, cosA: cosA, sinA: sinA, reflected: reflected), center, angle)
}
