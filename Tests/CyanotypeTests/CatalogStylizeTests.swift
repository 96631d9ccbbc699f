import Foundation
import Testing
@testable import Cyanotype

// CIDroste, CIGlassLozenge, CISpotLight, CISpotColor, CIShadedMaterial,
// CIHeightFieldFromMask and CISystemToneMap against references written here from their
// documented formulas (complex logarithms for the Droste spiral, Snell's law in its GLSL
// `refract` form for the lozenge, Lambert and the spot cone for the light).

/// A complex number, for the Droste reference.
private struct Complex {
    var re: Double, im: Double
    static func * (a: Complex, b: Complex) -> Complex { Complex(re: a.re * b.re - a.im * b.im, im: a.re * b.im + a.im * b.re) }
    static func + (a: Complex, b: Complex) -> Complex { Complex(re: a.re + b.re, im: a.im + b.im) }
    static func - (a: Complex, b: Complex) -> Complex { Complex(re: a.re - b.re, im: a.im - b.im) }
    var log: Complex { Complex(re: Foundation.log(hypot(re, im)), im: atan2(im, re)) }
    var exp: Complex { let m = Foundation.exp(re); return Complex(re: m * cos(im), im: m * sin(im)) }
}

@Suite struct CatalogStylizeTests {
    // MARK: Droste

    let droste = TestPicture(60, 40)
    /// Inset (20, 15)-(35, 25): half-size 7.5 x 5, centre (27.5, 20); the frame scale R = 4.
    let insetParams: [String: Any] = ["inputInsetPoint0": CIVector(x: 20, y: 15), "inputInsetPoint1": CIVector(x: 35, y: 25)]

    /// The point brought into the frame 1 <= rho < R by powers of R (rho the rectangle norm),
    /// nil within a hair of the frame's edges (where rounding may pick the other copy).
    fileprivate func intoFrame(_ z: Complex) -> (Double, Double)? {
        var z = z
        var rho = max(abs(z.re) / 7.5, abs(z.im) / 5)
        guard rho > 0 else { return nil }
        let n = floor(log(rho) / log(4.0))
        z = Complex(re: z.re / pow(4, n), im: z.im / pow(4, n))
        rho = max(abs(z.re) / 7.5, abs(z.im) / 5)
        if rho < 1 + 1e-6 || rho > 4 - 1e-6 { return nil }
        return (27.5 + z.re, 20 + z.im)
    }

    @Test func drosteWithoutStrandsNestsThePictureInItself() throws {
        let out = droste.image.applyingFilter("CIDroste", parameters: insetParams.merging(["inputStrands": 0]) { $1 })
        #expect(out.extent == droste.extent)
        try expectMatches(out, droste.extent, "droste, no strands") { x, y in
            intoFrame(Complex(re: x - 27.5, im: y - 20)).map { droste.sample($0.0, $0.1) }
        }
    }

    @Test func drosteSpiralIsTheComplexPowerOfTheDocumentation() throws {
        for (strands, periodicity, rotation, zoom) in [(1.0, 1.0, 0.0, 1.0), (2.0, 1.0, 0.7, 1.6), (-1.0, 2.0, 0.0, 0.5)] {
            let out = droste.image.applyingFilter(
                "CIDroste",
                parameters: insetParams.merging([
                    "inputStrands": strands, "inputPeriodicity": periodicity, "inputRotation": rotation, "inputZoom": zoom,
                ]) { $1 })
            let r0 = log((7.5 * 5).squareRoot() * 2)  // geometric mean of the inset's and the frame's half-sizes
            let beta = Complex(re: periodicity, im: -strands * log(4) / (2 * Double.pi))
            try expectMatches(out, droste.extent, "droste \(strands) \(periodicity)", tol: 5e-4) { x, y in
                let w = Complex(re: x - 27.5, im: y - 20).log - Complex(re: r0, im: 0)
                let ws = beta * w - Complex(re: log(zoom), im: rotation) + Complex(re: r0, im: 0)
                return intoFrame(ws.exp).map { droste.sample($0.0, $0.1) }
            }
        }
        // Zoom by R is the identity (the spiral is periodic).
        let a = try renderPremultiplied(droste.image.applyingFilter("CIDroste", parameters: insetParams), droste.extent)
        let b = try renderPremultiplied(droste.image.applyingFilter("CIDroste", parameters: insetParams.merging(["inputZoom": 4.0]) { $1 }), droste.extent)
        let differing = zip(a, b).filter { p, q in (0..<4).contains { abs(p[$0] - q[$0]) > 1e-3 } }.count
        #expect(differing * 100 <= a.count, "\(differing) of \(a.count) pixels differ")
        // An inset no smaller than the image leaves it alone.
        let whole = droste.image.applyingFilter("CIDroste", parameters: ["inputInsetPoint0": CIVector(x: 0, y: 0), "inputInsetPoint1": CIVector(x: 60, y: 40)])
        #expect(try renderPremultiplied(whole, droste.extent) == renderPremultiplied(droste.image, droste.extent))
    }

    // MARK: Glass lozenge

    @Test func glassLozengeRefractsBySnellsLaw() throws {
        let pic = TestPicture(50, 36)
        let p0 = (14.3, 17.2), p1 = (35.6, 19.1), R = 9.5
        for refraction in [1.7, 1.2, 0.8] {
            let out = pic.image.applyingFilter(
                "CIGlassLozenge",
                parameters: [
                    "inputPoint0": CIVector(x: 14.3, y: 17.2), "inputPoint1": CIVector(x: 35.6, y: 19.1),
                    kCIInputRadiusKey: R, "inputRefraction": refraction,
                ])
            #expect(out.extent == pic.extent)
            try expectMatches(out, pic.extent, "lozenge \(refraction)", tol: 5e-4) { x, y in
                // Nearest point of the axis, then the dome's normal there.
                let ax = p1.0 - p0.0, ay = p1.1 - p0.1
                let t = min(max(((x - p0.0) * ax + (y - p0.1) * ay) / (ax * ax + ay * ay), 0), 1)
                let qx = x - (p0.0 + t * ax), qy = y - (p0.1 + t * ay)
                let d = hypot(qx, qy)
                if d >= R { return pic.sample(x, y) }
                let z = (R * R - d * d).squareRoot()
                let n = [qx / R, qy / R, z / R], i = [0.0, 0, -1], eta = 1 / refraction
                // GLSL refract(I, N, eta): k = 1 - eta^2 (1 - dot(N, I)^2).
                let ni = n[0] * i[0] + n[1] * i[1] + n[2] * i[2]
                let k = 1 - eta * eta * (1 - ni * ni)
                if k < 0 { return [0, 0, 0, 0] }
                let tr = (0..<3).map { eta * i[$0] - (eta * ni + k.squareRoot()) * n[$0] }
                let s = z / -tr[2]
                // Within a hair of total reflection the sample jumps: skip.
                if k < 1e-6 { return nil }
                return pic.sample(x + tr[0] * s, y + tr[1] * s)
            }
        }
        let same = pic.image.applyingFilter("CIGlassLozenge", parameters: ["inputRefraction": 1.0])
        #expect(try renderPremultiplied(same, pic.extent) == renderPremultiplied(pic.image, pic.extent))
    }

    // MARK: Spot light

    @Test func spotLightIsLambertTimesTheSpotCone() throws {
        let pic = TestPicture(30, 20)
        let L = [12.0, 30, 25], P = [18.0, 6, 0], brightness = 2.5, conc = 0.7
        let colour = CIColor(red: 0.9, green: 0.6, blue: 0.3)
        let out = pic.image.applyingFilter(
            "CISpotLight",
            parameters: [
                "inputLightPosition": CIVector(x: 12, y: 30, z: 25), "inputLightPointsAt": CIVector(x: 18, y: 6, z: 0),
                "inputBrightness": brightness, "inputConcentration": conc, kCIInputColorKey: colour,
            ])
        let lin = [0.9, 0.6, 0.3].map(srgbToLinear)
        let sn = hypot(hypot(P[0] - L[0], P[1] - L[1]), P[2] - L[2])
        let s = [(P[0] - L[0]) / sn, (P[1] - L[1]) / sn, (P[2] - L[2]) / sn]
        try expectMatches(out, pic.extent, "spot light", tol: 2e-4) { x, y in
            let l = [L[0] - x, L[1] - y, L[2]], n = hypot(hypot(l[0], l[1]), l[2])
            let lambert = max(0, l[2] / n), cone = -(l[0] * s[0] + l[1] * s[1] + l[2] * s[2]) / n
            let f = brightness * lambert * (cone > 0 ? pow(cone, conc) : 0)
            let p = pic.sample(x, y)
            return [p[0] * lin[0] * f, p[1] * lin[1] * f, p[2] * lin[2] * f, p[3]]
        }
    }

    // MARK: Spot colour

    @Test func spotColorReplacesTheStatedColours() throws {
        // A row of sRGB colours: the three centres, a colour near the first, and three far away.
        let centres: [(Double, Double, Double)] = [(0.0784, 0.0627, 0.0706), (0.5255, 0.3059, 0.3451), (0.9216, 0.4549, 0.3333)]
        let replacements: [(Double, Double, Double)] = [(0.4392, 0.1922, 0.1961), (0.9137, 0.5608, 0.5059), (0.9098, 0.7529, 0.6078)]
        var colours = centres.map { SIMD3(Float($0.0), Float($0.1), Float($0.2)) }
        colours.append(SIMD3(0.0784 + 0.01, 0.0627, 0.0706))
        colours += [SIMD3(0.1, 0.9, 0.1), SIMD3(0.1, 0.2, 0.95), SIMD3(0.2, 0.95, 0.9)]
        let input = encodedImage(colours, width: colours.count)
        let out = input.applyingFilter("CISpotColor", parameters: ["inputCloseness3": 0.2])
        let got = try renderEncoded(out.cropped(to: input.extent))
        for k in 0..<3 {
            let r = replacements[k]
            #expect(abs(Double(got[k].x) - r.0) < 2e-3 && abs(Double(got[k].y) - r.1) < 2e-3 && abs(Double(got[k].z) - r.2) < 2e-3, "centre \(k): \(got[k])")
        }
        // Close to the first centre (0.01 away, well inside closeness 0.22 * contrast 0.98).
        #expect(abs(Double(got[3].x) - replacements[0].0) < 2e-3)
        for k in 4..<7 {
            #expect(abs(got[k].x - colours[k].x) < 1e-3 && abs(got[k].y - colours[k].y) < 1e-3 && abs(got[k].z - colours[k].z) < 1e-3, "far colour \(k): \(got[k])")
        }
    }

    // MARK: Height field and shaded material

    @Test func heightFieldRisesFromZeroAtTheMasksEdge() throws {
        // A hard white square 40 wide in a 60 x 60 black mask.
        var px = [UInt8](repeating: 0, count: 60 * 60 * 4)
        for y in 0..<60 {
            for x in 0..<60 {
                let i = (y * 60 + x) * 4
                let v: UInt8 = x >= 10 && x < 50 && y >= 10 && y < 50 ? 255 : 0
                px[i] = v; px[i + 1] = v; px[i + 2] = v; px[i + 3] = 255
            }
        }
        let radius = 8.0
        let out = image(px, 60, 60).applyingFilter("CIHeightFieldFromMask", parameters: [kCIInputRadiusKey: radius])
        #expect(out.extent == CGRect(x: 0, y: 0, width: 60, height: 60))
        let got = try renderPremultiplied(out, out.extent)
        func h(_ x: Int, _ y: Int) -> Float { got[(59 - y) * 60 + x].x }
        // Along the middle row, from the left edge (x = 10) inward: the profile of
        // u = erf(sqrt 2 d / R) (d the distance from the edge), h = sqrt(1 - (1 - u)^2).
        for x in 10..<30 {
            let d = Double(x) + 0.5 - 10
            let u = erf(2.0.squareRoot() * d / radius)
            let expected = (1 - (1 - u) * (1 - u)).squareRoot()
            #expect(abs(Double(h(x, 30)) - expected) < 0.02, "x \(x): \(h(x, 30)) expected \(expected)")
        }
        #expect((0..<10).allSatisfy { h($0, 30) == 0 } && got.allSatisfy { $0.w == 1 })
        #expect(zip(10..<29, 11..<30).allSatisfy { h($0, 30) <= h($1, 30) })
    }

    @Test func shadedMaterialReadsTheShadingImageAtTheNormal() throws {
        let shading = TestPicture(21, 21)
        // Heights: a ramp of luminance along x (a plane tilted about y), then flat.
        var px = [UInt8](repeating: 0, count: 30 * 10 * 4)
        for y in 0..<10 {
            for x in 0..<30 {
                let i = (y * 30 + x) * 4
                let v = x < 15 ? UInt8(x * 10) : 140
                px[i] = v; px[i + 1] = v; px[i + 2] = v; px[i + 3] = 255
            }
        }
        let heights = image(px, 30, 10)
        let scale = 12.0
        let out = heights.applyingFilter("CIShadedMaterial", parameters: ["inputShadingImage": shading.image, kCIInputScaleKey: scale])
        #expect(out.extent == heights.extent)
        func lum(_ x: Int, _ y: Int) -> Double {
            let xx = min(max(x, 0), 29)
            guard x >= 0, x < 30, y >= 0, y < 10 else { return 0 }
            let v = srgbToLinear(Double(xx < 15 ? xx * 10 : 140) / 255)
            return v
        }
        try expectMatches(out, CGRect(x: 1, y: 1, width: 28, height: 8), "shaded material", tol: 5e-4) { x, y in
            let i = Int(x - 0.5), j = Int(y - 0.5)
            let gx = (lum(i + 1, j) - lum(i - 1, j)) / 2, gy = (lum(i, j + 1) - lum(i, j - 1)) / 2
            let n = [-scale * gx, -scale * gy, 1.0], m = hypot(hypot(n[0], n[1]), n[2])
            return shading.sample(10.5 + 10 * n[0] / m, 10.5 + 10 * n[1] / m)
        }
        #expect(throws: CIFilterError.self) {
            try filterOutput("CIShadedMaterial", [kCIInputImageKey: heights, "inputShadingImage": CIImage(color: .white)])
        }
    }

    // MARK: System tone map

    @Test func systemToneMapKeepsSDRAndRollsOffHDRMonotonically() throws {
        let sdr = TestPicture(20, 10)
        let kept = sdr.image.applyingFilter("CISystemToneMap", parameters: [:])
        #expect(try renderPremultiplied(kept, sdr.extent) == renderPremultiplied(sdr.image, sdr.extent))
        // A ramp of linear values from 0 to 8 (grey and coloured), opaque.
        let n = 64
        var ramp = [SIMD4<Float>]()
        for k in 0..<n { let v = Float(k) / Float(n - 1) * 8; ramp.append(SIMD4(v, v, v, 1)) }
        for k in 0..<n { let v = Float(k) / Float(n - 1) * 8; ramp.append(SIMD4(v, v * 0.5, v * 0.25, 1)) }
        let hdr = CIImage(
            unpremultipliedBitmapData: ramp.withUnsafeBytes { Data($0) }, bytesPerRow: n * 16, size: CGSize(width: n, height: 2),
            format: .RGBAf, colorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB))
        for (headroom, option, target) in [(1.0, nil, 1.0), (4.0, "high", 4.0), (4.0, "CIDynamicRangeConstrainedHigh", 2.0), (4.0, "standard", 1.0)] as [(Double, String?, Double)]
        {
            var params: [String: Any] = ["inputDisplayHeadroom": headroom]
            if let option { params["inputPreferredDynamicRange"] = option }
            let out = hdr.applyingFilter("CISystemToneMap", parameters: params)
            let got = try renderPremultiplied(out, hdr.extent)
            let grey = got[0..<n].map(\.x), colour = got[n..<(2 * n)]
            // Monotonic (to a float's rounding of m'/m * m); strictly so until the roll-off's
            // steps fall below a float's resolution.
            #expect(zip(grey, grey.dropFirst()).allSatisfy { $0 <= $1 + 1e-6 }, "\(option ?? "nil") increasing")
            #expect((1..<n).filter { ramp[$0].x <= Float(target) + 1 }.allSatisfy { grey[$0 - 1] < grey[$0] }, "\(option ?? "nil") strictly increasing")
            #expect(abs(Double(grey.last!) - target) < 1e-4, "\(option ?? "nil"): 8 lands on \(target), got \(grey.last!)")
            let knee = Float(0.75 * min(target, 1))
            for k in 0..<n where ramp[k].x <= knee { #expect(grey[k] == ramp[k].x) }
            // Hue kept: the coloured row's channels keep their ratios.
            for p in colour where p.x > 0 { #expect(abs(p.y / p.x - 0.5) < 1e-5 && abs(p.z / p.x - 0.25) < 1e-5) }
        }
        #expect(throws: CIFilterError.self) {
            try filterOutput("CISystemToneMap", [kCIInputImageKey: hdr, "inputPreferredDynamicRange": "brighter"])
        }
    }
}

/// The output of filter `name` with `params`, throwing its typed error.
@discardableResult
func filterOutput(_ name: String, _ params: [String: Any]) throws -> CIImage {
    guard let f = CIFilter(name: name) else { throw CIFilterError.unknownFilter(name) }
    for (k, v) in params { f.setValue(v, forKey: k) }
    return try f.makeOutputImage()
}
