/// Image I/O's metadata dictionary keys, as `CIImage.properties` carries them.
public let kCGImagePropertyTIFFDictionary = "{TIFF}"
public let kCGImagePropertyGPSDictionary = "{GPS}"

/// Reads the EXIF block of a file (TIFF-structured: IFD0, its Exif sub-IFD and GPS IFD) into
/// Image I/O-style dictionaries: `{TIFF}` (Make, Model, DateTime...), `{Exif}` (ExposureTime,
/// FNumber, ISOSpeedRatings, DateTimeOriginal, FocalLength, LensModel...) and `{GPS}`
/// (Latitude/Longitude in decimal degrees with their Ref letters, Altitude...). Unknown tags
/// are kept under their hex number. Every read is bounds-checked: a damaged block gives fewer
/// entries, never a trap.
enum EXIFDictionary {
    static let tiffNames: [Int: String] = [
        0x010E: "ImageDescription", 0x010F: "Make", 0x0110: "Model", 0x0112: "Orientation", 0x011A: "XResolution",
        0x011B: "YResolution", 0x0128: "ResolutionUnit", 0x0131: "Software", 0x0132: "DateTime", 0x013B: "Artist",
        0x8298: "Copyright",
    ]
    static let exifNames: [Int: String] = [
        0x829A: "ExposureTime", 0x829D: "FNumber", 0x8822: "ExposureProgram", 0x8827: "ISOSpeedRatings",
        0x9000: "ExifVersion", 0x9003: "DateTimeOriginal", 0x9004: "DateTimeDigitized", 0x9201: "ShutterSpeedValue",
        0x9202: "ApertureValue", 0x9204: "ExposureBiasValue", 0x9207: "MeteringMode", 0x9209: "Flash",
        0x920A: "FocalLength", 0xA001: "ColorSpace", 0xA002: "PixelXDimension", 0xA003: "PixelYDimension",
        0xA405: "FocalLenIn35mmFilm", 0xA433: "LensMake", 0xA434: "LensModel", 0x9010: "OffsetTime",
    ]
    static let gpsNames: [Int: String] = [
        0x0001: "LatitudeRef", 0x0002: "Latitude", 0x0003: "LongitudeRef", 0x0004: "Longitude",
        0x0005: "AltitudeRef", 0x0006: "Altitude", 0x0007: "TimeStamp", 0x000C: "SpeedRef", 0x000D: "Speed",
        0x0010: "ImgDirectionRef", 0x0011: "ImgDirection", 0x001D: "DateStamp",
    ]

    /// The dictionaries found (empty when the block is not TIFF-structured).
    static func parse(_ data: Data) -> [String: Any] {
        let bytes = [UInt8](data.prefix(1 << 20))
        guard bytes.count >= 8 else { return [:] }
        let little: Bool
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return [:]
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
        /// The value of one 12-byte entry: strings, numbers, or arrays of numbers.
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
            if type == 7 && count > 4 { return nil }      // opaque blobs (MakerNote...) are skipped
            return numbers.count == 1 ? numbers[0] : numbers
        }
        /// Entries of the IFD at `offset`, named by `names`; sub-IFD pointers collected.
        func ifd(_ offset: Int, _ names: [Int: String], _ pointers: inout [Int: Int]) -> [String: Any] {
            guard let n = u16(offset) else { return [:] }
            var out: [String: Any] = [:]
            for i in 0..<min(n, 512) {
                let entry = offset + 2 + i * 12
                guard let tag = u16(entry) else { break }
                if tag == 0x8769 || tag == 0x8825, let p = u32(entry + 8) { pointers[tag] = p; continue }
                guard let v = value(entry) else { continue }
                out[names[tag] ?? String(format: "0x%04X", tag)] = v
            }
            return out
        }
        guard u16(2) == 42, let first = u32(4) else { return [:] }
        var pointers: [Int: Int] = [:]
        var result: [String: Any] = [:]
        let tiff = ifd(first, tiffNames, &pointers)
        if !tiff.isEmpty { result[kCGImagePropertyTIFFDictionary] = tiff }
        var none: [Int: Int] = [:]
        if let e = pointers[0x8769] {
            let exif = ifd(e, exifNames, &none)
            if !exif.isEmpty { result[kCGImagePropertyExifDictionary] = exif }
        }
        if let g = pointers[0x8825] {
            var gps = ifd(g, gpsNames, &none)
            // Degrees, minutes, seconds -> decimal degrees, as Image I/O reports them.
            for key in ["Latitude", "Longitude"] {
                if let dms = gps[key] as? [Any], dms.count == 3, let d = dms[0] as? Double, let m = dms[1] as? Double, let s = dms[2] as? Double {
                    gps[key] = d + m / 60 + s / 3600
                }
            }
            if !gps.isEmpty { result[kCGImagePropertyGPSDictionary] = gps }
        }
        return result
    }
}
