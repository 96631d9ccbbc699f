import Foundation
import Testing
@testable import Cyanotype

/// Colour filters against scalar formulas at sampled pixels, on straight linear values.
@Suite struct ColorFilterTests {
    let w = 13, h = 9
    var pixels: [UInt8] { testPixels(width: w, height: h) }
    var input: CIImage { image(pixels, w, h) }
    let samples = [(0, 0), (5, 3), (12, 8), (7, 4), (3, 8)]

    func check(_ out: CIImage, tol: Double = 2e-4, _ formula: ([Double]) -> [Double]) throws {
        let px = pixels
        let got = try renderFloat(out, CGRect(x: 0, y: 0, width: w, height: h))
        for (x, y) in samples {
            let expect = formula(linearPixel(px, w, x, y))
            #expect(close(got[y * w + x], expect, tol: tol, "at \(x),\(y)"))
        }
    }

    @Test func colorMatrixMatchesRowVectors() throws {
        let f = CIFilter(name: "CIColorMatrix")!
        f.setValue(input, forKey: kCIInputImageKey)
        f.setValue(CIVector(x: 0.5, y: 0.25, z: 0, w: 0), forKey: "inputRVector")
        f.setValue(CIVector(x: 0, y: 1, z: 0.5, w: 0), forKey: "inputGVector")
        f.setValue(CIVector(x: 0.1, y: 0.1, z: 0.1, w: 0), forKey: "inputBVector")
        f.setValue(CIVector(x: 0.1, y: 0.2, z: 0.3, w: 0.4), forKey: "inputBiasVector")
        try check(f.outputImage!) { p in
            [0.5 * p[0] + 0.25 * p[1] + 0.1, p[1] + 0.5 * p[2] + 0.2, 0.1 * (p[0] + p[1] + p[2]) + 0.3, min(1, p[3] + 0.4)]
        }
    }

    @Test func colorControlsSaturationBrightnessContrast() throws {
        let f = CIFilter.colorControls()
        f.inputImage = input
        f.saturation = 0.5; f.brightness = 0.1; f.contrast = 1.2
        try check(f.outputImage!) { p in
            let l = 0.2125 * p[0] + 0.7154 * p[1] + 0.0721 * p[2]
            var o: [Double] = []
            for c in 0..<3 {
                let saturated: Double = l + (p[c] - l) * 0.5
                o.append((saturated + 0.1 - 0.5) * 1.2 + 0.5)
            }
            return o + [1]
        }
    }

    @Test func exposureDoublesPerStop() throws {
        let f = CIFilter.exposureAdjust(); f.inputImage = input; f.ev = 1.5
        try check(f.outputImage!) { p in [p[0] * pow(2, 1.5), p[1] * pow(2, 1.5), p[2] * pow(2, 1.5), 1] }
    }

    @Test func gammaIsAPower() throws {
        let f = CIFilter.gammaAdjust(); f.inputImage = input; f.power = 0.6
        try check(f.outputImage!) { p in [pow(p[0], 0.6), pow(p[1], 0.6), pow(p[2], 0.6), 1] }
    }

    @Test func hueAdjustRotatesAboutGrey() throws {
        let f = CIFilter.hueAdjust(); f.inputImage = input; f.angle = 1.1
        try check(f.outputImage!) { p in
            // Rodrigues: v cos + (k x v) sin + k (k.v)(1 - cos), k = (1,1,1)/sqrt 3.
            let c = cos(1.1), s = sin(1.1), k = 1 / 3.0.squareRoot()
            let dot = (p[0] + p[1] + p[2]) * k
            let cross = [k * (p[2] - p[1]), k * (p[0] - p[2]), k * (p[1] - p[0])]
            var o: [Double] = []
            for i in 0..<3 {
                let rotated: Double = p[i] * c + cross[i] * s
                o.append(rotated + k * dot * (1 - c))
            }
            return o + [1]
        }
        // Greys stay grey.
        let grey = CIImage(color: CIColor(red: 0.5, green: 0.5, blue: 0.5)).cropped(to: CGRect(x: 0, y: 0, width: 2, height: 2))
        let g = try renderFloat(grey.applyingFilter("CIHueAdjust", parameters: [kCIInputAngleKey: 2.0]), CGRect(x: 0, y: 0, width: 2, height: 2))
        #expect(abs(g[0].x - g[0].y) < 1e-5 && abs(g[0].y - g[0].z) < 1e-5)
    }

    @Test func sepiaMixesTheW3CMatrix() throws {
        let f = CIFilter.sepiaTone(); f.inputImage = input; f.intensity = 0.75
        try check(f.outputImage!) { p in
            let s = [0.393 * p[0] + 0.769 * p[1] + 0.189 * p[2], 0.349 * p[0] + 0.686 * p[1] + 0.168 * p[2], 0.272 * p[0] + 0.534 * p[1] + 0.131 * p[2]]
            return (0..<3).map { p[$0] * 0.25 + s[$0] * 0.75 } + [1]
        }
    }

    @Test func monochromeTintsLuma() throws {
        let f = CIFilter.colorMonochrome(); f.inputImage = input
        f.color = CIColor(red: 1, green: 0.5, blue: 0.25); f.intensity = 0.6
        let tint = [1.0, srgbToLinear(0.5), srgbToLinear(0.25)]
        try check(f.outputImage!) { p in
            let l = 0.2125 * p[0] + 0.7154 * p[1] + 0.0721 * p[2]
            return (0..<3).map { p[$0] * 0.4 + l * tint[$0] * 0.6 } + [1]
        }
    }

    @Test func invertIsOneMinus() throws {
        try check(input.applyingFilter("CIColorInvert")) { p in [1 - p[0], 1 - p[1], 1 - p[2], 1] }
    }

    @Test func vibranceFormula() throws {
        let f = CIFilter.vibrance(); f.inputImage = input; f.amount = 0.7
        try check(f.outputImage!) { p in
            let mx = max(p[0], p[1], p[2]), mean = (p[0] + p[1] + p[2]) / 3
            let t = (mx - mean) * -3 * 0.7
            return (0..<3).map { p[$0] + (mx - p[$0]) * t } + [1]
        }
    }

    @Test func temperatureAndTintIdentityAndDirection() throws {
        let f = CIFilter.temperatureAndTint(); f.inputImage = input
        try check(f.outputImage!) { $0 }  // default neutral == target: identity
        // A neutral warmer than the target... a higher neutral temperature warms the image.
        f.neutral = CIVector(x: 9000, y: 0)
        let grey = CIImage(color: CIColor(red: 0.5, green: 0.5, blue: 0.5)).cropped(to: CGRect(x: 0, y: 0, width: 1, height: 1))
        f.inputImage = grey
        let g = try renderFloat(f.outputImage!, CGRect(x: 0, y: 0, width: 1, height: 1))[0]
        #expect(g.x > g.z, "red should exceed blue after warming: \(g)")
    }

    @Test func vignetteFormula() throws {
        let f = CIFilter.vignette(); f.inputImage = input; f.intensity = 0.8; f.radius = 1.5
        let px = pixels
        let got = try renderFloat(f.outputImage!, CGRect(x: 0, y: 0, width: w, height: h))
        let half = (Double(w * w + h * h)).squareRoot() / 2
        for (x, yTop) in samples {
            let yUp = Double(h - 1 - yTop) + 0.5, xc = Double(x) + 0.5
            let d = min(1, ((xc - Double(w) / 2) * (xc - Double(w) / 2) + (yUp - Double(h) / 2) * (yUp - Double(h) / 2)).squareRoot() / (half * 1.5))
            let s = d * d * (3 - 2 * d)
            let k = max(0, 1 - 0.8 * s * s)
            let p = linearPixel(px, w, x, yTop)
            #expect(close(got[yTop * w + x], [p[0] * k, p[1] * k, p[2] * k, 1], tol: 2e-4))
        }
    }

    @Test(arguments: [
        "CIColorControls", "CIExposureAdjust", "CIGammaAdjust", "CIHueAdjust", "CIVibrance", "CITemperatureAndTint", "CIColorMatrix", "CIVignette", "CIBloom", "CIUnsharpMask",
    ])
    func identityParametersAreIdentity(name: String) throws {
        let f = CIFilter(name: name)!
        f.setValue(input, forKey: kCIInputImageKey)
        for i in CIFilter.descriptor(forFilterName: name)!.inputs where !i.isImage {
            if let id = i.identity { f.setValue(id.objectValue, forKey: i.key) }
        }
        try check(f.outputImage!, tol: 1e-5) { $0 }
    }

    // MARK: Fast paths of the gamma and vibrance stages against the formulas in Double

    @Test(arguments: [0.9, 0.6, 2.2, 1.0 / 2.4, 3.7, 1.1, 12, -0.5])
    func gammaStageIsSignedPowOnEveryKindOfValue(power requested: Double) {
        let power = Double(Float(requested))  // the power the stage sees
        let stage = GammaStage(power: Float(power))
        #expect((stage.table != nil) == (power > 0 && power < 7.3))
        let row = stageTestRow(), out = runStage(stage, row)
        var worst = 0.0
        for (p, o) in zip(row, out) {
            #expect(o.w.bitPattern == p.w.bitPattern, "alpha kept: \(p) -> \(o)")
            for k in 0..<3 {
                let x = Double(p[k]), got = o[k]
                if x.isNaN { #expect(got == 0, "NaN -> 0"); continue }
                let exact = x < 0 ? -pow(-x, power) : pow(x, power)
                if x.isInfinite {
                    // 2^(128 p) with the sign kept (Float's range ends at 2^128).
                    #expect(got.isFinite && got.sign == p[k].sign && abs(log2(Double(got.magnitude)) - min(127.5, 128 * power)) < 1e-3, "\(x)^\(power) -> \(got)")
                } else if abs(x) <= Double(Float(1e-30)) && (power < 0 || stage.table == nil || abs(x) < Double(Float.leastNormalMagnitude)) {
                    // Zero, denormals (and, for the vector pow, anything up to 1e-30) give 0, sign kept.
                    #expect(got == 0 && got.sign == p[k].sign, "\(x)^\(power) -> \(got)")
                } else if abs(exact) >= 1e38 {
                    #expect(got.isFinite && got.magnitude > 1e37 && got.sign == p[k].sign, "\(x)^\(power) saturates: \(got)")
                } else if abs(exact) > 1e-37 {
                    let rel = abs(Double(got) - exact) / abs(exact)
                    worst = max(worst, rel)
                    #expect(rel < 1e-5, "\(x)^\(power): got \(got), exact \(exact)")
                }
            }
        }
        // The table (0 < p < 7.3) and the vector pow (up to |p| = 5; beyond, it grows with p) are
        // both good to under 5e-7.
        #expect(worst < 5e-7 * max(1, abs(power) / 5), "worst relative error \(worst)")
    }

    @Test(arguments: [0.4, 0.7, -0.5, 1.5])
    func vibranceStageMatchesTheFormula(amount: Double) {
        let stage = VibranceStage(amount: Float(amount))
        let row =
            stageTestRow().filter { $0.x.magnitude < 1e5 && $0.y.magnitude < 1e5 && $0.z.magnitude < 1e5 } + [
                SIMD4(.nan, 0.5, 0.2, 0.7), SIMD4(0.1, .infinity, 0.2, 1), SIMD4(0.3, 0.3, 0.3, 0.5), SIMD4(0.2, 0.6, 0.4, .nan),
            ]
        let out = runStage(stage, row)
        for (p, o) in zip(row, out) {
            #expect(o.w.bitPattern == p.w.bitPattern || (o.w.isNaN && p.w.isNaN), "alpha kept: \(p) -> \(o)")
            let c = [Double(p.x), Double(p.y), Double(p.z)]
            let mx = c.max()!, mean = (c[0] + c[1] + c[2]) / 3
            let t = (mx - mean) * -3 * amount
            for k in 0..<3 {
                let exact = c[k] + (mx - c[k]) * t
                if c.contains(where: { !$0.isFinite }) { #expect(o[k].isNaN, "\(p) -> \(o)"); continue }
                // Float rounding of the inputs to the mix, relative to the largest term.
                let scale = max(1, abs(mx), abs(c[k])) * max(1, abs(t))
                #expect(abs(Double(o[k]) - exact) <= 2e-6 * scale, "\(p): channel \(k) got \(o[k]), exact \(exact)")
            }
        }
        // Greys stay exactly grey.
        #expect(out[row.count - 2] == row[row.count - 2])
    }
}

/// Straight pixels covering what a row can hold: a dense 0...1 ramp, HDR and negative values,
/// the power tables' edge at 256, zero, -0, denormals, tiny values, infinities and NaN; alphas
/// 1, fractions and 0. For running colour stages directly against formulas in Double.
let stageTestValues: [Float] = {
    var v: [Float] = [
        0, -0.0, 1, 0.5, 1e-3, 1e-30, 1e-31, 1e-38, Float.leastNonzeroMagnitude, Float.leastNormalMagnitude,
        0.999_999_9, 1.000_000_1, 255.99, 256, 300, 1e6, -0.2, -3, -400, .nan, .infinity, -.infinity,
        0.0031308, 0.04045, -0.0031308, Float(0.04045).nextUp, Float(0.0031308).nextDown, 269, 271,
    ]
    for i in 0...4096 { v.append(Float(i) / 4096) }
    var seed: UInt32 = 12345
    for _ in 0..<3000 {
        seed = seed &* 1_664_525 &+ 1_013_904_223
        v.append(Float(Int32(bitPattern: seed >> 8) - (1 << 23)) / Float(1 << 22))  // -2...2
    }
    return v
}()
let stageTestAlphas: [Float] = [1, 0.5, 0.25, 0, 0.999, 1]

func stageTestRow() -> [SIMD4<Float>] {
    let v = stageTestValues
    return (0..<(v.count / 3)).map { i in SIMD4(v[3 * i], v[3 * i + 1], v[3 * i + 2], stageTestAlphas[i % stageTestAlphas.count]) }
}

/// `stage.run` over `row` as one row.
func runStage(_ stage: some ColorStage, _ row: [SIMD4<Float>]) -> [SIMD4<Float>] {
    var out = row
    out.withUnsafeMutableBufferPointer { b in
        var none = b.baseAddress!
        withUnsafePointer(to: &none) { stage.run(b.baseAddress!, extra: $0, count: b.count, x: 0, y: 0) }
    }
    return out
}
