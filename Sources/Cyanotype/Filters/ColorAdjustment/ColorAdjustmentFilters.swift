import CCyanotypeKernels
// Colour adjustments. Every stage works on working-space values (linear sRGB), as Core
// Image's do; affine ones expose a matrix so neighbouring adjustments fold into one.

extension BuiltinFilters {
    /// CIColorMatrix: Multiplies RGBA by a 4x4 matrix (given as four row vectors) and adds a bias vector.
    static let colorMatrix = BuiltinFilter(
        FilterDescriptor(
            "CIColorMatrix", "Color Matrix", "Multiplies RGBA by a 4x4 matrix (given as four row vectors) and adds a bias vector.",
            categories: [.builtIn, .colorAdjustment, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
            macOS: "10.4", iOS: "5", factory: "colorMatrix",
            doc: """
                Each output channel is the dot product of the straight (unpremultiplied)
                pixel with its vector, plus the bias: `r' = dot(p, R) + bias.r` and so on.
                """,
            inputs: [
                .image(),
                .vector("inputRVector", "Red Vector", nil, default: [1, 0, 0, 0], identity: [1, 0, 0, 0]),
                .vector("inputGVector", "Green Vector", nil, default: [0, 1, 0, 0], identity: [0, 1, 0, 0]),
                .vector("inputBVector", "Blue Vector", nil, default: [0, 0, 1, 0], identity: [0, 0, 1, 0]),
                .vector("inputAVector", "Alpha Vector", nil, default: [0, 0, 0, 1], identity: [0, 0, 0, 1]),
                .vector("inputBiasVector", "Bias Vector", nil, default: [0, 0, 0, 0], identity: [0, 0, 0, 0]),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        func v(_ k: String) throws(CIFilterError) -> SIMD4<Float> {
            let x = try args.vector(k)
            return SIMD4(Float(x.value(at: 0)), Float(x.value(at: 1)), Float(x.value(at: 2)), Float(x.value(at: 3)))
        }
        let m = ColorMatrix(
            rows: try v("inputRVector"), try v("inputGVector"), try v("inputBVector"), try v("inputAVector"),
            bias: try v("inputBiasVector"))
        guard [m.c0, m.c1, m.c2, m.c3, m.bias].allSatisfy({ ($0 * 0) == .zero }) else {
            throw .nonFinite(filter: "CIColorMatrix", key: "inputRVector")
        }
        if m == .identity { return image }
        return image.applying(MatrixStage(m: m, wantsUnpremultiplied: true, name: "color matrix"))
    }

    /// CIColorControls: Adjusts saturation, brightness and contrast.
    static let colorControls = BuiltinFilter(
        FilterDescriptor(
            "CIColorControls", "Color Controls", "Adjusts saturation, brightness and contrast.",
            categories: [.builtIn, .colorAdjustment, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
            macOS: "10.4", iOS: "5", factory: "colorControls",
            doc: """
                Saturation (mix with Rec. 709 luma), then brightness (added), then
                contrast (scaled about 0.5), on straight colour. All affine: one matrix.
                """,
            inputs: [
                .image(),
                .number(
                    "inputSaturation", "Saturation", .scalar, default: 1, identity: 1, min: 0, slider: 0...2,
                    """
                    1 keeps the colour, 0 gives its Rec. 709 luma (grey); above 1 the
                    colour moves away from the grey.
                    """),
                .number("inputBrightness", "Brightness", .scalar, default: 0, identity: 0, min: -1, slider: -1...1, "Added to red, green and blue (0 keeps the image)."),
                .number("inputContrast", "Contrast", .scalar, default: 1, identity: 1, min: 0, slider: 0.25...4, "The scale about 0.5 (1 keeps the image)."),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let s = try args.float(kCIInputSaturationKey), b = try args.float(kCIInputBrightnessKey), c = try args.float(kCIInputContrastKey)
        let m = colorControlsMatrix(saturation: s, brightness: b, contrast: c)
        if m == .identity { return image }
        return image.applying(MatrixStage(m: m, wantsUnpremultiplied: true, name: "color controls"))
    }

    /// CIExposureAdjust: Changes exposure by a number of stops (EV).
    static let exposureAdjust = BuiltinFilter(
        FilterDescriptor(
            "CIExposureAdjust", "Exposure Adjust", "Changes exposure by a number of stops (EV).",
            categories: [.builtIn, .colorAdjustment, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video, .xmpSerializable],
            macOS: "10.4", iOS: "5", factory: "exposureAdjust",
            doc: "`rgb * 2^EV`, like changing the exposure of the shot.",
            inputs: [
                .image(),
                .number("inputEV", "EV", .scalar, default: 0, identity: 0, slider: -10...10, "The change in stops: +1 doubles the light, -1 halves it."),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let k = powf(2, try args.float(kCIInputEVKey))
        if k == 1 { return image }
        return image.applying(MatrixStage(m: ColorMatrix(rgb: [k, 0, 0, 0, k, 0, 0, 0, k]), wantsUnpremultiplied: false, name: "exposure"))
    }

    /// CIGammaAdjust: Applies a power (gamma) curve to color values.
    static let gammaAdjust = BuiltinFilter(
        FilterDescriptor(
            "CIGammaAdjust", "Gamma Adjust", "Applies a power (gamma) curve to color values.",
            categories: [.builtIn, .colorAdjustment, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
            macOS: "10.4", iOS: "5", factory: "gammaAdjust",
            doc: "`pow(rgb, power)` on straight colour (sign kept for negative values).",
            inputs: [
                .image(),
                .number("inputPower", "Power", .scalar, default: 1, identity: 1, slider: 0.25...4, "The exponent: above 1 darkens the mid-tones, below 1 lightens them."),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let p = try args.float(kCIInputPowerKey)
        if p == 1 { return image }
        return image.applying(GammaStage(power: p))
    }

    /// CIHueAdjust: Rotates hue by an angle.
    static let hueAdjust = BuiltinFilter(
        FilterDescriptor(
            "CIHueAdjust", "Hue Adjust", "Rotates hue by an angle.",
            categories: [.builtIn, .colorAdjustment, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
            macOS: "10.4", iOS: "5", factory: "hueAdjust",
            doc: """
                Rotates colours by `angle` radians about the grey axis (a rotation in RGB
                that keeps greys grey).
                """,
            inputs: [
                .image(),
                .number("inputAngle", "Angle", .angle, default: 0, identity: 0, slider: -3.141592653589793...3.141592653589793, "The rotation in radians."),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let a = try args.float(kCIInputAngleKey)
        if a == 0 { return image }
        return image.applying(MatrixStage(m: hueRotationMatrix(angle: a), wantsUnpremultiplied: false, name: "hue adjust"))
    }

    /// CIVibrance: Boosts saturation of muted colors while protecting skin tones.
    static let vibrance = BuiltinFilter(
        FilterDescriptor(
            "CIVibrance", "Vibrance", "Boosts saturation of muted colors while protecting skin tones.",
            categories: [.builtIn, .colorAdjustment, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video], macOS: "10.7", iOS: "5", factory: "vibrance",
            doc: """
                Raises the saturation of muted colours more than of saturated ones, which
                protects skin tones: `rgb = mix(rgb, max, (max - mean) * -3 * amount)`.
                """,
            inputs: [
                .image(),
                .number(
                    "inputAmount", "Amount", .scalar, default: 0, identity: 0, min: -1, max: 1, slider: -1...1,
                    """
                    0 keeps the image; positive values saturate muted colours, negative
                    values mute them.
                    """),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let amount = try args.float(kCIInputAmountKey)
        if amount == 0 { return image }
        return image.applying(VibranceStage(amount: amount))
    }

    /// CITemperatureAndTint: White-balance adjustment from source to target temperature/tint.
    static let temperatureAndTint = BuiltinFilter(
        FilterDescriptor(
            "CITemperatureAndTint", "Temperature and Tint", "White-balance adjustment from source to target temperature/tint.",
            categories: [.builtIn, .colorAdjustment, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
            macOS: "10.7", iOS: "5", factory: "temperatureAndTint",
            doc: """
                A von Kries (Bradford) white-point adaptation from the white of
                `inputNeutral` (colour temperature in kelvin, tint) to that of `inputTargetNeutral`.
                A higher neutral temperature than the target warms the image.
                """,
            inputs: [
                .image(),
                .vector(
                    "inputNeutral", "Neutral", .offset, default: [6500, 0], identity: [6500, 0],
                    """
                    The white of the image as (temperature in kelvin, tint). A temperature
                    of 0 or less is an error; temperatures are taken as 1000...50000 K, where Krystek's
                    approximation of the Planckian locus holds (not a declared limit: equal neutrals stay
                    an exact identity whatever their value, and the tint is not limited).
                    """),
                .vector(
                    "inputTargetNeutral", "Target Neutral", .offset, default: [6500, 0], identity: [6500, 0], "The white it should become, as (temperature in kelvin, tint)."),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let n = try args.vector("inputNeutral"), t = try args.vector("inputTargetNeutral")
        guard n.x > 0, t.x > 0, [n.x, n.y, t.x, t.y].allSatisfy(\.isFinite) else {
            throw .invalidValue(filter: "CITemperatureAndTint", key: "inputNeutral", reason: "temperatures must be positive kelvin values")
        }
        let m = whiteBalanceMatrix(from: (Double(n.x), Double(n.y)), to: (Double(t.x), Double(t.y)))
        if m == .identity { return image }
        return image.applying(MatrixStage(m: m, wantsUnpremultiplied: false, name: "temperature and tint"))
    }
}

func colorControlsMatrix(saturation s: Float, brightness b: Float, contrast c: Float) -> ColorMatrix {
    let w = lumaWeights
    let sat = ColorMatrix(rgb: [
        w.x + (1 - w.x) * s, w.y - w.y * s, w.z - w.z * s,
        w.x - w.x * s, w.y + (1 - w.y) * s, w.z - w.z * s,
        w.x - w.x * s, w.y - w.y * s, w.z + (1 - w.z) * s,
    ])
    let bright = ColorMatrix(rgb: [1, 0, 0, 0, 1, 0, 0, 0, 1], bias: SIMD3(repeating: b))
    let contrast = ColorMatrix(rgb: [c, 0, 0, 0, c, 0, 0, 0, c], bias: SIMD3(repeating: 0.5 - 0.5 * c))
    return sat.followed(by: bright).followed(by: contrast)
}

/// Rodrigues rotation by `angle` about the unit grey axis (1,1,1)/sqrt(3).
func hueRotationMatrix(angle: Float) -> ColorMatrix {
    let c = cosf(angle), s = sinf(angle)
    let k = (1 - c) / 3, q = s / sqrtf(3)
    return ColorMatrix(rgb: [
        c + k, k - q, k + q,
        k + q, c + k, k - q,
        k - q, k + q, c + k,
    ])
}

struct GammaStage: ColorStage {
    var preservesAlpha: Bool { true }
    let power: Float
    /// |x|^power by table for |x| < 256 (see `PowerTable`); nil for powers it does not cover.
    let table: PowerTable?
    init(power: Float) {
        self.power = power
        table = PowerTable.cached(power: power)
    }
    var wantsUnpremultiplied: Bool { true }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        if let table { runTable(row, count, table) } else { runVector(row, count) }
    }
    /// The table's C loop on planes (`cyan_power_table_rgbaf`'s arithmetic, eight values of a
    /// channel per vector); it declines blocks with a value the table does not cover, which
    /// `run` then takes. None without a table.
    var planarKernel: cyan_planar_stage? {
        guard let table else { return nil }
        return UnsafeMutableRawPointer(table.cells).withMemoryRebound(to: Float.self, capacity: 4 * table.count) {
            cyan_planar_power_table($0, Int32(table.k), Int32(table.count))
        }
    }

    /// The table for pixels whose three colour magnitudes it covers (all of an SDR image, and
    /// the negative values vibrance or a matrix make), the vector pow for the others (256 and
    /// above, infinity, NaN). The sign is put back afterwards (pow(|x|) * sign(x), as
    /// `fastSignedPow`). Alpha is kept exactly: it rides in lane 3 of `a`, where `b` and `c`
    /// are 0, and ORing its own sign bit into it changes nothing.
    private func runTable(_ row: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int, _ table: PowerTable) {
        // Two pixels per AVX2 vector in C where the CPU has it (measured 1.6x this loop), with
        // the pixels it cannot cover listed for the vector pow here; the Swift loop otherwise.
        let done = withUnsafeTemporaryAllocation(of: Int32.self, capacity: count) { outside -> Bool in
            let left = UnsafeMutableRawPointer(row).withMemoryRebound(to: Float.self, capacity: 4 * count) { values in
                UnsafeMutableRawPointer(table.cells).withMemoryRebound(to: Float.self, capacity: 4 * table.count) { cells in
                    cyan_power_table_rgbaf(values, count, cells, Int32(table.k), Int32(table.count), outside.baseAddress!)
                }
            }
            guard left >= 0 else { return false }
            for i in 0..<left {
                let index = Int(outside[i])
                row[index] = GammaStage.outsideTable(row[index], power)
            }
            return true
        }
        if !done { table.run(TableLoop(row: row, count: count, power: power)) }
    }
    private struct TableLoop: PowerTableRowLoop {
        let row: UnsafeMutablePointer<SIMD4<Float>>, count: Int, power: Float
        func run<K: PowerTableCellBits>(_ reader: PowerTableReader<K>) {
            let p = power
            for i in 0..<count {
                let v = row[i]
                let bits = unsafeBitCast(v, to: SIMD4<UInt32>.self)
                let j = reader.offsets(bits)
                guard reader.covers(j) else {
                    row[i] = GammaStage.outsideTable(v, p)
                    continue
                }
                let m = reader.magnitudePower(bits, j, w: v.w)
                row[i] = unsafeBitCast(unsafeBitCast(m, to: SIMD4<UInt32>.self) | (bits & 0x8000_0000), to: SIMD4<Float>.self)
            }
        }
    }
    /// Out of line, so the table loop keeps its registers.
    @inline(never) fileprivate static func outsideTable(_ v: SIMD4<Float>, _ p: Float) -> SIMD4<Float> {
        keepingAlpha(fastSignedPow(v, p), of: v)
    }

    @inline(never) private func runVector(_ row: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int) {
        let p = power
        for i in 0..<count {
            let v = row[i]
            row[i] = keepingAlpha(fastSignedPow(v, p), of: v)
        }
    }
    var label: String { "gamma \(power)" }
}

struct VibranceStage: ColorStage {
    var preservesAlpha: Bool { true }
    let amount: Float
    var wantsUnpremultiplied: Bool { true }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        // Two pixels per AVX2 vector in C where the CPU has it; the same expression here otherwise.
        let done = UnsafeMutableRawPointer(row).withMemoryRebound(to: Float.self, capacity: count * 4) {
            cyan_vibrance_rgbaf($0, count, amount) != 0
        }
        if done { return }
        let k = -3 * amount
        for i in 0..<count {
            let c = row[i]
            // Scalar max and mean (maxss: `a > b ? a : b`, not Swift's NaN-ordered `max`), then
            // one vector mix, c - (c - mx) t = c + (mx - c) t, whose alpha lane is w - (w - w) 0:
            // w exactly for any finite alpha (-0 included), with no lane shuffling.
            let r = c.x, g = c.y, b = c.z
            let m = g > r ? g : r
            let mx = b > m ? b : m
            let mean = (r + g + b) * (1 / 3)
            let t = (mx - mean) * k
            row[i] = c - (c - SIMD4(mx, mx, mx, c.w)) * SIMD4(t, t, t, 0)
        }
    }
    /// The same expression on planes, eight values of a channel per vector.
    var planarKernel: cyan_planar_stage? { cyan_planar_vibrance(amount) }
    var label: String { "vibrance \(amount)" }
}

// MARK: White balance

/// CIE 1960 uv of the Planckian radiator at `kelvin` (Krystek's approximation), moved
/// perpendicular to the locus by `tint` / 3000 (Adobe's tint scale; positive is magenta).
func chromaticity(kelvin: Double, tint: Double) -> (x: Double, y: Double) {
    let T = min(max(kelvin, 1000), 50000)
    func uv(_ t: Double) -> (Double, Double) {
        let u = (0.860117757 + 1.54118254e-4 * t + 1.28641212e-7 * t * t) / (1 + 8.42420235e-4 * t + 7.08145163e-7 * t * t)
        let v = (0.317398726 + 4.22806245e-5 * t + 4.20481691e-8 * t * t) / (1 - 2.89741816e-5 * t + 1.61456053e-7 * t * t)
        return (u, v)
    }
    var (u, v) = uv(T)
    if tint != 0 {
        let (u2, v2) = uv(T + 1)
        let du = u2 - u, dv = v2 - v, len = (du * du + dv * dv).squareRoot()
        // Normal to the locus, pointing towards magenta (below it in uv) for positive tint.
        u += dv / len * tint / 3000
        v -= du / len * tint / 3000
    }
    let d = 2 * u - 8 * v + 4
    return (3 * u / d, 2 * v / d)
}

/// The Bradford adaptation mapping the white of `source` to the white of `target`, in
/// linear sRGB. Identical neutrals give the identity.
func whiteBalanceMatrix(from source: (Double, Double), to target: (Double, Double)) -> ColorMatrix {
    let bradford: [Double] = [0.8951, 0.2664, -0.1614, -0.7502, 1.7135, 0.0367, 0.0389, -0.0685, 1.0296]
    func xyz(_ c: (x: Double, y: Double)) -> [Double] { [c.x / c.y, 1, (1 - c.x - c.y) / c.y] }
    func mulv(_ m: [Double], _ v: [Double]) -> [Double] {
        [m[0] * v[0] + m[1] * v[1] + m[2] * v[2], m[3] * v[0] + m[4] * v[1] + m[5] * v[2], m[6] * v[0] + m[7] * v[1] + m[8] * v[2]]
    }
    let src = mulv(bradford, xyz(chromaticity(kelvin: source.0, tint: source.1)))
    let dst = mulv(bradford, xyz(chromaticity(kelvin: target.0, tint: target.1)))
    let scale: [Double] = [dst[0] / src[0], 0, 0, 0, dst[1] / src[1], 0, 0, 0, dst[2] / src[2]]
    let adapt = mul3x3d(invert3x3d(bradford), mul3x3d(scale, bradford))
    let toXYZ = Primaries.sRGB.rgbToXYZ()
    let m = mul3x3d(invert3x3d(toXYZ), mul3x3d(adapt, toXYZ))
    let f = m.map { Float($0) }
    let r = ColorMatrix(rgb: f)
    // Snap tiny numerical noise so equal neutrals are an exact identity (and fold away).
    return source == target ? .identity : r
}
