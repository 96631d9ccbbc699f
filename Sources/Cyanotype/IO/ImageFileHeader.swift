package import CDeferredLibraries
internal import CyanotypeCodecs
import Foundation

// What the tools (the CLI, the server, video) need from a file's bytes without decoding its
// pixels, and the metadata edits they make: Cyanotype's Image I/O layer answers, so nothing
// outside this module imports the codecs or parses file bytes. Package API: not public.

/// What a file's header says about its image, read without decoding the pixels (the tools'
/// `describe`, LUT images, the server's `/info` and its previews).
package struct ImageFileHeader: Sendable, Equatable {
    /// The file's format.
    package var format: ImageFileFormat
    /// Width in pixels, as stored (EXIF orientation not applied).
    package var width: Int
    /// Height in pixels, as stored (EXIF orientation not applied).
    package var height: Int
    /// Channels stored in the file: 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA (or CMYK for JPEG).
    package var channels: Int
    /// Bits per sample as stored (8, 16; 32 for float TIFF; 10 or 12 for HEIF/AVIF).
    package var bitDepth: Int
    /// Whether the file stores an alpha channel.
    package var hasAlpha: Bool
    /// "RGB", "Gray" or "CMYK".
    package var colorModel: String
    /// EXIF orientation 1...8; 1 when the file has none.
    package var orientation: Int
    /// The embedded ICC profile, when the file has one.
    package var iccProfile: Data?
    /// Dots per inch from JFIF density, PNG pHYs or EXIF resolution, when present.
    package var dpi: Double?
    /// The raw EXIF payload (TIFF-structured), when present.
    package var exif: Data?
    /// The XMP packet (UTF-8 XML), when present.
    package var xmp: Data?

    /// The header of the file `data` holds; throws what the codecs found wrong with it.
    package init(reading data: Data) throws(ImageFileError) {
        let h = try ImageCodecs.readHeader(data)
        format = h.format
        width = h.width
        height = h.height
        channels = h.channels
        bitDepth = h.bitDepth
        hasAlpha = h.hasAlpha
        colorModel = h.colorModel
        orientation = h.orientation
        iccProfile = h.iccProfile
        dpi = h.dpi
        exif = h.exif
        xmp = h.xmp
    }

    /// The bytes of the file at `path` that its header needs (`data`, as long as the file),
    /// without reading the rest of a large JPEG, PNG or WebP: see `HeaderBytes`. `isWhole`:
    /// `data` is the whole file (other formats, animations, small files). Throws `.ioError`.
    package static func bytes(ofFileAt path: String) throws(ImageFileError) -> (data: Data, isWhole: Bool) {
        let read = try HeaderBytes(readingFileAt: path)
        return (read.data, read.isWhole)
    }

    /// Whether the pixels are sRGB as stored: no profile (readers assume sRGB), or one that
    /// calls itself sRGB (and not linear).
    package var isSRGB: Bool { iccProfile.map(ColorProfiles.isSRGB) ?? true }

    /// Whether the EXIF block holds a GPS directory.
    package var exifHasGPS: Bool { exif.map(ImageMetadata.exifContainsGPS) ?? false }

    /// Whether the XMP packet holds a GPS property (or cannot be read to tell).
    package var xmpHasGPS: Bool { xmp.map(ImageMetadata.xmpContainsGPS) ?? false }

    /// Whether a file of `format` may hold more than one frame or page, judged from its first
    /// chunks only (`read(offset, count)` returns the bytes there, fewer at the end): false for
    /// a PNG without an animation control chunk before its image data, a WebP without the
    /// animation flag, and formats that hold one image; true otherwise (the frame reader
    /// decides).
    package static func mayHoldSeveralFrames(_ format: ImageFileFormat, read: (_ offset: Int, _ count: Int) -> [UInt8]) -> Bool {
        switch format {
        case .png:
            switch PNGCodec.firstChunk(among: ["acTL", "IDAT", "IEND"], maxChunks: 10_000, read: read) {
            case .found(let type, _): return type == "acTL"
            case .endOfBytes: return false
            case .tooManyChunks: return true  // a header of ten thousand chunks: let the frame reader decide
            }
        case .webp:
            // RIFF....WEBP, then an extended header chunk ("VP8X") whose flags byte has bit 1
            // (animation) set.
            let head = read(0, 21)
            guard head.count >= 21 else { return true }
            return Array(head[12..<16]) == Array("VP8X".utf8) && head[20] & 0x02 != 0
        case .gif, .tiff: return true
        case .jpeg, .heif, .avif, .jxl: return false
        }
    }
}

/// The metadata edits the tools make when they write a result: GPS removal and the pixel
/// dimensions EXIF and XMP state. Each is bounds-checked and reads only what it edits.
package enum ImageMetadata {
    /// `exif` without its GPS directory (every byte of it zeroed); unchanged when it has none;
    /// nil when the block is malformed (drop the EXIF block then, so no location leaks).
    package static func exifRemovingGPS(_ exif: Data) -> Data? { ImageCodecs.exifRemovingGPS(exif) }

    /// Whether `exif` holds a GPS directory.
    package static func exifContainsGPS(_ exif: Data) -> Bool { ImageCodecs.exifContainsGPS(exif) }

    /// `exif` with PixelXDimension/PixelYDimension set to `width` and `height`, where it has them.
    package static func exifSettingPixelDimensions(_ exif: Data, width: Int, height: Int) -> Data {
        ImageCodecs.exifSettingPixelDimensions(exif, width: width, height: height)
    }

    /// `xmp` without any GPS property; unchanged when it has none; nil when it is not
    /// well-formed enough to edit (drop the packet then, so no location leaks).
    package static func xmpRemovingGPS(_ xmp: Data) -> Data? { ImageCodecs.xmpRemovingGPS(xmp) }

    /// Whether `xmp` holds a GPS property; true when it cannot be read.
    package static func xmpContainsGPS(_ xmp: Data) -> Bool { ImageCodecs.xmpContainsGPS(xmp) }

    /// `xmp` with exif:PixelX/YDimension and tiff:ImageWidth/ImageLength set to `width` and
    /// `height`, where it has them.
    package static func xmpSettingPixelDimensions(_ xmp: Data, width: Int, height: Int) -> Data {
        ImageCodecs.xmpSettingPixelDimensions(xmp, width: width, height: height)
    }
}

/// A library opened on first use rather than at start-up (FFmpeg's, libmicrohttpd, libcrypto:
/// see CDeferredLibraries.h), for the server and video, which must not abort when one is
/// missing.
package enum DeferredLibrary {
    /// Opens `libraries` in turn (at once when already open); nil when all are open, else the
    /// loader's sentence naming what needed the first one that failed, its file and the reason.
    package static func failure(loading libraries: [cy_library]) -> String? {
        DeferredLibraries.failure(loading: libraries)
    }
}

/// TurboJPEG's scaled decoding for the server's previews: the IDCT at a fraction of the size,
/// far cheaper than decoding every pixel and throwing most away.
package enum ScaledJPEG {
    /// `data` decoded to RGBA8 at the smallest scale below 1 whose size is at least `width` x
    /// `height` (stored orientation); nil when no scale below 1 fits, or TurboJPEG cannot
    /// decode the file (the caller then decodes it in full).
    package static func decode(_ data: Data, atLeast width: Int, _ height: Int) -> (pixels: Data, width: Int, height: Int)? {
        ImageCodecs.decodeJPEG(data, scaledToAtLeast: width, height)
    }
}
