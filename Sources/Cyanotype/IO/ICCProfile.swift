import CLCMS2

/// Embedded ICC profiles, through lcms2: what a profile calls itself, whether it is sRGB,
/// and converting decoded pixels into the working space (linear sRGB, unclipped float).
enum ICCProfile {
    static func description(of icc: Data) -> String? {
        icc.withUnsafeBytes { raw -> String? in
            guard let p = cmsOpenProfileFromMem(raw.baseAddress, cmsUInt32Number(raw.count)) else { return nil }
            defer { cmsCloseProfile(p) }
            var buf = [CChar](repeating: 0, count: 256)
            let n = cmsGetProfileInfoASCII(p, cmsInfoDescription, "en", "US", &buf, cmsUInt32Number(buf.count))
            guard n > 0 else { return nil }
            return buf.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        }
    }

    /// True for profiles that describe sRGB (no conversion needed).
    static func isSRGB(_ icc: Data) -> Bool {
        guard let d = description(of: icc)?.lowercased() else { return false }
        return d.contains("srgb") && !d.contains("linear")
    }

    /// The linear-sRGB profile pixels are converted into (sRGB primaries, D65, gamma 1).
    private static func linearSRGBProfile() -> cmsHPROFILE? {
        var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        var primaries = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: 0.64, y: 0.33, Y: 1), Green: cmsCIExyY(x: 0.30, y: 0.60, Y: 1), Blue: cmsCIExyY(x: 0.15, y: 0.06, Y: 1))
        guard let curve = cmsBuildGamma(nil, 1.0) else { return nil }
        defer { cmsFreeToneCurve(curve) }
        var curves: [OpaquePointer?] = [curve, curve, curve]
        return curves.withUnsafeMutableBufferPointer { cmsCreateRGBProfile(&white, &primaries, $0.baseAddress) }
    }

    /// Straight linear-sRGB float RGBA for `b` read through `profile`, or nil when lcms2
    /// cannot build the transform (a grey or CMYK profile on RGB pixels, a broken profile).
    static func toLinearSRGB(_ b: DecodedBitmap, profile icc: Data) -> Data? {
        icc.withUnsafeBytes { raw -> Data? in
            guard let src = cmsOpenProfileFromMem(raw.baseAddress, cmsUInt32Number(raw.count)) else { return nil }
            defer { cmsCloseProfile(src) }
            guard cmsGetColorSpace(src) == cmsSigRgbData, let dst = linearSRGBProfile() else { return nil }
            defer { cmsCloseProfile(dst) }
            let inFormat = b.bitDepth == 32 ? SHIM_TYPE_RGBA_FLT : b.bitDepth == 16 ? SHIM_TYPE_RGBA_16 : SHIM_TYPE_RGBA_8
            guard let t = cmsCreateTransform(src, inFormat, dst, SHIM_TYPE_RGBA_FLT, cmsUInt32Number(INTENT_PERCEPTUAL),
                                             cmsUInt32Number(cmsFLAGS_COPY_ALPHA | cmsFLAGS_NOCACHE)) else { return nil }
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

    /// The ICC profile written into files encoded in `space`: nil for sRGB (untagged files are
    /// sRGB), Display P3 (P3 primaries, D65, the sRGB curve), linear variants, grey gamma 2.2.
    static func profile(for space: CGColorSpace) -> Data? {
        switch space.name {
        case CGColorSpace.sRGB, CGColorSpace.extendedSRGB, nil: return nil
        case CGColorSpace.displayP3, CGColorSpace.extendedDisplayP3: return ColorProfiles.displayP3
        case CGColorSpace.linearDisplayP3:
            return ColorProfiles.rgbProfile(.displayP3, transfer: .linear, description: "Linear Display P3")
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
