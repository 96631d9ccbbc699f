import CCodecShims
import Foundation

/// TIFF through libtiff, called via our C shim (`CCodecShims`): libtiff's tag calls are
/// variadic, its errors arrive as return codes plus the first message it reported, and its
/// stderr handlers are silenced. 8/16-bit grey and RGB(A) and 32-bit float decode as stored;
/// other layouts (palette, 1/2/4-bit, YCbCr, CMYK, planar) go through libtiff's RGBA interface
/// and decode to 8-bit. `page` picks a directory of a multi-page file (see `TIFFPages`).
enum TIFFCodec {
    /// A reader over `bytes`, closed when `body` returns. libtiff's own allocations are capped
    /// at `maxAlloc` bytes each.
    static func withReader<R>(
        _ bytes: UnsafeRawBufferPointer, maxAlloc: Int, _ body: (OpaquePointer) throws(ImageFileError) -> R
    ) throws(ImageFileError) -> R {
        guard let r = cy_tiff_open(bytes.baseAddress, bytes.count, Int64(maxAlloc)) else {
            throw .corrupt(detail: "TIFF: out of memory creating a decoder")
        }
        defer { cy_tiff_close(r) }
        let rc = cy_tiff_status(r)
        guard rc == 0 else { throw error(r, rc, stage: "reading the header") }
        return try body(r)
    }

    static func message(_ r: OpaquePointer) -> String {
        guard let m = cy_tiff_message(r) else { return "" }
        return String(cString: m)
    }

    /// Maps a shim code to the error a user sees; a read that ran past the end is `.truncated`.
    static func error(_ r: OpaquePointer, _ rc: Int32, stage: String) -> ImageFileError {
        let text = message(r)
        let detail = "TIFF \(stage)" + (text.isEmpty ? "" : ": \(text)")
        if cy_tiff_hit_eof(r) != 0 { return .truncated(detail: detail) }
        switch rc {
        case Int32(CY_TIFF_ERR_UNSUPPORTED): return .unsupportedFormat("TIFF layout (\(text))")
        default: return .corrupt(detail: detail)
        }
    }

    static func info(_ r: OpaquePointer) throws(ImageFileError) -> cy_tiff_info {
        var info = cy_tiff_info()
        let rc = cy_tiff_get_info(r, &info)
        guard rc == 0 else { throw error(r, rc, stage: "reading the first directory") }
        return info
    }

    static func header(_ r: OpaquePointer, _ info: cy_tiff_info) -> ImageHeader {
        let extra = Int(info.extraSamples)
        let model: String
        switch Int(info.photometric) {
        case 0, 1: model = "Gray"
        case 5: model = "CMYK"
        case 8, 9, 10: model = "Lab"
        default: model = "RGB"
        }
        let depth: Int
        switch Int(info.mode) {
        case CY_TIFF_MODE_U16: depth = 16
        case CY_TIFF_MODE_F32: depth = 32
        default: depth = 8
        }
        var h = ImageHeader(
            format: .tiff, width: Int(info.width), height: Int(info.height),
            channels: min(max(Int(info.samplesPerPixel), 1), 4), bitDepth: depth, hasAlpha: extra > 0,
            colorModel: model, orientation: Int(info.orientation))
        var length: UInt32 = 0
        if let p = cy_tiff_icc(r, &length), length > 0 { h.iccProfile = Data(bytes: p, count: Int(length)) }
        if info.xResolution > 0 {
            switch info.resolutionUnit {
            case 3: h.dpi = Double(info.xResolution) * 2.54
            case 1: break  // no absolute unit
            default: h.dpi = Double(info.xResolution)
            }
        }
        return h
    }

    static func readHeader(_ bytes: UnsafeRawBufferPointer, page: Int = 0) throws(ImageFileError) -> ImageHeader {
        try withReader(bytes, maxAlloc: DecodeLimits.default.maxBytes) { r throws(ImageFileError) in
            if page > 0 { try TIFFPages.select(r, page) }
            let i = try info(r)
            var h = header(r, i)
            addMetadata(&h, i, bytes, page: page)
            return h
        }
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, limits: DecodeLimits, strict: Bool, page: Int = 0) throws(ImageFileError) -> DecodedBitmap {
        // libtiff's single-allocation cap: never below 16 MiB (its directory and strip buffers
        // need some), while the pixel buffer is checked against `limits` below.
        try withReader(bytes, maxAlloc: max(limits.maxBytes, 16 << 20)) { r throws(ImageFileError) in
            if page > 0 { try TIFFPages.select(r, page) }
            let info = try info(r)
            var h = header(r, info)
            addMetadata(&h, info, bytes, page: page)
            guard info.mode != 0 else {
                let why = message(r)
                throw ImageFileError.unsupportedFormat(
                    "TIFF with \(info.samplesPerPixel) samples of \(info.bitsPerSample) bits (sample format \(info.sampleFormat), "
                        + "photometric \(info.photometric))" + (why.isEmpty ? "" : ": \(why)"))
            }
            let bytesPerSample = h.bitDepth / 8
            let limit = limits.pixelLimit(bytesPerPixel: 4 * bytesPerSample)
            let (count, overflow) = h.width.multipliedReportingOverflow(by: h.height)
            guard !overflow, count <= limit else { throw ImageFileError.tooLarge(width: h.width, height: h.height, limit: limit) }
            var rows: UInt32 = 0
            func fill(_ out: UnsafeMutableRawBufferPointer) throws(ImageFileError) {
                let rc = cy_tiff_decode(r, info.mode, out.baseAddress, out.count, strict ? 1 : 0, &rows)
                guard rc == 0 else { throw error(r, rc, stage: "decoding") }
            }
            var b = DecodedBitmap(header: h, width: h.width, height: h.height, bitDepth: h.bitDepth, pixels: [], pixels16: [])
            switch h.bitDepth {
            case 16:
                b.pixels16 = try makeArray(count: count * 4) { (buf: UnsafeMutableBufferPointer<UInt16>) throws(ImageFileError) in
                    if !strict { buf.initialize(repeating: 0) }
                    try fill(UnsafeMutableRawBufferPointer(buf))
                }
            case 32:
                b.pixelsF = try makeArray(count: count * 4) { (buf: UnsafeMutableBufferPointer<Float>) throws(ImageFileError) in
                    if !strict { buf.initialize(repeating: 0) }
                    try fill(UnsafeMutableRawBufferPointer(buf))
                }
            default:
                b.pixels = try makeArray(count: count * 4) { (buf: UnsafeMutableBufferPointer<UInt8>) throws(ImageFileError) in
                    if !strict { buf.initialize(repeating: 0) }
                    try fill(UnsafeMutableRawBufferPointer(buf))
                }
            }
            b.isComplete = Int(rows) == h.height
            return b
        }
    }

    /// Encodes RGBA rows (RGB when `!hasAlpha`; grey, or grey and alpha, with
    /// `options.grayscale`) of UInt8, UInt16 or Float samples, through the streaming encoder
    /// (`TIFFStreamEncoder`): the bytes a streamed render of the same pixels writes.
    static func encode<Sample>(
        _ rgba: UnsafeBufferPointer<Sample>, bits: Int, width: Int, height: Int, hasAlpha: Bool, options: EncodeOptions,
        into sink: ByteSink? = nil
    ) throws(ImageFileError) -> Data {
        guard let base = rgba.baseAddress, width > 0, height > 0, rgba.count / 4 / width >= height else {
            throw .invalidArgument("TIFF: \(rgba.count) samples do not hold a \(width)x\(height) RGBA image")
        }
        let out = sink ?? ByteSink()
        let encoder = try TIFFStreamEncoder(width: width, height: height, bits: bits, hasAlpha: hasAlpha, options: options, sink: out)
        try encoder.write(UnsafeRawPointer(base), rowBytes: width * 4 * MemoryLayout<Sample>.stride, count: height)
        try encoder.finish()
        return sink == nil ? out.data : Data()
    }

    /// `tiff` with the EXIF and XMP of `options` merged into its first directory (one page or
    /// the first of several).
    static func withMetadata(_ tiff: Data, _ options: EncodeOptions) -> Data {
        let exif = options.exif.flatMap { $0.isEmpty ? nil : $0 }, xmp = options.xmp.flatMap { $0.isEmpty ? nil : $0 }
        guard exif != nil || xmp != nil else { return tiff }
        return ImageCodecs.tiffAddingMetadata(tiff, exif: exif, xmp: xmp)
    }

    /// `{TIFF}`'s compression and photometric interpretation of the page read, and for the
    /// first page the EXIF (built from IFD0 and its EXIF and GPS directories) and XMP (tag
    /// 700) of the file's first directory, where EXIF and XMP live (later pages report none).
    static func addMetadata(_ h: inout ImageHeader, _ info: cy_tiff_info, _ bytes: UnsafeRawBufferPointer, page: Int) {
        h.formatProperties["Compression"] = .int(Int(info.compression))
        h.formatProperties["PhotometricInterpretation"] = .int(Int(info.photometric))
        if h.bitDepth == 32 { h.formatProperties["IsFloat"] = .bool(true) }
        guard page == 0, let file = TIFFBlock([UInt8](bytes)) else { return }
        h.exif = ImageCodecs.exifBlock(ofTIFFFile: file)
        h.xmp = ImageCodecs.xmp(ofTIFFFile: file)
    }
}
