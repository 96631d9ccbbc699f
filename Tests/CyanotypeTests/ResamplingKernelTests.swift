import CCyanotypeKernels
import Foundation
import Testing
@testable import Cyanotype

/// The resampling kind's two passes: the C vector loops (AVX-512 and AVX2, chosen at run time)
/// against the sum their contract states, written out here in Float (the products rounded,
/// added from zero in tap order), bit for bit; and the kind reading a bitmap row by row (through
/// an edge clamp or not) against a Lanczos-3 written out here in Double, and against itself
/// reading a materialised block, to the bit.
@Suite struct ResamplingKernelTests {
    /// Seeded floats in 0..<1, a few larger (premultiplied HDR pixels can be).
    func noise(_ n: Int, seed: UInt64) -> [Float] { seededFloats(n, seed: seed, largeEvery: 89, largeScale: 30) }

    @Test(arguments: [512, 256] as [Int32])
    func rowPassGivesTheOrderedSum(bits: Int32) {
        let available = cyan_vector_bits()
        for n in [1, 2, 3, 4, 5, 8, 9, 16, 17, 33] {
            // Neighbours with equal and unequal tap counts, first columns left of the origin.
            let stride = 7, origin = -3
            let taps = (0..<n).map { 1 + ($0 * 5 + n) % stride }
            let first = (0..<n).map { origin + (2 * $0) % 9 }
            let width = 9 + stride + 1
            let src = noise(4 * width, seed: UInt64(n))
            let weights = noise(n * stride, seed: UInt64(100 + n)).map { $0 - 0.3 }
            var dst = [Float](repeating: .nan, count: 4 * n)
            let done = src.withUnsafeBufferPointer { s in
                dst.withUnsafeMutableBufferPointer { d in
                    cyan_resample_row_rgbaf(d.baseAddress, s.baseAddress, origin, n, first, taps, weights, stride, bits)
                }
            }
            if available < 256 { #expect(done == 0); return }
            #expect(done == 1)
            for o in 0..<n {
                for c in 0..<4 {
                    var acc: Float = 0
                    for k in 0..<taps[o] { acc += src[4 * (first[o] - origin + k) + c] * weights[o * stride + k] }
                    #expect(dst[4 * o + c].bitPattern == acc.bitPattern, "row pass n \(n) output \(o) channel \(c)")
                }
            }
        }
    }

    @Test(arguments: [512, 256] as [Int32])
    func columnPassGivesTheOrderedSum(bits: Int32) {
        let available = cyan_vector_bits()
        for taps in [1, 2, 6, 13] {
            for width in [1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 70] {
                let rows = (0..<taps).map { noise(4 * width, seed: UInt64(taps * 1000 + width * 10 + $0)) }
                let w = noise(taps, seed: UInt64(taps)).map { $0 - 0.25 }
                var dst = [Float](repeating: .nan, count: 4 * width)
                let pointers = rows.map { r in UnsafeMutablePointer<Float>.allocate(capacity: r.count) }
                defer { for p in pointers { p.deallocate() } }
                for (p, r) in zip(pointers, rows) { p.initialize(from: r, count: r.count) }
                let readOnly: [UnsafePointer<Float>?] = pointers.map { UnsafePointer($0) }
                let done = dst.withUnsafeMutableBufferPointer { d in cyan_resample_column_rgbaf(d.baseAddress, readOnly, w, taps, width, bits) }
                if available < 256 { #expect(done == 0); return }
                #expect(done == 1)
                for i in 0..<(4 * width) {
                    var acc: Float = 0
                    for k in 0..<taps { acc += rows[k][i] * w[k] }
                    #expect(dst[i].bitPattern == acc.bitPattern, "column pass taps \(taps) width \(width) value \(i)")
                }
            }
        }
    }

    // MARK: The kind, read row by row

    let w = 23, h = 17
    var pixels: [UInt8] { testPixels(width: w, height: h, alpha: true) }
    var input: CIImage { image(pixels, w, h) }

    func context(tile side: Int? = nil) -> CIContext { linearContext(tile: side) }

    /// The input's premultiplied linear pixel (x, yUp), its edges extended when `clamped`,
    /// clear outside otherwise.
    func pixel(_ x: Int, _ yUp: Int, clamped: Bool) -> SIMD4<Double> {
        var (x, yUp) = (x, yUp)
        if clamped {
            x = min(max(x, 0), w - 1)
            yUp = min(max(yUp, 0), h - 1)
        }
        guard (0..<w).contains(x), (0..<h).contains(yUp) else { return .zero }
        let p = linearPixel(pixels, w, x, h - 1 - yUp)
        return SIMD4(p[0] * p[3], p[1] * p[3], p[2] * p[3], p[3])
    }

    /// Lanczos-3 weights of output `o` at `scale`: every source pixel whose centre lies
    /// strictly inside the kernel (widened by 1/scale when shrinking), normalised to sum 1.
    func lanczos(_ o: Int, scale: Double) -> [(Int, Double)] {
        func sinc(_ x: Double) -> Double { x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x) }
        let stretch = max(1, 1 / scale), centre = (Double(o) + 0.5) / scale
        var taps: [(Int, Double)] = []
        for i in Int((centre - 4 * stretch).rounded(.down))...Int((centre + 4 * stretch).rounded(.up)) {
            let x = (Double(i) + 0.5 - centre) / stretch
            if abs(x) < 3 { taps.append((i, sinc(x) * sinc(x / 3))) }
        }
        let total = taps.reduce(0) { $0 + $1.1 }
        return taps.map { ($0.0, $0.1 / total) }
    }

    @Test(arguments: [(0.5, 0.5), (0.37, 0.61), (1.6, 0.45)])
    func rowByRowLanczosMatchesTheFormulaAndTheBlockPath(sx: Double, sy: Double) throws {
        for clamped in [true, false] {
            let base = clamped ? input.clampedToExtent() : input
            let streamed = CIImage(node: ResamplingNode(input: base.node, kernel: Lanczos3(), scaleX: sx, scaleY: sy))
            // The same over a materialised copy of the input: read as a block, not by rows.
            let held = CIImage(node: IntermediateNode(input: input.node, cacheable: false))
            let blocked = CIImage(node: ResamplingNode(input: (clamped ? held.clampedToExtent() : held).node, kernel: Lanczos3(), scaleX: sx, scaleY: sy))
            let ow = Int((Double(w) * sx).rounded(.down)), oh = Int((Double(h) * sy).rounded(.down))
            let rect = CGRect(x: 0, y: 0, width: ow, height: oh)
            let whole = try renderFloat(streamed, rect, context: context())
            #expect(try renderFloat(blocked, rect, context: context()) == whole, "clamped \(clamped): block path differs")
            for side in [3, 7] {
                #expect(try renderFloat(streamed, rect, context: context(tile: side)) == whole, "clamped \(clamped): tiles of \(side) differ")
            }
            for (i, got) in whole.enumerated() {
                let x = i % ow, yUp = oh - 1 - i / ow
                var want = SIMD4<Double>.zero
                for (sxi, wx) in lanczos(x, scale: sx) {
                    for (syi, wy) in lanczos(yUp, scale: sy) { want += pixel(sxi, syi, clamped: clamped) * (wx * wy) }
                }
                let err = (0..<4).map { abs(Double(got[$0]) - want[$0]) }.max() ?? 0
                #expect(err <= 2e-5, "clamped \(clamped) scale \(sx)x\(sy) at (\(x), \(yUp)): got \(got), want \(want)")
            }
        }
    }
}
