import CLCMS2
import Foundation

/// ICC profiles built with lcms2, for files that describe their colour by primaries (HEIF's
/// nclx box) and for encoders writing a space other than sRGB.
public enum ColorProfiles {
    /// CIE xy chromaticities of a set of RGB primaries and white point.
    public struct Chromaticities: Sendable, Equatable {
        public var red: (x: Double, y: Double)
        public var green: (x: Double, y: Double)
        public var blue: (x: Double, y: Double)
        public var white: (x: Double, y: Double)
        public init(red: (Double, Double), green: (Double, Double), blue: (Double, Double), white: (Double, Double)) {
            self.red = red; self.green = green; self.blue = blue; self.white = white
        }
        public static func == (a: Self, b: Self) -> Bool {
            a.red == b.red && a.green == b.green && a.blue == b.blue && a.white == b.white
        }
        public static let sRGB = Chromaticities(red: (0.64, 0.33), green: (0.30, 0.60), blue: (0.15, 0.06), white: (0.3127, 0.3290))
        /// Display P3 (DCI-P3 primaries, D65 white).
        public static let displayP3 = Chromaticities(red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060), white: (0.3127, 0.3290))
        /// ITU-R BT.2020.
        public static let bt2020 = Chromaticities(red: (0.708, 0.292), green: (0.170, 0.797), blue: (0.131, 0.046), white: (0.3127, 0.3290))
    }

    /// Transfer curves the builder knows.
    public enum Transfer: Sendable, Equatable {
        /// The sRGB piecewise curve (IEC 61966-2-1), also Display P3's.
        case sRGB
        case linear
        case gamma(Double)
    }

    /// An RGB display profile (v4, D50-adapted by lcms2) with `description` as its name.
    public static func rgbProfile(_ c: Chromaticities, transfer: Transfer, description: String) -> Data? {
        var white = cmsCIExyY(x: c.white.x, y: c.white.y, Y: 1)
        var prim = cmsCIExyYTRIPLE(
            Red: cmsCIExyY(x: c.red.x, y: c.red.y, Y: 1), Green: cmsCIExyY(x: c.green.x, y: c.green.y, Y: 1),
            Blue: cmsCIExyY(x: c.blue.x, y: c.blue.y, Y: 1))
        let curve: OpaquePointer?
        switch transfer {
        case .linear: curve = cmsBuildGamma(nil, 1.0)
        case .gamma(let g): curve = cmsBuildGamma(nil, g)
        case .sRGB:
            // IEC 61966-2-1: type 4 parametric curve.
            var p: [Double] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
            curve = cmsBuildParametricToneCurve(nil, 4, &p)
        }
        guard let curve else { return nil }
        defer { cmsFreeToneCurve(curve) }
        var curves: [OpaquePointer?] = [curve, curve, curve]
        guard let profile = curves.withUnsafeMutableBufferPointer({ cmsCreateRGBProfile(&white, &prim, $0.baseAddress) }) else {
            return nil
        }
        defer { cmsCloseProfile(profile) }
        if let mlu = cmsMLUalloc(nil, 1) {
            cmsMLUsetASCII(mlu, "en", "US", description)
            cmsWriteTag(profile, cmsSigProfileDescriptionTag, UnsafeRawPointer(mlu))
            cmsMLUfree(mlu)
        }
        var size: cmsUInt32Number = 0
        guard cmsSaveProfileToMem(profile, nil, &size) != 0, size > 0 else { return nil }
        var data = Data(count: Int(size))
        let ok = data.withUnsafeMutableBytes { cmsSaveProfileToMem(profile, $0.baseAddress, &size) }
        guard ok != 0, data.count >= 128 else { return nil }
        // lcms2 stamps the creation time into the header; a fixed date (2024-01-01) makes the
        // same profile the same bytes. The MD5 profile ID (84..<100) is left zero: "not computed".
        let date: [UInt8] = [0x07, 0xE8, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0]
        data.replaceSubrange(24..<36, with: date)
        data.replaceSubrange(84..<100, with: [UInt8](repeating: 0, count: 16))
        return data
    }

    /// Display P3: P3 primaries, D65, the sRGB transfer curve.
    public static let displayP3: Data? = rgbProfile(.displayP3, transfer: .sRGB, description: "Display P3")
}
