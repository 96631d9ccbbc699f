internal import CyanotypeCodecs
import Foundation

/// Image I/O's metadata dictionary keys, as `CIImage.properties` carries them.
public let kCGImagePropertyTIFFDictionary = "{TIFF}"
/// Image I/O's key for the GPS dictionary (`{GPS}`).
public let kCGImagePropertyGPSDictionary = "{GPS}"

/// A file's EXIF block as `CIImage.properties` entries: the codecs' `EXIFProperties` (the one
/// EXIF/IFD reader) placed under Image I/O's `{TIFF}`, `{Exif}` and `{GPS}` keys; empty
/// dictionaries are left out.
enum EXIFDictionary {
    /// The dictionaries found (empty when the block is not TIFF-structured).
    static func parse(_ data: Data) -> [String: Any] {
        let e = EXIFProperties(data)
        var result: [String: Any] = [:]
        if !e.tiff.isEmpty { result[kCGImagePropertyTIFFDictionary] = e.tiff }
        if !e.exif.isEmpty { result[kCGImagePropertyExifDictionary] = e.exif }
        if !e.gps.isEmpty { result[kCGImagePropertyGPSDictionary] = e.gps }
        return result
    }
}
