import Foundation
import Testing
@testable import Cyanotype

/// Reductions against straightforward sums written here over the same working-space pixels
/// (read back with `CIContext.reduce` from the unreduced image).
@Suite struct ReductionTests {
    static let w = 37, h = 23
    static let pixels = testPixels(width: w, height: h, alpha: true)
    var input: CIImage { image(Self.pixels, Self.w, Self.h) }
    let ctx = CIContext(options: [.cacheIntermediates: false])
    let tiled = CIContext(options: [.cacheIntermediates: false, .tileSize: 7])

    /// The premultiplied working values of the input, bottom row first.
    func values() throws -> [SIMD4<Float>] { try ctx.reduce(input) }

    func apply(_ name: String, _ params: [String: Any] = [:], extent: CGRect? = nil) -> CIImage {
        var p = params
        if let e = extent { p[kCIInputExtentKey] = CIVector(cgRect: e) }
        return input.applyingFilter(name, parameters: p)
    }

    func near(_ a: SIMD4<Float>, _ b: SIMD4<Double>, _ tol: Double = 1e-6, _ what: String = "") {
        for k in 0..<4 { #expect(abs(Double(a[k]) - b[k]) <= tol, "\(what) channel \(k): \(a[k]) vs \(b[k])") }
    }

    @Test func areaAverageIsTheMeanAndTileIndependent() throws {
        let v = try values()
        var s = SIMD4<Double>.zero
        for p in v { s += SIMD4<Double>(Double(p.x), Double(p.y), Double(p.z), Double(p.w)) }
        let out = apply("CIAreaAverage")
        #expect(out.extent == CGRect(x: 0, y: 0, width: 1, height: 1))
        let r = try ctx.reduce(out)
        near(r[0], s / Double(v.count), 1e-6)
        #expect(try tiled.reduce(out) == r)
    }

    @Test func subRegionAverage() throws {
        let v = try values()
        let rect = CGRect(x: 5, y: 3, width: 11, height: 9)
        var s = SIMD4<Double>.zero
        for y in 3..<12 { for x in 5..<16 { let p = v[y * Self.w + x]; s += SIMD4<Double>(Double(p.x), Double(p.y), Double(p.z), Double(p.w)) } }
        near(try ctx.reduce(apply("CIAreaAverage", extent: rect))[0], s / 99, 1e-6)
    }

    @Test func minimumMaximumAndMinMax() throws {
        let v = try values()
        var lo = SIMD4<Float>(repeating: .infinity), hi = SIMD4<Float>(repeating: -.infinity)
        for p in v { for k in 0..<4 { lo[k] = min(lo[k], p[k]); hi[k] = max(hi[k], p[k]) } }
        #expect(try ctx.reduce(apply("CIAreaMinimum")) == [lo])
        #expect(try ctx.reduce(apply("CIAreaMaximum")) == [hi])
        let mm = apply("CIAreaMinMax")
        #expect(mm.extent == CGRect(x: 0, y: 0, width: 2, height: 1))
        #expect(try tiled.reduce(mm) == [lo, hi])
        #expect(try ctx.reduce(apply("CIAreaMinMaxRed")) == [SIMD4(lo.x, hi.x, 0, 1)])
    }

    @Test func alphaExtremesPickThePixel() throws {
        let v = try values()
        let maxI = v.indices.max { v[$0].w < v[$1].w || (v[$0].w == v[$1].w && $0 > $1) }!
        let minI = v.indices.min { v[$0].w < v[$1].w || (v[$0].w == v[$1].w && $0 < $1) }!
        #expect(try tiled.reduce(apply("CIAreaMaximumAlpha")) == [v[maxI]])
        #expect(try tiled.reduce(apply("CIAreaMinimumAlpha")) == [v[minI]])
    }

    @Test func averageMaximumRed() throws {
        let v = try values()
        let mean = v.reduce(0.0) { $0 + Double($1.x) } / Double(v.count)
        let r = try ctx.reduce(apply("CIAreaAverageMaximumRed"))[0]
        #expect(abs(Double(r.x) - mean) < 1e-6)
        #expect(r.y == v.map(\.x).max()!)
    }

    @Test func boundsRed() throws {
        // A red square at x 4..<9, y 6..<10 (bottom-up) on clear, over a 20x16 region.
        let square = CIImage(color: .red).cropped(to: CGRect(x: 4, y: 6, width: 5, height: 4))
        let out = square.applyingFilter("CIAreaBoundsRed", parameters: [kCIInputExtentKey: CIVector(cgRect: CGRect(x: 0, y: 0, width: 20, height: 16))])
        near(try tiled.reduce(out)[0], SIMD4(4.0 / 20, 6.0 / 16, 5.0 / 20, 4.0 / 16), 1e-7)
    }

    func histogram(_ v: [SIMD4<Float>], bins: Int, _ binOf: (Float) -> Int, weight: (SIMD4<Float>) -> Double = { _ in 1 }) -> [SIMD4<Double>] {
        var hgram = [SIMD4<Double>](repeating: .zero, count: bins)
        for p in v { for k in 0..<4 { hgram[binOf(p[k])][k] += k < 3 ? weight(p) : 1 } }
        return hgram.map { $0 / Double(v.count) }
    }

    @Test func areaHistogramCountsAndSumsToScale() throws {
        let v = try values()
        let bins = 16
        let want = histogram(v, bins: bins) { x in min(bins - 1, Int(max(0, min(1, x)) * Float(bins))) }
        let out = apply("CIAreaHistogram", ["inputCount": bins, "inputScale": 2.5])
        #expect(out.extent == CGRect(x: 0, y: 0, width: bins, height: 1))
        let got = try tiled.reduce(out)
        for i in 0..<bins { near(got[i], want[i] * 2.5, 1e-6, "bin \(i)") }
        for k in 0..<4 { #expect(abs(got.reduce(0.0) { $0 + Double($1[k]) } - 2.5) < 1e-5) }
    }

    @Test func logarithmicHistogram() throws {
        let v = try values()
        let bins = 10
        let want = histogram(v, bins: bins) { x in
            x > 0 ? min(bins - 1, Int(max(0, min(1, (log2(x) + 10) / 14)) * Float(bins))) : 0
        }
        let got = try ctx.reduce(apply("CIAreaLogarithmicHistogram", ["inputCount": bins]))
        for i in 0..<bins { near(got[i], want[i], 1e-6, "bin \(i)") }
    }

    @Test func alphaWeightedHistogramOfOpaqueEqualsPlain() throws {
        let opaque = image(testPixels(width: 19, height: 11), 19, 11)
        let a = try ctx.reduce(opaque.applyingFilter("CIAreaAlphaWeightedHistogram", parameters: ["inputCount": 8]))
        let b = try ctx.reduce(opaque.applyingFilter("CIAreaHistogram", parameters: ["inputCount": 8]))
        for i in 0..<8 { for k in 0..<4 { #expect(abs(a[i][k] - b[i][k]) < 1e-6) } }
        // Translucent: red, green and blue weigh alpha, on straight colour.
        let v = try values()
        let want = histogram(
            v.map { p in p.w > 0 ? SIMD4(p.x / p.w, p.y / p.w, p.z / p.w, p.w) : p }, bins: 8,
            { x in min(7, Int(max(0, min(1, x)) * 8)) }, weight: { Double($0.w) })
        let got = try ctx.reduce(apply("CIAreaAlphaWeightedHistogram", ["inputCount": 8]))
        for i in 0..<8 { near(got[i], want[i], 1e-5, "bin \(i)") }
    }

    @Test func rowAndColumnAverages() throws {
        let v = try values()
        let cols = apply("CIColumnAverage")
        #expect(cols.extent == CGRect(x: 0, y: 0, width: Self.w, height: 1))
        let c = try tiled.reduce(cols)
        for x in [0, 7, 36] {
            var s = SIMD4<Double>.zero
            for y in 0..<Self.h { let p = v[y * Self.w + x]; s += SIMD4<Double>(Double(p.x), Double(p.y), Double(p.z), Double(p.w)) }
            near(c[x], s / Double(Self.h), 1e-6, "column \(x)")
        }
        let rows = apply("CIRowAverage")
        #expect(rows.extent == CGRect(x: 0, y: 0, width: 1, height: Self.h))
        let r = try tiled.reduce(rows)
        for y in [0, 10, 22] {
            var s = SIMD4<Double>.zero
            for x in 0..<Self.w { let p = v[y * Self.w + x]; s += SIMD4<Double>(Double(p.x), Double(p.y), Double(p.z), Double(p.w)) }
            near(r[y], s / Double(Self.w), 1e-6, "row \(y)")
        }
    }

    @Test func kMeansFindsTwoColours() throws {
        // Left third dark red, the rest light blue, opaque.
        let red = CIImage(color: CIColor(red: 0.6, green: 0.1, blue: 0.1)).cropped(to: CGRect(x: 0, y: 0, width: 40, height: 48))
        let blue = CIImage(color: CIColor(red: 0.2, green: 0.5, blue: 0.9)).cropped(to: CGRect(x: 40, y: 0, width: 80, height: 48))
        let img = red.composited(over: blue)
        let out = img.applyingFilter("CIKMeans", parameters: ["inputCount": 2, "inputPasses": 3])
        #expect(out.extent == CGRect(x: 0, y: 0, width: 2, height: 1))
        let m = try ctx.reduce(out).sorted { $0.w < $1.w }
        let r = CIColor(red: 0.6, green: 0.1, blue: 0.1).workingValue, b = CIColor(red: 0.2, green: 0.5, blue: 0.9).workingValue
        near(m[0], SIMD4(Double(r.x), Double(r.y), Double(r.z), 1.0 / 3), 1e-5)
        near(m[1], SIMD4(Double(b.x), Double(b.y), Double(b.z), 2.0 / 3), 1e-5)
    }

    @Test func histogramDisplayDrawsBars() throws {
        let hist = CIImage(
            bitmapData: Data(
                [SIMD4<Float>(0.5, 1, 0, 1), SIMD4<Float>(0.25, 0, 0, 1)].flatMap { p in
                    [p.x, p.y, p.z, p.w].flatMap { withUnsafeBytes(of: $0) { Array($0) } }
                }), bytesPerRow: 32, size: CGSize(width: 2, height: 1), format: .RGBAf, colorSpace: nil)
        let out = hist.applyingFilter("CIHistogramDisplayFilter", parameters: ["inputHeight": 8])
        #expect(out.extent == CGRect(x: 0, y: 0, width: 2, height: 8))
        let v = try ctx.reduce(out)
        // Column 0: red bar 4 of 8, green full; column 1: red 2 of 8.
        #expect(v[3 * 2 + 0] == SIMD4(1, 1, 0, 1))
        #expect(v[4 * 2 + 0] == SIMD4(0, 1, 0, 1))
        #expect(v[1 * 2 + 1] == SIMD4(1, 0, 0, 1))
        #expect(v[2 * 2 + 1] == SIMD4(0, 0, 0, 1))
    }

    // MARK: CIAreaHistogram's fast paths (HistogramKernels.swift) against a plain count

    /// CIAreaHistogram of `values` counted here: v clamped to [0, 1] (NaN as 0) times `count`,
    /// rounded down, 1 in the last bin; counts times `scale / area` (area: pixels of the region).
    func plainHistogram(_ values: [SIMD4<Float>], count: Int, scale: Double, area: Int? = nil) -> [SIMD4<Float>] {
        var c = [[Int]](repeating: [0, 0, 0, 0], count: count)
        for p in values {
            for k in 0..<4 {
                let x = p[k]
                let clamped: Float = x > 0 ? (x < 1 ? x : 1) : 0
                c[min(count - 1, Int(clamped * Float(count)))][k] += 1
            }
        }
        let s = scale / Double(area ?? values.count)
        return c.map { SIMD4(Float(Double($0[0]) * s), Float(Double($0[1]) * s), Float(Double($0[2]) * s), Float(Double($0[3]) * s)) }
    }

    func histogramOf(_ img: CIImage, count: Int, scale: Double, extent: CGRect? = nil) -> CIImage {
        var p: [String: Any] = ["inputCount": count, "inputScale": scale]
        if let e = extent { p[kCIInputExtentKey] = CIVector(cgRect: e) }
        return img.applyingFilter("CIAreaHistogram", parameters: p)
    }

    /// The same image behind a node the direct readers do not look through, so the
    /// histogram reads float tiles (the generic path).
    func throughTiles(_ img: CIImage) -> CIImage { CIImage(node: IntermediateNode(input: img.node, cacheable: false)) }

    /// Which direct reader CIAreaHistogram would use for `img` over `region` ("8-bit",
    /// "float" or "none").
    func directReader(_ img: CIImage, count: Int, region: CGRect? = nil, colorManaged: Bool = true) -> String {
        let r = HistogramReduction(count: count, scale: 1, kind: .linear).prepared(with: [])
        guard let b = bitmapSource(img.node, covering: PixelRect(covering: region ?? img.extent)),
            let reader = r.directReader(b, Evaluator(colorManaged: colorManaged))
        else { return "none" }
        return reader is Bitmap8HistogramReader ? "8-bit" : reader is FloatBitmapHistogramReader ? "float" : "other"
    }

    /// Checks the histogram of `img` (over `extent`, default its own) against the plain count
    /// of its working values, through tiles, and with 7-pixel render tiles: all identical.
    func checkHistogram(_ img: CIImage, count: Int, scale: Double, extent: CGRect? = nil, context: CIContext? = nil, _ what: String) throws {
        let c = context ?? ctx
        let region = extent ?? img.extent
        var values = try c.reduce(img.cropped(to: region))
        // Pixels of the region outside the image are clear.
        values += Array(repeating: .zero, count: PixelRect(covering: region).area - values.count)
        let want = plainHistogram(values, count: count, scale: scale)
        let got = try c.reduce(histogramOf(img, count: count, scale: scale, extent: extent))
        #expect(got.count == count)
        for i in 0..<min(got.count, count) where got[i] != want[i] {
            Issue.record("\(what), \(count) bins: bin \(i) is \(got[i]), counted \(want[i])")
            break
        }
        #expect(try c.reduce(histogramOf(throughTiles(img), count: count, scale: scale, extent: extent)) == got, "\(what): float tiles")
        #expect(try tiled.reduce(histogramOf(img, count: count, scale: scale, extent: extent)) == got, "\(what): 7-pixel tiles")
    }

    /// An odd-sized 8-bit picture: smooth ramps (runs of equal codes), some translucent
    /// pixels on every fifth row, a fully transparent pixel and premultiplied-invalid ones
    /// (colour above alpha) on row 3; other rows opaque.
    static func bytes8(width w: Int, height h: Int, translucent: Bool) -> [UInt8] {
        var p = testPixels(width: w, height: h)
        for y in 0..<h {
            for x in 0..<w {
                let i = (y * w + x) * 4
                p[i] = UInt8((x * 3 + y) & 255)
                if translucent && y % 5 == 3 && x % 7 == 2 { p[i + 3] = UInt8((x * 11 + y * 5) % 256) }
            }
        }
        if translucent && h > 3 && w > 4 {
            p[(3 * w + 1) * 4 + 3] = 0
            p[(3 * w + 4) * 4 + 3] = 9
        }
        return p
    }

    static let counts = [256, 16, 100, 1, 1000]

    @Test(arguments: counts) func histogramOf8BitBitmapsMatchesThePlainCount(count: Int) throws {
        let w = 101, h = 53
        let sRGB = CGColorSpace(name: CGColorSpace.sRGB)
        let opaque = Data(Self.bytes8(width: w, height: h, translucent: false))
        let translucent = Data(Self.bytes8(width: w, height: h, translucent: true))
        let size = CGSize(width: w, height: h)
        let cases: [(String, CIImage, String)] = [
            ("straight sRGB RGBA8, opaque", CIImage(unpremultipliedBitmapData: opaque, bytesPerRow: w * 4, size: size, format: .RGBA8, colorSpace: sRGB), "8-bit"),
            ("straight sRGB RGBA8, translucent rows", CIImage(unpremultipliedBitmapData: translucent, bytesPerRow: w * 4, size: size, format: .RGBA8, colorSpace: sRGB), "8-bit"),
            ("premultiplied sRGB RGBA8, opaque", CIImage(bitmapData: opaque, bytesPerRow: w * 4, size: size, format: .RGBA8, colorSpace: sRGB), "8-bit"),
            ("premultiplied sRGB BGRA8, translucent rows", CIImage(bitmapData: translucent, bytesPerRow: w * 4, size: size, format: .BGRA8, colorSpace: sRGB), "8-bit"),
            ("premultiplied sRGB ARGB8, translucent rows", CIImage(bitmapData: translucent, bytesPerRow: w * 4, size: size, format: .ARGB8, colorSpace: sRGB), "8-bit"),
            ("straight ABGR8, no colour space", CIImage(unpremultipliedBitmapData: translucent, bytesPerRow: w * 4, size: size, format: .ABGR8, colorSpace: nil), "8-bit"),
            (
                "premultiplied gamma 2.2 RGBA8",
                CIImage(bitmapData: translucent, bytesPerRow: w * 4, size: size, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.genericGrayGamma2_2)), "8-bit"
            ),
            (
                "straight linear RGBA8, padded rows",
                CIImage(
                    unpremultipliedBitmapData: Data(Self.bytes8(width: w + 3, height: h, translucent: true)), bytesPerRow: (w + 3) * 4, size: size, format: .RGBA8,
                    colorSpace: CGColorSpace(name: CGColorSpace.linearSRGB)), "8-bit"
            ),
            (
                "Display P3 RGBA8 (primaries converted: tiles)",
                CIImage(unpremultipliedBitmapData: translucent, bytesPerRow: w * 4, size: size, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.displayP3)), "none"
            ),
        ]
        for (what, img, reader) in cases {
            #expect(directReader(img, count: count) == reader, "\(what)")
            try checkHistogram(img, count: count, scale: 1.5, what)
        }
    }

    /// CIAreaAverage of 8-bit bitmaps, summed from code counts, against the straightforward
    /// sum of their working values (and the float-tile path).
    @Test func averageOf8BitBitmapsMatchesThePlainSum() throws {
        let w = 101, h = 53
        let sRGB = CGColorSpace(name: CGColorSpace.sRGB)
        let size = CGSize(width: w, height: h)
        let translucent = Data(Self.bytes8(width: w, height: h, translucent: true))
        let cases: [(String, CIImage)] = [
            (
                "straight sRGB RGBA8, opaque",
                CIImage(unpremultipliedBitmapData: Data(Self.bytes8(width: w, height: h, translucent: false)), bytesPerRow: w * 4, size: size, format: .RGBA8, colorSpace: sRGB)
            ),
            ("straight sRGB RGBA8, translucent rows", CIImage(unpremultipliedBitmapData: translucent, bytesPerRow: w * 4, size: size, format: .RGBA8, colorSpace: sRGB)),
            ("premultiplied sRGB BGRA8, translucent rows", CIImage(bitmapData: translucent, bytesPerRow: w * 4, size: size, format: .BGRA8, colorSpace: sRGB)),
            ("straight ARGB8, no colour space", CIImage(unpremultipliedBitmapData: translucent, bytesPerRow: w * 4, size: size, format: .ARGB8, colorSpace: nil)),
        ]
        for (what, img) in cases {
            let values = try ctx.reduce(img)
            var sum = SIMD4<Double>.zero
            for v in values { sum += SIMD4(Double(v.x), Double(v.y), Double(v.z), Double(v.w)) }
            let mean = sum / Double(values.count)
            let average = img.applyingFilter("CIAreaAverage", parameters: [kCIInputExtentKey: CIVector(cgRect: img.extent)])
            let got = try ctx.reduce(average)[0]
            near(got, mean, 1e-6, what)
            let viaTiles = try ctx.reduce(throughTiles(img).applyingFilter("CIAreaAverage", parameters: [kCIInputExtentKey: CIVector(cgRect: img.extent)]))[0]
            near(viaTiles, mean, 1e-6, "\(what), float tiles")
            // A sub-region inside the bitmap.
            let sub = CGRect(x: 7, y: 3, width: 60, height: 40)
            let subValues = try ctx.reduce(img.cropped(to: sub))
            var subSum = SIMD4<Double>.zero
            for v in subValues { subSum += SIMD4(Double(v.x), Double(v.y), Double(v.z), Double(v.w)) }
            near(
                try ctx.reduce(img.applyingFilter("CIAreaAverage", parameters: [kCIInputExtentKey: CIVector(cgRect: sub)]))[0], subSum / Double(subValues.count), 1e-6,
                "\(what), sub-region")
        }
    }

    @Test func histogramOverSeveralDirectTiles() throws {
        // Direct tiles are whole rows, 128 K pixels: 213 rows of 613, so three here (the
        // last one short), against the plain count and 7-pixel render tiles.
        let w = 613, h = 431
        let sRGB = CGColorSpace(name: CGColorSpace.sRGB)
        let img = CIImage(
            unpremultipliedBitmapData: Data(Self.bytes8(width: w, height: h, translucent: true)), bytesPerRow: w * 4,
            size: CGSize(width: w, height: h), format: .RGBA8, colorSpace: sRGB)
        #expect(directReader(img, count: 256) == "8-bit")
        try checkHistogram(img, count: 256, scale: 1, "8-bit, three tiles")
        let v = Self.floatValues(width: w, height: h)
        let float = CIImage(bitmapData: Self.floatData(v, width: w), bytesPerRow: w * 16, size: CGSize(width: w, height: h), format: .RGBAf, colorSpace: nil)
        #expect(directReader(float, count: 256) == "float")
        #expect(try ctx.reduce(histogramOf(float, count: 256, scale: 1)) == plainHistogram(v, count: 256, scale: 1))
        #expect(try tiled.reduce(histogramOf(float, count: 256, scale: 1)) == plainHistogram(v, count: 256, scale: 1))
    }

    static func floatValues(width w: Int, height h: Int) -> [SIMD4<Float>] {
        let special: [Float] = [
            .nan, -.nan, .infinity, -.infinity, 0, -0.0, 1, Float(1).nextDown, Float(1).nextUp, 0.5, 2, -1,
            .leastNonzeroMagnitude, .greatestFiniteMagnitude, Float(bitPattern: 0x7F80_0001), Float(bitPattern: 0x7F80_FFFF),
            Float(bitPattern: 0x7FC0_0000), Float(bitPattern: 0xFF80_0001), 1.0 / 3, 0.1, 0.99, 0.01,
        ]
        var v = [SIMD4<Float>]()
        var seed: UInt32 = 12345
        for y in 0..<h {
            for x in 0..<w {
                seed = seed &* 1_664_525 &+ 1_013_904_223
                let r = Float(seed >> 8) / Float(1 << 24) * 1.4 - 0.2
                let ramp = Float(x) / Float(w)  // runs of equal bins
                let boundary = Float((x + y) % 257) / 256  // exact bin edges
                let s = special[(x * 7 + y * 3) % special.count]
                switch (x + y) % 4 {
                case 0: v.append(SIMD4(r, ramp, boundary, s))
                case 1: v.append(SIMD4(s, r, ramp, boundary))
                case 2: v.append(SIMD4(boundary, s, r, ramp))
                default: v.append(SIMD4(ramp, boundary, s, r))
                }
            }
        }
        return v
    }

    static func floatData(_ v: [SIMD4<Float>], width w: Int, padding: Int = 0) -> Data {
        var d = Data()
        for y in 0..<(v.count / w) {
            d.append(v[(y * w)..<((y + 1) * w)].withUnsafeBytes { Data($0) })
            d.append(Data(repeating: 0x7F, count: padding))
        }
        return d
    }

    @Test(arguments: [256, 255, 64, 7, 1, 512]) func histogramOfFloatBitmapsMatchesThePlainCount(count: Int) throws {
        let w = 97, h = 61
        let v = Self.floatValues(width: w, height: h)
        let size = CGSize(width: w, height: h)
        let linear = CGColorSpace(name: CGColorSpace.linearSRGB)
        let plain = CIImage(bitmapData: Self.floatData(v, width: w), bytesPerRow: w * 16, size: size, format: .RGBAf, colorSpace: linear)
        #expect(directReader(plain, count: count) == "float")
        // The working values are the floats themselves: count them straight from the array.
        let got = try ctx.reduce(histogramOf(plain, count: count, scale: 3))
        #expect(got == plainHistogram(v, count: count, scale: 3))
        let cases: [(String, CIImage, String)] = [
            ("premultiplied linear RGBAf", plain, "float"),
            // Rows 4 bytes longer than the pixels: floats read unaligned.
            (
                "premultiplied linear RGBAf, unaligned rows",
                CIImage(
                    bitmapData: Self.floatData(v, width: w, padding: 4), bytesPerRow: w * 16 + 4, size: size, format: .RGBAf,
                    colorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)), "float"
            ),
            ("premultiplied RGBAf, no colour space", CIImage(bitmapData: Self.floatData(v, width: w), bytesPerRow: w * 16, size: size, format: .RGBAf, colorSpace: nil), "float"),
            (
                "straight linear RGBAf (premultiplied on read: tiles)",
                CIImage(unpremultipliedBitmapData: Self.floatData(v, width: w), bytesPerRow: w * 16, size: size, format: .RGBAf, colorSpace: linear), "none"
            ),
            (
                "premultiplied sRGB RGBAf (decoded on read: tiles)",
                CIImage(bitmapData: Self.floatData(v, width: w), bytesPerRow: w * 16, size: size, format: .RGBAf, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)), "none"
            ),
        ]
        for (what, img, reader) in cases {
            #expect(directReader(img, count: count) == reader, "\(what)")
            try checkHistogram(img, count: count, scale: 3, what)
        }
    }

    @Test func histogramOfCropsAndSubRegions() throws {
        let w = 120, h = 90
        let img = CIImage(
            bitmapData: Data(Self.bytes8(width: w, height: h, translucent: true)), bytesPerRow: w * 4, size: CGSize(width: w, height: h),
            format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
        let v = Self.floatValues(width: w, height: h)
        let float = CIImage(bitmapData: Self.floatData(v, width: w), bytesPerRow: w * 16, size: CGSize(width: w, height: h), format: .RGBAf, colorSpace: nil)
        let crop = CGRect(x: 13, y: 7, width: 51, height: 40)
        for (what, source, reader) in [("8-bit", img, "8-bit"), ("float", float, "float")] {
            // A crop inside the image, reduced over its own extent.
            let cropped = source.cropped(to: crop)
            #expect(directReader(cropped, count: 256) == reader)
            try checkHistogram(cropped, count: 256, scale: 1, "\(what) crop")
            // A sub-region of the whole image (inputExtent), with no crop node.
            try checkHistogram(source, count: 32, scale: 2, extent: CGRect(x: 1, y: 2, width: 77, height: 55), "\(what) sub-region")
            // A region reaching past the image: the pixels outside count as clear (tiles).
            let past = CGRect(x: -5, y: 60, width: 140, height: 40)
            #expect(directReader(source, count: 256, region: past) == "none")
            try checkHistogram(source, count: 256, scale: 1, extent: past, "\(what) past the edge")
            // A region past a crop but inside the bitmap: pixels outside the crop are clear.
            try checkHistogram(cropped, count: 256, scale: 1, extent: CGRect(x: 0, y: 0, width: 70, height: 50), "\(what) past the crop")
        }
    }

    @Test func histogramOfFileAndUnmanagedSources() throws {
        let w = 64, h = 33
        let png = try ctx.encode(image(Self.bytes8(width: w, height: h, translucent: true), w, h), as: .png)
        let file = try CIImage.read(data: png)
        #expect(directReader(file, count: 256) == "8-bit")
        try checkHistogram(file, count: 256, scale: 1, "PNG file")
        let unmanaged = CIContext(options: [.workingColorSpace: NSNull(), .cacheIntermediates: false])
        let img = CIImage(
            bitmapData: Data(Self.bytes8(width: w, height: h, translucent: true)), bytesPerRow: w * 4, size: CGSize(width: w, height: h),
            format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.displayP3))
        #expect(directReader(img, count: 256, colorManaged: false) == "8-bit")
        let got = try unmanaged.reduce(histogramOf(img, count: 256, scale: 1))
        #expect(got == plainHistogram(try unmanaged.reduce(img), count: 256, scale: 1))
        #expect(try unmanaged.reduce(histogramOf(throughTiles(img), count: 256, scale: 1)) == got)
    }

    @Test func binTablesAreExactOnlyForPowersOfTwoUpTo256() {
        for n in [1, 2, 4, 8, 16, 32, 64, 128, 256] { #expect(HistogramBinTable.shared(n) != nil, "\(n) bins") }
        for n in [3, 100, 255, 257, 512, 1000] { #expect(HistogramBinTable.shared(n) == nil, "\(n) bins") }
        // Every cell's entry against the plain bin of a few values in it.
        let t = HistogramBinTable.shared(256)!
        var seed: UInt32 = 7
        for _ in 0..<200_000 {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            let bits = seed
            let x = Float(bitPattern: bits)
            let clamped: Float = x > 0 ? (x < 1 ? x : 1) : 0
            let want = min(255, Int(clamped * 256))
            let entry = Int(t.offsets[Int(bits >> 16)]) / 16
            if entry != want && !(entry == 256 && bits >> 16 == 0x7F80) {
                Issue.record("bits \(String(bits, radix: 16)): table \(entry), plain \(want)")
                return
            }
        }
    }
}
