import Foundation
import Testing
@testable import Cyanotype

// The blurs of the catalogue's last issue against references written here: impulses that must
// spread into the stated shape and keep their total, direct sums over discs, the 3x3
// selective mean, and the shared checks every new filter passes (tiled equals whole, a 1%
// crop reads about 1% of the source, bad parameters are typed errors or limits).

/// Premultiplied linear float renders (rows top-down), whole or in square tiles of `tile`.
func premultipliedRender(_ img: CIImage, _ rect: CGRect, tile: Int? = nil) throws -> [SIMD4<Float>] {
    var opts: [CIContextOption: Any] = [.outputColorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!, .cacheIntermediates: false]
    if let tile { opts[.tileSize] = tile }
    let d = try CIContext(options: opts).renderToData(img, from: rect, format: .RGBAf, premultiplied: true).data
    return d.withUnsafeBytes { Array($0.bindMemory(to: SIMD4<Float>.self)) }
}

/// A float image in the linear working space from premultiplied pixels given bottom row
/// first (`at(x, y)` with y up), `width` x `height`, at the origin.
func linearImage(_ width: Int, _ height: Int, _ at: (Int, Int) -> SIMD4<Float>) -> CIImage {
    var px = [SIMD4<Float>](repeating: .zero, count: width * height)
    for y in 0..<height { for x in 0..<width { px[(height - 1 - y) * width + x] = at(x, y) } }
    return CIImage(
        bitmapData: px.withUnsafeBytes { Data($0) }, bytesPerRow: width * 16, size: CGSize(width: width, height: height),
        format: .RGBAf, colorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB))
}

/// Rendered premultiplied pixels of `rect` addressed by absolute (x, y), y up.
struct Rendered {
    let pixels: [SIMD4<Float>]
    let rect: CGRect
    init(_ img: CIImage, _ rect: CGRect, tile: Int? = nil) throws {
        pixels = try premultipliedRender(img, rect, tile: tile)
        self.rect = rect
    }
    subscript(_ x: Int, _ y: Int) -> SIMD4<Float> {
        let w = Int(rect.width), top = Int(rect.maxY) - 1
        return pixels[(top - y) * w + (x - Int(rect.minX))]
    }
    /// Every pixel with its coordinates.
    var all: [(x: Int, y: Int, p: SIMD4<Float>)] {
        let w = Int(rect.width), top = Int(rect.maxY) - 1
        return pixels.enumerated().map { (Int(rect.minX) + $0.offset % w, top - $0.offset / w, $0.element) }
    }
}

/// The largest component difference.
func maxDiff(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> Float {
    let d = a - b
    return max(max(abs(d.x), abs(d.y)), max(abs(d.z), abs(d.w)))
}

/// Tiled renders equal the whole render, bit for bit in float and in 8-bit.
func expectTiledEqualsWholeFloatAnd8Bit(_ img: CIImage, _ rect: CGRect, _ what: String) throws {
    let whole = try premultipliedRender(img, rect, tile: 4096)
    for t in [3, 5, 7, 64] {
        let tiled = try premultipliedRender(img, rect, tile: t)
        let same = tiled.elementsEqual(whole) { a, b in (0..<4).allSatisfy { a[$0].bitPattern == b[$0].bitPattern } }
        #expect(same, "\(what): tile \(t) differs from the whole render")
    }
    let whole8 = try render8(img, rect, context: CIContext(options: [.tileSize: 4096, .outputPremultiplied: false]))
    #expect(try render8(img, rect, context: CIContext(options: [.tileSize: 5, .outputPremultiplied: false])) == whole8, "\(what): 8-bit tile 5")
}

@Suite struct BlurCatalogTests {
    /// An impulse of 1 (all four components) at (cx, cy) in a clear `size` x `size` image.
    func impulse(_ size: Int, at cx: Int, _ cy: Int) -> CIImage {
        linearImage(size, size) { x, y in x == cx && y == cy ? SIMD4(1, 1, 1, 1) : .zero }
    }
    func total(_ r: Rendered) -> Double { r.pixels.reduce(0) { $0 + Double($1.w) } }

    /// The disc of integer offsets within `radius`, written out.
    func inDisc(_ dx: Int, _ dy: Int, _ radius: Double) -> Bool { Double(dx * dx + dy * dy) <= radius * radius }
    func discCount(_ radius: Double) -> Int {
        let n = Int(radius)
        return (-n...n).reduce(0) { s, dy in s + (-n...n).filter { inDisc($0, dy, radius) }.count }
    }

    // MARK: CIDiscBlur

    @Test func discBlurSpreadsAnImpulseIntoTheDisc() throws {
        let img = impulse(41, at: 20, 20)
        for radius in [1.0, 3.0, 8.0, 13.0] {
            let out = img.applyingFilter("CIDiscBlur", parameters: [kCIInputRadiusKey: radius])
            #expect(out.extent == img.extent.insetBy(dx: -CGFloat(Int(radius)), dy: -CGFloat(Int(radius))))
            let r = try Rendered(out, img.extent)
            let n = Double(discCount(radius))
            var bad = 0
            for (x, y, p) in r.all {
                let want = inDisc(x - 20, y - 20, radius) ? 1 / n : 0
                if abs(Double(p.w) - want) > 1e-6 || abs(Double(p.x) - want) > 1e-6 { bad += 1 }
            }
            #expect(bad == 0, "radius \(radius): \(bad) pixels off the disc")
            #expect(abs(total(r) - 1) < 0.005, "radius \(radius): total \(total(r))")
        }
        // Between whole radii: disc 8 weighted 0.75 and disc 9 weighted 0.25.
        let r = try Rendered(img.applyingFilter("CIDiscBlur", parameters: [kCIInputRadiusKey: 8.25]), img.extent)
        let n8 = Double(discCount(8)), n9 = Double(discCount(9))
        for (x, y, p) in r.all {
            let want = (inDisc(x - 20, y - 20, 8) ? 0.75 / n8 : 0) + (inDisc(x - 20, y - 20, 9) ? 0.25 / n9 : 0)
            #expect(abs(Double(p.w) - want) < 1e-6, "(\(x), \(y))")
        }
        #expect(abs(total(r) - 1) < 0.005)
    }

    @Test func discBlurIsTheMeanOverTheDisc() throws {
        let w = 37, h = 29
        let pixels = testPixels(width: w, height: h, alpha: true)
        let input = image(pixels, w, h)
        func premul(_ x: Int, _ y: Int) -> SIMD4<Double> {
            guard x >= 0, x < w, y >= 0, y < h else { return .zero }
            let p = linearPixel(pixels, w, x, h - 1 - y)
            return SIMD4(p[0] * p[3], p[1] * p[3], p[2] * p[3], p[3])
        }
        // A radius wider than a prefix block (32 columns), so windows span several blocks.
        for radius in [5.0, 17.5] {
            let out = input.applyingFilter("CIDiscBlur", parameters: [kCIInputRadiusKey: radius])
            let r = try Rendered(out, input.extent)
            let n = Int(radius)
            var worst = 0.0
            for (x, y, p) in r.all where (x + 3 * y) % 5 == 0 {
                var want = SIMD4<Double>.zero
                for (rad, weight) in [(Double(n), 1 - (radius - Double(n))), (Double(n + 1), radius - Double(n))] where weight > 0 {
                    var s = SIMD4<Double>.zero
                    for dy in -(n + 1)...(n + 1) { for dx in -(n + 1)...(n + 1) where inDisc(dx, dy, rad) { s += premul(x + dx, y + dy) } }
                    want += s * (weight / Double(discCount(rad)))
                }
                for k in 0..<4 { worst = max(worst, abs(Double(p[k]) - want[k])) }
            }
            #expect(worst < 2e-5, "radius \(radius): worst \(worst)")
            try expectTiledEqualsWholeFloatAnd8Bit(out, input.extent.insetBy(dx: -4, dy: -4), "CIDiscBlur \(radius)")
        }
    }

    // MARK: CIBokehBlur

    @Test func bokehBlurIsADiscWithABrightRing() throws {
        let img = impulse(41, at: 20, 20)
        let radius = 10.0, size = 0.2, amount = 0.6
        let out = img.applyingFilter("CIBokehBlur", parameters: [kCIInputRadiusKey: radius, "inputRingAmount": amount, "inputRingSize": size, "inputSoftness": 0])
        let r = try Rendered(out, img.extent)
        let inner = radius * (1 - size)
        let nDisc = Double(discCount(radius)), nRing = nDisc - Double(discCount(inner))
        var bad = 0
        for (x, y, p) in r.all {
            let dx = x - 20, dy = y - 20
            var want = 0.0
            if inDisc(dx, dy, radius) { want += (1 - amount) / nDisc; if !inDisc(dx, dy, inner) { want += amount / nRing } }
            if abs(Double(p.w) - want) > 1e-6 { bad += 1 }
        }
        #expect(bad == 0)
        #expect(abs(total(r) - 1) < 0.005)
        // The rim is brighter than the middle.
        #expect(r[20 + 10, 20].w > 2 * r[20 + 3, 20].w)
        // Softness spreads it by a Gaussian and keeps the total; without a ring it is the disc.
        let soft = try Rendered(img.applyingFilter("CIBokehBlur", parameters: [kCIInputRadiusKey: radius, "inputSoftness": 1.5]), img.extent)
        #expect(abs(total(soft) - 1) < 0.005)
        #expect(soft[20 + 11, 20].w > 0 && soft[20 + 12, 20].w > 0)
        let plain = try Rendered(img.applyingFilter("CIBokehBlur", parameters: [kCIInputRadiusKey: radius, "inputSoftness": 0, "inputRingAmount": 0]), img.extent)
        let disc = try Rendered(img.applyingFilter("CIDiscBlur", parameters: [kCIInputRadiusKey: radius]), img.extent)
        #expect(zip(plain.pixels, disc.pixels).allSatisfy { abs($0.w - $1.w) < 1e-7 })
        try expectTiledEqualsWholeFloatAnd8Bit(out, img.extent, "CIBokehBlur")
    }

    // MARK: CIMotionBlur

    /// The weighted mean and the principal axes of a rendered impulse response.
    func moments(_ r: Rendered) -> (cx: Double, cy: Double, angle: Double, major: Double, minor: Double) {
        var s = 0.0, sx = 0.0, sy = 0.0
        for (x, y, p) in r.all { let w = Double(p.w); s += w; sx += w * Double(x); sy += w * Double(y) }
        let mx = sx / s, my = sy / s
        var xx = 0.0, yy = 0.0, xy = 0.0
        for (x, y, p) in r.all {
            let w = Double(p.w), dx = Double(x) - mx, dy = Double(y) - my
            xx += w * dx * dx; yy += w * dy * dy; xy += w * dx * dy
        }
        xx /= s; yy /= s; xy /= s
        let angle = 0.5 * atan2(2 * xy, xx - yy)
        let mid = (xx + yy) / 2, d = (((xx - yy) / 2) * ((xx - yy) / 2) + xy * xy).squareRoot()
        return (mx, my, angle, mid + d, mid - d)
    }

    @Test func motionBlurSpreadsAnImpulseAlongASegment() throws {
        let size = 81, c = 40
        let img = impulse(size, at: c, c)
        for (radius, angle) in [(12.0, 0.0), (12.0, 0.5), (15.0, -2.2), (10.0, Double.pi / 2 + 0.3), (9.0, Double.pi / 4)] {
            let out = img.applyingFilter("CIMotionBlur", parameters: [kCIInputRadiusKey: radius, kCIInputAngleKey: angle])
            let r = try Rendered(out, img.extent)
            #expect(abs(total(r) - 1) < 0.005, "radius \(radius) angle \(angle): total \(total(r))")
            // Every lit pixel lies within 2 pixels of the segment of half-length radius
            // (rounded to whole steps) through the impulse, at the angle.
            let ux = cos(angle), uy = sin(angle)
            for (x, y, p) in r.all where p.w > 1e-6 {
                let dx = Double(x - c), dy = Double(y - c)
                let along = dx * ux + dy * uy, across = -dx * uy + dy * ux
                #expect(abs(across) <= 2 && abs(along) <= radius + 2, "radius \(radius) angle \(angle): (\(x), \(y)) lit, \(along) along, \(across) across")
            }
            // Centred on the impulse, along the angle, as long as the segment, thin.
            let m = moments(r)
            #expect(abs(m.cx - Double(c)) < 0.05 && abs(m.cy - Double(c)) < 0.05)
            #expect(abs(remainder(m.angle - angle, Double.pi)) < 0.03, "angle \(m.angle) for \(angle)")
            // 2L + 1 even steps of 1 / max(|cos|, |sin|) along the line: variance L(L + 1) / 3 steps².
            let c = max(abs(cos(angle)), abs(sin(angle))), L = (radius * c).rounded()
            let uniform = L * (L + 1) / 3 / (c * c)
            #expect(abs(m.major - uniform) / uniform < 0.03, "second moment \(m.major) along, a segment gives \(uniform)")
            #expect(m.minor < 0.45, "spread \(m.minor) across")
            try expectTiledEqualsWholeFloatAnd8Bit(out, CGRect(x: 20, y: 20, width: 41, height: 41), "CIMotionBlur \(radius) \(angle)")
        }
        // Angle 0: exactly the mean of 2r + 1 pixels of the row.
        let r = try Rendered(img.applyingFilter("CIMotionBlur", parameters: [kCIInputRadiusKey: 5, kCIInputAngleKey: 0]), img.extent)
        for (x, y, p) in r.all {
            let want: Float = (y == c && abs(x - c) <= 5) ? 1 / 11 : 0
            #expect(abs(p.w - want) < 1e-7, "(\(x), \(y))")
        }
    }

    // MARK: CIZoomBlur

    @Test func zoomBlurDrawsRadialStreaks() throws {
        let size = 201
        let centre = (x: 20.0, y: 30.0), amount = 16.0
        // Impulses far from the centre (many streak lengths): the rays fan out over a streak
        // by a small fraction there, so the total is kept to the stated half percent.
        for (ix, iy) in [(180, 150), (170, 31), (120, 130), (40, 190)] {
            let img = impulse(size, at: ix, iy)
            let out = img.applyingFilter("CIZoomBlur", parameters: [kCIInputCenterKey: CIVector(x: centre.x, y: centre.y), "inputAmount": amount])
            let r = try Rendered(out, img.extent)
            #expect(abs(total(r) - 1) < 0.005, "total \(total(r))")
            let px = Double(ix) + 0.5 - centre.x, py = Double(iy) + 0.5 - centre.y
            let dist = (px * px + py * py).squareRoot(), ux = px / dist, uy = py / dist
            for (x, y, p) in r.all where p.w > 1e-6 {
                let dx = Double(x) + 0.5 - centre.x, dy = Double(y) + 0.5 - centre.y
                let along = dx * ux + dy * uy, across = -dx * uy + dy * ux
                #expect(abs(across) <= 1.5 && abs(along - dist) <= amount / 2 + 1.5, "(\(x), \(y)) lit off the streak")
            }
            let m = moments(r)
            #expect(abs(remainder(m.angle - atan2(uy, ux), Double.pi)) < 0.05, "streak at \(m.angle), ray at \(atan2(uy, ux))")
            #expect(m.major > 15 && m.minor < 0.5)
        }
        // The centre stays sharp; a negative amount streaks the same way.
        let photo = image(testPixels(width: 40, height: 40), 40, 40)
        let a = photo.applyingFilter("CIZoomBlur", parameters: [kCIInputCenterKey: CIVector(x: 20.5, y: 20.5), "inputAmount": 12])
        let b = photo.applyingFilter("CIZoomBlur", parameters: [kCIInputCenterKey: CIVector(x: 20.5, y: 20.5), "inputAmount": -12])
        #expect(try premultipliedRender(a, photo.extent) == premultipliedRender(b, photo.extent))
        #expect(try Rendered(a, photo.extent)[20, 20] == Rendered(photo, photo.extent)[20, 20])
        try expectTiledEqualsWholeFloatAnd8Bit(a, photo.extent, "CIZoomBlur")
    }

    // MARK: CIMaskedVariableBlur

    @Test func maskedVariableBlurWithAConstantMaskIsTheDiscBlur() throws {
        let w = 30, h = 24
        let input = image(testPixels(width: w, height: h, alpha: true), w, h)
        let radius = 6.0
        for grey in [0.0, 0.3, 0.5, 1.0] {
            let g = CGFloat(grey)
            for mask in [
                CIImage(color: CIColor(red: g, green: g, blue: g)),
                linearImage(w, h) { _, _ in SIMD4(Float(grey), Float(grey), Float(grey), 1) },
            ] {
                let out = input.applyingFilter("CIMaskedVariableBlur", parameters: ["inputMask": mask, kCIInputRadiusKey: radius])
                #expect(out.extent == input.extent)
                // The mask's luma, as the filter reads it (a colour's components are
                // sRGB-encoded; the working space is linear).
                let c = try premultipliedRender(mask, CGRect(x: 0, y: 0, width: 1, height: 1))[0]
                let m = Double(c.x * 0.2125 + c.y * 0.7154 + c.z * 0.0721)
                let disc = input.applyingFilter("CIDiscBlur", parameters: [kCIInputRadiusKey: radius * min(m, 1)])
                let a = try premultipliedRender(out, input.extent), b = try premultipliedRender(disc, input.extent)
                let worst = zip(a, b).map { maxDiff($0, $1) }.max() ?? 0
                #expect(worst < 1e-5, "grey \(grey): worst \(worst)")
            }
        }
    }

    @Test func maskedVariableBlurFollowsTheMaskPixelByPixel() throws {
        let w = 34, h = 22
        let pixels = testPixels(width: w, height: h, alpha: true)
        let input = image(pixels, w, h)
        func premul(_ x: Int, _ y: Int) -> SIMD4<Double> {
            guard x >= 0, x < w, y >= 0, y < h else { return .zero }
            let p = linearPixel(pixels, w, x, h - 1 - y)
            return SIMD4(p[0] * p[3], p[1] * p[3], p[2] * p[3], p[3])
        }
        // A mask ramping across, with a step: runs of equal radius and changes within rows.
        func maskValue(_ x: Int, _ y: Int) -> Float { x < 20 ? Float(x) / 19 : Float((x + y) % 3) / 2 }
        let mask = linearImage(w, h) { x, y in
            let v = maskValue(x, y); return SIMD4(v, v, v, 1)
        }
        let radius = 4.5
        let out = input.applyingFilter("CIMaskedVariableBlur", parameters: ["inputMask": mask, kCIInputRadiusKey: radius])
        let r = try Rendered(out, input.extent)
        var worst = 0.0
        for (x, y, p) in r.all {
            let v = maskValue(x, y)
            let m = Double(min(max(v * 0.2125 + v * 0.7154 + v * 0.0721, 0), 1))
            let rho = radius * m, n = Int(rho.rounded(.down)), f = rho - Double(n)
            var want = SIMD4<Double>.zero
            for (rad, weight) in [(n, 1 - f), (n + 1, f)] where weight > 0 {
                var s = SIMD4<Double>.zero
                for dy in -rad...rad { for dx in -rad...rad where inDisc(dx, dy, Double(rad)) { s += premul(x + dx, y + dy) } }
                want += s * (weight / Double(discCount(Double(rad))))
            }
            for k in 0..<4 { worst = max(worst, abs(Double(p[k]) - want[k])) }
        }
        #expect(worst < 2e-5, "worst \(worst)")
        try expectTiledEqualsWholeFloatAnd8Bit(out, input.extent, "CIMaskedVariableBlur")
    }

    // MARK: CINoiseReduction

    @Test func noiseReductionIsTheSelectiveMeanSharpened() throws {
        let w = 19, h = 13
        let pixels = testPixels(width: w, height: h, alpha: true)
        let input = image(pixels, w, h)
        func premul(_ x: Int, _ y: Int) -> SIMD4<Double> {
            let cx = min(max(x, 0), w - 1), cy = min(max(y, 0), h - 1)
            let p = linearPixel(pixels, w, cx, h - 1 - cy)
            return SIMD4(p[0] * p[3], p[1] * p[3], p[2] * p[3], p[3])
        }
        func luma(_ p: SIMD4<Double>) -> Double { 0.2125 * p.x + 0.7154 * p.y + 0.0721 * p.z }
        for (level, sharpness) in [(0.02, 0.4), (0.1, 0.0), (0.0, 1.5)] {
            let out = input.applyingFilter("CINoiseReduction", parameters: ["inputNoiseLevel": level, kCIInputSharpnessKey: sharpness])
            #expect(out.extent == input.extent)
            let r = try Rendered(out, input.extent)
            var worst = 0.0
            for (x, y, p) in r.all {
                let c = premul(x, y)
                var sum = SIMD4<Double>.zero, all = SIMD4<Double>.zero, n = 0.0
                for dy in -1...1 {
                    for dx in -1...1 {
                        let q = premul(x + dx, y + dy)
                        all += q
                        if abs(luma(q) - luma(c)) <= level + 1e-7 { sum += q; n += 1 }
                    }
                }
                let smooth = sum / n, want = smooth + sharpness * (smooth - all / 9)
                for k in 0..<4 { worst = max(worst, abs(Double(p[k]) - want[k])) }
            }
            #expect(worst < 1e-5, "level \(level) sharpness \(sharpness): worst \(worst)")
            try expectTiledEqualsWholeFloatAnd8Bit(out, input.extent, "CINoiseReduction")
        }
    }

    // MARK: CIDepthOfField

    @Test func depthOfFieldKeepsTheBandAndBlursAwayFromIt() throws {
        let w = 200, h = 40
        let input = image(testPixels(width: w, height: h), w, h)
        let params: [String: Any] = [
            "inputPoint0": CIVector(x: 60, y: 20), "inputPoint1": CIVector(x: 100, y: 20), kCIInputSaturationKey: 1.5,
            "inputUnsharpMaskRadius": 2.5, "inputUnsharpMaskIntensity": 0.5, kCIInputRadiusKey: 3.0,
        ]
        let out = input.applyingFilter("CIDepthOfField", parameters: params)
        #expect(out.extent == input.extent)
        let sharp = input.applyingFilter("CIColorControls", parameters: [kCIInputSaturationKey: 1.5])
            .applyingFilter("CIUnsharpMask", parameters: [kCIInputRadiusKey: 2.5, kCIInputIntensityKey: 0.5])
        let blurred = input.clampedToExtent().applyingFilter("CIGaussianBlur", parameters: [kCIInputRadiusKey: 3.0]).cropped(to: input.extent)
        let o = try Rendered(out, input.extent), s = try Rendered(sharp, input.extent), b = try Rendered(blurred, input.extent)
        for y in [3, 20, 36] {
            // In the band (60 <= x + 0.5 <= 100): the sharpened image.
            for x in [60, 80, 99] { #expect(maxDiff(o[x, y], s[x, y]) < 1e-5, "(\(x), \(y)) in the band") }
            // Beyond half the band's width (20) outside it: the blur.
            for x in [20, 39, 121, 180] { #expect(maxDiff(o[x, y], b[x, y]) < 1e-5, "(\(x), \(y)) outside") }
            // In between: smoothstep over 20 pixels.
            for x in [105, 50] {
                let d = x >= 100 ? Double(x) + 0.5 - 100 : 60 - (Double(x) + 0.5)
                let t = Float(d / 20 * d / 20 * (3 - 2 * d / 20))
                let want = s[x, y] + (b[x, y] - s[x, y]) * t
                #expect(maxDiff(o[x, y], want) < 1e-5, "(\(x), \(y)) in the ramp")
            }
        }
        try expectTiledEqualsWholeFloatAnd8Bit(out, input.extent, "CIDepthOfField")
    }

    // MARK: Every new filter

    static let newFilters = [
        "CIDiscBlur", "CIMotionBlur", "CIZoomBlur", "CIBokehBlur", "CIMaskedVariableBlur", "CINoiseReduction",
        "CIDepthOfField", "CICannyEdgeDetector", "CIGaborGradients", "CIGuidedFilter", "CIEdgePreserveUpsampleFilter",
    ]

    @Test func attributesAreApplesFromTheSpec() throws {
        let spec = try JSONSerialization.jsonObject(with: Data(contentsOf: LUTFixtures.specJSON)) as! [[String: Any]]
        let byName = Dictionary(spec.map { ($0["name"] as! String, $0) }, uniquingKeysWith: { a, _ in a })
        for name in Self.newFilters {
            let entry = try #require(byName[name], "\(name) is not in the spec")
            let filter = try #require(CIFilter(name: name), "\(name) is not registered")
            let attrs = filter.attributes
            #expect(attrs[kCIAttributeFilterDisplayName] as? String == entry["displayName"] as? String, "\(name)")
            #expect(attrs[kCIAttributeFilterCategories] as? [String] == entry["categories"] as? [String], "\(name)")
            let inputs = entry["inputs"] as! [[String: Any]]
            #expect(Set(filter.inputKeys) == Set(inputs.map { $0["key"] as! String }), "\(name) keys")
            for input in inputs {
                let key = input["key"] as! String
                let a = try #require(attrs[key] as? [String: Any], "\(name).\(key)")
                #expect(a[kCIAttributeClass] as? String == input["class"] as? String, "\(name).\(key)")
                #expect(a[kCIAttributeType] as? String == input["attributeType"] as? String, "\(name).\(key)")
                for (specKey, attrKey) in [
                    ("default", kCIAttributeDefault), ("min", kCIAttributeMin), ("max", kCIAttributeMax),
                    ("sliderMin", kCIAttributeSliderMin), ("sliderMax", kCIAttributeSliderMax), ("identity", kCIAttributeIdentity),
                ] {
                    let want = input[specKey].flatMap { $0 is NSNull ? nil : $0 }
                    let got = a[attrKey]
                    if let w = want as? [Double] {
                        #expect((got as? CIVector).map { $0.values.map(Double.init) } == w, "\(name).\(key) \(specKey)")
                    } else if let w = want as? Double {
                        #expect(
                            (got as? NSNumber)?.doubleValue == w || (got as? Double) == w || (got as? Bool).map { $0 ? 1 : 0 } == w,
                            "\(name).\(key) \(specKey): \(String(describing: got))")
                    } else if want == nil {
                        #expect(got == nil, "\(name).\(key) \(specKey): \(String(describing: got))")
                    }
                }
            }
        }
    }

    /// Each new filter with non-default settings over `input` (and `other` for second images).
    static func configured(_ name: String, _ input: CIImage, _ other: CIImage, centre: CGPoint) -> CIImage {
        var p: [String: Any] = [:]
        switch name {
        case "CIDiscBlur": p = [kCIInputRadiusKey: 8.5]
        case "CIMotionBlur": p = [kCIInputRadiusKey: 20, kCIInputAngleKey: 0.4]
        case "CIZoomBlur": p = [kCIInputCenterKey: CIVector(cgPoint: centre), "inputAmount": 20]
        case "CIBokehBlur": p = [kCIInputRadiusKey: 12, "inputRingAmount": 0.4]
        case "CIMaskedVariableBlur": p = ["inputMask": other, kCIInputRadiusKey: 8]
        case "CINoiseReduction": p = ["inputNoiseLevel": 0.05]
        case "CIDepthOfField": p = ["inputPoint0": CIVector(x: centre.x - 20, y: centre.y), "inputPoint1": CIVector(x: centre.x + 20, y: centre.y + 10)]
        case "CICannyEdgeDetector": p = ["inputThresholdHigh": 0.02, "inputThresholdLow": 0.01, "inputHysteresisPasses": 2]
        case "CIGuidedFilter": p = ["inputGuideImage": other, kCIInputRadiusKey: 2, "inputEpsilon": 0.001]
        case "CIEdgePreserveUpsampleFilter":
            let small = other.transformed(by: CGAffineTransform(scaleX: 0.25, y: 0.25)).cropped(
                to: CGRect(x: 0, y: 0, width: other.extent.width / 4, height: other.extent.height / 4))
            p = ["inputSmallImage": small]
        default: break
        }
        return input.applyingFilter(name, parameters: p)
    }

    @Test func everyNewFilterRendersTiledAsWhole() throws {
        let w = 45, h = 38
        let input = image(testPixels(width: w, height: h, alpha: true), w, h)
        let other = image(testPixels(width: h, height: w), h, w).transformed(by: CGAffineTransform(a: 0, b: 1, c: 1, d: 0, tx: 0, ty: 0))
        for name in Self.newFilters {
            let out = Self.configured(name, input, other, centre: CGPoint(x: 20, y: 17))
            #expect(!out.extent.isEmpty, "\(name)")
            try expectTiledEqualsWholeFloatAnd8Bit(out, input.extent.insetBy(dx: -3, dy: -3).intersection(out.extent), name)
        }
    }

    @Test func aOnePercentCropReadsAboutOnePercentOfTheSource() throws {
        let side = 1600
        var bytes = [UInt8](repeating: 0, count: side * side * 4)
        for i in 0..<(side * side) { bytes[4 * i] = UInt8(i % 251); bytes[4 * i + 1] = UInt8((i / side) % 253); bytes[4 * i + 2] = 90; bytes[4 * i + 3] = 255 }
        let input = image(bytes, side, side), other = image(Array(bytes.reversed()), side, side)
        let crop = CGRect(x: 720, y: 720, width: 160, height: 160)
        let ctx = CIContext(options: [.cacheIntermediates: false])
        for name in Self.newFilters {
            let out = Self.configured(name, input, other, centre: CGPoint(x: 800, y: 800))
            _ = try ctx.renderToData(out.cropped(to: crop), from: crop, format: .RGBA8)
            let read = Double(ctx.lastRenderStatistics.sourcePixels)
            // The sources: the image, plus a mask, guide or small image made from a second one.
            let sources = Double(side * side) * (["CIMaskedVariableBlur", "CIGuidedFilter", "CIEdgePreserveUpsampleFilter"].contains(name) ? 2 : 1)
            // CIDepthOfField reads its source three times over (in focus, its unsharp mask's
            // blur, the blur outside the band), each about 1.3%.
            let reads = name == "CIDepthOfField" ? 3.0 : 1.0
            #expect(read / sources / reads < 0.025, "\(name): the crop read \(String(format: "%.2f", 100 * read / sources))% of the source")
        }
    }

    @Test func badParametersAreTypedErrorsOrLimits() throws {
        let input = image(testPixels(width: 20, height: 16), 20, 16)
        // NaN and infinite numbers and points are errors that name the input.
        let cases: [(String, String, Any)] = [
            ("CIDiscBlur", kCIInputRadiusKey, Double.nan), ("CIMotionBlur", kCIInputAngleKey, Double.infinity),
            ("CIZoomBlur", kCIInputCenterKey, CIVector(x: .nan, y: 2)), ("CIBokehBlur", "inputSoftness", Double.nan),
            ("CIMaskedVariableBlur", kCIInputRadiusKey, -Double.infinity), ("CINoiseReduction", "inputNoiseLevel", Double.nan),
            ("CIDepthOfField", "inputPoint1", CIVector(x: 3, y: .infinity)), ("CICannyEdgeDetector", "inputThresholdHigh", Double.nan),
            ("CIGuidedFilter", "inputEpsilon", Double.nan), ("CIEdgePreserveUpsampleFilter", "inputLumaSigma", Double.nan),
        ]
        for (name, key, bad) in cases {
            let f = try #require(CIFilter(name: name))
            f.setValue(input, forKey: kCIInputImageKey)
            for extra in ["inputMask", "inputGuideImage", "inputSmallImage"] where f.inputKeys.contains(extra) { f.setValue(input, forKey: extra) }
            f.setValue(bad, forKey: key)
            #expect(throws: CIFilterError.nonFinite(filter: name, key: key)) { try f.makeOutputImage() }
            #expect(f.outputImage == nil)
        }
        // A missing second image is an error naming it; an infinite one where a finite one is needed too.
        let masked = try #require(CIFilter(name: "CIMaskedVariableBlur"))
        masked.setValue(input, forKey: kCIInputImageKey)
        #expect(throws: CIFilterError.missingInput(filter: "CIMaskedVariableBlur", key: "inputMask")) { try masked.makeOutputImage() }
        let upsample = try #require(CIFilter(name: "CIEdgePreserveUpsampleFilter"))
        upsample.setValue(input, forKey: kCIInputImageKey)
        upsample.setValue(CIImage(color: .red), forKey: "inputSmallImage")
        #expect(throws: CIFilterError.self) { try upsample.makeOutputImage() }
        // Beyond a declared limit renders as the limit; below Apple's minimum as the minimum.
        func same(_ name: String, _ key: String, _ a: Any, _ b: Any, _ others: [String: Any] = [:]) throws {
            let x = input.applyingFilter(name, parameters: others.merging([key: a]) { $1 })
            let y = input.applyingFilter(name, parameters: others.merging([key: b]) { $1 })
            let rect = input.extent
            #expect(try premultipliedRender(x, rect) == premultipliedRender(y, rect), "\(name) \(key): \(a) is not read as \(b)")
        }
        try same("CIDiscBlur", kCIInputRadiusKey, 1e6, 250.0)
        try same("CIDiscBlur", kCIInputRadiusKey, -5.0, 0.0)
        try same("CIMotionBlur", kCIInputRadiusKey, 1e9, 500.0)
        try same("CIZoomBlur", "inputAmount", -1e9, -500.0)
        try same("CIBokehBlur", kCIInputRadiusKey, 900.0, 250.0)
        try same("CIMaskedVariableBlur", kCIInputRadiusKey, 1e5, 250.0, ["inputMask": input])
        try same("CIGuidedFilter", "inputEpsilon", -1.0, 1e-12, ["inputGuideImage": input])
        try same("CIGuidedFilter", kCIInputRadiusKey, 1e4, 250.0, ["inputGuideImage": input])
        try same("CICannyEdgeDetector", "inputHysteresisPasses", 99.0, 20.0)
        // Odd but finite values render finite pixels.
        for (name, params) in [
            ("CIZoomBlur", [kCIInputCenterKey: CIVector(x: 1e15, y: -1e15)] as [String: Any]),
            ("CIDepthOfField", ["inputPoint0": CIVector(x: 1e300, y: 0), "inputPoint1": CIVector(x: -1e300, y: 0)]),
            ("CIMotionBlur", [kCIInputAngleKey: 1e12]), ("CIBokehBlur", ["inputRingSize": 0.2, "inputRingAmount": 1.0]),
        ] {
            let px = try premultipliedRender(input.applyingFilter(name, parameters: params), input.extent)
            #expect(px.allSatisfy { $0.x.isFinite && $0.w.isFinite }, "\(name) \(params)")
        }
        // Empty in, empty out.
        for name in Self.newFilters {
            #expect(Self.configured(name, CIImage.empty(), input, centre: .zero).extent.isEmpty, "\(name) of an empty image")
        }
    }
}
