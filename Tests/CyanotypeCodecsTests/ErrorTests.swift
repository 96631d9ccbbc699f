import Foundation
import Testing

@testable import CyanotypeCodecs

/// One valid sample file per format, made by our own encoders.
func sampleFiles() throws -> [(ImageFileFormat, Data)] {
    let (w, h) = (48, 40)
    let px = smoothRGBA8(width: w, height: h, alpha: true)
    var lossless = EncodeOptions()
    lossless.lossless = true
    return [
        (.png, try encode8(px, w, h, alpha: true, .png)),
        (.jpeg, try encode8(px, w, h, alpha: false, .jpeg)),
        (.webp, try encode8(px, w, h, alpha: true, .webp)),
        (.webp, try encode8(px, w, h, alpha: true, .webp, lossless)),
        (.tiff, try encode8(px, w, h, alpha: true, .tiff)),
    ] + (try [ImageFileFormat.heif, .avif].filter(ImageCodecs.canEncode).map { ($0, try encode8(px, w, h, alpha: true, $0)) })
}

@Suite struct ErrorTests {
    @Test func sniffAndExtensions() throws {
        for (format, data) in try sampleFiles() {
            #expect(ImageCodecs.sniff(data) == format)
            #expect(try ImageCodecs.readHeader(data).format == format)
        }
        #expect(ImageCodecs.sniff(Data()) == nil)
        #expect(ImageCodecs.sniff(Data("GIF89a".utf8)) == .gif)
        #expect(ImageCodecs.sniff(Data("GIF88a".utf8)) == nil)
        #expect(ImageCodecs.format(forPathExtension: "JPG") == .jpeg)
        #expect(ImageCodecs.format(forPathExtension: "jpeg") == .jpeg)
        #expect(ImageCodecs.format(forPathExtension: ".Png") == .png)
        #expect(ImageCodecs.format(forPathExtension: "WebP") == .webp)
        #expect(ImageCodecs.format(forPathExtension: "gif") == .gif)
        #expect(ImageCodecs.format(forPathExtension: "bmp") == nil)
    }

    @Test func emptyData() {
        #expect(codecError { try ImageCodecs.decode(Data()) } == .empty)
        #expect(codecError { try ImageCodecs.readHeader(Data()) } == .empty)
        #expect(ImageFileError.empty.description == "image data is empty (0 bytes)")
    }

    @Test func unknownMagicNamesWhatWasSeen() {
        let bmp = Data("BM\u{1}\u{0}\u{1}\u{0}\u{0}\u{0}".utf8)
        let e = codecError { try ImageCodecs.decode(bmp) }
        #expect(e == .unsupportedFormat("BMP (first bytes 42 4D 01 00 01 00 00 00)"))
        #expect(
            e?.description
                == "unsupported image format: BMP (first bytes 42 4D 01 00 01 00 00 00); supported formats are jpeg, png, webp, tiff, gif, heif, avif and jxl")
        var rng = SplitMix(seed: 42)
        let random = Data((0..<4096).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        guard case .unsupportedFormat(let seen)? = codecError({ try ImageCodecs.decode(random) }) else {
            Issue.record("random bytes were not rejected as unsupported")
            return
        }
        #expect(seen.hasPrefix("unrecognised data (first bytes "))
    }

    @Test func truncatedFilesFailInStrictMode() throws {
        for (format, data) in try sampleFiles() {
            for keep in [20, data.count / 2, data.count - 1] {
                let cut = data.prefix(keep)
                let e = codecError { try ImageCodecs.decode(cut) }
                // Cutting the last byte of a JPEG only drops half of EOI: TurboJPEG warns, strict fails.
                guard let e else {
                    Issue.record("\(format) truncated to \(keep) of \(data.count) bytes decoded without error")
                    continue
                }
                if case .truncated = e {
                } else if case .corrupt = e {
                } else {
                    Issue.record("\(format) truncated to \(keep): unexpected \(e)")
                }
            }
        }
    }

    @Test func truncatedToHalfIsReportedAsTruncated() throws {
        for (format, data) in try sampleFiles() {
            let e = codecError { try ImageCodecs.decode(data.prefix(data.count / 2)) }
            guard case .truncated? = e else {
                Issue.record("\(format): expected .truncated, got \(String(describing: e))")
                continue
            }
        }
    }

    @Test func lenientDecodeKeepsWhatWasRead() throws {
        // libtiff writes its directory after the strips, so a cut TIFF of ours has no header
        // left (TIFFTests covers lenient TIFF with a directory-first file); libheif cannot
        // return part of an image.
        for (format, data) in try sampleFiles() where ![.tiff, .heif, .avif].contains(format) {
            let half = data.prefix(data.count * 3 / 4)
            let bmp = try ImageCodecs.decode(half, strict: false)
            #expect(!bmp.isComplete, "\(format)")
            #expect(bmp.pixels.count == 48 * 40 * 4)
            #expect(bmp.pixels[0..<4] != [0, 0, 0, 0], "\(format): first row should have decoded")
        }
    }

    @Test func bitFlippedFilesNeverCrash() throws {
        var rng = SplitMix(seed: 7)
        for (format, data) in try sampleFiles() {
            var strictErrors = 0
            for _ in 0..<40 {
                var bytes = [UInt8](data)
                for _ in 0..<4 {
                    let at = 40 + Int(rng.next() % UInt64(bytes.count - 40))
                    bytes[at] ^= UInt8(1 << (rng.next() % 8))
                }
                let flipped = Data(bytes)
                if codecError({ try ImageCodecs.decode(flipped) }) != nil { strictErrors += 1 }
                _ = try? ImageCodecs.decode(flipped, strict: false)
                _ = try? ImageCodecs.readHeader(flipped)
            }
            // PNG (CRC) and lossless WebP catch nearly every flip; JPEG and lossy VP8 have no checksum.
            #expect(strictErrors > 0, "\(format): no bit-flipped variant was rejected")
        }
    }

    @Test func pngFlipIsCorruptWithMessage() throws {
        var bytes = [UInt8](try sampleFiles()[0].1)
        bytes[60] ^= 0x10  // inside IDAT
        let e = codecError { try ImageCodecs.decode(Data(bytes)) }
        guard case .corrupt(let detail)? = e else {
            Issue.record("expected .corrupt, got \(String(describing: e))")
            return
        }
        #expect(detail == "PNG decoding: IDAT stream error")
        #expect(e?.description == "image data is corrupt (PNG decoding: IDAT stream error); the file is damaged or not a valid image")
    }

    @Test func absurdPNGHeaderIsTooLargeBeforeAllocation() {
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += PNGBuilder.ihdr(width: 100_000, height: 100_000, depth: 8, colorType: 6)
        png += PNGBuilder.chunk("IDAT", PNGBuilder.zlibStored([0, 0, 0, 0, 0]))
        png += PNGBuilder.chunk("IEND", [])
        let data = Data(png)
        let header = try? ImageCodecs.readHeader(data)
        #expect(header?.width == 100_000 && header?.height == 100_000)
        let e = codecError { try ImageCodecs.decode(data) }
        #expect(e == .tooLarge(width: 100_000, height: 100_000, limit: 268_402_689))
        #expect(
            e?.description
                == "image is 100000x100000 pixels (10000000000), above the decode limit of 268402689 pixels; "
                + "raise DecodeLimits.maxPixels to allow it")
    }

    @Test func limitsApplyToEveryFormat() throws {
        let small = DecodeLimits(maxPixels: 100)
        for (_, data) in try sampleFiles() {
            #expect(codecError { try ImageCodecs.decode(data, limits: small) } == .tooLarge(width: 48, height: 40, limit: 100))
        }
        // maxBytes caps the decoded buffer: 48x40 RGBA8 needs 7680 bytes.
        let bytes = DecodeLimits(maxPixels: 1 << 30, maxBytes: 4000)
        #expect(codecError { try ImageCodecs.decode(try sampleFiles()[1].1, limits: bytes) } == .tooLarge(width: 48, height: 40, limit: 1000))
    }

    @Test func missingFileIsIOError() {
        let url = URL(fileURLWithPath: "/nonexistent/cyanotype/none.png")
        let e = codecError { try ImageCodecs.decodeFile(at: url) }
        #expect(e == .ioError(path: "/nonexistent/cyanotype/none.png", detail: "No such file or directory"))
        #expect(e?.description == "cannot read or write '/nonexistent/cyanotype/none.png': No such file or directory")
    }

    @Test func directoryIsIOError() {
        let e = codecError { try ImageCodecs.decodeFile(at: URL(fileURLWithPath: "/tmp")) }
        guard case .ioError(let path, let detail)? = e else {
            Issue.record("expected .ioError, got \(String(describing: e))")
            return
        }
        #expect(path == "/tmp" && !detail.isEmpty)
    }

    @Test func emptyFileIsEmpty() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-empty-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data().write(to: url)
        #expect(codecError { try ImageCodecs.decodeFile(at: url) } == .empty)
    }

    @Test func decodeFileReadsAFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-codecs-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: url) }
        try sampleFiles()[0].1.write(to: url)
        #expect(try ImageCodecs.decodeFile(at: url).width == 48)
    }

    @Test func encodeArgumentsAreChecked() {
        let px = [UInt8](repeating: 0, count: 10)
        #expect(
            codecError { try encode8(px, 2, 2, alpha: true, .png) }?.description
                == "invalid argument: rgba8 buffer holds 10 samples, but a 2x2 RGBA image needs 16")
        #expect(
            codecError { try encode8(px, 0, 2, alpha: true, .png) }?.description
                == "invalid argument: width and height must be positive, got 0x2")
        var q = EncodeOptions()
        q.quality = 1.5
        let ok = [UInt8](repeating: 0, count: 16)
        #expect(
            codecError { try encode8(ok, 2, 2, alpha: true, .jpeg, q) }?.description
                == "invalid argument: quality must be in 0...1, got 1.5")
        let wide = [UInt8](repeating: 0, count: 20000 * 4)
        #expect(
            codecError { try encode8(wide, 20000, 1, alpha: true, .webp) }?.description
                == "invalid argument: WebP width and height must be at most 16383, got 20000x1")
    }

    @Test func twelveBitJPEGIsUnsupported() throws {
        var jpeg = [UInt8](try encode8(smoothRGBA8(width: 8, height: 8), 8, 8, alpha: false, .jpeg))
        guard let sof = zip(jpeg.indices, jpeg.dropFirst()).first(where: { jpeg[$0.0] == 0xFF && $0.1 == 0xC0 })?.0 else {
            Issue.record("no SOF0 in TurboJPEG output")
            return
        }
        jpeg[sof + 4] = 12  // sample precision
        let e = codecError { try ImageCodecs.decode(Data(jpeg)) }
        #expect(e == .unsupportedFormat("12-bit JPEG (only 8-bit JPEG is supported)"))
    }

    @Test func pinnedMessages() {
        #expect(
            ImageFileError.truncated(detail: "x").description
                == "image data is truncated (x); the file is incomplete: re-export or re-download it, "
                + "or decode with strict: false to keep the rows that were read")
        #expect(
            ImageFileError.corrupt(detail: "x").description
                == "image data is corrupt (x); the file is damaged or not a valid image")
        #expect(ImageFileError.encodeFailed(detail: "x").description == "encoding failed: x")
        #expect(
            codecError { try ImageCodecs.readHeader(Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00])) }
                == .truncated(detail: "JPEG header: the data ends before the frame size (5 bytes)"))
    }
}

/// Deterministic random numbers for reproducible corruption.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
