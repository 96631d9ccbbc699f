internal import CyanotypeCodecs
import Foundation

// Image I/O's property dictionary for an image in a file: the top-level keys (PixelWidth,
// Depth, ColorModel, Orientation, DPIWidth, ProfileName...) and the per-format and metadata
// dictionaries ({TIFF}, {Exif}, {GPS}, {JFIF}, {PNG}), keyed as
// CGImageSourceCopyPropertiesAtIndex keys them, from one header read (no pixels decoded).

/// Image I/O's key: whether the samples are floating point (`kCGImagePropertyIsFloat`).
public let kCGImagePropertyIsFloat = "IsFloat"
/// Image I/O's key: whether the file stores palette indices (`kCGImagePropertyIsIndexed`).
public let kCGImagePropertyIsIndexed = "IsIndexed"
/// Image I/O's value of `ColorModel` for RGB images.
public let kCGImagePropertyColorModelRGB = "RGB"
/// Image I/O's value of `ColorModel` for greyscale images.
public let kCGImagePropertyColorModelGray = "Gray"
/// Image I/O's value of `ColorModel` for CMYK images.
public let kCGImagePropertyColorModelCMYK = "CMYK"
/// Image I/O's value of `ColorModel` for L*a*b* images.
public let kCGImagePropertyColorModelLab = "Lab"
/// Image I/O's key for the JFIF dictionary of a JPEG (`{JFIF}`).
public let kCGImagePropertyJFIFDictionary = "{JFIF}"
/// `{JFIF}`: the JFIF version as an array, e.g. [1, 0, 1] for 1.01.
public let kCGImagePropertyJFIFVersion = "JFIFVersion"
/// `{JFIF}`: horizontal density.
public let kCGImagePropertyJFIFXDensity = "XDensity"
/// `{JFIF}`: vertical density.
public let kCGImagePropertyJFIFYDensity = "YDensity"
/// `{JFIF}`: the density unit: 0 none (aspect ratio), 1 dots per inch, 2 dots per centimetre.
public let kCGImagePropertyJFIFDensityUnit = "DensityUnit"
/// `{JFIF}`: whether the JPEG is progressive.
public let kCGImagePropertyJFIFIsProgressive = "IsProgressive"
/// `{PNG}`: the gAMA chunk's gamma (e.g. 0.45455).
public let kCGImagePropertyPNGGamma = "Gamma"
/// `{PNG}`: 0 no interlace, 1 Adam7.
public let kCGImagePropertyPNGInterlaceType = "InterlaceType"
/// `{PNG}`: pHYs horizontal pixels per metre.
public let kCGImagePropertyPNGXPixelsPerMeter = "XPixelsPerMeter"
/// `{PNG}`: pHYs vertical pixels per metre.
public let kCGImagePropertyPNGYPixelsPerMeter = "YPixelsPerMeter"
/// `{PNG}`: the sRGB chunk's rendering intent.
public let kCGImagePropertyPNGsRGBIntent = "sRGBIntent"
/// `{PNG}`: the "Title" text chunk.
public let kCGImagePropertyPNGTitle = "Title"
/// `{PNG}`: the "Author" text chunk.
public let kCGImagePropertyPNGAuthor = "Author"
/// `{PNG}`: the "Description" text chunk.
public let kCGImagePropertyPNGDescription = "Description"
/// `{PNG}`: the "Copyright" text chunk.
public let kCGImagePropertyPNGCopyright = "Copyright"
/// `{PNG}`: the "Creation Time" text chunk.
public let kCGImagePropertyPNGCreationTime = "CreationTime"
/// `{PNG}`: the "Software" text chunk.
public let kCGImagePropertyPNGSoftware = "Software"
/// `{PNG}`: the "Comment" text chunk.
public let kCGImagePropertyPNGComment = "Comment"
/// `{TIFF}`: the TIFF compression code (1 none, 5 LZW, 8 deflate...), for TIFF files.
public let kCGImagePropertyTIFFCompression = "Compression"
/// `{TIFF}`: the photometric interpretation (1 black is zero, 2 RGB...), for TIFF files.
public let kCGImagePropertyTIFFPhotometricInterpretation = "PhotometricInterpretation"
/// `{TIFF}`: the camera maker.
public let kCGImagePropertyTIFFMake = "Make"
/// `{TIFF}`: the camera model.
public let kCGImagePropertyTIFFModel = "Model"
/// `{TIFF}`: the orientation as EXIF/TIFF stores it.
public let kCGImagePropertyTIFFOrientation = "Orientation"
/// `{TIFF}`: the date and time of the last change ("YYYY:MM:DD HH:MM:SS").
public let kCGImagePropertyTIFFDateTime = "DateTime"
/// `{TIFF}`: the software that wrote the file.
public let kCGImagePropertyTIFFSoftware = "Software"
/// `{Exif}`: exposure time in seconds.
public let kCGImagePropertyExifExposureTime = "ExposureTime"
/// `{Exif}`: the f-number.
public let kCGImagePropertyExifFNumber = "FNumber"
/// `{Exif}`: ISO speed (a number, or an array of them).
public let kCGImagePropertyExifISOSpeedRatings = "ISOSpeedRatings"
/// `{Exif}`: when the picture was taken ("YYYY:MM:DD HH:MM:SS").
public let kCGImagePropertyExifDateTimeOriginal = "DateTimeOriginal"
/// `{Exif}`: the width of the picture as the camera wrote it.
public let kCGImagePropertyExifPixelXDimension = "PixelXDimension"
/// `{Exif}`: the height of the picture as the camera wrote it.
public let kCGImagePropertyExifPixelYDimension = "PixelYDimension"
/// `{Exif}`: focal length in millimetres.
public let kCGImagePropertyExifFocalLength = "FocalLength"
/// `{Exif}`: the lens model.
public let kCGImagePropertyExifLensModel = "LensModel"
/// `{GPS}`: latitude in decimal degrees (with `LatitudeRef` "N" or "S").
public let kCGImagePropertyGPSLatitude = "Latitude"
/// `{GPS}`: "N" or "S".
public let kCGImagePropertyGPSLatitudeRef = "LatitudeRef"
/// `{GPS}`: longitude in decimal degrees (with `LongitudeRef` "E" or "W").
public let kCGImagePropertyGPSLongitude = "Longitude"
/// `{GPS}`: "E" or "W".
public let kCGImagePropertyGPSLongitudeRef = "LongitudeRef"
/// `{GPS}`: altitude in metres (with `AltitudeRef` 0 above, 1 below sea level).
public let kCGImagePropertyGPSAltitude = "Altitude"
/// Cyanotype: the file's XMP packet as read (UTF-8 XML `Data`), written back by every encoder
/// (tiff:Orientation set to match the pixels) unless `.stripMetadata` is set.
public let kCyanotypePropertyRawXMP = "CyanotypeRawXMP"
/// Cyanotype: whether the file is losslessly coded (WebP VP8L, lossless JPEG XL); Image I/O has
/// no key for it.
public let kCyanotypePropertyIsLossless = "CyanotypeIsLossless"

/// Image I/O's property dictionaries for image files, without decoding pixels: the values
/// `CGImageSourceCopyPropertiesAtIndex` returns, under Apple's key strings (use them from
/// scripts, `cyanotype info --json` prints them).
public enum ImageFileProperties {
    /// The properties of the (first) image in `data`: PixelWidth, PixelHeight, Depth,
    /// ColorModel, HasAlpha, Orientation, DPIWidth/DPIHeight, ProfileName, IsFloat/IsIndexed
    /// where they apply, `{TIFF}`/`{Exif}`/`{GPS}` from EXIF (TIFF files: from the file's own
    /// directory), `{JFIF}` for JPEG and `{PNG}` for PNG. Values are numbers, strings, Booleans
    /// and arrays of them, so the dictionary converts to JSON as it is.
    public static func properties(ofImageData data: Data) throws(ImageIOError) -> [String: Any] {
        if RAWFile.isRAW(data) {
            do { return try RAWFile(.data(data), name: "data").properties } catch { throw .codec(path: nil, error.fileError) }
        }
        do { return dictionary(for: try ImageCodecs.readHeader(data)) } catch { throw .codec(path: nil, error) }
    }

    /// The properties of the image in the file at `url` (see `properties(ofImageData:)`),
    /// reading only the header's bytes of a JPEG, PNG or WebP (`HeaderBytes`); errors name the
    /// file.
    public static func properties(contentsOf url: URL) throws(ImageIOError) -> [String: Any] {
        var data: Data
        do {
            let read = try HeaderBytes(readingFileAt: url.path)
            data = read.data
            if !read.isWhole, RAWFile.isRAW(data), let file = read.file { data = try file.contents() }
        } catch {
            throw .codec(path: url.path, error)
        }
        do { return try properties(ofImageData: data) } catch let ImageIOError.codec(_, e) { throw .codec(path: url.path, e) }
    }

    /// The dictionary for a header already read: what `CGImageSourceCopyPropertiesAtIndex`
    /// returns for one image or frame (the frame's timing dictionaries are the caller's).
    static func dictionary(for h: ImageHeader) -> [String: Any] {
        var p: [String: Any] = [
            kCGImagePropertyPixelWidth: h.width, kCGImagePropertyPixelHeight: h.height,
            kCGImagePropertyOrientation: h.orientation, kCGImagePropertyDepth: h.bitDepth,
            kCGImagePropertyColorModel: h.colorModel, kCGImagePropertyHasAlpha: h.hasAlpha,
        ]
        if let d = h.dpi { p[kCGImagePropertyDPIWidth] = d; p[kCGImagePropertyDPIHeight] = d }
        if let icc = h.iccProfile { p[kCGImagePropertyProfileName] = ColorProfiles.description(of: icc) ?? "embedded ICC profile" }
        if let exif = h.exif {
            for (k, v) in EXIFDictionary.parse(exif) { p[k] = v }
        }
        if let iptc = h.iptc, let dictionary = IPTCDictionary.parse(iptc) { p[kCGImagePropertyIPTCDictionary] = dictionary }
        // Facts of the format: top-level ones, Cyanotype's, and the format's own dictionary.
        var own: [String: Any] = [:]
        for (key, value) in h.formatProperties {
            switch key {
            case "IsFloat": p[kCGImagePropertyIsFloat] = value.value
            case "IsIndexed": p[kCGImagePropertyIsIndexed] = value.value
            case "IsLossless": p[kCyanotypePropertyIsLossless] = value.value
            case "HasAnimation": break
            default: own[key] = value.value
            }
        }
        if h.bitDepth == 32 { p[kCGImagePropertyIsFloat] = true }
        if !own.isEmpty, let name = dictionaryName(h.format) {
            // TIFF: the file's own facts join the {TIFF} dictionary EXIF's IFD0 filled.
            var merged = p[name] as? [String: Any] ?? [:]
            for (k, v) in own { merged[k] = v }
            p[name] = merged
        }
        return p
    }

    /// The format's own dictionary in Image I/O ({JFIF}, {PNG}, {TIFF}); nil for formats whose
    /// still images have none.
    static func dictionaryName(_ f: ImageFileFormat) -> String? {
        switch f {
        case .jpeg: return kCGImagePropertyJFIFDictionary
        case .png: return "{PNG}"
        case .tiff: return kCGImagePropertyTIFFDictionary
        default: return nil
        }
    }
}
