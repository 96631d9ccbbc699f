import CSPNG
import Foundation

/// PNG through libspng: every spng call returns an error code, nothing longjmps.
package enum PNGCodec {
    /// Largest single chunk accepted (ICC profiles, EXIF, text), and the total cached.
    static let chunkSizeLimit = 64 << 20
    static let chunkCacheLimit = 128 << 20

    static func message(_ code: Int32) -> String {
        guard let s = spng_strerror(code) else { return "spng error \(code)" }
        return String(cString: s)
    }

    /// Maps an spng return code to the error a user sees.
    static func error(_ code: Int32, _ stage: String) -> ImageFileError {
        let text = "\(stage): \(message(code))"
        switch Int(code) {
        case Int(SPNG_IO_EOF.rawValue), Int(SPNG_EOF.rawValue), Int(SPNG_EIDAT_TOO_SHORT.rawValue):
            return .truncated(detail: "PNG \(text)")
        case Int(SPNG_ECHUNK_LIMITS.rawValue):
            return .corrupt(detail: "PNG \(text) (a chunk is larger than \(chunkSizeLimit >> 20) MiB)")
        default:
            return .corrupt(detail: "PNG \(text)")
        }
    }

    /// An spng decoding context over `bytes`, freed when `body` returns.
    static func withDecoder<R>(
        _ bytes: UnsafeRawBufferPointer, strict: Bool, _ body: (OpaquePointer) throws(ImageFileError) -> R
    ) throws(ImageFileError) -> R {
        guard let ctx = spng_ctx_new(0) else { throw .corrupt(detail: "PNG: out of memory creating a decoder") }
        defer { spng_ctx_free(ctx) }
        spng_set_chunk_limits(ctx, chunkSizeLimit, chunkCacheLimit)
        if !strict {
            spng_set_crc_action(ctx, Int32(SPNG_CRC_USE.rawValue), Int32(SPNG_CRC_DISCARD.rawValue))
        }
        let rc = spng_set_png_buffer(ctx, bytes.baseAddress, bytes.count)
        guard rc == 0 else { throw error(rc, "reading the buffer") }
        return try body(ctx)
    }

    static func header(_ ctx: OpaquePointer) throws(ImageFileError) -> (ImageHeader, spng_ihdr) {
        var ihdr = spng_ihdr()
        var rc = spng_get_ihdr(ctx, &ihdr)
        guard rc == 0 else { throw error(rc, "reading IHDR") }
        var trns = spng_trns()
        let hasTRNS = spng_get_trns(ctx, &trns) == 0
        let channels: Int
        var hasAlpha = false
        var model = "RGB"
        switch Int(ihdr.color_type) {
        case Int(SPNG_COLOR_TYPE_GRAYSCALE.rawValue): channels = 1; model = "Gray"; hasAlpha = hasTRNS
        case Int(SPNG_COLOR_TYPE_GRAYSCALE_ALPHA.rawValue): channels = 2; model = "Gray"; hasAlpha = true
        case Int(SPNG_COLOR_TYPE_TRUECOLOR_ALPHA.rawValue): channels = 4; hasAlpha = true
        case Int(SPNG_COLOR_TYPE_INDEXED.rawValue): channels = hasTRNS ? 4 : 3; hasAlpha = hasTRNS
        default: channels = 3; hasAlpha = hasTRNS
        }
        var header = ImageHeader(
            format: .png, width: Int(ihdr.width), height: Int(ihdr.height), channels: channels,
            bitDepth: ihdr.bit_depth == 16 ? 16 : 8, hasAlpha: hasAlpha, colorModel: model)

        var iccp = spng_iccp()
        rc = spng_get_iccp(ctx, &iccp)
        if rc == 0, let p = iccp.profile, iccp.profile_len > 0 {
            header.iccProfile = Data(bytes: p, count: iccp.profile_len)
        } else if rc != 0 && rc != Int32(SPNG_ECHUNKAVAIL.rawValue) {
            throw error(rc, "reading iCCP")
        }
        var phys = spng_phys()
        if spng_get_phys(ctx, &phys) == 0, phys.unit_specifier == 1 {
            header.formatProperties["XPixelsPerMeter"] = .int(Int(phys.ppu_x))
            header.formatProperties["YPixelsPerMeter"] = .int(Int(phys.ppu_y))
        }
        header.formatProperties["InterlaceType"] = .int(Int(ihdr.interlace_method))
        if Int(ihdr.color_type) == Int(SPNG_COLOR_TYPE_INDEXED.rawValue) { header.formatProperties["IsIndexed"] = .bool(true) }
        var gamma = 0.0
        if spng_get_gama(ctx, &gamma) == 0, gamma.isFinite, gamma > 0 { header.formatProperties["Gamma"] = .double(gamma) }
        var intent: UInt8 = 0
        if spng_get_srgb(ctx, &intent) == 0 { header.formatProperties["sRGBIntent"] = .int(Int(intent)) }
        if spng_get_phys(ctx, &phys) == 0, phys.unit_specifier == 1, phys.ppu_x > 0 {
            // pHYs stores whole pixels per metre, so 72 dpi arrives as 2835 (72.009): snap those.
            let dpi = Double(phys.ppu_x) * 0.0254
            header.dpi = abs(dpi - dpi.rounded()) < 0.02 ? dpi.rounded() : (dpi * 1000).rounded() / 1000
        }
        readEXIF(ctx, into: &header)
        readText(ctx, into: &header)
        return (header, ihdr)
    }

    /// The keyword of the iTXt chunk that holds XMP.
    static let xmpKeyword = "XML:com.adobe.xmp"
    /// Text keywords reported in `{PNG}`, by Image I/O's key.
    static let textKeys: [String: String] = [
        "Title": "Title", "Author": "Author", "Description": "Description", "Copyright": "Copyright",
        "Creation Time": "CreationTime", "Software": "Software", "Disclaimer": "Disclaimer", "Warning": "Warning",
        "Source": "Source", "Comment": "Comment",
    ]

    /// XMP and the standard text keywords from tEXt, zTXt and iTXt chunks (libspng inflates
    /// the compressed ones, each within the chunk limits: a zlib bomb is cut off there).
    static func readText(_ ctx: OpaquePointer, into header: inout ImageHeader) {
        var n: UInt32 = 0
        guard spng_get_text(ctx, nil, &n) == 0, n > 0, n < 4096 else { return }
        var texts = [spng_text](repeating: spng_text(), count: Int(n))
        guard spng_get_text(ctx, &texts, &n) == 0 else { return }
        for t in texts.prefix(Int(n)) {
            let keyword = withUnsafeBytes(of: t.keyword) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let p = t.text, t.length > 0 else { continue }
            let bytes = UnsafeRawBufferPointer(start: p, count: t.length)
            let value = Data(bytes.prefix { $0 != 0 })
            if keyword == xmpKeyword && Int(t.type) == Int(SPNG_ITXT.rawValue) {
                if header.xmp == nil { header.xmp = value }
            } else if let key = textKeys[keyword], header.formatProperties[key] == nil {
                // tEXt is Latin-1; zTXt too; iTXt is UTF-8.
                let text =
                    Int(t.type) == Int(SPNG_ITXT.rawValue)
                    ? String(decoding: value, as: UTF8.self) : String(value.map { Character(Unicode.Scalar($0)) })
                header.formatProperties[key] = .string(text)
            }
        }
    }

    static func readEXIF(_ ctx: OpaquePointer, into header: inout ImageHeader) {
        var exif = spng_exif()
        if spng_get_exif(ctx, &exif) == 0, let p = exif.data, exif.length > 0 {
            let data = Data(bytes: p, count: exif.length)
            header.exif = data
            let summary = EXIFSummary(tiff: data)
            header.orientation = summary.orientation ?? 1
            if header.dpi == nil { header.dpi = summary.dpi }
        }
    }

    static func readHeader(_ bytes: UnsafeRawBufferPointer) throws(ImageFileError) -> ImageHeader {
        do throws(ImageFileError) {
            return try withDecoder(bytes, strict: true) { ctx throws(ImageFileError) in try header(ctx).0 }
        } catch {
            guard case .corrupt = error, let plain = withoutTextChunks(bytes) else { throw error }
            return try withBytes(plain) { (p) throws(ImageFileError) in try withDecoder(p, strict: true) { ctx throws(ImageFileError) in try header(ctx).0 } }
        }
    }

    /// Text chunks libspng reads before it will decode anything (tEXt, zTXt, iTXt).
    static let textChunks: Set<String> = ["tEXt", "zTXt", "iTXt"]

    /// A copy of the file without its text chunks, or nil when it has none. libspng inflates
    /// compressed text while reading the header and gives up on the whole file when one
    /// inflates past its chunk limit (a zlib bomb) or is damaged: the image then decodes
    /// from this copy, without the text (and XMP) it held.
    static func withoutTextChunks(_ b: UnsafeRawBufferPointer) -> Data? {
        guard b.count >= 8 else { return nil }
        var out = Data(b[0..<8])
        var pos = 8
        var dropped = false
        while pos + 12 <= b.count {
            let end = pos + 12 + b.be32(pos)
            guard end <= b.count, end > pos else { break }
            let type = String(decoding: b[(pos + 4)..<(pos + 8)], as: UTF8.self)
            if textChunks.contains(type) { dropped = true } else { out.append(contentsOf: b[pos..<end]) }
            pos = end
        }
        guard dropped else { return nil }
        if pos < b.count { out.append(contentsOf: b[pos...]) }
        return out
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, limits: DecodeLimits, strict: Bool) throws(ImageFileError) -> DecodedBitmap {
        do throws(ImageFileError) {
            return try decodeKeepingText(bytes, limits: limits, strict: strict)
        } catch {
            guard case .corrupt = error, let plain = withoutTextChunks(bytes) else { throw error }
            return try withBytes(plain) { (p) throws(ImageFileError) in try decodeKeepingText(p, limits: limits, strict: strict) }
        }
    }

    static func decodeKeepingText(_ bytes: UnsafeRawBufferPointer, limits: DecodeLimits, strict: Bool) throws(ImageFileError) -> DecodedBitmap {
        do throws(ImageFileError) {
            let bitmap = try decodeOnce(bytes, limits: limits, strict: strict)
            // libspng stops at IEND's type; strict mode also wants IEND itself whole.
            if strict && !endsWithIEND(bytes) {
                throw ImageFileError.truncated(detail: "PNG: the file ends inside the IEND chunk (\(bytes.count) bytes)")
            }
            return bitmap
        } catch {
            // libspng needs each chunk whole. Lenient mode shortens a chunk cut off by the end of
            // the file to what is there (its CRC is then ignored), so the rows it holds decode.
            guard !strict, case .truncated = error, let patched = closeLastChunk(bytes) else { throw error }
            return try withBytes(patched) { (p) throws(ImageFileError) in try decodeOnce(p, limits: limits, strict: false) }
        }
    }

    /// True when walking the chunks reaches a complete IEND chunk.
    static func endsWithIEND(_ b: UnsafeRawBufferPointer) -> Bool {
        guard case .found(_, let end) = firstChunk(among: ["IEND"], read: { at, n in Array(b[min(at, b.count)..<min(at + n, b.count)]) })
        else { return false }
        return end <= b.count
    }

    /// Where a walk over a PNG's chunks stopped.
    package enum ChunkWalk: Equatable {
        /// At a chunk of one of the types asked for, which ends (CRC included) at `end`.
        case found(type: String, end: Int)
        /// The bytes ran out before such a chunk (or inside a chunk header).
        case endOfBytes
        /// `maxChunks` chunks went by first.
        case tooManyChunks
    }

    /// Walks a PNG's chunks from the first after the signature, reading only their headers:
    /// `read(offset, count)` gives the bytes there (fewer at the end), from memory or a file.
    package static func firstChunk(
        among types: Set<String>, maxChunks: Int = .max, read: (_ offset: Int, _ count: Int) -> [UInt8]
    ) -> ChunkWalk {
        var pos = 8
        var seen = 0
        while seen < maxChunks {
            let h = read(pos, 8)
            guard h.count == 8 else { return .endOfBytes }
            let length = Int(h[0]) << 24 | Int(h[1]) << 16 | Int(h[2]) << 8 | Int(h[3])
            let type = String(decoding: h[4..<8], as: UTF8.self)
            let end = pos + 12 + length
            if types.contains(type) { return .found(type: type, end: end) }
            pos = end
            seen += 1
        }
        return .tooManyChunks
    }

    /// A copy of a truncated PNG whose last, cut-off chunk is shortened to the bytes present
    /// and followed by a dummy CRC; nil when no chunk is cut off.
    static func closeLastChunk(_ b: UnsafeRawBufferPointer) -> Data? {
        var pos = 8
        while pos + 8 <= b.count {
            let length = b.be32(pos)
            let end = pos + 12 + length
            if end > b.count {
                let available = max(0, b.count - (pos + 8))
                var data = Data(b[0..<pos])
                data.append(contentsOf: [UInt8(available >> 24), UInt8((available >> 16) & 0xFF), UInt8((available >> 8) & 0xFF), UInt8(available & 0xFF)])
                data.append(contentsOf: b[(pos + 4)..<(pos + 8 + available)])
                data.append(contentsOf: [0, 0, 0, 0])
                return data
            }
            pos = end
        }
        return nil
    }

    static func decodeOnce(_ bytes: UnsafeRawBufferPointer, limits: DecodeLimits, strict: Bool) throws(ImageFileError) -> DecodedBitmap {
        try withDecoder(bytes, strict: strict) { ctx throws(ImageFileError) in
            var (header, ihdr) = try header(ctx)
            let sixteen = ihdr.bit_depth == 16
            let width = header.width, height = header.height
            let limit = limits.pixelLimit(bytesPerPixel: sixteen ? 8 : 4)
            let (pixelCount, overflow) = width.multipliedReportingOverflow(by: height)
            guard !overflow, pixelCount <= limit else {
                throw ImageFileError.tooLarge(width: width, height: height, limit: limit)
            }
            let fmt = Int32(sixteen ? SPNG_FMT_RGBA16.rawValue : SPNG_FMT_RGBA8.rawValue)
            let rowBytes = width * (sixteen ? 8 : 4)
            var complete = true
            func fill(_ out: UnsafeMutableRawBufferPointer) throws(ImageFileError) {
                var rc = spng_decode_image(
                    ctx, nil, 0, fmt, Int32(SPNG_DECODE_TRNS.rawValue | SPNG_DECODE_PROGRESSIVE.rawValue))
                guard rc == 0 else { throw error(rc, "decoding") }
                var rowsDone = 0
                var info = spng_row_info()
                while true {
                    rc = spng_get_row_info(ctx, &info)
                    if rc != 0 { break }
                    let row = Int(info.row_num)
                    guard row < height else { rc = Int32(SPNG_EINTERNAL.rawValue); break }
                    rc = spng_decode_row(ctx, out.baseAddress! + row * rowBytes, rowBytes)
                    if rc != 0 { break }
                    rowsDone += 1
                }
                if rc == Int32(SPNG_EOI.rawValue) {
                    // Read the chunks after IDAT up to IEND: strict mode wants the whole file valid,
                    // and eXIf may sit there.
                    let tail = spng_decode_chunks(ctx)
                    if strict && tail != 0 { throw error(tail, "reading the chunks after the image data") }
                    if header.exif == nil { readEXIF(ctx, into: &header) }
                    if header.xmp == nil { readText(ctx, into: &header) }
                    return
                }
                if strict || rowsDone == 0 { throw error(rc, "decoding row \(rowsDone)") }
                // Lenient: keep what decoded; the buffer was zeroed up front, so missing rows are 0.
                complete = false
            }
            if sixteen {
                let px: [UInt16] = try makeArray(count: pixelCount * 4) { (buf: UnsafeMutableBufferPointer<UInt16>) throws(ImageFileError) in
                    if !strict { buf.initialize(repeating: 0) }  // a partial decode leaves rows unset
                    try fill(UnsafeMutableRawBufferPointer(buf))
                }
                return DecodedBitmap(
                    header: header, width: width, height: height, bitDepth: 16, pixels: [], pixels16: px,
                    isComplete: complete)
            } else {
                let px: [UInt8] = try makeArray(count: pixelCount * 4) { (buf: UnsafeMutableBufferPointer<UInt8>) throws(ImageFileError) in
                    if !strict { buf.initialize(repeating: 0) }  // a partial decode leaves rows unset
                    try fill(UnsafeMutableRawBufferPointer(buf))
                }
                return DecodedBitmap(
                    header: header, width: width, height: height, bitDepth: 8, pixels: px, pixels16: [],
                    isComplete: complete)
            }
        }
    }

    /// Encodes RGBA (or RGB when `!hasAlpha`; grey, or grey and alpha, with
    /// `options.grayscale`) rows; `Sample` is UInt8 or UInt16 (native endian). The image data
    /// is compressed in bands through `parallel` (see `PNGWriter`).
    static func encode<Sample: FixedWidthInteger & UnsignedInteger>(
        _ rgba: UnsafeBufferPointer<Sample>, width: Int, height: Int, hasAlpha: Bool, options: EncodeOptions,
        parallel: ParallelFor = ImageCodecs.sequential, to sink: ByteSink? = nil
    ) throws(ImageFileError) -> Data {
        let plan = try plan(width: width, height: height, hasAlpha: hasAlpha, sixteen: Sample.bitWidth == 16, options: options)
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= rgba.count / 4 else {
            throw .invalidArgument("PNG: \(rgba.count) samples do not hold a \(width)x\(height) RGBA image")
        }
        let out = sink ?? ByteSink()
        try PNGWriter.write(rgba, plan: plan, parallel: parallel, to: out)
        return sink == nil ? out.data : Data()
    }

    /// How a PNG of this shape and these options is written: its row layout, deflate level,
    /// row filter and the chunks before the image data (iCCP, pHYs, eXIf, iTXt). Throws for
    /// a level outside 0...9 or a size PNG cannot hold.
    static func plan(width: Int, height: Int, hasAlpha: Bool, sixteen: Bool, options: EncodeOptions) throws(ImageFileError) -> PNGWriter.Plan {
        guard (0...9).contains(options.compressionLevel) else {
            throw .invalidArgument("PNG compressionLevel must be 0...9, got \(options.compressionLevel)")
        }
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max) else {
            throw .invalidArgument("PNG width and height must be 1...\(Int32.max), got \(width)x\(height)")
        }
        // The level picks the row filter unless one is named (see `EncodeOptions.compressionLevel`).
        let filter: PNGFilter =
            options.pngFilter
            ?? {
                switch options.compressionLevel {
                case 0: return .none
                case 1...5: return .up
                default: return .adaptive
                }
            }()
        let channels = options.grayscale ? (hasAlpha ? 2 : 1) : (hasAlpha ? 4 : 3)
        let layout = PNGWriter.Layout(
            width: width, height: height, channels: channels, sixteen: sixteen, rowBytes: width * channels * (sixteen ? 2 : 1))
        var extra: [(type: String, payload: [UInt8])] = []
        if let icc = options.iccProfile, !icc.isEmpty {
            extra.append(("iCCP", try PNGWriter.iccpPayload(icc)))
        }
        if let dpi = options.dpi, dpi.isFinite, dpi > 0 {
            // pHYs holds whole pixels per metre.
            let ppm = Int(min((dpi / 0.0254).rounded(), Double(Int32.max)))
            extra.append(("pHYs", PNGWriter.be32(ppm) + PNGWriter.be32(ppm) + [1]))
        }
        // EXIF (eXIf) and XMP (iTXt "XML:com.adobe.xmp", uncompressed, before the image data as
        // the XMP specification asks). A block PNG cannot hold is left out, not fatal: EXIF that
        // is not a TIFF structure (libspng's check, kept), XMP with a NUL byte, a chunk over 2^31-1.
        let chunkLimit = Int(Int32.max) - 64
        if let exif = options.exif, exif.count >= 4, exif.count < chunkLimit,
            exif.starts(with: [0x49, 0x49, 0x2A, 0x00]) || exif.starts(with: [0x4D, 0x4D, 0x00, 0x2A])
        {
            extra.append(("eXIf", [UInt8](exif)))
        }
        if let xmp = options.xmp, !xmp.isEmpty, !xmp.contains(0), xmp.count < chunkLimit {
            // Keyword, NUL, compression flag and method 0, empty language tag and translated
            // keyword (each NUL-terminated), the text.
            extra.append(("iTXt", Array(xmpKeyword.utf8) + [0, 0, 0, 0, 0] + [UInt8](xmp)))
        }
        return PNGWriter.Plan(layout: layout, level: options.compressionLevel, filter: filter, extra: extra)
    }
}
