import Foundation

extension BuiltinFilters {
    /// CITriangleKaleidoscope: Kaleidoscope built from a triangular region of the image.
    static let triangleKaleidoscope = BuiltinFilter(
        FilterDescriptor(
            "CITriangleKaleidoscope", "Triangle Kaleidoscope", "Kaleidoscope built from a triangular region of the image.",
            categories: [.builtIn, .highDynamicRange, .stillImage, .tileEffect, .video], macOS: "10.10", iOS: "6", factory: "triangleKaleidoscope",
            doc: """
                The equilateral triangle of side `inputSize` (2^-10 ... 2^30) with
                its centroid on `inputPoint`, rotated by `inputRotation`, reflected in its sides (the
                p3m1 group of CISixfoldReflectedTile); the colour (not the alpha) is then scaled by
                `decay^(d / size)`, d the pixel's distance from `inputPoint`, so it fades away from the
                central triangle. `inputDecay` is limited to [0, 1] (0 acts as 1e-12).
                """,
            inputs: [
                .image(),
                .vector("inputPoint", "Point", .position, default: [150, 150], limit: .cellCentre),
                .number("inputSize", "Size", .scalar, default: 700, slider: 0...1000, limit: .tileWidth),
                .number("inputRotation", "Rotation", .angle, default: 5.924285296593801, slider: 0...6.283185307179586),
                .number("inputDecay", "Decay", .scalar, default: 0.85, slider: 0...1, limit: .triangleDecay),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let p = try args.point("inputPoint")
        let size = try args.number("inputSize")
        let rotation = try args.number("inputRotation")
        let decay = try args.number("inputDecay")
        if image.extent.isEmpty { return .empty() }
        let point = SIMD2(Double(p.x), Double(p.y))
        // The p3m1 cell's triangle has a vertex at the origin and its centroid at
        // (size / 2, size sqrt(3) / 6): put that centroid on the point.
        let gx = size / 2, gy = size * 3.0.squareRoot() / 6
        let origin = point - SIMD2(cos(rotation) * gx - sin(rotation) * gy, sin(rotation) * gx + cos(rotation) * gy)
        let fold = HexagonalSymmetry(width: size, kind: .p3m1).placed(at: origin, angle: rotation)
        let folded = CIImage(node: FoldNode(input: image.node, map: fold, extent: .infinite))
        let rate = -log(decay) / size
        return rate > 0 ? folded.applying(RadialFadeStage(rate: rate, center: point)) : folded
    }
}

/// CITriangleKaleidoscope's fade: colour (not alpha) scaled by `exp(-rate * d)`, d the
/// pixel centre's distance from `center`.
struct RadialFadeStage: ColorStage {
    let rate: Double
    let center: SIMD2<Double>
    var wantsUnpremultiplied: Bool { false }
    var preservesAlpha: Bool { true }

    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let ey = Double(y) + 0.5 - center.y
        for i in 0..<count {
            let ex = Double(x + i) + 0.5 - center.x
            let f = Float(exp(-rate * (ex * ex + ey * ey).squareRoot()))
            let c = row[i]
            row[i] = SIMD4(c.x * f, c.y * f, c.z * f, c.w)
        }
    }
    var label: String { "radial fade \(rate) from \(center)" }
}
