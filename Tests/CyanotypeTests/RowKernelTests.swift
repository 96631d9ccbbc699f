import Foundation
import Testing
@testable import Cyanotype

/// The C row kernels behind the colour stages: against formulas in Double, and independent of
/// where a pixel sits in a row (vector pairs, the odd last pixel, opaque and translucent
/// neighbours), which is what makes a tiled render equal a whole one.
@Suite struct RowKernelTests {
    /// Straight pixels with finite, moderate values and alphas 1, fractions and 0, premultiplied.
    static let premultipliedRow: [SIMD4<Float>] = stageTestRow()
        .filter { p in (0..<4).allSatisfy { p[$0].isFinite && p[$0].magnitude < 1e4 } }
        .map { SIMD4($0.x * $0.w, $0.y * $0.w, $0.z * $0.w, $0.w) }

    static let matrix = ColorMatrix(
        rows: SIMD4(0.9, 0.05, 0.05, 0.01), SIMD4(-0.2, 1.1, 0.1, 0),
        SIMD4(0.05, 0.3, 0.65, 0), SIMD4(0, 0, 0, 1), bias: SIMD4(0.01, -0.02, 0.03, 0))

    /// The same stage over the row whole, one pixel at a time, and in odd-sized pieces.
    func expectPositionIndependent(_ stage: some ColorStage, _ row: [SIMD4<Float>], _ what: String) {
        let whole = runStage(stage, row)
        for piece in [1, 3, 5] {
            var pieces: [SIMD4<Float>] = []
            var i = 0
            while i < row.count {
                pieces += runStage(stage, Array(row[i..<min(row.count, i + piece)]))
                i += piece
            }
            let same = zip(whole, pieces).allSatisfy { a, b in (0..<4).allSatisfy { a[$0].bitPattern == b[$0].bitPattern } }
            #expect(same, "\(what): pieces of \(piece) differ from the whole row")
        }
        // And shifted by one pixel, so every pixel changes partner.
        let shifted = Array(runStage(stage, [SIMD4(0.3, 0.2, 0.1, 1)] + row).dropFirst())
        #expect(zip(whole, shifted).allSatisfy { a, b in (0..<4).allSatisfy { a[$0].bitPattern == b[$0].bitPattern } }, "\(what): shifted row differs")
    }

    @Test(arguments: [false, true])
    func matrixMatchesTheFormula(straight: Bool) {
        let m = Self.matrix
        let stage = MatrixStage(m: m, wantsUnpremultiplied: straight)
        let row = Self.premultipliedRow
        let out = runStage(stage, row)
        for (p, o) in zip(row, out) {
            let a = Double(p.w)
            let inv = straight ? (a > 0 ? 1 / a : 0) : 1
            let v = [Double(p.x) * inv, Double(p.y) * inv, Double(p.z) * inv, a]
            let cols = [m.c0, m.c1, m.c2, m.c3]
            var r = (0..<4).map { k in (0..<4).reduce(Double(m.bias[k])) { $0 + Double(cols[$1][k]) * v[$1] } }
            if straight { for k in 0..<3 { r[k] *= r[3] } }
            for k in 0..<4 {
                let scale = max(1, v.map(abs).max()!)
                #expect(abs(Double(o[k]) - r[k]) <= 2e-6 * scale, "\(p) -> \(o), channel \(k) expected \(r[k])")
            }
        }
        expectPositionIndependent(stage, row, "matrix straight=\(straight)")
    }

    @Test func matrixOnStraightColourOfClearAndOpaquePixels() {
        // Clear pixels divide by nothing (colour 0 in, the matrix of black out); opaque ones
        // take the plain product.
        let stage = MatrixStage(m: Self.matrix, wantsUnpremultiplied: true)
        let out = runStage(stage, [SIMD4(0.2, 0.4, 0.6, 0), SIMD4(0.2, 0.4, 0.6, 1), SIMD4(.nan, 0.5, 0.5, .nan)])
        let black = Self.matrix.bias
        #expect(out[0] == SIMD4(black.x * black.w, black.y * black.w, black.z * black.w, black.w))
        let plain = Self.matrix.apply(SIMD4(0.2, 0.4, 0.6, 1))
        for k in 0..<4 { #expect(abs(out[1][k] - plain[k]) < 1e-6) }
        #expect(out[2].w.isNaN || out[2].w == 0, "NaN alpha stays NaN or clears: \(out[2])")
    }

    @Test func gammaAndVibranceAreIndependentOfPosition() {
        let row = stageTestRow()  // every kind of value, NaN and infinities included
        for power: Float in [0.9, 2.2, 1 / 2.4, -0.5, 12] { expectPositionIndependent(GammaStage(power: power), row, "gamma \(power)") }
        for amount: Float in [0.4, -0.7] { expectPositionIndependent(VibranceStage(amount: amount), row, "vibrance \(amount)") }
    }

    /// 8-bit sources of every alpha, in each byte order, straight and premultiplied, decoded
    /// to straight linear float against the sRGB formula.
    @Test(arguments: [CIFormat.RGBA8, .BGRA8, .ARGB8, .ABGR8])
    func eightBitSourcesDecodeAgainstTheFormula(format: CIFormat) throws {
        let w = 256
        var straight = [UInt8](), premultiplied = [UInt8]()
        let order: [Int] = format == .RGBA8 ? [0, 1, 2, 3] : format == .BGRA8 ? [2, 1, 0, 3] : format == .ARGB8 ? [1, 2, 3, 0] : [3, 2, 1, 0]
        var expected: [(straight: [Double], premultiplied: [Double])] = []
        for a in 0..<w {
            let rgb = [(a * 37) % 256, (a * 91 + 17) % 256, 255 - a]
            let pm = rgb.map { ($0 * a + 127) / 255 }  // a premultiplied pixel as 8-bit files hold it
            var sp = [UInt8](repeating: 0, count: 4), pp = sp
            for c in 0..<3 { sp[order[c]] = UInt8(rgb[c]); pp[order[c]] = UInt8(pm[c]) }
            sp[order[3]] = UInt8(a); pp[order[3]] = UInt8(a)
            straight += sp; premultiplied += pp
            let alpha = Double(a) / 255
            expected.append(
                (
                    rgb.map { srgbToLinear(Double($0) / 255) } + [alpha],
                    a == 0 ? [0, 0, 0, 0] : pm.map { srgbToLinear(Double($0) / Double(a)) } + [alpha]
                ))
        }
        let srgb = CGColorSpace(name: CGColorSpace.sRGB)
        let size = CGSize(width: w, height: 1)
        let s = try renderFloat(
            CIImage(unpremultipliedBitmapData: Data(straight), bytesPerRow: w * 4, size: size, format: format, colorSpace: srgb),
            CGRect(x: 0, y: 0, width: w, height: 1))
        let p = try renderFloat(
            CIImage(bitmapData: Data(premultiplied), bytesPerRow: w * 4, size: size, format: format, colorSpace: srgb),
            CGRect(x: 0, y: 0, width: w, height: 1))
        for a in 0..<w {
            // Straight colour of a clear pixel is unknowable once premultiplied: alpha only.
            if a == 0 { #expect(s[a].w == 0 && p[a].w == 0); continue }
            #expect(close(s[a], expected[a].straight, tol: 1e-5, "straight alpha \(a)"))
            #expect(close(p[a], expected[a].premultiplied, tol: 1e-5, "premultiplied alpha \(a)"))
        }
    }
}
