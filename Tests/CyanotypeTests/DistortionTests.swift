import Foundation
import Testing
@testable import Cyanotype

// References written in the test, in polar form (angle and distance about the centre, in
// Double) rather than the code's rotated-offset arithmetic; bilinear sampling of premultiplied
// linear pixels at centre + 0.5, neighbours outside the image clear.

@Suite struct DistortionTests {
    let w = 21, h = 17
    var pixels: [UInt8] { testPixels(width: w, height: h, alpha: true) }
    var input: CIImage { image(pixels, w, h) }
    /// A centre off the pixel grid, and a radius whose disc crosses the image's edges.
    let cx = 10.3, cy = 8.6, radius = 7.5
    var centre: CIVector { CIVector(x: CGFloat(cx), y: CGFloat(cy)) }

    /// Premultiplied linear pixel at (x, yUp) of the test image; nil outside it.
    func premul(_ x: Int, _ yUp: Int) -> [Double]? {
        guard x >= 0, x < w, yUp >= 0, yUp < h else { return nil }
        let p = linearPixel(pixels, w, x, h - 1 - yUp)
        return [p[0] * p[3], p[1] * p[3], p[2] * p[3], p[3]]
    }
    /// Bilinear sample at (u, v) in image coordinates (pixel centres at +0.5), clear outside.
    func sample(_ u: Double, _ v: Double) -> [Double] {
        let su = u - 0.5, sv = v - 0.5
        let x0 = Int(floor(su)), y0 = Int(floor(sv))
        let tx = su - floor(su), ty = sv - floor(sv)
        var o = [0.0, 0, 0, 0]
        for (dx, dy, k) in [(0, 0, (1 - tx) * (1 - ty)), (1, 0, tx * (1 - ty)), (0, 1, (1 - tx) * ty), (1, 1, tx * ty)] {
            let p = premul(x0 + dx, y0 + dy) ?? [0, 0, 0, 0]
            for c in 0..<4 { o[c] += p[c] * k }
        }
        return o
    }
    /// Premultiplied linear float render of `rect` (rows top-down).
    func render(_ img: CIImage, _ rect: CGRect, tile: Int? = nil) throws -> [SIMD4<Float>] {
        var opts: [CIContextOption: Any] = [.outputColorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!, .cacheIntermediates: false]
        if let tile { opts[.tileSize] = tile }
        let d = try CIContext(options: opts).renderToData(img, from: rect, format: .RGBAf, premultiplied: true).data
        return d.withUnsafeBytes { Array($0.bindMemory(to: SIMD4<Float>.self)) }
    }
    /// Compares every pixel of `rect` with the sample at `source(x + 0.5, y + 0.5)` (clear
    /// where it is nil).
    func check(_ img: CIImage, _ rect: CGRect, tol: Double = 2e-4, _ source: (Double, Double) -> (Double, Double)?) throws {
        let got = try render(img, rect)
        let W = Int(rect.width), H = Int(rect.height)
        var bad = 0
        for j in 0..<H {
            for i in 0..<W {
                let x = Int(rect.minX) + i, y = Int(rect.minY) + j
                let e = source(Double(x) + 0.5, Double(y) + 0.5).map { sample($0.0, $0.1) } ?? [0, 0, 0, 0]
                let g = got[(H - 1 - j) * W + i]
                if (0..<4).contains(where: { abs(Double(g[$0]) - e[$0]) > tol }) {
                    bad += 1
                    if bad <= 3 { Issue.record("at \(x),\(y): got \(g) expected \(e)") }
                }
            }
        }
        #expect(bad == 0)
    }
    /// Tiled renders (odd tile sizes) equal the whole render: 8-bit, and float bit for bit.
    func tiledEqualsWhole(_ img: CIImage, _ rect: CGRect) throws {
        let whole = try render8(img, rect, context: CIContext(options: [.tileSize: 4096, .outputPremultiplied: false]))
        for t in [3, 5, 7] {
            let tiled = try render8(img, rect, context: CIContext(options: [.tileSize: t, .outputPremultiplied: false]))
            #expect(whole == tiled, "tile \(t)")
        }
        let wholeFloat = try render(img, rect, tile: 4096)
        for t in [3, 5, 7] { #expect(try wholeFloat == render(img, rect, tile: t), "float, tile \(t)") }
    }
    /// Pixels farther than `radius` from the centre equal the input's, bit for bit.
    func outsideUnchanged(_ img: CIImage, beyond r: Double) throws {
        let rect = input.extent
        let a = try render(img, rect), b = try render(input, rect)
        var n = 0
        for j in 0..<h {
            for i in 0..<w {
                let x = Double(i) + 0.5, y = Double(j) + 0.5
                guard hypot(x - cx, y - cy) > r else { continue }
                n += 1
                #expect(a[(h - 1 - j) * w + i] == b[(h - 1 - j) * w + i], "at \(i),\(j)")
            }
        }
        #expect(n > 20)
    }
    /// Polar coordinates about the centre.
    func polar(_ x: Double, _ y: Double) -> (r: Double, phi: Double) { (hypot(x - cx, y - cy), atan2(y - cy, x - cx)) }
    func fromPolar(_ r: Double, _ phi: Double) -> (Double, Double) { (cx + r * cos(phi), cy + r * sin(phi)) }
    /// The parameters every radial filter takes, plus `extra`.
    func params(_ extra: [String: Any]) -> [String: Any] {
        [kCIInputCenterKey: centre, kCIInputRadiusKey: radius].merging(extra) { $1 }
    }

    /// Every source point of every pixel of many small rectangles lies inside the node's
    /// region of interest, with its bilinear neighbours.
    func regionOfInterestHolds(_ img: CIImage) {
        guard let node = img.node as? DistortionNode else { Issue.record("not a distortion node"); return }
        var rng = SplitMix(0xD157)
        var bad = 0
        for _ in 0..<300 {
            let rect = PixelRect(
                x: Int.random(in: -12...30, using: &rng), y: Int.random(in: -12...26, using: &rng),
                width: Int.random(in: 1...9, using: &rng), height: Int.random(in: 1...9, using: &rng))
            let roi = node.inputRect(0, for: rect)
            for y in rect.minY..<rect.maxY {
                for x in rect.minX..<rect.maxX {
                    let p = node.map.source(Double(x) + 0.5, Double(y) + 0.5)
                    // Clear pixels and points beyond 1e9 (drawn clear) read nothing.
                    guard let (u, v) = p, abs(u - 0.5) < 1e9, abs(v - 0.5) < 1e9 else { continue }
                    let x0 = Int(floor(u - 0.5)), y0 = Int(floor(v - 0.5))
                    if x0 < roi.minX || y0 < roi.minY || x0 + 1 >= roi.maxX || y0 + 1 >= roi.maxY {
                        bad += 1
                        if bad <= 3 { Issue.record("rect \(rect) pixel \(x),\(y) reads \(u),\(v) outside \(roi)") }
                    }
                }
            }
        }
        #expect(bad == 0)
    }

    // MARK: CITwirlDistortion

    @Test func twirlRotatesByAnAngleFallingOffWithDistance() throws {
        let angle = 2.0
        let out = input.applyingFilter("CITwirlDistortion", parameters: params([kCIInputAngleKey: angle]))
        #expect(out.extent == input.extent)
        try check(out, input.extent) { x, y in
            let (r, phi) = polar(x, y)
            guard r < radius else { return (x, y) }
            let t = 1 - r / radius
            return fromPolar(r, phi - angle * t * t)
        }
        try outsideUnchanged(out, beyond: radius)
        try tiledEqualsWhole(out, input.extent)
        regionOfInterestHolds(out)
        // A big angle (many turns) too.
        regionOfInterestHolds(input.applyingFilter("CITwirlDistortion", parameters: params([kCIInputAngleKey: -40.0])))
    }

    @Test func twirlTypedAPIAndIdentities() throws {
        let f = CIFilter.twirlDistortion()
        #expect(f.radius == 300 && abs(f.angle - .pi) < 1e-6 && f.center == CGPoint(x: 150, y: 150))
        f.inputImage = input
        f.center = CGPoint(x: cx, y: cy); f.radius = Float(radius); f.angle = 0
        let ref = try render(input, input.extent)
        #expect(try render(f.outputImage!, input.extent) == ref)
        f.angle = 1; f.radius = 0
        #expect(try render(f.outputImage!, input.extent) == ref)
        f.radius = Float(radius)
        let g = CIFilter(name: "CITwirlDistortion") as? CIFilter & CITwirlDistortion
        #expect(g != nil)
        #expect(try render(f.outputImage!, input.extent) == render(input.applyingFilter("CITwirlDistortion", parameters: params([kCIInputAngleKey: 1.0])), input.extent))
    }

    // MARK: CIVortexDistortion

    @Test func vortexRotatesByALinearlyFallingAngle() throws {
        let angle = 9.0
        let out = input.applyingFilter("CIVortexDistortion", parameters: params([kCIInputAngleKey: angle]))
        #expect(out.extent == input.extent)
        try check(out, input.extent) { x, y in
            let (r, phi) = polar(x, y)
            guard r < radius else { return (x, y) }
            return fromPolar(r, phi - angle * (1 - r / radius))
        }
        try outsideUnchanged(out, beyond: radius)
        try tiledEqualsWhole(out, input.extent)
        regionOfInterestHolds(out)
        let f = CIFilter.vortexDistortion()
        #expect(abs(f.angle - 56.548667) < 1e-4)
        f.inputImage = input; f.center = CGPoint(x: cx, y: cy); f.radius = Float(radius); f.angle = 0
        #expect(try render(f.outputImage!, input.extent) == render(input, input.extent))
    }

    // MARK: CIPinchDistortion

    @Test func pinchIsARadialPower() throws {
        let scale = 0.8
        let out = input.applyingFilter("CIPinchDistortion", parameters: params([kCIInputScaleKey: scale]))
        #expect(out.extent == input.extent)
        try check(out, input.extent) { x, y in
            let (r, phi) = polar(x, y)
            guard r < radius else { return (x, y) }
            return fromPolar(radius * pow(r / radius, 1 / (1 + scale)), phi)
        }
        try outsideUnchanged(out, beyond: radius)
        try tiledEqualsWhole(out, input.extent)
        regionOfInterestHolds(out)
        let f = CIFilter.pinchDistortion()
        #expect(f.scale == 0.5 && f.radius == 300)
        f.inputImage = input; f.center = CGPoint(x: cx, y: cy); f.radius = Float(radius); f.scale = 0
        #expect(try render(f.outputImage!, input.extent) == render(input, input.extent))
        // Below Apple's minimum the scale clamps to 0: the identity.
        f.scale = -3
        #expect(try render(f.outputImage!, input.extent) == render(input, input.extent))
    }

    // MARK: CIBumpDistortion

    @Test func bumpScalesTheDistanceByAFactorJoiningOneAtTheRim() throws {
        for scale in [0.6, -0.7] {
            let out = input.applyingFilter("CIBumpDistortion", parameters: params([kCIInputScaleKey: scale]))
            #expect(out.extent == input.extent)
            try check(out, input.extent) { x, y in
                let (r, phi) = polar(x, y)
                guard r < radius else { return (x, y) }
                let f = 1 - scale * (1 - r / radius)
                return fromPolar(r * f * f, phi)
            }
            try outsideUnchanged(out, beyond: radius)
            try tiledEqualsWhole(out, input.extent)
            regionOfInterestHolds(out)
        }
        // A huge scale folds the disc over far away: no crash, the region of interest holds.
        let wild = input.applyingFilter("CIBumpDistortion", parameters: params([kCIInputScaleKey: 1e6]))
        regionOfInterestHolds(wild)
        _ = try render(wild, input.extent, tile: 5)
        let f = CIFilter.bumpDistortion()
        #expect(f.scale == 0.5)
        f.inputImage = input; f.center = CGPoint(x: cx, y: cy); f.radius = Float(radius); f.scale = 0
        #expect(try render(f.outputImage!, input.extent) == render(input, input.extent))
    }

    // MARK: CIBumpDistortionLinear

    @Test func linearBumpMovesPointsAcrossTheLine() throws {
        let angle = 0.6, scale = 0.7
        let out = input.applyingFilter("CIBumpDistortionLinear", parameters: params([kCIInputAngleKey: angle, kCIInputScaleKey: scale]))
        #expect(out.extent == input.extent)
        // The frame of the line: along (cos, sin), across (-sin, cos).
        func across(_ x: Double, _ y: Double) -> Double { -(x - cx) * sin(angle) + (y - cy) * cos(angle) }
        try check(out, input.extent) { x, y in
            let d = across(x, y)
            guard abs(d) < radius else { return (x, y) }
            let a = (x - cx) * cos(angle) + (y - cy) * sin(angle)
            let f = 1 - scale * (1 - abs(d) / radius)
            let d2 = d * f * f
            return (cx + a * cos(angle) - d2 * sin(angle), cy + a * sin(angle) + d2 * cos(angle))
        }
        // Outside the band, unchanged.
        let a = try render(out, input.extent), b = try render(input, input.extent)
        for j in 0..<h {
            for i in 0..<w where abs(across(Double(i) + 0.5, Double(j) + 0.5)) > radius {
                #expect(a[(h - 1 - j) * w + i] == b[(h - 1 - j) * w + i])
            }
        }
        try tiledEqualsWhole(out, input.extent)
        regionOfInterestHolds(out)
        regionOfInterestHolds(input.applyingFilter("CIBumpDistortionLinear", parameters: params([kCIInputAngleKey: 2.5, kCIInputScaleKey: -1.0])))
        regionOfInterestHolds(input.applyingFilter("CIBumpDistortionLinear", parameters: params([kCIInputAngleKey: 1.0, kCIInputScaleKey: 40.0])))
        let f = CIFilter.bumpDistortionLinear()
        #expect(f.scale == 0.5 && f.angle == 0)
        f.inputImage = input; f.center = CGPoint(x: cx, y: cy); f.radius = Float(radius); f.scale = 0
        #expect(try render(f.outputImage!, input.extent) == b)
    }

    // MARK: CIHoleDistortion

    @Test func holeIsClearAndPushesThePixelsOutward() throws {
        let r0 = 4.2
        let out = input.applyingFilter("CIHoleDistortion", parameters: [kCIInputCenterKey: centre, kCIInputRadiusKey: r0])
        #expect(out.extent == input.extent.insetBy(dx: -r0, dy: -r0))
        let rect = out.extent.integral
        try check(out, rect) { x, y in
            let (r, phi) = polar(x, y)
            guard r > r0 else { return nil }
            return fromPolar((r * r - r0 * r0).squareRoot(), phi)
        }
        try tiledEqualsWhole(out, rect)
        regionOfInterestHolds(out)
        let f = CIFilter.holeDistortion()
        #expect(f.radius == 150)
        f.inputImage = input; f.center = CGPoint(x: cx, y: cy)
        // Below Apple's minimum (0.01) the radius clamps to it: almost the identity.
        f.radius = 0
        try check(f.outputImage!, input.extent, tol: 2e-3) { x, y in (x, y) }
    }

    // MARK: CICircleSplashDistortion

    @Test func circleSplashKeepsTheDiscAndStreaksItsRim() throws {
        let r0 = 5.5
        let out = input.applyingFilter("CICircleSplashDistortion", parameters: [kCIInputCenterKey: centre, kCIInputRadiusKey: r0])
        #expect(out.extent.isInfinite)
        let rect = CGRect(x: -9, y: -7, width: 40, height: 33)
        try check(out, rect) { x, y in
            let (r, phi) = polar(x, y)
            return r <= r0 ? (x, y) : fromPolar(r0, phi)
        }
        try tiledEqualsWhole(out, rect)
        regionOfInterestHolds(out)
        // A crop far away reads only the rim pixels in its direction.
        let ctx = CIContext()
        let far = CGRect(x: 300, y: 8, width: 4, height: 3)
        _ = try ctx.renderToData(out.cropped(to: far), from: far)
        #expect(ctx.lastRenderStatistics.sourcePixels <= 3 * 3)
        let f = CIFilter.circleSplashDistortion()
        #expect(f.radius == 150)
        f.inputImage = input; f.center = CGPoint(x: cx, y: cy); f.radius = 0
        _ = try render(f.outputImage!, input.extent)
    }

    // MARK: CICircularWrap

    @Test func circularWrapLaysTheImageAroundAClearCircle() throws {
        let r0 = 3.0, angle = 0.4
        let out = input.applyingFilter("CICircularWrap", parameters: [kCIInputCenterKey: centre, kCIInputRadiusKey: r0, kCIInputAngleKey: angle])
        let reach = r0 + Double(h)
        #expect(out.extent == CGRect(x: cx - reach, y: cy - reach, width: 2 * reach, height: 2 * reach))
        let rect = out.extent.integral
        try check(out, rect) { x, y in
            let (r, phi) = polar(x, y)
            guard r >= r0 else { return nil }
            // Turns clockwise from the top (pi/2 + angle), in -pi...pi.
            var turn = phi - angle - .pi / 2
            while turn > .pi { turn -= 2 * .pi }
            while turn < -.pi { turn += 2 * .pi }
            return (Double(w) / 2 - r0 * turn, r - r0)
        }
        try tiledEqualsWhole(out, rect)
        regionOfInterestHolds(out)
        // At the top of the circle, one radius out, lies the image's middle column.
        let f = CIFilter.circularWrap()
        #expect(f.radius == 150 && f.angle == 0)
        f.inputImage = input; f.center = CGPoint(x: cx, y: cy); f.radius = 0
        _ = try render(f.outputImage!, input.extent)
    }

    // MARK: CILightTunnel

    @Test func lightTunnelSpiralsTheRimIntoTheDisc() throws {
        let rotation = 0.9
        let out = input.applyingFilter("CILightTunnel", parameters: params(["inputRotation": rotation]))
        #expect(out.extent == input.extent)
        try check(out, input.extent) { x, y in
            let (r, phi) = polar(x, y)
            guard r < radius else { return (x, y) }
            return fromPolar(radius, phi - rotation * log(radius / r))
        }
        try outsideUnchanged(out, beyond: radius)
        try tiledEqualsWhole(out, input.extent)
        regionOfInterestHolds(out)
        let f = CIFilter.lightTunnel()
        #expect(f.radius == 100 && f.rotation == 0)
        f.inputImage = input; f.center = CGPoint(x: cx, y: cy); f.radius = 0
        #expect(try render(f.outputImage!, input.extent) == render(input, input.extent))
    }

    // MARK: CITorusLensDistortion

    @Test func torusLensRefractsTheRing() throws {
        let r0 = 6.0, width = 5.0
        for n in [1.7, 0.6] {
            let out = input.applyingFilter(
                "CITorusLensDistortion",
                parameters: [
                    kCIInputCenterKey: centre, kCIInputRadiusKey: r0,
                    kCIInputWidthKey: width, "inputRefraction": n,
                ])
            #expect(out.extent == input.extent)
            try check(out, input.extent) { x, y in
                let (r, phi) = polar(x, y)
                let p = r - r0, half = width / 2
                guard abs(p) < half else { return (x, y) }
                // Incidence and refraction angles of a vertical ray on the half-disc section.
                let i = asin(abs(p) / half), t = asin(min(sin(i) / n, 1))
                let landing = min(max((half * half - p * p).squareRoot() * tan(i - t), -width), width)
                return fromPolar(r0 + p - (p < 0 ? -1 : 1) * landing, phi)
            }
            try outsideUnchanged(out, beyond: r0 + width / 2)
            try tiledEqualsWhole(out, input.extent)
            regionOfInterestHolds(out)
        }
        regionOfInterestHolds(
            input.applyingFilter(
                "CITorusLensDistortion",
                parameters: [
                    kCIInputCenterKey: centre, kCIInputRadiusKey: 1.0,
                    kCIInputWidthKey: 9.0, "inputRefraction": 0.0,
                ]))
        let f = CIFilter.torusLensDistortion()
        #expect(f.radius == 160 && f.width == 80 && abs(f.refraction - 1.7) < 1e-6)
        f.inputImage = input; f.center = CGPoint(x: cx, y: cy); f.refraction = 1
        #expect(try render(f.outputImage!, input.extent) == render(input, input.extent))
    }

    // MARK: CIDisplacementDistortion

    @Test func displacementMovesTheSamplePointByRedAndGreen() throws {
        // A displacement map smaller than the image (clear beyond it), opaque, with red and
        // green over the whole range.
        let dw = 15, dh = 12
        var dp = [UInt8](repeating: 255, count: dw * dh * 4)
        for y in 0..<dh {
            for x in 0..<dw {
                let i = (y * dw + x) * 4
                dp[i] = UInt8((x * 53 + y * 29) % 256); dp[i + 1] = UInt8((x * 17 + y * 71) % 256); dp[i + 2] = 99
            }
        }
        let map = image(dp, dw, dh).transformed(by: CGAffineTransform(translationX: 3, y: 2))
        let scale = 6.0
        let out = input.applyingFilter("CIDisplacementDistortion", parameters: ["inputDisplacementImage": map, kCIInputScaleKey: scale])
        #expect(out.extent == input.extent.insetBy(dx: -3, dy: -3))
        let rect = out.extent.integral
        try check(out, rect) { x, y in
            // The map's linear red and green at this pixel; clear (0, 0) outside it.
            let mx = Int(floor(x)) - 3, my = Int(floor(y)) - 2
            var r = 0.0, g = 0.0
            if mx >= 0, mx < dw, my >= 0, my < dh {
                let i = ((dh - 1 - my) * dw + mx) * 4
                r = srgbToLinear(Double(dp[i]) / 255); g = srgbToLinear(Double(dp[i + 1]) / 255)
            }
            return (x + scale * (r - 0.5), y + scale * (g - 0.5))
        }
        try tiledEqualsWhole(out, rect)
        // Scale 0 (and below, clamped to Apple's minimum 0) is the identity.
        let f = CIFilter.displacementDistortion()
        #expect(f.scale == 50)
        f.inputImage = input; f.displacementImage = map; f.scale = 0
        #expect(try render(f.outputImage!, input.extent) == render(input, input.extent))
        f.scale = -4
        #expect(try render(f.outputImage!, input.extent) == render(input, input.extent))
        // HDR and NaN displacement values stay within scale/2; a huge scale does not crash.
        let wild = CIImage(color: CIColor(red: 40, green: -3, blue: 0))
        f.displacementImage = wild; f.scale = 4
        try check(f.outputImage!, rect) { x, y in (x + 2, y - 2) }
        f.scale = 1e12
        _ = try render(f.outputImage!, input.extent, tile: 5)
        f.setValue(Double.nan, forKey: kCIInputScaleKey)
        #expect(throws: CIFilterError.nonFinite(filter: "CIDisplacementDistortion", key: kCIInputScaleKey)) { try f.makeOutputImage() }
        // A crop reads only the input the crop's displacements reach.
        let ctx = CIContext()
        let crop = CGRect(x: 5, y: 5, width: 3, height: 2)
        _ = try ctx.renderToData(out.cropped(to: crop), from: crop)
        #expect(ctx.lastRenderStatistics.sourcePixels <= 3 * 2 + 10 * 9)
    }

    // MARK: CIGlassDistortion

    @Test func glassMovesSamplesUpTheTexturesLuminanceSlopes() throws {
        // A 16x14 texture centred on (11, 9): its bottom-left pixel lands on (3, 2).
        let tw = 16, th = 14
        var tp = [UInt8](repeating: 255, count: tw * th * 4)
        for y in 0..<th {
            for x in 0..<tw {
                let i = (y * tw + x) * 4
                tp[i] = UInt8((x * x * 7 + y * 31) % 256); tp[i + 1] = UInt8((x * 23 + y * y * 5) % 256); tp[i + 2] = UInt8((x * y * 11) % 256)
            }
        }
        let texture = image(tp, tw, th)
        let scale = 9.0
        let out = input.applyingFilter("CIGlassDistortion", parameters: ["inputTexture": texture, kCIInputCenterKey: CIVector(x: 11, y: 9), kCIInputScaleKey: scale])
        #expect(out.extent == input.extent.insetBy(dx: -4.5, dy: -4.5))
        /// The texture's clamped luminance at pixel (x, y) of the output plane; 0 outside it.
        func lum(_ x: Int, _ y: Int) -> Double {
            let tx = x - 3, ty = y - 2
            guard tx >= 0, tx < tw, ty >= 0, ty < th else { return 0 }
            let p = linearPixel(tp, tw, tx, th - 1 - ty)
            return min(max(0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2], 0), 1)
        }
        let rect = out.extent.integral
        try check(out, rect) { x, y in
            let i = Int(floor(x)), j = Int(floor(y))
            return (x + scale * (lum(i + 1, j) - lum(i - 1, j)) / 2, y + scale * (lum(i, j + 1) - lum(i, j - 1)) / 2)
        }
        try tiledEqualsWhole(out, rect)
        let f = CIFilter.glassDistortion()
        #expect(f.scale == 200 && f.center == CGPoint(x: 150, y: 150))
        f.inputImage = input; f.texture = texture; f.scale = 0
        #expect(try render(f.outputImage!, input.extent) == render(input, input.extent))
        // A flat texture moves nothing.
        f.texture = CIImage(color: CIColor(red: 0.3, green: 0.6, blue: 0.1)); f.scale = 50
        try check(f.outputImage!, input.extent) { x, y in (x, y) }
        f.setValue(CIVector(x: .infinity, y: 0), forKey: kCIInputCenterKey)
        #expect(throws: CIFilterError.nonFinite(filter: "CIGlassDistortion", key: kCIInputCenterKey)) { try f.makeOutputImage() }
    }

    // MARK: Parameters

    @Test func nonFiniteParametersThrowAndOddOnesDoNotCrash() throws {
        for name in [
            "CITwirlDistortion", "CIVortexDistortion", "CIPinchDistortion", "CIBumpDistortion",
            "CIBumpDistortionLinear", "CIHoleDistortion", "CICircleSplashDistortion",
            "CICircularWrap", "CILightTunnel", "CITorusLensDistortion",
        ] {
            let f = CIFilter(name: name)!
            f.setValue(input, forKey: kCIInputImageKey)
            f.setValue(CIVector(x: .nan, y: 3), forKey: kCIInputCenterKey)
            #expect(throws: CIFilterError.nonFinite(filter: name, key: kCIInputCenterKey)) { try f.makeOutputImage() }
            f.setValue(CIVector(x: 5, y: 3), forKey: kCIInputCenterKey)
            f.setValue(Double.infinity, forKey: kCIInputRadiusKey)
            #expect(throws: CIFilterError.nonFinite(filter: name, key: kCIInputRadiusKey)) { try f.makeOutputImage() }
            // Radius 0, a huge radius, a far centre: finite output, no crash.
            for (r, c) in [(0.0, CIVector(x: 5, y: 3)), (1e12, CIVector(x: 5, y: 3)), (6, CIVector(x: 1e15, y: -1e15))] {
                f.setValue(r, forKey: kCIInputRadiusKey)
                f.setValue(c, forKey: kCIInputCenterKey)
                let px = try render(try f.makeOutputImage(), input.extent, tile: 7)
                #expect(px.allSatisfy { $0.x.isFinite && $0.w.isFinite }, "\(name) radius \(r)")
            }
        }
        // An empty input stays empty.
        #expect(CIImage.empty().applyingFilter("CIHoleDistortion", parameters: [kCIInputCenterKey: centre]).extent.isEmpty)
    }
}
