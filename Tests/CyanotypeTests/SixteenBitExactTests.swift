import Foundation
import Testing
@testable import Cyanotype
import CyanotypeCodecs

/// 16 bits stay 16 bits, exactly: a 16-bit PNG or TIFF rendered to `RGBA16` (sRGB) gives back
/// its own codes, and so does a 16-bit write read back, on every one of the 65536 codes of
/// each channel. What is exact for translucent pixels:
/// - straight output: alpha always; colour wherever alpha > 0 (under alpha 0 the premultiplied
///   working space keeps no colour, so a render writes 0 there; an unfiltered copy keeps it);
/// - premultiplied output of a straight file: round(c * a / 65535) of the file's codes;
/// - premultiplied 16-bit input to premultiplied output: exact up to alpha 61439; above, a
///   value can be one code off (unpremultiplying in float puts the straight colour within
///   0.03 codes of where a tie can fall the other way).
@Suite struct SixteenBitExactTests {
    static let n = 65536
    static let side = 256

    /// Every code once per channel: red counts up, green down, blue in a scrambled order,
    /// alpha opaque or (translucent) every code in another order.
    static func gradient(alpha: Bool) -> [UInt16] {
        var v = [UInt16](repeating: 0, count: n * 4)
        for i in 0..<n {
            v[4 * i] = UInt16(i)
            v[4 * i + 1] = UInt16(65535 - i)
            v[4 * i + 2] = UInt16(truncatingIfNeeded: i &* 40503)  // odd multiplier: a permutation
            v[4 * i + 3] = alpha ? UInt16(truncatingIfNeeded: i &* 12345 &+ 1) : 65535
        }
        return v
    }

    static func file(_ v: [UInt16], alpha: Bool, format: CyanotypeCodecs.ImageFileFormat) throws -> Data {
        try v.withUnsafeBufferPointer { p in
            try ImageCodecs.encode(rgba16: p, width: side, height: side, hasAlpha: alpha, format: format, options: EncodeOptions())
        }
    }

    static func words(_ d: Data) -> [UInt16] { d.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) } }

    /// The values a render must give for file values `v`: straight (colour 0 where alpha is 0
    /// when `viaRender`), or premultiplied as round(c * a / 65535).
    static func expected(_ v: [UInt16], premultiplied: Bool, zeroUnderClearAlpha: Bool) -> [UInt16] {
        var out = v
        for i in 0..<(v.count / 4) {
            let a = UInt32(v[4 * i + 3])
            for k in 0..<3 {
                let c = UInt32(v[4 * i + k])
                if premultiplied { out[4 * i + k] = UInt16((c * a + 32767) / 65535) } else if a == 0 && zeroUnderClearAlpha { out[4 * i + k] = 0 }
            }
        }
        return out
    }

    static func mismatches(_ got: [UInt16], _ want: [UInt16]) -> (count: Int, first: String) {
        var count = 0, first = ""
        for i in 0..<min(got.count, want.count) where got[i] != want[i] {
            if count == 0 { first = "value \(i) (pixel \(i / 4) channel \(i % 4)): got \(got[i]), expected \(want[i])" }
            count += 1
        }
        return (count + abs(got.count - want.count), first)
    }

    @Test(arguments: [CyanotypeCodecs.ImageFileFormat.png, .tiff], [false, true])
    func fileRendersToItsOwnCodes(format: CyanotypeCodecs.ImageFileFormat, alpha: Bool) throws {
        let v = Self.gradient(alpha: alpha)
        let img = try CIImage.read(data: try Self.file(v, alpha: alpha, format: format))
        let ctx = CIContext(options: [.cacheIntermediates: false])
        // As read, and through a filter that changes nothing (so the render converts to linear
        // float and back instead of copying the rows).
        for (label, recipe) in [("as read", img), ("through CIColorClamp", img.applyingFilter("CIColorClamp"))] {
            let viaRender = recipe !== img
            for premultiplied in [false, true] {
                let got = Self.words(try ctx.renderToData(recipe, from: img.extent, format: .RGBA16, premultiplied: premultiplied).data)
                let want = Self.expected(v, premultiplied: premultiplied, zeroUnderClearAlpha: viaRender)
                let m = Self.mismatches(got, want)
                #expect(
                    m.count == 0, "\(format) \(alpha ? "with alpha" : "opaque") \(label), \(premultiplied ? "premultiplied" : "straight"): \(m.count) values off; first \(m.first)")
            }
        }
    }

    @Test(arguments: [CyanotypeCodecs.ImageFileFormat.png, .tiff], [false, true])
    func writeAndReadBackIsExact(format: CyanotypeCodecs.ImageFileFormat, alpha: Bool) throws {
        let v = Self.gradient(alpha: alpha)
        let img = try CIImage.read(data: try Self.file(v, alpha: alpha, format: format))
        let ctx = CIContext(options: [.cacheIntermediates: false])
        for (label, recipe) in [("as read", img), ("through CIColorClamp", img.applyingFilter("CIColorClamp"))] {
            let data = try ctx.encode(recipe, as: format == .png ? Cyanotype.ImageFileFormat.png : .tiff, depth: 16)
            let back = try ImageCodecs.decode(data)
            #expect(back.bitDepth == 16)
            let want = Self.expected(v, premultiplied: false, zeroUnderClearAlpha: recipe !== img)
            let m = Self.mismatches(back.pixels16, want)
            #expect(m.count == 0, "\(format) \(alpha ? "with alpha" : "opaque") \(label): \(m.count) values off after a write and read; first \(m.first)")
            // And read again through the library, rendered to RGBA16.
            let again = try CIImage.read(data: data)
            let got = Self.words(try ctx.renderToData(again.applyingFilter("CIColorClamp"), from: again.extent, format: .RGBA16, premultiplied: false).data)
            #expect(Self.mismatches(got, Self.expected(v, premultiplied: false, zeroUnderClearAlpha: true)).count == 0)
        }
    }

    @Test func premultipliedInputToPremultipliedOutput() throws {
        // Valid premultiplied data (colour <= alpha), seeded.
        var rng = SplitMix(0x16B1)
        let count = 512 * 512
        var v = [UInt16](repeating: 0, count: count * 4)
        for i in 0..<count {
            let a = UInt16(truncatingIfNeeded: rng.next())
            v[4 * i + 3] = a
            for k in 0..<3 { v[4 * i + k] = UInt16(rng.next() % (UInt64(a) + 1)) }
        }
        let img = CIImage(
            bitmapData: v.withUnsafeBytes { Data($0) }, bytesPerRow: 512 * 8, size: CGSize(width: 512, height: 512),
            format: .RGBA16, colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
        let got = Self.words(try CIContext().renderToData(img.applyingFilter("CIColorClamp"), from: img.extent, format: .RGBA16, premultiplied: true).data)
        var offBelow = 0, offAbove = 0, worst = 0
        for i in 0..<v.count where got[i] != v[i] {
            if v[i - i % 4 + 3] < 61440 { offBelow += 1 } else { offAbove += 1 }
            worst = max(worst, abs(Int(got[i]) - Int(v[i])))
        }
        #expect(offBelow == 0, "\(offBelow) values off for alpha below 61440")
        #expect(worst <= 1 && offAbove < v.count / 10_000, "\(offAbove) values off for alpha from 61440, worst \(worst)")
    }

    /// The encoder against the curve in double, on every decoded code and on random values.
    @Test func exactEncoderMatchesTheCurveInDouble() {
        let srgb = Exact16Encoder.sRGB, linear = Exact16Encoder.linear
        for c in 0..<65536 {
            #expect(srgb.encode(TransferTables.sRGB.decode16[c]) == UInt16(c))
            #expect(linear.encode(TransferTables.linear.decode16[c]) == UInt16(c))
        }
        var rng = SplitMix(7)
        var offSRGB = 0, offLinear = 0
        for _ in 0..<200_000 {
            let v = Float(Double(rng.next() >> 11) / Double(1 << 53))
            let e = linearToSrgb(Double(v)) * 65535
            if srgb.encode(v) != UInt16((e + 0.5).rounded(.down)) { offSRGB += 1 }
            if linear.encode(v) != UInt16((Double(v) * 65535 + 0.5).rounded(.down)) { offLinear += 1 }
        }
        #expect(offSRGB == 0 && offLinear == 0)
        #expect(srgb.encode(-1) == 0 && srgb.encode(.nan) == 0 && srgb.encode(2) == 65535 && srgb.encode(.infinity) == 65535)
    }
}
