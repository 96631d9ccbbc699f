import CWebP
import Foundation

/// The RIFF chunks of a WebP container, parsed in Swift for ICCP and EXIF.
struct WebPChunks {
    struct Chunk {
        var fourCC: String
        /// Range of the whole chunk (header, payload and pad byte) in the file.
        var range: Range<Int>
        var payload: Range<Int>
    }
    var chunks: [Chunk] = []

    init(_ b: UnsafeRawBufferPointer) {
        guard b.count >= 12, b.matches("RIFF", at: 0), b.matches("WEBP", at: 8) else { return }
        let end = min(b.count, 8 + b.le32(4))
        var pos = 12
        while pos + 8 <= end, chunks.count < 1024 {
            let size = b.le32(pos + 4)
            let payloadEnd = pos + 8 + size
            guard payloadEnd <= end else { break }
            let fourCC = String(decoding: UnsafeRawBufferPointer(rebasing: b[pos..<(pos + 4)]), as: UTF8.self)
            let next = min(end, payloadEnd + (size & 1))
            chunks.append(Chunk(fourCC: fourCC, range: pos..<next, payload: (pos + 8)..<payloadEnd))
            pos = next
        }
    }

    func payload(_ fourCC: String, in b: UnsafeRawBufferPointer) -> Data? {
        guard let c = chunks.first(where: { $0.fourCC == fourCC }), !c.payload.isEmpty else { return nil }
        return Data(b[c.payload])
    }
}

/// WebP through libwebp: NULL / 0 / a status code on error, nothing longjmps.
enum WebPCodec {
    static func status(_ s: VP8StatusCode) -> String {
        switch s {
        case VP8_STATUS_OUT_OF_MEMORY: return "out of memory"
        case VP8_STATUS_INVALID_PARAM: return "invalid parameter"
        case VP8_STATUS_BITSTREAM_ERROR: return "bitstream error"
        case VP8_STATUS_UNSUPPORTED_FEATURE: return "unsupported feature"
        case VP8_STATUS_SUSPENDED: return "suspended"
        case VP8_STATUS_USER_ABORT: return "aborted"
        case VP8_STATUS_NOT_ENOUGH_DATA: return "not enough data"
        default: return "status \(s.rawValue)"
        }
    }

    static func error(_ s: VP8StatusCode, _ stage: String, size: Int) -> CodecError {
        if s == VP8_STATUS_NOT_ENOUGH_DATA || s == VP8_STATUS_SUSPENDED {
            return .truncated(detail: "WebP \(stage): the data ends early (\(size) bytes)")
        }
        return .corrupt(detail: "WebP \(stage): \(status(s))")
    }

    static func readHeader(_ b: UnsafeRawBufferPointer) throws(CodecError) -> ImageHeader {
        var features = WebPBitstreamFeatures()
        let rc = WebPGetFeatures(b.baseAddress!.assumingMemoryBound(to: UInt8.self), b.count, &features)
        guard rc == VP8_STATUS_OK else { throw error(rc, "header", size: b.count) }
        guard features.has_animation == 0 else {
            throw .unsupportedFormat("animated WebP (only still WebP images are supported)")
        }
        guard features.width > 0, features.height > 0 else {
            throw .corrupt(detail: "WebP header: size \(features.width)x\(features.height)")
        }
        let alpha = features.has_alpha != 0
        var header = ImageHeader(
            format: .webp, width: Int(features.width), height: Int(features.height), channels: alpha ? 4 : 3,
            bitDepth: 8, hasAlpha: alpha, colorModel: "RGB")
        let riff = WebPChunks(b)
        header.iccProfile = riff.payload("ICCP", in: b)
        if var exif = riff.payload("EXIF", in: b) {
            // Some writers keep JPEG's "Exif\0\0" prefix; the field is TIFF-structured.
            if exif.starts(with: Array("Exif\u{0}\u{0}".utf8)) { exif = exif.dropFirst(6) }
            header.exif = Data(exif)
            let summary = EXIFSummary(tiff: Data(exif))
            header.orientation = summary.orientation ?? 1
            header.dpi = summary.dpi
        }
        return header
    }

    static func decode(_ b: UnsafeRawBufferPointer, limits: DecodeLimits, strict: Bool) throws(CodecError) -> DecodedBitmap {
        let header = try readHeader(b)
        let width = header.width, height = header.height
        let limit = limits.pixelLimit(bytesPerPixel: 4)
        guard width * height <= limit else { throw .tooLarge(width: width, height: height, limit: limit) }
        let input = b.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var complete = true
        let pixels: [UInt8] = try makeArray(count: width * height * 4) { (out: UnsafeMutableBufferPointer<UInt8>) throws(CodecError) in
            if strict {
                guard WebPDecodeRGBAInto(input, b.count, out.baseAddress, out.count, Int32(width * 4)) != nil else {
                    // Re-run the incremental decoder only to tell truncation from corruption.
                    throw classify(b, out, width: width)
                }
                return
            }
            out.initialize(repeating: 0)
            let (rc, rows) = incremental(b, out, width: width)
            if rc == VP8_STATUS_OK { return }
            guard rc == VP8_STATUS_SUSPENDED, rows > 0 else { throw error(rc, "data", size: b.count) }
            complete = false
        }
        // Lossy files without alpha come out with alpha 255 from the RGBA decoder already.
        return DecodedBitmap(
            header: header, width: width, height: height, bitDepth: 8, pixels: pixels, pixels16: [], isComplete: complete)
    }

    /// Decodes with libwebp's incremental decoder into `out`: the status and the rows finished.
    static func incremental(
        _ b: UnsafeRawBufferPointer, _ out: UnsafeMutableBufferPointer<UInt8>, width: Int
    ) -> (VP8StatusCode, Int) {
        guard let idec = WebPINewRGB(MODE_RGBA, out.baseAddress, out.count, Int32(width * 4)) else {
            return (VP8_STATUS_OUT_OF_MEMORY, 0)
        }
        defer { WebPIDelete(idec) }
        let rc = WebPIUpdate(idec, b.baseAddress!.assumingMemoryBound(to: UInt8.self), b.count)
        var lastY: Int32 = 0
        _ = WebPIDecGetRGB(idec, &lastY, nil, nil, nil)
        return (rc, Int(lastY))
    }

    static func classify(_ b: UnsafeRawBufferPointer, _ out: UnsafeMutableBufferPointer<UInt8>, width: Int) -> CodecError {
        let (rc, _) = incremental(b, out, width: width)
        if rc == VP8_STATUS_SUSPENDED || rc == VP8_STATUS_NOT_ENOUGH_DATA { return error(rc, "data", size: b.count) }
        return error(rc == VP8_STATUS_OK ? VP8_STATUS_BITSTREAM_ERROR : rc, "data", size: b.count)
    }

    static func encode(
        _ rgba: UnsafeBufferPointer<UInt8>, width: Int, height: Int, hasAlpha: Bool, options: EncodeOptions
    ) throws(CodecError) -> Data {
        guard options.quality >= 0, options.quality <= 1 else {
            throw .invalidArgument("quality must be in 0...1, got \(options.quality)")
        }
        guard width <= 16383, height <= 16383 else {
            throw .invalidArgument("WebP width and height must be at most 16383, got \(width)x\(height)")
        }
        var config = WebPConfig()
        var picture = WebPPicture()
        guard WebPConfigPreset(&config, WEBP_PRESET_DEFAULT, options.lossless ? 70 : Float(options.quality * 100)) != 0,
            WebPPictureInit(&picture) != 0
        else { throw .encodeFailed(detail: "WebP: libwebp version mismatch") }
        config.lossless = options.lossless ? 1 : 0
        if let effort = options.effort {
            guard (0...6).contains(effort) else { throw .invalidArgument("WebP effort must be 0...6, got \(effort)") }
            config.method = Int32(effort)
        }
        config.exact = options.lossless ? 1 : 0  // keep RGB under alpha 0: lossless means every byte
        picture.use_argb = options.lossless ? 1 : 0
        picture.width = Int32(width)
        picture.height = Int32(height)
        defer { WebPPictureFree(&picture) }
        let imported =
            hasAlpha
            ? WebPPictureImportRGBA(&picture, rgba.baseAddress, Int32(width * 4))
            : WebPPictureImportRGBX(&picture, rgba.baseAddress, Int32(width * 4))
        guard imported != 0 else { throw .encodeFailed(detail: "WebP: out of memory importing \(width)x\(height) pixels") }
        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        defer { WebPMemoryWriterClear(&writer) }
        let ok = withUnsafeMutablePointer(to: &writer) { w in
            picture.writer = WebPMemoryWrite
            picture.custom_ptr = UnsafeMutableRawPointer(w)
            return WebPEncode(&config, &picture)
        }
        guard ok != 0, let mem = writer.mem, writer.size > 0 else {
            throw .encodeFailed(detail: "WebP: libwebp refused the \(width)x\(height) image (error \(picture.error_code.rawValue))")
        }
        let webp = UnsafeRawBufferPointer(start: mem, count: writer.size)
        guard let icc = options.iccProfile, !icc.isEmpty else { return Data(webp) }
        return try addICC(icc, to: webp, width: width, height: height, hasAlpha: hasAlpha)
    }

    /// Rewrites a simple WebP as an extended one (VP8X) carrying an ICCP chunk.
    static func addICC(
        _ icc: Data, to webp: UnsafeRawBufferPointer, width: Int, height: Int, hasAlpha: Bool
    ) throws(CodecError) -> Data {
        let riff = WebPChunks(webp)
        guard !riff.chunks.isEmpty else { throw .encodeFailed(detail: "WebP: unexpected encoder output") }
        func le(_ v: Int, _ bytes: Int) -> [UInt8] { (0..<bytes).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        var body = Data()
        var rest = riff.chunks[...]
        var flags: UInt8 = 0x20  // ICC
        if let first = rest.first, first.fourCC == "VP8X" {
            flags |= webp[first.payload.lowerBound]
            rest = rest.dropFirst()
        } else if hasAlpha {
            flags |= 0x10
        }
        body.append(contentsOf: Array("VP8X".utf8) + le(10, 4) + [flags, 0, 0, 0] + le(width - 1, 3) + le(height - 1, 3))
        body.append(contentsOf: Array("ICCP".utf8) + le(icc.count, 4))
        body.append(icc)
        if icc.count & 1 == 1 { body.append(0) }
        for c in rest { body.append(contentsOf: webp[c.range]) }
        guard body.count + 4 <= Int(UInt32.max) else { throw .encodeFailed(detail: "WebP: file too large") }
        var result = Data(Array("RIFF".utf8) + le(body.count + 4, 4) + Array("WEBP".utf8))
        result.append(body)
        return result
    }
}
