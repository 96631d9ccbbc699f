#if !canImport(CoreGraphics)
internal import CyanotypeCodecs
import Foundation

/// The status of an image source (Image I/O's `CGImageSourceStatus`).
public enum CGImageSourceStatus: Int32, Sendable {
    /// The data ends before the image does (a truncated file).
    case statusUnexpectedEOF = -5
    /// The data is damaged or not valid for its format.
    case statusInvalidData = -4
    /// The data is empty or not an image format that can be read.
    case statusUnknownType = -3
    /// Image I/O: the header is still being read (incremental loading; never reported here).
    case statusReadingHeader = -2
    /// Image I/O: more data is needed (incremental loading; never reported here).
    case statusIncomplete = -1
    /// The data was read without error.
    case statusComplete = 0
}

/// Image I/O's image source: the images (frames of an animation, pages of a TIFF, or the one
/// image of any other file) in a file or in memory, with their properties.
///
/// Frames come out composited as a viewer shows them (GIF and APNG disposal and blending,
/// WebP through libwebp). They are decoded in order and only the latest canvas is kept, so
/// reading frames 0, 1, 2, ... costs one decode each; asking for an earlier frame decodes
/// from the first again. Thread-safe (one lock per source).
public final class CGImageSource: @unchecked Sendable {
    let data: Data
    /// The file's name for error messages, when it came from a file.
    let path: String?
    let limits: DecodeLimits
    let strict: Bool
    private let lock = NSLock()
    private var decoder: FrameDecoder?
    private var failure: ImageIOError?

    init(data: Data, path: String?, options: [String: Any]) {
        self.data = data
        self.path = path
        limits = ((options[kCyanotypeImageSourceDecodeLimits] as? DecodeLimits) ?? .default)
        strict = !(OptionValue.flag(options[kCyanotypeImageSourceLenientDecoding]) ?? false)
    }

    /// The frame table, read on first use; nil (and `error` set) when the bytes are not an
    /// image Cyanotype reads.
    private func opened() -> FrameDecoder? {
        if let decoder { return decoder }
        if failure != nil { return nil }
        do {
            decoder = try FrameDecoder(data: data, limits: limits, strict: strict)
        } catch {
            failure = .codec(path: path, error)
        }
        return decoder
    }

    /// Cyanotype: why the source (or its last image) could not be read, naming the file.
    public var error: ImageIOError? {
        lock.lock(); defer { lock.unlock() }
        _ = opened()
        return failure
    }

    /// The number of images (frames or pages); 0 when the data is not readable.
    public var count: Int {
        if isRAW { return rawFilter() == nil ? 0 : 1 }
        lock.lock(); defer { lock.unlock() }
        return opened()?.sequence.frameCount ?? 0
    }

    /// The file's format, nil when unreadable.
    public var format: ImageFileFormat? {
        lock.lock(); defer { lock.unlock() }
        return opened().map { $0.sequence.format }
    }

    /// Cyanotype: frame `index`, composited, as decoded pixels; throws a typed error naming the
    /// file.
    func decodedFrame(_ index: Int) throws(ImageIOError) -> (DecodedBitmap, FrameSequence) {
        lock.lock(); defer { lock.unlock() }
        guard let d = opened() else { throw failure ?? .codec(path: path, .empty) }
        do {
            return (try d.frame(at: index), d.sequence)
        } catch {
            let e = ImageIOError.codec(path: path, error)
            failure = e
            throw e
        }
    }

    /// Cyanotype: frame `index` as a `CGImage` (8-bit RGBA with straight alpha; 16-bit or
    /// float for such TIFF pages and 16-bit APNGs), throwing a typed error naming the file.
    public func createImage(at index: Int) throws(ImageIOError) -> CGImage {
        if let raw = try rawCGImage(at: index) { return raw }
        let (b, _) = try decodedFrame(index)
        return CGImage(decoded: b)
    }

    /// The frame table; nil when unreadable.
    func sequence() -> FrameSequence? {
        lock.lock(); defer { lock.unlock() }
        return opened()?.sequence
    }

    /// Container properties (Image I/O's `CGImageSourceCopyProperties`).
    func properties() -> [String: Any] {
        var p: [String: Any] = [kCGImagePropertyFileSize: data.count]
        guard let seq = sequence() else { return p }
        p[kCyanotypePropertyFrameCount] = seq.frameCount
        if let key = ImageIOProperties.dictionaryKey(seq) {
            var d: [String: Any] = [
                kCGImagePropertyGIFCanvasPixelWidth: seq.canvasWidth, kCGImagePropertyGIFCanvasPixelHeight: seq.canvasHeight,
                kCGImagePropertyGIFFrameInfoArray: seq.frames.map { ImageIOProperties.timing($0.delay) },
            ]
            if let loops = seq.loopCount { d[kCGImagePropertyGIFLoopCount] = loops }
            if seq.format == .gif { d[kCGImagePropertyGIFHasGlobalColorMap] = seq.hasGlobalColorMap }
            p[key] = d
        }
        return p
    }

    /// Frame `index`'s properties (Image I/O's `CGImageSourceCopyPropertiesAtIndex`): the
    /// dictionary `ImageFileProperties` gives for a file, with the frame's timing; with
    /// `raw`, as `CIImage.properties` has them (the raw EXIF and XMP an encoder writes back).
    func properties(at index: Int, raw: Bool = false) -> [String: Any]? {
        if isRAW { return index == 0 ? rawFilter()?.file.properties : nil }
        guard let seq = sequence(), index >= 0, index < seq.frameCount else { return nil }
        return ImageIOProperties.frame(seq, index, raw: raw)
    }
}

/// Building Image I/O's property dictionaries from a frame table.
enum ImageIOProperties {
    /// `{GIF}`, `{PNG}` or `{WebP}` for animations; nil for TIFF and still images.
    static func dictionaryKey(_ seq: FrameSequence) -> String? {
        guard seq.isAnimation else { return nil }
        switch seq.format {
        case .gif: return kCGImagePropertyGIFDictionary
        case .png: return kCGImagePropertyPNGDictionary
        case .webp: return kCGImagePropertyWebPDictionary
        default: return nil
        }
    }

    /// Delay times: clamped to 0.1 s at least (Apple's documented rule), and as stored.
    static func timing(_ delay: Double) -> [String: Any] {
        [kCGImagePropertyGIFDelayTime: max(delay, 0.1), kCGImagePropertyGIFUnclampedDelayTime: delay]
    }

    /// A frame's properties: the file's (or the page's) keys, built as for any image file
    /// (`ImageFileProperties.dictionary(for:)`; with `raw`, `CIImage.properties(of:)`, which
    /// adds the file format and the raw EXIF and XMP), and for animations the frame's timing,
    /// rectangle, disposal and blending added to the format's dictionary (an APNG's `{PNG}`
    /// keeps the file's own keys).
    static func frame(_ seq: FrameSequence, _ index: Int, raw: Bool) -> [String: Any] {
        var header = seq.header(at: index)
        if seq.isAnimation {
            header.width = seq.canvasWidth
            header.height = seq.canvasHeight
        }
        var p = raw ? CIImage.properties(of: header) : ImageFileProperties.dictionary(for: header)
        if let key = dictionaryKey(seq) {
            let f = seq.frames[index]
            var d = p[key] as? [String: Any] ?? [:]
            for (k, v) in timing(f.delay) { d[k] = v }
            d[kCyanotypePropertyFrameRect] = CGRect(x: f.x, y: f.y, width: f.width, height: f.height)
            d[kCyanotypePropertyFrameDisposal] = f.disposal.rawValue
            d[kCyanotypePropertyFrameBlend] = f.blend.rawValue
            if let loops = seq.loopCount { d[kCGImagePropertyGIFLoopCount] = loops }
            p[key] = d
        }
        return p
    }

    /// The uniform type identifier of a format.
    static func typeIdentifier(_ f: ImageFileFormat) -> String {
        f.typeIdentifier
    }
}

extension ImageFileFormat {
    /// The format's uniform type identifier, as Image I/O names it (`public.jpeg`,
    /// `com.compuserve.gif`, `org.webmproject.webp`, `public.jpeg-xl`, ...).
    public var typeIdentifier: String {
        switch self {
        case .jpeg: return kUTTypeJPEG
        case .png: return kUTTypePNG
        case .webp: return kUTTypeWebP
        case .tiff: return kUTTypeTIFF
        case .gif: return kUTTypeGIF
        case .heif: return kUTTypeHEIC
        case .avif: return kUTTypeAVIF
        case .jxl: return kUTTypeJPEGXL
        }
    }

    /// The format a uniform type identifier names ("public.jpeg", "public.heif" too), or nil.
    public init?(typeIdentifier: String) {
        if typeIdentifier == "public.heif" { self = .heif; return }
        guard let f = ImageFileFormat.allCases.first(where: { $0.typeIdentifier == typeIdentifier }) else { return nil }
        self = f
    }
}

extension CGImage {
    /// A decoded frame's pixels (straight alpha, sRGB-encoded samples as stored).
    convenience init(decoded b: DecodedBitmap) {
        let space = CGColorSpace(name: CGColorSpace.sRGB)
        switch b.bitDepth {
        case 16:
            self.init(
                width: b.width, height: b.height, bytesPerRow: b.width * 8, format: .RGBA16, colorSpace: space, premultiplied: false,
                data: b.pixels16.withUnsafeBytes { Data($0) })
        case 32:
            self.init(
                width: b.width, height: b.height, bytesPerRow: b.width * 16, format: .RGBAf, colorSpace: space, premultiplied: false,
                data: b.pixelsF.withUnsafeBytes { Data($0) })
        default:
            self.init(
                width: b.width, height: b.height, bytesPerRow: b.width * 4, format: .RGBA8, colorSpace: space, premultiplied: false,
                data: Data(b.pixels))
        }
    }
}

// MARK: - Image I/O's functions

/// An image source over the file at `url`, or nil when it cannot be read. `options`: a
/// dictionary of `kCGImageSource...` keys (and Cyanotype's decode limits).
public func CGImageSourceCreateWithURL(_ url: CFURL, _ options: CFDictionary?) -> CGImageSource? {
    guard let data = try? Data(contentsOf: url) else { return nil }
    return CGImageSource(data: data, path: url.path, options: options as? [String: Any] ?? [:])
}

/// An image source over encoded bytes in memory.
public func CGImageSourceCreateWithData(_ data: CFData, _ options: CFDictionary?) -> CGImageSource? {
    // One copy of the bytes (Data(referencing:) reads an NSData a byte at a time on Linux).
    CGImageSource(data: Data(bytes: data.bytes, count: data.length), path: nil, options: options as? [String: Any] ?? [:])
}

/// The number of images: an animation's frames, a TIFF's pages, else 1 (0 when unreadable).
public func CGImageSourceGetCount(_ isrc: CGImageSource) -> Int { isrc.count }

/// The file's uniform type identifier ("com.compuserve.gif", "public.png", ...), nil when unreadable.
public func CGImageSourceGetType(_ isrc: CGImageSource) -> CFString? { isrc.rawTypeIdentifier ?? isrc.format?.typeIdentifier }

/// Whether the source could be read.
public func CGImageSourceGetStatus(_ isrc: CGImageSource) -> CGImageSourceStatus {
    guard let e = isrc.error else { return .statusComplete }
    if case .codec(_, let f) = e {
        switch f {
        case .unsupportedFormat, .empty: return .statusUnknownType
        case .truncated: return .statusUnexpectedEOF
        default: return .statusInvalidData
        }
    }
    return .statusInvalidData
}

/// Whether image `index` could be read (decoding it).
public func CGImageSourceGetStatusAtIndex(_ isrc: CGImageSource, _ index: Int) -> CGImageSourceStatus {
    do {
        _ = try isrc.decodedFrame(index)
        return .statusComplete
    } catch {
        if case .codec(_, .truncated) = error { return .statusUnexpectedEOF }
        return .statusInvalidData
    }
}

/// The file's properties: `FileSize`, and for animations `{GIF}`/`{PNG}`/`{WebP}` with the
/// loop count, canvas size and every frame's delay times (`FrameInfo`).
public func CGImageSourceCopyProperties(_ isrc: CGImageSource, _ options: CFDictionary?) -> CFDictionary? {
    isrc.properties() as NSDictionary
}

/// Image `index`'s properties: pixel size, depth, colour model, alpha, orientation, DPI,
/// profile, `{TIFF}`/`{Exif}`/`{GPS}`/`{JFIF}`/`{PNG}` (the dictionary `ImageFileProperties`
/// gives for a file), and for animations the frame's `{GIF}`/`{PNG}`/`{WebP}` dictionary
/// (delay times, loop count, and Cyanotype's frame rectangle, disposal and blend).
public func CGImageSourceCopyPropertiesAtIndex(_ isrc: CGImageSource, _ index: Int, _ options: CFDictionary?) -> CFDictionary? {
    isrc.properties(at: index).map { $0 as NSDictionary }
}

/// Image `index`, composited as a viewer shows it; nil when it cannot be decoded
/// (`CGImageSource.error` says why).
public func CGImageSourceCreateImageAtIndex(_ isrc: CGImageSource, _ index: Int, _ options: CFDictionary?) -> CGImage? {
    try? isrc.createImage(at: index)
}

/// A thumbnail of image `index`: with `kCGImageSourceCreateThumbnailFromImageAlways` or
/// `...IfAbsent`, the image scaled (Lanczos) so its longer side is at most
/// `kCGImageSourceThumbnailMaxPixelSize` (never enlarged), turned upright first with
/// `kCGImageSourceCreateThumbnailWithTransform`. Without either flag: nil, as Image I/O returns
/// for a file without an embedded thumbnail (Cyanotype reads none).
public func CGImageSourceCreateThumbnailAtIndex(_ isrc: CGImageSource, _ index: Int, _ options: CFDictionary?) -> CGImage? {
    let o = options as? [String: Any] ?? [:]
    let always = OptionValue.flag(o[kCGImageSourceCreateThumbnailFromImageAlways]) ?? false
    let ifAbsent = OptionValue.flag(o[kCGImageSourceCreateThumbnailFromImageIfAbsent]) ?? false
    guard always || ifAbsent else { return nil }
    // A RAW file: its embedded preview when large enough (unless asked to make one always).
    let rawSource = index == 0 ? isrc.rawThumbnailSource(limit: OptionValue.number(o[kCGImageSourceThumbnailMaxPixelSize]), preferEmbedded: !always) : nil
    guard var image = rawSource ?? isrc.stillImage(index) ?? (try? CIImage(source: isrc, index: index, options: nil)) else { return nil }
    if OptionValue.flag(o[kCGImageSourceCreateThumbnailWithTransform]) ?? false,
        let orientation = image.properties[kCGImagePropertyOrientation] as? Int, orientation != 1
    {
        image = image.oriented(forExifOrientation: Int32(orientation))
        image = image.transformed(by: CGAffineTransform(translationX: -image.extent.minX, y: -image.extent.minY))
    }
    let w = image.extent.width, h = image.extent.height
    if let limit = OptionValue.number(o[kCGImageSourceThumbnailMaxPixelSize]),
        limit >= 1, max(w, h) > limit
    {
        let scale = limit / max(w, h)
        let tw = max(1, (w * scale).rounded()), th = max(1, (h * scale).rounded())
        image = image.clampedToExtent()
            .transformed(by: CGAffineTransform(scaleX: tw / w, y: th / h), highQualityDownsample: true)
            .cropped(to: CGRect(x: 0, y: 0, width: tw, height: th))
    }
    guard
        let r = try? ImageIOContext.shared.renderToData(
            image, from: image.extent, format: .RGBA8,
            colorSpace: CGColorSpace(name: CGColorSpace.sRGB), premultiplied: false)
    else { return nil }
    return CGImage(
        width: r.width, height: r.height, bytesPerRow: r.rowBytes, format: .RGBA8,
        colorSpace: CGColorSpace(name: CGColorSpace.sRGB), premultiplied: false, data: r.data)
}

extension CGImageSource {
    /// A still JPEG or WebP (one image, `index` 0) as a file image decoded on first render, so a
    /// thumbnail decodes it at a fraction of its size (`Optimizer.reduceDecodes`); nil for
    /// every other source, which `CIImage(source:index:options:)` reads.
    func stillImage(_ index: Int) -> CIImage? {
        guard index == 0, strict, let f = format, f == .jpeg || f == .webp, count == 1,
            let header = try? ImageCodecs.readHeader(data)
        else { return nil }
        return try? CIImage.lazyImage(data, header: header, options: [:], limits: limits, name: path ?? "data")
    }
}

/// The uniform type identifiers a source reads.
public func CGImageSourceCopyTypeIdentifiers() -> [CFString] { ImageFileFormat.allCases.map(\.typeIdentifier) }

/// The context Image I/O's functions render with (thumbnails, conversions).
enum ImageIOContext {
    static let shared = CIContext(options: [.cacheIntermediates: false])
}

extension CIImage {
    /// Image `index` of an image source (Core Image's `init(cgImageSource:index:options:)`),
    /// decoded now, with the source's properties for that frame; an embedded ICC profile is
    /// converted as for files. Throws a typed error naming the file.
    public convenience init(source: CGImageSource, index: Int, options: [CIImageOption: Any]?) throws(ImageIOError) {
        let (b, seq) = try source.decodedFrame(index)
        let o = options ?? [:]
        let space: CGColorSpace? = o[.colorSpace] is NSNull ? nil : (o[.colorSpace] as? CGColorSpace ?? .sRGBSpace)
        let node: RecipeNode
        do { node = try bitmapNode(b, colorSpace: space) } catch { throw .codec(path: source.path, .corrupt(detail: "\(error)")) }
        var props = ImageIOProperties.frame(seq, index, raw: true)
        var image = CIImage(node: node)
        if OptionValue.flag(o[.applyOrientationProperty]) ?? false, let orientation = props[kCGImagePropertyOrientation] as? Int, orientation != 1 {
            image = image.oriented(forExifOrientation: Int32(orientation))
            props[kCGImagePropertyOrientation] = 1
        }
        self.init(node: image.node, properties: props, url: source.path.map { URL(fileURLWithPath: $0) })
    }

    /// Image `index` of an image source, or nil when it cannot be decoded (Core Image's name).
    public convenience init?(cgImageSource source: CGImageSource, index: Int, options: [CIImageOption: Any]?) {
        guard let image = try? CIImage(source: source, index: index, options: options) else { return nil }
        self.init(node: image.node, properties: image.properties, url: image.url)
    }
}
#endif
