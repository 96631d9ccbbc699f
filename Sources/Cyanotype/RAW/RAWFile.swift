internal import CLibRawShim
internal import CyanotypeCodecs
import Foundation

/// Why a RAW camera file could not be read or developed.
public enum RAWError: Error, CustomStringConvertible, Sendable {
    /// LibRaw (Debian's `libraw20`) could not be loaded; the loader's sentence says why.
    case libraryUnavailable(String)
    /// The bytes are not a RAW file LibRaw reads.
    case notRAW(String)
    /// The file is damaged, truncated or too large; LibRaw's reason in the user's terms.
    case developFailed(String)

    /// A message a user can act on.
    public var description: String {
        switch self {
        case .libraryUnavailable(let m): return m
        case .notRAW(let m): return m
        case .developFailed(let m): return m
        }
    }
}

/// Cyanotype: the `{CyanotypeRAW}` dictionary of a RAW file's properties: Camera, the
/// native and sensor sizes, the as-shot white balance (multipliers, temperature, tint) and the
/// decoder (LibRaw's version).
public let kCyanotypePropertyRAW = "{CyanotypeRAW}"

/// How LibRaw develops a file: the settings `CIRAWFilter`'s controls come down to.
struct RAWDevelopSettings: Sendable, Hashable {
    /// Half-size decoding (draft mode, downscaled renders).
    var halfSize = false
    /// LibRaw's demosaic: 3 AHD (the default, as LibRaw's tools), 11 DHT, 12 AAHD, 0 bilinear.
    var quality: Int32 = 3
    /// White balance multipliers (R, G, B) in place of the file's as-shot ones; nil: as shot.
    var multipliers: SIMD3<Float>? = nil
    /// LibRaw's grey-world white balance.
    var automaticWhiteBalance = false
    /// Wavelet denoising threshold (LibRaw's -n; 0 none) and median passes (LibRaw's -m).
    var denoiseThreshold: Float = 0
    var medianPasses: Int32 = 0
    /// With AHD on a 2x2 Bayer sensor: Cyanotype's tiled AHD on all cores (CLibRawShim's
    /// ahd.c) in place of LibRaw's single-threaded one; false: LibRaw's own.
    var ownDemosaic = true
    /// The colour stages folded into the develop (nil: LibRaw's linear output as it is).
    var finish: RAWFinish? = nil
}

/// What LibRaw developed, owned until the last bitmap reading it goes: LibRaw's own working
/// image (16-bit RGBA once finished in place, read without a copy) or its output copy.
private final class RAWPixels: ContiguousBytes, @unchecked Sendable {
    private let image: cy_raw_image

    init(_ image: cy_raw_image) { self.image = image }
    deinit {
        var owned = image
        cy_raw_image_release(&owned)
    }

    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: image.data, count: image.length))
    }

    /// Rows [row0, row1) turned into RGBA in place (bands write disjoint rows).
    func finishInPlace(_ row0: Int32, _ row1: Int32, _ tables: UnsafePointer<UInt16>?) {
        withUnsafePointer(to: image) { cy_raw_finish_in_place($0, row0, row1, tables) }
    }

    /// Rows [row0, row1) copied as RGBA into `out` (the whole image's words).
    func copy(to out: UnsafeMutablePointer<UInt16>, _ row0: Int32, _ row1: Int32, _ tables: UnsafePointer<UInt16>?) {
        withUnsafePointer(to: image) { cy_raw_to_rgba16($0, out, row0, row1, tables) }
    }
}

/// The developed pixels, the words they are copied into (nil: in place) and the finish's
/// tables, shared by the bands of the copy (each band writes its own rows).
private struct RAWRows: @unchecked Sendable {
    let pixels: RAWPixels
    let out: UnsafeMutablePointer<UInt16>?
    /// The finish's tables, or nil.
    let tables: UnsafePointer<UInt16>?
}

/// The shim's parallel loop: Cyanotype's executor running the C body.
private let rawParallelFor: cy_parallel_for = { count, body, context in
    let call = RAWParallelBody(body: body, context: context)
    Executor.shared.parallelFor(Int(count)) { i in call.body?(call.context, Int32(i)) }
}

/// A C loop body and its context, handed to the executor's threads (the body makes its own
/// tiles' writes disjoint).
private struct RAWParallelBody: @unchecked Sendable {
    let body: cy_parallel_body?
    let context: UnsafeMutableRawPointer?
}

/// A RAW camera file read far enough to know what it is; developing it reads it again.
struct RAWFile: Sendable {
    /// Where the bytes are: a file LibRaw reads itself, or bytes in memory.
    enum Source: Sendable {
        case path(String)
        case data(Data)
    }
    let source: Source
    let info: cy_raw_info
    /// The name for messages.
    let name: String

    /// Reads the metadata of a RAW file (no pixels).
    init(_ source: Source, name: String) throws(RAWError) {
        self.source = source
        self.name = name
        var info = cy_raw_info()
        var message = [CChar](repeating: 0, count: 400)
        let status: Int32 = RAWFile.withSource(source) { path, bytes, count in
            cy_raw_identify(path, bytes, count, &info, &message, message.count)
        }
        guard status == 0 else { throw RAWFile.error(message) }
        guard info.width > 0, info.height > 0 else { throw .notRAW("LibRaw found no image in the file") }
        self.info = info
    }

    private static func withSource<R>(
        _ source: Source, _ body: (UnsafePointer<CChar>?, UnsafeRawPointer?, Int) -> R
    ) -> R {
        switch source {
        case .path(let p): return p.withCString { body($0, nil, 0) }
        case .data(let d): return d.withUnsafeBytes { body(nil, $0.baseAddress, $0.count) }
        }
    }

    private static func text(_ message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func error(_ message: [CChar]) -> RAWError {
        let m = text(message)
        if m.contains("could not be loaded") || m.contains("lacks") { return .libraryUnavailable(m) }
        if m.hasPrefix("not a RAW file") { return .notRAW(m) }
        return .developFailed(m)
    }

    private static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    // MARK: What the file says

    /// The developed size before orientation.
    var width: Int { Int(info.width) }
    var height: Int { Int(info.height) }
    var make: String { RAWFile.string(info.make) }
    var model: String { RAWFile.string(info.model) }
    var lens: String { RAWFile.string(info.lens) }
    var software: String { RAWFile.string(info.software) }
    /// EXIF orientation (1...8) from LibRaw's flip.
    var exifOrientation: Int {
        switch info.flip {
        case 3: return 3
        case 5: return 8
        case 6: return 6
        default: return 1
        }
    }
    /// The DNG BaselineExposure (EV).
    var baselineExposure: Float { info.baseline_exposure }
    /// The as-shot white balance multipliers (R, G, B), green 1.
    var asShotMultipliers: SIMD3<Float> {
        let m = info.cam_mul
        guard m.1 > 0, m.0 > 0, m.2 > 0 else { return SIMD3(1, 1, 1) }
        return SIMD3(m.0 / m.1, 1, m.2 / m.1)
    }
    /// XYZ -> camera RGB (3x3, rows per camera channel).
    var cameraFromXYZ: [SIMD3<Float>] {
        let c = info.cam_xyz
        return [SIMD3(c.0.0, c.0.1, c.0.2), SIMD3(c.1.0, c.1.1, c.1.2), SIMD3(c.2.0, c.2.1, c.2.2)]
    }
    /// Whether the sensor is a 3-colour mosaic (Bayer) LibRaw develops with white balance in
    /// camera RGB, so temperature and tint can be turned into multipliers.
    var hasColorMatrix: Bool { info.colors == 3 && cameraFromXYZ.contains { $0 != .zero } }
    var isDNG: Bool { info.dng_version != 0 }
    /// The DNG version as Image I/O lists it ([1, 4, 0, 0]).
    var dngVersion: [Int] {
        let v = info.dng_version
        return [Int(v >> 24 & 0xff), Int(v >> 16 & 0xff), Int(v >> 8 & 0xff), Int(v & 0xff)]
    }
    var hasPreview: Bool { info.thumb_length > 0 && info.thumb_width > 0 }
    var previewSize: (width: Int, height: Int) { (Int(info.thumb_width), Int(info.thumb_height)) }

    /// Image I/O's dictionary for the file: PixelWidth/Height (oriented as stored),
    /// Orientation, `{TIFF}`, `{Exif}` and, for DNGs, `{DNG}`.
    var properties: [String: Any] {
        var tiff: [String: Any] = [kCGImagePropertyTIFFOrientation: exifOrientation]
        if !make.isEmpty { tiff[kCGImagePropertyTIFFMake] = make }
        if !model.isEmpty { tiff[kCGImagePropertyTIFFModel] = model }
        if !software.isEmpty { tiff[kCGImagePropertyTIFFSoftware] = software }
        var exif: [String: Any] = [
            kCGImagePropertyExifPixelXDimension: width, kCGImagePropertyExifPixelYDimension: height,
        ]
        if info.iso > 0 { exif[kCGImagePropertyExifISOSpeedRatings] = [Int(info.iso.rounded())] }
        if info.shutter > 0 { exif[kCGImagePropertyExifExposureTime] = Double(info.shutter) }
        if info.aperture > 0 { exif[kCGImagePropertyExifFNumber] = Double(info.aperture) }
        if info.focal_length > 0 { exif[kCGImagePropertyExifFocalLength] = Double(info.focal_length) }
        if !lens.isEmpty { exif[kCGImagePropertyExifLensModel] = lens }
        if info.timestamp > 0 {
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_US_POSIX")
            f.timeZone = TimeZone(identifier: "UTC")
            f.dateFormat = "yyyy:MM:dd HH:mm:ss"
            exif[kCGImagePropertyExifDateTimeOriginal] = f.string(from: Date(timeIntervalSince1970: TimeInterval(info.timestamp)))
        }
        var p: [String: Any] = [
            kCGImagePropertyPixelWidth: width, kCGImagePropertyPixelHeight: height, kCGImagePropertyDepth: 16,
            kCGImagePropertyOrientation: exifOrientation, kCGImagePropertyColorModel: kCGImagePropertyColorModelRGB,
            kCGImagePropertyTIFFDictionary: tiff, kCGImagePropertyExifDictionary: exif,
        ]
        if isDNG {
            p[kCGImagePropertyDNGDictionary] =
                [
                    kCGImagePropertyDNGVersion: dngVersion, kCGImagePropertyDNGBaselineExposure: Double(baselineExposure),
                    kCGImagePropertyDNGUniqueCameraModel: "\(make) \(model)",
                ] as [String: Any]
        }
        var raw: [String: Any] = [
            "Camera": [make, model].filter { !$0.isEmpty }.joined(separator: " "),
            "NativeWidth": width, "NativeHeight": height, "SensorWidth": Int(info.raw_width), "SensorHeight": Int(info.raw_height),
            "WhiteBalanceMultipliers": [asShotMultipliers.x, asShotMultipliers.y, asShotMultipliers.z].map(Double.init),
        ]
        if let (t, tint) = RAWWhiteBalance.temperatureAndTint(multipliers: asShotMultipliers, file: self) {
            raw["WhiteBalanceTemperature"] = t.rounded()
            raw["WhiteBalanceTint"] = (tint * 10).rounded() / 10
        }
        if let v = RAWFile.libraryVersion { raw["Decoder"] = "LibRaw \(v)" }
        p[kCyanotypePropertyRAW] = raw
        p[kCyanotypePropertyFileFormat] = "raw"
        return p
    }

    // MARK: Developing

    /// Develops the file with LibRaw into linear sRGB (scene-referred, white balanced, the
    /// camera's matrix applied; highlights clipped to white), as a 16-bit bitmap source.
    func develop(_ s: RAWDevelopSettings, maxPixels: Int) throws(RAWError) -> RecipeNode {
        var o = cy_raw_develop_options()
        o.half_size = s.halfSize ? 1 : 0
        o.quality = s.quality
        if let m = s.multipliers {
            o.user_mul = (m.x, m.y, m.z, m.y)
            o.use_camera_wb = 0
        } else {
            o.use_camera_wb = s.automaticWhiteBalance ? 0 : 1
        }
        o.use_auto_wb = s.automaticWhiteBalance ? 1 : 0
        o.output_color = 1
        o.highlight = 0
        o.threshold = s.denoiseThreshold
        o.med_passes = s.medianPasses
        o.own_demosaic = s.ownDemosaic ? 1 : 0
        o.parallel = rawParallelFor
        o.workers = Int32(Executor.shared.width)
        var image = cy_raw_image()
        var message = [CChar](repeating: 0, count: 400)
        let status: Int32 = RAWFile.withSource(source) { path, bytes, count in
            cy_raw_develop(path, bytes, count, &o, Int64(maxPixels), &image, &message, message.count)
        }
        guard status == 0 else { throw RAWFile.error(message) }
        let pixels = RAWPixels(image)
        let w = Int(image.width), h = Int(image.height), channels = Int(image.colors)
        guard image.type == 2 || image.type == 3, image.bits == 16, channels == 3, w > 0, h > 0, image.length >= w * h * 6,
            image.data != nil
        else { throw .developFailed("LibRaw returned an image Cyanotype cannot use (\(channels) channels, \(image.bits) bits)") }
        // 16-bit linear RGB -> 16-bit RGBA in linear sRGB (LibRaw's precision, half a float
        // bitmap's memory), through the finish's tables, in bands on all cores: in place in
        // LibRaw's own working image when it is the result (no copy), else into new words.
        let tables = s.finish?.tables() ?? []
        let band = 256, bands = (h + band - 1) / band
        let data: any ContiguousBytes & Sendable
        if image.type == 3 {
            tables.withUnsafeBufferPointer { t in
                let rows = RAWRows(pixels: pixels, out: nil, tables: tables.isEmpty ? nil : t.baseAddress)
                Executor.shared.parallelFor(bands) { i in
                    rows.pixels.finishInPlace(Int32(i * band), Int32(min(h, (i + 1) * band)), rows.tables)
                }
            }
            data = pixels
        } else {
            data = SampleWords(
                words: [UInt16](unsafeUninitializedCapacity: w * h * 4) { buffer, count in
                    tables.withUnsafeBufferPointer { t in
                        let rows = RAWRows(pixels: pixels, out: buffer.baseAddress!, tables: tables.isEmpty ? nil : t.baseAddress)
                        Executor.shared.parallelFor(bands) { i in
                            rows.pixels.copy(to: rows.out!, Int32(i * band), Int32(min(h, (i + 1) * band)), rows.tables)
                        }
                    }
                    count = w * h * 4
                })
        }
        guard
            let node = BitmapNode(
                data: data, bytesPerRow: w * 8, width: w, height: h, format: .RGBA16, colorSpace: .extendedLinearSRGBSpace,
                premultiplied: false)
        else { throw .developFailed("developed \(w)x\(h) without pixels") }
        return node
    }

    /// The embedded preview as encoded JPEG bytes, or nil when the file has none LibRaw reads
    /// as a JPEG.
    func previewJPEG() -> Data? {
        guard hasPreview else { return nil }
        var image = cy_raw_image()
        var message = [CChar](repeating: 0, count: 400)
        let status: Int32 = RAWFile.withSource(source) { path, bytes, count in
            cy_raw_preview(path, bytes, count, &image, &message, message.count)
        }
        guard status == 0 else { return nil }
        defer { cy_raw_image_release(&image) }
        guard image.type == 1, let data = image.data, image.length > 0 else { return nil }
        return Data(bytes: data, count: Int(image.length))
    }

    /// LibRaw's version ("0.20.2-Release"), nil when LibRaw cannot be loaded.
    static var libraryVersion: String? { cy_raw_version().map { String(cString: $0) } }

    /// The camera models LibRaw knows.
    static var cameraModels: [String] {
        (0..<Int(cy_raw_camera_count())).compactMap { cy_raw_camera(Int32($0)).map { String(cString: $0) } }
    }

    // MARK: Recognising RAW files by content

    /// Whether `data` is a RAW camera file (by its bytes, not its name): TIFF-based RAWs (DNG
    /// by its DNGVersion tag, CR2 by its marker, NEF/ARW/PEF/SRW/... by a camera maker in IFD0
    /// with CFA data) and the formats with their own magic (CR3, RAF, ORF, RW2, CRW, MRW, X3F).
    /// An ordinary TIFF is not a RAW file.
    static func isRAW(_ data: Data) -> Bool {
        data.withUnsafeBytes { isRAW(bytes: $0) }
    }

    static func isRAW(bytes b: UnsafeRawBufferPointer) -> Bool {
        guard b.count >= 16 else { return false }
        func at(_ offset: Int, _ text: String) -> Bool {
            let t = Array(text.utf8)
            return b.count >= offset + t.count && zip(b[offset..<offset + t.count], t).allSatisfy { $0 == $1 }
        }
        if at(4, "ftypcrx ") || at(0, "FUJIFILMCCD-RAW") || at(0, "FOVb") || at(0, "\0MRM") || at(6, "HEAPCCDR") { return true }
        if at(0, "IIRO") || at(0, "IIRS") || at(0, "MMOR") || at(0, "IIU\0") { return true }
        guard at(0, "II*\0") || at(0, "MM\0*") else { return false }
        if at(8, "CR") { return true }
        let little = b[0] == 0x49
        func u16(_ o: Int) -> Int {
            guard o >= 0, o + 2 <= b.count else { return 0 }
            return little ? Int(b[o]) | Int(b[o + 1]) << 8 : Int(b[o]) << 8 | Int(b[o + 1])
        }
        func u32(_ o: Int) -> Int {
            guard o >= 0, o + 4 <= b.count else { return 0 }
            return little ? u16(o) | u16(o + 2) << 16 : u16(o) << 16 | u16(o + 2)
        }
        let ifd = u32(4)
        let count = u16(ifd)
        guard ifd >= 8, count > 0, ifd + 2 + count * 12 <= b.count else { return false }
        var make = ""
        var hasSubIFDs = false
        for i in 0..<count {
            let e = ifd + 2 + i * 12
            switch u16(e) {
            case 50706: return true  // DNGVersion
            case 330: hasSubIFDs = true
            case 271:
                let n = min(u32(e + 4), 64)
                let o = n <= 4 ? e + 8 : u32(e + 8)
                if o >= 0, o + n <= b.count { make = String(decoding: b[o..<o + n].prefix { $0 != 0 }, as: UTF8.self) }
            default: break
            }
        }
        // Camera makers' TIFF-based RAWs keep the raw image in a sub-directory (IFD0 is the
        // preview): a plain TIFF from a scanner or an editor has neither.
        let makers = ["NIKON", "SONY", "PENTAX", "RICOH", "SAMSUNG", "Canon", "OLYMPUS", "Panasonic", "LEICA", "Hasselblad", "Phase One", "Leaf", "KODAK"]
        return hasSubIFDs && makers.contains { make.uppercased().hasPrefix($0.uppercased()) }
    }
}
