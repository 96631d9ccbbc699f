// The value types of Cyanotype's file API, each declared once: the codecs read and write with
// them and `import Cyanotype` re-exports this module (and nothing else of the codecs'). What
// needs the codecs themselves (sniffing, `canEncode`) Cyanotype adds in extensions.

/// The still-image file formats Cyanotype reads and writes (Image I/O names them by uniform
/// type identifier, `public.jpeg` and so on; Cyanotype by this enum).
public enum ImageFileFormat: String, Sendable, CaseIterable {
    /// JPEG (TurboJPEG).
    case jpeg
    /// PNG, 8 or 16 bits (libspng): still, or animated (APNG).
    case png
    /// WebP, lossy or lossless, still or animated (libwebp).
    case webp
    /// TIFF, 8/16-bit or float samples (libtiff); several pages through `CGImageSource`.
    case tiff
    /// GIF, still or animated (giflib); frames through `CGImageSource`.
    case gif
    /// HEIF with HEVC-coded images (.heic), through libheif.
    case heif
    /// HEIF with AV1-coded images (.avif), through libheif.
    case avif
    /// JPEG XL (.jxl), bare codestream or ISO-BMFF container, lossy or lossless, 8/16-bit or
    /// float samples (libjxl).
    case jxl

    /// Whether files of this format carry a colour profile (every format here but GIF). Pixels
    /// written in a format that cannot are converted to sRGB, the space readers assume.
    public var holdsColorProfile: Bool { self != .gif }
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
    public var maxFrames: Int = 10_000
    /// Most pixels decoded over all frames of a file, each frame counted at its canvas size
    /// (default 2^34): bounds the work a small file of many large frames (an LZW or zlib bomb)
    /// can cause.
    public var maxTotalPixels: Int = 1 << 34

    /// Limits of `maxPixels` pixels and `maxBytes` bytes of decoded pixels (default 16383² and
    /// 2 GiB), with the default frame caps.
    public init(maxPixels: Int = 268_402_689, maxBytes: Int = 2 << 30) {
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

    /// 16383² pixels and 2 GiB of decoded pixels.
    public static let `default` = DecodeLimits()

    /// The number of frames of `pixelsPerFrame` pixels allowed: the smaller of the two caps.
    package func frameLimit(pixelsPerFrame: Int) -> Int {
        min(maxFrames, maxTotalPixels / max(pixelsPerFrame, 1))
    }

    /// The pixel count allowed for a given bytes-per-pixel: the smaller of the two caps.
    package func pixelLimit(bytesPerPixel: Int) -> Int {
        min(maxPixels, maxBytes / max(bytesPerPixel, 1))
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
}

/// A PNG row filter (the `CIImageRepresentationOption.pngFilter` value; PNG specification,
/// clause 9): how each byte is predicted from its neighbours before the rows are deflated.
public enum PNGFilter: String, Sendable, CaseIterable {
    /// The bytes as they are (filter type 0).
    case none
    /// The difference from the byte one pixel to the left (type 1).
    case sub
    /// The difference from the byte above (type 2).
    case up
    /// The difference from the mean of left and above (type 3).
    case average
    /// The difference from the Paeth predictor of left, above and upper left (type 4).
    case paeth
    /// Per row, the filter with the smallest sum of absolute (signed) bytes: libpng's choice.
    case adaptive
}

/// TIFF strip compression (the `CIImageRepresentationOption.tiffCompression` value).
public enum TIFFCompression: String, Sendable, CaseIterable {
    /// Uncompressed strips (TIFF compression 1).
    case none
    /// LZW (TIFF compression 5) with a predictor (horizontal; floating-point for 32-bit
    /// samples): the default.
    case lzw
    /// Deflate, zlib (TIFF compression 8), with the same predictor as `lzw`.
    case deflate

    /// The TIFF Compression tag's value.
    package var code: Int32 {
        switch self {
        case .none: return 1
        case .lzw: return 5
        case .deflate: return 8
        }
    }
}

/// Why a file's bytes could not be decoded or encoded (`ImageIOError.codec`); the codecs throw
/// it too.
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
    /// over all frames) allow; counted before any frame is decoded (`count` may be a lower
    /// bound: counting stops past the limit).
    case tooManyFrames(count: Int, limit: Int)
    /// A library the format needs (libheif, libjxl: opened on first use) is not installed or
    /// cannot be loaded; the message names the library file and the loader's reason.
    case libraryUnavailable(String)

    /// A message a user can act on: what went wrong and, where there is one, what to change.
    public var description: String {
        switch self {
        case .unsupportedFormat(let seen):
            return "unsupported image format: \(seen); supported formats are jpeg, png, webp, tiff, gif, heif, avif and jxl"
        case .empty:
            return "image data is empty (0 bytes)"
        case .truncated(let detail):
            return "image data is truncated (\(detail)); the file is incomplete: "
                + "re-export or re-download it, or decode with strict: false to keep the rows that were read"
        case .corrupt(let detail):
            return "image data is corrupt (\(detail)); the file is damaged or not a valid image"
        case .tooLarge(let width, let height, let limit):
            return "image is \(width)x\(height) pixels (\(width.multipliedReportingOverflow(by: height).partialValue)), "
                + "above the decode limit of \(limit) pixels; raise DecodeLimits.maxPixels to allow it"
        case .ioError(let path, let detail):
            return "cannot read or write '\(path)': \(detail)"
        case .encodeFailed(let detail):
            return "encoding failed: \(detail)"
        case .invalidArgument(let message):
            return "invalid argument: \(message)"
        case .tooManyFrames(let count, let limit):
            return "image holds \(count > limit ? "more than \(limit)" : "\(count)") frames or pages, above the limit of \(limit) "
                + "for its size; raise DecodeLimits.maxFrames (or maxTotalPixels) to allow it"
        case .libraryUnavailable(let message):
            return "\(message); install it to use this format"
        }
    }
}
