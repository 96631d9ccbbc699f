internal import CyanotypeCodecs

/// A colour space: RGB primaries relative to linear sRGB plus a transfer function, or grey.
/// Covers the named spaces Core Image users pass to contexts and renders; ICC profiles from
/// files are converted at the codec boundary.
public final class CGColorSpace: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// How encoded values relate to linear light: the sRGB curve, none (linear), or a pure power.
    public enum Transfer: Sendable, Hashable {
        /// The sRGB curve (IEC 61966-2-1): a short linear toe, then a 2.4 power.
        case sRGB
        /// No curve: stored values are linear light.
        case linear
        /// A pure power: linear = stored^gamma (mirrored for negative values).
        case gamma(Float)
        /// ITU-R BT.709's curve (also BT.2020's): linear = stored / 4.5 below 0.081, else
        /// ((stored + 0.099) / 1.099)^(1 / 0.45) (mirrored for negative values).
        case rec709
    }
    /// The kind of colour a space describes: three RGB components or one grey one.
    public enum Model: Sendable {
        /// Red, green and blue components.
        case rgb
        /// One grey component.
        case monochrome
    }

    /// The space's Core Image name (`CGColorSpace.sRGB`, ...).
    public let name: CFString?
    /// The transfer function between stored values and linear light.
    public let transfer: Transfer
    /// Whether the space is RGB or grey.
    public let model: Model
    /// Whether values outside 0...1 survive (the "extended" spaces).
    public let isExtended: Bool
    /// This space's linear RGB -> linear sRGB (row-major 3x3); nil when the primaries are sRGB's.
    let toSRGBMatrix: [Float]?
    let fromSRGBMatrix: [Float]?

    /// A space whose linear components map to linear sRGB by `matrixToSRGB` (row-major 3x3).
    init(name: String, transfer: Transfer, matrixToSRGB m: [Float]) {
        self.name = name; self.transfer = transfer; self.model = .rgb; self.isExtended = true
        toSRGBMatrix = m
        fromSRGBMatrix = invert3x3(m)
    }

    init(name: String, transfer: Transfer, model: Model = .rgb, extended: Bool = false, primaries: Primaries? = nil) {
        self.name = name; self.transfer = transfer; self.model = model; self.isExtended = extended
        if let p = primaries {
            let m = p.matrixToSRGB()
            toSRGBMatrix = m
            fromSRGBMatrix = invert3x3(m)
        } else {
            toSRGBMatrix = nil; fromSRGBMatrix = nil
        }
    }

    /// Core Image's names for the spaces (`CGColorSpace.sRGB`, ...).
    public static let sRGB: CFString = "kCGColorSpaceSRGB"
    /// sRGB whose components may go below 0 and above 1.
    public static let extendedSRGB: CFString = "kCGColorSpaceExtendedSRGB"
    /// sRGB's primaries with a linear transfer (no curve).
    public static let linearSRGB: CFString = "kCGColorSpaceLinearSRGB"
    /// Linear sRGB whose components may leave 0...1: the default working space.
    public static let extendedLinearSRGB: CFString = "kCGColorSpaceExtendedLinearSRGB"
    /// Display P3: the DCI-P3 primaries, the D65 white point and the sRGB curve.
    public static let displayP3: CFString = "kCGColorSpaceDisplayP3"
    /// Display P3 whose components may go below 0 and above 1.
    public static let extendedDisplayP3: CFString = "kCGColorSpaceExtendedDisplayP3"
    /// Display P3's primaries with a linear transfer.
    public static let linearDisplayP3: CFString = "kCGColorSpaceLinearDisplayP3"
    /// Display P3's primaries, linear, components may leave 0...1.
    public static let extendedLinearDisplayP3: CFString = "kCGColorSpaceExtendedLinearDisplayP3"
    /// ITU-R BT.2020's primaries with a linear transfer.
    public static let linearITUR_2020: CFString = "kCGColorSpaceLinearITUR_2020"
    /// ITU-R BT.2020's primaries, linear, components may leave 0...1.
    public static let extendedLinearITUR_2020: CFString = "kCGColorSpaceExtendedLinearITUR_2020"
    /// Adobe RGB (1998): its primaries, D65 white and a pure 563/256 (about 2.2) gamma.
    public static let adobeRGB1998: CFString = "kCGColorSpaceAdobeRGB1998"
    /// Grey with a pure 2.2 gamma.
    public static let genericGrayGamma2_2: CFString = "kCGColorSpaceGenericGrayGamma2_2"
    /// Grey with a linear transfer.
    public static let linearGray: CFString = "kCGColorSpaceLinearGray"
    /// Grey with the sRGB curve whose values may leave 0...1.
    public static let extendedGray: CFString = "kCGColorSpaceExtendedGray"
    /// ITU-R BT.709 (Rec. 709 primaries, which are sRGB's, and BT.709's curve).
    public static let itur_709: CFString = "kCGColorSpaceITUR_709"
    /// ITU-R BT.2020 (BT.2020 primaries, BT.709's curve).
    public static let itur_2020: CFString = "kCGColorSpaceITUR_2020"
    /// ITU-R BT.2020, extended range.
    public static let extendedITUR_2020: CFString = "kCGColorSpaceExtendedITUR_2020"
    /// DCI-P3 for cinema: P3 primaries, the DCI white point, a 2.6 power curve.
    public static let dcip3: CFString = "kCGColorSpaceDCIP3"
    /// Generic RGB, linear (Core Graphics' generic primaries, D65 white).
    public static let genericRGBLinear: CFString = "kCGColorSpaceGenericRGBLinear"
    /// ACEScg: linear, ACES AP1 primaries and white.
    public static let acescgLinear: CFString = "kCGColorSpaceACESCGLinear"
    /// ROMM RGB (ProPhoto): wide primaries, D50 white, a 1.8 power curve.
    public static let rommrgb: CFString = "kCGColorSpaceROMMRGB"
    /// CIE 1931 XYZ as three linear components (equal-energy white).
    public static let genericXYZ: CFString = "kCGColorSpaceGenericXYZ"
    /// Generic grey with a 2.2 power curve (Core Graphics' `genericGray`).
    public static let genericGray: CFString = "kCGColorSpaceGenericGray"
    /// Linear grey, extended range.
    public static let extendedLinearGray: CFString = "kCGColorSpaceExtendedLinearGray"

    static let sRGBSpace = CGColorSpace(name: sRGB, transfer: .sRGB)
    static let linearSRGBSpace = CGColorSpace(name: linearSRGB, transfer: .linear)
    static let extendedLinearSRGBSpace = CGColorSpace(name: extendedLinearSRGB, transfer: .linear, extended: true)

    /// The named space, or nil for a name this platform does not know.
    public convenience init?(name: CFString) {
        switch name {
        case CGColorSpace.sRGB: self.init(name: name, transfer: .sRGB)
        case CGColorSpace.extendedSRGB: self.init(name: name, transfer: .sRGB, extended: true)
        case CGColorSpace.linearSRGB: self.init(name: name, transfer: .linear)
        case CGColorSpace.extendedLinearSRGB: self.init(name: name, transfer: .linear, extended: true)
        case CGColorSpace.displayP3: self.init(name: name, transfer: .sRGB, primaries: .displayP3)
        case CGColorSpace.extendedDisplayP3: self.init(name: name, transfer: .sRGB, extended: true, primaries: .displayP3)
        case CGColorSpace.linearDisplayP3: self.init(name: name, transfer: .linear, primaries: .displayP3)
        case CGColorSpace.extendedLinearDisplayP3: self.init(name: name, transfer: .linear, extended: true, primaries: .displayP3)
        case CGColorSpace.linearITUR_2020: self.init(name: name, transfer: .linear, primaries: .bt2020)
        case CGColorSpace.extendedLinearITUR_2020: self.init(name: name, transfer: .linear, extended: true, primaries: .bt2020)
        case CGColorSpace.adobeRGB1998: self.init(name: name, transfer: .gamma(563 / 256), primaries: .adobeRGB)
        case CGColorSpace.genericGrayGamma2_2: self.init(name: name, transfer: .gamma(2.2), model: .monochrome)
        case CGColorSpace.linearGray: self.init(name: name, transfer: .linear, model: .monochrome)
        case CGColorSpace.extendedGray: self.init(name: name, transfer: .sRGB, model: .monochrome, extended: true)
        case CGColorSpace.itur_709: self.init(name: name, transfer: .rec709)
        case CGColorSpace.itur_2020: self.init(name: name, transfer: .rec709, primaries: .bt2020)
        case CGColorSpace.extendedITUR_2020: self.init(name: name, transfer: .rec709, extended: true, primaries: .bt2020)
        case CGColorSpace.dcip3: self.init(name: name, transfer: .gamma(2.6), primaries: .dciP3)
        case CGColorSpace.genericRGBLinear: self.init(name: name, transfer: .linear, primaries: .genericRGB)
        case CGColorSpace.acescgLinear: self.init(name: name, transfer: .linear, primaries: .acesAP1)
        case CGColorSpace.rommrgb: self.init(name: name, transfer: .gamma(1.8), primaries: .romm)
        case CGColorSpace.genericXYZ: self.init(name: name, transfer: .linear, matrixToSRGB: Primaries.xyzToSRGB())
        case CGColorSpace.genericGray: self.init(name: name, transfer: .gamma(2.2), model: .monochrome)
        case CGColorSpace.extendedLinearGray: self.init(name: name, transfer: .linear, model: .monochrome, extended: true)
        default: return nil
        }
    }

    /// The number of colour components, alpha excluded: 3 for RGB, 1 for grey.
    public var numberOfComponents: Int { model == .rgb ? 3 : 1 }
    /// The space's name.
    public var description: String { name ?? "CGColorSpace" }
    var isSRGBPrimaries: Bool { toSRGBMatrix == nil }

    /// Two spaces are equal when they have the same name.
    public static func == (l: CGColorSpace, r: CGColorSpace) -> Bool { l.name == r.name }
    /// Hashes the space's name.
    public func hash(into h: inout Hasher) { h.combine(name) }

    // MARK: Conversions (scalar; hot paths use tables built from these)

    @inline(__always) func decode(_ v: Float) -> Float {
        switch transfer {
        case .linear: return v
        case .sRGB: return sRGBToLinear(v)
        case .gamma(let g): return v < 0 ? -powf(-v, g) : powf(v, g)
        case .rec709: return Float(Rec709Curve.decode(Double(v)))
        }
    }
    @inline(__always) func encode(_ v: Float) -> Float {
        switch transfer {
        case .linear: return v
        case .sRGB: return linearToSRGB(v)
        case .gamma(let g): return v < 0 ? -powf(-v, 1 / g) : powf(v, 1 / g)
        case .rec709: return Float(Rec709Curve.encode(Double(v)))
        }
    }
    /// Encoded components in this space -> linear sRGB.
    func toLinearSRGB(_ c: SIMD3<Float>) -> SIMD3<Float> {
        var l = SIMD3(decode(c.x), decode(c.y), decode(c.z))
        if model == .monochrome { l = SIMD3(repeating: decode(c.x)) }
        if let m = toSRGBMatrix { l = mul3(m, l) }
        return l
    }
}

// MARK: Row-level sRGB transfer (Cyanotype's own: Core Image has no public equivalent)

extension CGColorSpace {
    /// Cyanotype (Core Image and Core Graphics have no row-level transfer functions): encodes
    /// a row of linear values with the sRGB curve (IEC 61966-2-1: `12.92 v` up to 0.0031308,
    /// else `1.055 v^(1/2.4) - 0.055`), in place, as the engine's own colour conversions do.
    /// Odd-symmetric (a negative value encodes to minus the encoding of its magnitude), so
    /// extended-range values survive; alpha is left as it is. The colour is taken as it
    /// stands: pass straight (unpremultiplied) colour, as `CIColorKernel(premultiplied: false)`
    /// rows hold. Within 2e-6 of the exact curve (a table for the power), whole rows at a time.
    public static func sRGBEncode(_ row: UnsafeMutableBufferPointer<SIMD4<Float>>) {
        guard let base = row.baseAddress, row.count > 0 else { return }
        SRGBRowCurves.encode.run(base, count: row.count)
    }

    /// Cyanotype: decodes a row of sRGB-encoded values to linear, in place (the inverse of
    /// `sRGBEncode(_:)`: `v / 12.92` up to 0.04045, else `((v + 0.055) / 1.055)^2.4`),
    /// odd-symmetric, alpha left as it is, within 2e-6 of the exact curve.
    public static func sRGBDecode(_ row: UnsafeMutableBufferPointer<SIMD4<Float>>) {
        guard let base = row.baseAddress, row.count > 0 else { return }
        SRGBRowCurves.decode.run(base, count: row.count)
    }
}

/// The engine's sRGB curve stages, built once, for `CGColorSpace.sRGBEncode` / `sRGBDecode`.
private enum SRGBRowCurves {
    static let encode = SRGBCurveStage(toLinear: false)
    static let decode = SRGBCurveStage(toLinear: true)
}

extension SRGBCurveStage {
    /// Runs the curve over `count` pixels (the stage reads no extra input).
    fileprivate func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
        var none = row
        withUnsafePointer(to: &none) { run(row, extra: $0, count: count, x: 0, y: 0) }
    }
}

/// sRGB-encoded -> linear, odd-symmetric (extended-range values keep their sign).
@inline(__always) func sRGBToLinear(_ v: Float) -> Float {
    let l = SRGBCurve.decode(abs(v))
    return v < 0 ? -l : l
}
/// Linear -> sRGB-encoded, odd-symmetric.
@inline(__always) func linearToSRGB(_ v: Float) -> Float {
    let e = SRGBCurve.encode(abs(v))
    return v < 0 ? -e : e
}

/// Chromaticities of a set of RGB primaries and white point (CIE xy): the codecs' definition
/// (`ColorProfiles.Chromaticities`, also what ICC profiles are built from), so each space's
/// primaries are written down once.
typealias Primaries = ColorProfiles.Chromaticities

/// ITU-R BT.709's transfer curve (BT.2020's too), both ways, odd-symmetric.
enum Rec709Curve {
    /// Encoded -> linear: v / 4.5 below 0.081, else ((v + 0.099) / 1.099)^(1 / 0.45).
    static func decode(_ v: Double) -> Double {
        let a = abs(v)
        let l = a < 0.081 ? a / 4.5 : pow((a + 0.099) / 1.099, 1 / 0.45)
        return v < 0 ? -l : l
    }
    /// Linear -> encoded: 4.5 l below 0.018, else 1.099 l^0.45 - 0.099.
    static func encode(_ l: Double) -> Double {
        let a = abs(l)
        let v = a < 0.018 ? 4.5 * a : 1.099 * pow(a, 0.45) - 0.099
        return l < 0 ? -v : v
    }
}

extension ColorProfiles.Chromaticities {
    /// DCI-P3 (cinema): P3 primaries, the DCI white point.
    static let dciP3 = Primaries(red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060), white: (0.314, 0.351))
    /// Core Graphics' generic RGB primaries, D65 white.
    static let genericRGB = Primaries(red: (0.630, 0.340), green: (0.295, 0.605), blue: (0.155, 0.077), white: (0.3127, 0.3290))
    /// ACES AP1 (ACEScg) primaries and the ACES white point.
    static let acesAP1 = Primaries(red: (0.713, 0.293), green: (0.165, 0.830), blue: (0.128, 0.044), white: (0.32168, 0.33767))
    /// ROMM RGB (ProPhoto), D50 white.
    static let romm = Primaries(red: (0.7347, 0.2653), green: (0.1596, 0.8404), blue: (0.0366, 0.0001), white: (0.3457, 0.3585))
    /// CIE XYZ (equal-energy white, so XYZ (1, 1, 1) is white) -> linear sRGB: Bradford
    /// to D65, then sRGB's XYZ -> RGB.
    static func xyzToSRGB() -> [Float] {
        mul3x3d(invert3x3d(Primaries.sRGB.rgbToXYZ()), bradford(from: (1.0 / 3, 1.0 / 3), to: Primaries.sRGB.white)).map { Float($0) }
    }
}

extension ColorProfiles.Chromaticities {
    /// RGB -> XYZ, from the primaries and white (the standard derivation).
    func rgbToXYZ() -> [Double] {
        func xyz(_ p: (x: Double, y: Double)) -> [Double] { [p.x / p.y, 1, (1 - p.x - p.y) / p.y] }
        let R = xyz(red), G = xyz(green), B = xyz(blue), W = xyz(white)
        let m = [R[0], G[0], B[0], R[1], G[1], B[1], R[2], G[2], B[2]]
        let inv = invert3x3d(m)
        let s = [
            inv[0] * W[0] + inv[1] * W[1] + inv[2] * W[2],
            inv[3] * W[0] + inv[4] * W[1] + inv[5] * W[2],
            inv[6] * W[0] + inv[7] * W[1] + inv[8] * W[2],
        ]
        return [m[0] * s[0], m[1] * s[1], m[2] * s[2], m[3] * s[0], m[4] * s[1], m[5] * s[2], m[6] * s[0], m[7] * s[1], m[8] * s[2]]
    }
    func matrixToSRGB() -> [Float] {
        var toXYZ = rgbToXYZ()
        // A white other than sRGB's D65 is adapted to it (Bradford), so white stays white.
        if white != Primaries.sRGB.white { toXYZ = mul3x3d(Primaries.bradford(from: white, to: Primaries.sRGB.white), toXYZ) }
        let fromXYZ = invert3x3d(Primaries.sRGB.rgbToXYZ())
        return mul3x3d(fromXYZ, toXYZ).map { Float($0) }
    }
    /// The Bradford chromatic adaptation between two white points (XYZ -> XYZ).
    static func bradford(from source: (x: Double, y: Double), to target: (x: Double, y: Double)) -> [Double] {
        let m = [0.8951, 0.2664, -0.1614, -0.7502, 1.7135, 0.0367, 0.0389, -0.0685, 1.0296]
        func cone(_ w: (x: Double, y: Double)) -> [Double] {
            let xyz = [w.x / w.y, 1, (1 - w.x - w.y) / w.y]
            return (0..<3).map { i in m[i * 3] * xyz[0] + m[i * 3 + 1] * xyz[1] + m[i * 3 + 2] * xyz[2] }
        }
        let s = cone(source), d = cone(target)
        let scale = [d[0] / s[0], 0, 0, 0, d[1] / s[1], 0, 0, 0, d[2] / s[2]]
        return mul3x3d(invert3x3d(m), mul3x3d(scale, m))
    }
}

func mul3(_ m: [Float], _ v: SIMD3<Float>) -> SIMD3<Float> {
    SIMD3(m[0] * v.x + m[1] * v.y + m[2] * v.z, m[3] * v.x + m[4] * v.y + m[5] * v.z, m[6] * v.x + m[7] * v.y + m[8] * v.z)
}
func mul3x3d(_ a: [Double], _ b: [Double]) -> [Double] {
    var r = [Double](repeating: 0, count: 9)
    for i in 0..<3 { for j in 0..<3 { r[i * 3 + j] = a[i * 3] * b[j] + a[i * 3 + 1] * b[3 + j] + a[i * 3 + 2] * b[6 + j] } }
    return r
}
func invert3x3d(_ m: [Double]) -> [Double] {
    let a = m[0], b = m[1], c = m[2], d = m[3], e = m[4], f = m[5], g = m[6], h = m[7], i = m[8]
    let A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g
    let det = a * A + b * B + c * C
    return [
        A / det, -(b * i - c * h) / det, (b * f - c * e) / det,
        B / det, (a * i - c * g) / det, -(a * f - c * d) / det,
        C / det, -(a * h - b * g) / det, (a * e - b * d) / det,
    ]
}
func invert3x3(_ m: [Float]) -> [Float] { invert3x3d(m.map { Double($0) }).map { Float($0) } }
