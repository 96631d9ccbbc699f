import Foundation
import Testing
@testable import Cyanotype

// CICannyEdgeDetector, CIGaborGradients, CIGuidedFilter and CIEdgePreserveUpsampleFilter
// against straightforward implementations written here in Double from the published
// algorithms (Canny 1986; He, Sun and Tang's Algorithm 1; Kopf et al.'s joint bilateral
// upsampling), not from the code under test.

/// A scalar image in Double, y up, with reads clamped to its edges or clear outside.
private struct Plane {
    let w: Int, h: Int
    var v: [Double]
    init(_ w: Int, _ h: Int, _ f: (Int, Int) -> Double) {
        self.w = w; self.h = h
        v = (0..<(w * h)).map { f($0 % w, $0 / w) }
    }
    func clamped(_ x: Int, _ y: Int) -> Double { v[min(max(y, 0), h - 1) * w + min(max(x, 0), w - 1)] }
    subscript(_ x: Int, _ y: Int) -> Double { v[y * w + x] }
}

@Suite struct EdgeAndGuidedFilterTests {
    // MARK: Canny

    /// Canny's steps written out: Gaussian (taps to ceil(3 sigma), normalised, edges
    /// clamped), Sobel / 8, non-maximum suppression across the gradient (rounded to 45°),
    /// double threshold, `passes` rounds of growing edges into 8-connected candidates.
    private func cannyReference(_ luma: Plane, sigma: Double, low: Double, high: Double, passes: Int) -> [Bool] {
        let w = luma.w, h = luma.h
        var blurred = luma
        if sigma > 0 {
            let r = max(1, Int((3 * sigma).rounded(.up)))
            let k = (-r...r).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
            let sum = k.reduce(0, +)
            // Separable, on the image clamped to its edges (as the blur of a clamped image).
            let across = Plane(w, h) { x, y in (-r...r).reduce(0.0) { $0 + k[$1 + r] * luma.clamped(x + $1, y) } / sum }
            blurred = Plane(w, h) { x, y in (-r...r).reduce(0.0) { $0 + k[$1 + r] * across.clamped(x, y + $1) } / sum }
        }
        let g = blurred
        func gradient(_ x: Int, _ y: Int) -> (Double, Double) {
            let gx =
                (g.clamped(x + 1, y + 1) + 2 * g.clamped(x + 1, y) + g.clamped(x + 1, y - 1)
                    - g.clamped(x - 1, y + 1) - 2 * g.clamped(x - 1, y) - g.clamped(x - 1, y - 1)) / 8
            let gy =
                (g.clamped(x - 1, y + 1) + 2 * g.clamped(x, y + 1) + g.clamped(x + 1, y + 1)
                    - g.clamped(x - 1, y - 1) - 2 * g.clamped(x, y - 1) - g.clamped(x + 1, y - 1)) / 8
            return (gx, gy)
        }
        func magnitude(_ x: Int, _ y: Int) -> Double { let (a, b) = gradient(x, y); return (a * a + b * b).squareRoot() }
        var cls = [Int](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let (gx, gy) = gradient(x, y), m = (gx * gx + gy * gy).squareRoot()
                guard m >= low else { continue }
                // The gradient's direction to the nearest 45 degrees, as a step (sx, sy).
                let angle = atan2(gy, gx), k = Int((angle / (Double.pi / 4)).rounded())
                let steps = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]
                let (sx, sy) = steps[(k % 8 + 8) % 8]
                if m > magnitude(x - sx, y - sy) && m >= magnitude(x + sx, y + sy) { cls[y * w + x] = m >= high ? 2 : 1 }
            }
        }
        for _ in 0..<passes {
            var next = cls
            for y in 0..<h {
                for x in 0..<w where cls[y * w + x] == 1 {
                    var touches = false
                    for dy in -1...1 {
                        for dx in -1...1 {
                            let nx = x + dx, ny = y + dy
                            if nx >= 0, nx < w, ny >= 0, ny < h, cls[ny * w + nx] == 2 { touches = true }
                        }
                    }
                    if touches { next[y * w + x] = 2 }
                }
            }
            cls = next
        }
        return cls.map { $0 == 2 }
    }

    /// Shapes: a disc and a tilted rectangle of different greys on a grey ground, a faint
    /// stripe, and a little noise.
    private func shapes(_ w: Int, _ h: Int) -> Plane {
        var rng = SplitMix(11)
        return Plane(w, h) { x, y in
            let fx = Double(x) + 0.5, fy = Double(y) + 0.5
            var v = 0.3
            if (fx - 22) * (fx - 22) + (fy - 40) * (fy - 40) < 15 * 15 { v = 0.8 }
            let u = (fx - 52) * cos(0.4) + (fy - 22) * sin(0.4), t = -(fx - 52) * sin(0.4) + (fy - 22) * cos(0.4)
            if abs(u) < 12 && abs(t) < 7 { v = 0.05 }
            if fx > 6 && fx < 70 && abs(fy - 60) < 1.5 { v += 0.06 }
            return v + Double(rng.unit() - 0.5) * 0.01
        }
    }

    private func render(_ plane: Plane) -> CIImage {
        linearImage(plane.w, plane.h) { x, y in
            let v = Float(plane[x, y]); return SIMD4(v, v, v, 1)
        }
    }

    @Test func cannyAgreesWithTheReferenceOnShapes() throws {
        let plane = shapes(80, 72)
        let img = render(plane)
        for (sigma, low, high, passes) in [(1.6, 0.02, 0.05, 1), (1.0, 0.01, 0.04, 3), (0.0, 0.03, 0.08, 0), (2.5, 0.005, 0.02, 5)] {
            let out = img.applyingFilter(
                "CICannyEdgeDetector",
                parameters: [
                    "inputGaussianSigma": sigma, "inputThresholdLow": low,
                    "inputThresholdHigh": high, "inputHysteresisPasses": passes,
                ])
            #expect(out.extent == img.extent)
            let r = try Rendered(out, img.extent)
            // The luma the filter sees is the rendered linear value (Float).
            let luma = Plane(plane.w, plane.h) { x, y in
                let v = Float(plane[x, y]); return Double(v * 0.2125 + v * 0.7154 + v * 0.0721)
            }
            let want = cannyReference(luma, sigma: sigma, low: low, high: high, passes: passes)
            var agree = 0, edges = 0
            for (x, y, p) in r.all {
                let got = p.x > 0.5
                #expect(p == SIMD4(1, 1, 1, 1) || p == SIMD4(0, 0, 0, 1), "black or white only")
                if got == want[y * plane.w + x] { agree += 1 }
                if got { edges += 1 }
            }
            let share = Double(agree) / Double(plane.w * plane.h)
            #expect(share >= 0.95, "sigma \(sigma): the edge maps agree on \(share * 100)% of pixels")
            #expect(edges > 100, "sigma \(sigma): \(edges) edge pixels")
            try expectTiledEqualsWholeFloatAnd8Bit(out, img.extent, "CICannyEdgeDetector \(sigma)")
        }
    }

    @Test func cannyEdgesAreOnePixelWide() throws {
        // Steps across x and across y (and a diagonal one): one edge pixel per row or column.
        let w = 40, h = 30
        for (name, f) in [("vertical", { (x: Int, _: Int) in x < 17 ? 0.2 : 0.7 }), ("horizontal", { (_: Int, y: Int) in y < 12 ? 0.9 : 0.1 })] as [(String, (Int, Int) -> Double)]
        {
            let img = render(Plane(w, h, f))
            let r = try Rendered(img.applyingFilter("CICannyEdgeDetector"), img.extent)
            if name == "vertical" {
                for y in 3..<(h - 3) { #expect((0..<w).filter { r[$0, y].x > 0.5 }.count == 1, "\(name) row \(y)") }
            } else {
                for x in 3..<(w - 3) { #expect((0..<h).filter { r[x, $0].x > 0.5 }.count == 1, "\(name) column \(x)") }
            }
        }
        // A disc: no 2x2 block is all edge.
        let disc = render(Plane(w, h) { x, y in hypot(Double(x) - 20, Double(y) - 15) < 10 ? 0.8 : 0.2 })
        let r = try Rendered(disc.applyingFilter("CICannyEdgeDetector"), disc.extent)
        for y in 0..<(h - 1) {
            for x in 0..<(w - 1) {
                #expect(!(r[x, y].x > 0.5 && r[x + 1, y].x > 0.5 && r[x, y + 1].x > 0.5 && r[x + 1, y + 1].x > 0.5), "(\(x), \(y))")
            }
        }
        #expect(r.all.filter { $0.p.x > 0.5 }.count > 40)
    }

    @Test func cannyPerceptualThresholdsFollowLightness() throws {
        // A dark step: faint in linear light (0.06), clear in sRGB-encoded luma (0.26).
        let img = render(Plane(30, 20) { x, _ in x < 15 ? 0.0005 : 0.06 })
        func edges(_ perceptual: Bool) throws -> Int {
            try Rendered(img.applyingFilter("CICannyEdgeDetector", parameters: ["inputPerceptual": perceptual]), img.extent).all.filter { $0.p.x > 0.5 }.count
        }
        #expect(try edges(false) == 0)
        #expect(try edges(true) == 20)
    }

    // MARK: Gabor gradients

    @Test func gaborGradientsAreTheOddGaborKernel() throws {
        let w = 23, h = 17
        var rng = SplitMix(5)
        var values = [[SIMD4<Float>]](repeating: [], count: h)
        for y in 0..<h { values[y] = (0..<w).map { _ in SIMD4(rng.unit(), rng.unit(), rng.unit(), 1) } }
        let img = linearImage(w, h) { x, y in values[y][x] }
        func at(_ x: Int, _ y: Int) -> SIMD4<Double> {
            let p = values[min(max(y, 0), h - 1)][min(max(x, 0), w - 1)]
            return SIMD4(Double(p.x), Double(p.y), Double(p.z), Double(p.w))
        }
        // The kernel from its formula: sin(pi x / 4) under a Gaussian of sigma 1.5, scaled so a
        // unit ramp gives 1.
        func g(_ x: Int, _ y: Int) -> Double { exp(-Double(x * x + y * y) / 4.5) * sin(Double.pi * Double(x) / 4) }
        var norm = 0.0
        for y in -2...2 { for x in -2...2 { norm += Double(x) * g(x, y) } }
        func largest(_ v: SIMD4<Double>) -> Double { [v.x, v.y, v.z].reduce(v.x) { abs($1) > abs($0) ? $1 : $0 } }
        let r = try Rendered(img.applyingFilter("CIGaborGradients"), img.extent)
        for (x, y, p) in r.all {
            var gx = SIMD4<Double>.zero, gy = SIMD4<Double>.zero
            for dy in -2...2 {
                for dx in -2...2 {
                    gx += at(x + dx, y + dy) * (g(dx, dy) / norm)
                    gy += at(x + dx, y + dy) * (g(dy, dx) / norm)
                }
            }
            #expect(abs(Double(p.x) - largest(gx)) < 1e-5 && abs(Double(p.y) - largest(gy)) < 1e-5 && p.z == 0 && p.w == 1, "(\(x), \(y))")
        }
        // A ramp: its slopes, in red (horizontal) and green (vertical), away from the clamped border.
        let ramp = linearImage(w, h) { x, y in SIMD4(0.01 * Float(x), 0.003 * Float(x) + 0.02 * Float(y), 0, 1) }
        let rr = try Rendered(ramp.applyingFilter("CIGaborGradients"), ramp.extent)
        for y in 2..<(h - 2) {
            for x in 2..<(w - 2) {
                #expect(abs(rr[x, y].x - 0.01) < 1e-5 && abs(rr[x, y].y - 0.02) < 1e-5, "(\(x), \(y))")
            }
        }
    }

    // MARK: Guided filter

    /// He, Sun and Tang's Algorithm 1 with a grey guide, box means over windows clipped to
    /// the image, for one channel.
    private func guidedReference(_ I: Plane, _ p: Plane, r: Int, eps: Double) -> Plane {
        let w = I.w, h = I.h
        func mean(_ f: (Int, Int) -> Double, _ x: Int, _ y: Int) -> Double {
            var s = 0.0, n = 0
            for yy in max(0, y - r)...min(h - 1, y + r) { for xx in max(0, x - r)...min(w - 1, x + r) { s += f(xx, yy); n += 1 } }
            return s / Double(n)
        }
        let a = Plane(w, h) { x, y in
            let mI = mean({ I[$0, $1] }, x, y), mp = mean({ p[$0, $1] }, x, y)
            let cov = mean({ I[$0, $1] * p[$0, $1] }, x, y) - mI * mp
            let variance = mean({ I[$0, $1] * I[$0, $1] }, x, y) - mI * mI
            return cov / (variance + eps)
        }
        let b = Plane(w, h) { x, y in mean({ p[$0, $1] }, x, y) - a[x, y] * mean({ I[$0, $1] }, x, y) }
        return Plane(w, h) { x, y in mean({ a[$0, $1] }, x, y) * I[x, y] + mean({ b[$0, $1] }, x, y) }
    }

    @Test func guidedFilterFollowsThePapersFormulas() throws {
        let w = 29, h = 23
        var rng = SplitMix(3)
        // A guide with a hard edge and texture; an input with noise and alpha.
        let guidePixels = (0..<(w * h)).map { i -> SIMD4<Float> in
            let x = i % w, y = i / w
            let base: Float = x + y / 2 < 16 ? 0.15 : 0.75
            return SIMD4(base + 0.05 * rng.unit(), base, base - 0.1 * rng.unit(), 1)
        }
        let inputPixels = (0..<(w * h)).map { i -> SIMD4<Float> in
            let a = 0.5 + 0.5 * rng.unit()
            return SIMD4(rng.unit() * a, Float(i % w) / Float(w) * a, 0.4 * a, a)
        }
        let guide = linearImage(w, h) { x, y in guidePixels[y * w + x] }
        let input = linearImage(w, h) { x, y in inputPixels[y * w + x] }
        let I = Plane(w, h) { x, y in
            let c = guidePixels[y * w + x]; return Double(c.x * 0.2125 + c.y * 0.7154 + c.z * 0.0721)
        }
        for (r, eps) in [(1, 1e-4), (3, 0.01), (12, 0.001)] {
            let out = input.applyingFilter("CIGuidedFilter", parameters: ["inputGuideImage": guide, kCIInputRadiusKey: r, "inputEpsilon": eps])
            #expect(out.extent == guide.extent)
            let got = try Rendered(out, guide.extent)
            var worst = 0.0
            for k in 0..<4 {
                let p = Plane(w, h) { x, y in Double(inputPixels[y * w + x][k]) }
                let q = guidedReference(I, p, r: r, eps: eps)
                for y in 0..<h { for x in 0..<w { worst = max(worst, abs(Double(got[x, y][k]) - q[x, y])) } }
            }
            #expect(worst <= 1e-4, "radius \(r) epsilon \(eps): max |diff| \(worst)")
            try expectTiledEqualsWholeFloatAnd8Bit(out, guide.extent, "CIGuidedFilter \(r)")
        }
        // A small input is stretched over the guide's extent first.
        let small = linearImage(10, 8) { x, y in SIMD4(Float(x) / 10, Float(y) / 8, 0.5, 1) }
        let up = small.applyingFilter("CIGuidedFilter", parameters: ["inputGuideImage": guide])
        #expect(up.extent == guide.extent)
        #expect(try premultipliedRender(up, guide.extent).allSatisfy { $0.w.isFinite && abs($0.w - 1) < 1e-3 })
    }

    // MARK: Edge-preserving upsampling

    @Test func edgePreserveUpsampleIsJointBilateralUpsampling() throws {
        let gw = 32, gh = 24, sw = 8, sh = 6
        var rng = SplitMix(9)
        let guidePixels = (0..<(gw * gh)).map { i -> SIMD4<Float> in
            let x = i % gw, y = i / gw
            let v: Float = x * 2 + y < 40 ? 0.1 : 0.85
            return SIMD4(v, v + 0.02 * rng.unit(), v, 1)
        }
        let smallPixels = (0..<(sw * sh)).map { _ in SIMD4(rng.unit(), rng.unit(), rng.unit(), 1) }
        let guide = linearImage(gw, gh) { x, y in guidePixels[y * gw + x] }
        let small = linearImage(sw, sh) { x, y in smallPixels[y * sw + x] }
        func luma(_ c: SIMD4<Float>) -> Double { Double(c.x * 0.2125 + c.y * 0.7154 + c.z * 0.0721) }
        // The guide's luma, bilinear between pixel centres, clear outside.
        func guideLuma(_ u: Double, _ v: Double) -> Double {
            let fx = (u - 0.5).rounded(.down), fy = (v - 0.5).rounded(.down), tx = u - 0.5 - fx, ty = v - 0.5 - fy
            func at(_ x: Int, _ y: Int) -> Double { x >= 0 && x < gw && y >= 0 && y < gh ? luma(guidePixels[y * gw + x]) : 0 }
            let x0 = Int(fx), y0 = Int(fy)
            return (at(x0, y0) * (1 - tx) + at(x0 + 1, y0) * tx) * (1 - ty) + (at(x0, y0 + 1) * (1 - tx) + at(x0 + 1, y0 + 1) * tx) * ty
        }
        for (spatial, range) in [(3.0, 0.15), (1.0, 0.05), (0.0, 0.15)] {
            let out = guide.applyingFilter("CIEdgePreserveUpsampleFilter", parameters: ["inputSmallImage": small, "inputSpatialSigma": spatial, "inputLumaSigma": range])
            #expect(out.extent == guide.extent)
            let got = try Rendered(out, guide.extent)
            let s = Double(sw) / Double(gw)
            let W = spatial > 0 ? max(2 * spatial, 1) : 0.5
            var worst = 0.0
            for (x, y, p) in got.all {
                let px = (Double(x) + 0.5) * s, py = (Double(y) + 0.5) * s
                let yp = luma(guidePixels[y * gw + x])
                var sum = SIMD4<Double>.zero, total = 0.0
                for j in 0..<sh {
                    for i in 0..<sw {
                        let dx = Double(i) + 0.5 - px, dy = Double(j) + 0.5 - py
                        guard abs(dx) <= W, abs(dy) <= W else { continue }
                        let f = spatial > 0 ? exp(-(dx * dx + dy * dy) / (2 * spatial * spatial)) : 1
                        let dq = yp - guideLuma((Double(i) + 0.5) / s, (Double(j) + 0.5) / s)
                        let g = exp(-dq * dq / (2 * range * range))
                        let c = smallPixels[j * sw + i]
                        sum += SIMD4(Double(c.x), Double(c.y), Double(c.z), Double(c.w)) * (f * g)
                        total += f * g
                    }
                }
                let want = sum / total
                for k in 0..<4 { worst = max(worst, abs(Double(p[k]) - want[k])) }
            }
            #expect(worst < 1e-4, "spatial \(spatial) luma \(range): max |diff| \(worst)")
            try expectTiledEqualsWholeFloatAnd8Bit(out, guide.extent, "CIEdgePreserveUpsampleFilter")
        }
    }
}
