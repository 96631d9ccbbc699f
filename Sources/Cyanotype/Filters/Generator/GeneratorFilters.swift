// Generators: images computed from pixel coordinates, infinite in extent. Colours are
// converted to the working space and interpolated there (premultiplied linear), as Core
// Image does.

extension BuiltinFilters {
    /// CIConstantColorGenerator: Generates an infinite image of a single color.
    static let constantColorGenerator = BuiltinFilter(
        FilterDescriptor(
            "CIConstantColorGenerator", "Constant Color", "Generates an infinite image of a single color.",
            categories: [.builtIn, .generator, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "5",
            doc: "An infinite image of `inputColor`.",
            inputs: [
                .color("inputColor", "Color", .color, default: [1, 0, 0, 1])
            ])
    ) { args throws(CIFilterError) in
        CIImage(color: try args.color(kCIInputColorKey))
    }

    /// CIRadialGradient: Generates a gradient between two concentric circles.
    static let radialGradient = BuiltinFilter(
        FilterDescriptor(
            "CIRadialGradient", "Radial Gradient", "Generates a gradient between two concentric circles.",
            categories: [.builtIn, .gradient, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "5", factory: "radialGradient",
            doc: """
                `color0` inside `radius0` of `center`, `color1` beyond `radius1`,
                interpolated between.
                """,
            inputs: [
                .vector("inputCenter", "Center", .position, default: [150, 150]),
                .number("inputRadius0", "Radius 1", .distance, default: 5, min: 0, slider: 0...800),
                .number("inputRadius1", "Radius 2", .distance, default: 100, min: 0, slider: 0...800),
                .color("inputColor0", "Color 1", .color, default: [1, 1, 1, 1]),
                .color("inputColor1", "Color 2", .color, default: [0, 0, 0, 1]),
            ])
    ) { args throws(CIFilterError) in
        let c = try args.point(kCIInputCenterKey)
        let r0 = try args.float("inputRadius0"), r1 = try args.float("inputRadius1")
        let c0 = try args.color("inputColor0").workingValue, c1 = try args.color("inputColor1").workingValue
        return CIImage(node: GeneratorNode(stage: RadialGradientStage(center: SIMD2(Float(c.x), Float(c.y)), r0: r0, r1: r1, c0: c0, c1: c1)))
    }
}

struct RadialGradientStage: GeneratorStage {
    let center: SIMD2<Float>, r0: Float, r1: Float, c0: SIMD4<Float>, c1: SIMD4<Float>
    func generate(_ out: UnsafeMutablePointer<SIMD4<Float>>, count: Int, x: Int, y: Int) {
        let dy = Float(y) + 0.5 - center.y
        let span = r1 - r0
        for i in 0..<count {
            let dx = Float(x + i) + 0.5 - center.x
            let dist = (dx * dx + dy * dy).squareRoot()
            let t: Float = span != 0 ? clamp01((dist - r0) / span) : (dist < r0 ? 0 : 1)
            out[i] = c0 + (c1 - c0) * t
        }
    }
    var label: String { "radial gradient" }
}
