import Foundation

extension BuiltinFilters {
    /// CIKaleidoscope: Kaleidoscope with N-fold rotational mirroring about a center.
    static let kaleidoscope = BuiltinFilter(
        FilterDescriptor(
            "CIKaleidoscope", "Kaleidoscope", "Kaleidoscope with N-fold rotational mirroring about a center.",
            categories: [.builtIn, .highDynamicRange, .stillImage, .tileEffect, .video], macOS: "10.4", iOS: "9", factory: "kaleidoscope",
            doc: """
                Mirrors through `center` every 180 / count degrees (the dihedral group of
                order 2 count); each pixel's polar angle, measured from `angle`, is reflected into the
                wedge [0, 180 / count] degrees, its distance from the centre kept. `inputCount` is
                rounded to a whole number, at least 1 (Apple's minimum) and at most 4096.
                """,
            inputs: [
                .image(),
                .number("inputCount", "Count", .scalar, default: 6, min: 1, slider: 1...64, limit: .kaleidoscopeCount),
                .vector("inputCenter", "Center", .position, default: [150, 150], limit: .cellCentre),
                .number("inputAngle", "Angle", .angle, default: 0, identity: 0, slider: -3.141592653589793...3.141592653589793),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let c = try args.point(kCIInputCenterKey)
        let angle = try args.number(kCIInputAngleKey)
        let count = Int(try args.number("inputCount").rounded())
        return tile(image, KaleidoscopeSymmetry(count: count), SIMD2(Double(c.x), Double(c.y)), angle)
    }
}

/// The kaleidoscope: mirrors through the centre every 180 / n degrees; theta reflected into
/// [0, 180 / n] degrees, the radius kept. The cell is an unbounded wedge.
struct KaleidoscopeSymmetry: PlaneFold {
    var frame = FoldFrame()
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
