import Foundation
import Testing

@testable import CyanotypeCodecs

let seedsDir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fuzz/seeds")

func tiff8(_ px: [UInt8], _ w: Int, _ h: Int, alpha: Bool = true, _ o: EncodeOptions = EncodeOptions()) throws -> Data {
    try encode8(px, w, h, alpha: alpha, .tiff, o)
}

func tiff16(_ px: [UInt16], _ w: Int, _ h: Int, alpha: Bool = true, _ o: EncodeOptions = EncodeOptions()) throws -> Data {
    try px.withUnsafeBufferPointer { try ImageCodecs.encode(rgba16: $0, width: w, height: h, hasAlpha: alpha, format: .tiff, options: o) }
}

func tiffF(_ px: [Float], _ w: Int, _ h: Int, alpha: Bool = true, _ o: EncodeOptions = EncodeOptions()) throws -> Data {
    try px.withUnsafeBufferPointer { try ImageCodecs.encode(rgbaF: $0, width: w, height: h, hasAlpha: alpha, format: .tiff, options: o) }
}

/// A little-endian TIFF with one strip, written byte by byte so tests can claim any size.
/// With `rowsPerStrip`, each strip holds that many grey rows (the IFD comes first, then the
/// offset and count arrays, then the strips), so cutting the file loses the last strips.
func craftedTIFF(width: UInt32, height: UInt32, stripBytes: Int = 12, bitsPerSample: UInt16 = 8, rowsPerStrip: UInt32? = nil) -> Data {
    var b: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0]
    func u16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    func u32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)] }
    let rps = rowsPerStrip ?? height
    let strips = rowsPerStrip.map { Int((height + $0 - 1) / $0) } ?? 1
    let bytesPerStrip = rowsPerStrip.map { Int($0 * width) } ?? stripBytes
    let entryCount = 9
    let arrays = UInt32(8 + 2 + entryCount * 12 + 4)
    let firstStrip = strips > 1 ? arrays + UInt32(8 * strips) : arrays
    let entries: [(UInt16, UInt16, UInt32, UInt32)] = [
        (256, 4, 1, width), (257, 4, 1, height), (258, 3, 1, UInt32(bitsPerSample)), (259, 3, 1, 1), (262, 3, 1, 1),
        (273, 4, UInt32(strips), strips > 1 ? arrays : firstStrip), (277, 3, 1, 1), (278, 4, 1, rps),
        (279, 4, UInt32(strips), strips > 1 ? arrays + UInt32(4 * strips) : UInt32(bytesPerStrip)),
    ]
    b += u16(UInt16(entries.count))
    for (tag, type, count, v) in entries {
        b += u16(tag) + u16(type) + u32(count)
        b += type == 3 ? u16(UInt16(truncatingIfNeeded: v)) + [0, 0] : u32(v)
    }
    b += u32(0)
    if strips > 1 {
        for s in 0..<strips { b += u32(firstStrip + UInt32(s * bytesPerStrip)) }
        for _ in 0..<strips { b += u32(UInt32(bytesPerStrip)) }
    }
    b += [UInt8](repeating: 0x80, count: bytesPerStrip * strips)
    return Data(b)
}

@Suite struct TIFFTests {
    @Test func eightBitRoundTripsExactlyWithEveryCompression() throws {
        let (w, h) = (37, 23)
        for alpha in [true, false] {
            let px = smoothRGBA8(width: w, height: h, alpha: alpha)
            for c in TIFFCompression.allCases {
                var o = EncodeOptions()
                o.tiffCompression = c
                let data = try tiff8(px, w, h, alpha: alpha, o)
                #expect(ImageCodecs.sniff(data) == .tiff)
                let d = try ImageCodecs.decode(data)
                #expect(d.bitDepth == 8 && d.width == w && d.height == h && d.isComplete)
                #expect(d.header.hasAlpha == alpha && d.header.channels == (alpha ? 4 : 3) && d.header.colorModel == "RGB")
                #expect(d.pixels == px, "\(c) alpha \(alpha)")
            }
        }
    }

    @Test func sixteenBitRoundTripsExactly() throws {
        let (w, h) = (19, 11)
        var v = [UInt16](repeating: 0, count: w * h * 4)
        for i in 0..<v.count { v[i] = UInt16((i * 2749 + 17) % 65536) }
        for c in [TIFFCompression.lzw, .deflate] {
            var o = EncodeOptions()
            o.tiffCompression = c
            let d = try ImageCodecs.decode(try tiff16(v, w, h, alpha: true, o))
            #expect(d.bitDepth == 16 && d.header.bitDepth == 16)
            #expect(d.pixels16 == v)
        }
    }

    @Test func floatStaysFloatAndRoundTripsExactly() throws {
        let (w, h) = (13, 7)
        var v = [Float](repeating: 0, count: w * h * 4)
        for i in 0..<v.count { v[i] = Float(i % 97) / 37 - 0.5 }  // includes negatives and values above 1
        for c in TIFFCompression.allCases {
            var o = EncodeOptions()
            o.tiffCompression = c
            let d = try ImageCodecs.decode(try tiffF(v, w, h, alpha: true, o))
            #expect(d.bitDepth == 32 && d.pixels.isEmpty && d.pixels16.isEmpty)
            #expect(d.pixelsF == v, "\(c)")
        }
        // Without alpha, alpha reads back as 1.
        let rgb = try ImageCodecs.decode(try tiffF(v, w, h, alpha: false))
        #expect(rgb.pixelsF[3] == 1 && rgb.pixelsF[0] == v[0])
    }

    @Test func iccOrientationAndDPITagsAreWrittenAndRead() throws {
        var o = EncodeOptions()
        o.iccProfile = fakeICC(count: 3000)
        o.orientation = 6
        o.dpi = 300
        let h = try ImageCodecs.readHeader(try tiff8(smoothRGBA8(width: 8, height: 4), 8, 4, o))
        #expect(h.format == .tiff && h.width == 8 && h.height == 4)
        #expect(h.iccProfile == fakeICC(count: 3000))
        #expect(h.orientation == 6)
        #expect(h.dpi == 300)
        o.orientation = 9
        #expect(codecError { try tiff8(smoothRGBA8(width: 8, height: 4), 8, 4, o) } == .invalidArgument("TIFF orientation must be 1...8, got 9"))
    }

    /// Files written by ImageMagick (Fuzz/seeds/tiff): every layout decodes to 16x12 pixels of
    /// the same red-to-blue gradient. (metadata.tif is ours, a seed carrying EXIF and XMP.)
    @Test func otherEncodersLayoutsDecode() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: seedsDir.appendingPathComponent("tiff").path).sorted()
            .filter { !$0.hasPrefix("metadata") }
        #expect(files.count == 9, "\(files)")
        for f in files {
            let data = try Data(contentsOf: seedsDir.appendingPathComponent("tiff/\(f)"))
            let d = try ImageCodecs.decode(data)
            #expect(d.width == 16 && d.height == 12, "\(f)")
            // Top-left pixel: red, or white/black for the 1-bit file.
            let (r, b): (Double, Double)
            switch d.bitDepth {
            case 16: (r, b) = (Double(d.pixels16[0]) / 65535, Double(d.pixels16[2]) / 65535)
            case 32: (r, b) = (Double(d.pixelsF[0]), Double(d.pixelsF[2]))
            default: (r, b) = (Double(d.pixels[0]) / 255, Double(d.pixels[2]) / 255)
            }
            if f.hasPrefix("g4") || f.hasPrefix("gray") { continue }
            #expect(r > 0.9 && b < 0.1, "\(f): top-left \(r), \(b)")
        }
    }

    @Test func emptyTruncatedAndFlippedFilesGiveTypedErrors() throws {
        #expect(codecError { try ImageCodecs.decode(Data(), as: .tiff) } == .empty)
        let data = try tiff8(smoothRGBA8(width: 40, height: 30), 40, 30, alpha: true)
        for keep in [4, 8, 20, data.count / 2] {
            let e = codecError { try ImageCodecs.decode(data.prefix(keep)) }
            guard case .truncated? = e else {
                Issue.record("TIFF truncated to \(keep): expected .truncated, got \(String(describing: e))")
                continue
            }
        }
        #expect(
            codecError { try ImageCodecs.decode(data.prefix(4)) }
                == .truncated(detail: "TIFF reading the header: data: Cannot read TIFF header"))
        #expect(
            codecError { try ImageCodecs.decode(data.prefix(4)) }?.description
                == "image data is truncated (TIFF reading the header: data: Cannot read TIFF header); the file is incomplete: re-export or re-download it, or decode with strict: false to keep the rows that were read"
        )
        // Lenient decoding of a file cut inside its strips keeps the rows that were read.
        let plain = craftedTIFF(width: 64, height: 30, rowsPerStrip: 1)
        let partial = try ImageCodecs.decode(plain.prefix(plain.count * 2 / 3), strict: false)
        #expect(!partial.isComplete && partial.width == 64 && partial.height == 30)
        // Rows read are grey 0x80, opaque; the rows that were cut off are zero (alpha too).
        #expect(partial.pixels[0] == 0x80 && partial.pixels[3] == 255 && partial.pixels.last == 0)
        #expect(
            codecError { try ImageCodecs.decode(plain.prefix(plain.count * 2 / 3)) }
                == .truncated(detail: "TIFF decoding: strip 19 of 30: TIFFReadEncodedStrip: Read error at scanline 4294967295; got 7 bytes, expected 64"))
        // Bit flips: a typed error or an image, never a crash.
        var rng = SplitMix(seed: 7)
        for _ in 0..<300 {
            var b = [UInt8](data)
            for _ in 0..<4 { let i = Int(rng.next() % UInt64(b.count)); b[i] ^= UInt8(1 << (rng.next() % 8)) }
            _ = try? ImageCodecs.decode(Data(b), limits: DecodeLimits(maxPixels: 1 << 20))
        }
        // A wrong byte-order mark.
        var bad = [UInt8](data)
        bad[2] = 43; bad[3] = 0; bad[4] = 8  // BigTIFF marker with a nonsense header
        #expect(codecError { try ImageCodecs.decode(Data(bad)) } != nil)
    }

    @Test func zeroSizeAndAbsurdHeadersAreRejectedBeforeAllocating() throws {
        let ok = craftedTIFF(width: 4, height: 3)
        #expect(try ImageCodecs.decode(ok).pixels.count == 4 * 3 * 4)
        #expect(
            codecError { try ImageCodecs.decode(craftedTIFF(width: 0, height: 3)) }
                == .corrupt(detail: "TIFF reading the header: TIFFScanlineSize64: Computed scanline size is zero"))
        // 100000 x 100000 in a 150-byte file: the limit speaks before any pixel buffer exists.
        let huge = craftedTIFF(width: 100_000, height: 100_000)
        #expect(codecError { try ImageCodecs.decode(huge) } == .tooLarge(width: 100_000, height: 100_000, limit: 268_402_689))
        #expect(try ImageCodecs.readHeader(huge).width == 100_000)
        #expect(
            codecError { try ImageCodecs.decode(craftedTIFF(width: 5000, height: 5000), limits: DecodeLimits(maxPixels: 1 << 20)) }
                == .tooLarge(width: 5000, height: 5000, limit: 1 << 20))
        // The memory cap counts 4 samples per pixel.
        #expect(
            codecError { try ImageCodecs.decode(craftedTIFF(width: 100, height: 100), limits: DecodeLimits(maxBytes: 1000)) }
                == .tooLarge(width: 100, height: 100, limit: 250))
        // Unsupported sample layouts name themselves.
        let e = codecError { try ImageCodecs.decode(craftedTIFF(width: 4, height: 3, bitsPerSample: 64)) }
        guard case .unsupportedFormat(let what)? = e else {
            Issue.record("64-bit integer samples: got \(String(describing: e))")
            return
        }
        #expect(what.hasPrefix("TIFF with 1 samples of 64 bits (sample format 1, photometric 1)"))
    }
}

@Suite struct HEIFTests {
    static let (w, h) = (64, 48)

    func encodeHEIF(_ format: ImageFileFormat, alpha: Bool, _ o: EncodeOptions = EncodeOptions()) throws -> (Data, [UInt8]) {
        let px = smoothRGBA8(width: Self.w, height: Self.h, alpha: alpha)
        return (try encode8(px, Self.w, Self.h, alpha: alpha, format, o), px)
    }

    @Test(arguments: [ImageFileFormat.heif, .avif])
    func roundTripWithinPSNR(_ format: ImageFileFormat) throws {
        guard ImageCodecs.canEncode(format) else {
            Issue.record("libheif here has no \(format) encoder")
            return
        }
        var o = EncodeOptions()
        o.quality = 0.9
        let (data, px) = try encodeHEIF(format, alpha: false, o)
        #expect(ImageCodecs.sniff(data) == format)
        let d = try ImageCodecs.decode(data)
        #expect(d.header.format == format && d.width == Self.w && d.height == Self.h && d.bitDepth == 8)
        #expect(!d.header.hasAlpha && d.header.orientation == 1)
        let psnr = psnrRGB(px, d.pixels)
        #expect(psnr > 35, "\(format) PSNR \(psnr)")
        #expect(stride(from: 3, to: d.pixels.count, by: 4).allSatisfy { d.pixels[$0] == 255 })
        // Lower quality makes a smaller file.
        o.quality = 0.3
        #expect(try encodeHEIF(format, alpha: false, o).0.count < data.count)
    }

    @Test(arguments: [ImageFileFormat.heif, .avif])
    func alphaAndICCSurvive(_ format: ImageFileFormat) throws {
        guard ImageCodecs.canEncode(format) else { return }
        var o = EncodeOptions()
        o.iccProfile = ColorProfiles.displayP3
        let (data, px) = try encodeHEIF(format, alpha: true, o)
        let d = try ImageCodecs.decode(data)
        #expect(d.header.hasAlpha)
        #expect(d.header.iccProfile == ColorProfiles.displayP3)
        var maxA = 0
        for i in stride(from: 3, to: px.count, by: 4) { maxA = max(maxA, abs(Int(px[i]) - Int(d.pixels[i]))) }
        #expect(maxA < 40, "alpha error \(maxA)")
    }

    @Test func sniffsBrandsAndExtensions() {
        func ftyp(_ major: String, _ compatible: [String]) -> Data {
            let brands = ([major, "\u{0}\u{0}\u{0}\u{0}"] + compatible).joined()
            let size = 8 + brands.utf8.count
            return Data([0, 0, 0, UInt8(size)] + Array("ftyp".utf8) + Array(brands.utf8))
        }
        #expect(ImageCodecs.sniff(ftyp("heic", ["mif1", "heic"])) == .heif)
        #expect(ImageCodecs.sniff(ftyp("avif", ["mif1", "avif"])) == .avif)
        #expect(ImageCodecs.sniff(ftyp("mif1", ["mif1", "avif"])) == .avif)
        #expect(ImageCodecs.sniff(ftyp("mif1", ["mif1", "heic"])) == .heif)
        #expect(ImageCodecs.sniff(ftyp("isom", ["mp41"])) == nil)
        #expect(
            codecError { try ImageCodecs.decode(ftyp("isom", ["mp41"])) }?.description
                == "unsupported image format: ISO media that is not HEIF (brand 'isom') (first bytes 00 00 00 14 66 74 79 70); supported formats are jpeg, png, webp, tiff, gif, heif, avif and jxl"
        )
        #expect(ImageCodecs.format(forPathExtension: "HEIC") == .heif)
        #expect(ImageCodecs.format(forPathExtension: ".avif") == .avif)
        #expect(ImageCodecs.format(forPathExtension: "tif") == .tiff)
        #expect(ImageCodecs.format(forPathExtension: "TIFF") == .tiff)
    }

    @Test func emptyTruncatedFlippedAndAbsurdFilesGiveTypedErrors() throws {
        guard ImageCodecs.canEncode(.heif) else { return }
        #expect(codecError { try ImageCodecs.decode(Data(), as: .heif) } == .empty)
        for format in [ImageFileFormat.heif, .avif] where ImageCodecs.canEncode(format) {
            let (data, _) = try encodeHEIF(format, alpha: false)
            for keep in [12, 40, data.count / 2, data.count - 1] {
                let e = codecError { try ImageCodecs.decode(data.prefix(keep)) }
                switch e {
                case .truncated?, .corrupt?: break
                default: Issue.record("\(format) truncated to \(keep) of \(data.count): \(String(describing: e))")
                }
            }
            var rng = SplitMix(seed: 11)
            for _ in 0..<100 {
                var b = [UInt8](data)
                for _ in 0..<3 { let i = Int(rng.next() % UInt64(b.count)); b[i] ^= UInt8(1 << (rng.next() % 8)) }
                _ = try? ImageCodecs.decode(Data(b), limits: DecodeLimits(maxPixels: 1 << 20))
            }
            // Absurd size in the ispe box of a 64x64 image (no clean-aperture crop, so ispe is
            // the size): rejected before decoding.
            let square = smoothRGBA8(width: 64, height: 64)
            let squareData = try encode8(square, 64, 64, alpha: false, format)
            var b = [UInt8](squareData)
            guard let ispe = squareData.range(of: Data("ispe".utf8))?.lowerBound else {
                Issue.record("no ispe box")
                continue
            }
            let at = ispe + 8  // after the type and version/flags
            for (wide, high) in [(UInt32(100_000), UInt32(100_000)), (0x7F00_0040, 64)] {
                for (i, v) in [wide, high].enumerated() {
                    b[at + 4 * i] = UInt8(v >> 24); b[at + 4 * i + 1] = UInt8((v >> 16) & 0xFF)
                    b[at + 4 * i + 2] = UInt8((v >> 8) & 0xFF); b[at + 4 * i + 3] = UInt8(v & 0xFF)
                }
                #expect(try ImageCodecs.readHeader(Data(b)).width == Int(wide))
                #expect(codecError { try ImageCodecs.decode(Data(b)) } == .tooLarge(width: Int(wide), height: Int(high), limit: 268_402_689))
            }
        }
        #expect(
            codecError { try ImageCodecs.decode(try encodeHEIF(.heif, alpha: false).0.prefix(40)) }
                == .truncated(detail: "HEIF: the 'meta' box needs 429 bytes, the data ends 12 bytes into it (libheif: Invalid input: No 'meta' box)"))
    }
}

@Suite struct NewErrorMessages {
    @Test func messagesArePinned() throws {
        // An ftyp box and nothing else: complete, so corrupt rather than truncated.
        let lone = Data([0, 0, 0, 20] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1".utf8))
        let e = codecError { try ImageCodecs.decode(lone) }
        #expect(e == .corrupt(detail: "HEIF reading the container: Invalid input: No 'meta' box"))
        #expect(e?.description == "image data is corrupt (HEIF reading the container: Invalid input: No 'meta' box); the file is damaged or not a valid image")
        #expect(codecError { try ImageCodecs.decode(lone, as: .avif) } == .corrupt(detail: "AVIF reading the container: Invalid input: No 'meta' box"))
        let cut = codecError { try ImageCodecs.decode(lone.prefix(14)) }
        #expect(cut == .truncated(detail: "HEIF: the 'ftyp' box needs 20 bytes, the data ends 14 bytes into it (libheif: Invalid input: No 'ftyp' box)"))
        let layout = codecError { try ImageCodecs.decode(craftedTIFF(width: 4, height: 3, bitsPerSample: 64)) }
        #expect(
            layout?.description
                == "unsupported image format: TIFF with 1 samples of 64 bits (sample format 1, photometric 1): Sorry, can not handle images with 64-bit samples; supported formats are jpeg, png, webp, tiff, gif, heif, avif and jxl"
        )
        #expect(
            ImageFileError.tooLarge(width: 100_000, height: 100_000, limit: 268_402_689).description
                == "image is 100000x100000 pixels (10000000000), above the decode limit of 268402689 pixels; raise DecodeLimits.maxPixels to allow it")
        let big = [UInt8](repeating: 0, count: 4)
        let tooWide = codecError {
            try big.withUnsafeBufferPointer { try ImageCodecs.encode(rgba8: $0, width: 1, height: 1, hasAlpha: true, format: .heif, options: EncodeOptions()) }
        }
        #expect(tooWide == nil || tooWide == .encodeFailed(detail: "HEIF: this libheif has no HEVC encoder (Unsupported filetype: Unspecified: Unsupported codec)"))
    }
}

@Suite struct FuzzRegressions {
    /// Found by FuzzDecoders in about a minute: a grid whose `ispe` says 16x12 while its grid
    /// descriptor asks libheif for a far larger canvas (714 MB in one allocation).
    @Test func heifGridCanvasIsCheckedBeforeDecoding() throws {
        let data = try Data(contentsOf: seedsDir.deletingLastPathComponent().appendingPathComponent("regressions/heif-grid-canvas-oom.heic"))
        let e = codecError { try ImageCodecs.decode(data) }
        guard case .tooLarge(let w, let h, let limit)? = e else {
            Issue.record("expected .tooLarge, got \(String(describing: e))")
            return
        }
        #expect(w * h > limit)
        #expect(e == .tooLarge(width: 26482, height: 26980, limit: 268_402_689))
    }
}

import CHeif

@Suite struct HEIFColourTests {
    /// A HEIC tagged only by an nclx box with Display P3 primaries (as phones write) reports a
    /// Display P3 ICC profile built from those primaries.
    @Test func builtProfilesAreDeterministic() throws {
        let a = try #require(ColorProfiles.rgbProfile(.displayP3, transfer: .sRGB, description: "Display P3"))
        // lcms2 stamps the time of day into the header (ICC.1 7.2.8: bytes 24..<36, six
        // big-endian UInt16s); a fixed date there, not the clock's, makes any two builds equal.
        let date = stride(from: 24, to: 36, by: 2).map { Int(a[a.startIndex + $0]) << 8 | Int(a[a.startIndex + $0 + 1]) }
        #expect(date == [2024, 1, 1, 0, 0, 0])
        #expect(ColorProfiles.rgbProfile(.displayP3, transfer: .sRGB, description: "Display P3") == a)
        #expect(a == ColorProfiles.displayP3)
    }

    @Test func nclxDisplayP3BecomesAnICCProfile() throws {
        guard ImageCodecs.canEncode(.heif) else { return }
        let ctx = try #require(heif_context_alloc())
        defer { heif_context_free(ctx) }
        var enc: OpaquePointer?
        #expect(heif_context_get_encoder_for_format(ctx, heif_compression_HEVC, &enc).code == heif_error_Ok)
        defer { heif_encoder_release(enc) }
        var img: OpaquePointer?
        #expect(heif_image_create(32, 32, heif_colorspace_RGB, heif_chroma_interleaved_RGB, &img).code == heif_error_Ok)
        defer { heif_image_release(img) }
        #expect(heif_image_add_plane(img, heif_channel_interleaved, 32, 32, 8).code == heif_error_Ok)
        var stride: Int32 = 0
        let plane = try #require(heif_image_get_plane(img, heif_channel_interleaved, &stride))
        for i in 0..<(Int(stride) * 32) { plane[i] = UInt8(truncatingIfNeeded: i) }
        let nclx = try #require(heif_nclx_color_profile_alloc())
        defer { heif_nclx_color_profile_free(nclx) }
        nclx.pointee.color_primaries = heif_color_primaries_SMPTE_EG_432_1
        nclx.pointee.transfer_characteristics = heif_transfer_characteristic_IEC_61966_2_1
        nclx.pointee.matrix_coefficients = heif_matrix_coefficients_ITU_R_BT_601_6
        nclx.pointee.full_range_flag = 1
        #expect(heif_image_set_nclx_color_profile(img, nclx).code == heif_error_Ok)
        let options = try #require(heif_encoding_options_alloc())
        defer { heif_encoding_options_free(options) }
        options.pointee.output_nclx_profile = nclx
        options.pointee.macOS_compatibility_workaround_no_nclx_profile = 0
        #expect(heif_context_encode_image(ctx, img, enc, options, nil).code == heif_error_Ok)
        final class Sink { var data = Data() }
        let sink = Sink()
        var writer = heif_writer(writer_api_version: 1) { _, p, n, user in
            Unmanaged<Sink>.fromOpaque(user!).takeUnretainedValue().data.append(p!.assumingMemoryBound(to: UInt8.self), count: n)
            return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: UnsafeRawPointer(StaticString("ok").utf8Start).assumingMemoryBound(to: CChar.self))
        }
        _ = withExtendedLifetime(sink) { heif_context_write(ctx, &writer, Unmanaged.passUnretained(sink).toOpaque()) }
        #expect(sink.data.range(of: Data("nclx".utf8)) != nil)
        let h = try ImageCodecs.readHeader(sink.data)
        #expect(h.iccProfile == ColorProfiles.displayP3)
    }
}

extension FuzzRegressions {
    /// Found by FuzzDecoders: an overlay (iovl) primary item that made libheif allocate 2.8 GB
    /// in its decoding thread.
    @Test func heifOverlayIsRejectedBeforeDecoding() throws {
        let data = try Data(contentsOf: seedsDir.deletingLastPathComponent().appendingPathComponent("regressions/heif-iovl-oom.heic"))
        let e = codecError { try ImageCodecs.decode(data) }
        #expect(e == .truncated(detail: "HEIF: item 1 claims 16896 bytes at offset 462, beyond the 528 bytes of the file"))
    }
}

extension FuzzRegressions {
    /// Found by FuzzDecoders after the first fix: a grid whose tile is an overlay (iovl) with
    /// a huge canvas, allocated (2.8 GB) in libheif's tile-decoding thread.
    @Test func heifOverlayTileCanvasIsChecked() throws {
        let data = try Data(contentsOf: seedsDir.deletingLastPathComponent().appendingPathComponent("regressions/heif-grid-of-overlay-oom.heic"))
        let e = codecError { try ImageCodecs.decode(data, limits: DecodeLimits(maxPixels: 1 << 22, maxBytes: 64 << 20)) }
        guard case .tooLarge? = e else {
            Issue.record("expected .tooLarge, got \(String(describing: e))")
            return
        }
        #expect(e == .tooLarge(width: 45888, height: 62753, limit: 1 << 22))
        #expect(codecError { try ImageCodecs.decode(data) } == .tooLarge(width: 45888, height: 62753, limit: 268_402_689))
    }
}
