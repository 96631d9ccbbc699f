import Foundation
import Testing
@testable import Cyanotype

/// The second batch of colour adjustments against scalar formulas at sampled pixels (straight
/// linear float, including values below 0 and above 1), identity parameters, and every
/// filter's attributes against Apple's catalogue in spec/coreimage-filters.json.
@Suite struct ColorAdjustment2Tests {
    /// Straight linear RGBA samples: in range, HDR, negative, translucent.
    static let samples: [[Double]] = [
        [0.1, 0.5, 0.9, 1], [0, 0.25, 1, 0.5], [1.5, -0.2, 0.04, 1], [0.7, 0.003, 0.3, 0.8], [2, 0.6, 0, 0.3], [0.45, 0.55, 0.2, 1],
    ]
    static let inRange: [[Double]] = [[0.1, 0.5, 0.9, 1], [0, 0.25, 1, 0.5], [0.7, 0.003, 0.3, 0.8], [1, 0.6, 0, 0.3], [0.45, 0.55, 0.2, 1]]
    var input: CIImage { linearRow(Self.samples) }

    func f(_ v: Double) -> Double { Double(Float(v)) }

    func check(_ out: CIImage, _ rows: [[Double]] = samples, tol: Double = 2e-4, _ formula: ([Double]) -> [Double]) throws {
        try checkSamples(out, rows, tol: tol, formula)
    }

    func apply(_ name: String, _ image: CIImage, _ params: [String: Any] = [:]) -> CIImage {
        image.applyingFilter(name, parameters: params)
    }

    @Test func colorClampClampsEveryComponent() throws {
        let lo = [0.1, 0.2, 0, 0.5], hi = [0.8, 0.9, 0.7, 0.9]
        let out = apply(
            "CIColorClamp", input,
            [
                "inputMinComponents": CIVector(x: 0.1, y: 0.2, z: 0, w: 0.5),
                "inputMaxComponents": CIVector(x: 0.8, y: 0.9, z: 0.7, w: 0.9),
            ])
        try check(out) { p in (0..<4).map { min(hi[$0], max(lo[$0], p[$0])) } }
    }

    @Test func colorPolynomialIsACubicPerChannel() throws {
        let r = [0.1, 0.8, 0.2, -0.1], g = [0, 1.2, -0.3, 0.05], b = [0.05, 0.5, 0.5, 0], a = [0, 0.9, 0, 0]
        let out = apply(
            "CIColorPolynomial", input,
            [
                "inputRedCoefficients": CIVector(values: r.map { CGFloat($0) }), "inputGreenCoefficients": CIVector(values: g.map { CGFloat($0) }),
                "inputBlueCoefficients": CIVector(values: b.map { CGFloat($0) }), "inputAlphaCoefficients": CIVector(values: a.map { CGFloat($0) }),
            ])
        func poly(_ c: [Double], _ v: Double) -> Double { c[0] + c[1] * v + c[2] * v * v + c[3] * v * v * v }
        try check(out) { p in [poly(r, p[0]), poly(g, p[1]), poly(b, p[2]), poly(a, p[3])] }
    }

    @Test func colorThresholdBinarises() throws {
        let out = apply("CIColorThreshold", input, ["inputThreshold": 0.35])
        try check(out) { p in [p[0] > 0.35 ? 1 : 0, p[1] > 0.35 ? 1 : 0, p[2] > 0.35 ? 1 : 0, p[3]] }
    }

    @Test func sRGBToneCurvesAreTheTransferFunction() throws {
        func enc(_ v: Double) -> Double { v < 0 ? -linearToSrgb(-v) : linearToSrgb(v) }
        func dec(_ v: Double) -> Double { v < 0 ? -srgbToLinear(-v) : srgbToLinear(v) }
        try check(apply("CILinearToSRGBToneCurve", input)) { p in [enc(p[0]), enc(p[1]), enc(p[2]), p[3]] }
        try check(apply("CISRGBToneCurveToLinear", input)) { p in [dec(p[0]), dec(p[1]), dec(p[2]), p[3]] }
        // Round trip.
        try check(apply("CISRGBToneCurveToLinear", apply("CILinearToSRGBToneCurve", input)), tol: 1e-5) { $0 }
    }

    /// The sRGB curve stages' table path (and libm for what it does not cover) against the
    /// formulas in Double on every kind of value, sign kept, alpha untouched.
    @Test(arguments: [false, true])
    func sRGBCurveStagesMatchTheFormulaOnEveryKindOfValue(toLinear: Bool) {
        let stage = SRGBCurveStage(toLinear: toLinear)
        #expect(stage.table != nil)
        let row = stageTestRow(), out = runStage(stage, row)
        var worst = 0.0
        for (p, o) in zip(row, out) {
            #expect(o.w.bitPattern == p.w.bitPattern, "alpha kept: \(p) -> \(o)")
            for k in 0..<3 {
                let x = Double(p[k]), got = o[k]
                if x.isNaN { #expect(got.isNaN); continue }
                if x.isInfinite { #expect(got == p[k]); continue }
                let f = toLinear ? srgbToLinear : linearToSrgb
                let exact = x < 0 ? -f(-x) : f(x)
                #expect(got.sign == p[k].sign || got == 0, "\(x) -> \(got)")
                let err = abs(Double(got) - exact)
                if abs(exact) > 1e-30 { worst = max(worst, err / abs(exact)) }
                #expect(err <= 2e-6 * abs(exact) + 1e-44, "\(x) -> \(got), exact \(exact)")
            }
        }
        #expect(worst < 2e-6, "worst relative error \(worst)")
    }

    /// Natural cubic spline through `pts` (sorted here), from the textbook system
    /// h[i-1] M[i-1] + 2(h[i-1] + h[i]) M[i] + h[i] M[i+1] = 6 (slope[i] - slope[i-1]), M0 = M4 = 0,
    /// solved by Gaussian elimination on the full matrix.
    struct ReferenceSpline {
        let x: [Double], y: [Double], m: [Double]
        init(_ pts: [(Double, Double)]) {
            let p = pts.sorted { $0.0 < $1.0 }
            x = p.map(\.0); y = p.map(\.1)
            let n = p.count
            var a = [[Double]](repeating: [Double](repeating: 0, count: n + 1), count: n)
            a[0][0] = 1; a[n - 1][n - 1] = 1
            for i in 1..<(n - 1) {
                let h0 = x[i] - x[i - 1], h1 = x[i + 1] - x[i]
                a[i][i - 1] = h0; a[i][i] = 2 * (h0 + h1); a[i][i + 1] = h1
                a[i][n] = 6 * ((y[i + 1] - y[i]) / h1 - (y[i] - y[i - 1]) / h0)
            }
            for c in 0..<n {
                let piv = (c..<n).max { abs(a[$0][c]) < abs(a[$1][c]) }!
                a.swapAt(c, piv)
                for r in 0..<n where r != c {
                    let k = a[r][c] / a[c][c]
                    for j in c...n { a[r][j] -= k * a[c][j] }
                }
            }
            m = (0..<n).map { a[$0][n] / a[$0][$0] }
        }
        func callAsFunction(_ v: Double, extrapolate: Bool) -> Double {
            let n = x.count
            if v <= x[0] {
                let h = x[1] - x[0], slope = (y[1] - y[0]) / h - h * (2 * m[0] + m[1]) / 6
                return extrapolate ? y[0] + slope * (v - x[0]) : y[0]
            }
            if v >= x[n - 1] {
                let h = x[n - 1] - x[n - 2], slope = (y[n - 1] - y[n - 2]) / h + h * (m[n - 2] + 2 * m[n - 1]) / 6
                return extrapolate ? y[n - 1] + slope * (v - x[n - 1]) : y[n - 1]
            }
            var i = 0
            while v > x[i + 1] { i += 1 }
            let h = x[i + 1] - x[i], l = x[i + 1] - v, r = v - x[i]
            return m[i] * l * l * l / (6 * h) + m[i + 1] * r * r * r / (6 * h) + (y[i] / h - m[i] * h / 6) * l + (y[i + 1] / h - m[i + 1] * h / 6) * r
        }
    }

    @Test(arguments: [false, true])
    func toneCurveIsANaturalSplineInGamma2(_ extrapolate: Bool) throws {
        // Given out of order: the filter sorts by x.
        let pts: [(Double, Double)] = [(0.05, 0.02), (0.3, 0.4), (0.55, 0.62), (0.8, 0.85), (0.95, 0.97)]
        let given = [pts[2], pts[0], pts[4], pts[1], pts[3]]
        var params: [String: Any] = ["inputExtrapolate": extrapolate]
        for (k, p) in given.enumerated() { params["inputPoint\(k)"] = CIVector(x: p.0, y: p.1) }
        let spline = ReferenceSpline(pts)
        func curve(_ v: Double) -> Double {
            let g = v < 0 ? -(-v).squareRoot() : v.squareRoot()
            let o = spline(g, extrapolate: extrapolate)
            return o < 0 ? -o * o : o * o
        }
        try check(apply("CIToneCurve", input, params)) { p in [curve(p[0]), curve(p[1]), curve(p[2]), p[3]] }
    }

    @Test func toneCurveRejectsRepeatedX() throws {
        let f = CIFilter(name: "CIToneCurve")!
        f.setValue(input, forKey: kCIInputImageKey)
        f.setValue(CIVector(x: 0.25, y: 0.5), forKey: "inputPoint2")
        #expect(throws: CIFilterError.self) { try f.makeOutputImage() }
    }

    /// CIGammaAdjust through the renderer (its table path for these powers) on HDR, negative
    /// (sign kept) and translucent samples.
    @Test(arguments: [0.9, 2.2, 0.4545, 3.7])
    func gammaIsASignedPowerOnExtendedValues(power: Double) throws {
        let pw = Double(Float(power))
        func sp(_ v: Double) -> Double { v < 0 ? -pow(-v, pw) : pow(v, pw) }
        try check(apply("CIGammaAdjust", input, ["inputPower": power]), tol: 1e-5 * 13) { p in [sp(p[0]), sp(p[1]), sp(p[2]), p[3]] }
        try check(apply("CIGammaAdjust", linearRow(Self.inRange), ["inputPower": power]), Self.inRange, tol: 1e-6) { p in
            [sp(p[0]), sp(p[1]), sp(p[2]), p[3]]
        }
    }

    /// CIVibrance on HDR, negative and translucent samples.
    @Test(arguments: [0.4, -0.8, 1])
    func vibranceOnExtendedValues(amount: Double) throws {
        let a = Double(Float(amount))
        try check(apply("CIVibrance", input, [kCIInputAmountKey: amount]), tol: 1e-5) { p in
            let mx = max(p[0], p[1], p[2]), mean = (p[0] + p[1] + p[2]) / 3
            let t = (mx - mean) * -3 * a
            return (0..<3).map { p[$0] + (mx - p[$0]) * t } + [p[3]]
        }
    }

    @Test func whitePointScalesByTheColour() throws {
        let c = CIColor(red: 0.9, green: 0.8, blue: 0.6)
        let k = [srgbToLinear(0.9), srgbToLinear(0.8), srgbToLinear(0.6)]
        try check(apply("CIWhitePointAdjust", input, [kCIInputColorKey: c])) { p in [p[0] * k[0], p[1] * k[1], p[2] * k[2], p[3]] }
    }

    @Test func absoluteDifferenceAndProductAlpha() throws {
        let other: [[Double]] = [[0.3, 0.3, 0.3, 1], [0.5, 0.1, 0.2, 0.5], [0, 0, 0, 1], [0.7, 0.5, 0.1, 0.25], [1, 1, 1, 1], [0.2, 0.9, 0.4, 0]]
        let out = apply("CIColorAbsoluteDifference", input, ["inputImage2": linearRow(other)])
        let got = try renderFloat(out, CGRect(x: 0, y: 0, width: other.count, height: 1))
        for (k, (a, b)) in zip(Self.samples, other).enumerated() {
            let alpha = f(a[3]) * f(b[3])
            let e = alpha > 0 ? (0..<3).map { abs(f(a[$0]) - f(b[$0])) } + [alpha] : [0, 0, 0, 0]
            #expect(close(got[k], e, tol: 2e-4, "pair \(k)"))
        }
        let x = CIImage(color: .red).cropped(to: CGRect(x: 0, y: 0, width: 4, height: 4))
        let y = CIImage(color: .blue).cropped(to: CGRect(x: 2, y: 1, width: 5, height: 6))
        #expect(apply("CIColorAbsoluteDifference", x, ["inputImage2": y]).extent == CGRect(x: 2, y: 1, width: 2, height: 3))
    }

    @Test func depthAndDisparityAreReciprocals() throws {
        func inv(_ v: Double) -> Double { v > 0 ? 1 / v : 0 }
        try check(apply("CIDepthToDisparity", input)) { p in [inv(p[0]), inv(p[1]), inv(p[2]), p[3]] }
        try check(apply("CIDisparityToDepth", input)) { p in [inv(p[0]), inv(p[1]), inv(p[2]), p[3]] }
        let positive = linearRow([[0.5, 2, 4, 1], [0.25, 1, 8, 0.5]])
        try check(apply("CIDisparityToDepth", apply("CIDepthToDisparity", positive)), [[0.5, 2, 4, 1], [0.25, 1, 8, 0.5]], tol: 1e-5) { $0 }
    }

    /// Default (identity) parameters leave the image as it was.
    @Test(arguments: ["CIColorClamp", "CIColorPolynomial", "CIToneCurve", "CIWhitePointAdjust"])
    func identityParametersLeaveTheImage(_ name: String) throws {
        let img = linearRow(Self.inRange)
        let rect = CGRect(x: 0, y: 0, width: Self.inRange.count, height: 1)
        let before = try renderFloat(img, rect)
        let after = try renderFloat(apply(name, img), rect)
        for k in before.indices {
            #expect(close(after[k], before[k].indices.map { Double(before[k][$0]) }, tol: 1e-6, "\(name) sample \(k)"))
        }
    }

    // MARK: Attributes against Apple's catalogue

    static let specPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("spec/coreimage-filters.json")

    /// A default, minimum or maximum as numbers, from either side.
    func numbers(_ v: Any?) -> [Double]? {
        switch v {
        case nil: return nil
        case let b as Bool: return [b ? 1 : 0]
        case let n as NSNumber: return [n.doubleValue]
        case let d as Double: return [d]
        case let i as Int: return [Double(i)]
        case let a as [Any]: return a.compactMap { numbers($0)?.first }
        case let v as CIVector: return v.values.map { Double($0) }
        case let c as CIColor: return c.components.map { Double($0) }
        case let t as CGAffineTransform: return [t.a, t.b, t.c, t.d, t.tx, t.ty].map { Double($0) }
        default: return nil
        }
    }

    @Test func attributesMatchTheCatalogue() throws {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.specPath)) as! [[String: Any]]
        let spec = Dictionary(json.map { ($0["name"] as! String, $0) }, uniquingKeysWith: { a, _ in a })
        // Built-ins only: other suites register filters of their own under other names.
        let names = CIFilter.filterNames(inCategory: kCICategoryBuiltIn)
        #expect(names.count == 247, "the README's Filters (247)")
        for name in names {
            let entry = try #require(spec[name], "\(name) is not in the spec")
            let attrs = try #require(CIFilter(name: name)).attributes
            #expect(attrs[kCIAttributeFilterName] as? String == name)
            #expect(attrs[kCIAttributeFilterCategories] as? [String] == entry["categories"] as? [String], "\(name) categories")
            for input in entry["inputs"] as! [[String: Any]] {
                let key = input["key"] as! String
                let a = try #require(attrs[key] as? [String: Any], "\(name).\(key) missing")
                #expect(a[kCIAttributeClass] as? String == input["class"] as? String, "\(name).\(key) class")
                #expect(a[kCIAttributeType] as? String == input["attributeType"] as? String, "\(name).\(key) type")
                for (specKey, attrKey) in [("default", kCIAttributeDefault), ("min", kCIAttributeMin), ("max", kCIAttributeMax)] {
                    let want = input[specKey].flatMap { $0 is NSNull ? nil : $0 }
                    if let s = want as? String {
                        #expect(a[attrKey] as? String == s, "\(name).\(key) \(specKey)")
                    } else if want is [String: Any] {
                        #expect(a[attrKey] != nil, "\(name).\(key) \(specKey)")
                    } else {
                        #expect(numbers(a[attrKey]) == numbers(want), "\(name).\(key) \(specKey)")
                    }
                }
            }
        }
    }
}
