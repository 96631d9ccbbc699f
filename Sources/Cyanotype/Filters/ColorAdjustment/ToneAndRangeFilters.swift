// Per-channel tone maps, clamps and thresholds, and the depth/disparity reciprocals. All
// work on straight (unpremultiplied) working-space values, linear sRGB, unless noted.

extension BuiltinFilters {
    /// CIColorClamp: Clamps each color component into a [min, max] range per channel.
    static let colorClamp = BuiltinFilter(
        FilterDescriptor(
            "CIColorClamp", "Color Clamp", "Clamps each color component into a [min, max] range per channel.",
            categories: [.builtIn, .colorAdjustment, .interlaced, .nonSquarePixels, .stillImage, .video], macOS: "10.9", iOS: "7", factory: "colorClamp",
            doc: """
                Clamps each straight component, alpha included, into
                `[inputMinComponents, inputMaxComponents]`.
                """,
            inputs: [
                .image(),
                .vector("inputMinComponents", "Min Components", nil, default: [0, 0, 0, 0]),
                .vector("inputMaxComponents", "Max Components", nil, default: [1, 1, 1, 1]),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let lo = try vector4(args, "inputMinComponents"), hi = try vector4(args, "inputMaxComponents")
        return image.applying(ClampStage(lo: lo, hi: hi))
    }

    /// CIColorPolynomial: Maps each channel through its own cubic polynomial.
    static let colorPolynomial = BuiltinFilter(
        FilterDescriptor(
            "CIColorPolynomial", "Color Polynomial", "Maps each channel through its own cubic polynomial.",
            categories: [.builtIn, .colorAdjustment, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
            macOS: "10.9", iOS: "7", factory: "colorPolynomial",
            doc: """
                Per channel `v' = c0 + c1*v + c2*v^2 + c3*v^3` on straight colour,
                alpha included, with `(c0, c1, c2, c3)` from the channel's coefficient vector.
                """,
            inputs: [
                .image(),
                .vector("inputRedCoefficients", "Red Coefficients", nil, default: [0, 1, 0, 0], identity: [0, 1, 0, 0]),
                .vector("inputGreenCoefficients", "Green Coefficients", nil, default: [0, 1, 0, 0], identity: [0, 1, 0, 0]),
                .vector("inputBlueCoefficients", "Blue Coefficients", nil, default: [0, 1, 0, 0], identity: [0, 1, 0, 0]),
                .vector("inputAlphaCoefficients", "Alpha Coefficients", nil, default: [0, 1, 0, 0], identity: [0, 1, 0, 0]),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let r = try vector4(args, "inputRedCoefficients"), g = try vector4(args, "inputGreenCoefficients")
        let b = try vector4(args, "inputBlueCoefficients"), a = try vector4(args, "inputAlphaCoefficients")
        let id = SIMD4<Float>(0, 1, 0, 0)
        if r == id, g == id, b == id, a == id { return image }
        // Transposed: one SIMD4 per power, so a pixel is three multiply-adds of SIMD4s.
        return image.applying(
            PolynomialStage(
                c0: SIMD4(r.x, g.x, b.x, a.x), c1: SIMD4(r.y, g.y, b.y, a.y),
                c2: SIMD4(r.z, g.z, b.z, a.z), c3: SIMD4(r.w, g.w, b.w, a.w)))
    }

    /// CIColorThreshold: Binarizes the image at a given threshold.
    static let colorThreshold = BuiltinFilter(
        FilterDescriptor(
            "CIColorThreshold", "Color Threshold", "Binarizes the image at a given threshold.",
            categories: [.builtIn, .colorAdjustment, .interlaced, .nonSquarePixels, .stillImage, .video], macOS: "11.0", iOS: "14", factory: "colorThreshold",
            doc: """
                Each straight colour channel becomes 1 where it is greater than the
                threshold and 0 elsewhere (Apple: "one if its value is greater than the threshold");
                alpha is kept.
                """,
            inputs: [
                .image(),
                .number("inputThreshold", "Threshold", .scalar, default: 0.5, slider: 0...1),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        return image.applying(ThresholdStage(threshold: try args.float("inputThreshold")))
    }

    /// CILinearToSRGBToneCurve: Applies the sRGB transfer curve to linear values.
    static let linearToSRGBToneCurve = BuiltinFilter(
        FilterDescriptor(
            "CILinearToSRGBToneCurve", "Linear to sRGB Tone Curve", "Applies the sRGB transfer curve to linear values.",
            categories: [.builtIn, .colorAdjustment, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
            macOS: "10.10", iOS: "7", factory: "linearToSRGBToneCurve",
            doc: """
                The sRGB transfer function (IEC 61966-2-1) applied to straight
                colour, mirrored for negative values (extended sRGB).
                """,
            inputs: [
                .image()
            ])
    ) { args throws(CIFilterError) in
        try args.image().applying(SRGBCurveStage(toLinear: false))
    }

    /// CISRGBToneCurveToLinear: Removes the sRGB transfer curve (to linear values).
    static let sRGBToneCurveToLinear = BuiltinFilter(
        FilterDescriptor(
            "CISRGBToneCurveToLinear", "sRGB Tone Curve to Linear", "Removes the sRGB transfer curve (to linear values).",
            categories: [.builtIn, .colorAdjustment, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
            macOS: "10.10", iOS: "7", factory: "sRGBToneCurveToLinear",
            doc: """
                The inverse sRGB transfer function on straight colour,
                mirrored for negative values (extended sRGB).
                """,
            inputs: [
                .image()
            ])
    ) { args throws(CIFilterError) in
        try args.image().applying(SRGBCurveStage(toLinear: true))
    }

    /// CIToneCurve: Adjusts RGB through a 5-point spline tone curve.
    static let toneCurve = BuiltinFilter(
        FilterDescriptor(
            "CIToneCurve", "Tone Curve", "Adjusts RGB through a 5-point spline tone curve.",
            categories: [.builtIn, .colorAdjustment, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
            macOS: "10.7", iOS: "5", factory: "toneCurve",
            doc: """
                Each colour channel through a natural cubic spline (zero curvature at the
                ends) through the five points, sorted by x. As Apple documents, the curve is applied in
                a perceptual, gamma 2 version of the working space: `v' = f(sqrt(v))^2` (sign kept).
                Outside `[x0, x4]` the curve holds its end values, or with `inputExtrapolate` continues
                along the end tangents. Points with equal x are an error; points all on the diagonal
                leave the image unchanged. Alpha is kept.
                """,
            inputs: [
                .image(),
                .vector("inputPoint0", "Point 0", .offset, default: [0, 0], identity: [0, 0]),
                .vector("inputPoint1", "Point 1", .offset, default: [0.25, 0.25], identity: [0.25, 0.25]),
                .vector("inputPoint2", "Point 2", .offset, default: [0.5, 0.5], identity: [0.5, 0.5]),
                .vector("inputPoint3", "Point 3", .offset, default: [0.75, 0.75], identity: [0.75, 0.75]),
                .vector("inputPoint4", "Point 4", .offset, default: [1, 1], identity: [1, 1]),
                .bool("inputExtrapolate", nil, default: false, min: 0, max: 1),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        var pts: [(Double, Double)] = []
        for k in 0..<5 {
            let p = try args.point("inputPoint\(k)")
            pts.append((Double(p.x), Double(p.y)))
        }
        if pts.allSatisfy({ $0.0 == $0.1 }) { return image }
        guard let spline = NaturalCubicSpline(points: pts) else {
            throw .invalidValue(filter: "CIToneCurve", key: "inputPoint0", reason: "the five points need distinct x values")
        }
        return image.applying(ToneCurveStage(spline: spline, extrapolate: try args.bool("inputExtrapolate")))
    }

    /// CIWhitePointAdjust: Remaps colors so a chosen color becomes the white point.
    static let whitePointAdjust = BuiltinFilter(
        FilterDescriptor(
            "CIWhitePointAdjust", "White Point Adjust", "Remaps colors so a chosen color becomes the white point.",
            categories: [.builtIn, .colorAdjustment, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
            macOS: "10.4", iOS: "5", factory: "whitePointAdjust",
            doc: """
                A von Kries adaptation in linear sRGB that maps white to
                `inputColor`: each channel is scaled by the colour's straight linear value, so
                `rgb' = rgb * color.rgb` (an affine map that folds with its neighbours). White is the
                identity.
                """,
            inputs: [
                .image(),
                .color("inputColor", "Color", .color, default: [1, 1, 1, 1], identity: [1, 1, 1, 1]),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let c = try args.color(kCIInputColorKey).workingValue
        let inv: Float = c.w > 0 ? 1 / c.w : 0
        let k = SIMD3(c.x * inv, c.y * inv, c.z * inv)
        if k == SIMD3(repeating: 1) { return image }
        return image.applying(MatrixStage(m: ColorMatrix(rgb: [k.x, 0, 0, 0, k.y, 0, 0, 0, k.z]), wantsUnpremultiplied: false, name: "white point"))
    }

    /// CIColorAbsoluteDifference: Per-pixel absolute difference between two images.
    static let colorAbsoluteDifference = BuiltinFilter(
        FilterDescriptor(
            "CIColorAbsoluteDifference", "Color Absolute Difference", "Per-pixel absolute difference between two images.",
            categories: [.builtIn, .colorAdjustment, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
            macOS: "11.0", iOS: "14", factory: "colorAbsoluteDifference",
            doc: """
                `|a - b|` of the straight colours of `inputImage` and
                `inputImage2`, with alpha `a.alpha * b.alpha` (Apple's definition). Extent: the
                intersection of the two extents (alpha is 0 outside either).
                """,
            inputs: [
                .image(),
                .image("inputImage2", "Image2"),
            ])
    ) { args throws(CIFilterError) in
        let a = try args.image(), b = try args.image("inputImage2")
        return a.applying(AbsoluteDifferenceStage(), extras: [b], extent: a.extent.intersection(b.extent))
    }

    /// CIDepthToDisparity: Converts a depth map to a disparity map (reciprocal).
    static let depthToDisparity = BuiltinFilter(
        FilterDescriptor(
            "CIDepthToDisparity", "Depth To Disparity", "Converts a depth map to a disparity map (reciprocal).",
            categories: [.builtIn, .colorAdjustment, .stillImage, .video], macOS: "10.13", iOS: "11", factory: "depthToDisparity",
            doc: """
                Disparity = 1 / depth, per colour channel of straight values; alpha
                is kept. Depth 0 or less (no measurement) gives 0 rather than infinity.
                """,
            inputs: [
                .image()
            ])
    ) { args throws(CIFilterError) in
        try args.image().applying(ReciprocalStage(name: "depth to disparity"))
    }

    /// CIDisparityToDepth: Converts a disparity map to a depth map (reciprocal).
    static let disparityToDepth = BuiltinFilter(
        FilterDescriptor(
            "CIDisparityToDepth", "Disparity To Depth", "Converts a disparity map to a depth map (reciprocal).",
            categories: [.builtIn, .colorAdjustment, .stillImage, .video], macOS: "10.13", iOS: "11", factory: "disparityToDepth",
            doc: """
                Depth = 1 / disparity, per colour channel of straight values; alpha
                is kept. Disparity 0 or less gives 0 rather than infinity.
                """,
            inputs: [
                .image()
            ])
    ) { args throws(CIFilterError) in
        try args.image().applying(ReciprocalStage(name: "disparity to depth"))
    }
}

/// A four-component vector input (missing components are 0), rejecting NaN and infinities.
private func vector4(_ args: FilterArguments, _ key: String) throws(CIFilterError) -> SIMD4<Float> {
    let v = try args.vector(key)
    let r = SIMD4(Float(v.value(at: 0)), Float(v.value(at: 1)), Float(v.value(at: 2)), Float(v.value(at: 3)))
    guard (r * 0) == .zero else { throw .nonFinite(filter: args.descriptor.name, key: key) }
    return r
}

struct ClampStage: ColorStage {
    let lo: SIMD4<Float>, hi: SIMD4<Float>
    var wantsUnpremultiplied: Bool { true }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let lo = lo, hi = hi
        for i in 0..<count {
            let p = row[i]
            row[i] = SIMD4(min(max(p.x, lo.x), hi.x), min(max(p.y, lo.y), hi.y), min(max(p.z, lo.z), hi.z), min(max(p.w, lo.w), hi.w))
        }
    }
    var label: String { "color clamp" }
}

struct PolynomialStage: ColorStage {
    let c0: SIMD4<Float>, c1: SIMD4<Float>, c2: SIMD4<Float>, c3: SIMD4<Float>
    var wantsUnpremultiplied: Bool { true }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let c0 = c0, c1 = c1, c2 = c2, c3 = c3
        for i in 0..<count {
            let p = row[i]
            row[i] = ((c3 * p + c2) * p + c1) * p + c0
        }
    }
    var label: String { "color polynomial" }
}

struct ThresholdStage: ColorStage {
    let threshold: Float
    var wantsUnpremultiplied: Bool { true }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let t = threshold
        for i in 0..<count {
            let p = row[i]
            row[i] = SIMD4(p.x > t ? 1 : 0, p.y > t ? 1 : 0, p.z > t ? 1 : 0, p.w)
        }
    }
    var label: String { "threshold \(threshold)" }
}

struct SRGBCurveStage: ColorStage {
    let toLinear: Bool
    /// |x|^2.4 (decoding) or |x|^(1/2.4) (encoding) by table, for |x| < 256 (see `PowerTable`).
    let table: PowerTable?
    init(toLinear: Bool) {
        self.toLinear = toLinear
        table = PowerTable.cached(power: toLinear ? Float(SRGBCurve.exponent) : 1 / Float(SRGBCurve.exponent))
    }
    var wantsUnpremultiplied: Bool { true }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        guard let table else {
            for i in 0..<count { row[i] = Self.exact(row[i], toLinear: toLinear) }
            return
        }
        table.run(CurveLoop(row: row, count: count, toLinear: toLinear))
    }
    private struct CurveLoop: PowerTableRowLoop {
        let row: UnsafeMutablePointer<SIMD4<Float>>, count: Int, toLinear: Bool
        func run<K: PowerTableCellBits>(_ reader: PowerTableReader<K>) {
            if toLinear { SRGBCurveStage.decode(row, count, reader) } else { SRGBCurveStage.encode(row, count, reader) }
        }
    }

    /// The curve per lane with libm's `powf` (values the table does not cover: |x| of 256 and
    /// above, infinity, NaN).
    @inline(never) static func exact(_ p: SIMD4<Float>, toLinear: Bool) -> SIMD4<Float> {
        toLinear
            ? SIMD4(sRGBToLinear(p.x), sRGBToLinear(p.y), sRGBToLinear(p.z), p.w)
            : SIMD4(linearToSRGB(p.x), linearToSRGB(p.y), linearToSRGB(p.z), p.w)
    }

    /// All ones in the lanes where the non-negative float `a` (as bits) is at most `limit`:
    /// their bits order as the values do.
    @inline(__always) private static func atMost(_ a: SIMD4<Int32>, _ limit: Float) -> SIMD4<Int32> {
        ~((Int32(bitPattern: limit.bitPattern) &- a) &>> 31)
    }
    /// `linear` where `mask` is set, `curve` elsewhere (both finite and non-negative), with
    /// `bits`' signs and alpha. The choice is `linear * m + curve * (1 - m)` with m 0 or 1,
    /// exact for finite values: as bit selects LLVM turns lane 0 into a scalar branch.
    @inline(__always) private static func combine(_ linear: SIMD4<Float>, _ curve: SIMD4<Float>, _ mask: SIMD4<Int32>, _ bits: SIMD4<Int32>) -> SIMD4<Float> {
        let sign = Int32(bitPattern: 0x8000_0000), alpha = SIMD4<Int32>(0, 0, 0, -1)
        let m = bitsFloat(mask & 0x3F80_0000)
        let e = floatBits(linear * m + curve * (1 - m)) | (bits & sign)
        return bitsFloat((e & ~alpha) | (bits & alpha))
    }

    /// Linear -> sRGB: 12.92 a up to 0.0031308, else 1.055 a^(1/2.4) - 0.055, sign kept. The
    /// table's 5e-7 on the power is at most 1.2e-6 of the result (at the knee, where the
    /// subtraction takes away 58%).
    private static func encode<K>(_ row: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int, _ reader: PowerTableReader<K>) {
        for i in 0..<count {
            let v = row[i]
            let ubits = unsafeBitCast(v, to: SIMD4<UInt32>.self)
            let j = reader.offsets(ubits)
            guard reader.covers(j) else {
                row[i] = Self.exact(v, toLinear: false)
                continue
            }
            let bits = floatBits(v), a = bits & 0x7FFF_FFFF
            let curve = reader.magnitudePower(ubits, j, w: 0) * Float(SRGBCurve.scale) - Float(SRGBCurve.offset)
            row[i] = Self.combine(bitsFloat(a) * Float(SRGBCurve.slope), curve, Self.atMost(a, Float(SRGBCurve.linearKnee)), bits)
        }
    }

    /// sRGB -> linear: a / 12.92 up to 0.04045, else ((a + 0.055) / 1.055)^2.4, sign kept.
    private static func decode<K>(_ row: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int, _ reader: PowerTableReader<K>) {
        for i in 0..<count {
            let v = row[i]
            let bits = floatBits(v), a = bits & 0x7FFF_FFFF
            let base = (bitsFloat(a) + Float(SRGBCurve.offset)) / Float(SRGBCurve.scale)
            let ubits = unsafeBitCast(base, to: SIMD4<UInt32>.self)
            let j = reader.offsets(ubits)
            guard reader.covers(j) else {
                row[i] = Self.exact(v, toLinear: true)
                continue
            }
            let curve = reader.magnitudePower(ubits, j, w: 0)
            row[i] = Self.combine(bitsFloat(a) / Float(SRGBCurve.slope), curve, Self.atMost(a, Float(SRGBCurve.encodedKnee)), bits)
        }
    }
    var label: String { toLinear ? "sRGB to linear" : "linear to sRGB" }
}

struct AbsoluteDifferenceStage: ColorStage {
    var extraInputCount: Int { 1 }
    var wantsUnpremultiplied: Bool { true }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let other = extra[0]
        for i in 0..<count {
            let a = row[i], b = other[i]
            row[i] = SIMD4(abs(a.x - b.x), abs(a.y - b.y), abs(a.z - b.z), a.w * b.w)
        }
    }
    var label: String { "absolute difference" }
}

struct ReciprocalStage: ColorStage {
    let name: String
    var wantsUnpremultiplied: Bool { true }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        for i in 0..<count {
            let p = row[i]
            row[i] = SIMD4(p.x > 0 ? 1 / p.x : 0, p.y > 0 ? 1 / p.y : 0, p.z > 0 ? 1 / p.z : 0, p.w)
        }
    }
    var label: String { name }
}

/// A natural cubic spline through five points: per segment `y = a + b t + c t^2 + d t^3`
/// with `t = x - x_i`, second derivative 0 at both ends.
struct NaturalCubicSpline: Sendable, Equatable {
    /// Segment starts x0...x3, and x4 (the end).
    let x: SIMD4<Float>, xEnd: Float
    let a: SIMD4<Float>, b: SIMD4<Float>, c: SIMD4<Float>, d: SIMD4<Float>
    /// End values and end slopes, for holding or extrapolating outside [x0, x4].
    let y0: Float, y4: Float, slope0: Float, slope4: Float

    /// Nil when two points share an x.
    init?(points: [(Double, Double)]) {
        let p = points.sorted { $0.0 < $1.0 }
        let n = p.count - 1
        guard n == 4 else { return nil }
        var h = [Double](repeating: 0, count: n)
        for i in 0..<n {
            h[i] = p[i + 1].0 - p[i].0
            guard h[i] > 0 else { return nil }
        }
        // Tridiagonal system for the second derivatives M1...M3 (M0 = M4 = 0).
        var m = [Double](repeating: 0, count: n + 1)
        var diag = [Double](repeating: 0, count: n), rhs = [Double](repeating: 0, count: n)
        for i in 1..<n {
            diag[i] = 2 * (h[i - 1] + h[i])
            rhs[i] = 6 * ((p[i + 1].1 - p[i].1) / h[i] - (p[i].1 - p[i - 1].1) / h[i - 1])
        }
        for i in 2..<n {  // forward elimination (sub- and super-diagonal h[i-1])
            let f = h[i - 1] / diag[i - 1]
            diag[i] -= f * h[i - 1]
            rhs[i] -= f * rhs[i - 1]
        }
        for i in stride(from: n - 1, through: 1, by: -1) {
            m[i] = (rhs[i] - (i + 1 < n ? h[i] * m[i + 1] : 0)) / diag[i]
        }
        var a = SIMD4<Float>(), b = SIMD4<Float>(), c = SIMD4<Float>(), d = SIMD4<Float>(), xs = SIMD4<Float>()
        for i in 0..<n {
            xs[i] = Float(p[i].0)
            a[i] = Float(p[i].1)
            b[i] = Float((p[i + 1].1 - p[i].1) / h[i] - h[i] * (2 * m[i] + m[i + 1]) / 6)
            c[i] = Float(m[i] / 2)
            d[i] = Float((m[i + 1] - m[i]) / (6 * h[i]))
        }
        x = xs; xEnd = Float(p[n].0)
        self.a = a; self.b = b; self.c = c; self.d = d
        y0 = Float(p[0].1); y4 = Float(p[n].1)
        slope0 = b[0]
        let hl = Float(h[n - 1])
        slope4 = b[3] + 2 * c[3] * hl + 3 * d[3] * hl * hl
    }

    @inline(__always) func callAsFunction(_ v: Float, extrapolate: Bool) -> Float {
        if v <= x[0] { return extrapolate ? y0 + slope0 * (v - x[0]) : y0 }
        if v >= xEnd { return extrapolate ? y4 + slope4 * (v - xEnd) : y4 }
        let i = v < x[1] ? 0 : (v < x[2] ? 1 : (v < x[3] ? 2 : 3))
        let t = v - x[i]
        return ((d[i] * t + c[i]) * t + b[i]) * t + a[i]
    }
}

struct ToneCurveStage: ColorStage {
    let spline: NaturalCubicSpline
    let extrapolate: Bool
    var wantsUnpremultiplied: Bool { true }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let s = spline, e = extrapolate
        /// Gamma 2 in, curve, gamma 2 out, keeping the sign of negative values.
        @inline(__always) func f(_ v: Float) -> Float {
            let g = v < 0 ? -(-v).squareRoot() : v.squareRoot()
            let o = s(g, extrapolate: e)
            return o < 0 ? -o * o : o * o
        }
        for i in 0..<count {
            let p = row[i]
            row[i] = SIMD4(f(p.x), f(p.y), f(p.z), p.w)
        }
    }
    var label: String { "tone curve" }
}
