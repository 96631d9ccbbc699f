@_exported public import CyanotypeFileTypes
import Foundation

/// What a file says about its image, read without decoding the pixels.
public struct ImageHeader: Sendable, Equatable {
    /// The file's format.
    public var format: ImageFileFormat
    /// Width in pixels, as stored (EXIF orientation not applied).
    public var width: Int
    /// Height in pixels, as stored (EXIF orientation not applied).
    public var height: Int
    /// Channels stored in the file: 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA (or CMYK for JPEG).
    public var channels: Int
    /// 8 or 16 bits per sample (PNG's 1/2/4-bit files report 8: they decode to 8-bit samples);
    /// 32 for TIFF's floating-point samples; 10 or 12 for HEIF/AVIF (they decode to 16-bit).
    public var bitDepth: Int
    /// Whether the file stores an alpha channel.
    public var hasAlpha: Bool
    /// "RGB", "Gray" or "CMYK".
    public var colorModel: String
    /// EXIF orientation 1...8; 1 when the file has none. The decoded pixels are *not* rotated.
    /// (HEIF/AVIF: libheif applies the file's rotation and mirroring while decoding, so the
    /// pixels arrive upright and this is 1.)
    public var orientation: Int
    /// The embedded ICC profile, when the file has one.
    public var iccProfile: Data?
    /// Dots per inch from JFIF density, PNG pHYs or EXIF resolution, when present.
    public var dpi: Double?
    /// The raw EXIF payload (TIFF-structured, starting "II*\0" or "MM\0*"), when present.
    /// For TIFF files it is built from the file's own IFD0 (its descriptive tags) and its EXIF
    /// and GPS directories.
    public var exif: Data?
    /// The XMP packet (UTF-8 XML), when present: JPEG APP1, PNG iTXt "XML:com.adobe.xmp",
    /// WebP "XMP " chunk, TIFF tag 700, HEIF 'mime' item, JPEG XL "xml " box.
    public var xmp: Data?
    /// The IPTC-IIM records (Photoshop resource 0x0404 of a JPEG's APP13 segment), when present.
    public var iptc: Data?
    /// Facts particular to the format, keyed by Image I/O's names inside the format's own
    /// dictionary (`{JFIF}`, `{PNG}`, `{TIFF}`...): e.g. "IsProgressive", "InterlaceType",
    /// "Compression". See `FileProperty`.
    public var formatProperties: [String: FileProperty] = [:]

    /// A header from its fields; `formatProperties` starts empty.
    public init(
        format: ImageFileFormat, width: Int, height: Int, channels: Int, bitDepth: Int,
        hasAlpha: Bool, colorModel: String, orientation: Int = 1, iccProfile: Data? = nil,
        dpi: Double? = nil, exif: Data? = nil, xmp: Data? = nil
    ) {
        self.format = format
        self.width = width
        self.height = height
        self.channels = channels
        self.bitDepth = bitDepth
        self.hasAlpha = hasAlpha
        self.colorModel = colorModel
        self.orientation = orientation
        self.iccProfile = iccProfile
        self.dpi = dpi
        self.exif = exif
        self.xmp = xmp
    }
}

/// One value of `ImageHeader.formatProperties`: what Image I/O puts in a property dictionary.
public enum FileProperty: Sendable, Equatable {
    /// A whole number (a code, a count, a density).
    case int(Int)
    /// A real number (a gamma).
    case double(Double)
    /// A yes/no fact (progressive, lossless).
    case bool(Bool)
    /// Text (a PNG text chunk).
    case string(String)
    /// Whole numbers (a version).
    case ints([Int])
    /// Real numbers.
    case doubles([Double])

    /// The value as Image I/O reports it (`Int`, `Double`, `Bool`, `String` or an array).
    public var value: Any {
        switch self {
        case .int(let v): return v
        case .double(let v): return v
        case .bool(let v): return v
        case .string(let v): return v
        case .ints(let v): return v
        case .doubles(let v): return v
        }
    }
}

/// Decoded pixels: 4 interleaved channels RGBA, rows top-down, straight (not premultiplied)
/// alpha, sample values as stored in the file (no colour conversion: the engine linearises).
/// Images without alpha get alpha = max. Orientation is not applied (see `header.orientation`).
public struct DecodedBitmap: Sendable {
    /// What the file says about the image (the full-size file's, also after a reduced decode).
    public var header: ImageHeader
    /// Pixels per row (less than `header.width` after a reduced decode).
    public var width: Int
    /// Rows (less than `header.height` after a reduced decode).
    public var height: Int
    /// 8, 16, or 32 for floating-point samples (TIFF).
    public var bitDepth: Int
    /// When `bitDepth == 8`: width × height × 4 bytes; empty otherwise.
    public var pixels: [UInt8]
    /// When `bitDepth == 16`: width × height × 4 values, native endian; empty otherwise.
    public var pixels16: [UInt16]
    /// When `bitDepth == 32`: width × height × 4 floats as stored (1.0 is white; values
    /// outside 0...1 are kept); empty otherwise.
    public var pixelsF: [Float]
    /// False when a lenient (`strict: false`) decode stopped early; missing rows are zero.
    public var isComplete: Bool

    /// A bitmap from its parts: the pixel array for `bitDepth` holds width × height × 4 samples,
    /// the others are empty.
    public init(
        header: ImageHeader, width: Int, height: Int, bitDepth: Int, pixels: [UInt8],
        pixels16: [UInt16], pixelsF: [Float] = [], isComplete: Bool = true
    ) {
        self.header = header
        self.width = width
        self.height = height
        self.bitDepth = bitDepth
        self.pixels = pixels
        self.pixels16 = pixels16
        self.pixelsF = pixelsF
        self.isComplete = isComplete
    }
}

/// Settings for `ImageCodecs.encode`; each format reads the ones that apply to it.
public struct EncodeOptions: Sendable, Equatable {
    /// 0...1, for JPEG, lossy WebP, HEIF/AVIF and lossy JPEG XL.
    public var quality: Double = 0.9
    /// JPEG only.
    public var chromaSubsampling: ChromaSubsampling = .s420
    /// JPEG only: write a progressive JPEG.
    public var progressive: Bool = false
    /// WebP, AVIF/HEIF and JPEG XL: lossless instead of lossy.
    public var lossless: Bool = false
    /// PNG zlib level 0...9. Unless `pngFilter` says otherwise, the level also picks the row
    /// filter: 0 none (stored), 1...5 `up` (fast, and within a few percent of the adaptive
    /// choice on photos), 6...9 adaptive (every filter tried per row: smallest files, slower).
    /// The default, 2, writes a photo several times faster than level 6 with adaptive filters,
    /// at a similar size.
    public var compressionLevel: Int = 2
    /// PNG only: the row filter, or nil for the one `compressionLevel` picks.
    public var pngFilter: PNGFilter? = nil
    /// Embedded when given: PNG iCCP, JPEG APP2 ICC_PROFILE, WebP ICCP, TIFF ICCProfile tag,
    /// HEIF/AVIF colr 'prof', JPEG XL's codestream profile.
    public var iccProfile: Data? = nil
    /// TIFF only: how strips are compressed (LZW by default, with the horizontal predictor).
    public var tiffCompression: TIFFCompression = .lzw
    /// TIFF and JPEG XL: the orientation written (TIFF's Orientation tag, JPEG XL's codestream
    /// orientation), 1...8; 1 = upright, the default.
    public var orientation: Int = 1
    /// Dots per inch, when given: TIFF X/YResolution, PNG pHYs, JPEG JFIF density.
    public var dpi: Double? = nil
    /// PNG, TIFF, JPEG and JPEG XL: write one grey channel (plus alpha when the encoder is asked for
    /// alpha) instead of RGB, taken from the green samples. Meant for pixels whose red, green
    /// and blue are equal; WebP, HEIF and AVIF have no grey layout and ignore it.
    public var grayscale: Bool = false
    /// TIFF pages (`FrameEncoder`): each page whose red, green and blue samples are all equal
    /// is written grey, as `grayscale` writes it; other pages stay RGB.
    public var grayscaleIfNeutral: Bool = false
    /// WebP, AVIF/HEIF and JPEG XL: how hard the encoder works, nil for its default. WebP 0...6
    /// (libwebp's `method`: 0 fastest, 6 smallest); AVIF/HEIF 0...9 (libheif's speed 9 - effort);
    /// JPEG XL 1...9 (libjxl's effort; 0 is taken as 1).
    public var effort: Int? = nil
    /// A TIFF-structured EXIF block to embed as it is: JPEG APP1, PNG eXIf, WebP EXIF chunk,
    /// HEIF/AVIF Exif item, JPEG XL Exif box; TIFF output merges its tags into IFD0 and writes
    /// its EXIF and GPS directories. See `ImageCodecs.uprightedEXIF`.
    public var exif: Data? = nil
    /// An XMP packet to embed as it is: JPEG APP1, PNG iTXt, WebP "XMP " chunk, TIFF tag 700,
    /// HEIF/AVIF 'mime' item, JPEG XL "xml " box. See `ImageCodecs.xmpRemovingGPS`. JPEG holds
    /// at most 65,504 bytes of XMP and 65,527 of EXIF (one segment each); larger blocks are
    /// left out of JPEG files.
    public var xmp: Data? = nil

    /// The defaults: quality 0.9, 4:2:0, baseline, lossy, PNG level 2, LZW TIFF, orientation 1,
    /// no metadata.
    public init() {}
}

/// A parallel loop an encoder may use: runs `body(i)` for every `i` in `0..<count`, possibly
/// several at once on other threads, and returns when all have finished. Codecs own no
/// threads; the caller (the renderer's executor) supplies this. `ImageCodecs.sequential`
/// runs the bodies one after another on the calling thread.
public typealias ParallelFor = (_ count: Int, _ body: @Sendable (Int) -> Void) -> Void
