internal import CyanotypeCodecs
import Foundation

/// Options for reading images, with Core Image's names.
public struct CIImageOption: RawRepresentable, Hashable, Sendable {
    /// The option's key.
    public let rawValue: String
    /// The option with key `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Bool: turn the image upright from its EXIF orientation (default false, as Core Image).
    public static let applyOrientationProperty = CIImageOption(rawValue: "kCIImageApplyOrientationProperty")
    /// A `CGColorSpace` to interpret untagged files in, or `NSNull()` for no conversion.
    public static let colorSpace = CIImageOption(rawValue: "kCIImageColorSpace")
    /// `[String: Any]` to use as `properties` instead of the file's.
    public static let properties = CIImageOption(rawValue: "kCIImageProperties")
    /// `DecodeLimits`: pixel and memory caps checked before decoding (default 16383^2 px, 2 GiB).
    public static let decodeLimits = CIImageOption(rawValue: "cyanotype_decode_limits")
    /// Bool: return what a truncated file holds instead of failing (default false).
    public static let lenientDecoding = CIImageOption(rawValue: "cyanotype_lenient_decoding")
    /// Cyanotype (Core Image has none: Image I/O's `CGImageSource` is Apple's way): Int, the
    /// frame of an animation (GIF, APNG, WebP) or page of a TIFF to read, from 0 (the default).
    /// The frame is composited as a viewer shows it; `properties` carry its timing.
    public static let frameIndex = CIImageOption(rawValue: "cyanotype_frame_index")
}

// Keys of `CIImage.properties`, with Image I/O's names.
/// Image I/O's key for the width in pixels (an `Int`).
public let kCGImagePropertyPixelWidth = "PixelWidth"
/// Image I/O's key for the height in pixels (an `Int`).
public let kCGImagePropertyPixelHeight = "PixelHeight"
/// Image I/O's key for the EXIF orientation, 1...8 (an `Int`; 1 is upright).
public let kCGImagePropertyOrientation = "Orientation"
/// Image I/O's key for the bits per sample stored in the file (an `Int`, e.g. 8 or 16).
public let kCGImagePropertyDepth = "Depth"
/// Image I/O's key for the colour model: "RGB", "Gray" or "CMYK" (a `String`).
public let kCGImagePropertyColorModel = "ColorModel"
/// Image I/O's key for whether the file stores an alpha channel (a `Bool`).
public let kCGImagePropertyHasAlpha = "HasAlpha"
/// Image I/O's key for the horizontal dots per inch (a `Double`), when the file says.
public let kCGImagePropertyDPIWidth = "DPIWidth"
/// Image I/O's key for the vertical dots per inch (a `Double`), when the file says.
public let kCGImagePropertyDPIHeight = "DPIHeight"
/// Image I/O's key for the embedded ICC profile's description (a `String`), when there is one.
public let kCGImagePropertyProfileName = "ProfileName"
/// Image I/O's key for the EXIF dictionary (`{Exif}`: the EXIF directory's tags, `[String: Any]`).
public let kCGImagePropertyExifDictionary = "{Exif}"
/// Cyanotype: the file format ("jpeg", "png", "webp", "tiff", "heif", "avif", "jxl").
public let kCyanotypePropertyFileFormat = "CyanotypeFileFormat"
/// Cyanotype: the file's EXIF block as read (TIFF-structured `Data`; for TIFF files, built
/// from the file's own directories), written back by every encoder (its orientation set to
/// match the pixels) unless `.stripMetadata` is set.
public let kCyanotypePropertyRawEXIF = "CyanotypeRawEXIF"

/// Why an image file could not be read or written.
public enum ImageIOError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file's bytes could not be decoded or encoded; `path` names the file when there is one.
    case codec(path: String?, ImageFileError)
    /// Rendering the image to encode it failed.
    case render(CIRenderError)
    /// The image cannot be written as asked.
    case unsupportedOutput(String)
    /// The encoded bytes could not be written to `path`.
    case writeFailed(path: String, detail: String)

    /// A message a user can act on, naming the file when there is one.
    public var description: String {
        switch self {
        case let .codec(path, e): return path.map { "\($0): \(e)" } ?? e.description
        case let .render(e): return e.description
        case let .unsupportedOutput(what): return what
        case let .writeFailed(path, detail): return "\(path): could not write (\(detail))"
        }
    }
}

extension CIImage {
    /// The image in a file (JPEG, PNG, WebP, TIFF, HEIF, AVIF, JPEG XL), or nil when it cannot be read; see
    /// `CIImage.read(contentsOf:options:)` for the reason. The header is read now, the
    /// pixels when first rendered.
    public convenience init?(contentsOf url: URL, options: [CIImageOption: Any]? = nil) {
        guard let img = try? CIImage.read(contentsOf: url, options: options) else { return nil }
        self.init(node: img.node, properties: img.properties, url: url)
    }
    /// The image in encoded file bytes, or nil when they cannot be read.
    public convenience init?(data: Data, options: [CIImageOption: Any]? = nil) {
        guard let img = try? CIImage.read(data: data, options: options) else { return nil }
        self.init(node: img.node, properties: img.properties)
    }

    /// Reads an image file, throwing a typed error that names the file and the reason.
    public static func read(contentsOf url: URL, options: [CIImageOption: Any]? = nil) throws(ImageIOError) -> CIImage {
        // Only the header's bytes are read now (`HeaderBytes`); the pixels' when they decode.
        let opened: HeaderBytes
        do { opened = try HeaderBytes(readingFileAt: url.path) } catch { throw .codec(path: url.path, error) }
        var (data, whole) = (opened.data, opened.isWhole)
        // A frame other than the first, and RAW files, are decoded from the whole file.
        if !whole, let file = opened.file, (options?[.frameIndex] as? Int ?? 0) != 0 || RAWFile.isRAW(data) {
            do { data = try file.contents() } catch { throw .codec(path: url.path, error) }
            whole = true
        }
        do {
            let img = try read(data: data, options: options, name: url.lastPathComponent, file: opened.file, headerOnly: !whole)
            return CIImage(node: img.node, properties: img.properties, url: url)
        } catch let ImageIOError.codec(_, e) {
            throw .codec(path: url.path, e)
        }
    }

    /// Decodes encoded bytes (header now, pixels lazily).
    public static func read(data: Data, options: [CIImageOption: Any]? = nil, name: String = "data") throws(ImageIOError) -> CIImage {
        try read(data: data, options: options, name: name, file: nil)
    }

    /// `read(data:)` of bytes read from `file`: a file whose pixels stream does not keep them
    /// but reads the file again when it decodes. `headerOnly`: `data` holds only the header's
    /// bytes (`HeaderBytes`), so every decode reads the file again.
    static func read(
        data: Data, options: [CIImageOption: Any]?, name: String, file: FileIdentity?, headerOnly: Bool = false
    ) throws(ImageIOError) -> CIImage {
        let o = options ?? [:]
        #if !canImport(CoreGraphics)
        if let index = o[.frameIndex] as? Int, index != 0 { return try readFrame(data, index: index, options: o, name: name) }
        #endif
        // RAW camera files (recognised by their bytes) develop with CIRAWFilter's defaults.
        if RAWFile.isRAW(data) { return try rawImage(data, options: o, name: name) }
        let header: ImageHeader
        do { header = try ImageCodecs.readHeader(data) } catch { throw .codec(path: nil, error) }
        return try lazyImage(
            data, header: header, options: o, limits: (o[.decodeLimits] as? DecodeLimits ?? .default), name: name, file: file,
            headerOnly: headerOnly)
    }

    /// The file image `read(data:)` makes once the header is read: pixels decoded on first
    /// render, at a fraction of the size when a downscale over it asks for no more (JPEG and
    /// WebP; see `Optimizer.reduceDecodes`). `headerOnly`: `data` holds only the header's
    /// bytes of `file` (which must then be given), read whole when pixels decode.
    static func lazyImage(
        _ data: Data, header: ImageHeader, options o: [CIImageOption: Any], limits: DecodeLimits,
        name: String, file: FileIdentity? = nil, headerOnly: Bool = false
    ) throws(ImageIOError) -> CIImage {
        let strict = !((o[.lenientDecoding] as? Bool) ?? false)
        let space: CGColorSpace? = o[.colorSpace] is NSNull ? nil : (o[.colorSpace] as? CGColorSpace ?? .sRGBSpace)
        // The EXIF orientation, when asked for, is applied as the rows are stored (upright
        // 8/16-bit pixels, no resampling pass).
        let orientation = (o[.applyOrientationProperty] as? Bool) ?? false ? RowOrientation(header.orientation, width: 1, height: 1).value : 1
        func source(orientation: Int, stored: LazySourceNode?, name: String) throws(ImageIOError) -> LazySourceNode {
            try fileSource(
                data, header: header, strict: strict, space: space, limits: limits, name: name, file: file, headerOnly: headerOnly,
                orientation: orientation, stored: stored)
        }
        // An orientation that reorders rows keeps the file in stored order beside it too: a
        // downscale shrinks that and turns the small result (`Optimizer.commuteOrientations`).
        let stored = RowOrientation(orientation, width: 1, height: 1).keepsRowOrder ? nil : try source(orientation: 1, stored: nil, name: "\(name) in stored order")
        let node = try source(orientation: orientation, stored: stored, name: name)
        var props = (o[.properties] as? [String: Any]) ?? properties(of: header)
        if orientation != 1 { props[kCGImagePropertyOrientation] = 1 }
        return CIImage(node: node, properties: props)
    }

    /// The file source `lazyImage` makes, shown upright for EXIF `orientation` (1...8);
    /// `stored`: the same file in stored order, for an orientation that reorders rows.
    private static func fileSource(
        _ data: Data, header: ImageHeader, strict: Bool, space: CGColorSpace?, limits: DecodeLimits, name: String, file: FileIdentity?,
        headerOnly: Bool, orientation: Int, stored: LazySourceNode?
    ) throws(ImageIOError) -> LazySourceNode {
        let upright = RowOrientation(orientation, width: header.width, height: header.height)
        let extent = CGRect(x: 0, y: 0, width: upright.uprightWidth, height: upright.uprightHeight)
        let profile = header.iccProfile
        // Baseline JPEGs, in any RGB profile, decode on a thread while tiles render (top rows
        // first), converted from their profile tile by tile.
        let streams = JPEGStreamDecoder.canStream(data, header: header, strict: strict)
        // Non-interlaced PNGs (8 or 16-bit) stream the same way (libspng's row decoder), and
        // 8/16-bit grey or RGB(A) TIFFs, uncompressed, LZW or deflate (libtiff, a strip or a
        // row of tiles at a time).
        let streamsPNG = PNGStreamDecoder.canStream(header: header, strict: strict)
        let streamsTIFF = !streamsPNG && TIFFStreamDecoder.canStream(data, header: header, strict: strict)
        let streamsRows = streamsPNG || streamsTIFF
        // The limit bounds memory: a file that streams is refused only when a render needs
        // more of it at once (the decoders check), others now. A streaming file is still held
        // to the render limit (or the decode limit, when larger) by its declared size: a tiny
        // file declaring 100000 x 100000 would otherwise have every row decoded for a thumbnail.
        let (pixels, overflow) = header.width.multipliedReportingOverflow(by: header.height)
        let streamedLimit = max(limits.maxPixels, PixelRect.limit)
        guard !overflow, pixels <= limits.maxPixels || ((streams || streamsRows) && pixels <= streamedLimit),
            header.width <= PixelRect.limit, header.height <= PixelRect.limit
        else {
            let limit = streams || streamsRows ? streamedLimit : limits.maxPixels
            throw .codec(path: nil, .tooLarge(width: header.width, height: header.height, limit: limit))
        }
        // Strict decodes only: a damaged file fails the same way at every size.
        let factors = strict ? ImageCodecs.decodeReductions(header, data: data) : []
        // A JPEG that does not stream (progressive) is held as its 8-bit Y'CbCr planes, turned
        // upright as they decode (1.5 bytes a pixel at 4:2:0, not RGBA's 4).
        let planar = strict && header.format == .jpeg && !streams
        // A streaming or planar file read from disk is read again when it decodes (its bytes
        // are not held), as is any file of which only the header was read.
        let reread = file.flatMap { f in streams || streamsRows || planar || headerOnly ? f : nil }
        let bytes: CompressedBytes = reread.map { .file($0) } ?? .data(data)
        // What the whole-image decodes below read (they run only when the file does not
        // stream): the bytes held, or the file read again (so the closures do not keep them).
        let held: Data = reread == nil ? data : Data()
        let whole = { @Sendable () throws(ImageFileError) -> Data in try reread?.contents() ?? held }
        // WebP also decodes at any smaller size (its decoder rescales the rows as they come).
        let anySize = strict && !streams && ImageCodecs.decodesAtAnySize(header, data: data)
        let reduced: @Sendable (Int, Bool) throws -> RecipeNode = { factor, forOneRender in
            if streams {
                return try streamingJPEGNode(
                    bytes, header: header, limits: limits, colorSpace: space, reduction: factor, forOneRender: forOneRender,
                    orientation: orientation)
            }
            return try bitmapNode(try ImageCodecs.decode(try whole(), reducedBy: factor, limits: limits), colorSpace: space, orientation: orientation)
        }
        var reducer: DecodeReducer? = factors.isEmpty && !anySize ? nil : DecodeReducer(factors: factors, streams: streams, load: reduced)
        if anySize {
            let swaps = upright.swapsSides
            reducer?.scaledLoad = { width, height in
                let (w, h) = swaps ? (height, width) : (width, height)
                return try streamingScaledWebPNode(
                    try whole(), width: w, height: h, limits: limits, colorSpace: space, profile: profile, orientation: orientation)
            }
        }
        // A PNG or TIFF the row decoder refuses at its start (a damaged text chunk, say)
        // decodes whole, where the one-shot decoder's own recovery applies.
        let rowsNode = { @Sendable (oneRender: Bool) throws -> RecipeNode in
            do {
                return try streamingRowsNode(
                    bytes, format: streamsTIFF ? .tiff : .png, limits: limits, colorSpace: space, forOneRender: oneRender,
                    profile: profile, orientation: orientation)
            } catch let e as ImageFileError {
                switch e {
                case .tooLarge, .ioError: throw e
                default: break
                }
                return try bitmapNode(try ImageCodecs.decode(try whole(), limits: limits, strict: strict), colorSpace: space, orientation: orientation)
            }
        }
        let forOneRender: (@Sendable () throws -> RecipeNode)?
        if streams {
            forOneRender = {
                try streamingJPEGNode(bytes, header: header, limits: limits, colorSpace: space, forOneRender: true, orientation: orientation)
            }
        } else if streamsRows {
            forOneRender = { try rowsNode(true) }
        } else {
            forOneRender = nil
        }
        return LazySourceNode(
            extent: extent, name: name, reducer: reducer,
            load: {
                if streams {
                    return try streamingJPEGNode(bytes, header: header, limits: limits, colorSpace: space, orientation: orientation)
                }
                if streamsRows { return try rowsNode(false) }
                if planar, let node = try planarJPEGNode(bytes, header: header, limits: limits, colorSpace: space, orientation: orientation) {
                    return node
                }
                let bitmap = try ImageCodecs.decode(try whole(), limits: limits, strict: strict)
                return try bitmapNode(bitmap, colorSpace: space, orientation: orientation)
            },
            loadForOneRender: forOneRender, orientation: orientation, stored: stored,
            storedPlanes: streams || planar
                ? StoredJPEGPlanes(
                    orientation: orientation,
                    color: { SourceColor.of(profile: profile, bitsPerSample: 8, fallback: space) },
                    decode: {
                        switch bytes {
                        case .data(let data): try JPEGPlanes.decode(data, orientation: orientation, limits: limits)
                        case .file(let file): try JPEGPlanes.decode(file: file, orientation: orientation, limits: limits)
                        }
                    }) : nil)
    }

    /// The image's properties: Image I/O's dictionary (`ImageFileProperties`) plus the file
    /// format and the raw EXIF and XMP the encoders write back.
    static func properties(of h: ImageHeader) -> [String: Any] {
        var p = ImageFileProperties.dictionary(for: h)
        p[kCyanotypePropertyFileFormat] = h.format.rawValue
        if let exif = h.exif { p[kCyanotypePropertyRawEXIF] = exif }
        if let xmp = h.xmp { p[kCyanotypePropertyRawXMP] = xmp }
        return p
    }
}

/// A decoded file as a source node: 8/16-bit straight RGBA, or 32-bit float (TIFF) read as
/// values in the file's colour space (sRGB-encoded when untagged, like the integer formats).
/// 8/16-bit pixels stay at their depth in the file's own encoding and are converted to the
/// working format tile by tile, through their embedded ICC profile (`SourceColor`: the
/// engine's tables for a space it names, else an lcms2 transform per row); float pixels in a
/// profile other than sRGB are converted whole into linear sRGB with lcms2. `orientation`
/// (EXIF, 1...8) shows the pixels upright (8/16-bit: each tile row gathered from the decoded
/// rows, no second copy and no float pass).
func bitmapNode(_ b: DecodedBitmap, colorSpace: CGColorSpace?, orientation: Int = 1) throws -> RecipeNode {
    if b.bitDepth == 32, let icc = b.header.iccProfile, colorSpace != nil, !ColorProfiles.isSRGB(icc),
        let converted = ColorProfiles.linearSRGBPixels(of: b, profile: icc)
    {
        guard
            let n = BitmapNode(
                data: converted, bytesPerRow: b.width * 16, width: b.width, height: b.height, format: .RGBAf,
                colorSpace: .extendedLinearSRGBSpace, premultiplied: false)
        else { throw ImageFileError.corrupt(detail: "colour conversion produced no pixels") }
        return orientation == 1 ? n : CIImage(node: n).oriented(forExifOrientation: Int32(orientation)).node
    }
    let node: BitmapNode?
    if b.bitDepth == 32 {
        node = BitmapNode(
            data: SampleFloats(values: b.pixelsF), bytesPerRow: b.width * 16, width: b.width, height: b.height, format: .RGBAf, colorSpace: colorSpace, premultiplied: false)
        if let node, orientation != 1 { return CIImage(node: node).oriented(forExifOrientation: Int32(orientation)).node }
    } else {
        let deep = b.bitDepth == 16
        let color = SourceColor.of(profile: b.header.iccProfile, bitsPerSample: deep ? 16 : 8, fallback: colorSpace)
        let bpp = deep ? 8 : 4
        let turn = RowOrientation(orientation, width: b.width, height: b.height)
        guard b.width > 0, b.height > 0, (deep ? b.pixels16.count * 2 : b.pixels.count) >= b.width * b.height * bpp else {
            throw ImageFileError.corrupt(detail: "decoder returned \(b.width)x\(b.height) without pixels")
        }
        // Turned as tiles read it: the decoded rows are the only copy.
        let data: any ContiguousBytes & Sendable = if deep { SampleWords(words: b.pixels16) } else { b.pixels }
        node = BitmapNode(
            data: data, bytesPerRow: b.width * bpp, width: turn.uprightWidth,
            height: turn.uprightHeight, format: deep ? .RGBA16 : .RGBA8, colorSpace: color.space, premultiplied: false,
            profileTransform: color.transform, orientation: turn.value)
    }
    guard let node else { throw ImageFileError.corrupt(detail: "decoder returned \(b.width)x\(b.height) without pixels") }
    return node
}

/// A JPEG (in memory or read from its file) decoded whole to its Y'CbCr planes, turned upright for EXIF `orientation` as its
/// rows decode, as a bitmap whose RGBA8 rows are made from the planes as tiles read them
/// (`JPEGPlaneRows`: libjpeg's own upsampling and colour conversion) and read in the file's
/// ICC profile as `bitmapNode` reads decoded rows. nil when the file is not 8-bit YCbCr in a
/// sampling the planes hold (the caller decodes it to RGBA).
func planarJPEGNode(
    _ bytes: CompressedBytes, header: ImageHeader, limits: DecodeLimits, colorSpace: CGColorSpace?, orientation: Int
) throws -> RecipeNode? {
    let decoded =
        switch bytes {
        case .data(let data): try JPEGPlanes.decode(data, orientation: orientation, limits: limits)
        case .file(let file): try JPEGPlanes.decode(file: file, orientation: orientation, limits: limits)
        }
    guard let planes = decoded else { return nil }
    let color = SourceColor.of(profile: header.iccProfile, bitsPerSample: 8, fallback: colorSpace)
    guard
        let node = BitmapNode(
            data: Data(), bytesPerRow: planes.width * 4, width: planes.width, height: planes.height, format: .RGBA8,
            colorSpace: color.space, premultiplied: false, profileTransform: color.transform, rowSource: JPEGPlaneRows(planes))
    else { throw ImageFileError.corrupt(detail: "JPEG: \(planes.width)x\(planes.height) without pixels") }
    return node
}

/// Float samples as bytes, without copying them into a `Data`.
struct SampleFloats: ContiguousBytes, Sendable {
    let values: [Float]
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try values.withUnsafeBytes(body)
    }
}

/// 16-bit samples as bytes, without copying them into a `Data`.
struct SampleWords: ContiguousBytes, Sendable {
    let words: [UInt16]
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try words.withUnsafeBytes(body)
    }
}
