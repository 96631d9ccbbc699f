import Foundation

/// A TIFF-structured block (an EXIF payload, "II*\0" or "MM\0*" first) read entry by entry:
/// the one IFD reader behind the codecs' orientation and resolution, the upright rewrite and
/// the Image I/O-style dictionaries. Every read is bounds-checked and returns nil past the end.
struct TIFFBlock {
    let bytes: [UInt8]
    let little: Bool

    /// Nil unless the first bytes are a TIFF byte-order mark ("II" or "MM").
    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 8 else { return nil }
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        self.bytes = bytes
    }

    func u16(_ at: Int) -> Int? {
        guard at >= 0, at + 2 <= bytes.count else { return nil }
        let a = Int(bytes[at]), b = Int(bytes[at + 1])
        return little ? a | b << 8 : a << 8 | b
    }
    func u32(_ at: Int) -> Int? {
        guard let lo = u16(little ? at : at + 2), let hi = u16(little ? at + 2 : at) else { return nil }
        return lo | hi << 16
    }
    /// IFD0's offset, when the header carries TIFF's magic 42.
    var firstIFD: Int? { u16(2) == 42 ? u32(4) : nil }

    /// The byte offsets of the 12-byte entries of the IFD at `offset`: the directory
    /// `directory(at:)` reads (one walker, one set of limits for readers and editors), none
    /// when it does not fit the block.
    func entries(_ offset: Int) -> [Int] {
        directory(at: offset)?.entries.map { $0.valueAt - 8 } ?? []
    }

    /// The value of one entry: a string, a number, or an array of numbers (rationals as
    /// Double); nil for unknown types, opaque blobs (UNDEFINED over 4 bytes, e.g. MakerNote)
    /// and values out of bounds.
    func value(_ entry: Int) -> Any? {
        guard let type = u16(entry + 2), let count = u32(entry + 4), count > 0, count < 4096 else { return nil }
        let size: Int
        switch type {
        case 1, 2, 6, 7: size = 1
        case 3, 8: size = 2
        case 4, 9: size = 4
        case 5, 10: size = 8
        default: return nil
        }
        let total = size * count
        let at = total <= 4 ? entry + 8 : (u32(entry + 8) ?? -1)
        guard at >= 0, at + total <= bytes.count else { return nil }
        var numbers: [Any] = []
        for k in 0..<count {
            let p = at + k * size
            switch type {
            case 2:
                let raw = bytes[at..<(at + count)].prefix { $0 != 0 }
                return String(decoding: raw, as: UTF8.self).trimmingCharacters(in: .whitespaces)
            case 1, 7: numbers.append(Int(bytes[p]))
            case 6: numbers.append(Int(Int8(bitPattern: bytes[p])))
            case 3: numbers.append(u16(p) ?? 0)
            case 8: numbers.append(Int(Int16(truncatingIfNeeded: u16(p) ?? 0)))
            case 4: numbers.append(u32(p) ?? 0)
            case 9: numbers.append(Int(Int32(truncatingIfNeeded: u32(p) ?? 0)))
            case 5:
                let n = u32(p) ?? 0, d = u32(p + 4) ?? 0
                numbers.append(d == 0 ? 0.0 : Double(n) / Double(d))
            default:
                let n = Int32(truncatingIfNeeded: u32(p) ?? 0), d = Int32(truncatingIfNeeded: u32(p + 4) ?? 0)
                numbers.append(d == 0 ? 0.0 : Double(n) / Double(d))
            }
        }
        if type == 7 && count > 4 { return nil }
        return numbers.count == 1 ? numbers[0] : numbers
    }

    // MARK: Directories and in-place edits (EXIFEditing)

    /// One 12-byte entry of a directory.
    struct Entry {
        let tag: Int
        let type: Int
        let count: Int
        /// Where the value (4 bytes or less) or the offset to it sits.
        let valueAt: Int
        /// The value's size in bytes (`Int.max / 2` when it overflows, so bounds checks fail).
        var byteCount: Int {
            let size: Int
            switch type {
            case 1, 2, 6, 7: size = 1
            case 3, 8: size = 2
            case 4, 9, 11, 13: size = 4
            case 5, 10, 12: size = 8
            default: size = 1
            }
            return size.multipliedReportingOverflow(by: count).overflow ? Int.max / 2 : size * count
        }
    }

    /// A directory: where it starts, where it ends (just past the next-IFD offset), its entries.
    struct Directory {
        let start: Int
        let end: Int
        let entries: [Entry]
    }

    /// The directory at `offset`, or nil when it is empty, absurdly long (4096 entries or
    /// more) or its entries do not fit.
    func directory(at offset: Int) -> Directory? {
        guard offset >= 8, let n = u16(offset), n > 0, n < 4096 else { return nil }
        // The entries must fit; a next-IFD offset cut off by the block's end is tolerated
        // (some writers truncate the block just after the last entry).
        guard offset + 2 + 12 * n <= bytes.count else { return nil }
        let end = min(offset + 2 + 12 * n + 4, bytes.count)
        let entries = (0..<n).map { i -> Entry in
            let e = offset + 2 + 12 * i
            return Entry(tag: u16(e) ?? 0, type: u16(e + 2) ?? 0, count: u32(e + 4) ?? 0, valueAt: e + 8)
        }
        return Directory(start: offset, end: end, entries: entries)
    }

    /// Writes `v` as 2 bytes in the block's byte order at `at` of `b` (nothing when out of bounds).
    func put16(_ b: inout [UInt8], _ at: Int, _ v: UInt16) {
        guard at >= 0, at + 2 <= b.count else { return }
        let hi = UInt8(v >> 8), lo = UInt8(v & 0xFF)
        if little { b[at] = lo; b[at + 1] = hi } else { b[at] = hi; b[at + 1] = lo }
    }
    /// Writes `v` as 4 bytes in the block's byte order at `at` of `b` (nothing when out of bounds).
    func put32(_ b: inout [UInt8], _ at: Int, _ v: UInt32) {
        guard at >= 0, at + 4 <= b.count else { return }
        for i in 0..<4 {
            b[little ? at + i : at + 3 - i] = UInt8((v >> (8 * UInt32(i))) & 0xFF)
        }
    }
}

/// The few EXIF (TIFF IFD0) fields the codecs report: orientation and resolution.
/// Every read is bounds-checked; a damaged EXIF block yields `nil` fields, never a crash.
struct EXIFSummary: Equatable {
    var orientation: Int?
    var dpi: Double?

    /// Parses a TIFF-structured payload ("II*\0" or "MM\0*" first).
    init(tiff: UnsafeRawBufferPointer) {
        guard let block = TIFFBlock([UInt8](tiff)), let ifd = block.firstIFD else { return }
        var xRes: Double?
        var unit = 2  // inches, TIFF's default
        for entry in block.entries(ifd) {
            guard let tag = block.u16(entry), let type = block.u16(entry + 2) else { break }
            switch tag {
            case 0x0112 where type == 3:  // Orientation, SHORT
                if let v = block.u16(entry + 8), (1...8).contains(v) { orientation = v }
            case 0x011A where type == 5:  // XResolution, RATIONAL at an offset
                if let off = block.u32(entry + 8), let num = block.u32(off), let den = block.u32(off + 4), den > 0, num > 0 {
                    xRes = Double(num) / Double(den)
                }
            case 0x0128 where type == 3:  // ResolutionUnit: 2 inch, 3 cm
                if let v = block.u16(entry + 8) { unit = v }
            default: break
            }
        }
        if let xRes {
            switch unit {
            case 2: dpi = xRes
            case 3: dpi = xRes * 2.54
            default: break
            }
        }
    }

    init(tiff data: Data) {
        self = data.withUnsafeBytes { EXIFSummary(tiff: $0) }
    }

    /// The block with IFD0's orientation set to 1 (written pixels are already upright).
    static func uprighted(_ data: Data) -> Data {
        guard let block = TIFFBlock([UInt8](data)), let ifd = block.u32(4) else { return data }
        var bytes = block.bytes
        for entry in block.entries(ifd) {
            guard block.u16(entry) == 0x0112, block.u16(entry + 2) == 3, entry + 10 <= bytes.count else { continue }
            bytes[entry + 8] = block.little ? 1 : 0
            bytes[entry + 9] = block.little ? 0 : 1
        }
        return Data(bytes)
    }
}

/// An EXIF block read into the three dictionaries Image I/O reports, keyed by Image I/O's
/// names: IFD0 as `{TIFF}` (Make, Model, DateTime...), the Exif sub-IFD as `{Exif}`
/// (ExposureTime, FNumber, ISOSpeedRatings, DateTimeOriginal, FocalLength, LensModel...) and
/// the GPS IFD as `{GPS}` (Latitude/Longitude in decimal degrees with their Ref letters,
/// Altitude...). Unknown tags are kept under their hex number ("0x1234"). A damaged block
/// gives fewer entries, never a trap.
public struct EXIFProperties {
    /// IFD0's entries (`{TIFF}`).
    public var tiff: [String: Any] = [:]
    /// The Exif sub-IFD's entries (`{Exif}`).
    public var exif: [String: Any] = [:]
    /// The GPS IFD's entries (`{GPS}`), degrees as decimal numbers.
    public var gps: [String: Any] = [:]

    // Image I/O's key strings (kCGImagePropertyTIFF..., kCGImagePropertyExif...,
    // kCGImagePropertyGPS...), by tag.
    static let tiffNames: [Int: String] = [
        0x0103: "Compression", 0x0106: "PhotometricInterpretation", 0x010D: "DocumentName", 0x010E: "ImageDescription",
        0x010F: "Make", 0x0110: "Model", 0x0112: "Orientation", 0x011A: "XResolution", 0x011B: "YResolution",
        0x0128: "ResolutionUnit", 0x012D: "TransferFunction", 0x0131: "Software", 0x0132: "DateTime", 0x013B: "Artist",
        0x013C: "HostComputer", 0x013E: "WhitePoint", 0x013F: "PrimaryChromaticities", 0x0142: "TileWidth",
        0x0143: "TileLength", 0x8298: "Copyright",
    ]
    static let exifNames: [Int: String] = [
        0x829A: "ExposureTime", 0x829D: "FNumber", 0x8822: "ExposureProgram", 0x8824: "SpectralSensitivity",
        0x8827: "ISOSpeedRatings", 0x8828: "OECF", 0x8830: "SensitivityType", 0x8831: "StandardOutputSensitivity",
        0x8832: "RecommendedExposureIndex", 0x8833: "ISOSpeed", 0x8834: "ISOSpeedLatitudeyyy", 0x8835: "ISOSpeedLatitudezzz",
        0x9000: "ExifVersion", 0x9003: "DateTimeOriginal", 0x9004: "DateTimeDigitized", 0x9010: "OffsetTime",
        0x9011: "OffsetTimeOriginal", 0x9012: "OffsetTimeDigitized", 0x9101: "ComponentsConfiguration",
        0x9102: "CompressedBitsPerPixel", 0x9201: "ShutterSpeedValue", 0x9202: "ApertureValue", 0x9203: "BrightnessValue",
        0x9204: "ExposureBiasValue", 0x9205: "MaxApertureValue", 0x9206: "SubjectDistance", 0x9207: "MeteringMode",
        0x9208: "LightSource", 0x9209: "Flash", 0x920A: "FocalLength", 0x9214: "SubjectArea", 0x927C: "MakerNote",
        0x9286: "UserComment", 0x9290: "SubsecTime", 0x9291: "SubsecTimeOriginal", 0x9292: "SubsecTimeDigitized",
        0xA000: "FlashPixVersion", 0xA001: "ColorSpace", 0xA002: "PixelXDimension", 0xA003: "PixelYDimension",
        0xA004: "RelatedSoundFile", 0xA20B: "FlashEnergy", 0xA20C: "SpatialFrequencyResponse",
        0xA20E: "FocalPlaneXResolution", 0xA20F: "FocalPlaneYResolution", 0xA210: "FocalPlaneResolutionUnit",
        0xA214: "SubjectLocation", 0xA215: "ExposureIndex", 0xA217: "SensingMethod", 0xA300: "FileSource",
        0xA301: "SceneType", 0xA302: "CFAPattern", 0xA401: "CustomRendered", 0xA402: "ExposureMode", 0xA403: "WhiteBalance",
        0xA404: "DigitalZoomRatio", 0xA405: "FocalLenIn35mmFilm", 0xA406: "SceneCaptureType", 0xA407: "GainControl",
        0xA408: "Contrast", 0xA409: "Saturation", 0xA40A: "Sharpness", 0xA40B: "DeviceSettingDescription",
        0xA40C: "SubjectDistRange", 0xA420: "ImageUniqueID", 0xA430: "CameraOwnerName", 0xA431: "BodySerialNumber",
        0xA432: "LensSpecification", 0xA433: "LensMake", 0xA434: "LensModel", 0xA435: "LensSerialNumber", 0xA460: "CompositeImage",
        0xA461: "SourceImageNumberOfCompositeImage", 0xA462: "SourceExposureTimesOfCompositeImage", 0xA500: "Gamma",
    ]
    static let gpsNames: [Int: String] = [
        0x0000: "GPSVersion", 0x0001: "LatitudeRef", 0x0002: "Latitude", 0x0003: "LongitudeRef", 0x0004: "Longitude",
        0x0005: "AltitudeRef", 0x0006: "Altitude", 0x0007: "TimeStamp", 0x0008: "Satellites", 0x0009: "Status",
        0x000A: "MeasureMode", 0x000B: "DOP", 0x000C: "SpeedRef", 0x000D: "Speed", 0x000E: "TrackRef", 0x000F: "Track",
        0x0010: "ImgDirectionRef", 0x0011: "ImgDirection", 0x0012: "MapDatum", 0x0013: "DestLatitudeRef",
        0x0014: "DestLatitude", 0x0015: "DestLongitudeRef", 0x0016: "DestLongitude", 0x0017: "DestBearingRef",
        0x0018: "DestBearing", 0x0019: "DestDistanceRef", 0x001A: "DestDistance", 0x001B: "ProcessingMethod",
        0x001C: "AreaInformation", 0x001D: "DateStamp", 0x001E: "Differential", 0x001F: "HPositioningError",
    ]

    /// Reads `data` (the first MiB of it); all three dictionaries are empty when it is not
    /// TIFF-structured.
    public init(_ data: Data) {
        guard let block = TIFFBlock([UInt8](data.prefix(1 << 20))), let first = block.firstIFD else { return }
        /// Entries of the IFD at `offset`, named by `names`; sub-IFD pointers collected.
        func ifd(_ offset: Int, _ names: [Int: String], _ pointers: inout [Int: Int]) -> [String: Any] {
            var out: [String: Any] = [:]
            for entry in block.entries(offset) {
                guard let tag = block.u16(entry) else { break }
                if tag == 0x8769 || tag == 0x8825, let p = block.u32(entry + 8) { pointers[tag] = p; continue }
                guard let v = block.value(entry) else { continue }
                out[names[tag] ?? String(format: "0x%04X", tag)] = v
            }
            return out
        }
        var pointers: [Int: Int] = [:]
        var none: [Int: Int] = [:]
        tiff = ifd(first, Self.tiffNames, &pointers)
        if let e = pointers[0x8769] { exif = ifd(e, Self.exifNames, &none) }
        if let g = pointers[0x8825] {
            gps = ifd(g, Self.gpsNames, &none)
            // Degrees, minutes, seconds -> decimal degrees, as Image I/O reports them.
            for key in ["Latitude", "Longitude"] {
                if let dms = gps[key] as? [Any], dms.count == 3, let d = dms[0] as? Double, let m = dms[1] as? Double,
                    let s = dms[2] as? Double
                {
                    gps[key] = d + m / 60 + s / 3600
                }
            }
        }
    }
}

/// Small big/little-endian readers over raw bytes, all bounds-checked by the caller's guard.
extension UnsafeRawBufferPointer {
    @inline(__always) func be16(_ at: Int) -> Int { Int(self[at]) << 8 | Int(self[at + 1]) }
    @inline(__always) func be32(_ at: Int) -> Int { be16(at) << 16 | be16(at + 2) }
    @inline(__always) func le32(_ at: Int) -> Int {
        Int(self[at]) | Int(self[at + 1]) << 8 | Int(self[at + 2]) << 16 | Int(self[at + 3]) << 24
    }
    @inline(__always) func le24(_ at: Int) -> Int { Int(self[at]) | Int(self[at + 1]) << 8 | Int(self[at + 2]) << 16 }
    /// True when the bytes at `at` equal `ascii`.
    func matches(_ ascii: String, at: Int) -> Bool {
        let u = Array(ascii.utf8)
        guard at >= 0, at + u.count <= count else { return false }
        for i in 0..<u.count where self[at + i] != u[i] { return false }
        return true
    }
}

/// Runs `body` over the bytes of `data`, keeping `ImageFileError` typed through `withUnsafeBytes`.
@inline(__always)
func withBytes<R>(_ data: Data, _ body: (UnsafeRawBufferPointer) throws(ImageFileError) -> R) throws(ImageFileError) -> R {
    let result: Result<R, ImageFileError> = data.withUnsafeBytes { raw in
        do throws(ImageFileError) { return .success(try body(raw)) } catch { return .failure(error) }
    }
    return try result.get()
}

/// Allocates `count` uninitialised elements and lets `body` fill them; typed errors pass through.
@inline(__always)
func makeArray<T>(count: Int, _ body: (UnsafeMutableBufferPointer<T>) throws(ImageFileError) -> Void) throws(ImageFileError) -> [T] {
    var failure: ImageFileError?
    let array = [T](unsafeUninitializedCapacity: count) { buffer, initialized in
        do throws(ImageFileError) {
            try body(buffer)
            initialized = count
        } catch {
            failure = error
            initialized = 0
        }
    }
    if let failure { throw failure }
    return array
}
