import CCyanotypeKernels
import Testing

/// The blur's vector loops (AVX-512 and AVX2, chosen at run time) against the sum their
/// contract states, written out here in Float: `w[0] s[0] + sum over k of w[k] (s[-k] + s[+k])`,
/// added in that order with every product rounded. Bit for bit, for every width's tail.
@Suite struct ConvolutionKernelTests {
    /// Seeded floats in 0..<1 (and a few larger values, as premultiplied HDR pixels can be).
    func noise(_ n: Int, seed: UInt64) -> [Float] { seededFloats(n, seed: seed, largeEvery: 97, largeScale: 40) }

    func weights(_ r: Int) -> [Float] {
        let raw = (0...r).map { Float(1 + r - $0) }
        let total = raw[0] + 2 * raw.dropFirst().reduce(0, +)
        return raw.map { $0 / total }
    }

    func reference(_ at: (Int) -> Float, _ w: [Float]) -> Float {
        var acc = at(0) * w[0]
        for k in 1..<w.count { acc += (at(-k) + at(k)) * w[k] }
        return acc
    }

    @Test(arguments: [512, 256] as [Int32])
    func rowsAndColumnsGiveTheOrderedSum(bits: Int32) throws {
        let available = cyan_vector_bits()
        for r in [1, 3, 30] {
            let w = weights(r)
            for width in [1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 33, 47, 70] {
                let rows = 3
                // Rows pass: each source row holds r pixels either side.
                let srcStride = width + 2 * r + 1, dstStride = width + 3
                let src = noise(4 * srcStride * rows, seed: UInt64(r * 1000 + width))
                var dst = [Float](repeating: .nan, count: 4 * dstStride * rows)
                let done = src.withUnsafeBufferPointer { s in
                    dst.withUnsafeMutableBufferPointer { d in
                        cyan_convolve_rows_rgbaf(d.baseAddress, dstStride, s.baseAddress! + 4 * r, srcStride, width, rows, w, Int32(r), bits)
                    }
                }
                if available < 256 { #expect(done == 0); return }
                #expect(done == 1)
                for y in 0..<rows {
                    for x in 0..<width {
                        for c in 0..<4 {
                            let ref = reference({ src[4 * (y * srcStride + r + x + $0) + c] }, w)
                            #expect(dst[4 * (y * dstStride + x) + c].bitPattern == ref.bitPattern, "rows r \(r) width \(width) at \(x),\(y)")
                        }
                    }
                }
                // Columns pass: r rows above and below the output rows.
                let colStride = width + 5
                let col = noise(4 * colStride * (rows + 2 * r), seed: UInt64(r * 7000 + width))
                var out = [Float](repeating: .nan, count: 4 * dstStride * rows)
                _ = col.withUnsafeBufferPointer { s in
                    out.withUnsafeMutableBufferPointer { d in
                        cyan_convolve_columns_rgbaf(d.baseAddress, dstStride, s.baseAddress! + 4 * colStride * r, colStride, width, rows, w, Int32(r), bits)
                    }
                }
                for y in 0..<rows {
                    for x in 0..<width {
                        for c in 0..<4 {
                            let ref = reference({ col[4 * ((y + r + $0) * colStride + x) + c] }, w)
                            #expect(out[4 * (y * dstStride + x) + c].bitPattern == ref.bitPattern, "columns r \(r) width \(width) at \(x),\(y)")
                        }
                    }
                }
            }
        }
    }
}
