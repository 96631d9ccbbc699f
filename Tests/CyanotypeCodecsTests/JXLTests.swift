import Foundation
import Testing

@testable import CyanotypeCodecs

/// Runs a program, returning its exit status (nil when it is not installed) and stdout.
func runTool(_ path: String, _ args: [String]) -> (status: Int32, out: Data, err: String)? {
    guard FileManager.default.isExecutableFile(atPath: path) else { return nil }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = args
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    do { try p.run() } catch { return nil }
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, o, String(decoding: e, as: UTF8.self))
}

/// A scratch folder removed when the value goes away.
final class ScratchDir {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("cy-codecs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    deinit { try? FileManager.default.removeItem(at: url) }
}

/// Reads a binary PPM/PGM (P6/P5, maxval 255 or 65535) into RGBA samples (0...65535 scale
/// when 16-bit): djxl's output, read by a parser that is not ours.
func readPNM(_ data: Data) -> (width: Int, height: Int, maxval: Int, rgb: [Int])? {
    var fields: [String] = []
    var pos = 0
    let b = [UInt8](data)
    while fields.count < 4 && pos < b.count {
        while pos < b.count, b[pos] == 0x20 || b[pos] == 0x0A || b[pos] == 0x0D || b[pos] == 0x09 { pos += 1 }
        if pos < b.count, b[pos] == 0x23 {  // comment
            while pos < b.count, b[pos] != 0x0A { pos += 1 }
            continue
        }
        var s = ""
        while pos < b.count, !(b[pos] == 0x20 || b[pos] == 0x0A || b[pos] == 0x0D || b[pos] == 0x09) {
            s.append(Character(UnicodeScalar(b[pos])))
            pos += 1
        }
        fields.append(s)
    }
    pos += 1
    guard fields.count == 4, let w = Int(fields[1]), let h = Int(fields[2]), let maxval = Int(fields[3]) else { return nil }
    let channels = fields[0] == "P6" ? 3 : 1
    let bytes = maxval > 255 ? 2 : 1
    guard b.count >= pos + w * h * channels * bytes else { return nil }
    var rgb: [Int] = []
    rgb.reserveCapacity(w * h * 3)
    for i in 0..<(w * h) {
        for c in 0..<3 {
            let k = pos + (i * channels + (channels == 3 ? c : 0)) * bytes
            rgb.append(bytes == 2 ? Int(b[k]) << 8 | Int(b[k + 1]) : Int(b[k]))
        }
    }
    return (w, h, maxval, rgb)
}

@Suite struct JXLTests {
    static let djxl = "/usr/bin/djxl"
    static var haveDJXL: Bool { FileManager.default.isExecutableFile(atPath: djxl) }

    func rgba16(width: Int, height: Int) -> [UInt16] {
        var px = [UInt16](repeating: 0, count: width * height * 4)
        var seed: UInt32 = 12345
        for i in 0..<px.count {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            px[i] = UInt16(truncatingIfNeeded: seed >> 8)
        }
        return px
    }

    @Test func sniffsAndNamesJXL() throws {
        let px = smoothRGBA8(width: 8, height: 8)
        let data = try px.withUnsafeBufferPointer {
            try ImageCodecs.encode(rgba8: $0, width: 8, height: 8, hasAlpha: false, format: .jxl, options: EncodeOptions())
        }
        #expect(data.prefix(2) == Data([0xFF, 0x0A]))  // a bare codestream without metadata
        #expect(ImageCodecs.sniff(data) == .jxl)
        #expect(ImageCodecs.format(forPathExtension: ".JXL") == .jxl)
        #expect(ImageCodecs.canEncode(.jxl))
    }

    @Test(arguments: [false, true]) func lossless8BitIsExact(alpha: Bool) throws {
        let w = 37, h = 23
        let px = smoothRGBA8(width: w, height: h, alpha: alpha)
        var o = EncodeOptions()
        o.lossless = true
        let data = try px.withUnsafeBufferPointer {
            try ImageCodecs.encode(rgba8: $0, width: w, height: h, hasAlpha: alpha, format: .jxl, options: o)
        }
        let header = try ImageCodecs.readHeader(data)
        #expect(header.format == .jxl && header.width == w && header.height == h && header.bitDepth == 8)
        #expect(header.hasAlpha == alpha && header.channels == (alpha ? 4 : 3))
        #expect(header.formatProperties["IsLossless"] == .bool(true))
        let back = try ImageCodecs.decode(data)
        #expect(back.bitDepth == 8 && back.pixels == px)
    }

    @Test func lossless16BitIsExact() throws {
        let w = 19, h = 11
        let px = rgba16(width: w, height: h)
        var o = EncodeOptions()
        o.lossless = true
        let data = try px.withUnsafeBufferPointer {
            try ImageCodecs.encode(rgba16: $0, width: w, height: h, hasAlpha: true, format: .jxl, options: o)
        }
        let back = try ImageCodecs.decode(data)
        #expect(back.bitDepth == 16 && back.header.bitDepth == 16)
        #expect(back.pixels16 == px)
    }

    @Test func losslessFloatIsExact() throws {
        let w = 13, h = 7
        var px = [Float](repeating: 0, count: w * h * 4)
        for i in 0..<px.count { px[i] = Float(i % 97) / 37 - 0.5 }  // values outside 0...1 too
        for i in stride(from: 3, to: px.count, by: 4) { px[i] = Float(i % 5) / 4 }
        var o = EncodeOptions()
        o.lossless = true
        let data = try px.withUnsafeBufferPointer {
            try ImageCodecs.encode(rgbaF: $0, width: w, height: h, hasAlpha: true, format: .jxl, options: o)
        }
        let back = try ImageCodecs.decode(data)
        #expect(back.bitDepth == 32 && back.header.bitDepth == 32)
        #expect(back.pixelsF == px)
    }

    /// Lossy at quality 90 (Butteraugli distance 1): PSNR at least 38 dB on a smooth image,
    /// and the default of 0.9 makes a smaller file than lossless.
    @Test func lossyIsCloseAndSmaller() throws {
        let w = 64, h = 48
        let px = smoothRGBA8(width: w, height: h)
        let lossy = try px.withUnsafeBufferPointer {
            try ImageCodecs.encode(rgba8: $0, width: w, height: h, hasAlpha: false, format: .jxl, options: EncodeOptions())
        }
        var o = EncodeOptions()
        o.lossless = true
        let lossless = try px.withUnsafeBufferPointer {
            try ImageCodecs.encode(rgba8: $0, width: w, height: h, hasAlpha: false, format: .jxl, options: o)
        }
        #expect(lossy.count < lossless.count)
        let back = try ImageCodecs.decode(lossy)
        #expect(back.header.formatProperties["IsLossless"] == .bool(false))
        #expect(back.bitDepth == 8 && back.header.iccProfile == nil)
        #expect(psnrRGB(back.pixels, px) >= 38, "PSNR \(psnrRGB(back.pixels, px))")
        #expect(JXLCodec.distance(quality: 0.9) == 1)
    }

    @Test func greyRoundTrip() throws {
        let w = 16, h = 9
        var px = smoothRGBA8(width: w, height: h)
        for i in stride(from: 0, to: px.count, by: 4) { px[i] = px[i + 1]; px[i + 2] = px[i + 1] }
        var o = EncodeOptions()
        o.lossless = true
        o.grayscale = true
        let data = try px.withUnsafeBufferPointer {
            try ImageCodecs.encode(rgba8: $0, width: w, height: h, hasAlpha: false, format: .jxl, options: o)
        }
        let back = try ImageCodecs.decode(data)
        #expect(back.header.colorModel == "Gray" && back.header.channels == 1)
        #expect(back.pixels == px)
    }

    @Test func orientationIsReportedNotApplied() throws {
        let w = 6, h = 4
        let px = smoothRGBA8(width: w, height: h)
        var o = EncodeOptions()
        o.lossless = true
        o.orientation = 6
        let data = try px.withUnsafeBufferPointer {
            try ImageCodecs.encode(rgba8: $0, width: w, height: h, hasAlpha: false, format: .jxl, options: o)
        }
        let back = try ImageCodecs.decode(data)
        #expect(back.header.orientation == 6 && back.width == w && back.pixels == px)
    }

    @Test func iccExifAndXMPSurvive() throws {
        let w = 8, h = 8
        let px = smoothRGBA8(width: w, height: h)
        let icc = try #require(ColorProfiles.displayP3)
        let exif = EXIFFixtures.withGPS
        let xmp = Data(EXIFFixtures.xmpWithGPS.utf8)
        for lossless in [true, false] {
            var o = EncodeOptions()
            o.lossless = lossless
            o.iccProfile = icc
            o.exif = exif
            o.xmp = xmp
            let data = try px.withUnsafeBufferPointer {
                try ImageCodecs.encode(rgba8: $0, width: w, height: h, hasAlpha: false, format: .jxl, options: o)
            }
            let header = try ImageCodecs.readHeader(data)
            #expect(header.exif == exif && header.xmp == xmp, "lossless \(lossless)")
            let back = try ImageCodecs.decode(data)
            #expect(back.header.exif == exif && back.header.xmp == xmp)
            if lossless {
                // Lossless keeps the profile's bytes.
                #expect(header.iccProfile == icc && back.pixels == px && back.header.iccProfile == icc)
            } else {
                // Lossy: libjxl stores Display P3 as its enumerated colour space and describes
                // it with its own profile; the colours it means are the same.
                let profile = try #require(back.header.iccProfile)
                var original = back
                original.pixels = px
                let a = try #require(ColorProfiles.linearSRGBPixels(of: original, profile: icc))
                let b = try #require(ColorProfiles.linearSRGBPixels(of: original, profile: profile))
                let fa = a.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
                let fb = b.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
                let maxDiff = zip(fa, fb).map { abs($0 - $1) }.max() ?? 1
                #expect(maxDiff < 0.002, "the two P3 profiles differ by \(maxDiff)")
            }
        }
    }

    @Test(.enabled(if: JXLTests.haveDJXL, "djxl (Debian libjxl-tools) is not installed"))
    func independentDecoderReadsOurFiles() throws {
        let dir = try ScratchDir()
        let w = 21, h = 13
        let px = smoothRGBA8(width: w, height: h)
        // 8-bit lossless: djxl's PPM equals our pixels exactly.
        var o = EncodeOptions()
        o.lossless = true
        o.exif = EXIFFixtures.withGPS
        let data = try px.withUnsafeBufferPointer {
            try ImageCodecs.encode(rgba8: $0, width: w, height: h, hasAlpha: false, format: .jxl, options: o)
        }
        try data.write(to: URL(fileURLWithPath: dir.path("a.jxl")))
        let r = try #require(runTool(Self.djxl, [dir.path("a.jxl"), dir.path("a.ppm")]))
        #expect(r.status == 0, "\(r.err)")
        let pnm = try #require(readPNM(try Data(contentsOf: URL(fileURLWithPath: dir.path("a.ppm")))))
        #expect(pnm.width == w && pnm.height == h && pnm.maxval == 255)
        var expected: [Int] = []
        for i in 0..<(w * h) { for c in 0..<3 { expected.append(Int(px[i * 4 + c])) } }
        #expect(pnm.rgb == expected)
        // 16-bit lossless.
        let px16 = rgba16(width: w, height: h)
        let data16 = try px16.withUnsafeBufferPointer {
            try ImageCodecs.encode(rgba16: $0, width: w, height: h, hasAlpha: false, format: .jxl, options: o)
        }
        try data16.write(to: URL(fileURLWithPath: dir.path("b.jxl")))
        let r16 = try #require(runTool(Self.djxl, [dir.path("b.jxl"), dir.path("b.ppm")]))
        #expect(r16.status == 0, "\(r16.err)")
        let pnm16 = try #require(readPNM(try Data(contentsOf: URL(fileURLWithPath: dir.path("b.ppm")))))
        #expect(pnm16.maxval == 65535)
        var expected16: [Int] = []
        for i in 0..<(w * h) { for c in 0..<3 { expected16.append(Int(px16[i * 4 + c])) } }
        #expect(pnm16.rgb == expected16)
        // Lossy: djxl's pixels are within the stated tolerance of ours.
        let lossy = try px.withUnsafeBufferPointer {
            try ImageCodecs.encode(rgba8: $0, width: w, height: h, hasAlpha: false, format: .jxl, options: EncodeOptions())
        }
        try lossy.write(to: URL(fileURLWithPath: dir.path("c.jxl")))
        let rl = try #require(runTool(Self.djxl, [dir.path("c.jxl"), dir.path("c.ppm")]))
        #expect(rl.status == 0, "\(rl.err)")
        let pnml = try #require(readPNM(try Data(contentsOf: URL(fileURLWithPath: dir.path("c.ppm")))))
        let ours = try ImageCodecs.decode(lossy)
        var maxDiff = 0
        for i in 0..<(w * h) { for c in 0..<3 { maxDiff = max(maxDiff, abs(pnml.rgb[i * 3 + c] - Int(ours.pixels[i * 4 + c]))) } }
        #expect(maxDiff <= 1, "djxl and our decode differ by \(maxDiff)")
    }

    // MARK: Bad input

    func sample() throws -> Data {
        let px = smoothRGBA8(width: 40, height: 30)
        var o = EncodeOptions()
        o.exif = EXIFFixtures.withGPS
        return try px.withUnsafeBufferPointer {
            try ImageCodecs.encode(rgba8: $0, width: 40, height: 30, hasAlpha: false, format: .jxl, options: o)
        }
    }

    @Test func limitsAreCheckedBeforeDecoding() throws {
        let data = try sample()
        #expect(throws: ImageFileError.tooLarge(width: 40, height: 30, limit: 1000)) {
            try ImageCodecs.decode(data, limits: DecodeLimits(maxPixels: 1000))
        }
    }

    @Test func truncatedAndCorruptFilesGiveTypedErrors() throws {
        let data = try sample()
        for cut in [1, 2, 10, 40, data.count / 2, data.count - 1] {
            do {
                _ = try ImageCodecs.decode(data.prefix(cut), as: .jxl)
                Issue.record("cut at \(cut) decoded")
            } catch let e {
                switch e {
                case .truncated, .corrupt: break
                default: Issue.record("cut at \(cut): \(e)")
                }
            }
        }
        var bad = [UInt8](data)
        for i in stride(from: data.count / 3, to: data.count, by: 7) { bad[i] ^= 0x5A }
        do {
            _ = try ImageCodecs.decode(Data(bad))
        } catch let e {
            switch e {
            case .corrupt, .truncated: break
            default: Issue.record("corrupt: \(e)")
            }
        }
        #expect(throws: ImageFileError.corrupt(detail: "JPEG XL: no JPEG XL signature")) {
            try ImageCodecs.decode(Data([1, 2, 3]), as: .jxl)
        }
    }
}
