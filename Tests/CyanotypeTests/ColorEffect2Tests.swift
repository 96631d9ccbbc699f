import Foundation
import Testing
@testable import Cyanotype

/// The second batch of colour effects and the new gradients against scalar formulas written
/// here (CIE Lab and ΔE94 from the CIE definitions, polynomials, posterize, ...), identity
/// parameters, and tiled renders against whole renders.
@Suite struct ColorEffect2Tests {
    static let samples: [[Double]] = [
        [0.1, 0.5, 0.9, 1], [0, 0.25, 1, 0.5], [1.5, -0.2, 0.04, 1], [0.7, 0.003, 0.3, 0.8], [0.8, 0.6, 0.05, 0.3], [0.45, 0.55, 0.2, 1],
    ]
    static let inRange: [[Double]] = [[0.1, 0.5, 0.9, 1], [0, 0.25, 1, 0.5], [0.7, 0.003, 0.3, 0.8], [1, 0.6, 0, 0.3], [0.45, 0.55, 0.2, 1]]
    var input: CIImage { linearRow(Self.samples) }
    func f(_ v: Double) -> Double { Double(Float(v)) }

    func check(_ out: CIImage, _ rows: [[Double]] = samples, tol: Double = 2e-4, _ formula: ([Double]) -> [Double]) throws {
        try checkSamples(out, rows, tol: tol, formula)
    }
    func apply(_ name: String, _ image: CIImage, _ params: [String: Any] = [:]) -> CIImage { image.applyingFilter(name, parameters: params) }
    func luma(_ p: [Double]) -> Double { 0.2125 * p[0] + 0.7154 * p[1] + 0.0721 * p[2] }

    // MARK: Lab, from the CIE 1976 definitions (D65, IEC 61966-2-1 matrix)

    func lab(_ p: [Double]) -> [Double] {
        let x = (0.4124564 * p[0] + 0.3575761 * p[1] + 0.1804375 * p[2]) / 0.95047
        let y = 0.2126729 * p[0] + 0.7151522 * p[1] + 0.0721750 * p[2]
        let z = (0.0193339 * p[0] + 0.1191920 * p[1] + 0.9503041 * p[2]) / 1.08883
        func fn(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
        return [116 * fn(y) - 16, 500 * (fn(x) - fn(y)), 200 * (fn(y) - fn(z))]
    }

    @Test func rgbToLabFollowsTheCIEFormulas() throws {
        try check(apply("CIConvertRGBtoLab", linearRow(Self.inRange)), Self.inRange, tol: 2e-3) { p in lab(p) + [p[3]] }
        try check(apply("CIConvertRGBtoLab", linearRow(Self.inRange), ["inputNormalize": true]), Self.inRange, tol: 5e-5) { p in
            let l = lab(p); return [l[0] / 100, (l[1] + 128) / 256, (l[2] + 128) / 256, p[3]]
        }
        // White is L 100, a = b = 0.
        let white = CIImage(color: .white).cropped(to: CGRect(x: 0, y: 0, width: 1, height: 1))
        #expect(close(try renderFloat(apply("CIConvertRGBtoLab", white), CGRect(x: 0, y: 0, width: 1, height: 1))[0], [100, 0, 0, 1], tol: 2e-3))
    }

    @Test func labRoundTripsAndNormalizes() throws {
        for normalize in [false, true] {
            let there = apply("CIConvertRGBtoLab", input, ["inputNormalize": normalize])
            try check(apply("CIConvertLabToRGB", there, ["inputNormalize": normalize]), tol: 2e-4) { $0 }
        }
    }

    @Test func labDeltaEIsCIE94() throws {
        let other: [[Double]] = [[0.1, 0.5, 0.9, 1], [0.2, 0.2, 0.8, 0.5], [1.0, 0.1, 0.1, 1], [0.6, 0.1, 0.3, 0.8], [0.7, 0.65, 0.0, 0.3], [0.05, 0.05, 0.05, 1]]
        let out = apply("CILabDeltaE", input, ["inputImage2": linearRow(other)])
        let got = try renderFloat(out, CGRect(x: 0, y: 0, width: 6, height: 1))
        for k in 0..<6 {
            let a = lab(Self.samples[k].map(f)), b = lab(other[k].map(f))
            let c1 = hypot(a[1], a[2]), c2 = hypot(b[1], b[2])
            let dh2 = max(0, pow(a[1] - b[1], 2) + pow(a[2] - b[2], 2) - pow(c1 - c2, 2))
            let e = sqrt(pow(a[0] - b[0], 2) + pow((c1 - c2) / (1 + 0.045 * c1), 2) + dh2 / pow(1 + 0.015 * c1, 2))
            #expect(close(got[k], [e, e, e, 1], tol: 3e-3, "sample \(k)"))
        }
        #expect(got[0].x == 0)
    }

    // MARK: Exact per-pixel maps

    @Test func crossPolynomialMatchesItsTerms() throws {
        let r: [Double] = [0.9, 0.1, 0, 0.05, 0, 0, 0.02, 0, 0, 0.01]
        let g: [Double] = [0, 1.1, -0.1, 0, 0.03, 0, 0, -0.04, 0, 0]
        let b: [Double] = [0.1, 0, 0.8, 0, 0, 0.2, 0, 0, 0.05, -0.02]
        func vec(_ c: [Double]) -> CIVector { CIVector(values: c.map { CGFloat($0) }) }
        let out = apply("CIColorCrossPolynomial", input, ["inputRedCoefficients": vec(r), "inputGreenCoefficients": vec(g), "inputBlueCoefficients": vec(b)])
        func poly(_ c: [Double], _ p: [Double]) -> Double {
            let terms = [p[0], p[1], p[2], p[0] * p[0], p[1] * p[1], p[2] * p[2], p[0] * p[1], p[1] * p[2], p[2] * p[0], 1]
            return zip(c, terms).reduce(0) { $0 + $1.0 * $1.1 }
        }
        try check(out, tol: 1e-5) { p in [poly(r, p), poly(g, p), poly(b, p), p[3]] }
        try check(apply("CIColorCrossPolynomial", input), tol: 1e-6) { $0 }
    }

    @Test func posterizeQuantises() throws {
        try check(apply("CIColorPosterize", input, ["inputLevels": 4]), tol: 1e-6) { p in
            [floor(p[0] * 4 + 0.5) / 4, floor(p[1] * 4 + 0.5) / 4, floor(p[2] * 4 + 0.5) / 4, p[3]]
        }
    }

    @Test func componentsAndMaskToAlpha() throws {
        try check(apply("CIMaximumComponent", input), tol: 1e-6) { p in
            let m = p[0...2].max()!; return [m, m, m, p[3]]
        }
        try check(apply("CIMinimumComponent", input), tol: 1e-6) { p in
            let m = p[0...2].min()!; return [m, m, m, p[3]]
        }
        // Mask to alpha: alpha = luma of the premultiplied colour; straight colour white.
        try check(apply("CIMaskToAlpha", linearRow(Self.inRange)), Self.inRange, tol: 1e-5) { p in
            let a = luma(p) * p[3]; return [1, 1, 1, a]
        }
    }

    @Test func falseColorMixesByLuma() throws {
        let c0 = CIColor(red: 0.2, green: 0, blue: 0.5, alpha: 1, colorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!)!
        let c1 = CIColor(red: 1, green: 0.9, blue: 0.1, alpha: 1, colorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!)!
        let out = apply("CIFalseColor", input, ["inputColor0": c0, "inputColor1": c1])
        try check(out, tol: 1e-5) { p in
            let l = luma(p)
            return [0.2 + 0.8 * l, 0.9 * l, 0.5 - 0.4 * l, p[3]]
        }
    }

    @Test func colorCurvesInterpolateTheTable() throws {
        let table: [Float] = [0, 0.1, 0.2, 0.5, 0.4, 0.6, 1, 0.8, 0.9]
        let data = table.withUnsafeBufferPointer { Data(buffer: $0) }
        let out = apply("CIColorCurves", linearRow(Self.inRange), ["inputCurvesData": data, "inputCurvesDomain": CIVector(x: 0, y: 1)])
        func curve(_ v: Double, _ c: Int) -> Double {
            let pos = max(0, min(2, v * 2)), i = min(Int(pos), 1), t = pos - Double(i)
            return Double(table[3 * i + c]) * (1 - t) + Double(table[3 * (i + 1) + c]) * t
        }
        try check(out, Self.inRange, tol: 1e-5) { p in [curve(p[0], 0), curve(p[1], 1), curve(p[2], 2), p[3]] }
        // The default table is the identity on the domain (values outside take the end entries).
        try check(apply("CIColorCurves", linearRow(Self.inRange)), Self.inRange, tol: 1e-6) { $0 }
    }

    @Test func identityParameters() throws {
        try check(apply("CIDither", input, [kCIInputIntensityKey: 0]), tol: 0) { $0 }
        try check(apply("CIVignetteEffect", input, [kCIInputIntensityKey: 0]), tol: 0) { $0 }
        try check(apply("CIDocumentEnhancer", input, [kCIInputAmountKey: 0]), tol: 0) { $0 }
    }

    @Test func ditherIsSmallZeroMeanAndTileIndependent() throws {
        let grey = CIImage(color: CIColor(red: 0.5, green: 0.5, blue: 0.5)).cropped(to: CGRect(x: 0, y: 0, width: 64, height: 64))
        let out = apply("CIDither", grey, [kCIInputIntensityKey: 2])
        let v = try renderFloat(out, out.extent)
        var sum = 0.0
        for p in v {
            let e = linearToSrgb(Double(p.x))
            #expect(abs(e - 0.5) <= 2.0 / 64 + 1e-5)
            sum += e - 0.5
        }
        #expect(abs(sum / Double(v.count)) < 0.002)
        #expect(
            try renderFloat(
                out, out.extent, context: CIContext(options: [.tileSize: 7, .outputColorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!, .outputPremultiplied: false]))
                == v)
    }

    @Test func vignetteEffectDarkensOutsideTheRadius() throws {
        let flat = CIImage(color: CIColor(red: 0.5, green: 0.5, blue: 0.5)).cropped(to: CGRect(x: 0, y: 0, width: 40, height: 40))
        let out = apply("CIVignetteEffect", flat, [kCIInputCenterKey: CIVector(x: 20, y: 20), kCIInputRadiusKey: 10, "inputFalloff": 0.5, kCIInputIntensityKey: 1])
        let v = try renderFloat(out, flat.extent)
        let mid = Double(v[20 * 40 + 20].x), corner = Double(v[0].x)
        #expect(abs(mid - 0.5 * 0.5) < 1e-6 || abs(mid - srgbToLinear(0.5)) < 1e-5)
        #expect(corner == 0)
        // Between: the smoothstep ramp from radius 5 to 15 (pixel centre (x+0.5, y+0.5)).
        let px = v[20 * 40 + 30], dist = hypot(30.5 - 20, (39 - 20 + 0.5) - 20)
        let t = min(1, max(0, (dist - 5) / 10)), s = t * t * (3 - 2 * t)
        #expect(abs(Double(px.x) - Double(v[20 * 40 + 20].x) * (1 - s)) < 1e-5)
    }

    @Test func photoEffectsStayInRangeAndMonoLooksAreGrey() throws {
        let img = image(testPixels(width: 16, height: 8), 16, 8)
        for name in [
            "CIPhotoEffectChrome", "CIPhotoEffectFade", "CIPhotoEffectInstant", "CIPhotoEffectMono", "CIPhotoEffectNoir",
            "CIPhotoEffectProcess", "CIPhotoEffectTonal", "CIPhotoEffectTransfer", "CIThermal", "CIXRay",
        ] {
            let v = try renderFloat(apply(name, img), img.extent)
            for p in v { for k in 0..<3 { #expect(p[k] >= -1e-6 && p[k] <= 1 + 1e-5, "\(name)") }; #expect(p.w == 1) }
            if ["CIPhotoEffectMono", "CIPhotoEffectNoir", "CIPhotoEffectTonal"].contains(name) {
                for p in v { #expect(abs(p.x - p.y) < 1e-5 && abs(p.y - p.z) < 1e-5, "\(name) grey") }
            }
        }
        // Noir has more contrast than Tonal; X-ray inverts.
        let ramp = linearRow([[0.02, 0.02, 0.02, 1], [0.8, 0.8, 0.8, 1]])
        let noir = try renderFloat(apply("CIPhotoEffectNoir", ramp), CGRect(x: 0, y: 0, width: 2, height: 1))
        let tonal = try renderFloat(apply("CIPhotoEffectTonal", ramp), CGRect(x: 0, y: 0, width: 2, height: 1))
        #expect(noir[1].x - noir[0].x > tonal[1].x - tonal[0].x)
        let xray = try renderFloat(apply("CIXRay", ramp), CGRect(x: 0, y: 0, width: 2, height: 1))
        #expect(xray[0].x > xray[1].x)
        // Extrapolation keeps HDR values beyond 1.
        let hdr = linearRow([[2, 2, 2, 1]])
        let ext = try renderFloat(apply("CIPhotoEffectChrome", hdr, ["inputExtrapolate": true]), CGRect(x: 0, y: 0, width: 1, height: 1))
        #expect(ext[0].x > 1.01)
    }

    @Test func colorMapLooksUpByLuma() throws {
        // Gradient: 3 pixels, straight linear red, green, blue.
        let gradient = linearRow([[1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 1]])
        let out = apply("CIColorMap", linearRow(Self.inRange), [kCIInputGradientImageKey: gradient])
        try check(out, Self.inRange, tol: 1e-5) { p in
            let pos = max(0, min(1, luma(p))) * 2
            let i = min(Int(pos), 1), t = pos - Double(i)
            var c = [0.0, 0, 0]
            c[i] += 1 - t; c[i + 1] += t
            return c + [p[3]]
        }
    }

    @Test func palettizeAndCentroid() throws {
        let palette = linearRow([[0.9, 0.1, 0.1, 1], [0.1, 0.1, 0.9, 1], [0.5, 0.5, 0.5, 1]])
        let pal: [[Double]] = [[0.9, 0.1, 0.1], [0.1, 0.1, 0.9], [0.5, 0.5, 0.5]]
        func nearest(_ p: [Double]) -> Int {
            (0..<3).min { a, b in zip(pal[a], p).reduce(0) { $0 + pow($1.0 - $1.1, 2) } < zip(pal[b], p).reduce(0) { $0 + pow($1.0 - $1.1, 2) } }!
        }
        try check(apply("CIPalettize", linearRow(Self.inRange), ["inputPaletteImage": palette]), Self.inRange, tol: 1e-6) { p in
            pal[nearest(p)] + [p[3]]
        }
        let img = linearRow(Self.inRange)
        let out = apply("CIPaletteCentroid", img, ["inputPaletteImage": palette])
        #expect(out.extent == CGRect(x: 0, y: 0, width: 3, height: 1))
        let got = try CIContext().reduce(out)
        for k in 0..<3 {
            let xs = Self.inRange.indices.filter { nearest(Self.inRange[$0].map(f)) == k }
            if xs.isEmpty { #expect(got[k] == SIMD4(0, 0, 0, 1)); continue }
            let mx = xs.reduce(0.0) { $0 + Double($1) + 0.5 } / Double(xs.count)
            #expect(abs(Double(got[k].x) - mx) < 1e-5 && abs(Double(got[k].y) - 0.5) < 1e-6)
            #expect(abs(Double(got[k].z) - Double(xs.count) / 5) < 1e-6)
        }
    }

    @Test func documentEnhancerStretchesLevels() throws {
        let img = image(testPixels(width: 32, height: 16), 32, 16)
        let out = apply("CIDocumentEnhancer", img, [kCIInputAmountKey: 1])
        let v = try renderFloat(out, img.extent)
        let reds = v.map { Double($0.x) }
        #expect(reds.max()! > 0.999)
        #expect(reds.min()! < 1e-4)
    }

    // MARK: Gradients

    @Test func gaussianGradientFollowsExp() throws {
        let c1 = CIColor(red: 0, green: 0, blue: 0, alpha: 0)
        let g = CIFilter(name: "CIGaussianGradient", parameters: [kCIInputCenterKey: CIVector(x: 10, y: 10), kCIInputRadiusKey: 9, "inputColor1": c1])!.outputImage!
        let v = try renderFloat(
            g, CGRect(x: 0, y: 0, width: 20, height: 20),
            context: CIContext(options: [.outputColorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!, .outputPremultiplied: true]))
        for (x, yTop) in [(10, 9), (14, 9), (3, 2), (19, 19)] {
            let cy = Double(19 - yTop) + 0.5, cx = Double(x) + 0.5
            let t = exp(-(pow(cx - 10, 2) + pow(cy - 10, 2)) / (2 * 9 * 9 / 9))
            #expect(close(v[yTop * 20 + x], [t, t, t, t], tol: 1e-5, "(\(x), \(yTop))"))
        }
    }

    @Test func smoothLinearGradientIsSmoothstep() throws {
        let g = CIFilter(
            name: "CISmoothLinearGradient",
            parameters: [
                "inputPoint0": CIVector(x: 0, y: 0), "inputPoint1": CIVector(x: 20, y: 0),
                "inputColor0": CIColor(red: 0, green: 0, blue: 0, alpha: 1, colorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!)!,
                "inputColor1": CIColor(red: 1, green: 1, blue: 1, alpha: 1, colorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!)!,
            ])!.outputImage!
        let v = try renderFloat(g, CGRect(x: 0, y: 0, width: 24, height: 1))
        for x in [0, 3, 10, 17, 23] {
            let t = min(1, (Double(x) + 0.5) / 20), s = t * t * (3 - 2 * t)
            #expect(close(v[x], [s, s, s, 1], tol: 1e-5, "x \(x)"))
        }
    }

    @Test func hueSaturationValueWheel() throws {
        let g = CIFilter(name: "CIHueSaturationValueGradient", parameters: [kCIInputRadiusKey: 50, "inputDither": 0, "inputSoftness": 0])!.outputImage!
        #expect(g.extent == CGRect(x: -50, y: -50, width: 100, height: 100))
        let v = try render8(g, g.extent)
        // Pixel centre (40.5, 0.5): hue ~0 (red), saturation ~0.81; (0.5, 40.5): hue ~1/4.
        func px(_ x: Int, _ y: Int) -> [UInt8] { let i = ((49 - y) * 100 + (x + 50)) * 4; return Array(v[i..<i + 4]) }
        let red = px(40, 0)
        #expect(red[0] == 255 && red[3] == 255)
        let s = hypot(40.5, 0.5) / 50
        #expect(abs(Double(red[2]) - (1 - s) * 255) <= 1.5)
        #expect(px(49, 49)[3] == 0)
    }

    func bruteDistances(_ mask: [Bool], _ w: Int, _ h: Int, to target: Bool) -> [Double] {
        (0..<(w * h)).map { i in
            var best = Double.infinity
            for j in 0..<(w * h) where mask[j] == target {
                best = min(best, hypot(Double(i % w - j % w), Double(i / w - j / w)))
            }
            return best
        }
    }

    @Test func distanceGradientsAreExactEuclidean() throws {
        let w = 23, h = 17
        var px = [UInt8](repeating: 0, count: w * h * 4)
        var mask = [Bool](repeating: false, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let on = (x - 6) * (x - 6) + (y - 5) * (y - 5) < 10 || (x > 17 && y > 12)
                mask[y * w + x] = on
                px[(y * w + x) * 4] = on ? 255 : 0; px[(y * w + x) * 4 + 3] = 255
            }
        }
        let img = image(px, w, h)
        let outside = bruteDistances(mask, w, h, to: true), inside = bruteDistances(mask, w, h, to: false)
        for signed in [false, true] {
            let out = apply(signed ? "CISignedDistanceGradientFromRedMask" : "CIDistanceGradientFromRedMask", img, ["inputMaximumDistance": 12])
            #expect(out.extent == img.extent)
            let v = try renderFloat(out, img.extent)
            let tiledV = try renderFloat(
                out, img.extent, context: CIContext(options: [.tileSize: 7, .outputColorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!, .outputPremultiplied: false]))
            #expect(v == tiledV)
            for i in 0..<(w * h) {
                let want = mask[i] ? (signed ? -min(1, inside[i] / 12) : 0) : min(1, outside[i] / 12)
                #expect(abs(Double(v[i].x) - want) < 1e-5, "pixel \(i)")
            }
        }
    }

    @Test func tiledRenderEqualsWholeRender() throws {
        let img = image(testPixels(width: 29, height: 19, alpha: true), 29, 19)
        let tiledCtx = CIContext(options: [.tileSize: 7, .outputColorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!, .outputPremultiplied: false])
        let palette = linearRow([[0.9, 0.1, 0.1, 1], [0.1, 0.1, 0.9, 1], [0.5, 0.5, 0.5, 1]])
        for out in [
            apply("CIConvertRGBtoLab", img), apply("CIPalettize", img, ["inputPaletteImage": palette]), apply("CIPhotoEffectInstant", img),
            apply("CIDocumentEnhancer", img), apply("CIVignetteEffect", img, [kCIInputCenterKey: CIVector(x: 14, y: 9), kCIInputRadiusKey: 8]),
        ] {
            #expect(try renderFloat(out, img.extent) == renderFloat(out, img.extent, context: tiledCtx))
        }
    }
}
