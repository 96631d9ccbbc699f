import Foundation
import Testing
@testable import Cyanotype

// Halftone screens and transitions against scalar formulas written here (from the formulas
// stated in the filters' documentation), endpoint and clamping checks, tiled renders against
// whole renders, and the typed API.

private let linearSpace = CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!
/// Premultiplied linear float output (transitions mix premultiplied colour).
private func premultipliedContext(tile: Int = 4096) -> CIContext {
    CIContext(options: [.tileSize: tile, .outputColorSpace: linearSpace, .outputPremultiplied: true, .cacheIntermediates: false])
}
private func straightContext(tile: Int = 4096) -> CIContext {
    CIContext(options: [.tileSize: tile, .outputColorSpace: linearSpace, .outputPremultiplied: false, .cacheIntermediates: false])
}

private let W = 21, H = 17
private let rect = CGRect(x: 0, y: 0, width: W, height: H)
private let sourcePixels = testPixels(width: W, height: H)
private let sourceAlphaPixels = testPixels(width: W, height: H, alpha: true)
/// A second picture for transitions: other gradients, alpha from 40% to 100%.
private let targetPixels: [UInt8] = {
    var p = [UInt8](repeating: 0, count: W * H * 4)
    for y in 0..<H {
        for x in 0..<W {
            let i = (y * W + x) * 4
            p[i] = UInt8(255 - (y * 255) / (H - 1)); p[i + 1] = UInt8((x * 9 + y * 5) % 256)
            p[i + 2] = UInt8((x * 255) / (W - 1)); p[i + 3] = UInt8(100 + (x * 7 + y * 3) % 156)
        }
    }
    return p
}()
private var source: CIImage { image(sourcePixels, W, H) }
private var target: CIImage { image(targetPixels, W, H) }

/// Straight linear RGBA of a test picture at Core Image coordinates (x, y), y up.
private func straightAt(_ pixels: [UInt8], _ x: Int, _ y: Int) -> [Double] { linearPixel(pixels, W, x, H - 1 - y) }
private func premultipliedAt(_ pixels: [UInt8], _ x: Int, _ y: Int) -> [Double] {
    let p = straightAt(pixels, x, y); return [p[0] * p[3], p[1] * p[3], p[2] * p[3], p[3]]
}
/// The rendered pixel at Core Image (x, y) of a top-down render of `rect`.
private func at(_ v: [SIMD4<Float>], _ x: Int, _ y: Int) -> SIMD4<Float> { v[(H - 1 - y) * W + x] }

private func clamp1(_ v: Double) -> Double { v > 0 ? min(v, 1) : 0 }
private func fract(_ v: Double) -> Double { v - floor(v) }

/// Whole, then tiles of 3, 5 and 7 pixels: bit-identical.
private func expectTilesEqualWhole(_ out: CIImage, premultiplied: Bool = true, _ what: String) throws {
    let r = out.extent.intersection(rect.insetBy(dx: -3, dy: -3)).integral
    let whole = try renderFloat(out, r, context: premultiplied ? premultipliedContext() : straightContext())
    for t in [3, 5, 7] {
        let tiled = try renderFloat(out, r, context: premultiplied ? premultipliedContext(tile: t) : straightContext(tile: t))
        #expect(tiled == whole, "\(what) tile \(t)")
    }
}

@Suite struct HalftoneTests {
    // MARK: Reference screens

    func paper(_ l: Double, _ t: Double, sharpness: Double) -> Double {
        let e = max(1 - min(max(sharpness, 0), 1), 1.0 / 256)
        let z = clamp1((l - (1 - e) * t) / e)
        return z * z * (3 - 2 * z)
    }
    func tone(_ p: [Double]) -> Double { linearToSrgb(clamp1(0.2125 * p[0] + 0.7154 * p[1] + 0.0721 * p[2])) }
    func rotated(_ x: Int, _ y: Int, center: (Double, Double), angle: Double) -> (u: Double, v: Double, dx: Double, dy: Double) {
        let dx = Double(x) + 0.5 - center.0, dy = Double(y) + 0.5 - center.1
        return (dx * cos(angle) + dy * sin(angle), dy * cos(angle) - dx * sin(angle), dx, dy)
    }
    func dot(_ u: Double, _ v: Double, _ w: Double) -> Double { 0.5 + (cos(2 * .pi * u / w) + cos(2 * .pi * v / w)) / 4 }
    func line(_ v: Double, _ w: Double) -> Double { 0.5 + cos(2 * .pi * v / w) / 2 }

    func threshold(_ name: String, _ x: Int, _ y: Int, center: (Double, Double), angle: Double, width: Double) -> Double {
        let r = rotated(x, y, center: center, angle: angle)
        switch name {
        case "CIDotScreen": return dot(r.u, r.v, width)
        case "CILineScreen": return line(r.v, width)
        case "CICircularScreen": return line(hypot(r.dx, r.dy), width)
        default: return max(line(r.v, width), line(r.u, width) / 2)
        }
    }

    static let screens = ["CIDotScreen", "CILineScreen", "CICircularScreen", "CIHatchedScreen"]

    @Test(arguments: screens) func screenMatchesTheThresholdFormula(_ name: String) throws {
        for (pixels, sharpness) in [(sourcePixels, 0.7), (sourceAlphaPixels, 0.3)] {
            let center = (7.25, 4.5), angle = 0.4, width = 5.0
            var params: [String: Any] = [kCIInputCenterKey: CIVector(x: 7.25, y: 4.5), kCIInputWidthKey: width, kCIInputSharpnessKey: sharpness]
            if name != "CICircularScreen" { params[kCIInputAngleKey] = angle }
            let out = image(pixels, W, H).applyingFilter(name, parameters: params)
            #expect(out.extent == rect)
            let got = try renderFloat(out, rect, context: straightContext())
            var inks = 0, papers = 0
            for y in 0..<H {
                for x in 0..<W {
                    let p = straightAt(pixels, x, y)
                    let s = paper(tone(p), threshold(name, x, y, center: center, angle: name == "CICircularScreen" ? 0 : angle, width: width), sharpness: sharpness)
                    let g = srgbToLinear(s)
                    #expect(close(at(got, x, y), [g, g, g, p[3]], tol: 5e-4, "\(name) at \(x),\(y)"))
                    if s == 0 { inks += 1 }
                    if s == 1 { papers += 1 }
                }
            }
            // A real screen: both solid ink and bare paper occur.
            #expect(inks > 0 && papers > 0, "\(name)")
        }
    }

    @Test(arguments: screens) func screenEndpointsAndTiles(_ name: String) throws {
        // White stays white and black stays black, at any sharpness.
        for sharpness in [0.0, 0.7, 1.0] {
            for (grey, want) in [(1.0, 1.0), (0.0, 0.0)] {
                let flat = CIImage(color: CIColor(red: grey, green: grey, blue: grey)).cropped(to: rect)
                let v = try renderFloat(flat.applyingFilter(name, parameters: [kCIInputSharpnessKey: sharpness, kCIInputCenterKey: CIVector(x: 3, y: 2)]), rect)
                #expect(v.allSatisfy { $0 == SIMD4(Float(want), Float(want), Float(want), 1) }, "\(name) grey \(grey) sharpness \(sharpness)")
            }
        }
        let out = source.applyingFilter(name, parameters: [kCIInputCenterKey: CIVector(x: 10.3, y: 8.1), kCIInputWidthKey: 4.5])
        try expectTilesEqualWhole(out, premultiplied: false, name)
    }

    @Test func cmykHalftoneSeparatesAndScreensFourInks() throws {
        let angle = 0.2, width = 6.0, sharpness = 0.6, gcr = 0.8, ucr = 0.6
        let center = (9.0, 5.5)
        let out = image(sourceAlphaPixels, W, H).applyingFilter(
            "CICMYKHalftone",
            parameters: [
                kCIInputCenterKey: CIVector(x: 9, y: 5.5), kCIInputAngleKey: angle, kCIInputWidthKey: width, kCIInputSharpnessKey: sharpness,
                "inputGCR": gcr, "inputUCR": ucr,
            ])
        #expect(out.extent == rect)
        let got = try renderFloat(out, rect, context: straightContext())
        for y in 0..<H {
            for x in 0..<W {
                let p = straightAt(sourceAlphaPixels, x, y)
                var c = 1 - linearToSrgb(clamp1(p[0])), m = 1 - linearToSrgb(clamp1(p[1])), ye = 1 - linearToSrgb(clamp1(p[2]))
                let k = gcr * min(c, m, ye)
                c -= ucr * k; m -= ucr * k; ye -= ucr * k
                func screen(_ ink: Double, _ degrees: Double) -> Double {
                    let r = rotated(x, y, center: center, angle: angle + degrees * .pi / 180)
                    return paper(1 - ink, dot(r.u, r.v, width), sharpness: sharpness)
                }
                let sK = screen(k, 45)
                let e = [srgbToLinear(screen(c, 15) * sK), srgbToLinear(screen(m, 75) * sK), srgbToLinear(screen(ye, 0) * sK), p[3]]
                #expect(close(at(got, x, y), e, tol: 1e-3, "at \(x),\(y)"))
            }
        }
        // White paper stays white; without black generation grey is made of C, M and Y only.
        let white = CIImage(color: .white).cropped(to: rect)
        #expect(try renderFloat(white.applyingFilter("CICMYKHalftone", parameters: [:]), rect).allSatisfy { $0 == SIMD4(1, 1, 1, 1) })
        try expectTilesEqualWhole(out, premultiplied: false, "CMYK")
        try expectTilesEqualWhole(source.applyingFilter("CICMYKHalftone", parameters: [kCIInputWidthKey: 3]), premultiplied: false, "CMYK default")
    }

    @Test func badParametersClampOrThrow() throws {
        // Width below Apple's minimum is clamped (1 for the screens; CMYK allows down to -2,
        // which we take as 1): no crash, a finite image.
        for name in Self.screens + ["CICMYKHalftone"] {
            for w in [0.0, -2.0, -100.0] {
                let v = try renderFloat(source.applyingFilter(name, parameters: [kCIInputWidthKey: w, kCIInputSharpnessKey: 5]), rect)
                #expect(v.allSatisfy { $0.x.isFinite && $0.w == 1 }, "\(name) width \(w)")
            }
            let f = try #require(CIFilter(name: name))
            f.setValue(source, forKey: kCIInputImageKey)
            f.setValue(Double.nan, forKey: kCIInputWidthKey)
            #expect(throws: CIFilterError.nonFinite(filter: name, key: kCIInputWidthKey)) { try f.makeOutputImage() }
            f.setValue(6, forKey: kCIInputWidthKey)
            f.setValue(CIVector(x: .infinity, y: 0), forKey: kCIInputCenterKey)
            #expect(throws: CIFilterError.nonFinite(filter: name, key: kCIInputCenterKey)) { try f.makeOutputImage() }
        }
        // CMYK width 0 is clamped to 1 like width -2.
        let a = try renderFloat(source.applyingFilter("CICMYKHalftone", parameters: [kCIInputWidthKey: 0]), rect)
        let b = try renderFloat(source.applyingFilter("CICMYKHalftone", parameters: [kCIInputWidthKey: 1]), rect)
        #expect(a == b)
    }

    @Test func typedAPI() throws {
        let d = CIFilter.dotScreen()
        d.inputImage = source; d.center = CGPoint(x: 4, y: 5); d.angle = 0.3; d.width = 5; d.sharpness = 0.5
        let byName = source.applyingFilter(
            "CIDotScreen", parameters: [kCIInputCenterKey: CIVector(x: 4, y: 5), kCIInputAngleKey: 0.3, kCIInputWidthKey: 5, kCIInputSharpnessKey: 0.5])
        #expect(try renderFloat(try #require(d.outputImage), rect) == (try renderFloat(byName, rect)))
        let l = CIFilter.lineScreen(); l.inputImage = source; l.width = 3
        #expect(l.outputImage != nil && l.angle == 0 && l.sharpness == 0.7)
        let c = CIFilter.circularScreen(); c.inputImage = source
        #expect(c.outputImage != nil && c.center == CGPoint(x: 150, y: 150) && c.width == 6)
        let h = CIFilter.hatchedScreen(); h.inputImage = source
        #expect(h.outputImage != nil)
        let k = CIFilter.cmykHalftone()
        k.inputImage = source; k.grayComponentReplacement = 0.25; k.underColorRemoval = 0.75
        #expect(k.value(forKey: "inputGCR") as? Float == 0.25 || (k.value(forKey: "inputGCR") as? Double) == 0.25 || k.grayComponentReplacement == 0.25)
        let byName2 = source.applyingFilter("CICMYKHalftone", parameters: ["inputGCR": 0.25, "inputUCR": 0.75])
        #expect(try renderFloat(try #require(k.outputImage), rect) == (try renderFloat(byName2, rect)))
        #expect(CIFilter(name: "CIDotScreen") is CIFilter & CIDotScreen)
        #expect(CIFilter.filterNames(inCategory: kCICategoryHalftoneEffect).count >= 5)
    }
}

@Suite struct TransitionTests {
    static let all = [
        "CIDissolveTransition", "CISwipeTransition", "CIBarsSwipeTransition", "CICopyMachineTransition",
        "CIModTransition", "CIFlashTransition",
    ]

    func transition(_ name: String, _ time: Double, _ params: [String: Any] = [:], from: CIImage = source, to: CIImage = target) -> CIImage {
        var p = params
        p[kCIInputTargetImageKey] = to
        p[kCIInputTimeKey] = time
        return from.applyingFilter(name, parameters: p)
    }
    /// Renders `out` premultiplied over `rect` and checks each pixel against `formula(x, y,
    /// input, target)` (premultiplied), skipping pixels for which `skip` says the reference
    /// sits on a hard edge.
    func check(
        _ out: CIImage, tol: Double = 2e-5, skip: (Int, Int) -> Bool = { _, _ in false },
        _ formula: (Int, Int, [Double], [Double]) -> [Double]
    ) throws {
        let got = try renderFloat(out, rect, context: premultipliedContext())
        for y in 0..<H {
            for x in 0..<W where !skip(x, y) {
                let e = formula(x, y, premultipliedAt(sourcePixels, x, y), premultipliedAt(targetPixels, x, y))
                #expect(close(at(got, x, y), e, tol: tol, "at \(x),\(y)"))
            }
        }
    }
    func mix(_ a: [Double], _ b: [Double], _ t: Double) -> [Double] { (0..<4).map { a[$0] * (1 - t) + b[$0] * t } }
    func linearColor(_ r: Double, _ g: Double, _ b: Double) -> CIColor { CIColor(red: r, green: g, blue: b, alpha: 1, colorSpace: linearSpace)! }

    @Test(arguments: all) func endpointsAreTheImagesAndTilesMatch(_ name: String) throws {
        let whole = premultipliedContext()
        let input = try renderFloat(source, rect, context: whole), goal = try renderFloat(target, rect, context: whole)
        #expect(try renderFloat(transition(name, 0), rect, context: whole) == input, "\(name) at 0")
        #expect(try renderFloat(transition(name, 1), rect, context: whole) == goal, "\(name) at 1")
        // Times outside 0...1 clamp to the ends.
        #expect(try renderFloat(transition(name, -3), rect, context: whole) == input, "\(name) at -3")
        #expect(try renderFloat(transition(name, 7), rect, context: whole) == goal, "\(name) at 7")
        #expect(transition(name, 0.5).extent == rect)
        for t in [0.3, 0.55] {
            try expectTilesEqualWhole(
                transition(name, t, [kCIInputCenterKey: CIVector(x: 10, y: 8)].filter { _ in name == "CIModTransition" || name == "CIFlashTransition" }), "\(name) \(t)")
        }
        // NaN time is an error, not a crash.
        let f = try #require(CIFilter(name: name))
        f.setValue(source, forKey: kCIInputImageKey); f.setValue(target, forKey: kCIInputTargetImageKey)
        f.setValue(Double.nan, forKey: kCIInputTimeKey)
        #expect(throws: CIFilterError.nonFinite(filter: name, key: kCIInputTimeKey)) { try f.makeOutputImage() }
    }

    @Test func dissolveMixesPremultipliedColour() throws {
        for t in [0.25, 0.6] {
            try check(transition("CIDissolveTransition", t)) { _, _, a, b in mix(a, b, t) }
        }
        // The extent is the union of both images; outside an image it is clear.
        let moved = target.transformed(by: CGAffineTransform(translationX: 5, y: 3))
        let out = transition("CIDissolveTransition", 0.5, to: moved)
        #expect(out.extent == rect.union(moved.extent))
        let corner = try renderFloat(out, CGRect(x: W + 2, y: H + 1, width: 1, height: 1), context: premultipliedContext())[0]
        let b = premultipliedAt(targetPixels, W - 3, H - 2)
        #expect(close(corner, b.map { $0 * 0.5 }, tol: 2e-5))
    }

    func sweepFrame(rect e: CGRect, angle: Double) -> (nx: Double, ny: Double, p0: Double, p1: Double) {
        let nx = cos(angle), ny = sin(angle)
        let ps = [(e.minX, e.minY), (e.maxX, e.minY), (e.minX, e.maxY), (e.maxX, e.maxY)].map { Double($0.0) * nx + Double($0.1) * ny }
        return (nx, ny, ps.min()!, ps.max()!)
    }

    @Test func swipeFollowsTheBandFormula() throws {
        let e = CGRect(x: 1, y: -2, width: 18, height: 20), angle = 0.5, width = 6.0, opacity = 0.8, time = 0.45
        let col = [0.2, 0.6, 0.9]
        let out = transition(
            "CISwipeTransition", time,
            [
                kCIInputExtentKey: CIVector(cgRect: e), kCIInputAngleKey: angle, kCIInputWidthKey: width,
                "inputOpacity": opacity, kCIInputColorKey: linearColor(col[0], col[1], col[2]),
            ])
        let f = sweepFrame(rect: e, angle: angle)
        let edge = f.p0 + time * (f.p1 - f.p0 + width)
        var inBand = 0
        try check(out, tol: 5e-5) { x, y, a, b in
            let p = (Double(x) + 0.5) * f.nx + (Double(y) + 0.5) * f.ny
            let u = (p - edge + width) / width
            if u >= 1 { return a }
            if u <= 0 { return b }
            inBand += 1
            let m = mix(b, a, u)
            let k = min(1, opacity * 4 * u * (1 - u))
            return [m[0] * (1 - k) + col[0] * m[3] * k, m[1] * (1 - k) + col[1] * m[3] * k, m[2] * (1 - k) + col[2] * m[3] * k, m[3]]
        }
        #expect(inBand > 20)
    }

    @Test func copyMachineLightsTheBar() throws {
        let e = CGRect(x: 0, y: 0, width: 21, height: 17), angle = 2.0, width = 7.0, opacity = 1.3, time = 0.5
        let col = [0.6, 1.0, 0.8]
        let out = transition(
            "CICopyMachineTransition", time,
            [
                kCIInputExtentKey: CIVector(cgRect: e), kCIInputAngleKey: angle, kCIInputWidthKey: width,
                "inputOpacity": opacity, kCIInputColorKey: linearColor(col[0], col[1], col[2]),
            ])
        let f = sweepFrame(rect: e, angle: angle)
        let edge = f.p0 + time * (f.p1 - f.p0 + width)
        var lit = 0
        try check(out, tol: 5e-5) { x, y, a, b in
            let p = (Double(x) + 0.5) * f.nx + (Double(y) + 0.5) * f.ny
            let u = (p - edge + width) / width
            if u >= 1 { return a }
            if u <= 0 { return b }
            lit += 1
            let k = min(1, opacity * sin(.pi * u))
            return mix(b, col + [1], k)
        }
        #expect(lit > 20)
    }

    @Test func barsSwipeStaggersAlternateBars() throws {
        let angle = 2.6, width = 4.0, offset = 5.0, time = 0.5
        let out = transition("CIBarsSwipeTransition", time, [kCIInputAngleKey: angle, kCIInputWidthKey: width, "inputBarOffset": offset])
        let f = sweepFrame(rect: rect, angle: angle)
        let lead = f.p0 + time * (f.p1 - f.p0 + offset)
        func edge(_ x: Int, _ y: Int) -> (p: Double, edge: Double, q: Double) {
            let fx = Double(x) + 0.5, fy = Double(y) + 0.5
            let q = fy * f.nx - fx * f.ny
            let bar = Int(floor(q / width))
            let odd = ((bar % 2) + 2) % 2 == 1
            return (fx * f.nx + fy * f.ny, odd ? lead - offset : lead, q / width)
        }
        var both = (0, 0)
        try check(
            out, tol: 1e-6,
            skip: { x, y in
                let r = edge(x, y); return abs(r.p - r.edge) < 1e-3 || abs(r.q - r.q.rounded()) < 1e-4
            }
        ) { x, y, a, b in
            let r = edge(x, y)
            if r.p < r.edge { both.1 += 1; return b }
            both.0 += 1
            return a
        }
        #expect(both.0 > 10 && both.1 > 10)
    }

    @Test func modRevealsThroughTheSawProduct() throws {
        let center = (10.0, 8.0), angle = 2.0, radius = 7.0, compression = 5.0, time = 0.3
        let out = transition(
            "CIModTransition", time,
            [
                kCIInputCenterKey: CIVector(x: 10, y: 8), kCIInputAngleKey: angle,
                kCIInputRadiusKey: radius, "inputCompression": compression,
            ])
        func field(_ x: Int, _ y: Int) -> (m: Double, fu: Double, fv: Double) {
            let dx = Double(x) + 0.5 - center.0, dy = Double(y) + 0.5 - center.1
            let fu = fract((dx * cos(angle) + dy * sin(angle)) / radius), fv = fract((dy * cos(angle) - dx * sin(angle)) / compression)
            return (fu * fv, fu, fv)
        }
        var holes = 0
        try check(
            out, tol: 1e-6,
            skip: { x, y in
                let f = field(x, y)
                return abs(f.m - time) < 1e-4 || min(f.fu, 1 - f.fu) < 1e-4 || min(f.fv, 1 - f.fv) < 1e-4
            }
        ) { x, y, a, b in
            if field(x, y).m < time { holes += 1; return b }
            return a
        }
        #expect(holes > 10 && holes < W * H - 10)
    }

    @Test func flashRisesAndFades() throws {
        let center = (10.0, 8.0), e = CGRect(x: 0, y: 0, width: 21, height: 17)
        let col = [1.0, 0.8, 0.6]
        let maxR = 0.6, strength = 0.5, contrast = 1.375, threshold = 0.85
        for time in [0.2, 0.45, 0.7] {
            let out = transition(
                "CIFlashTransition", time,
                [
                    kCIInputCenterKey: CIVector(x: 10, y: 8), kCIInputExtentKey: CIVector(cgRect: e),
                    kCIInputColorKey: linearColor(col[0], col[1], col[2]), "inputMaxStriationRadius": maxR,
                    "inputStriationStrength": strength, "inputStriationContrast": contrast,
                    "inputFadeThreshold": threshold,
                ])
            let f = 1 - abs(2 * time - 1)
            let reach = maxR * hypot(21.0, 17.0) / 2
            try check(out, tol: 1e-4) { x, y, a, b in
                let dx = Double(x) + 0.5 - center.0, dy = Double(y) + 0.5 - center.1
                let th = atan2(dy, dx)
                let g = max(0, 0.5 + 0.25 * cos(13 * th) + 0.25 * cos(29 * th + 1))
                let s = strength * pow(g, contrast) * max(0, 1 - hypot(dx, dy) / reach)
                let k = min(1, f * (1 + s) / threshold)
                return mix(time >= 0.5 ? b : a, col + [1], k)
            }
        }
        // At the midpoint the flash covers everything.
        let mid = try renderFloat(transition("CIFlashTransition", 0.5, [kCIInputColorKey: linearColor(col[0], col[1], col[2])]), rect, context: premultipliedContext())
        #expect(mid.allSatisfy { close($0, col + [1], tol: 1e-6) })
    }

    /// A grey mask with an irregular ramp.
    static let maskPixels: [UInt8] = {
        var p = [UInt8](repeating: 255, count: W * H * 4)
        for y in 0..<H { for x in 0..<W { let g = UInt8((x * 23 + y * 11) % 256); let i = (y * W + x) * 4; p[i] = g; p[i + 1] = g; p[i + 2] = g } }
        return p
    }()

    @Test func disintegrateFollowsTheMaskAndCastsAShadow() throws {
        let mask = image(Self.maskPixels, W, H)
        let name = "CIDisintegrateWithMaskTransition"
        func luminance(_ x: Int, _ y: Int) -> Double {
            guard x >= 0, x < W, y >= 0, y < H else { return 0 }
            let p = straightAt(Self.maskPixels, x, y)
            return 0.2125 * p[0] + 0.7154 * p[1] + 0.0721 * p[2]
        }
        // No blur: the shadow is the coverage moved by the (integer) offset.
        let time = 0.4, density = 0.65
        let out = transition(
            name, time,
            [
                kCIInputMaskImageKey: mask, "inputShadowRadius": 0, "inputShadowDensity": density,
                "inputShadowOffset": CIVector(x: 2, y: -3),
            ])
        var kept = 0, shaded = 0
        try check(out, tol: 2e-5, skip: { x, y in abs(luminance(x, y) - time) < 1e-4 || abs(luminance(x - 2, y + 3) - time) < 1e-4 }) { x, y, a, b in
            if luminance(x, y) >= time { kept += 1; return a }
            let s = luminance(x - 2, y + 3) >= time ? 1.0 : 0.0
            if s > 0 { shaded += 1 }
            return b.map { $0 * (1 - density * s) }
        }
        #expect(kept > 10 && shaded > 10 && kept < W * H - 10)

        // With a blurred shadow: the ends are the images, the shadow only darkens, tiles match.
        let whole = premultipliedContext()
        let input = try renderFloat(source, rect, context: whole), goal = try renderFloat(target, rect, context: whole)
        #expect(try renderFloat(transition(name, 0, [kCIInputMaskImageKey: mask]), rect, context: whole) == input)
        #expect(try renderFloat(transition(name, 1, [kCIInputMaskImageKey: mask]), rect, context: whole) == goal)
        #expect(try renderFloat(transition(name, 2, [kCIInputMaskImageKey: mask]), rect, context: whole) == goal)
        let soft = transition(name, 0.5, [kCIInputMaskImageKey: mask, "inputShadowRadius": 3])
        #expect(soft.extent == rect)
        let v = try renderFloat(soft, rect, context: whole)
        for y in 0..<H {
            for x in 0..<W where luminance(x, y) < 0.5 - 1e-4 {
                let b = premultipliedAt(targetPixels, x, y)
                #expect(Double(at(v, x, y).w) <= b[3] + 1e-5)
            }
        }
        try expectTilesEqualWhole(soft, name)
        // Bad parameters: NaN time throws, a missing mask gives no image.
        let f = CIFilter.disintegrateWithMaskTransition()
        f.inputImage = source; f.targetImage = target
        #expect(f.outputImage == nil)
        f.maskImage = mask; f.shadowRadius = 2; f.shadowDensity = 5; f.shadowOffset = CGPoint(x: 1, y: 1); f.time = 0.3
        #expect(f.outputImage != nil)
        f.setValue(Double.nan, forKey: kCIInputTimeKey)
        #expect(throws: CIFilterError.nonFinite(filter: name, key: kCIInputTimeKey)) { try f.makeOutputImage() }
    }

    @Test func typedAPI() throws {
        let d = CIFilter.dissolveTransition()
        d.inputImage = source; d.targetImage = target; d.time = 0.4
        #expect(try renderFloat(try #require(d.outputImage), rect) == (try renderFloat(transition("CIDissolveTransition", 0.4), rect)))
        let s = CIFilter.swipeTransition()
        s.inputImage = source; s.targetImage = target; s.time = 0.5; s.extent = rect; s.width = 4; s.opacity = 0.5; s.color = .white; s.angle = 1
        let sByName = transition("CISwipeTransition", 0.5, [kCIInputExtentKey: CIVector(cgRect: rect), kCIInputWidthKey: 4, "inputOpacity": 0.5, kCIInputAngleKey: 1])
        #expect(try renderFloat(try #require(s.outputImage), rect) == (try renderFloat(sByName, rect)))
        let b = CIFilter.barsSwipeTransition(); b.inputImage = source; b.targetImage = target; b.time = 0.5; b.barOffset = 3
        #expect(b.outputImage != nil && b.width == 30)
        let c = CIFilter.copyMachineTransition(); c.inputImage = source; c.targetImage = target; c.time = 0.5
        #expect(c.outputImage != nil && c.opacity == 1.3)
        let m = CIFilter.modTransition(); m.inputImage = source; m.targetImage = target; m.time = 0.5; m.compression = 100
        #expect(m.outputImage != nil && m.radius == 150)
        let f = CIFilter.flashTransition(); f.inputImage = source; f.targetImage = target; f.time = 0.5
        #expect(f.outputImage != nil && f.fadeThreshold == 0.85 && f.maxStriationRadius == 2.58)
        #expect(CIFilter(name: "CIDissolveTransition") is CIFilter & CIDissolveTransition)
        // A missing target is an error.
        let missing = CIFilter.dissolveTransition(); missing.inputImage = source
        #expect(missing.outputImage == nil)
        #expect(Set(CIFilter.filterNames(inCategory: kCICategoryTransition)).isSuperset(of: Self.all))
    }
}
