import CWebP
import Foundation

/// The RIFF chunks of a WebP container, parsed in Swift for ICCP, EXIF and XMP.
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

    /// The ICCP, EXIF (with the orientation and DPI it states) and XMP chunks of a still or
    /// animated WebP, into `header`.
    func readMetadata(_ b: UnsafeRawBufferPointer, into header: inout ImageHeader) {
        header.iccProfile = payload("ICCP", in: b)
        if var exif = payload("EXIF", in: b) {
            // Some writers keep JPEG's "Exif\0\0" prefix; the field is TIFF-structured.
            if exif.starts(with: Array("Exif\u{0}\u{0}".utf8)) { exif = exif.dropFirst(6) }
            header.exif = Data(exif)
            let summary = EXIFSummary(tiff: Data(exif))
            header.orientation = summary.orientation ?? 1
            header.dpi = summary.dpi
        }
        header.xmp = payload("XMP ", in: b)
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

    static func error(_ s: VP8StatusCode, _ stage: String, size: Int) -> ImageFileError {
        if s == VP8_STATUS_NOT_ENOUGH_DATA || s == VP8_STATUS_SUSPENDED {
            return .truncated(detail: "WebP \(stage): the data ends early (\(size) bytes)")
        }
        return .corrupt(detail: "WebP \(stage): \(status(s))")
    }

    static func readHeader(_ b: UnsafeRawBufferPointer) throws(ImageFileError) -> ImageHeader {
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
        riff.readMetadata(b, into: &header)
        if let first = riff.chunks.first?.fourCC {
            // VP8 lossy, VP8L lossless; an extended file names its image chunk later.
            let image = first == "VP8X" ? riff.chunks.dropFirst().first { $0.fourCC == "VP8 " || $0.fourCC == "VP8L" }?.fourCC : first
            if let image { header.formatProperties["IsLossless"] = .bool(image == "VP8L") }
        }
        return header
    }

    static func decode(_ b: UnsafeRawBufferPointer, limits: DecodeLimits, strict: Bool) throws(ImageFileError) -> DecodedBitmap {
        let header = try readHeader(b)
        let width = header.width, height = header.height
        let limit = limits.pixelLimit(bytesPerPixel: 4)
        guard width * height <= limit else { throw .tooLarge(width: width, height: height, limit: limit) }
        let input = b.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var complete = true
        let pixels: [UInt8] = try makeArray(count: width * height * 4) { (out: UnsafeMutableBufferPointer<UInt8>) throws(ImageFileError) in
            if strict {
                var config = WebPDecoderConfig()
                guard WebPInitDecoderConfig(&config) != 0 else { throw .corrupt(detail: "WebP: decoder version mismatch") }
                // libwebp filters a row of macroblocks on a thread of its own while the next
                // decodes (as libvips asks it to); the pixels are the same.
                config.options.use_threads = 1
                config.output.colorspace = MODE_RGBA
                config.output.is_external_memory = 1
                config.output.u.RGBA = WebPRGBABuffer(rgba: out.baseAddress, stride: Int32(width * 4), size: out.count)
                let rc = WebPDecode(input, b.count, &config)
                WebPFreeDecBuffer(&config.output)
                // Re-run the incremental decoder only to tell truncation from corruption.
                guard rc == VP8_STATUS_OK else { throw classify(b, out, width: width) }
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

    static func classify(_ b: UnsafeRawBufferPointer, _ out: UnsafeMutableBufferPointer<UInt8>, width: Int) -> ImageFileError {
        let (rc, _) = incremental(b, out, width: width)
        if rc == VP8_STATUS_SUSPENDED || rc == VP8_STATUS_NOT_ENOUGH_DATA { return error(rc, "data", size: b.count) }
        return error(rc == VP8_STATUS_OK ? VP8_STATUS_BITSTREAM_ERROR : rc, "data", size: b.count)
    }

    static func encode(
        _ rgba: UnsafeBufferPointer<UInt8>, width: Int, height: Int, hasAlpha: Bool, options: EncodeOptions
    ) throws(ImageFileError) -> Data {
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
        return try addMetadata(to: webp, options: options)
    }

    /// `webp` with the ICCP, EXIF and XMP chunks of `options`, through libwebpmux (which makes
    /// the file an extended one and sets the VP8X flags).
    static func addMetadata(to webp: UnsafeRawBufferPointer, options: EncodeOptions) throws(ImageFileError) -> Data {
        let chunks: [(String, Data)] = [("ICCP", options.iccProfile), ("EXIF", options.exif), ("XMP ", options.xmp)]
            .compactMap { name, data in data.flatMap { $0.isEmpty ? nil : (name, $0) } }
        guard !chunks.isEmpty else { return Data(webp) }
        var image = WebPData(bytes: webp.baseAddress!.assumingMemoryBound(to: UInt8.self), size: webp.count)
        guard let mux = WebPMuxCreate(&image, 0) else { throw .encodeFailed(detail: "WebP: libwebpmux cannot read the encoder's output") }
        defer { WebPMuxDelete(mux) }
        for (name, data) in chunks {
            let rc = data.withUnsafeBytes { raw in
                var chunk = WebPData(bytes: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), size: raw.count)
                return WebPMuxSetChunk(mux, name, &chunk, 1)  // copied
            }
            guard rc == WEBP_MUX_OK else { throw .encodeFailed(detail: "WebP: cannot add the \(name) chunk (libwebpmux error \(rc.rawValue))") }
        }
        var out = WebPData(bytes: nil, size: 0)
        let rc = WebPMuxAssemble(mux, &out)
        defer { WebPDataClear(&out) }
        guard rc == WEBP_MUX_OK, let bytes = out.bytes, out.size > 0 else {
            throw .encodeFailed(detail: "WebP: libwebpmux could not assemble the file (error \(rc.rawValue))")
        }
        return Data(bytes: bytes, count: out.size)
    }
}
