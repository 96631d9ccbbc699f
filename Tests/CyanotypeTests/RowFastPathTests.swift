import CCyanotypeKernels
import Foundation
import Testing
@testable import Cyanotype

// What keeps a photo on the fast paths of a plain build, on every kernel path: the sRGB
// curve's C loops (`cyan_srgb_curve_rgbaf`: the conversion stages into and out of
// sRGB-encoded values; `cyan_decode_rgba8` with a table: 8-bit sRGB reads) against the
// IEC 61966-2-1 curve computed in Double here, and a Gaussian blur of an opaque picture
// keeping alpha exactly 1 (its taps sum to 1), so the stages after it take their opaque paths.

private func srgbEncode(_ v: Double) -> Double {
    let a = abs(v), e = a <= 0.0031308 ? a * 12.92 : 1.055 * pow(a, 1 / 2.4) - 0.055
    return v < 0 ? -e : e
}
private func srgbDecode(_ v: Double) -> Double {
    let a = abs(v), d = a <= 0.04045 ? a / 12.92 : pow((a + 0.055) / 1.055, 2.4)
    return v < 0 ? -d : d
}

extension KernelPathSuites {
    @Suite struct RowFastPaths {
        /// Seeded straight pixels: most in 0...1 (the table), some outside (the exact curve
        /// for extended values), an odd count so the last pixel rides alone.
        private func samples() -> [SIMD4<Float>] {
            var rng = SplitMix(0x5267_b1a5)
            return (0..<257).map { i in
                var p = SIMD4<Float>(rng.unit(), rng.unit(), rng.unit(), 0.1 + 0.9 * rng.unit())
                if i % 37 == 5 { p.y = 1.5 }
                if i % 41 == 7 { p.x = -0.25 }
                if i == 100 { p = SIMD4(0, 1, 0.5, 1) }
                return p
            }
        }

        @Test(arguments: [true, false])
        func conversionStagesFollowTheCurveOnEveryPath(encode: Bool) {
            let input = samples()
            let stage = SpaceConversionStage(space: .sRGBSpace, direction: encode ? .fromWorking : .toWorking)
            var results: [[SIMD4<Float>]] = []
            onEveryKernelPath { path in
                var row = input
                let extra = UnsafeMutablePointer<UnsafeMutablePointer<SIMD4<Float>>>.allocate(capacity: 1)
                defer { extra.deallocate() }
                row.withUnsafeMutableBufferPointer { stage.run($0.baseAddress!, extra: UnsafePointer(extra), count: $0.count, x: 0, y: 0) }
                for (p, q) in zip(input, row) {
                    for c in 0..<3 {
                        let want = encode ? srgbEncode(Double(p[c])) : srgbDecode(Double(p[c]))
                        #expect(abs(Double(q[c]) - want) <= 2e-6 * max(1, abs(want)), "\(path): \(p) -> \(q), want \(want) in lane \(c)")
                    }
                    #expect(q.w.bitPattern == p.w.bitPattern, "\(path): alpha \(p.w) -> \(q.w)")
                }
                results.append(row)
            }
            // Every path gives the same bits (the C loop is the Swift loop's arithmetic).
            for other in results.dropFirst() {
                #expect(other.map { $0.x.bitPattern } == results[0].map { $0.x.bitPattern })
                #expect(other.map { $0.y.bitPattern } == results[0].map { $0.y.bitPattern })
                #expect(other.map { $0.z.bitPattern } == results[0].map { $0.z.bitPattern })
            }
        }

        /// An 8-bit sRGB bitmap read into linear light: opaque runs of eight and more (the
        /// gathered path), a translucent pixel and a clear one in other groups (the scalar
        /// loop), an odd tail.
        @Test func eightBitSRGBReadsDecodeTheCurveOnEveryPath() throws {
            let width = 43
            var bytes: [UInt8] = []
            for i in 0..<width {
                let a: UInt8 = i == 12 ? 128 : i == 30 ? 0 : 255
                bytes += [UInt8((i * 6) % 256), UInt8(255 - (i * 5) % 256), UInt8((i * 37) % 256), a]
            }
            let image = CIImage(
                bitmapData: Data(bytes), bytesPerRow: width * 4, size: CGSize(width: width, height: 1), format: .RGBA8,
                colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
            try onEveryKernelPath { path in
                let got = try renderFloat(image, CGRect(x: 0, y: 0, width: width, height: 1))
                for i in 0..<width {
                    let a = Double(bytes[4 * i + 3]) / 255
                    #expect(abs(Double(got[i].w) - a) <= 1e-6, "\(path): pixel \(i) alpha \(got[i].w)")
                    // Translucent colour is premultiplied data (divided out before the curve):
                    // only opaque pixels' colour is the curve of their bytes.
                    guard a == 1 else { continue }
                    for c in 0..<3 {
                        let want = srgbDecode(Double(bytes[4 * i + c]) / 255)
                        #expect(abs(Double(got[i][c]) - want) <= 2e-6, "\(path): pixel \(i) lane \(c): \(got[i][c]), want \(want)")
                    }
                }
            }
        }

        /// A clamped opaque picture blurred (the command line's blur) is exactly opaque: alpha
        /// is the sum of the normalised taps times 1, which the passes must add up to 1 exactly.
        @Test(arguments: [0.3, 1.0, 2.5, 10.0, 12.3, 33.3])
        func blurOfAnOpaquePictureStaysExactlyOpaque(sigma: Double) throws {
            var rng = SplitMix(0x0b1c &+ UInt64(sigma * 10))
            let (w, h) = (37, 23)
            let bytes: [UInt8] = (0..<(w * h)).flatMap { _ -> [UInt8] in [UInt8(rng.int(256)), UInt8(rng.int(256)), UInt8(rng.int(256)), 255] }
            let picture = CIImage(
                bitmapData: Data(bytes), bytesPerRow: w * 4, size: CGSize(width: w, height: h), format: .RGBA8,
                colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
            let blurred = picture.clampedToExtent().applyingFilter("CIGaussianBlur", parameters: [kCIInputRadiusKey: sigma])
                .cropped(to: picture.extent)
            try onEveryKernelPath { path in
                let got = try renderFloat(blurred, picture.extent)
                let notOne = got.filter { $0.w != 1 }
                #expect(notOne.isEmpty, "\(path), sigma \(sigma): \(notOne.count) pixels with alpha other than 1, e.g. \(notOne.first.map { $0.w.bitPattern } ?? 0)")
            }
        }
    }
}
