import CyanotypeCodecs
import Foundation
import Testing
@testable import Cyanotype

/// Cyanotype's file vocabulary: each type declared once (CyanotypeFileTypes), used by the codecs
/// and re-exported by Cyanotype, whose codec module stays hidden.
@Suite struct ImageFileTypesTests {
    @Test func formatsByExtensionAndByContent() throws {
        let cases: [(String, Cyanotype.ImageFileFormat?)] = [
            ("jpg", .jpeg), (".JPEG", .jpeg), ("png", .png), ("webp", .webp), ("tif", .tiff), ("TIFF", .tiff),
            ("heic", .heif), ("avif", .avif), ("gif", .gif), ("bmp", nil), ("", nil),
        ]
        for (ext, want) in cases { #expect(Cyanotype.ImageFileFormat(pathExtension: ext) == want, "\(ext)") }
        let img = CIImage(color: .red).cropped(to: CGRect(x: 0, y: 0, width: 4, height: 3))
        for format in [Cyanotype.ImageFileFormat.jpeg, .png, .webp, .tiff] {
            #expect(format.canEncode)
            let data = try CIContext().encode(img, as: format)
            #expect(Cyanotype.ImageFileFormat(sniffing: data) == format)
            #expect(try CIImage.read(data: data).properties[kCyanotypePropertyFileFormat] as? String == format.rawValue)
        }
        #expect(Cyanotype.ImageFileFormat(sniffing: Data("GIF89a......".utf8)) == .gif)
        #expect(Cyanotype.ImageFileFormat(sniffing: Data("BM..........".utf8)) == nil)
        #expect(Cyanotype.ImageFileFormat.self == CyanotypeCodecs.ImageFileFormat.self)
        for f in Cyanotype.ImageFileFormat.allCases { #expect(f.canEncode == ImageCodecs.canEncode(f)) }
    }

    /// A PNG of a few dozen bytes whose header declares `width` x `height` (8-bit RGBA, no
    /// interlace: a file that would stream), with an empty image stream and correct CRCs.
    static func pngDeclaring(width: UInt32, height: UInt32) -> Data {
        func crc32(_ bytes: [UInt8]) -> UInt32 {
            var c: UInt32 = 0xFFFF_FFFF
            for b in bytes {
                c ^= UInt32(b)
                for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            }
            return ~c
        }
        func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            return be(UInt32(body.count)) + typed + be(crc32(typed))
        }
        let ihdr = be(width) + be(height) + [8, 6, 0, 0, 0]
        let emptyZlib: [UInt8] = [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr) + chunk("IDAT", emptyZlib) + chunk("IEND", []))
    }

    @Test func aStreamingFileIsHeldToTheRenderLimitByItsDeclaredSize() throws {
        // 100000 x 100000 declared in 65 bytes: refused when read, before any row is decoded,
        // whatever the render would later do with it (a thumbnail reads every row).
        let bomb = Self.pngDeclaring(width: 100_000, height: 100_000)
        #expect(bomb.count < 100)
        #expect(throws: ImageIOError.codec(path: nil, .tooLarge(width: 100_000, height: 100_000, limit: 1 << 30))) {
            try CIImage.read(data: bomb)
        }
        // A decode limit set higher than the render limit is the bound instead.
        let limit = 100_000 * 100_000
        #expect(throws: Never.self) { try CIImage.read(data: bomb, options: [.decodeLimits: Cyanotype.DecodeLimits(maxPixels: limit)]) }
        // Within the limit, the same kind of file still streams: 40000 x 20000 (800 MP) is read.
        let big = try CIImage.read(data: Self.pngDeclaring(width: 40_000, height: 20_000))
        #expect(big.extent.size == CGSize(width: 40_000, height: 20_000))
    }

    @Test func decodeLimitsDefaultToTheCodecsAndAreEnforced() throws {
        #expect(Cyanotype.DecodeLimits.default.maxPixels == CyanotypeCodecs.DecodeLimits.default.maxPixels)
        #expect(Cyanotype.DecodeLimits.default.maxBytes == CyanotypeCodecs.DecodeLimits.default.maxBytes)
        #expect(Cyanotype.DecodeLimits(maxPixels: 10) == Cyanotype.DecodeLimits(maxPixels: 10, maxBytes: Cyanotype.DecodeLimits.default.maxBytes))
        // A file decoded whole (a float TIFF) is refused when read.
        let float = try #require(
            CIContext().tiffRepresentation(
                of: CIImage(color: .blue).cropped(to: CGRect(x: 0, y: 0, width: 8, height: 8)),
                format: .RGBAf, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!))
        #expect(throws: ImageIOError.codec(path: nil, .tooLarge(width: 8, height: 8, limit: 63))) {
            try CIImage.read(data: float, options: [.decodeLimits: Cyanotype.DecodeLimits(maxPixels: 63)])
        }
        // One that streams (an 8-bit PNG) when a render needs more of it at once than the limit.
        let png8 = try #require(
            CIContext().pngRepresentation(
                of: CIImage(color: .blue).cropped(to: CGRect(x: 0, y: 0, width: 8, height: 8)),
                format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!))
        let limited = try CIImage.read(data: png8, options: [.decodeLimits: Cyanotype.DecodeLimits(maxPixels: 15)])
        #expect(throws: (any Error).self) { try CIContext().renderToData(limited, from: limited.extent) }
        #expect(throws: (any Error).self) { try CIContext().encode(limited.oriented(.down), as: .png) }
    }

    /// The codecs throw the file error Cyanotype reports, unchanged.
    @Test func fileErrorsAreTheCodecsErrors() {
        #expect(throws: ImageFileError.empty) { try ImageCodecs.readHeader(Data()) }
        #expect(throws: ImageIOError.codec(path: nil, .empty)) { try CIImage.read(data: Data()) }
        #expect(ImageIOError.codec(path: "a.png", .empty).description == "a.png: image data is empty (0 bytes)")
    }

    /// The JPEG and TIFF options take Cyanotype's enums.
    @Test func encodingOptionsTakeCyanotypesEnums() throws {
        let img = image(testPixels(width: 16, height: 8), 16, 8)
        let ctx = CIContext()
        let srgb = CGColorSpace(name: CGColorSpace.sRGB)!
        let small = try #require(ctx.jpegRepresentation(of: img, colorSpace: srgb, options: [.chromaSubsampling: Cyanotype.ChromaSubsampling.s420]))
        let full = try #require(ctx.jpegRepresentation(of: img, colorSpace: srgb, options: [.chromaSubsampling: Cyanotype.ChromaSubsampling.s444]))
        #expect(full.count > small.count)
        let none = try #require(ctx.tiffRepresentation(of: img, format: .RGBA8, colorSpace: srgb, options: [.tiffCompression: Cyanotype.TIFFCompression.none]))
        let lzw = try #require(ctx.tiffRepresentation(of: img, format: .RGBA8, colorSpace: srgb))
        #expect(none.count > lzw.count)
        #expect(try ImageCodecs.decode(none).pixels == ImageCodecs.decode(lzw).pixels)
    }

    /// The module edges stay as designed: Cyanotype imports the codecs internally (never
    /// `@_exported`: only the file types are), nothing outside Cyanotype and the bench imports
    /// them, each file type is declared once, and lcms2 is called from one file, the codecs'
    /// `ColorProfiles`.
    @Test func moduleEdges() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let sources = root.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        #expect(files.count > 100)
        var lcms: [String] = []
        var codecImportsOutside: [String] = []
        var declarations: [String: Int] = [:]
        let twins = [
            "enum ImageFileFormat", "struct DecodeLimits", "enum ChromaSubsampling", "enum PNGFilter", "enum TIFFCompression",
            "enum ImageFileError", "enum CodecError",
        ]
        for url in files {
            let text = try String(contentsOf: url, encoding: .utf8)
            let relative = String(url.path.dropFirst(sources.path.count + 1))
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ").map(String.init)
                // `import CyanotypeCodecs`, `internal import CyanotypeCodecs`, `import enum CyanotypeCodecs.X`...
                if let i = words.firstIndex(of: "import"), i + 1 < words.count,
                    words[(i + 1)...].contains(where: { $0 == "CyanotypeCodecs" || $0.hasPrefix("CyanotypeCodecs.") })
                {
                    if relative.hasPrefix("Cyanotype/") { #expect(line == "internal import CyanotypeCodecs", "\(relative): \(line)") }
                    if !["Cyanotype/", "CyanotypeCodecs/", "CyanotypeBench/"].contains(where: relative.hasPrefix) {
                        codecImportsOutside.append("\(relative): \(line)")
                    }
                }
                // The Apple-named modules (Linux only) exist to re-export the libraries.
                if line.hasPrefix("@_exported"), line.contains("Cyanotype"), !relative.hasPrefix("AppleModules/") {
                    #expect(line.hasSuffix(" import CyanotypeFileTypes"), "\(relative): \(line)")
                }
                for t in twins where line.contains("public \(t):") { declarations[t, default: 0] += 1 }
            }
            if text.contains("import CLCMS2") { lcms.append(relative) }
        }
        #expect(lcms == ["CyanotypeCodecs/ColorProfiles.swift"])
        // The tools, the server and video reach files through Cyanotype only.
        #expect(codecImportsOutside == [])
        // Each file type is declared once (CodecError is ImageFileError now).
        #expect(declarations == Dictionary(uniqueKeysWithValues: twins.dropLast().map { ($0, 1) }))
    }
}
