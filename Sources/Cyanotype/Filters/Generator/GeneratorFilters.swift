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

    /// CILinearGradient: Generates a linear gradient between two points and two colors.
    static let linearGradient = BuiltinFilter(
        FilterDescriptor(
            "CILinearGradient", "Linear Gradient", "Generates a linear gradient between two points and two colors.",
            categories: [.builtIn, .gradient, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "5", factory: "linearGradient",
            doc: """
                `color0` at `point0` to `color1` at `point1`, constant beyond them
                along the line between the points.
                """,
            inputs: [
                .vector("inputPoint0", "Point 0", .position, default: [0, 0]),
                .vector("inputPoint1", "Point 1", .position, default: [200, 200]),
                .color("inputColor0", "Color 1", .color, default: [1, 1, 1, 1]),
                .color("inputColor1", "Color 2", .color, default: [0, 0, 0, 1]),
            ])
    ) { args throws(CIFilterError) in
        let p0 = try args.point("inputPoint0"), p1 = try args.point("inputPoint1")
        let c0 = try args.color("inputColor0").workingValue, c1 = try args.color("inputColor1").workingValue
        return CIImage(node: GeneratorNode(stage: LinearGradientStage(p0: SIMD2(Float(p0.x), Float(p0.y)), p1: SIMD2(Float(p1.x), Float(p1.y)), c0: c0, c1: c1)))
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

    /// CICheckerboardGenerator: Generates an infinite two-color checkerboard pattern.
    static let checkerboardGenerator = BuiltinFilter(
        FilterDescriptor(
            "CICheckerboardGenerator", "Checkerboard", "Generates an infinite two-color checkerboard pattern.",
            categories: [.builtIn, .generator, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "5", factory: "checkerboardGenerator",
            doc: """
                Squares of side `width` aligned on `center`, `color0` on the
                square whose lower-left corner is the centre. `sharpness` 1 gives hard edges; lower
                values blend each edge towards the mean over `(1 - sharpness) * width / 2` pixels.
                """,
            inputs: [
                .vector("inputCenter", "Center", .position, default: [150, 150]),
                .color("inputColor0", "Color 1", .color, default: [1, 1, 1, 1]),
                .color("inputColor1", "Color 2", .color, default: [0, 0, 0, 1]),
                .number("inputWidth", "Width", .distance, default: 80, slider: 0...800),
                .number("inputSharpness", "Sharpness", .scalar, default: 1, min: 0, max: 1, slider: 0...1),
            ])
    ) { args throws(CIFilterError) in
        let c = try args.point(kCIInputCenterKey)
        let w = try args.float(kCIInputWidthKey), s = try args.float(kCIInputSharpnessKey)
        let c0 = try args.color("inputColor0").workingValue, c1 = try args.color("inputColor1").workingValue
        guard w > 0 else { return CIImage(color: CIColor(red: 0, green: 0, blue: 0, alpha: 0)) }
        return CIImage(node: GeneratorNode(stage: CheckerboardStage(center: SIMD2(Float(c.x), Float(c.y)), width: w, sharpness: s, c0: c0, c1: c1)))
    }
}

/// CILinearGradient, and CISmoothLinearGradient with `smooth` (smoothstep on the ramp).
struct LinearGradientStage: GeneratorStage {
    let p0: SIMD2<Float>, p1: SIMD2<Float>, c0: SIMD4<Float>, c1: SIMD4<Float>
    var smooth = false
    func generate(_ out: UnsafeMutablePointer<SIMD4<Float>>, count: Int, x: Int, y: Int) {
        let d = p1 - p0
        let len2 = d.x * d.x + d.y * d.y
        let inv: Float = len2 > 0 ? 1 / len2 : 0
        let py = Float(y) + 0.5 - p0.y
        for i in 0..<count {
            let px = Float(x + i) + 0.5 - p0.x
            let t = clamp01((px * d.x + py * d.y) * inv)
            out[i] = c0 + (c1 - c0) * (smooth ? t * t * (3 - 2 * t) : t)
        }
    }
    var label: String { smooth ? "smooth linear gradient" : "linear gradient" }
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

struct CheckerboardStage: GeneratorStage {
    let center: SIMD2<Float>, width: Float, sharpness: Float, c0: SIMD4<Float>, c1: SIMD4<Float>
    /// +1 or -1 by the parity of the cell along one axis, eased to 0 near the cell's edges.
    @inline(__always) private func wave(_ v: Float) -> Float {
        let u = v / width
        let cell = u.rounded(.down)
        let f = u - cell
        let parity: Float = Int(cell) & 1 == 0 ? 1 : -1
        let blend = (1 - sharpness) * 0.5
        if blend <= 0 { return parity }
        let edge = min(f, 1 - f)  // distance to the nearest edge, in cells
        return parity * min(1, edge / blend)
    }
    func generate(_ out: UnsafeMutablePointer<SIMD4<Float>>, count: Int, x: Int, y: Int) {
        let wy = wave(Float(y) + 0.5 - center.y)
        for i in 0..<count {
            let s = wave(Float(x + i) + 0.5 - center.x) * wy
            let t = 0.5 + 0.5 * s  // 1 -> color0, 0 -> color1
            out[i] = c1 + (c0 - c1) * t
        }
    }
    var label: String { "checkerboard" }
}
