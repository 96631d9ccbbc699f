/// A pixel format for rendering to memory, with Core Image's names. All multi-channel formats
/// hold premultiplied alpha unless the context's `outputPremultiplied` option says otherwise.
public struct CIFormat: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The format's number (Cyanotype's own numbering; use the named formats).
    public let rawValue: Int32
    /// The format with this number; one not listed here is refused by renders.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// 8 bits per component, four components: alpha, red, green, blue.
    public static let ARGB8 = CIFormat(rawValue: 1)
    /// 8 bits per component, four components: blue, green, red, alpha.
    public static let BGRA8 = CIFormat(rawValue: 2)
    /// 8 bits per component, four components: red, green, blue, alpha.
    public static let RGBA8 = CIFormat(rawValue: 3)
    /// 8 bits per component, four components: alpha, blue, green, red.
    public static let ABGR8 = CIFormat(rawValue: 4)
    /// 16-bit unsigned integer components (native endian): red, green, blue, alpha.
    public static let RGBA16 = CIFormat(rawValue: 5)
    /// 16-bit floating-point (half) components: red, green, blue, alpha.
    public static let RGBAh = CIFormat(rawValue: 6)
    /// 32-bit floating-point components: red, green, blue, alpha (the working format).
    public static let RGBAf = CIFormat(rawValue: 7)
    /// 16-bit unsigned integer red, green and blue, and a fourth component always at its maximum.
    public static let RGBX16 = CIFormat(rawValue: 8)
    /// One 8-bit component: red.
    public static let R8 = CIFormat(rawValue: 9)
    /// One 16-bit unsigned integer component: red.
    public static let R16 = CIFormat(rawValue: 10)
    /// One 16-bit floating-point component: red.
    public static let Rh = CIFormat(rawValue: 11)
    /// One 32-bit floating-point component: red.
    public static let Rf = CIFormat(rawValue: 12)
    /// One 8-bit component: alpha.
    public static let A8 = CIFormat(rawValue: 13)
    /// One 8-bit component: luminance (Rec. 709 weights of red, green and blue).
    public static let L8 = CIFormat(rawValue: 14)
    /// One 16-bit unsigned integer component: luminance.
    public static let L16 = CIFormat(rawValue: 15)
    /// One 16-bit floating-point component: luminance.
    public static let Lh = CIFormat(rawValue: 16)
    /// One 32-bit floating-point component: luminance.
    public static let Lf = CIFormat(rawValue: 17)
    /// Two 8-bit components: luminance and alpha.
    public static let LA8 = CIFormat(rawValue: 18)
    /// Two 8-bit components: red and green.
    public static let RG8 = CIFormat(rawValue: 19)
    /// One 16-bit unsigned integer component: alpha.
    public static let A16 = CIFormat(rawValue: 20)
    /// One 16-bit floating-point component: alpha.
    public static let Ah = CIFormat(rawValue: 21)
    /// One 32-bit floating-point component: alpha.
    public static let Af = CIFormat(rawValue: 22)
    /// Two 16-bit unsigned integer components: luminance and alpha.
    public static let LA16 = CIFormat(rawValue: 23)
    /// Two 16-bit floating-point components: luminance and alpha.
    public static let LAh = CIFormat(rawValue: 24)
    /// Two 32-bit floating-point components: luminance and alpha.
    public static let LAf = CIFormat(rawValue: 25)
    /// Two 16-bit unsigned integer components: red and green.
    public static let RG16 = CIFormat(rawValue: 26)
    /// Two 16-bit floating-point components: red and green.
    public static let RGh = CIFormat(rawValue: 27)
    /// Two 32-bit floating-point components: red and green.
    public static let RGf = CIFormat(rawValue: 28)
    /// 16-bit floating-point red, green and blue, and a fourth component always 1.
    public static let rgbXh = CIFormat(rawValue: 29)
    /// 32-bit floating-point red, green and blue, and a fourth component always 1.
    public static let rgbXf = CIFormat(rawValue: 30)
    /// Apple's packed 10-bit RGB. The name compiles, but Apple does not document its bit
    /// layout, so renders refuse it (`CIRenderError.unsupportedFormat`): use `RGBA16`.
    public static let RGB10 = CIFormat(rawValue: 31)

    enum Sample { case uint8, uint16, half, float }
    enum Layout { case rgba, bgra, argb, abgr, rgbx, r, a, l, la, rg }

    struct Info { let layout: Layout; let sample: Sample; let channels: Int }
    var info: Info? {
        switch self {
        case .RGBA8: return Info(layout: .rgba, sample: .uint8, channels: 4)
        case .BGRA8: return Info(layout: .bgra, sample: .uint8, channels: 4)
        case .ARGB8: return Info(layout: .argb, sample: .uint8, channels: 4)
        case .ABGR8: return Info(layout: .abgr, sample: .uint8, channels: 4)
        case .RGBA16: return Info(layout: .rgba, sample: .uint16, channels: 4)
        case .RGBX16: return Info(layout: .rgbx, sample: .uint16, channels: 4)
        case .RGBAh: return Info(layout: .rgba, sample: .half, channels: 4)
        case .RGBAf: return Info(layout: .rgba, sample: .float, channels: 4)
        case .R8: return Info(layout: .r, sample: .uint8, channels: 1)
        case .R16: return Info(layout: .r, sample: .uint16, channels: 1)
        case .Rh: return Info(layout: .r, sample: .half, channels: 1)
        case .Rf: return Info(layout: .r, sample: .float, channels: 1)
        case .A8: return Info(layout: .a, sample: .uint8, channels: 1)
        case .L8: return Info(layout: .l, sample: .uint8, channels: 1)
        case .L16: return Info(layout: .l, sample: .uint16, channels: 1)
        case .Lh: return Info(layout: .l, sample: .half, channels: 1)
        case .Lf: return Info(layout: .l, sample: .float, channels: 1)
        case .LA8: return Info(layout: .la, sample: .uint8, channels: 2)
        case .RG8: return Info(layout: .rg, sample: .uint8, channels: 2)
        case .A16: return Info(layout: .a, sample: .uint16, channels: 1)
        case .Ah: return Info(layout: .a, sample: .half, channels: 1)
        case .Af: return Info(layout: .a, sample: .float, channels: 1)
        case .LA16: return Info(layout: .la, sample: .uint16, channels: 2)
        case .LAh: return Info(layout: .la, sample: .half, channels: 2)
        case .LAf: return Info(layout: .la, sample: .float, channels: 2)
        case .RG16: return Info(layout: .rg, sample: .uint16, channels: 2)
        case .RGh: return Info(layout: .rg, sample: .half, channels: 2)
        case .RGf: return Info(layout: .rg, sample: .float, channels: 2)
        case .rgbXh: return Info(layout: .rgbx, sample: .half, channels: 4)
        case .rgbXf: return Info(layout: .rgbx, sample: .float, channels: 4)
        default: return nil
        }
    }
    /// Bytes per pixel, or nil for an unknown format.
    public var bytesPerPixel: Int? {
        guard let i = info else { return nil }
        let size: Int
        switch i.sample {
        case .uint8: size = 1;
        case .uint16, .half: size = 2;
        case .float: size = 4
        }
        return size * i.channels
    }
    /// The format's Core Image name (`RGBA8`).
    public var description: String {
        let names: [Int32: String] = [
            1: "ARGB8", 2: "BGRA8", 3: "RGBA8", 4: "ABGR8", 5: "RGBA16", 6: "RGBAh", 7: "RGBAf",
            8: "RGBX16", 9: "R8", 10: "R16", 11: "Rh", 12: "Rf", 13: "A8", 14: "L8", 15: "L16", 16: "Lh", 17: "Lf", 18: "LA8", 19: "RG8",
            20: "A16", 21: "Ah", 22: "Af", 23: "LA16", 24: "LAh", 25: "LAf", 26: "RG16", 27: "RGh", 28: "RGf", 29: "rgbXh", 30: "rgbXf",
            31: "RGB10",
        ]
        return names[rawValue] ?? "CIFormat(\(rawValue))"
    }
}

// Core Image's older global names for the formats (`kCIFormatRGBA8`), still common in code.
/// `CIFormat.ARGB8`.
public let kCIFormatARGB8 = CIFormat.ARGB8
/// `CIFormat.BGRA8`.
public let kCIFormatBGRA8 = CIFormat.BGRA8
/// `CIFormat.RGBA8`.
public let kCIFormatRGBA8 = CIFormat.RGBA8
/// `CIFormat.ABGR8`.
public let kCIFormatABGR8 = CIFormat.ABGR8
/// `CIFormat.RGBA16`.
public let kCIFormatRGBA16 = CIFormat.RGBA16
/// `CIFormat.RGBAh`.
public let kCIFormatRGBAh = CIFormat.RGBAh
/// `CIFormat.RGBAf`.
public let kCIFormatRGBAf = CIFormat.RGBAf
/// `CIFormat.R8`.
public let kCIFormatR8 = CIFormat.R8
/// `CIFormat.A8`.
public let kCIFormatA8 = CIFormat.A8
/// `CIFormat.L8`.
public let kCIFormatL8 = CIFormat.L8
/// `CIFormat.A16`.
public let kCIFormatA16 = CIFormat.A16
/// `CIFormat.Af`.
public let kCIFormatAf = CIFormat.Af
/// `CIFormat.Ah`.
public let kCIFormatAh = CIFormat.Ah
/// `CIFormat.R16`.
public let kCIFormatR16 = CIFormat.R16
/// `CIFormat.Rf`.
public let kCIFormatRf = CIFormat.Rf
/// `CIFormat.Rh`.
public let kCIFormatRh = CIFormat.Rh
/// `CIFormat.RG8`.
public let kCIFormatRG8 = CIFormat.RG8
/// `CIFormat.RG16`.
public let kCIFormatRG16 = CIFormat.RG16
/// `CIFormat.RGf`.
public let kCIFormatRGf = CIFormat.RGf
/// `CIFormat.RGh`.
public let kCIFormatRGh = CIFormat.RGh
/// `CIFormat.LA8`.
public let kCIFormatLA8 = CIFormat.LA8
/// `CIFormat.L16`.
public let kCIFormatL16 = CIFormat.L16
/// `CIFormat.Lf`.
public let kCIFormatLf = CIFormat.Lf
/// `CIFormat.Lh`.
public let kCIFormatLh = CIFormat.Lh
/// `CIFormat.RGBX16`.
public let kCIFormatRGBX16 = CIFormat.RGBX16
