import Foundation

/// Reads and writes JPEG, PNG, WebP, TIFF, GIF, HEIF, AVIF and JPEG XL files as interleaved RGBA
/// (8/16-bit; TIFF's and JPEG XL's float samples stay 32-bit float). Animations and pages:
/// `FrameDecoder` and `FrameEncoder`; here an animation reads as its first frame.
///
/// Nothing a file contains can crash the process: every failure is a typed `ImageFileError`,
/// and a header's size is checked against `DecodeLimits` before pixels are allocated.
/// All functions are thread-safe (each call owns its codec context).
public enum ImageCodecs {
    /// `exif` with IFD0's orientation tag set to 1, for pixels that were turned upright.
    public static func uprightedEXIF(_ exif: Data) -> Data { EXIFSummary.uprighted(exif) }

    /// The format named by the first bytes, or nil when none of ours matches.
    public static func sniff(_ data: Data) -> ImageFileFormat? {
        data.withUnsafeBytes { sniff(bytes: $0) }
    }

    static func sniff(bytes b: UnsafeRawBufferPointer) -> ImageFileFormat? {
        if b.count >= 3, b[0] == 0xFF, b[1] == 0xD8, b[2] == 0xFF { return .jpeg }
        if b.count >= 8, b[0] == 0x89, b[1] == 0x50, b[2] == 0x4E, b[3] == 0x47, b[4] == 0x0D, b[5] == 0x0A, b[6] == 0x1A,
            b[7] == 0x0A
        {
            return .png
        }
        if b.count >= 12, b.matches("RIFF", at: 0), b.matches("WEBP", at: 8) { return .webp }
        if b.count >= 6, b.matches("GIF87a", at: 0) || b.matches("GIF89a", at: 0) { return .gif }
        // Classic TIFF and BigTIFF, both byte orders.
        if b.count >= 4,
            b.matches("II*\u{0}", at: 0) || b.matches("MM\u{0}*", at: 0) || b.matches("II+\u{0}", at: 0)
                || b.matches("MM\u{0}+", at: 0)
        {
            return .tiff
        }
        if b.count >= 12, b.matches("ftyp", at: 4) { return heifBrand(b) }
        if JXLCodec.isJXL(b) { return .jxl }
        return nil
    }

    static let hevcBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs"]
    static let av1Brands: Set<String> = ["avif", "avis"]

    /// HEIF or AVIF from the ftyp box's major brand; for the generic brands (mif1, msf1, miaf)
    /// the compatible brands decide. nil for other ISO media (MP4, QuickTime).
    static func heifBrand(_ b: UnsafeRawBufferPointer) -> ImageFileFormat? {
        func brand(_ at: Int) -> String { String(decoding: b[at..<(at + 4)], as: UTF8.self) }
        let major = brand(8)
        if hevcBrands.contains(major) { return .heif }
        if av1Brands.contains(major) { return .avif }
        guard ["mif1", "msf1", "miaf"].contains(major) else { return nil }
        let boxEnd = min(b.count, max(16, b.be32(0)))
        var compatible: [String] = []
        var at = 16
        while at + 4 <= boxEnd && compatible.count < 64 {
            compatible.append(brand(at))
            at += 4
        }
        if compatible.contains(where: hevcBrands.contains) { return .heif }
        if compatible.contains(where: av1Brands.contains) { return .avif }
        return .heif
    }

    /// The format for a file extension ("jpg", "JPEG", "png", "webp", "tif", "gif", "heic",
    /// "avif", "jxl"), case-insensitive, dot optional.
    public static func format(forPathExtension ext: String) -> ImageFileFormat? {
        var e = ext.lowercased()
        if e.hasPrefix(".") { e.removeFirst() }
        switch e {
        case "jpg", "jpeg", "jpe", "jfif": return .jpeg
        case "png": return .png
        case "webp": return .webp
        case "tif", "tiff": return .tiff
        case "gif": return .gif
        case "heic", "heif", "heics", "heifs", "hif": return .heif
        case "avif", "avifs": return .avif
        case "jxl": return .jxl
        default: return nil
        }
    }

    /// Size, channels, bit depth, orientation, ICC, DPI and EXIF, without decoding pixels.
    public static func readHeader(_ data: Data) throws(ImageFileError) -> ImageHeader {
        try withBytes(data) { bytes throws(ImageFileError) in
            switch try identify(bytes) {
            case .png: return try PNGCodec.readHeader(bytes)
            case .jpeg: return try JPEGCodec.readHeader(bytes)
            case .webp where AnimatedWebP.isAnimated(bytes): return try AnimatedWebP.readHeader(bytes)
            case .webp: return try WebPCodec.readHeader(bytes)
            case .tiff: return try TIFFCodec.readHeader(bytes)
            case .jxl: return try JXLCodec.readHeader(bytes)
            case .gif: return try GIFCodec.readHeader(bytes)
            case let f: return try HEIFCodec.readHeader(bytes, format: f)
            }
        }
    }

    /// Decodes to RGBA (see `DecodedBitmap`). `strict: false` returns what a truncated or
    /// damaged file still yields (`isComplete == false`) instead of failing.
    public static func decode(_ data: Data, limits: DecodeLimits = .default, strict: Bool = true) throws(ImageFileError)
        -> DecodedBitmap
    {
        try withBytes(data) { bytes throws(ImageFileError) in
            try decode(bytes, as: try identify(bytes), limits: limits, strict: strict)
        }
    }

    /// Decodes `data` with the named format's decoder, without looking at its magic bytes
    /// (the fuzz harness uses this to aim at one decoder).
    public static func decode(_ data: Data, as format: ImageFileFormat, limits: DecodeLimits = .default, strict: Bool = true)
        throws(ImageFileError) -> DecodedBitmap
    {
        try withBytes(data) { bytes throws(ImageFileError) in
            guard bytes.count > 0 else { throw .empty }
            return try decode(bytes, as: format, limits: limits, strict: strict)
        }
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, as format: ImageFileFormat, limits: DecodeLimits, strict: Bool)
        throws(ImageFileError) -> DecodedBitmap
    {
        switch format {
        case .png: return try PNGCodec.decode(bytes, limits: limits, strict: strict)
        case .jpeg: return try JPEGCodec.decode(bytes, limits: limits, strict: strict)
        case .webp where AnimatedWebP.isAnimated(bytes): return try AnimatedWebP.decode(bytes, limits: limits)
        case .webp: return try WebPCodec.decode(bytes, limits: limits, strict: strict)
        case .tiff: return try TIFFCodec.decode(bytes, limits: limits, strict: strict)
        case .gif: return try GIFCodec.decode(bytes, limits: limits, strict: strict)
        case .heif, .avif: return try HEIFCodec.decode(bytes, format: format, limits: limits)
        case .jxl: return try JXLCodec.decode(bytes, limits: limits, strict: strict)
        }
    }

    /// Whether `encode` can write `format` here: always for JPEG, PNG, WebP, TIFF, GIF and JPEG XL;
    /// for HEIF and AVIF when libheif was built with an HEVC or AV1 encoder.
    public static func canEncode(_ format: ImageFileFormat) -> Bool {
        switch format {
        case .heif, .avif: return HEIFCodec.canEncode(format)
        default: return true
        }
    }

    /// Reads the whole file and decodes it; read failures are `.ioError`. (The file is read, not
    /// memory-mapped: a mapped file shortened by another process would crash us with SIGBUS.)
    public static func decodeFile(at url: URL, limits: DecodeLimits = .default, strict: Bool = true) throws(ImageFileError)
        -> DecodedBitmap
    {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .ioError(path: url.path, detail: ioDetail(error))
        }
        return try decode(data, limits: limits, strict: strict)
    }

    /// Runs `body(0)`, `body(1)`, ... `body(count - 1)` one after another on this thread: the
    /// `ParallelFor` the encoders use when given none.
    public static func sequential(_ count: Int, _ body: @Sendable (Int) -> Void) {
        for i in 0..<max(0, count) { body(i) }
    }

    /// Encodes 8-bit RGBA rows (top-down, straight alpha). With `hasAlpha == false` the alpha
    /// samples are ignored and PNG/WebP store RGB. JPEG always drops alpha. PNG compresses
    /// bands of rows through `parallel` (the same bytes whichever loop runs them).
    public static func encode(
        rgba8: UnsafeBufferPointer<UInt8>, width: Int, height: Int, hasAlpha: Bool, format: ImageFileFormat,
        options: EncodeOptions, parallel: ParallelFor = sequential
    ) throws(ImageFileError) -> Data {
        try checkBuffer(count: rgba8.count, width: width, height: height, name: "rgba8")
        switch format {
        case .png:
            return try PNGCodec.encode(rgba8, width: width, height: height, hasAlpha: hasAlpha, options: options, parallel: parallel)
        case .jpeg: return try JPEGCodec.encode(rgba8, width: width, height: height, options: options)
        case .webp: return try WebPCodec.encode(rgba8, width: width, height: height, hasAlpha: hasAlpha, options: options)
        case .tiff:
            return try TIFFCodec.encode(rgba8, bits: 8, width: width, height: height, hasAlpha: hasAlpha, options: options)
        case .gif:
            let encoder = try FrameEncoder(format: .gif, options: options)
            try encoder.add(rgba8: rgba8, width: width, height: height, hasAlpha: hasAlpha, delay: 0)
            return try encoder.finish(loopCount: nil)
        case .heif, .avif:
            return try HEIFCodec.encode(rgba8, width: width, height: height, hasAlpha: hasAlpha, format: format, options: options)
        case .jxl:
            return try JXLCodec.encode(UnsafeRawBufferPointer(rgba8), samples: .u8, width: width, height: height, hasAlpha: hasAlpha, options: options)
        }
    }

    /// Encodes 8-bit or 16-bit RGBA rows as `encode(rgba8:...)` and `encode(rgba16:...)` do, into
    /// `sink`: a PNG is written as its bands are deflated and a TIFF as its strips fill (never
    /// whole in memory); other formats are encoded, then appended.
    public static func encode<Sample: FixedWidthInteger & UnsignedInteger>(
        rgba: UnsafeBufferPointer<Sample>, width: Int, height: Int, hasAlpha: Bool, format: ImageFileFormat,
        options: EncodeOptions, parallel: ParallelFor = sequential, into sink: ByteSink
    ) throws(ImageFileError) {
        try checkBuffer(count: rgba.count, width: width, height: height, name: Sample.bitWidth == 16 ? "rgba16" : "rgba8")
        if format == .png {
            _ = try PNGCodec.encode(rgba, width: width, height: height, hasAlpha: hasAlpha, options: options, parallel: parallel, to: sink)
            return
        }
        if format == .tiff {
            _ = try TIFFCodec.encode(rgba, bits: Sample.bitWidth, width: width, height: height, hasAlpha: hasAlpha, options: options, into: sink)
            return
        }
        let data: Data
        if Sample.bitWidth == 16 {
            data = try encode(
                rgba16: UnsafeBufferPointer(start: UnsafeRawPointer(rgba.baseAddress)?.assumingMemoryBound(to: UInt16.self), count: rgba.count),
                width: width, height: height, hasAlpha: hasAlpha, format: format, options: options, parallel: parallel)
        } else {
            data = try encode(
                rgba8: UnsafeBufferPointer(start: UnsafeRawPointer(rgba.baseAddress)?.assumingMemoryBound(to: UInt8.self), count: rgba.count),
                width: width, height: height, hasAlpha: hasAlpha, format: format, options: options, parallel: parallel)
        }
        try sink.append(data)
        try sink.flush()
    }

    /// Encodes 16-bit RGBA rows (native endian). PNG, TIFF and JPEG XL keep 16 bits; JPEG,
    /// WebP, HEIF and AVIF get 8-bit samples rounded to nearest (v × 255 / 65535). `parallel`
    /// as for 8-bit.
    public static func encode(
        rgba16: UnsafeBufferPointer<UInt16>, width: Int, height: Int, hasAlpha: Bool, format: ImageFileFormat,
        options: EncodeOptions, parallel: ParallelFor = sequential
    ) throws(ImageFileError) -> Data {
        try checkBuffer(count: rgba16.count, width: width, height: height, name: "rgba16")
        if format == .png {
            return try PNGCodec.encode(rgba16, width: width, height: height, hasAlpha: hasAlpha, options: options, parallel: parallel)
        }
        if format == .tiff {
            return try TIFFCodec.encode(rgba16, bits: 16, width: width, height: height, hasAlpha: hasAlpha, options: options)
        }
        if format == .jxl {
            return try JXLCodec.encode(UnsafeRawBufferPointer(rgba16), samples: .u16, width: width, height: height, hasAlpha: hasAlpha, options: options)
        }
        let n = width * height * 4
        let eight = [UInt8](unsafeUninitializedCapacity: n) { out, count in
            let src = rgba16.baseAddress!
            for i in 0..<n { out[i] = UInt8(truncatingIfNeeded: (UInt32(src[i]) &* 255 &+ 32767) / 65535) }
            count = n
        }
        return try eight.withUnsafeBufferPointer { (buf) throws(ImageFileError) in
            try encode(rgba8: buf, width: width, height: height, hasAlpha: hasAlpha, format: format, options: options)
        }
    }

    /// Encodes 32-bit float RGBA rows (1.0 = white, straight alpha). TIFF and JPEG XL keep the
    /// floats (values outside 0...1 too; JPEG XL replaces NaN by 0 and clamps to ±65504); other
    /// formats get 16-bit samples (clamped to 0...1, rounded), so PNG writes 16 bits and the
    /// rest 8. `parallel` as for 8-bit.
    public static func encode(
        rgbaF: UnsafeBufferPointer<Float>, width: Int, height: Int, hasAlpha: Bool, format: ImageFileFormat,
        options: EncodeOptions, parallel: ParallelFor = sequential
    ) throws(ImageFileError) -> Data {
        try checkBuffer(count: rgbaF.count, width: width, height: height, name: "rgbaF")
        if format == .tiff {
            return try TIFFCodec.encode(rgbaF, bits: 32, width: width, height: height, hasAlpha: hasAlpha, options: options)
        }
        if format == .jxl {
            return try JXLCodec.encode(UnsafeRawBufferPointer(rgbaF), samples: .f32, width: width, height: height, hasAlpha: hasAlpha, options: options)
        }
        let n = width * height * 4
        let sixteen = [UInt16](unsafeUninitializedCapacity: n) { out, count in
            let src = rgbaF.baseAddress!
            for i in 0..<n {
                let v = src[i]
                out[i] = v.isNaN ? 0 : UInt16((min(max(v, 0), 1) * 65535).rounded())
            }
            count = n
        }
        return try sixteen.withUnsafeBufferPointer { (buf) throws(ImageFileError) in
            try encode(rgba16: buf, width: width, height: height, hasAlpha: hasAlpha, format: format, options: options, parallel: parallel)
        }
    }

    // MARK: - Helpers

    static func checkBuffer(count: Int, width: Int, height: Int, name: String) throws(ImageFileError) {
        guard width > 0, height > 0 else {
            throw .invalidArgument("width and height must be positive, got \(width)x\(height)")
        }
        let (px, o1) = width.multipliedReportingOverflow(by: height)
        let (needed, o2) = px.multipliedReportingOverflow(by: 4)
        guard !o1, !o2, count >= needed else {
            throw .invalidArgument(
                "\(name) buffer holds \(count) samples, but a \(width)x\(height) RGBA image needs \(needed)")
        }
    }

    /// Checks the magic bytes; names what was seen when it is not ours.
    static func identify(_ bytes: UnsafeRawBufferPointer) throws(ImageFileError) -> ImageFileFormat {
        guard bytes.count > 0 else { throw .empty }
        if let f = sniff(bytes: bytes) { return f }
        throw .unsupportedFormat(describeUnknown(bytes))
    }

    /// "GIF (first bytes 47 49 46 38 39 61)" or "unrecognised data (first bytes …)".
    static func describeUnknown(_ b: UnsafeRawBufferPointer) -> String {
        let hex = b.prefix(8).map { String(format: "%02X", $0) }.joined(separator: " ")
        var name = "unrecognised data"
        if b.matches("GIF8", at: 0) {
            name = "GIF of an unknown version"
        } else if b.matches("II*\u{0}", at: 0) || b.matches("MM\u{0}*", at: 0) {
            name = "TIFF"
        } else if b.matches("BM", at: 0) {
            name = "BMP"
        } else if b.matches("ftyp", at: 4) {
            let brand = b.count >= 12 ? String(decoding: b[8..<12], as: UTF8.self) : "?"
            name = "ISO media that is not HEIF (brand '\(brand)')"
        } else if b.matches("RIFF", at: 0) {
            name = "RIFF (not WebP)"
        } else if b.count >= 8, b.matches("JXL ", at: 4) {
            name = "JPEG XL container without its signature box"
        } else if b.count < 8, b.first == 0x89 || b.first == 0xFF {
            name = "too short to identify"
        }
        return "\(name) (first bytes \(hex))"
    }

    static func ioDetail(_ error: any Error) -> String {
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain,
            let s = strerror(Int32(underlying.code))
        {
            return String(cString: s)
        }
        if ns.domain == NSCocoaErrorDomain && ns.code == NSFileReadNoSuchFileError { return "No such file or directory" }
        return ns.localizedDescription
    }
}

extension ImageCodecs {
    /// Whether every RGBA pixel of `rgba` has equal red, green and blue (alpha not looked at):
    /// pixels a grey file holds without loss.
    package static func isNeutral(_ rgba: UnsafeBufferPointer<UInt8>) -> Bool { neutral(rgba) }
    /// `isNeutral` for 16-bit samples.
    package static func isNeutral(_ rgba: UnsafeBufferPointer<UInt16>) -> Bool { neutral(rgba) }
    /// `isNeutral` for float samples.
    package static func isNeutral(_ rgba: UnsafeBufferPointer<Float>) -> Bool { neutral(rgba) }

    private static func neutral<Sample: Equatable>(_ px: UnsafeBufferPointer<Sample>) -> Bool {
        guard let p = px.baseAddress else { return true }
        var i = 0
        while i + 3 < px.count {
            if p[i] != p[i + 1] || p[i + 1] != p[i + 2] { return false }
            i += 4
        }
        return true
    }
}
