internal import CyanotypeCodecs
import Foundation

/// The ICC profiles files are written with, by colour space. Profiles are built, read and
/// applied by the codecs' `ColorProfiles` (the package's one lcms2 wrapper); this maps
/// Core Image's colour-space names onto them.
enum ICCProfile {
    /// What a profile calls itself (e.g. "Display P3").
    static func description(of icc: Data) -> String? { ColorProfiles.description(of: icc) }

    /// The ICC profile written into files encoded in `space`: nil for sRGB (untagged files are
    /// sRGB), Display P3 (P3 primaries, D65, the sRGB curve), linear variants (sRGB, P3, BT.2020),
    /// Adobe RGB (1998), grey gamma 2.2.
    static func profile(for space: CGColorSpace) -> Data? {
        switch space.name {
        case CGColorSpace.sRGB, CGColorSpace.extendedSRGB, nil: return nil
        case CGColorSpace.displayP3, CGColorSpace.extendedDisplayP3: return ColorProfiles.displayP3
        case CGColorSpace.linearDisplayP3, CGColorSpace.extendedLinearDisplayP3:
            return ColorProfiles.rgbProfile(.displayP3, transfer: .linear, description: "Linear Display P3")
        case CGColorSpace.linearITUR_2020, CGColorSpace.extendedLinearITUR_2020:
            return ColorProfiles.rgbProfile(.bt2020, transfer: .linear, description: "Linear ITU-R BT.2020")
        case CGColorSpace.adobeRGB1998:
            return ColorProfiles.rgbProfile(.adobeRGB, transfer: .gamma(563 / 256), description: "Adobe RGB (1998)")
        case CGColorSpace.linearSRGB, CGColorSpace.extendedLinearSRGB:
            return ColorProfiles.rgbProfile(.sRGB, transfer: .linear, description: "Linear sRGB")
        case CGColorSpace.genericGrayGamma2_2:
            // Grey spaces render as R = G = B; tag them with sRGB primaries and gamma 2.2.
            return ColorProfiles.rgbProfile(.sRGB, transfer: .gamma(2.2), description: "Gray Gamma 2.2 (as RGB)")
        case CGColorSpace.linearGray:
            return ColorProfiles.rgbProfile(.sRGB, transfer: .linear, description: "Linear Gray (as RGB)")
        default: return nil
        }
    }
}
