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
        let want = histogram(v.map { p in p.w > 0 ? SIMD4(p.x / p.w, p.y / p.w, p.z / p.w, p.w) : p }, bins: 8,
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
        let hist = CIImage(bitmapData: Data([SIMD4<Float>(0.5, 1, 0, 1), SIMD4<Float>(0.25, 0, 0, 1)].flatMap { p in
            [p.x, p.y, p.z, p.w].flatMap { withUnsafeBytes(of: $0) { Array($0) } } }), bytesPerRow: 32, size: CGSize(width: 2, height: 1), format: .RGBAf, colorSpace: nil)
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

    static func floatValues(width w: Int, height h: Int) -> [SIMD4<Float>] {
        let special: [Float] = [.nan, -.nan, .infinity, -.infinity, 0, -0.0, 1, Float(1).nextDown, Float(1).nextUp, 0.5, 2, -1,
                                .leastNonzeroMagnitude, .greatestFiniteMagnitude, Float(bitPattern: 0x7F80_0001), Float(bitPattern: 0x7F80_FFFF),
                                Float(bitPattern: 0x7FC0_0000), Float(bitPattern: 0xFF80_0001), 1.0 / 3, 0.1, 0.99, 0.01]
        var v = [SIMD4<Float>]()
        var seed: UInt32 = 12345
        for y in 0..<h {
            for x in 0..<w {
                seed = seed &* 1_664_525 &+ 1_013_904_223
                let r = Float(seed >> 8) / Float(1 << 24) * 1.4 - 0.2
                let ramp = Float(x) / Float(w)                            // runs of equal bins
                let boundary = Float((x + y) % 257) / 256                  // exact bin edges
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
        let img = CIImage(bitmapData: Self.floatData(v, width: w), bytesPerRow: w * 16, size: CGSize(width: w, height: h), format: .RGBAf,
                          colorSpace: CGColorSpace(name: CGColorSpace.linearSRGB))
        // The working values are the floats themselves: count them straight from the array.
        let want = plainHistogram(v, count: count, scale: 3)
        #expect(try ctx.reduce(histogramOf(img, count: count, scale: 3)) == want)
        #expect(try tiled.reduce(histogramOf(img, count: count, scale: 3)) == want)
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
