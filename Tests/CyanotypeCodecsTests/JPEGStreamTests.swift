import Foundation
import Testing
@testable import CyanotypeCodecs

/// The band-at-a-time JPEG encoder writes the bytes the one-shot encoder writes.
@Suite struct JPEGStreamTests {
    @Test(arguments: [ChromaSubsampling.s420, .s422, .s444])
    func bandsGiveTheOneShotBytes(subsampling: ChromaSubsampling) throws {
        let (w, h) = (45, 37)
        let px = smoothRGBA8(width: w, height: h)
        for progressive in [false, true] {
            var o = EncodeOptions()
            o.quality = 0.83
            o.chromaSubsampling = subsampling
            o.progressive = progressive
            o.exif = Data(exifBlock(orientation: 1, bigEndian: false))
            o.iccProfile = Data((0..<3000).map { UInt8($0 & 0xFF) })
            let oneShot = try px.withUnsafeBufferPointer { try ImageCodecs.encode(rgba8: $0, width: w, height: h, hasAlpha: false, format: .jpeg, options: o) }
            let e = try JPEGStreamEncoder(width: w, height: h, options: o)
            try px.withUnsafeBytes { raw in
                // Uneven bands, as a tiled renderer finishes them.
                var top = 0
                for band in [1, 16, 7, 13] {
                    try e.write(raw.baseAddress! + top * w * 4, rowBytes: w * 4, count: band)
                    top += band
                }
                #expect(top == h)
            }
            #expect(try e.finish() == oneShot, "\(subsampling) progressive \(progressive)")
        }
    }

    @Test func misuseIsAnError() throws {
        #expect(throws: ImageFileError.invalidArgument("JPEG width and height must be 1...65500, got 0x10")) {
            try JPEGStreamEncoder(width: 0, height: 10, options: EncodeOptions())
        }
        let e = try JPEGStreamEncoder(width: 4, height: 2, options: EncodeOptions())
        #expect(throws: ImageFileError.invalidArgument("JPEG: 1 of 2 rows written")) {
            try [UInt8](repeating: 9, count: 16).withUnsafeBytes { raw in
                try e.write(raw.baseAddress!, rowBytes: 16, count: 1)
                _ = try e.finish()
            }
        }
        #expect(throws: ImageFileError.invalidArgument("JPEG: 5 rows of 16 bytes after 1 of 2")) {
            try [UInt8](repeating: 9, count: 80).withUnsafeBytes { try e.write($0.baseAddress!, rowBytes: 16, count: 5) }
        }
    }
}

/// The band-at-a-time JPEG decoder gives the one-shot decoder's pixels.
@Suite struct JPEGStreamDecoderTests {
    func jpeg(_ w: Int, _ h: Int, _ sub: ChromaSubsampling, progressive: Bool = false, grey: Bool = false) throws -> Data {
        var px = smoothRGBA8(width: w, height: h)
        if grey { for i in stride(from: 0, to: px.count, by: 4) { px[i + 1] = px[i]; px[i + 2] = px[i] } }
        var o = EncodeOptions()
        o.chromaSubsampling = sub
        o.progressive = progressive
        return try px.withUnsafeBufferPointer { try ImageCodecs.encode(rgba8: $0, width: w, height: h, hasAlpha: false, format: .jpeg, options: o) }
    }

    @Test(arguments: [ChromaSubsampling.s420, .s422, .s444])
    func rowsEqualTheOneShotDecode(subsampling: ChromaSubsampling) throws {
        for (w, h) in [(1, 1), (17, 9), (64, 33)] {
            let file = try jpeg(w, h, subsampling)
            let header = try ImageCodecs.readHeader(file)
            #expect(JPEGStreamDecoder.canStream(file, header: header, strict: true))
            #expect(!JPEGStreamDecoder.canStream(file, header: header, strict: false))
            let reference = try ImageCodecs.decode(file).pixels
            let d = try JPEGStreamDecoder(data: file)
            var rows = [UInt8](repeating: 0, count: w * h * 4)
            try rows.withUnsafeMutableBytes { raw in
                var top = 0
                while top < h {
                    let n = min(5, h - top)
                    try d.read(into: raw.baseAddress! + top * w * 4, rowBytes: w * 4, count: n)
                    top += n
                }
            }
            #expect(rows == reference, "\(w)x\(h) \(subsampling)")
        }
    }

    /// The decoder reads the caller's bytes in place: a slice of a larger buffer (not starting
    /// at index 0), and a copy whose buffer is gone once the decoder starts, decode alike.
    @Test func readsTheBytesInPlaceFromASlice() throws {
        let (w, h) = (40, 27)
        let file = try jpeg(w, h, .s420)
        let reference = try ImageCodecs.decode(file).pixels
        let padded = Data([UInt8](repeating: 0xAB, count: 13)) + file + Data([1, 2, 3])
        let slice = padded[13..<(13 + file.count)]
        var decoders = [try JPEGStreamDecoder(data: slice)]
        do {
            var copy = Data(file)
            copy.append(0)
            decoders.append(try JPEGStreamDecoder(data: copy.prefix(file.count)))
        }
        for d in decoders {
            var rows = [UInt8](repeating: 0, count: w * h * 4)
            try rows.withUnsafeMutableBytes { raw in
                for top in stride(from: 0, to: h, by: 4) {
                    try d.read(into: raw.baseAddress! + top * w * 4, rowBytes: w * 4, count: min(4, h - top))
                }
            }
            #expect(rows == reference)
        }
    }

    /// Damaged files through the band decoder: an error or rows, never a crash; and a file the
    /// one-shot decoder accepts strictly gives the same pixels here.
    @Test func bitFlippedFilesNeverCrash() throws {
        let file = try jpeg(96, 64, .s420)
        var rng = SplitMix(seed: 11)
        var rejected = 0
        for _ in 0..<120 {
            var bytes = [UInt8](file)
            for _ in 0..<3 {
                let at = 2 + Int(rng.next() % UInt64(bytes.count - 2))
                bytes[at] ^= UInt8(1 << (rng.next() % 8))
            }
            let flipped = Data(bytes)
            var rows = [UInt8](repeating: 0, count: 96 * 64 * 4)
            var failed = false
            rows.withUnsafeMutableBytes { raw in
                do throws(ImageFileError) {
                    let d = try JPEGStreamDecoder(data: flipped)
                    guard d.width * d.height * 4 <= raw.count else { failed = true; return }
                    var top = 0
                    while top < d.height {
                        let n = min(16, d.height - top)
                        try d.read(into: raw.baseAddress! + top * d.width * 4, rowBytes: d.width * 4, count: n)
                        top += n
                    }
                } catch { failed = true }
            }
            if failed { rejected += 1; continue }
            if let oneShot = try? ImageCodecs.decode(flipped), oneShot.width == 96, oneShot.height == 64 {
                #expect(oneShot.pixels == rows)
            }
        }
        #expect(rejected > 0)
    }

    @Test func progressiveFilesDoNotStream() throws {
        let file = try jpeg(20, 20, .s420, progressive: true)
        #expect(!JPEGStreamDecoder.canStream(file, header: try ImageCodecs.readHeader(file), strict: true))
    }

    @Test func truncationIsReportedAsTheOneShotDecoderReportsIt() throws {
        let file = try jpeg(256, 256, .s420)
        let cut = file.prefix(file.count / 2)
        var rows = [UInt8](repeating: 0, count: 256 * 256 * 4)
        var thrown: ImageFileError?
        rows.withUnsafeMutableBytes { raw in
            do throws(ImageFileError) {
                let d = try JPEGStreamDecoder(data: cut)
                try d.read(into: raw.baseAddress!, rowBytes: 1024, count: 256)
            } catch { thrown = error }
        }
        var oneShot: ImageFileError?
        do { _ = try ImageCodecs.decode(cut) } catch { oneShot = error }
        #expect(thrown != nil && thrown == oneShot, "\(String(describing: thrown)) vs \(String(describing: oneShot))")
    }
}
