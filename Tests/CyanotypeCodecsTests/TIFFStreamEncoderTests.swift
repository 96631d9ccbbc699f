import Foundation
import Testing

@testable import CyanotypeCodecs

/// The TIFF stream encoder fed bands of any height, into memory or an open file, writes the
/// whole-image encoder's bytes, and libtiff's tiffdump finds the EXIF directory and XMP packet
/// it adds after the strips.
@Suite struct TIFFStreamEncoderTests {
    static let tiffdump = ["/usr/bin/tiffdump", "/usr/local/bin/tiffdump"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Seeded RGBA16 samples, `width` x `height`.
    static func samples(_ width: Int, _ height: Int, seed: UInt64) -> [UInt16] {
        var rng = SplitMix(seed: seed)
        return (0..<(width * height * 4)).map { _ in UInt16(truncatingIfNeeded: rng.next()) }
    }

    /// `rgba` written to `sink` in bands of `band` rows.
    static func stream(_ rgba: [UInt16], _ width: Int, _ height: Int, band: Int, options: EncodeOptions, into sink: ByteSink) throws {
        let encoder = try TIFFStreamEncoder(width: width, height: height, bits: 16, hasAlpha: true, options: options, sink: sink)
        try rgba.withUnsafeBytes { raw in
            var top = 0
            while top < height {
                let n = min(band, height - top)
                try encoder.write(raw.baseAddress! + top * width * 8, rowBytes: width * 8, count: n)
                top += n
            }
        }
        try encoder.finish()
    }

    @Test func bandsOfAnyHeightIntoMemoryOrAFileWriteTheWholeEncodersBytes() throws {
        let (w, h) = (41, 157)
        let rgba = Self.samples(w, h, seed: 3)
        var o = EncodeOptions()
        o.tiffCompression = .deflate
        o.exif = ImageCodecs.exifSettingText(nil, ifd0: [0x010F: "Band Maker"], exifIFD: [0xA434: "Strip Lens"])
        o.xmp = Data("<x:xmpmeta xmlns:x='adobe:ns:meta/'/>".utf8)
        o.orientation = 3
        let whole = try tiff16(rgba, w, h, o)
        for band in [1, 7, 64, h] {
            let memory = ByteSink()
            try Self.stream(rgba, w, h, band: band, options: o, into: memory)
            #expect(memory.data == whole, "bands of \(band)")
        }
        // Into an open, write-only file (as an atomic write's temporary is): the same bytes.
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-tiff-stream-\(UUID().uuidString).tif")
        defer { try? FileManager.default.removeItem(at: url) }
        let fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(fd >= 0)
        let sink = ByteSink(fileDescriptor: fd, path: url.path)
        try Self.stream(rgba, w, h, band: 10, options: o, into: sink)
        close(fd)
        #expect(try Data(contentsOf: url) == whole)
        // libtiff's own dump of the file: the EXIF directory pointer, the XMP packet, the
        // orientation and the pixels' tags in the first directory.
        guard let tiffdump = Self.tiffdump else {
            Issue.record("tiffdump is missing (Debian libtiff-tools; scripts/setup.sh --test)")
            return
        }
        let run = try #require(runTool(tiffdump, [url.path]))
        let text = String(decoding: run.out, as: UTF8.self)
        #expect(run.status == 0)
        for tag in ["34665 (0x8769) LONG (4) 1<", "700 (0x2bc) BYTE (1) 37<", "Orientation (274) SHORT (3) 1<3>", "BitsPerSample (258) SHORT (3) 4<16 16 16 16>", "Make (271)"] {
            #expect(text.contains(tag), "no \(tag) in\n\(text)")
        }
        // The decoder reads back the samples.
        let back = try ImageCodecs.decode(whole)
        #expect(back.pixels16 == rgba)
    }

    @Test func rowsBeyondTheImageOrAnEarlyFinishAreTypedErrors() throws {
        let encoder = try TIFFStreamEncoder(width: 4, height: 2, bits: 8, hasAlpha: false, options: EncodeOptions(), sink: ByteSink())
        let rows = [UInt8](repeating: 9, count: 4 * 4 * 3)
        #expect(throws: ImageFileError.self) { try encoder.finish() }
        try rows.withUnsafeBytes { raw in
            #expect(throws: ImageFileError.self) { try encoder.write(raw.baseAddress!, rowBytes: 16, count: 3) }
            try encoder.write(raw.baseAddress!, rowBytes: 16, count: 2)
        }
        try encoder.finish()
        #expect(throws: ImageFileError.self) { try TIFFStreamEncoder(width: 0, height: 2, bits: 8, hasAlpha: false, options: EncodeOptions(), sink: ByteSink()) }
        #expect(throws: ImageFileError.self) { try TIFFStreamEncoder(width: 2, height: 2, bits: 12, hasAlpha: false, options: EncodeOptions(), sink: ByteSink()) }
    }
}
