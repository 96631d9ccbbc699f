import CyanotypeCodecs
import Foundation
import Testing

@testable import Cyanotype

/// TIFF (8, 16-bit and float; none, LZW, deflate) and 16-bit PNG outputs written band by band
/// as the render runs (#26): the bytes equal rendering whole and encoding after, and programs
/// that are not ours (ImageMagick's convert, libtiff's tiffinfo, exiftool) read back the
/// rendered samples, the strip layout libtiff chose and the metadata.
@Suite struct StreamedEncodeTests {
    static let convert = "/usr/bin/convert"
    static let tiffinfo = which("tiffinfo")
    static let exiftool = which("exiftool")

    /// One output kind: format, bits a sample and TIFF compression.
    struct Kind: CustomTestStringConvertible, Sendable {
        let format: Cyanotype.ImageFileFormat
        let depth: Int
        let compression: TIFFCompression
        var testDescription: String { "\(format) \(depth)-bit \(format == .tiff ? "\(compression)" : "")" }
        var samples: CIFormat { depth == 32 ? .RGBAf : depth == 16 ? .RGBA16 : .RGBA8 }
    }

    static let kinds: [Kind] =
        [8, 16, 32].flatMap { d in [TIFFCompression.none, .lzw, .deflate].map { Kind(format: .tiff, depth: d, compression: $0) } }
        + [Kind(format: .png, depth: 16, compression: .lzw)]

    /// An odd-sized translucent picture, blurred (so it is rendered, not passed through).
    static func recipe() -> CIImage {
        let (w, h) = (67, 45)
        let src = image(testPixels(width: w, height: h, alpha: true), w, h)
        return src.clampedToExtent().applyingGaussianBlur(sigma: 2).cropped(to: src.extent)
    }

    /// What ImageMagick reads from `file`: RGBA samples at `depth` (floats for 32), as Double 0...1.
    static func magickSamples(_ file: URL, depth: Int) throws -> [Double] {
        let args =
            depth == 32
            ? [file.path, "-define", "quantum:format=floating-point", "-depth", "32", "-endian", "LSB", "rgba:-"]
            : [file.path, "-depth", "\(depth)", "-endian", "LSB", "rgba:-"]
        let run = try #require(runTool(convert, args))
        try #require(run.status == 0, "convert \(args.joined(separator: " "))")
        return run.data.withUnsafeBytes { raw -> [Double] in
            switch depth {
            case 32: return raw.bindMemory(to: Float.self).map { Double($0) }
            case 16: return raw.bindMemory(to: UInt16.self).map { Double($0) / 65535 }
            default: return raw.map { Double($0) / 255 }
            }
        }
    }

    /// The rendered samples of `data` (`format`) as Double 0...1, alpha replaced by 1 when the
    /// file holds none.
    static func values(_ data: Data, _ format: CIFormat, alpha: Bool) -> [Double] {
        var v: [Double] = data.withUnsafeBytes { raw in
            switch format {
            case .RGBAf: return raw.bindMemory(to: Float.self).map { Double($0) }
            case .RGBA16: return raw.bindMemory(to: UInt16.self).map { Double($0) / 65535 }
            default: return raw.map { Double($0) / 255 }
            }
        }
        if !alpha { for i in stride(from: 3, to: v.count, by: 4) { v[i] = 1 } }
        return v
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: convert), "ImageMagick's convert is not installed"), arguments: kinds)
    func streamedOutputEqualsRenderThenEncodeAndReadsBackAsRendered(kind: Kind) throws {
        let img = Self.recipe()
        let srgb = CGColorSpace(name: CGColorSpace.sRGB)!
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-streamed-out-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for ctx in [CIContext(options: [.tileSize: 16]), CIContext()] {
            for alpha in [true, false] {
                let options: [CIImageRepresentationOption: Any] = [.tiffCompression: kind.compression, .alphaChannel: alpha]
                let streamed = try ctx.encode(img, as: kind.format, depth: kind.depth, options: options)
                let r = try ctx.renderToData(img, from: img.extent, format: kind.samples, colorSpace: srgb, premultiplied: false)
                var o = EncodeOptions()
                o.tiffCompression = kind.compression
                o.addMetadata(of: img.properties, colorSpace: srgb, dpi: nil)
                let reference = try r.data.withUnsafeBytes { raw -> Data in
                    switch kind.samples {
                    case .RGBAf:
                        return try ImageCodecs.encode(
                            rgbaF: raw.bindMemory(to: Float.self), width: r.width, height: r.height, hasAlpha: alpha, format: kind.format, options: o)
                    case .RGBA16:
                        return try ImageCodecs.encode(
                            rgba16: raw.bindMemory(to: UInt16.self), width: r.width, height: r.height, hasAlpha: alpha, format: kind.format, options: o)
                    default:
                        return try ImageCodecs.encode(
                            rgba8: raw.bindMemory(to: UInt8.self), width: r.width, height: r.height, hasAlpha: alpha, format: kind.format, options: o)
                    }
                }
                #expect(streamed == reference, "\(kind.testDescription), alpha \(alpha)")
                // Written to a file as it is made: the same bytes, nothing else beside it.
                let url = dir.appendingPathComponent("out.\(kind.format == .png ? "png" : "tif")")
                try ctx.write(img, as: kind.format, to: url, depth: kind.depth, options: options)
                #expect(try Data(contentsOf: url) == reference, "\(kind.testDescription), alpha \(alpha), file")
                #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == [url.lastPathComponent])
                // ImageMagick reads the rendered samples (Q16: floats within one 16-bit level).
                let got = try Self.magickSamples(url, depth: kind.depth)
                let want = Self.values(r.data, kind.samples, alpha: alpha)
                #expect(got.count == want.count)
                let tolerance = kind.depth == 32 ? 1.0 / 65535 + 1e-7 : 1e-9
                let worst = zip(got, want).map { abs($0 - $1) }.max() ?? 1
                #expect(worst <= tolerance, "\(kind.testDescription), alpha \(alpha): off by \(worst)")
            }
        }
    }

    /// libtiff's own tiffinfo reads the streamed file's layout: libtiff's default strips
    /// (8 KiB of samples each), the samples and compression asked, unassociated alpha.
    @Test(arguments: kinds.filter { $0.format == .tiff })
    func streamedTIFFStripsAndTagsAsTiffinfoReadsThem(kind: Kind) throws {
        guard let tiffinfo = Self.tiffinfo else {
            Issue.record("tiffinfo is missing (Debian libtiff-tools; scripts/setup.sh --test)")
            return
        }
        let img = Self.recipe()
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-strips-\(UUID().uuidString).tif")
        defer { try? FileManager.default.removeItem(at: url) }
        try CIContext(options: [.tileSize: 16]).write(img, as: .tiff, to: url, depth: kind.depth, options: [.tiffCompression: kind.compression])
        let run = try #require(runTool(tiffinfo, [url.path]))
        #expect(run.status == 0)
        let text = run.out
        let rowsPerStrip = max(1, 8192 / (67 * 4 * kind.depth / 8))
        let scheme = ["None", "LZW", "AdobeDeflate"][[TIFFCompression.none, .lzw, .deflate].firstIndex(of: kind.compression)!]
        for line in [
            "Image Width: 67 Image Length: 45", "Bits/Sample: \(kind.depth)", "Samples/Pixel: 4", "Rows/Strip: \(rowsPerStrip)",
            "Compression Scheme: \(scheme)", "Extra Samples: 1<unassoc-alpha>",
            "Sample Format: \(kind.depth == 32 ? "IEEE floating point" : "unsigned integer")",
        ] {
            #expect(text.contains(line), "\(kind.testDescription): no '\(line)' in\n\(text)")
        }
    }

    /// The ICC profile of the colour space written and the EXIF of the image (its {TIFF} Make
    /// and Model) survive in a streamed 16-bit TIFF and PNG, and the TIFF states the image's
    /// orientation, as exiftool reads them.
    @Test func streamedTIFFAndPNGKeepTheProfileEXIFAndOrientation() throws {
        guard let exiftool = Self.exiftool else {
            Issue.record("exiftool is missing (libimage-exiftool-perl)")
            return
        }
        let img = Self.recipe().settingProperties([
            kCGImagePropertyTIFFDictionary: [kCGImagePropertyTIFFMake: "Cyanotype Test", kCGImagePropertyTIFFModel: "Bands"],
            kCGImagePropertyOrientation: 6,
        ])
        let p3 = CGColorSpace(name: CGColorSpace.displayP3)!
        for format: Cyanotype.ImageFileFormat in [.tiff, .png] {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-meta-\(UUID().uuidString).\(format == .png ? "png" : "tif")")
            defer { try? FileManager.default.removeItem(at: url) }
            try CIContext().write(img, as: format, to: url, depth: 16, colorSpace: p3)
            let run = try #require(
                runTool(exiftool, ["-j", "-n", "-Make", "-Model", "-ProfileDescription", "-Orientation", "-BitsPerSample", "-BitDepth", url.path]))
            let json = try #require(try JSONSerialization.jsonObject(with: run.data) as? [[String: Any]]).first ?? [:]
            #expect(json["Make"] as? String == "Cyanotype Test", "\(format): \(json)")
            #expect(json["Model"] as? String == "Bands", "\(format): \(json)")
            #expect((json["ProfileDescription"] as? String)?.contains("P3") == true, "\(format): \(json)")
            // TIFF states the orientation in its own header (PNG only in EXIF, which has none here).
            if format == .tiff { #expect(json["Orientation"] as? Int == 6, "\(format): \(json)") }
            let bits = (json["BitsPerSample"] ?? json["BitDepth"]).map { "\($0)" } ?? ""
            #expect(bits.hasPrefix("16"), "\(format): \(json)")
        }
    }

    /// An unfiltered 16-bit PNG decoding on its thread goes to a 16-bit TIFF and PNG as its
    /// rows arrive, untouched: ImageMagick reads back the seeded samples it was made from.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: convert), "ImageMagick's convert is not installed"))
    func unfiltered16BitPNGGoesTo16BitFilesUnrounded() throws {
        let (w, h) = (53, 301)
        var rng = SplitMix(2026)
        let samples = (0..<(w * h * 3)).map { _ in UInt16(truncatingIfNeeded: rng.next()) }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-png16-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let raw = dir.appendingPathComponent("in.rgb")
        try Data(samples.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }).write(to: raw)
        let png = dir.appendingPathComponent("in.png")
        let made = try #require(runTool(Self.convert, ["-size", "\(w)x\(h)", "-depth", "16", "-endian", "MSB", "rgb:\(raw.path)", "-strip", "PNG48:\(png.path)"]))
        try #require(made.status == 0)
        for format: Cyanotype.ImageFileFormat in [.tiff, .png] {
            let out = dir.appendingPathComponent("out.\(format == .png ? "png" : "tif")")
            try CIContext().write(try CIImage.read(contentsOf: png), as: format, to: out, depth: 16, options: [.alphaChannel: false])
            let got = try Self.magickSamples(out, depth: 16)
            var want: [Double] = []
            for i in 0..<(w * h) { want += [Double(samples[3 * i]) / 65535, Double(samples[3 * i + 1]) / 65535, Double(samples[3 * i + 2]) / 65535, 1] }
            #expect(got == want, "\(format)")
        }
    }
}
