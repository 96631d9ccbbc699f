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
    /// `options.grayscale`) of UInt8, UInt16 or Float samples.
    static func encode<Sample>(
        _ rgba: UnsafeBufferPointer<Sample>, bits: Int, width: Int, height: Int, hasAlpha: Bool, options: EncodeOptions
    ) throws(ImageFileError) -> Data {
        guard width <= Int(UInt32.max), height <= Int(UInt32.max) else {
            throw .invalidArgument("TIFF width and height must be at most \(UInt32.max), got \(width)x\(height)")
        }
        guard (1...8).contains(options.orientation) else {
            throw .invalidArgument("TIFF orientation must be 1...8, got \(options.orientation)")
        }
        let count = width * height
        // Samples taken per pixel: all four, RGB, grey (green) or grey + alpha.
        let picks: [Int] = options.grayscale ? (hasAlpha ? [1, 3] : [1]) : (hasAlpha ? [0, 1, 2, 3] : [0, 1, 2])
        let channels = picks.count
        var packedStorage: [Sample] = []
        if channels != 4 {
            packedStorage = [Sample](unsafeUninitializedCapacity: count * channels) { out, n in
                let src = rgba.baseAddress!, dst = out.baseAddress!
                let k0 = picks[0], k1 = picks.count > 1 ? picks[1] : 0, k2 = picks.count > 2 ? picks[2] : 0
                switch channels {
                case 1:
                    for i in 0..<count { (dst + i).initialize(to: src[4 * i + k0]) }
                case 2:
                    for i in 0..<count {
                        (dst + 2 * i).initialize(to: src[4 * i + k0])
                        (dst + 2 * i + 1).initialize(to: src[4 * i + k1])
                    }
                default:
                    for i in 0..<count {
                        (dst + 3 * i).initialize(to: src[4 * i + k0])
                        (dst + 3 * i + 1).initialize(to: src[4 * i + k1])
                        (dst + 3 * i + 2).initialize(to: src[4 * i + k2])
                    }
                }
                n = count * channels
            }
        }
        var out: UnsafeMutableRawPointer?
        var length = 0
        var msg = [CChar](repeating: 0, count: 256)
        let icc = options.iccProfile ?? Data()
        let rc: Int32 = icc.withUnsafeBytes { iccRaw in
            func run(_ px: UnsafeRawPointer) -> Int32 {
                cy_tiff_encode(
                    px, UInt32(width), UInt32(height), Int32(channels), Int32(bits), options.tiffCompression.code,
                    Int32(options.orientation), iccRaw.baseAddress, UInt32(iccRaw.count), options.dpi ?? 0, &out, &length,
                    &msg, 256)
            }
            if channels == 4 { return run(UnsafeRawPointer(rgba.baseAddress!)) }
            return packedStorage.withUnsafeBytes { run($0.baseAddress!) }
        }
        guard rc == 0, let out else {
            let text = msg.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw .encodeFailed(detail: "TIFF: \(text)")
        }
        defer { cy_tiff_free(out) }
        return withMetadata(Data(bytes: out, count: length), options)
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
