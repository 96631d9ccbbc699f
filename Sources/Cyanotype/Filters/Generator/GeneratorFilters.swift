// Generators: images computed from pixel coordinates, infinite in extent. Colours are
// converted to the working space and interpolated there (premultiplied linear), as Core
// Image does.

extension BuiltinFilters {
    /// CIConstantColorGenerator: an infinite image of `inputColor`.
    static let constantColorGenerator = BuiltinFilter(Catalog.CIConstantColorGenerator) { args throws(CIFilterError) in
        CIImage(color: try args.color(kCIInputColorKey))
    }

    /// CILinearGradient: `color0` at `point0` to `color1` at `point1`, constant beyond them
    /// along the line between the points.
    static let linearGradient = BuiltinFilter(Catalog.CILinearGradient) { args throws(CIFilterError) in
        let p0 = try args.point("inputPoint0"), p1 = try args.point("inputPoint1")
        let c0 = try args.color("inputColor0").workingValue, c1 = try args.color("inputColor1").workingValue
        return CIImage(node: GeneratorNode(stage: LinearGradientStage(p0: SIMD2(Float(p0.x), Float(p0.y)), p1: SIMD2(Float(p1.x), Float(p1.y)), c0: c0, c1: c1)))
    }

    /// CIRadialGradient: `color0` inside `radius0` of `center`, `color1` beyond `radius1`,
    /// interpolated between.
    static let radialGradient = BuiltinFilter(Catalog.CIRadialGradient) { args throws(CIFilterError) in
        let c = try args.point(kCIInputCenterKey)
        let r0 = try args.float("inputRadius0"), r1 = try args.float("inputRadius1")
        let c0 = try args.color("inputColor0").workingValue, c1 = try args.color("inputColor1").workingValue
        return CIImage(node: GeneratorNode(stage: RadialGradientStage(center: SIMD2(Float(c.x), Float(c.y)), r0: r0, r1: r1, c0: c0, c1: c1)))
    }

    /// CICheckerboardGenerator: squares of side `width` aligned on `center`, `color0` on the
    /// square whose lower-left corner is the centre. `sharpness` 1 gives hard edges; lower
    /// values blend each edge towards the mean over `(1 - sharpness) * width / 2` pixels.
    static let checkerboardGenerator = BuiltinFilter(Catalog.CICheckerboardGenerator) { args throws(CIFilterError) in
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
