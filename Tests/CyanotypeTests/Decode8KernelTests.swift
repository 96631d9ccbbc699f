import CCyanotypeKernels
import Testing

/// The 8-bit source decoder (`cyan_decode_rgba8`, four opaque pixels at a time where it can)
/// against its contract written out here: opaque pixels -> (t[r], t[g], t[b], 1); straight
/// translucent ones premultiplied by alpha / 255; premultiplied clear ones zero and translucent
/// ones left untouched and counted. Bit for bit, every byte order, rows of any length.
@Suite struct Decode8KernelTests {
    @Test(arguments: [false, true])
    func decodesEveryPixelAsItsContractSays(premultiplied: Bool) {
        // Any table will do: the kernel only looks values up.
        let table = (0..<256).map { Float($0) * Float($0) / 65025 + 0.001 }
        var seed: UInt64 = premultiplied ? 7 : 3
        func next() -> UInt8 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: seed >> 33)
        }
        for (ri, gi, bi, ai) in [(0, 1, 2, 3), (2, 1, 0, 3), (1, 2, 3, 0), (3, 2, 1, 0)] {
            for n in [0, 1, 3, 4, 5, 8, 11, 16, 37] {
                // Mostly opaque runs, with clear and translucent pixels sprinkled in.
                var src = [UInt8](repeating: 0, count: 4 * n)
                for i in 0..<n {
                    for c in 0..<4 { src[4 * i + c] = next() }
                    let pick = next() % 8
                    src[4 * i + ai] = pick < 5 ? 255 : pick == 5 ? 0 : max(1, min(254, src[4 * i + ai]))
                }
                var dst = [Float](repeating: .nan, count: 4 * n)
                let left = table.withUnsafeBufferPointer { t in
                    cyan_decode_rgba8(&dst, src, n, t.baseAddress, Int32(ri), Int32(gi), Int32(bi), Int32(ai), premultiplied ? 1 : 0)
                }
                var expectedLeft = 0
                for i in 0..<n {
                    let q = 4 * i, a8 = src[q + ai]
                    let rgb = [table[Int(src[q + ri])], table[Int(src[q + gi])], table[Int(src[q + bi])]]
                    var want: [Float]
                    if a8 == 255 {
                        want = rgb + [1]
                    } else if !premultiplied {
                        let a = Float(a8) * (1 / 255 as Float)
                        want = rgb.map { $0 * a } + [a]
                    } else if a8 == 0 {
                        want = [0, 0, 0, 0]
                    } else {
                        expectedLeft += 1
                        let untouched = dst[q..<q + 4].allSatisfy { $0.isNaN }
                        #expect(untouched, "left pixel \(i) was written")
                        continue
                    }
                    for c in 0..<4 {
                        #expect(dst[q + c].bitPattern == want[c].bitPattern, "order \(ri)\(gi)\(bi)\(ai) n \(n) pixel \(i) channel \(c)")
                    }
                }
                #expect(left == expectedLeft)
            }
        }
    }
}
