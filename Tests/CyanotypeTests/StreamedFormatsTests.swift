import CyanotypeCodecs
import Foundation
import Testing

@testable import Cyanotype

/// ImageMagick's own convert (not a stand-in of that name).
private let imageMagick = "/usr/bin/convert"
private let haveImageMagick = FileManager.default.isExecutableFile(atPath: imageMagick)

/// PNG (8 and 16-bit, plain and interlaced) and TIFF (8 and 16-bit; grey, RGB, RGBA; none, LZW,
/// deflate; strips and tiles) read through the row decoders (#26): files made by ImageMagick
/// from seeded raw samples, so the raw samples are the oracle. A file that streams renders to
/// exactly those samples, and to what the whole-image decode (the lenient path) gives.
@Suite(.enabled(if: haveImageMagick, "ImageMagick's convert (Debian imagemagick) is not installed"))
struct StreamedFormatsTests {
    static let magick = imageMagick

    /// One kind of file: its extension, bits a sample, channels (1 grey, 3 RGB, 4 RGBA) and
    /// ImageMagick's options for it; `streams` says whether the row decoders take it.
    struct Kind: CustomTestStringConvertible, Sendable {
        let ext: String, bits: Int, channels: Int
        let options: [String]
        let streams: Bool
        var testDescription: String { "\(ext) \(bits)-bit \(channels)ch \(options.joined(separator: " "))" }
    }

    static let kinds: [Kind] = {
        var k: [Kind] = []
        for bits in [8, 16] {
            for channels in [1, 3, 4] {
                k.append(Kind(ext: "png", bits: bits, channels: channels, options: [], streams: true))
                for compress in ["None", "LZW", "Zip"] {
                    k.append(Kind(ext: "tif", bits: bits, channels: channels, options: ["-compress", compress, "-define", "tiff:rows-per-strip=5"], streams: true))
                }
                k.append(Kind(ext: "tif", bits: bits, channels: channels, options: ["-compress", "Zip", "-define", "tiff:tile-geometry=16x16"], streams: true))
            }
            k.append(Kind(ext: "png", bits: bits, channels: 3, options: ["-interlace", "PNG"], streams: false))
        }
        // PackBits is not among the streamed compressions: such a file decodes whole.
        k.append(Kind(ext: "tif", bits: 8, channels: 3, options: ["-compress", "RLE"], streams: false))
        return k
    }()

    static let (width, height) = (67, 45)

    /// Seeded raw samples for `kind` (alpha never 0, so straight colour survives everywhere)
    /// and the RGBA samples a decode must give for them.
    static func samples(_ kind: Kind, seed: UInt64) -> (raw: [UInt16], rgba: [UInt16]) {
        var rng = SplitMix(seed)
        let maxValue = UInt64(kind.bits == 16 ? 65535 : 255)
        let n = width * height
        var raw = [UInt16](repeating: 0, count: n * kind.channels)
        var rgba = [UInt16](repeating: 0, count: n * 4)
        for i in 0..<n {
            for c in 0..<kind.channels {
                let low: UInt64 = c == 3 ? 1 : 0
                raw[i * kind.channels + c] = UInt16(low + rng.next() % (maxValue + 1 - low))
            }
            let s = raw[(i * kind.channels)...]
            let v = kind.channels == 1 ? [s.first!, s.first!, s.first!, UInt16(maxValue)] : Array(s.prefix(3)) + [kind.channels == 4 ? s.dropFirst(3).first! : UInt16(maxValue)]
            for c in 0..<4 { rgba[i * 4 + c] = v[c] }
        }
        return (raw, rgba)
    }

    /// The file ImageMagick writes for `raw` (big-endian samples), with `extra` options last.
    static func file(_ kind: Kind, raw: [UInt16], extra: [String] = []) throws -> Data {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-streamed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var bytes: [UInt8] = []
        for v in raw {
            if kind.bits == 16 { bytes += [UInt8(v >> 8), UInt8(v & 0xFF)] } else { bytes.append(UInt8(v)) }
        }
        let rawURL = dir.appendingPathComponent("in.raw")
        try Data(bytes).write(to: rawURL)
        let layout = ["gray", "", "rgb", "rgba"][kind.channels - 1]
        // Grey PNGs stay grey (colour type 0) at the bit depth asked.
        let pngType = kind.ext != "png" ? "" : ["png:", "", "PNG\(kind.bits * 3):", "PNG\(kind.bits * 4):"][kind.channels - 1]
        let grey = kind.ext == "png" && kind.channels == 1 ? ["-define", "png:color-type=0", "-define", "png:bit-depth=\(kind.bits)"] : []
        let out = dir.appendingPathComponent("out.\(kind.ext)")
        try runToolOrThrow(
            magick,
            ["-size", "\(width)x\(height)", "-depth", "\(kind.bits)", "-endian", "MSB", "\(layout):\(rawURL.path)", "-strip"]
                + grey + kind.options + extra + [pngType + out.path])
        return try Data(contentsOf: out)
    }

    /// The image rendered unchanged to straight RGBA at the file's depth, as 16-bit words (8-bit
    /// codes widened).
    static func render(_ image: CIImage, bits: Int) throws -> [UInt16] {
        let ctx = CIContext(options: [.cacheIntermediates: false])
        let data = try ctx.renderToData(image, from: image.extent, format: bits == 16 ? .RGBA16 : .RGBA8, premultiplied: false).data
        return data.withUnsafeBytes { raw in bits == 16 ? Array(raw.bindMemory(to: UInt16.self)) : raw.map { UInt16($0) } }
    }

    static func mismatches(_ got: [UInt16], _ want: [UInt16]) -> String? {
        guard got.count == want.count else { return "\(got.count) samples, expected \(want.count)" }
        guard let i = got.indices.first(where: { got[$0] != want[$0] }) else { return nil }
        let count = got.indices.filter { got[$0] != want[$0] }.count
        return "\(count) samples differ; first at pixel \(i / 4) channel \(i % 4): got \(got[i]), expected \(want[i])"
    }

    @Test(arguments: kinds)
    func streamedRowsAreTheFilesSamplesAndTheWholeDecodes(kind: Kind) throws {
        let (raw, want) = Self.samples(kind, seed: UInt64(kind.bits * 10 + kind.channels))
        let data = try Self.file(kind, raw: raw)
        let header = try ImageCodecs.readHeader(data)
        #expect(header.bitDepth == kind.bits)
        let streams =
            kind.ext == "png"
            ? PNGStreamDecoder.canStream(header: header, strict: true) : TIFFStreamDecoder.canStream(data, header: header, strict: true)
        #expect(streams == kind.streams)
        // Through a file on disk (the streaming decoders then read the file again) and from memory.
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-streamed-\(UUID().uuidString).\(kind.ext)")
        try data.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let fromFile = try Self.render(try CIImage.read(contentsOf: url), bits: kind.bits)
        let fromData = try Self.render(try CIImage.read(data: data), bits: kind.bits)
        let whole = try Self.render(try CIImage.read(data: data, options: [.lenientDecoding: true]), bits: kind.bits)
        #expect(Self.mismatches(fromFile, want) == nil, "from the file: \(Self.mismatches(fromFile, want) ?? "")")
        #expect(Self.mismatches(fromData, want) == nil, "from memory: \(Self.mismatches(fromData, want) ?? "")")
        #expect(Self.mismatches(whole, want) == nil, "whole decode: \(Self.mismatches(whole, want) ?? "")")
    }

    /// The codec's row decoder alone, in bands of 7 rows, gives the one-shot decode's samples.
    @Test(arguments: kinds.filter(\.streams))
    func rowDecoderInBandsEqualsTheOneShotDecode(kind: Kind) throws {
        let (raw, _) = Self.samples(kind, seed: 77)
        let data = try Self.file(kind, raw: raw)
        let whole = try ImageCodecs.decode(data)
        let pixelBytes = kind.bits == 16 ? 8 : 4
        var rows = [UInt8](repeating: 0, count: Self.width * Self.height * pixelBytes)
        let decoder: any RowDecoder = kind.ext == "png" ? try PNGStreamDecoder(data: data) : try TIFFStreamDecoder(data: data)
        #expect(decoder.bitsPerSample == kind.bits)
        try rows.withUnsafeMutableBytes { out in
            var top = 0
            while top < Self.height {
                let n = min(7, Self.height - top)
                try decoder.read(into: out.baseAddress! + top * Self.width * pixelBytes, rowBytes: Self.width * pixelBytes, count: n)
                top += n
            }
        }
        let wholeBytes = kind.bits == 16 ? whole.pixels16.withUnsafeBytes { Array($0) } : whole.pixels
        #expect(rows == wholeBytes)
    }

    /// Every orientation tag on a streamed 16-bit TIFF, read upright: the upright picture is the
    /// raw samples turned as the EXIF orientation says.
    @Test(arguments: 1...8)
    func orientationOfAStreamedTIFFIsUpright(orientation: Int) throws {
        let kind = Kind(ext: "tif", bits: 16, channels: 3, options: ["-compress", "Zip"], streams: true)
        let (raw, want) = Self.samples(kind, seed: 5)
        let names = ["TopLeft", "TopRight", "BottomRight", "BottomLeft", "LeftTop", "RightTop", "RightBottom", "LeftBottom"]
        let data = try Self.file(kind, raw: raw, extra: ["-orient", names[orientation - 1]])
        #expect(try ImageCodecs.readHeader(data).orientation == orientation)
        let image = try CIImage.read(data: data, options: [.applyOrientationProperty: true])
        let (w, h) = (Self.width, Self.height)
        let turned = orientation >= 5
        #expect(image.extent.size == CGSize(width: turned ? h : w, height: turned ? w : h))
        let got = try Self.render(image, bits: 16)
        let (uw, uh) = turned ? (h, w) : (w, h)
        var expected = [UInt16](repeating: 0, count: uw * uh * 4)
        for y in 0..<uh {
            for x in 0..<uw {
                // The stored pixel shown at upright (x, y), per the EXIF orientation's definition.
                let (sx, sy): (Int, Int) =
                    switch orientation {
                    case 1: (x, y)
                    case 2: (w - 1 - x, y)
                    case 3: (w - 1 - x, h - 1 - y)
                    case 4: (x, h - 1 - y)
                    case 5: (y, x)
                    case 6: (y, h - 1 - x)
                    case 7: (w - 1 - y, h - 1 - x)
                    default: (w - 1 - y, x)
                    }
                for c in 0..<4 { expected[(y * uw + x) * 4 + c] = want[(sy * w + sx) * 4 + c] }
            }
        }
        #expect(Self.mismatches(got, expected) == nil, "\(Self.mismatches(got, expected) ?? "")")
    }

    /// Damaged image data and a file changed after it was read fail the render with an error
    /// that says so, for both row decoders; nothing crashes.
    @Test func damagedOrChangedFilesFailTheRender() throws {
        for kind in [
            Kind(ext: "tif", bits: 16, channels: 3, options: ["-compress", "Zip", "-define", "tiff:rows-per-strip=5"], streams: true),
            Kind(ext: "png", bits: 16, channels: 3, options: [], streams: true),
        ] {
            let (raw, _) = Self.samples(kind, seed: 11)
            var data = try Self.file(kind, raw: raw)
            // Garbage over the middle of the compressed rows (the header and, for a TIFF,
            // its directory stay whole).
            let header = try ImageCodecs.readHeader(data)
            let offsets = kind.ext == "png" ? (data.count / 2)..<(data.count / 2 + 64) : 400..<464
            for i in offsets { data[i] = UInt8(truncatingIfNeeded: i &* 37 &+ 11) }
            #expect(try ImageCodecs.readHeader(data).width == header.width)
            let damaged = try CIImage.read(data: data)
            #expect(throws: (any Error).self, "\(kind.testDescription), damaged") { _ = try Self.render(damaged, bits: 16) }
            // A file replaced after it was read: the decode reads it again and refuses it.
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-changed-\(UUID().uuidString).\(kind.ext)")
            try Self.file(kind, raw: raw).write(to: url)
            defer { try? FileManager.default.removeItem(at: url) }
            let image = try CIImage.read(contentsOf: url)
            try Self.file(kind, raw: Self.samples(kind, seed: 12).raw, extra: ["-compress", "None"]).write(to: url)
            let error = #expect(throws: (any Error).self) { _ = try Self.render(image, bits: 16) }
            #expect("\(error.map { "\($0)" } ?? "")".contains("changed since it was read"), "\(kind.testDescription): \(String(describing: error))")
        }
    }
}

/// Files whose header declares a huge picture are refused when read, before any pixel is
/// decoded, in every format that streams or decodes whole (#26's bombs).
@Suite struct DeclaredSizeBombTests {
    /// A little-endian TIFF of a few dozen bytes declaring `width` x `height`, 8-bit RGB,
    /// deflate, one strip (whose bytes are not there).
    static func tiffDeclaring(width: UInt32, height: UInt32) -> Data {
        var b: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0]
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func u32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
        let entries: [(Int, Int, UInt32, UInt32)] = [
            (256, 4, 1, width), (257, 4, 1, height), (258, 3, 1, 8), (259, 3, 1, 8), (262, 3, 1, 2),
            (273, 4, 1, 8), (277, 3, 1, 3), (278, 4, 1, height), (279, 4, 1, 16),
        ]
        b += u16(entries.count)
        for (tag, type, count, value) in entries { b += u16(tag) + u16(type) + u32(count) + u32(value) }
        b += u32(0)
        return Data(b)
    }

    @Test func hugeDeclaredSizesAreRefusedWhenRead() throws {
        let tiff = Self.tiffDeclaring(width: 100_000, height: 100_000)
        #expect(tiff.count < 200)
        #expect(try ImageCodecs.readHeader(tiff).width == 100_000)
        #expect(throws: ImageIOError.codec(path: nil, .tooLarge(width: 100_000, height: 100_000, limit: 1 << 30))) {
            try CIImage.read(data: tiff)
        }
        // Under the render limit but over the decode limit: refused when read when the file
        // would decode whole (lenient), whatever a downscale would later ask of it.
        let mid = Self.tiffDeclaring(width: 30_000, height: 30_000)
        let limit = Cyanotype.DecodeLimits.default.maxPixels
        #expect(throws: ImageIOError.codec(path: nil, .tooLarge(width: 30_000, height: 30_000, limit: limit))) {
            try CIImage.read(data: mid, options: [.lenientDecoding: true])
        }
        // Read strictly it streams (900 MP is under the render limit); rendered to memory it
        // is held whole, so the decode limit refuses it then, with the same typed reason.
        let streamed = try CIImage.read(data: mid)
        let thumbnail = streamed.transformed(by: CGAffineTransform(scaleX: 0.004, y: 0.004))
        let inMemory = #expect(throws: (any Error).self) {
            _ = try CIContext().renderToData(thumbnail, from: thumbnail.extent.integral)
        }
        #expect("\(inMemory.map { "\($0)" } ?? "")".contains("30000x30000"), "\(String(describing: inMemory))")
    }
}
