@_exported public import CyanotypeFileTypes
internal import CyanotypeCodecs
import Foundation

// The words of Cyanotype's file API (`ImageFileFormat`, `DecodeLimits`, `ChromaSubsampling`,
// `PNGFilter`, `TIFFCompression`, `ImageFileError`) are declared once, in CyanotypeFileTypes,
// which the codecs use and this module re-exports; the codecs themselves are not re-exported.
// What needs the codecs is added here.

extension ImageFileFormat {
    /// The format for a file extension ("jpg", "JPEG", "png", "webp", "tif", "gif", "heic",
    /// "avif", "jxl"), case-insensitive, dot optional; nil for other extensions.
    public init?(pathExtension: String) {
        guard let f = ImageCodecs.format(forPathExtension: pathExtension) else { return nil }
        self = f
    }

    /// The format the first bytes of `data` name (magic numbers, not the file name); nil when
    /// none of ours matches.
    public init?(sniffing data: Data) {
        guard let f = ImageCodecs.sniff(data) else { return nil }
        self = f
    }

    /// Whether `CIContext` can write this format here: always for JPEG, PNG, WebP, TIFF, GIF and
    /// JPEG XL; for HEIF and AVIF when libheif was built with an HEVC or AV1 encoder.
    public var canEncode: Bool { ImageCodecs.canEncode(self) }
}
