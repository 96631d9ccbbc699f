import CDeferredLibraries
import CHeif
import Foundation

/// HEIF (HEVC) and AVIF (AV1) through libheif, called directly: every call returns a
/// `heif_error` struct. Only the primary image is read. libheif applies the file's rotation
/// and mirroring (irot/imir) and its clean-aperture crop while decoding (its default), so the
/// pixels arrive upright and the header's orientation is 1 (HEIF's EXIF orientation is
/// informational only). Decodes to 8-bit RGBA, or 16-bit for 10/12-bit files (scaled to the
/// full 16-bit range). libheif cannot return part of an image: `strict` has no effect.
enum HEIFCodec {
    static func text(_ e: heif_error) -> String {
        guard let m = e.message else { return "libheif error \(e.code.rawValue)" }
        return String(cString: m)
    }

    static func error(_ e: heif_error, _ stage: String, _ format: ImageFileFormat) -> ImageFileError {
        let name = format == .avif ? "AVIF" : "HEIF"
        let detail = "\(name) \(stage): \(text(e))"
        if e.subcode == heif_suberror_End_of_data { return .truncated(detail: detail) }
        switch e.code {
        case heif_error_Unsupported_filetype, heif_error_Unsupported_feature:
            return .unsupportedFormat("\(name) feature (\(text(e)))")
        default:
            return .corrupt(detail: detail)
        }
    }

    /// "HEIF: the 'meta' box needs N bytes, the data ends after M" when a top-level box runs
    /// past the end of the data (libheif reports that as whatever box it then misses).
    static func cutBox(_ b: UnsafeRawBufferPointer) -> String? {
        var pos = 0
        while pos + 8 <= b.count {
            var size = b.be32(pos)
            let type = String(decoding: b[(pos + 4)..<(pos + 8)], as: UTF8.self)
            if size == 1 {
                guard pos + 16 <= b.count else { return "HEIF: the '\(type)' box header is cut off at \(b.count) bytes" }
                let high = b.be32(pos + 8), low = b.be32(pos + 12)
                guard high < 1 << 24 else { return nil }
                size = high << 32 | low
            } else if size == 0 {
                return nil  // runs to the end by definition
            }
            guard size >= 8 else { return nil }
            if pos + size > b.count { return "HEIF: the '\(type)' box needs \(size) bytes, the data ends \(b.count - pos) bytes into it" }
            pos += size
        }
        return pos < b.count && pos + 8 > b.count ? "HEIF: a box header is cut off at \(b.count) bytes" : nil
    }

    /// The primary image of the file in `bytes`, with the context kept alive for `body`.
    static func withPrimaryImage<R>(
        _ bytes: UnsafeRawBufferPointer, format: ImageFileFormat, _ body: (OpaquePointer) throws(ImageFileError) -> R
    ) throws(ImageFileError) -> R {
        try DeferredLibraries.load(CY_LIBRARY_HEIF)
        guard let ctx = heif_context_alloc() else { throw .corrupt(detail: "HEIF: out of memory creating a decoder") }
        defer { heif_context_free(ctx) }
        // libheif's own cap is 32768 per side; widen it so our pixel limit (checked before
        // decoding, with the size in the message) is the one that speaks.
        heif_context_set_maximum_image_size_limit(ctx, Int32.max)
        var e = heif_context_read_from_memory_without_copy(ctx, bytes.baseAddress, bytes.count, nil)
        guard e.code == heif_error_Ok else {
            if let cut = cutBox(bytes) { throw .truncated(detail: "\(cut) (libheif: \(text(e)))") }
            throw error(e, "reading the container", format)
        }
        var handle: OpaquePointer?
        e = heif_context_get_primary_image_handle(ctx, &handle)
        guard e.code == heif_error_Ok, let handle else { throw error(e, "finding the primary image", format) }
        defer { heif_image_handle_release(handle) }
        return try body(handle)
    }

    static func header(_ handle: OpaquePointer, format: ImageFileFormat) -> ImageHeader {
        let bits = Int(heif_image_handle_get_luma_bits_per_pixel(handle))
        let alpha = heif_image_handle_has_alpha_channel(handle) != 0
        var h = ImageHeader(
            format: format, width: Int(heif_image_handle_get_width(handle)), height: Int(heif_image_handle_get_height(handle)),
            channels: alpha ? 4 : 3, bitDepth: bits > 8 ? bits : 8, hasAlpha: alpha, colorModel: "RGB")
        h.iccProfile = profile(handle)
        return h
    }

    /// The primary image's EXIF ('Exif' item, its 4-byte offset skipped) and XMP ('mime' item
    /// of type application/rdf+xml). An item larger than the file (its extents claim more than
    /// there is) is skipped before libheif allocates for it. libheif turns the pixels upright
    /// (irot/imir), so the EXIF's orientation is set to 1 to match them.
    static func readMetadata(_ handle: OpaquePointer, fileSize: Int, into h: inout ImageHeader) {
        func item(_ id: heif_item_id) -> Data? {
            let size = heif_image_handle_get_metadata_size(handle, id)
            guard size > 0, size <= fileSize, size <= 64 << 20 else { return nil }
            var data = Data(count: size)
            let e = data.withUnsafeMutableBytes { heif_image_handle_get_metadata(handle, id, $0.baseAddress) }
            return e.code == heif_error_Ok ? data : nil
        }
        let n = Int(heif_image_handle_get_number_of_metadata_blocks(handle, nil))
        guard n > 0, n < 1024 else { return }
        var ids = [heif_item_id](repeating: 0, count: n)
        let got = Int(heif_image_handle_get_list_of_metadata_block_IDs(handle, nil, &ids, Int32(n)))
        for id in ids.prefix(min(got, n)) {
            let type = heif_image_handle_get_metadata_type(handle, id).map { String(cString: $0) } ?? ""
            if type == "Exif", h.exif == nil, let raw = item(id), raw.count > 4 {
                let offset = Int(raw[0]) << 24 | Int(raw[1]) << 16 | Int(raw[2]) << 8 | Int(raw[3])
                guard offset >= 0, offset < raw.count - 4 else { continue }
                let tiff = Data(raw[(4 + offset)...])
                h.exif = EXIFSummary.uprighted(tiff)
                h.dpi = EXIFSummary(tiff: tiff).dpi
            } else if type == "mime", h.xmp == nil {
                let content = heif_image_handle_get_metadata_content_type(handle, id).map { String(cString: $0) } ?? ""
                if content == "application/rdf+xml", let xmp = item(id) { h.xmp = xmp }
            }
        }
    }

    /// The embedded ICC profile, or one built from the nclx primaries when they are not sRGB's
    /// (Display P3 from phones, BT.2020). PQ and HLG transfer functions are not converted.
    static func profile(_ handle: OpaquePointer) -> Data? {
        let size = heif_image_handle_get_raw_color_profile_size(handle)
        if size > 0 && size < 64 << 20 {
            var data = Data(count: size)
            let e = data.withUnsafeMutableBytes { heif_image_handle_get_raw_color_profile(handle, $0.baseAddress) }
            if e.code == heif_error_Ok { return data }
        }
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        guard heif_image_handle_get_nclx_color_profile(handle, &nclx).code == heif_error_Ok, let nclx else { return nil }
        defer { heif_nclx_color_profile_free(nclx) }
        let transfer = nclx.pointee.transfer_characteristics
        guard transfer != heif_transfer_characteristic_ITU_R_BT_2100_0_PQ,
            transfer != heif_transfer_characteristic_ITU_R_BT_2100_0_HLG
        else { return nil }
        let curve: ColorProfiles.Transfer = transfer == heif_transfer_characteristic_linear ? .linear : .sRGB
        switch nclx.pointee.color_primaries {
        case heif_color_primaries_SMPTE_EG_432_1:
            return curve == .sRGB ? ColorProfiles.displayP3 : ColorProfiles.rgbProfile(.displayP3, transfer: curve, description: "Linear Display P3")
        case heif_color_primaries_ITU_R_BT_2020_2_and_2100_0:
            return ColorProfiles.rgbProfile(.bt2020, transfer: curve, description: "BT.2020 (nclx)")
        default:
            return curve == .linear ? ColorProfiles.rgbProfile(.sRGB, transfer: .linear, description: "Linear sRGB (nclx)") : nil
        }
    }

    static func readHeader(_ bytes: UnsafeRawBufferPointer, format: ImageFileFormat) throws(ImageFileError) -> ImageHeader {
        try withPrimaryImage(bytes, format: format) { handle throws(ImageFileError) in
            var h = header(handle, format: format)
            readMetadata(handle, fileSize: bytes.count, into: &h)
            return h
        }
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, format: ImageFileFormat, limits: DecodeLimits) throws(ImageFileError)
        -> DecodedBitmap
    {
        try withPrimaryImage(bytes, format: format) { handle throws(ImageFileError) in
            var h = header(handle, format: format)
            readMetadata(handle, fileSize: bytes.count, into: &h)
            let sixteen = h.bitDepth > 8
            let limit = limits.pixelLimit(bytesPerPixel: sixteen ? 8 : 4)
            let (count, overflow) = h.width.multipliedReportingOverflow(by: h.height)
            guard h.width > 0, h.height > 0 else { throw ImageFileError.corrupt(detail: "\(format == .avif ? "AVIF" : "HEIF"): the image is \(h.width)x\(h.height)") }
            guard !overflow, count <= limit else { throw ImageFileError.tooLarge(width: h.width, height: h.height, limit: limit) }
            if let bad = HEIFBoxes(b: bytes).extentOutsideData() {
                throw ImageFileError.truncated(detail: "\(format == .avif ? "AVIF" : "HEIF"): \(bad)")
            }
            for canvas in HEIFBoxes(b: bytes).derivedCanvases() {
                let (n, o) = canvas.width.multipliedReportingOverflow(by: canvas.height)
                guard !o, n <= limit else { throw ImageFileError.tooLarge(width: canvas.width, height: canvas.height, limit: limit) }
            }
            guard let options = heif_decoding_options_alloc() else { throw ImageFileError.corrupt(detail: "HEIF: out of memory") }
            defer { heif_decoding_options_free(options) }
            var image: OpaquePointer?
            let chroma = sixteen ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RGBA
            let e = heif_decode_image(handle, &image, heif_colorspace_RGB, chroma, options)
            guard e.code == heif_error_Ok, let image else { throw error(e, "decoding", format) }
            defer { heif_image_release(image) }
            var stride: Int32 = 0
            guard let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride) else {
                throw ImageFileError.corrupt(detail: "HEIF: the decoder returned no pixels")
            }
            let w = Int(heif_image_get_width(image, heif_channel_interleaved))
            let ht = Int(heif_image_get_height(image, heif_channel_interleaved))
            guard w == h.width, ht == h.height, Int(stride) >= w * (sixteen ? 8 : 4) else {
                throw ImageFileError.corrupt(detail: "HEIF: the decoder returned \(w)x\(ht), the header says \(h.width)x\(h.height)")
            }
            let rowStride = Int(stride)
            let premultiplied = h.hasAlpha && heif_image_handle_is_premultiplied_alpha(handle) != 0
            if sixteen {
                let range = Int(heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved))
                let maxv = UInt32((1 << min(max(range, 1), 16)) - 1)
                h.bitDepth = range
                let px: [UInt16] = try makeArray(count: count * 4) { (out: UnsafeMutableBufferPointer<UInt16>) throws(ImageFileError) in
                    for y in 0..<ht {
                        let row = UnsafeRawPointer(plane + y * rowStride)
                        for i in 0..<(w * 4) {
                            let v = UInt32(UInt16(littleEndian: row.loadUnaligned(fromByteOffset: i * 2, as: UInt16.self)))
                            out[y * w * 4 + i] = UInt16((min(v, maxv) * 65535 + maxv / 2) / maxv)
                        }
                    }
                    if premultiplied { unpremultiply(out) }
                }
                return DecodedBitmap(header: h, width: w, height: ht, bitDepth: 16, pixels: [], pixels16: px)
            }
            let px: [UInt8] = try makeArray(count: count * 4) { (out: UnsafeMutableBufferPointer<UInt8>) throws(ImageFileError) in
                for y in 0..<ht {
                    (out.baseAddress! + y * w * 4).initialize(from: plane + y * rowStride, count: w * 4)
                }
                if premultiplied { unpremultiply(out) }
            }
            return DecodedBitmap(header: h, width: w, height: ht, bitDepth: 8, pixels: px, pixels16: [])
        }
    }

    /// Premultiplied (HEIF `prem` reference) -> straight alpha.
    static func unpremultiply<T: FixedWidthInteger & UnsignedInteger>(_ px: UnsafeMutableBufferPointer<T>) {
        let maxv = UInt64(T.max)
        for i in stride(from: 0, to: px.count, by: 4) {
            let a = UInt64(px[i + 3])
            guard a != 0, a != maxv else { continue }
            for c in 0..<3 { px[i + c] = T(min(maxv, (UInt64(px[i + c]) * maxv + a / 2) / a)) }
        }
    }

    /// Whether this libheif build can encode `format` (x265 for HEIF, aom/rav1e/svt for AVIF).
    static func canEncode(_ format: ImageFileFormat) -> Bool {
        guard (try? DeferredLibraries.load(CY_LIBRARY_HEIF)) != nil, let ctx = heif_context_alloc() else { return false }
        defer { heif_context_free(ctx) }
        var enc: OpaquePointer?
        let e = heif_context_get_encoder_for_format(ctx, format == .avif ? heif_compression_AV1 : heif_compression_HEVC, &enc)
        if let enc { heif_encoder_release(enc) }
        return e.code == heif_error_Ok && enc != nil
    }

    final class Sink { var data = Data() }

    /// Encodes 8-bit RGBA rows (RGB when `!hasAlpha`) with `options.quality`, or losslessly.
    static func encode(
        _ rgba: UnsafeBufferPointer<UInt8>, width: Int, height: Int, hasAlpha: Bool, format: ImageFileFormat,
        options: EncodeOptions
    ) throws(ImageFileError) -> Data {
        let name = format == .avif ? "AVIF" : "HEIF"
        guard width <= 32768, height <= 32768 else {
            throw .invalidArgument("\(name) width and height must be at most 32768, got \(width)x\(height)")
        }
        try DeferredLibraries.load(CY_LIBRARY_HEIF)
        guard let ctx = heif_context_alloc() else { throw .encodeFailed(detail: "\(name): out of memory") }
        defer { heif_context_free(ctx) }
        var enc: OpaquePointer?
        var e = heif_context_get_encoder_for_format(ctx, format == .avif ? heif_compression_AV1 : heif_compression_HEVC, &enc)
        guard e.code == heif_error_Ok, let enc else {
            throw .encodeFailed(detail: "\(name): this libheif has no \(format == .avif ? "AV1" : "HEVC") encoder (\(text(e)))")
        }
        defer { heif_encoder_release(enc) }
        e =
            options.lossless
            ? heif_encoder_set_lossless(enc, 1)
            : heif_encoder_set_lossy_quality(enc, Int32((min(max(options.quality, 0), 1) * 100).rounded()))
        guard e.code == heif_error_Ok else { throw .encodeFailed(detail: "\(name) quality: \(text(e))") }
        if let effort = options.effort {
            guard (0...9).contains(effort) else { throw .invalidArgument("\(name) effort must be 0...9, got \(effort)") }
            // aom and x265 (as libheif wraps them) take "speed" 0 (slowest) ... 9; an encoder
            // without the parameter keeps its default.
            _ = heif_encoder_set_parameter_integer(enc, "speed", Int32(9 - effort))
        }
        var image: OpaquePointer?
        e = heif_image_create(
            Int32(width), Int32(height), heif_colorspace_RGB, hasAlpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB,
            &image)
        guard e.code == heif_error_Ok, let image else { throw .encodeFailed(detail: "\(name) image: \(text(e))") }
        defer { heif_image_release(image) }
        e = heif_image_add_plane(image, heif_channel_interleaved, Int32(width), Int32(height), 8)
        var stride: Int32 = 0
        guard e.code == heif_error_Ok, let plane = heif_image_get_plane(image, heif_channel_interleaved, &stride) else {
            throw .encodeFailed(detail: "\(name) plane: \(text(e))")
        }
        let src = rgba.baseAddress!
        for y in 0..<height {
            let row = plane + y * Int(stride)
            if hasAlpha {
                row.update(from: src + y * width * 4, count: width * 4)
            } else {
                for x in 0..<width {
                    row[3 * x] = src[(y * width + x) * 4]
                    row[3 * x + 1] = src[(y * width + x) * 4 + 1]
                    row[3 * x + 2] = src[(y * width + x) * 4 + 2]
                }
            }
        }
        if let icc = options.iccProfile, !icc.isEmpty {
            e = icc.withUnsafeBytes { heif_image_set_raw_color_profile(image, "prof", $0.baseAddress, $0.count) }
            guard e.code == heif_error_Ok else { throw .encodeFailed(detail: "\(name) ICC profile: \(text(e))") }
        }
        // HEIF's orientation is its irot/imir boxes (every HEIF reader applies them; the EXIF's
        // tag is informational there): libheif writes them for the EXIF orientation asked.
        guard let encoding = heif_encoding_options_alloc() else { throw .encodeFailed(detail: "\(name): out of memory") }
        defer { heif_encoding_options_free(encoding) }
        if (2...8).contains(options.orientation) {
            guard encoding.pointee.version >= 5 else {
                throw .encodeFailed(detail: "\(name): this libheif cannot store an orientation (irot/imir); write the pixels upright")
            }
            encoding.pointee.image_orientation = heif_orientation(rawValue: UInt32(options.orientation))
        }
        var handle: OpaquePointer?
        e = heif_context_encode_image(ctx, image, enc, encoding, &handle)
        defer { if let handle { heif_image_handle_release(handle) } }
        guard e.code == heif_error_Ok, let handle else { throw .encodeFailed(detail: "\(name): \(text(e))") }
        // EXIF (libheif adds the 4-byte offset to the TIFF header) and XMP items.
        if let exif = options.exif, !exif.isEmpty, exif.count < Int(Int32.max) {
            e = exif.withUnsafeBytes { heif_context_add_exif_metadata(ctx, handle, $0.baseAddress, Int32($0.count)) }
            guard e.code == heif_error_Ok else { throw .encodeFailed(detail: "\(name) EXIF: \(text(e))") }
        }
        if let xmp = options.xmp, !xmp.isEmpty, xmp.count < Int(Int32.max) {
            e = xmp.withUnsafeBytes { heif_context_add_XMP_metadata(ctx, handle, $0.baseAddress, Int32($0.count)) }
            guard e.code == heif_error_Ok else { throw .encodeFailed(detail: "\(name) XMP: \(text(e))") }
        }
        let sink = Sink()
        var writer = heif_writer(writer_api_version: 1) { _, data, size, user in
            let sink = Unmanaged<Sink>.fromOpaque(user!).takeUnretainedValue()
            if let data, size > 0 { sink.data.append(data.assumingMemoryBound(to: UInt8.self), count: size) }
            return heif_error(
                code: heif_error_Ok, subcode: heif_suberror_Unspecified,
                message: UnsafeRawPointer(StaticString("Success").utf8Start).assumingMemoryBound(to: CChar.self))
        }
        e = withExtendedLifetime(sink) { heif_context_write(ctx, &writer, Unmanaged.passUnretained(sink).toOpaque()) }
        guard e.code == heif_error_Ok else { throw .encodeFailed(detail: "\(name) writing: \(text(e))") }
        return sink.data
    }
}
