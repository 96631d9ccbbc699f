import CCodecShims
import CDeferredLibraries
import CJXL
import Foundation

/// JPEG XL through libjxl 0.7 (Debian 12): the JxlDecoder/JxlEncoder event APIs, multi-threaded
/// with libjxl_threads' runner. Nothing longjmps; every call returns a status.
///
/// Decoding: the first frame (animations are composited by libjxl; later frames are not read),
/// pixels as stored (the codestream orientation is reported, not applied), straight alpha.
/// 8-bit files decode to 8 bits, 9...16-bit ones to 16, floating-point ones to 32-bit float.
/// A lossy (XYB) file whose colour is an ICC profile decodes to linear sRGB floats, tagged with
/// libjxl's profile for that data. The size is checked against `DecodeLimits` when the basic
/// info arrives, before libjxl allocates any frame; every allocation libjxl makes is also
/// counted against a budget (`maxBytes` plus working room), so a hostile file fails with a
/// typed error instead of exhausting memory. EXIF ("Exif") and XMP ("xml ") boxes are read,
/// Brotli-compressed ("brob") ones too, each capped at `metadataLimit` bytes.
enum JXLCodec {
    /// Largest EXIF or XMP box kept, after decompression; larger ones are skipped.
    static let metadataLimit = 16 << 20
    /// Bytes decompressed from one oversized box before the file is refused (a Brotli bomb).
    static let discardLimit = 256 << 20

    /// Threads for libjxl's runner: one per core, at most 8.
    static let threads = max(1, min(8, ProcessInfo.processInfo.activeProcessorCount))

    /// What the decoder found, whatever it was asked for.
    struct Result {
        var header: ImageHeader
        /// The profile of the decoded pixels (differs from the file's for lossy ICC files).
        var dataProfile: Data?
        var bitDepth = 8
        var pixels: [UInt8] = []
        var pixels16: [UInt16] = []
        var pixelsF: [Float] = []
    }

    static func status(_ s: JxlDecoderStatus) -> String { "libjxl decoder status \(s.rawValue)" }

    /// Signature check: a bare codestream (FF 0A) or the container's "JXL " box.
    static func isJXL(_ b: UnsafeRawBufferPointer) -> Bool {
        if b.count >= 2, b[0] == 0xFF, b[1] == 0x0A { return true }
        let box: [UInt8] = [0, 0, 0, 12, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]
        return b.count >= 12 && (0..<12).allSatisfy { b[$0] == box[$0] }
    }

    static func readHeader(_ b: UnsafeRawBufferPointer) throws(ImageFileError) -> ImageHeader {
        try run(b, limits: .default, pixels: false).header
    }

    static func decode(_ b: UnsafeRawBufferPointer, limits: DecodeLimits, strict: Bool) throws(ImageFileError) -> DecodedBitmap {
        let r = try run(b, limits: limits, pixels: true)
        var header = r.header
        header.iccProfile = r.dataProfile
        return DecodedBitmap(
            header: header, width: r.header.width, height: r.header.height, bitDepth: r.bitDepth, pixels: r.pixels,
            pixels16: r.pixels16, pixelsF: r.pixelsF)
    }

    /// One pass of the decoder over `b`: header, colour, metadata boxes, and the pixels of the
    /// first frame when `pixels` is set.
    static func run(_ b: UnsafeRawBufferPointer, limits: DecodeLimits, pixels: Bool) throws(ImageFileError) -> Result {
        guard b.count > 0 else { throw .empty }
        try DeferredLibraries.load(CY_LIBRARY_JXL, CY_LIBRARY_JXL_THREADS)
        guard isJXL(b) else { throw .corrupt(detail: "JPEG XL: no JPEG XL signature") }
        // Budget: the decoded frame (up to maxBytes) plus as much again for libjxl's own
        // buffers (group caches, the XYB image), never below 64 MiB.
        let (doubled, overflow) = limits.maxBytes.multipliedReportingOverflow(by: 2)
        let budgetBytes = max(64 << 20, overflow ? Int.max / 2 : doubled)
        guard let budget = cy_alloc_budget_new(UInt64(budgetBytes)) else { throw .corrupt(detail: "JPEG XL: out of memory") }
        defer { cy_alloc_budget_free(budget) }
        var manager = JxlMemoryManager(opaque: UnsafeMutableRawPointer(budget), alloc: cy_budget_alloc, free: cy_budget_free)
        guard let dec = JxlDecoderCreate(&manager) else { throw .corrupt(detail: "JPEG XL: cannot create a decoder") }
        // Destroyed before the budget (the defer above runs after this one).
        defer { JxlDecoderDestroy(dec) }
        var runner: UnsafeMutableRawPointer? = nil
        if pixels {
            runner = JxlThreadParallelRunnerCreate(nil, threads)
            if let runner { _ = JxlDecoderSetParallelRunner(dec, JxlThreadParallelRunner, runner) }
        }
        defer { if let runner { JxlThreadParallelRunnerDestroy(runner) } }

        var events = JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_COLOR_ENCODING.rawValue | JXL_DEC_BOX.rawValue
        if pixels { events |= JXL_DEC_FULL_IMAGE.rawValue }
        guard JxlDecoderSubscribeEvents(dec, Int32(events)) == JXL_DEC_SUCCESS,
            JxlDecoderSetKeepOrientation(dec, 1) == JXL_DEC_SUCCESS,
            JxlDecoderSetUnpremultiplyAlpha(dec, 1) == JXL_DEC_SUCCESS
        else { throw .corrupt(detail: "JPEG XL: cannot configure the decoder") }
        _ = JxlDecoderSetDecompressBoxes(dec, 1)  // fails only without Brotli: boxes then stay raw
        // The input is not closed at first: libjxl then asks for more input where the data ends
        // early (a truncated file) instead of failing, and only once everything needed is read
        // is it closed to let the trailing boxes finish.
        let base = b.baseAddress!.assumingMemoryBound(to: UInt8.self)
        guard JxlDecoderSetInput(dec, base, b.count) == JXL_DEC_SUCCESS else {
            throw .corrupt(detail: "JPEG XL: cannot set the input")
        }
        var inputClosed = false

        var result = Result(header: ImageHeader(format: .jxl, width: 0, height: 0, channels: 3, bitDepth: 8, hasAlpha: false, colorModel: "RGB"))
        var info = JxlBasicInfo()
        var haveInfo = false
        var format = JxlPixelFormat(num_channels: 4, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        var bufferSet = false
        var haveImage = false
        // The metadata box being read: its type, bytes and how far they are filled.
        var box = BoxReader()
        var steps = 0

        func fail(_ what: String) -> ImageFileError {
            if cy_alloc_budget_exceeded(budget) != 0 {
                return .tooLarge(width: Int(info.xsize), height: Int(info.ysize), limit: limits.pixelLimit(bytesPerPixel: 4))
            }
            return .corrupt(detail: "JPEG XL: \(what)")
        }

        /// Runs the decoder until it wants the pixel buffer (`true`) or is done (`false`).
        func pump() throws(ImageFileError) -> Bool {
            while true {
                steps += 1
                if steps > 1_000_000 { throw fail("the decoder made no progress") }
                let s = JxlDecoderProcessInput(dec)
                switch s {
                case JXL_DEC_ERROR:
                    // After the input was closed with all that was needed read, only trailing
                    // metadata can be at fault: keep what was read.
                    if inputClosed && haveInfo && (haveImage || !pixels) { return false }
                    throw fail(haveInfo ? "the image data is invalid" : "the header is invalid")
                case JXL_DEC_NEED_MORE_INPUT:
                    if pixels && !haveImage || !haveInfo || inputClosed {
                        throw .truncated(detail: "JPEG XL: the data ends before the \(haveInfo ? "image" : "header") does (\(b.count) bytes)")
                    }
                    // Everything needed is read: hand back what is left and close the input so
                    // the boxes after the image finish (or end, when cut off).
                    let left = min(JxlDecoderReleaseInput(dec), b.count)
                    guard JxlDecoderSetInput(dec, base + (b.count - left), left) == JXL_DEC_SUCCESS else { return false }
                    JxlDecoderCloseInput(dec)
                    inputClosed = true
                case JXL_DEC_BASIC_INFO:
                    guard JxlDecoderGetBasicInfo(dec, &info) == JXL_DEC_SUCCESS else { throw fail("unreadable basic info") }
                    haveInfo = true
                    let w = Int(info.xsize), h = Int(info.ysize)
                    guard w > 0, h > 0 else { throw ImageFileError.corrupt(detail: "JPEG XL: the image is \(w)x\(h)") }
                    let isFloat = info.exponent_bits_per_sample > 0
                    let gray = info.num_color_channels == 1
                    let alpha = info.alpha_bits > 0
                    let bits = Int(info.bits_per_sample)
                    result.header = ImageHeader(
                        format: .jxl, width: w, height: h, channels: (gray ? 1 : 3) + (alpha ? 1 : 0),
                        bitDepth: isFloat ? 32 : bits, hasAlpha: alpha, colorModel: gray ? "Gray" : "RGB",
                        orientation: Int(info.orientation.rawValue))
                    if !(1...8).contains(result.header.orientation) { result.header.orientation = 1 }
                    result.header.formatProperties["IsLossless"] = .bool(info.uses_original_profile != 0)
                    if info.have_animation != 0 { result.header.formatProperties["HasAnimation"] = .bool(true) }
                    if pixels {
                        // The smallest sample type this file can decode to: checked now, before
                        // libjxl allocates a frame; the colour encoding may still ask for floats.
                        result.bitDepth = isFloat || bits > 16 ? 32 : bits > 8 ? 16 : 8
                        try checkLimit(result.header, bytesPerSample: result.bitDepth / 8, limits)
                    }
                case JXL_DEC_COLOR_ENCODING:
                    result.header.iccProfile = profile(dec, target: JXL_COLOR_PROFILE_TARGET_ORIGINAL)
                    if pixels {
                        if info.uses_original_profile == 0 && result.header.iccProfile != nil
                            && !isEncodedProfile(dec, target: JXL_COLOR_PROFILE_TARGET_ORIGINAL)
                        {
                            // A lossy file described by an ICC profile: libjxl outputs linear sRGB
                            // (its default), which only floats hold without banding.
                            result.bitDepth = 32
                            try checkLimit(result.header, bytesPerSample: 4, limits)
                            result.dataProfile =
                                profile(dec, target: JXL_COLOR_PROFILE_TARGET_DATA)
                                ?? ColorProfiles.rgbProfile(.sRGB, transfer: .linear, description: "Linear sRGB")
                        } else {
                            result.dataProfile = profile(dec, target: JXL_COLOR_PROFILE_TARGET_DATA)
                        }
                        format.data_type = result.bitDepth == 32 ? JXL_TYPE_FLOAT : result.bitDepth == 16 ? JXL_TYPE_UINT16 : JXL_TYPE_UINT8
                    }
                case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                    return pixels && !haveImage && !bufferSet  // false: a later frame, done
                case JXL_DEC_FULL_IMAGE:
                    haveImage = true  // metadata boxes may still follow
                case JXL_DEC_BOX:
                    box.finish(dec, into: &result.header)
                    var type = [CChar](repeating: 0, count: 4)
                    guard JxlDecoderGetBoxType(dec, &type, 1) == JXL_DEC_SUCCESS else { continue }
                    let name = String(decoding: type.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    if name == "Exif" && result.header.exif == nil || name == "xml " && result.header.xmp == nil {
                        box.start(dec, name: name)
                    }
                case JXL_DEC_BOX_NEED_MORE_OUTPUT:
                    guard box.grow(dec) else {
                        throw ImageFileError.corrupt(detail: "JPEG XL: a metadata box decompresses to more than \(discardLimit >> 20) MiB")
                    }
                case JXL_DEC_SUCCESS:
                    box.finish(dec, into: &result.header)
                    return false
                default:
                    continue
                }
            }
        }

        /// Hands libjxl `out` for the first frame and decodes to the end.
        func fill(_ out: UnsafeMutableRawBufferPointer) throws(ImageFileError) {
            var size = 0
            guard JxlDecoderImageOutBufferSize(dec, &format, &size) == JXL_DEC_SUCCESS else { throw fail("no output size") }
            guard size == out.count else { throw fail("output size \(size) bytes, expected \(out.count)") }
            guard JxlDecoderSetImageOutBuffer(dec, &format, out.baseAddress, size) == JXL_DEC_SUCCESS else {
                throw fail("output buffer refused")
            }
            bufferSet = true
            _ = try pump()
            guard haveImage else { throw .truncated(detail: "JPEG XL: the data ends before the image does (\(b.count) bytes)") }
        }

        let wantsBuffer = try pump()
        guard haveInfo else { throw .truncated(detail: "JPEG XL: the data ends before the header does (\(b.count) bytes)") }
        if pixels {
            guard wantsBuffer else { throw .truncated(detail: "JPEG XL: the data ends before the image does (\(b.count) bytes)") }
            // The decoder writes straight into the arrays handed out (no copy).
            let n = result.header.width * result.header.height * 4
            switch result.bitDepth {
            case 32: result.pixelsF = try makeArray(count: n) { (o: UnsafeMutableBufferPointer<Float>) throws(ImageFileError) in try fill(UnsafeMutableRawBufferPointer(o)) }
            case 16: result.pixels16 = try makeArray(count: n) { (o: UnsafeMutableBufferPointer<UInt16>) throws(ImageFileError) in try fill(UnsafeMutableRawBufferPointer(o)) }
            default: result.pixels = try makeArray(count: n) { (o: UnsafeMutableBufferPointer<UInt8>) throws(ImageFileError) in try fill(UnsafeMutableRawBufferPointer(o)) }
            }
        }
        if let exif = result.header.exif {
            let summary = EXIFSummary(tiff: exif)
            result.header.dpi = summary.dpi
        }
        return result
    }

    static func checkLimit(_ h: ImageHeader, bytesPerSample: Int, _ limits: DecodeLimits) throws(ImageFileError) {
        let limit = limits.pixelLimit(bytesPerPixel: 4 * bytesPerSample)
        let (count, o) = h.width.multipliedReportingOverflow(by: h.height)
        guard !o, count <= limit else { throw .tooLarge(width: h.width, height: h.height, limit: limit) }
    }

    /// Whether the colour of `target` is an enumerated JPEG XL colour space (not an ICC profile).
    static func isEncodedProfile(_ dec: OpaquePointer, target: JxlColorProfileTarget) -> Bool {
        var ce = JxlColorEncoding()
        return JxlDecoderGetColorAsEncodedProfile(dec, nil, target, &ce) == JXL_DEC_SUCCESS
    }

    /// The ICC profile of `target`, nil for sRGB (enumerated, or grey with the sRGB curve):
    /// untagged means sRGB everywhere else in the package. Enumerated Display P3 reads as the
    /// package's Display P3 profile, so it is named (and kept) as P3 files in other formats are.
    static func profile(_ dec: OpaquePointer, target: JxlColorProfileTarget) -> Data? {
        var ce = JxlColorEncoding()
        if JxlDecoderGetColorAsEncodedProfile(dec, nil, target, &ce) == JXL_DEC_SUCCESS,
            ce.white_point == JXL_WHITE_POINT_D65, ce.transfer_function == JXL_TRANSFER_FUNCTION_SRGB
        {
            if ce.color_space == JXL_COLOR_SPACE_GRAY || (ce.color_space == JXL_COLOR_SPACE_RGB && ce.primaries == JXL_PRIMARIES_SRGB) {
                return nil
            }
            if ce.color_space == JXL_COLOR_SPACE_RGB && ce.primaries == JXL_PRIMARIES_P3, let p3 = ColorProfiles.displayP3 { return p3 }
        }
        var size = 0
        guard JxlDecoderGetICCProfileSize(dec, nil, target, &size) == JXL_DEC_SUCCESS, size > 0, size < 64 << 20 else { return nil }
        var icc = Data(count: size)
        let ok = icc.withUnsafeMutableBytes {
            JxlDecoderGetColorAsICCProfile(dec, nil, target, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), size)
        }
        return ok == JXL_DEC_SUCCESS ? icc : nil
    }

    /// Collects one metadata box through libjxl's box buffer, growing it as asked.
    struct BoxReader {
        var name = ""
        var bytes: [UInt8] = []
        var filled = 0
        var active = false
        /// Past `metadataLimit`: the rest of the box goes to a scratch buffer and is dropped.
        var discarding = false
        var discarded = 0

        mutating func start(_ dec: OpaquePointer, name: String) {
            self.name = name
            bytes = [UInt8](repeating: 0, count: 4096)
            filled = 0
            discarding = false
            discarded = 0
            active = true
            set(dec)
        }

        /// Hands libjxl the unfilled part of the buffer.
        mutating func set(_ dec: OpaquePointer) {
            let start = filled
            let count = bytes.count - start
            let ok = bytes.withUnsafeMutableBufferPointer { JxlDecoderSetBoxBuffer(dec, $0.baseAddress! + start, count) }
            if ok != JXL_DEC_SUCCESS { active = false }
        }

        /// More room for the current box; false when it has decompressed past `discardLimit`.
        mutating func grow(_ dec: OpaquePointer) -> Bool {
            guard active else { return false }
            let left = JxlDecoderReleaseBoxBuffer(dec)
            if discarding {
                discarded += bytes.count - left
                guard discarded <= JXLCodec.discardLimit else { return false }
                filled = 0
            } else {
                filled = bytes.count - left
                if bytes.count * 2 > JXLCodec.metadataLimit {
                    discarding = true
                    discarded = filled
                    filled = 0
                } else {
                    bytes.append(contentsOf: [UInt8](repeating: 0, count: bytes.count))
                }
            }
            set(dec)
            return true
        }

        /// Ends the current box, storing it in `header` when it was kept whole.
        mutating func finish(_ dec: OpaquePointer, into header: inout ImageHeader) {
            guard active else { return }
            active = false
            let left = JxlDecoderReleaseBoxBuffer(dec)
            guard !discarding else { return }
            filled = bytes.count - left
            let data = Data(bytes[0..<filled])
            if name == "Exif" {
                // A 4-byte offset to the TIFF header, then the TIFF-structured block.
                guard data.count > 4 else { return }
                let offset = Int(data[0]) << 24 | Int(data[1]) << 16 | Int(data[2]) << 8 | Int(data[3])
                guard offset >= 0, offset < data.count - 4 else { return }
                let tiff = Data(data[(4 + offset)...])
                header.exif = tiff
            } else if !data.isEmpty {
                header.xmp = data
            }
        }
    }

    // MARK: - Encoding

    /// How the samples handed to `encode` are stored.
    enum Samples { case u8, u16, f32 }

    /// cjxl's quality -> Butteraugli distance mapping (quality 90 -> distance 1, "visually lossless").
    static func distance(quality: Double) -> Float {
        let q = min(max(quality, 0), 1) * 100
        let d = q >= 30 ? 0.1 + (100 - q) * 0.09 : 6.4 + pow(2.5, (30 - q) / 5) / 6.25
        return Float(min(max(d, 0.1), 25))
    }

    /// Encodes RGBA rows (`samples` says their type; 16-bit native endian; floats sRGB-encoded,
    /// 1.0 white, NaN and infinities replaced). Grey with `options.grayscale` (green samples).
    static func encode(
        _ rgba: UnsafeRawBufferPointer, samples: Samples, width: Int, height: Int, hasAlpha: Bool, options: EncodeOptions
    ) throws(ImageFileError) -> Data {
        guard options.quality >= 0, options.quality <= 1 else {
            throw .invalidArgument("quality must be in 0...1, got \(options.quality)")
        }
        guard width <= 1 << 30, height <= 1 << 30 else {
            throw .invalidArgument("JPEG XL width and height must be at most 2^30, got \(width)x\(height)")
        }
        guard (1...8).contains(options.orientation) else {
            throw .invalidArgument("JPEG XL orientation must be 1...8, got \(options.orientation)")
        }
        if let effort = options.effort, !(0...9).contains(effort) {
            throw .invalidArgument("JPEG XL effort must be 0...9, got \(effort)")
        }
        try DeferredLibraries.load(CY_LIBRARY_JXL, CY_LIBRARY_JXL_THREADS)
        guard let enc = JxlEncoderCreate(nil) else { throw .encodeFailed(detail: "JPEG XL: cannot create an encoder") }
        defer { JxlEncoderDestroy(enc) }
        let runner = JxlThreadParallelRunnerCreate(nil, threads)
        defer { if let runner { JxlThreadParallelRunnerDestroy(runner) } }
        if let runner { _ = JxlEncoderSetParallelRunner(enc, JxlThreadParallelRunner, runner) }

        func check(_ s: JxlEncoderStatus, _ what: String) throws(ImageFileError) {
            guard s == JXL_ENC_SUCCESS else {
                throw .encodeFailed(detail: "JPEG XL \(what): libjxl error \(JxlEncoderGetError(enc).rawValue)")
            }
        }
        let exif = options.exif.flatMap { $0.isEmpty ? nil : $0 }
        let xmp = options.xmp.flatMap { $0.isEmpty ? nil : $0 }
        if exif != nil || xmp != nil {
            try check(JxlEncoderUseContainer(enc, 1), "container")
            try check(JxlEncoderUseBoxes(enc), "boxes")
        }
        let bits: UInt32 = samples == .u8 ? 8 : samples == .u16 ? 16 : 32
        let grey = options.grayscale
        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(width)
        info.ysize = UInt32(height)
        info.bits_per_sample = bits
        info.exponent_bits_per_sample = samples == .f32 ? 8 : 0
        info.num_color_channels = grey ? 1 : 3
        info.num_extra_channels = hasAlpha ? 1 : 0
        info.alpha_bits = hasAlpha ? bits : 0
        info.alpha_exponent_bits = hasAlpha && samples == .f32 ? 8 : 0
        info.uses_original_profile = options.lossless ? 1 : 0
        info.orientation = JxlOrientation(rawValue: UInt32(options.orientation))
        try check(JxlEncoderSetBasicInfo(enc, &info), "basic info")
        if let icc = options.iccProfile, !icc.isEmpty, !grey, ColorProfiles.isDisplayP3(icc) {
            // Display P3 is one of JPEG XL's enumerated spaces: written as such, a lossy file
            // decodes back to P3 values (an ICC-described one decodes to linear sRGB).
            var ce = JxlColorEncoding()
            JxlColorEncodingSetToSRGB(&ce, 0)
            ce.primaries = JXL_PRIMARIES_P3
            try check(JxlEncoderSetColorEncoding(enc, &ce), "colour encoding")
        } else if let icc = options.iccProfile, !icc.isEmpty {
            let s = icc.withUnsafeBytes { JxlEncoderSetICCProfile(enc, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), $0.count) }
            try check(s, "ICC profile")
        } else {
            var ce = JxlColorEncoding()
            JxlColorEncodingSetToSRGB(&ce, grey ? 1 : 0)
            try check(JxlEncoderSetColorEncoding(enc, &ce), "colour encoding")
        }
        if let exif {
            var box = Data([0, 0, 0, 0])
            box.append(exif)
            let s = box.withUnsafeBytes { JxlEncoderAddBox(enc, "Exif", $0.baseAddress!.assumingMemoryBound(to: UInt8.self), $0.count, 0) }
            try check(s, "Exif box")
        }
        if let xmp {
            let s = xmp.withUnsafeBytes { JxlEncoderAddBox(enc, "xml ", $0.baseAddress!.assumingMemoryBound(to: UInt8.self), $0.count, 0) }
            try check(s, "xml box")
        }
        if exif != nil || xmp != nil { JxlEncoderCloseBoxes(enc) }

        guard let settings = JxlEncoderFrameSettingsCreate(enc, nil) else { throw .encodeFailed(detail: "JPEG XL: no frame settings") }
        if options.lossless {
            try check(JxlEncoderSetFrameLossless(settings, 1), "lossless")
        } else {
            try check(JxlEncoderSetFrameDistance(settings, distance(quality: options.quality)), "distance")
        }
        if let effort = options.effort {
            try check(JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, Int64(max(1, effort))), "effort")
        }

        // Repack to the channels written: grey (+alpha) or RGB (+alpha).
        let channels = (grey ? 1 : 3) + (hasAlpha ? 1 : 0)
        let bytesPerSample = Int(bits / 8)
        let count = width * height
        var packed = [UInt8](repeating: 0, count: count * channels * bytesPerSample)
        packed.withUnsafeMutableBytes { dst in
            func repack<T>(_: T.Type, sanitize: (T) -> T) {
                let s = rgba.baseAddress!.assumingMemoryBound(to: T.self)
                let d = dst.baseAddress!.assumingMemoryBound(to: T.self)
                var o = 0
                for i in 0..<count {
                    if grey {
                        d[o] = sanitize(s[4 * i + 1]); o += 1
                    } else {
                        d[o] = sanitize(s[4 * i]); d[o + 1] = sanitize(s[4 * i + 1]); d[o + 2] = sanitize(s[4 * i + 2]); o += 3
                    }
                    if hasAlpha { d[o] = sanitize(s[4 * i + 3]); o += 1 }
                }
            }
            switch samples {
            case .u8: repack(UInt8.self) { $0 }
            case .u16: repack(UInt16.self) { $0 }
            case .f32: repack(Float.self) { $0.isNaN ? 0 : min(max($0, -65504), 65504) }
            }
        }
        let dataType = samples == .u8 ? JXL_TYPE_UINT8 : samples == .u16 ? JXL_TYPE_UINT16 : JXL_TYPE_FLOAT
        var format = JxlPixelFormat(num_channels: UInt32(channels), data_type: dataType, endianness: JXL_NATIVE_ENDIAN, align: 0)
        let added = packed.withUnsafeBytes { JxlEncoderAddImageFrame(settings, &format, $0.baseAddress, $0.count) }
        try check(added, "image")
        JxlEncoderCloseInput(enc)

        var out = [UInt8](repeating: 0, count: max(4096, min(count * channels * bytesPerSample / 4, 64 << 20)))
        var used = 0
        while true {
            var next: UnsafeMutablePointer<UInt8>? = nil
            var avail = 0
            let s: JxlEncoderStatus = out.withUnsafeMutableBufferPointer { buf in
                next = buf.baseAddress! + used
                avail = buf.count - used
                let s = JxlEncoderProcessOutput(enc, &next, &avail)
                used = buf.count - avail
                return s
            }
            if s == JXL_ENC_SUCCESS { break }
            guard s == JXL_ENC_NEED_MORE_OUTPUT else { try check(s, "encoding"); break }
            out.append(contentsOf: [UInt8](repeating: 0, count: out.count))
        }
        return Data(out[0..<used])
    }
}
