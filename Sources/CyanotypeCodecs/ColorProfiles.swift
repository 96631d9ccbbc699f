import CLCMS2
import Foundation

/// ICC profiles through lcms2, the one place the package calls it: profiles built for files
/// that describe their colour by primaries (HEIF's nclx box) and for encoders writing a space
/// other than sRGB; what an embedded profile calls itself; and decoded pixels converted from
/// their embedded profile into linear sRGB for the engine.
public enum ColorProfiles {
    /// CIE xy chromaticities of a set of RGB primaries and white point: the package's one
    /// definition of each colour space's primaries (the engine's colour-space matrices are
    /// derived from these too).
    public struct Chromaticities: Sendable, Equatable {
        /// The red primary's CIE xy.
        public var red: (x: Double, y: Double)
        /// The green primary's CIE xy.
        public var green: (x: Double, y: Double)
        /// The blue primary's CIE xy.
        public var blue: (x: Double, y: Double)
        /// The white point's CIE xy.
        public var white: (x: Double, y: Double)
        /// Chromaticities from the (x, y) of the three primaries and the white point.
        public init(red: (Double, Double), green: (Double, Double), blue: (Double, Double), white: (Double, Double)) {
            self.red = red; self.green = green; self.blue = blue; self.white = white
        }
        /// Whether the primaries and white points are equal (spelled out: tuples are not `Equatable`).
        public static func == (a: Self, b: Self) -> Bool {
            a.red == b.red && a.green == b.green && a.blue == b.blue && a.white == b.white
        }
        /// sRGB and Rec. 709 (IEC 61966-2-1), D65 white.
        public static let sRGB = Chromaticities(red: (0.64, 0.33), green: (0.30, 0.60), blue: (0.15, 0.06), white: (0.3127, 0.3290))
        /// Display P3 (DCI-P3 primaries, D65 white).
        public static let displayP3 = Chromaticities(red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060), white: (0.3127, 0.3290))
        /// ITU-R BT.2020.
        public static let bt2020 = Chromaticities(red: (0.708, 0.292), green: (0.170, 0.797), blue: (0.131, 0.046), white: (0.3127, 0.3290))
        /// Adobe RGB (1998), D65 white.
        public static let adobeRGB = Chromaticities(red: (0.64, 0.33), green: (0.21, 0.71), blue: (0.15, 0.06), white: (0.3127, 0.3290))
    }

    /// Transfer curves the builder knows.
    public enum Transfer: Sendable, Equatable {
        /// The sRGB piecewise curve (IEC 61966-2-1), also Display P3's.
        case sRGB
        /// Linear light: encoded values proportional to intensity (gamma 1).
        case linear
        /// A pure power curve: linear = encoded ^ gamma (e.g. 2.2).
        case gamma(Double)
    }

    /// An open lcms2 RGB profile for `c` and `transfer` (the caller closes it).
    static func openRGBProfile(_ c: Chromaticities, transfer: Transfer) -> cmsHPROFILE? {
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
        return curves.withUnsafeMutableBufferPointer { cmsCreateRGBProfile(&white, &prim, $0.baseAddress) }
    }

    /// An RGB display profile (v4, D50-adapted by lcms2) with `description` as its name.
    public static func rgbProfile(_ c: Chromaticities, transfer: Transfer, description: String) -> Data? {
        guard let profile = openRGBProfile(c, transfer: transfer) else { return nil }
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

    /// The profile's description (its name, e.g. "Display P3"), or nil when lcms2 cannot
    /// read the profile or it has none.
    public static func description(of icc: Data) -> String? {
        icc.withUnsafeBytes { raw -> String? in
            guard let p = cmsOpenProfileFromMem(raw.baseAddress, cmsUInt32Number(raw.count)) else { return nil }
            defer { cmsCloseProfile(p) }
            var buf = [CChar](repeating: 0, count: 256)
            let n = cmsGetProfileInfoASCII(p, cmsInfoDescription, "en", "US", &buf, cmsUInt32Number(buf.count))
            guard n > 0 else { return nil }
            return buf.withUnsafeBufferPointer { $0.baseAddress.map { String(cString: $0) } }
        }
    }

    /// True for profiles that call themselves sRGB (and not linear): their pixels need no
    /// conversion.
    public static func isSRGB(_ icc: Data) -> Bool {
        guard let d = description(of: icc)?.lowercased() else { return false }
        return d.contains("srgb") && !d.contains("linear")
    }

    /// True for profiles that call themselves Display P3 (and not linear): P3 primaries, D65
    /// and the sRGB curve, which JPEG XL can name without the profile.
    public static func isDisplayP3(_ icc: Data) -> Bool {
        guard let d = description(of: icc)?.lowercased() else { return false }
        return d.contains("display p3") && !d.contains("linear")
    }

    /// `bitmap`'s pixels read through the RGB profile `icc` and converted (perceptual intent,
    /// unclipped) into straight linear-sRGB float RGBA, 16 bytes a pixel, alpha copied; nil
    /// when lcms2 cannot build the transform (a grey or CMYK profile on RGB pixels, a broken
    /// profile).
    public static func linearSRGBPixels(of bitmap: DecodedBitmap, profile icc: Data) -> Data? {
        icc.withUnsafeBytes { raw -> Data? in
            guard let src = cmsOpenProfileFromMem(raw.baseAddress, cmsUInt32Number(raw.count)) else { return nil }
            defer { cmsCloseProfile(src) }
            guard cmsGetColorSpace(src) == cmsSigRgbData, let dst = openRGBProfile(.sRGB, transfer: .linear) else { return nil }
            defer { cmsCloseProfile(dst) }
            let b = bitmap
            let inFormat = b.bitDepth == 32 ? SHIM_TYPE_RGBA_FLT : b.bitDepth == 16 ? SHIM_TYPE_RGBA_16 : SHIM_TYPE_RGBA_8
            guard
                let t = cmsCreateTransform(
                    src, inFormat, dst, SHIM_TYPE_RGBA_FLT, cmsUInt32Number(INTENT_PERCEPTUAL),
                    cmsUInt32Number(cmsFLAGS_COPY_ALPHA | cmsFLAGS_NOCACHE))
            else { return nil }
            defer { cmsDeleteTransform(t) }
            let count = b.width * b.height
            var out = Data(count: count * 16)
            out.withUnsafeMutableBytes { o in
                if b.bitDepth == 32 {
                    b.pixelsF.withUnsafeBytes { cmsDoTransform(t, $0.baseAddress, o.baseAddress, cmsUInt32Number(count)) }
                } else if b.bitDepth == 16 {
                    b.pixels16.withUnsafeBytes { cmsDoTransform(t, $0.baseAddress, o.baseAddress, cmsUInt32Number(count)) }
                } else {
                    b.pixels.withUnsafeBytes { cmsDoTransform(t, $0.baseAddress, o.baseAddress, cmsUInt32Number(count)) }
                }
            }
            return out
        }
    }

    // MARK: Profiles the engine reads without lcms2 per pixel

    /// Colour spaces the engine has names for (its decode tables and matrices), which an
    /// embedded profile may describe exactly: such a file's 8/16-bit rows are read through the
    /// engine's own per-tile conversion, and written back in the same space without one.
    public enum NamedSpace: Sendable, CaseIterable, Equatable {
        /// sRGB primaries and curve.
        case sRGB
        /// Display P3: P3 primaries, D65, the sRGB curve.
        case displayP3
        /// Adobe RGB (1998): its primaries, D65, gamma 563/256.
        case adobeRGB
        /// sRGB primaries, linear.
        case linearSRGB
        /// Display P3 primaries, linear.
        case linearDisplayP3
        /// BT.2020 primaries, linear.
        case linearBT2020

        /// The primaries and white point.
        public var chromaticities: Chromaticities {
            switch self {
            case .sRGB, .linearSRGB: return .sRGB
            case .displayP3, .linearDisplayP3: return .displayP3
            case .adobeRGB: return .adobeRGB
            case .linearBT2020: return .bt2020
            }
        }
        /// The transfer curve.
        public var transfer: Transfer {
            switch self {
            case .sRGB, .displayP3: return .sRGB
            case .adobeRGB: return .gamma(563 / 256)
            case .linearSRGB, .linearDisplayP3, .linearBT2020: return .linear
            }
        }
        /// Encoded -> linear for this space's curve (the test of a profile's curves).
        func encode(_ v: Double) -> Double {
            switch transfer {
            case .linear: return v
            case .gamma(let g): return pow(max(v, 0), 1 / g)
            case .sRGB: return v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055
            }
        }
    }

    /// The D50-adapted red, green and blue colorants (XYZ, 9 numbers) of each named space, as
    /// lcms2 builds its profile.
    private static let namedColorants: [(NamedSpace, [Double])] = NamedSpace.allCases.compactMap { space in
        guard let p = openRGBProfile(space.chromaticities, transfer: space.transfer) else { return nil }
        defer { cmsCloseProfile(p) }
        return colorants(p).map { (space, $0) }
    }

    /// The red, green and blue colorant tags of an open profile, or nil when it lacks one.
    private static func colorants(_ p: cmsHPROFILE) -> [Double]? {
        var out: [Double] = []
        for tag in [cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag] {
            guard let raw = cmsReadTag(p, tag) else { return nil }
            let xyz = raw.assumingMemoryBound(to: cmsCIEXYZ.self).pointee
            out += [xyz.X, xyz.Y, xyz.Z]
        }
        return out
    }

    /// The named space an RGB matrix/shaper profile describes: its colorants within 0.002 of
    /// the space's and each of its curves, at all 256 8-bit codes, within 0.3 of a code of the
    /// space's curve; nil for any other profile (a LUT profile, other primaries or curves, a
    /// grey or CMYK profile, bytes lcms2 cannot read).
    public static func namedSpace(of icc: Data) -> NamedSpace? {
        icc.withUnsafeBytes { raw -> NamedSpace? in
            guard let p = cmsOpenProfileFromMem(raw.baseAddress, cmsUInt32Number(raw.count)) else { return nil }
            defer { cmsCloseProfile(p) }
            guard cmsGetColorSpace(p) == cmsSigRgbData, cmsIsMatrixShaper(p) != 0, let own = colorants(p) else { return nil }
            var curves: [OpaquePointer] = []
            for tag in [cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag] {
                guard let c = cmsReadTag(p, tag) else { return nil }
                curves.append(OpaquePointer(c))
            }
            candidates: for (space, ref) in namedColorants {
                for i in 0..<9 where abs(own[i] - ref[i]) > 0.002 { continue candidates }
                for c in curves {
                    for code in 0...255 {
                        let linear = Double(cmsEvalToneCurveFloat(c, Float(code) / 255))
                        if abs(space.encode(linear) * 255 - Double(code)) > 0.3 { continue candidates }
                    }
                }
                return space
            }
            return nil
        }
    }

    /// An lcms2 transform from 8- or 16-bit RGBA in an embedded RGB profile to straight
    /// linear-sRGB float RGBA (perceptual intent, unclipped, alpha copied), for profiles the
    /// engine has no name for. Made with `cmsFLAGS_NOCACHE`, so tile workers share it.
    public final class RowTransform: @unchecked Sendable {
        private let transform: cmsHTRANSFORM
        /// Bytes per input pixel (4 or 8).
        public let bytesPerPixel: Int

        /// nil when lcms2 cannot read the profile, it is not RGB, or `bitsPerSample` is not 8 or 16.
        public init?(profile icc: Data, bitsPerSample: Int) {
            guard bitsPerSample == 8 || bitsPerSample == 16 else { return nil }
            let made = icc.withUnsafeBytes { raw -> cmsHTRANSFORM? in
                guard let src = cmsOpenProfileFromMem(raw.baseAddress, cmsUInt32Number(raw.count)) else { return nil }
                defer { cmsCloseProfile(src) }
                guard cmsGetColorSpace(src) == cmsSigRgbData, let dst = openRGBProfile(.sRGB, transfer: .linear) else { return nil }
                defer { cmsCloseProfile(dst) }
                return cmsCreateTransform(
                    src, bitsPerSample == 16 ? SHIM_TYPE_RGBA_16 : SHIM_TYPE_RGBA_8, dst, SHIM_TYPE_RGBA_FLT,
                    cmsUInt32Number(INTENT_PERCEPTUAL), cmsUInt32Number(cmsFLAGS_COPY_ALPHA | cmsFLAGS_NOCACHE))
            }
            guard let made else { return nil }
            transform = made
            bytesPerPixel = bitsPerSample / 2
        }
        deinit { cmsDeleteTransform(transform) }

        /// Converts `count` pixels at `source` into 16-byte float RGBA at `destination`.
        public func run(_ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, count: Int) {
            cmsDoTransform(transform, source, destination, cmsUInt32Number(count))
        }
    }
}
