internal import CyanotypeCodecs
import Foundation

// The words of Cyanotype's file API. The codecs below have their own byte-level types; these
// are the ones users of `import Cyanotype` see (the codec module is not re-exported), and
// each converts to its codec counterpart in one place here.

/// The still-image file formats Cyanotype reads and writes (Image I/O names them by uniform
/// type identifier, `public.jpeg` and so on; Cyanotype by this enum).
public enum ImageFileFormat: String, Sendable, CaseIterable {
    /// JPEG (TurboJPEG).
    case jpeg
    /// PNG, 8 or 16 bits (libspng).
    case png
    /// WebP, lossy or lossless (libwebp).
    case webp
    /// TIFF, 8/16-bit or float samples (libtiff); several pages through `CGImageSource`.
    case tiff
    /// GIF, still or animated (giflib); frames through `CGImageSource`.
    case gif
    /// HEIF with HEVC-coded images (.heic), through libheif.
    case heif
    /// HEIF with AV1-coded images (.avif), through libheif.
    case avif
    /// JPEG XL (.jxl), lossy or lossless, 8/16-bit or float samples (libjxl).
    case jxl

    /// The format for a file extension ("jpg", "JPEG", "png", "webp", "tif", "gif", "heic",
    /// "avif", "jxl"), case-insensitive, dot optional; nil for other extensions.
    public init?(pathExtension: String) {
        guard let f = ImageCodecs.format(forPathExtension: pathExtension) else { return nil }
        self.init(f)
    }

    /// The format the first bytes of `data` name (magic numbers, not the file name); nil when
    /// none of ours matches.
    public init?(sniffing data: Data) {
        guard let f = ImageCodecs.sniff(data) else { return nil }
        self.init(f)
    }

    /// Whether `CIContext` can write this format here: always for JPEG, PNG, WebP, TIFF, GIF and
    /// JPEG XL; for HEIF and AVIF when libheif was built with an HEVC or AV1 encoder.
    public var canEncode: Bool { ImageCodecs.canEncode(codec) }

    /// Whether files of this format carry a colour profile (every format here but GIF). Pixels
    /// written in a format that cannot are converted to sRGB, the space readers assume.
    public var holdsColorProfile: Bool { self != .gif }

    init(_ f: CyanotypeCodecs.ImageFileFormat) {
        switch f {
        case .jpeg: self = .jpeg
        case .png: self = .png
        case .webp: self = .webp
        case .tiff: self = .tiff
        case .gif: self = .gif
        case .heif: self = .heif
        case .avif: self = .avif
        case .jxl: self = .jxl
        }
    }
    var codec: CyanotypeCodecs.ImageFileFormat {
        switch self {
        case .jpeg: return .jpeg
        case .png: return .png
        case .webp: return .webp
        case .tiff: return .tiff
        case .gif: return .gif
        case .heif: return .heif
        case .avif: return .avif
        case .jxl: return .jxl
        }
    }
}

/// Caps checked from a file's header before any pixel memory is allocated (the
/// `CIImageOption.decodeLimits` value): a header can claim any size, and these keep a hostile
/// or damaged file from making the process allocate gigabytes.
public struct DecodeLimits: Sendable, Equatable {
    /// Largest width × height accepted. The default, 16383², is libwebp's own maximum canvas.
    public var maxPixels: Int
    /// Largest decoded pixel buffer accepted, in bytes (width × height × 4 × bytes per sample).
    public var maxBytes: Int

    /// Most frames (animations) or pages (TIFF) a file may hold, counted before any is decoded
    /// (default 10,000).
    public var maxFrames: Int = CyanotypeCodecs.DecodeLimits.default.maxFrames
    /// Most pixels decoded over all frames of a file, each frame counted at its canvas size
    /// (default 2^34): bounds the work a small file of many large frames can cause.
    public var maxTotalPixels: Int = CyanotypeCodecs.DecodeLimits.default.maxTotalPixels

    /// Limits of `maxPixels` pixels and `maxBytes` bytes of decoded pixels.
    public init(maxPixels: Int = DecodeLimits.default.maxPixels, maxBytes: Int = DecodeLimits.default.maxBytes) {
        self.maxPixels = maxPixels
        self.maxBytes = maxBytes
    }

    /// Limits with frame caps too (`maxFrames`, `maxTotalPixels`).
    public init(maxPixels: Int, maxBytes: Int, maxFrames: Int, maxTotalPixels: Int) {
        self.maxPixels = maxPixels
        self.maxBytes = maxBytes
        self.maxFrames = maxFrames
        self.maxTotalPixels = maxTotalPixels
    }

    /// 16383² pixels and 2 GiB of decoded pixels (the codecs' defaults).
    public static let `default` = DecodeLimits(CyanotypeCodecs.DecodeLimits.default)

    init(_ l: CyanotypeCodecs.DecodeLimits) {
        maxPixels = l.maxPixels; maxBytes = l.maxBytes; maxFrames = l.maxFrames; maxTotalPixels = l.maxTotalPixels
    }
    var codec: CyanotypeCodecs.DecodeLimits {
        CyanotypeCodecs.DecodeLimits(maxPixels: maxPixels, maxBytes: maxBytes, maxFrames: maxFrames, maxTotalPixels: maxTotalPixels)
    }
}

/// JPEG chroma subsampling (the `CIImageRepresentationOption.chromaSubsampling` value).
public enum ChromaSubsampling: String, Sendable, CaseIterable {
    /// Full-resolution colour.
    case s444
    /// Colour halved horizontally.
    case s422
    /// Colour halved both ways (smallest files, the default).
    case s420

    var codec: CyanotypeCodecs.ChromaSubsampling {
        switch self {
        case .s444: return .s444
        case .s422: return .s422
        case .s420: return .s420
        }
    }
}

/// A PNG row filter (the `CIImageRepresentationOption.pngFilter` value): how each byte is
/// predicted from its neighbours before the rows are deflated.
public enum PNGFilter: String, Sendable, CaseIterable {
    /// The bytes as they are.
    case none
    /// The difference from the byte one pixel to the left.
    case sub
    /// The difference from the byte above.
    case up
    /// The difference from the mean of left and above.
    case average
    /// The difference from the Paeth predictor of left, above and upper left.
    case paeth
    /// Per row, the filter with the smallest sum of absolute (signed) bytes: libpng's choice.
    case adaptive

    var codec: CyanotypeCodecs.PNGFilter {
        switch self {
        case .none: return .none
        case .sub: return .sub
        case .up: return .up
        case .average: return .average
        case .paeth: return .paeth
        case .adaptive: return .adaptive
        }
    }
}

/// TIFF strip compression (the `CIImageRepresentationOption.tiffCompression` value).
public enum TIFFCompression: String, Sendable, CaseIterable {
    /// Uncompressed strips.
    case none
    /// LZW with the horizontal predictor (the default).
    case lzw
    /// Deflate (zlib) with the horizontal predictor.
    case deflate

    var codec: CyanotypeCodecs.TIFFCompression {
        switch self {
        case .none: return .none
        case .lzw: return .lzw
        case .deflate: return .deflate
        }
    }
}

/// Why a file's bytes could not be decoded or encoded (`ImageIOError.codec`).
public enum ImageFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The data is not a format Cyanotype reads; the message names what was seen.
    case unsupportedFormat(String)
    /// Zero bytes.
    case empty
    /// The data ends before the image does.
    case truncated(detail: String)
    /// The data is damaged or invalid.
    case corrupt(detail: String)
    /// The header claims more pixels than `DecodeLimits` allow; checked before any pixel
    /// allocation.
    case tooLarge(width: Int, height: Int, limit: Int)
    /// A file could not be read or written.
    case ioError(path: String, detail: String)
    /// The encoder refused the image.
    case encodeFailed(detail: String)
    /// An argument is out of range.
    case invalidArgument(String)
    /// The file holds more frames or pages than `DecodeLimits.maxFrames` (or `maxTotalPixels`
    /// over all frames) allow; counted before any frame is decoded (`count` may be a lower bound).
    case tooManyFrames(count: Int, limit: Int)
    /// A library the format needs (libheif, libjxl: opened on first use) is not installed or
    /// cannot be loaded; the message names the library file and the loader's reason.
    case libraryUnavailable(String)

    /// A message a user can act on (the codecs' wording).
    public var description: String { codec.description }

    init(_ e: CodecError) {
        switch e {
        case .unsupportedFormat(let s): self = .unsupportedFormat(s)
        case .empty: self = .empty
        case .truncated(let d): self = .truncated(detail: d)
        case .corrupt(let d): self = .corrupt(detail: d)
        case .tooLarge(let w, let h, let l): self = .tooLarge(width: w, height: h, limit: l)
        case .ioError(let p, let d): self = .ioError(path: p, detail: d)
        case .encodeFailed(let d): self = .encodeFailed(detail: d)
        case .invalidArgument(let m): self = .invalidArgument(m)
        case .tooManyFrames(let c, let l): self = .tooManyFrames(count: c, limit: l)
        case .libraryUnavailable(let m): self = .libraryUnavailable(m)
        }
    }
    var codec: CodecError {
        switch self {
        case .unsupportedFormat(let s): return .unsupportedFormat(s)
        case .empty: return .empty
        case .truncated(let d): return .truncated(detail: d)
        case .corrupt(let d): return .corrupt(detail: d)
        case .tooLarge(let w, let h, let l): return .tooLarge(width: w, height: h, limit: l)
        case .ioError(let p, let d): return .ioError(path: p, detail: d)
        case .encodeFailed(let d): return .encodeFailed(detail: d)
        case .invalidArgument(let m): return .invalidArgument(m)
        case .tooManyFrames(let c, let l): return .tooManyFrames(count: c, limit: l)
        case .libraryUnavailable(let m): return .libraryUnavailable(m)
        }
    }
}
