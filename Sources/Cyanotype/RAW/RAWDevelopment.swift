import Foundation

/// The engine's side of RAW development: LibRaw's develop as a lazy source node, and the
/// colour stages after it (exposure, gains, the tone curve), as fusable row kernels.
enum RAWDevelopment {
    /// The file as lazy sources: the full develop (whose half-size decode the optimiser picks
    /// when a render downsamples by 2 or more) and the half-size develop itself.
    static func source(file: RAWFile, settings: RAWDevelopSettings, halfSettings: RAWDevelopSettings) -> (full: RecipeNode, half: RecipeNode) {
        let limit = DecodeLimits.default.maxPixels
        let halfExtent = CGRect(x: 0, y: 0, width: (file.width + 1) / 2, height: (file.height + 1) / 2)
        let loadHalf: @Sendable () throws -> RecipeNode = { try file.develop(halfSettings, maxPixels: limit) }
        let half = LazySourceNode(extent: halfExtent, name: "\(file.name) (RAW, half size)", load: loadHalf)
        // Only even sizes fall on the half-size grid exactly.
        let evenSize = file.width % 2 == 0 && file.height % 2 == 0
        let reducer = evenSize ? DecodeReducer(factors: [2], streams: false) { _, _ in try loadHalf() } : nil
        let full = LazySourceNode(
            extent: CGRect(x: 0, y: 0, width: file.width, height: file.height), name: "\(file.name) (RAW)", reducer: reducer,
            load: { try file.develop(settings, maxPixels: limit) })
        return (full, half)
    }

    /// Exposure (a gain on the linear values), per-channel gains, a black offset and, when
    /// `clip`, negative components (outside sRGB) clipped to 0.
    static func linearStage(_ image: CIImage, gain: Float, gains: SIMD3<Float>, shadowBias: Float, clip: Bool) -> CIImage {
        let bias = max(0, min(0.1, shadowBias))
        if gain == 1, gains == SIMD3(1, 1, 1), bias == 0 { return image }
        let scale = SIMD4<Float>(gains.x * gain, gains.y * gain, gains.z * gain, 1) / SIMD4(1 - bias, 1 - bias, 1 - bias, 1)
        let offset = SIMD4<Float>(bias, bias, bias, 0) / SIMD4(1 - bias, 1 - bias, 1 - bias, 1)
        let kernel = CIColorKernel(name: "RAW exposure", premultiplied: false) { row in
            for i in row.output.indices {
                var p = row.output[i] * scale - offset
                p.w = row.output[i].w
                if clip { p = SIMD4(max(p.x, 0), max(p.y, 0), max(p.z, 0), p.w) }
                row.output[i] = p
            }
        }
        return kernel.apply(extent: image.extent, arguments: [image]) ?? image
    }

    /// The tone curve ("boost"): an S-curve on the perceptual (sRGB-encoded) values, its
    /// strength `boost` (0...1), with the shadows lifted (`shadows` > 1) or deepened (< 1).
    /// Linear values over 1 are clipped first (the curve maps 0...1 onto 0...1).
    static func toneCurve(_ image: CIImage, boost: Float, shadows: Float) -> CIImage {
        let curve = curveFunction(boost: boost, shadows: shadows)
        // Tabulated on a square-root grid (fine in the shadows), read with linear interpolation.
        let steps = 4096
        let table = (0...steps + 1).map { i -> Float in
            let t = Float(min(i, steps)) / Float(steps)
            return curve(t * t)
        }
        let kernel = CIColorKernel(name: "RAW tone curve", premultiplied: false) { row in
            table.withUnsafeBufferPointer { t in
                for i in row.output.indices {
                    let p = row.output[i]
                    var q = p
                    for c in 0..<3 {
                        let x = max(0, min(1, p[c])).squareRoot() * Float(steps)
                        let j = Int(x)
                        q[c] = t[j] + (t[j + 1] - t[j]) * (x - Float(j))
                    }
                    row.output[i] = q
                }
            }
        }
        return kernel.apply(extent: image.extent, arguments: [image]) ?? image
    }
}

extension RAWDevelopment {
    /// The tone curve on one linear value (clipped to 0...1 first): an S-curve of strength
    /// 0.35 `boost` on the sRGB-encoded value, the shadows lifted by `shadows` - 1.
    static func curveFunction(boost: Float, shadows: Float) -> @Sendable (Float) -> Float {
        let a = 0.35 * boost
        let lift = 0.25 * boost * (shadows - 1)
        return { v in
            let x = max(0, min(1, v))
            var e = x <= 0.0031308 ? 12.92 * x : 1.055 * Float.pow(x, 1 / 2.4) - 0.055
            e = e - a * Float.sin(2 * Float.pi * e) / (2 * Float.pi)
            let s = 1 - e
            e = max(0, min(1, e + lift * e * s * s * s))
            return e <= 0.04045 ? e / 12.92 : Float.pow((e + 0.055) / 1.055, 2.4)
        }
    }
}

/// The colour stages after LibRaw (exposure, per-channel gains, black offset, the tone
/// curve) folded into the develop itself: one 16-bit table per channel, applied while
/// LibRaw's 16-bit output is copied out. The result is then the source node's own pixels,
/// so a downscale reaches the source and can ask for the half-size develop (`--max-size`).
/// Only where 16 bits hold the result: values stay within 0...1 (the curve clips them, or
/// the gains do not exceed 1) and nothing goes negative.
struct RAWFinish: Sendable, Hashable {
    /// Exposure and baseline exposure as a gain, and the per-channel gains on top.
    var gain: Float
    var gains: SIMD3<Float>
    var shadowBias: Float
    /// The tone curve's strength (0: none) and shadow lift.
    var boost: Float
    var shadows: Float

    /// The finish of these controls, or nil when 16-bit output cannot hold it (values over
    /// 1 without the curve to clip them, or negative values kept).
    init?(gain: Float, gains: SIMD3<Float>, shadowBias: Float, clip: Bool, boost: Float, shadows: Float) {
        let bias = max(0, min(0.1, shadowBias))
        guard clip || bias == 0, boost > 0 || gain * gains.max() <= 1 else { return nil }
        self.gain = gain
        self.gains = gains
        self.shadowBias = bias
        self.boost = min(1, boost)
        self.shadows = max(0, min(2, shadows))
    }

    /// Three 65536-entry tables (R, G, B): LibRaw's 16-bit linear value -> the finished one.
    func tables() -> [UInt16] {
        let curve = boost > 0 ? RAWDevelopment.curveFunction(boost: boost, shadows: shadows) : nil
        var t = [UInt16](repeating: 0, count: 3 * 65536)
        for c in 0..<3 {
            let scale = gains[c] * gain / (1 - shadowBias), offset = shadowBias / (1 - shadowBias)
            for i in 0..<65536 {
                var v = max(0, Float(i) / 65535 * scale - offset)
                if let curve { v = curve(v) }
                t[c * 65536 + i] = UInt16(max(0, min(65535, (v * 65535).rounded())))
            }
        }
        return t
    }
}

extension Float {
    fileprivate static func pow(_ x: Float, _ y: Float) -> Float { Foundation.pow(x, y) }
    fileprivate static func sin(_ x: Float) -> Float { Foundation.sin(x) }
}

/// White balance by colour temperature and tint, through the camera's matrix: a chromaticity
/// on (or off, by the tint) the Planckian locus, its XYZ, the camera's response to it, and the
/// multipliers that make that response grey.
enum RAWWhiteBalance {
    /// CIE 1960 uv of a black body at `t` kelvin (Krystek's approximation, 1000...15000 K;
    /// outside it the formula is extended as it is).
    static func uv(_ t: Double) -> (Double, Double) {
        let u = (0.860117757 + 1.54118254e-4 * t + 1.28641212e-7 * t * t) / (1 + 8.42420235e-4 * t + 7.08145163e-7 * t * t)
        let v = (0.317398726 + 4.22806245e-5 * t + 4.20481691e-8 * t * t) / (1 - 2.89741816e-5 * t + 1.61456053e-7 * t * t)
        return (u, v)
    }

    /// The unit normal to the locus at `t`, pointing to green (larger v).
    static func normal(_ t: Double) -> (Double, Double) {
        let (u0, v0) = uv(t - 1), (u1, v1) = uv(t + 1)
        var n = (-(v1 - v0), u1 - u0)
        if n.1 < 0 { n = (-n.0, -n.1) }
        let l = (n.0 * n.0 + n.1 * n.1).squareRoot()
        return (n.0 / l, n.1 / l)
    }

    /// CIE xy of the light of temperature `t` and tint, 3000 tint units per unit of Duv: a
    /// positive tint is a greener light, which the white balance turns magenta (as a raw
    /// converter's tint slider does).
    static func xy(temperature t: Double, tint: Double) -> (Double, Double) {
        let t = max(1000, min(50000, t))
        var (u, v) = uv(t)
        let n = normal(t)
        let duv = tint / 3000
        u += duv * n.0
        v += duv * n.1
        let d = 2 * u - 8 * v + 4
        return (3 * u / d, 2 * v / d)
    }

    /// Temperature and tint of chromaticity (x, y): the nearest point of the locus.
    static func temperatureAndTint(x: Double, y: Double) -> (Double, Double) {
        let d = -2 * x + 12 * y + 3
        let (u, v) = (4 * x / d, 6 * y / d)
        func distance(_ t: Double) -> Double {
            let (lu, lv) = uv(t)
            return (lu - u) * (lu - u) + (lv - v) * (lv - v)
        }
        var best = 1000.0
        var t = 1000.0
        while t <= 50000 {
            if distance(t) < distance(best) { best = t }
            t *= 1.002
        }
        var lo = best / 1.002, hi = best * 1.002
        for _ in 0..<60 {
            let a = lo + (hi - lo) / 3, b = hi - (hi - lo) / 3
            if distance(a) < distance(b) { hi = b } else { lo = a }
        }
        let tBest = (lo + hi) / 2
        let (lu, lv) = uv(tBest)
        let n = normal(tBest)
        let duv = (u - lu) * n.0 + (v - lv) * n.1
        return (tBest, duv * 3000)
    }

    /// Camera RGB -> XYZ: the inverse of the file's XYZ -> camera matrix; nil when singular.
    static func xyzFromCamera(_ m: [SIMD3<Float>]) -> [SIMD3<Double>]? {
        let a = m.map { SIMD3<Double>(Double($0.x), Double($0.y), Double($0.z)) }
        let c0 = SIMD3(a[1].y * a[2].z - a[1].z * a[2].y, a[1].z * a[2].x - a[1].x * a[2].z, a[1].x * a[2].y - a[1].y * a[2].x)
        let det = (a[0] * c0).sum()
        guard abs(det) > 1e-12 else { return nil }
        let c1 = SIMD3(a[0].z * a[2].y - a[0].y * a[2].z, a[0].x * a[2].z - a[0].z * a[2].x, a[0].y * a[2].x - a[0].x * a[2].y)
        let c2 = SIMD3(a[0].y * a[1].z - a[0].z * a[1].y, a[0].z * a[1].x - a[0].x * a[1].z, a[0].x * a[1].y - a[0].y * a[1].x)
        // Rows of the inverse: the transposed cofactors over the determinant.
        return [
            SIMD3(c0.x, c1.x, c2.x) / det, SIMD3(c0.y, c1.y, c2.y) / det, SIMD3(c0.z, c1.z, c2.z) / det,
        ]
    }

    /// The temperature and tint whose grey gives the camera response 1/`multipliers`.
    static func temperatureAndTint(multipliers m: SIMD3<Float>, file: RAWFile) -> (Double, Double)? {
        guard file.hasColorMatrix, m.x > 0, m.y > 0, m.z > 0, let inv = xyzFromCamera(file.cameraFromXYZ) else { return nil }
        let camera = SIMD3<Double>(1 / Double(m.x), 1 / Double(m.y), 1 / Double(m.z))
        let xyz = SIMD3((inv[0] * camera).sum(), (inv[1] * camera).sum(), (inv[2] * camera).sum())
        let s = xyz.sum()
        guard s > 0 else { return nil }
        return temperatureAndTint(x: xyz.x / s, y: xyz.y / s)
    }

    /// The multipliers (R, G, B; green 1) that make grey light of `temperature` and `tint`
    /// grey for the file's camera.
    static func multipliers(temperature: Double, tint: Double, file: RAWFile) -> SIMD3<Float>? {
        let (x, y) = xy(temperature: temperature, tint: tint)
        let xyz = SIMD3<Float>(Float(x / y), 1, Float((1 - x - y) / y))
        let m = file.cameraFromXYZ
        let camera = SIMD3((m[0] * xyz).sum(), (m[1] * xyz).sum(), (m[2] * xyz).sum())
        guard camera.x > 0, camera.y > 0, camera.z > 0 else { return nil }
        return SIMD3(camera.y / camera.x, 1, camera.y / camera.z)
    }
}
