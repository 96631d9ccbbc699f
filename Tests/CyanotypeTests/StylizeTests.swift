import Foundation
import Testing
@testable import Cyanotype

/// Pixellation and edge filters against references written here from the formulas their doc
/// comments state (premultiplied linear pixels; cells sample bilinearly, clear outside the
/// input; Sobel sums read the input clamped to its extent).
@Suite struct StylizeTests {
    let w = 21, h = 17
    var pixels: [UInt8] { testPixels(width: w, height: h, alpha: true) }
    var input: CIImage { image(pixels, w, h) }

    let premulContext = CIContext(options: [
        .outputColorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!,
        .outputPremultiplied: true, .cacheIntermediates: false,
    ])
    func tiledContext(_ side: Int) -> CIContext {
        CIContext(options: [
            .tileSize: side, .outputColorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!,
            .outputPremultiplied: true, .cacheIntermediates: false,
        ])
    }

    /// Premultiplied linear pixel at (x, yUp), clear outside the image.
    func premul(_ x: Int, _ yUp: Int) -> [Double] {
        guard x >= 0, x < w, yUp >= 0, yUp < h else { return [0, 0, 0, 0] }
        let p = linearPixel(pixels, w, x, h - 1 - yUp)
        return [p[0] * p[3], p[1] * p[3], p[2] * p[3], p[3]]
    }
    /// The same with the image clamped to its extent (edge pixels repeat).
    func clamped(_ x: Int, _ yUp: Int) -> [Double] { premul(min(max(x, 0), w - 1), min(max(yUp, 0), h - 1)) }

    /// Renders `rect` premultiplied; `at(x, yUp)` reads one pixel.
    func rendered(_ img: CIImage, _ rect: CGRect, context: CIContext? = nil) throws -> (pixels: [SIMD4<Float>], at: (Int, Int) -> SIMD4<Float>) {
        let px = try renderFloat(img, rect, context: context ?? premulContext)
        let rw = Int(rect.width), top = Int(rect.maxY) - 1, left = Int(rect.minX)
        return (px, { x, yUp in px[(top - yUp) * rw + (x - left)] })
    }

    /// Bilinear sample of the premultiplied image at (px, py) (pixel centres at k + 0.5).
    func bilinear(_ px: Double, _ py: Double) -> [Double] {
        let sx = px - 0.5, sy = py - 0.5
        let x0 = Int(floor(sx)), y0 = Int(floor(sy))
        let fx = sx - floor(sx), fy = sy - floor(sy)
        let a = premul(x0, y0), b = premul(x0 + 1, y0), c = premul(x0, y0 + 1), d = premul(x0 + 1, y0 + 1)
        return (0..<4).map { k in (a[k] * (1 - fx) + b[k] * fx) * (1 - fy) + (c[k] * (1 - fx) + d[k] * fx) * fy }
    }

    func expectTiledEqualsWhole(_ img: CIImage, _ rect: CGRect, _ what: String) throws {
        let whole = try rendered(img, rect).pixels
        for side in [3, 5, 7] {
            #expect(try rendered(img, rect, context: tiledContext(side)).pixels == whole, "\(what) tiles \(side)")
        }
    }

    // MARK: - CIPixellate

    /// The square cell's sample point, from the definition: grid lines through the centre.
    func squareSample(_ x: Int, _ yUp: Int, center: (Double, Double), scale s: Double) -> (Double, Double) {
        let i = floor((Double(x) + 0.5 - center.0) / s), j = floor((Double(yUp) + 0.5 - center.1) / s)
        return (center.0 + (i + 0.5) * s, center.1 + (j + 0.5) * s)
    }

    @Test(arguments: [(3.3, 2.7, 4.0), (0.0, 0.0, 5.0), (10.0, 8.0, 6.0), (150.0, 150.0, 8.0), (-2.5, 40.25, 3.5)])
    func pixellateMatchesTheDefinition(_ cx: Double, _ cy: Double, _ s: Double) throws {
        let out = input.applyingFilter("CIPixellate", parameters: [kCIInputCenterKey: CIVector(x: cx, y: cy), kCIInputScaleKey: s])
        // The extent: every cell overlapping the input, whole.
        let x0 = cx + floor((0 - cx) / s) * s, y0 = cy + floor((0 - cy) / s) * s
        let x1 = cx + ceil((Double(w) - cx) / s) * s, y1 = cy + ceil((Double(h) - cy) / s) * s
        #expect(abs(out.extent.minX - x0) < 1e-9 && abs(out.extent.minY - y0) < 1e-9)
        #expect(abs(out.extent.maxX - x1) < 1e-9 && abs(out.extent.maxY - y1) < 1e-9)
        let rect = CGRect(x: -3, y: -3, width: w + 6, height: h + 6)
        let r = try rendered(out, rect)
        for yUp in stride(from: -3, to: h + 3, by: 2) {
            for x in stride(from: -3, to: w + 3, by: 3) {
                let (px, py) = squareSample(x, yUp, center: (cx, cy), scale: s)
                let inside = Double(x) + 0.5 >= x0 && Double(x) + 0.5 < x1 && Double(yUp) + 0.5 >= y0 && Double(yUp) + 0.5 < y1
                let e = inside ? bilinear(px, py) : [0, 0, 0, 0]
                #expect(close(r.at(x, yUp), e, tol: 2e-5, "(\(cx), \(cy)) scale \(s) at \(x),\(yUp)"))
            }
        }
    }

    @Test func pixellateAtScaleOneIsTheImage() throws {
        let out = input.applyingFilter("CIPixellate", parameters: [kCIInputCenterKey: CIVector(x: 0, y: 0), kCIInputScaleKey: 1])
        #expect(out.extent == input.extent)
        #expect(try rendered(out, input.extent).pixels == rendered(input, input.extent).pixels)
        // Scale 0 and negative scales are Apple's minimum, 1.
        for bad in [0.0, -7.0] {
            let o = input.applyingFilter("CIPixellate", parameters: [kCIInputCenterKey: CIVector(x: 0, y: 0), kCIInputScaleKey: bad])
            #expect(try rendered(o, input.extent).pixels == rendered(input, input.extent).pixels)
        }
    }

    @Test func tiledPixellateEqualsWholeRender() throws {
        for (name, s) in [("CIPixellate", 4.0), ("CIPixellate", 6.5), ("CIHexagonalPixellate", 5.0), ("CIHexagonalPixellate", 3.0)] {
            let out = input.applyingFilter(name, parameters: [kCIInputCenterKey: CIVector(x: 7.3, y: 5.6), kCIInputScaleKey: s])
            try expectTiledEqualsWhole(out, out.extent.integral, "\(name) \(s)")
        }
    }

    @Test func aOnePixelCropReadsOnlyTheCellsSamplePoint() throws {
        let big = image(testPixels(width: 200, height: 150), 200, 150)
        let ctx = CIContext()
        for name in ["CIPixellate", "CIHexagonalPixellate"] {
            for s in [8.0, 25.0, 5000.0] {
                let out = big.applyingFilter(name, parameters: [kCIInputCenterKey: CIVector(x: 100.3, y: 70.1), kCIInputScaleKey: s])
                let crop = CGRect(x: 123, y: 81, width: 1, height: 1)
                _ = try ctx.renderToData(out.cropped(to: crop), from: crop)
                #expect(ctx.lastRenderStatistics.sourcePixels <= 4, "\(name) scale \(s)")
            }
            // A crop inside one cell reads only the 2x2 pixels around its one sample point
            // (the square cell [100.3, 130.3) x [70.1, 100.1); the hexagon centred on
            // (100.3, 70.1), 15 pixels from centre to flat).
            let out = big.applyingFilter(name, parameters: [kCIInputCenterKey: CIVector(x: 100.3, y: 70.1), kCIInputScaleKey: 30])
            let crop = name == "CIPixellate" ? CGRect(x: 101, y: 71, width: 29, height: 29) : CGRect(x: 95, y: 65, width: 10, height: 10)
            _ = try ctx.renderToData(out.cropped(to: crop), from: crop)
            #expect(ctx.lastRenderStatistics.sourcePixels <= 4, "\(name)")
        }
    }

    @Test func badCellParametersNeverCrash() throws {
        for name in ["CIPixellate", "CIHexagonalPixellate"] {
            let f = try #require(CIFilter(name: name))
            f.setValue(input, forKey: kCIInputImageKey)
            f.setValue(Double.nan, forKey: kCIInputScaleKey)
            #expect(throws: CIFilterError.nonFinite(filter: name, key: kCIInputScaleKey)) { try f.makeOutputImage() }
            f.setValue(Double.infinity, forKey: kCIInputScaleKey)
            #expect(throws: CIFilterError.nonFinite(filter: name, key: kCIInputScaleKey)) { try f.makeOutputImage() }
            f.setValue(8, forKey: kCIInputScaleKey)
            f.setValue(CIVector(x: .nan, y: 0), forKey: kCIInputCenterKey)
            #expect(throws: CIFilterError.nonFinite(filter: name, key: kCIInputCenterKey)) { try f.makeOutputImage() }
            f.setValue(CIVector(x: .infinity, y: 0), forKey: kCIInputCenterKey)
            #expect(throws: CIFilterError.nonFinite(filter: name, key: kCIInputCenterKey)) { try f.makeOutputImage() }
            // Huge scales and far centres render (one cell, or clear).
            for (c, s) in [(CGFloat(1e300), 8.0), (0, 1e300), (-1e18, 1e12), (5, 1e9)] {
                let out = input.applyingFilter(name, parameters: [kCIInputCenterKey: CIVector(x: c, y: c), kCIInputScaleKey: s])
                let px = try rendered(out, input.extent).pixels
                #expect(px.count == w * h && px.allSatisfy { $0.x.isFinite && $0.w >= 0 && $0.w <= 1 }, "\(name) \(c) \(s)")
            }
        }
    }

    @Test func infiniteInputsGiveInfinitePixellations() throws {
        let red = CIImage(color: CIColor(red: 0.5, green: 0.25, blue: 0, alpha: 1))
        for name in ["CIPixellate", "CIHexagonalPixellate"] {
            let out = red.applyingFilter(name, parameters: [kCIInputScaleKey: 9])
            #expect(out.extent.isInfinite)
            #expect(close(try rendered(out, CGRect(x: -500, y: 20, width: 2, height: 2)).at(-499, 21), [srgbToLinear(0.5), srgbToLinear(0.25), 0, 1], tol: 1e-5))
        }
    }

    @Test func typedPixellateAPI() throws {
        let f = CIFilter.pixellate()
        #expect(f.scale == 8 && f.center == CGPoint(x: 150, y: 150))
        f.inputImage = input
        f.scale = 3
        f.center = CGPoint(x: 1, y: 2)
        let named = input.applyingFilter("CIPixellate", parameters: [kCIInputScaleKey: 3, kCIInputCenterKey: CIVector(x: 1, y: 2)])
        let typed = try #require(f.outputImage)
        #expect(typed.extent == named.extent)
        #expect(try rendered(typed, typed.extent).pixels == rendered(named, named.extent).pixels)
        let hex = CIFilter.hexagonalPixellate()
        #expect(hex.scale == 8 && hex.center == CGPoint(x: 150, y: 150))
        hex.inputImage = input
        hex.scale = 4
        #expect(
            try rendered(try #require(hex.outputImage), input.extent).pixels
                == rendered(input.applyingFilter("CIHexagonalPixellate", parameters: [kCIInputScaleKey: 4]), input.extent).pixels)
        #expect(CIFilter(name: "CIHexagonalPixellate") is CIFilter & CIHexagonalPixellate)
    }

    // MARK: - CIHexagonalPixellate

    /// The nearest lattice centre by brute force over nearby lattice points: rows `s√3/2`
    /// apart through the centre, odd rows shifted by s/2.
    func hexSample(_ x: Int, _ yUp: Int, center: (Double, Double), scale s: Double) -> (Double, Double) {
        let px = Double(x) + 0.5, py = Double(yUp) + 0.5
        let rowStep = s * 3.0.squareRoot() / 2
        let jc = Int(((py - center.1) / rowStep).rounded()), ic = Int(((px - center.0) / s).rounded())
        var best = (0.0, 0.0), bestD = Double.infinity
        for j in (jc - 3)...(jc + 3) {
            for i in (ic - 3)...(ic + 3) {
                let cx = center.0 + (Double(i) + (j & 1 == 0 ? 0 : 0.5)) * s, cy = center.1 + Double(j) * rowStep
                let d = (px - cx) * (px - cx) + (py - cy) * (py - cy)
                if d < bestD { bestD = d; best = (cx, cy) }
            }
        }
        return best
    }

    @Test(arguments: [(5.3, 4.1, 6.0), (10.0, 8.0, 4.0), (150.0, 150.0, 8.0), (-3.7, 2.2, 3.0)])
    func hexagonalPixellateMatchesTheDefinition(_ cx: Double, _ cy: Double, _ s: Double) throws {
        let out = input.applyingFilter("CIHexagonalPixellate", parameters: [kCIInputCenterKey: CIVector(x: cx, y: cy), kCIInputScaleKey: s])
        let grow = 2 * s / 3.0.squareRoot()
        #expect(abs(out.extent.minX + grow) < 1e-9 && abs(out.extent.maxY - Double(h) - grow) < 1e-9)
        let r = try rendered(out, input.extent)
        for yUp in 0..<h {
            for x in stride(from: yUp % 2, to: w, by: 2) {
                let (px, py) = hexSample(x, yUp, center: (cx, cy), scale: s)
                #expect(close(r.at(x, yUp), bilinear(px, py), tol: 2e-5, "(\(cx), \(cy)) scale \(s) at \(x),\(yUp)"))
            }
        }
    }

    // MARK: - CICrystallize, CIPointillize

    /// The documented jitter: SplitMix64's finaliser of i * 0x9E3779B97F4A7C15 + j * 0xC2B2AE3D27D4EB4F,
    /// top 26 bits for u, the next 26 for v.
    func jitter(_ i: Int, _ j: Int) -> (Double, Double) {
        var z = UInt64(bitPattern: Int64(i)) &* 0x9E3779B97F4A7C15 &+ UInt64(bitPattern: Int64(j)) &* 0xC2B2AE3D27D4EB4F
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        z ^= z >> 31
        return (Double(z >> 38) / 67_108_864, Double((z >> 12) % 67_108_864) / 67_108_864)
    }

    /// The nearest jittered site by brute force over 7x7 grid cells, and its distance.
    func nearestSite(_ x: Int, _ yUp: Int, origin: (Double, Double), spacing s: Double) -> (Double, Double, Double) {
        let px = Double(x) + 0.5, py = Double(yUp) + 0.5
        let ci = Int(floor((px - origin.0) / s)), cj = Int(floor((py - origin.1) / s))
        var best = (0.0, 0.0, Double.infinity)
        for j in (cj - 3)...(cj + 3) {
            for i in (ci - 3)...(ci + 3) {
                let (u, v) = jitter(i, j)
                let sx = origin.0 + (Double(i) + 0.2 + 0.6 * u) * s, sy = origin.1 + (Double(j) + 0.2 + 0.6 * v) * s
                let d = ((sx - px) * (sx - px) + (sy - py) * (sy - py)).squareRoot()
                if d < best.2 { best = (sx, sy, d) }
            }
        }
        return best
    }

    @Test(arguments: [(150.0, 150.0, 5.0), (2.5, 3.25, 3.0), (-7.0, 11.0, 8.0), (0.0, 0.0, 1.0)])
    func crystallizeMatchesTheDefinition(_ cx: Double, _ cy: Double, _ r: Double) throws {
        let out = input.applyingFilter("CICrystallize", parameters: [kCIInputCenterKey: CIVector(x: cx, y: cy), kCIInputRadiusKey: r])
        let grow = (1.132 * r + 1).rounded(.up)
        #expect(out.extent == input.extent.insetBy(dx: -grow, dy: -grow))
        let rect = input.extent.insetBy(dx: -2, dy: -2)
        let got = try rendered(out, rect)
        for yUp in -2..<(h + 2) {
            for x in stride(from: -2 + (yUp & 1), to: w + 2, by: 2) {
                let (sx, sy, _) = nearestSite(x, yUp, origin: (cx, cy), spacing: r)
                #expect(close(got.at(x, yUp), bilinear(sx, sy), tol: 2e-5, "(\(cx), \(cy)) radius \(r) at \(x),\(yUp)"))
            }
        }
    }

    @Test(arguments: [(150.0, 150.0, 4.0), (1.5, -2.25, 2.5), (0.0, 0.0, 7.0)])
    func pointillizeMatchesTheDefinition(_ cx: Double, _ cy: Double, _ r: Double) throws {
        let out = input.applyingFilter("CIPointillize", parameters: [kCIInputCenterKey: CIVector(x: cx, y: cy), kCIInputRadiusKey: r])
        let grow = (r + 1).rounded(.up)
        #expect(out.extent == input.extent.insetBy(dx: -grow, dy: -grow))
        let got = try rendered(out, input.extent)
        var clear = 0, dots = 0
        for yUp in 0..<h {
            for x in 0..<w {
                let (sx, sy, d) = nearestSite(x, yUp, origin: (cx, cy), spacing: 1.6 * r)
                let e = d <= r ? bilinear(sx, sy) : [0, 0, 0, 0]
                if d <= r { dots += 1 } else { clear += 1 }
                #expect(close(got.at(x, yUp), e, tol: 2e-5, "(\(cx), \(cy)) radius \(r) at \(x),\(yUp)"))
            }
        }
        #expect(dots > 0 && clear > 0, "dots on clear")
    }

    @Test func tiledCrystalsAndDotsEqualWholeRenders() throws {
        for name in ["CICrystallize", "CIPointillize"] {
            for r in [3.0, 4.5] {
                let out = input.applyingFilter(name, parameters: [kCIInputCenterKey: CIVector(x: 7.3, y: 5.6), kCIInputRadiusKey: r])
                try expectTiledEqualsWhole(out, out.extent, "\(name) \(r)")
            }
        }
    }

    @Test func crystalsAndDotsReadOnlyTheirSites() throws {
        let big = image(testPixels(width: 200, height: 150), 200, 150)
        let ctx = CIContext()
        for name in ["CICrystallize", "CIPointillize"] {
            for r in [6.0, 40.0, 1e7] {
                let out = big.applyingFilter(name, parameters: [kCIInputCenterKey: CIVector(x: 10.3, y: 7.1), kCIInputRadiusKey: r])
                let crop = CGRect(x: 123, y: 81, width: 1, height: 1)
                _ = try ctx.renderToData(out.cropped(to: crop), from: crop)
                #expect(ctx.lastRenderStatistics.sourcePixels <= 4, "\(name) radius \(r)")
            }
        }
    }

    @Test func badCrystalParametersNeverCrash() throws {
        for name in ["CICrystallize", "CIPointillize"] {
            let f = try #require(CIFilter(name: name))
            f.setValue(input, forKey: kCIInputImageKey)
            f.setValue(Double.nan, forKey: kCIInputRadiusKey)
            #expect(throws: CIFilterError.nonFinite(filter: name, key: kCIInputRadiusKey)) { try f.makeOutputImage() }
            f.setValue(5, forKey: kCIInputRadiusKey)
            f.setValue(CIVector(x: 0, y: .infinity), forKey: kCIInputCenterKey)
            #expect(throws: CIFilterError.nonFinite(filter: name, key: kCIInputCenterKey)) { try f.makeOutputImage() }
            // Radius 0 is Apple's minimum, 1; huge radii and far centres render.
            let zero = input.applyingFilter(name, parameters: [kCIInputRadiusKey: 0])
            let one = input.applyingFilter(name, parameters: [kCIInputRadiusKey: 1])
            #expect(try rendered(zero, input.extent).pixels == rendered(one, input.extent).pixels)
            for (c, r) in [(CGFloat(1e300), 20.0), (0, 1e300), (-1e18, 1e12)] {
                let out = input.applyingFilter(name, parameters: [kCIInputCenterKey: CIVector(x: c, y: c), kCIInputRadiusKey: r])
                let px = try rendered(out, input.extent).pixels
                #expect(px.count == w * h && px.allSatisfy { $0.x.isFinite && $0.w >= 0 && $0.w <= 1 }, "\(name) \(c) \(r)")
            }
        }
    }

    @Test func typedCrystalAPI() throws {
        let c = CIFilter.crystallize()
        #expect(c.radius == 20 && c.center == CGPoint(x: 150, y: 150))
        c.inputImage = input
        c.radius = 4
        #expect(
            try rendered(try #require(c.outputImage), input.extent).pixels
                == rendered(input.applyingFilter("CICrystallize", parameters: [kCIInputRadiusKey: 4]), input.extent).pixels)
        let p = CIFilter.pointillize()
        #expect(p.radius == 20 && p.center == CGPoint(x: 150, y: 150))
        p.inputImage = input
        p.radius = 3
        p.center = CGPoint(x: 2, y: 1)
        #expect(
            try rendered(try #require(p.outputImage), input.extent).pixels
                == rendered(input.applyingFilter("CIPointillize", parameters: [kCIInputRadiusKey: 3, kCIInputCenterKey: CIVector(x: 2, y: 1)]), input.extent).pixels)
        #expect(CIFilter(name: "CIPointillize") is CIFilter & CIPointillize)
    }

    // MARK: - Sobel edges

    /// Unnormalised Sobel sums of component k of the clamped premultiplied image.
    func sobel(_ x: Int, _ yUp: Int, _ at: (Int, Int) -> [Double]) -> (gx: [Double], gy: [Double]) {
        var gx = [0.0, 0, 0, 0], gy = [0.0, 0, 0, 0]
        let n = (0...2).map { dy in (0...2).map { dx in at(x + dx - 1, yUp + dy - 1) } }
        func p(_ dx: Int, _ dy: Int) -> [Double] { n[dy + 1][dx + 1] }
        for k in 0..<4 {
            gx[k] = (p(1, 1)[k] + 2 * p(1, 0)[k] + p(1, -1)[k]) - (p(-1, 1)[k] + 2 * p(-1, 0)[k] + p(-1, -1)[k])
            gy[k] = (p(-1, 1)[k] + 2 * p(0, 1)[k] + p(1, 1)[k]) - (p(-1, -1)[k] + 2 * p(0, -1)[k] + p(1, -1)[k])
        }
        return (gx, gy)
    }
    func luma(_ v: [Double]) -> Double { 0.2125 * v[0] + 0.7154 * v[1] + 0.0721 * v[2] }
    func lumaSobel(_ x: Int, _ yUp: Int, _ at: (Int, Int) -> [Double]) -> Double {
        let g = sobel(x, yUp, at)
        return (luma(g.gx) * luma(g.gx) + luma(g.gy) * luma(g.gy)).squareRoot()
    }

    static let samplePoints = [(0, 0), (20, 16), (0, 16), (20, 0), (10, 8), (3, 11), (17, 4), (7, 0), (20, 9), (12, 15)]

    @Test(arguments: [1.0, 2.5, 0.0]) func edgesMatchSobelMagnitude(_ k: Double) throws {
        let out = input.applyingFilter("CIEdges", parameters: [kCIInputIntensityKey: k])
        #expect(out.extent == input.extent)
        let r = try rendered(out, input.extent)
        for (x, yUp) in Self.samplePoints {
            let g = sobel(x, yUp, clamped)
            let e = (0..<3).map { k * (g.gx[$0] * g.gx[$0] + g.gy[$0] * g.gy[$0]).squareRoot() } + [1]
            #expect(close(r.at(x, yUp), e, tol: 1e-4, "intensity \(k) at \(x),\(yUp)"))
        }
    }

    @Test func sobelGradientsAreSignedLargestComponents() throws {
        let out = input.applyingFilter("CISobelGradients")
        #expect(out.extent == input.extent)
        let r = try rendered(out, input.extent)
        func largest(_ g: [Double]) -> Double { g[0..<3].max { abs($0) < abs($1) }! }
        var sawNegative = false
        for (x, yUp) in Self.samplePoints {
            let g = sobel(x, yUp, clamped)
            let e = [largest(g.gx), largest(g.gy), 0, 1]
            sawNegative = sawNegative || e[0] < 0 || e[1] < 0
            #expect(close(r.at(x, yUp), e, tol: 1e-4, "at \(x),\(yUp)"))
        }
        // A flat image has no gradient; a horizontal ramp only an x gradient.
        let flat = CIImage(color: CIColor(red: 0.3, green: 0.6, blue: 0.9)).cropped(to: input.extent).applyingFilter("CISobelGradients")
        #expect(try rendered(flat, input.extent).pixels.allSatisfy { $0 == SIMD4(0, 0, 0, 1) })
        #expect(sawNegative, "the samples include a falling edge")
    }

    @Test func edgeWorkIsInkOnWhitePaper() throws {
        // Radius 0: the ink ramp on the input's own luma gradient.
        let out = input.applyingFilter("CIEdgeWork", parameters: [kCIInputRadiusKey: 0])
        #expect(out.extent == input.extent)
        let r = try rendered(out, input.extent)
        func ink(_ e: Double) -> Double { min(max((e - 0.1) / 0.1, 0), 1) }
        for (x, yUp) in Self.samplePoints {
            let v = 1 - ink(lumaSobel(x, yUp, clamped))
            #expect(close(r.at(x, yUp), [v, v, v, 1], tol: 1e-4, "at \(x),\(yUp)"))
        }
        // Radius 2: the same ramp on a Gaussian blur (sigma 2) of the clamped input.
        let blurred = input.clampedToExtent().applyingFilter("CIGaussianBlur", parameters: [kCIInputRadiusKey: 2])
        let bRect = input.extent.insetBy(dx: -1, dy: -1)
        let b = try rendered(blurred, bRect)
        let bAt = { (x: Int, y: Int) -> [Double] in
            let p = b.at(x, y); return [Double(p.x), Double(p.y), Double(p.z), Double(p.w)]
        }
        let r2 = try rendered(input.applyingFilter("CIEdgeWork", parameters: [kCIInputRadiusKey: 2]), input.extent)
        var inked = 0
        for (x, yUp) in Self.samplePoints {
            let v = 1 - ink(lumaSobel(x, yUp, bAt))
            if v < 1 { inked += 1 }
            #expect(close(r2.at(x, yUp), [v, v, v, 1], tol: 1e-4, "radius 2 at \(x),\(yUp)"))
        }
        // A flat image is white paper.
        let flat = CIImage(color: CIColor(red: 0.2, green: 0.4, blue: 0.1)).cropped(to: input.extent).applyingFilter("CIEdgeWork")
        #expect(try rendered(flat, input.extent).pixels.allSatisfy { $0 == SIMD4(1, 1, 1, 1) })
        #expect(inked > 0, "some samples are inked")
    }

    /// CILineOverlay's noise reduction at (x, yUp), from its doc comment.
    func reduced(_ x: Int, _ yUp: Int, noise: Double, sharpness: Double) -> [Double] {
        let p = clamped(x, yUp)
        var sum = [0.0, 0, 0, 0], all = [0.0, 0, 0, 0], n = 0.0
        for dy in -1...1 {
            for dx in -1...1 {
                let q = clamped(x + dx, yUp + dy)
                for k in 0..<4 { all[k] += q[k] }
                if abs(luma(q) - luma(p)) <= noise { n += 1; for k in 0..<4 { sum[k] += q[k] } }
            }
        }
        return (0..<4).map { k in sum[k] / n + sharpness * (sum[k] / n - all[k] / 9) }
    }

    @Test(arguments: [(0.07, 0.71, 1.0, 0.1, 50.0), (0.0, 0.0, 1.0, 0.0, 1.0), (0.03, 1.5, 3.0, 0.2, 4.0)])
    func lineOverlayMatchesItsPipeline(_ noise: Double, _ sharpness: Double, _ k: Double, _ t: Double, _ c: Double) throws {
        let out = input.applyingFilter(
            "CILineOverlay",
            parameters: [
                "inputNRNoiseLevel": noise, "inputNRSharpness": sharpness,
                "inputEdgeIntensity": k, "inputThreshold": t, "inputContrast": c,
            ])
        #expect(out.extent == input.extent)
        let r = try rendered(out, input.extent)
        // The reduced image is itself read clamped... as NR of the clamped input, past the border.
        for (x, yUp) in Self.samplePoints {
            let e = lumaSobel(x, yUp) { reduced($0, $1, noise: noise, sharpness: sharpness) }
            let a = min(max(c * (k * e - t), 0), 1)
            #expect(close(r.at(x, yUp), [0, 0, 0, a], tol: 2e-4, "at \(x),\(yUp)"))
        }
    }

    @Test func comicEffectIsLinesOverPosterizedColour() throws {
        let out = input.applyingFilter("CIComicEffect")
        #expect(out.extent == input.extent)
        let lines = input.applyingFilter("CILineOverlay")
        let poster = input.applyingFilter("CIColorPosterize", parameters: ["inputLevels": 6])
        let r = try rendered(out, input.extent)
        let l = try rendered(lines, input.extent), p = try rendered(poster, input.extent)
        for (x, yUp) in Self.samplePoints {
            // Source-over: lines + (1 - alpha(lines)) * posterized.
            let a = Double(l.at(x, yUp).w), q = p.at(x, yUp)
            let e = (0..<4).map { Double(l.at(x, yUp)[$0]) + (1 - a) * Double(q[$0]) }
            #expect(close(r.at(x, yUp), e, tol: 1e-5, "at \(x),\(yUp)"))
            // Posterized straight colour: floor(v * 6 + 0.5) / 6.
            let s = premul(x, yUp), alpha = s[3]
            let expected = (0..<3).map { floor(s[$0] / alpha * 6 + 0.5) / 6 * alpha } + [alpha]
            #expect(close(q, expected, tol: 1e-4, "posterize at \(x),\(yUp)"))
        }
    }

    @Test func tiledEdgeFiltersEqualWholeRenders() throws {
        let filters: [(String, [String: Any])] = [
            ("CIEdges", [kCIInputIntensityKey: 3]), ("CISobelGradients", [:]), ("CIEdgeWork", [kCIInputRadiusKey: 1.5]),
            ("CIEdgeWork", [kCIInputRadiusKey: 0]), ("CILineOverlay", ["inputContrast": 3]), ("CIComicEffect", [:]),
        ]
        for (name, params) in filters {
            try expectTiledEqualsWhole(input.applyingFilter(name, parameters: params), input.extent, name)
        }
    }

    @Test func aOnePixelEdgeCropReadsOnlyItsNeighbourhood() throws {
        let big = image(testPixels(width: 200, height: 150), 200, 150)
        let ctx = CIContext()
        for (name, expected) in [("CIEdges", 9), ("CISobelGradients", 9), ("CIEdgeWork", 9), ("CILineOverlay", 25)] {
            let out = big.applyingFilter(name, parameters: name == "CIEdgeWork" ? [kCIInputRadiusKey: 0] : [:])
            let crop = CGRect(x: 100, y: 70, width: 1, height: 1)
            _ = try ctx.renderToData(out.cropped(to: crop), from: crop)
            #expect(ctx.lastRenderStatistics.sourcePixels == expected, "\(name)")
        }
    }

    @Test func badEdgeParameters() throws {
        let f = CIFilter.edges()
        f.inputImage = input
        f.setValue(Double.nan, forKey: kCIInputIntensityKey)
        #expect(throws: CIFilterError.nonFinite(filter: "CIEdges", key: kCIInputIntensityKey)) { try f.makeOutputImage() }
        // Below the minimum is the minimum: negative intensity is 0, a negative radius 0.
        f.intensity = -4
        #expect(try rendered(try f.makeOutputImage(), input.extent).pixels.allSatisfy { $0 == SIMD4(0, 0, 0, 1) })
        let work = CIFilter.edgeWork()
        work.inputImage = input
        work.radius = -3
        let zero = input.applyingFilter("CIEdgeWork", parameters: [kCIInputRadiusKey: 0])
        #expect(try rendered(try work.makeOutputImage(), input.extent).pixels == rendered(zero, input.extent).pixels)
        work.setValue(Double.infinity, forKey: kCIInputRadiusKey)
        #expect(throws: CIFilterError.nonFinite(filter: "CIEdgeWork", key: kCIInputRadiusKey)) { try work.makeOutputImage() }
        let lines = CIFilter.lineOverlay()
        lines.inputImage = input
        lines.setValue(Double.nan, forKey: "inputThreshold")
        #expect(throws: CIFilterError.nonFinite(filter: "CILineOverlay", key: "inputThreshold")) { try lines.makeOutputImage() }
        // Contrast below Apple's minimum 0.25 is 0.25.
        lines.threshold = 0
        lines.contrast = 0
        let quarter = input.applyingFilter("CILineOverlay", parameters: ["inputThreshold": 0, "inputContrast": 0.25])
        #expect(try rendered(try lines.makeOutputImage(), input.extent).pixels == rendered(quarter, input.extent).pixels)
    }

    @Test func typedEdgeAPI() throws {
        let e = CIFilter.edges()
        #expect(e.intensity == 1)
        e.inputImage = input
        e.intensity = 2
        #expect(
            try rendered(try #require(e.outputImage), input.extent).pixels == rendered(input.applyingFilter("CIEdges", parameters: [kCIInputIntensityKey: 2]), input.extent).pixels)
        let s = CIFilter.sobelGradients()
        s.inputImage = input
        #expect(s.outputImage?.extent == input.extent)
        let work = CIFilter.edgeWork()
        #expect(work.radius == 3)
        let lines = CIFilter.lineOverlay()
        #expect(lines.NRNoiseLevel == 0.07 && lines.NRSharpness == 0.71 && lines.edgeIntensity == 1 && lines.threshold == 0.1 && lines.contrast == 50)
        lines.inputImage = input
        lines.edgeIntensity = 2
        #expect(
            try rendered(try #require(lines.outputImage), input.extent).pixels
                == rendered(input.applyingFilter("CILineOverlay", parameters: ["inputEdgeIntensity": 2]), input.extent).pixels)
        let comic = CIFilter.comicEffect()
        comic.inputImage = input
        #expect(comic.outputImage?.extent == input.extent)
        #expect(CIFilter(name: "CIComicEffect") is CIFilter & CIComicEffect)
        #expect(CIFilter.filterNames(inCategory: kCICategoryStylize).contains("CILineOverlay"))
    }
}
