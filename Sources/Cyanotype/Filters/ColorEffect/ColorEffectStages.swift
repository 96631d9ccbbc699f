// Colour effects computed pixel by pixel on working-space values (linear sRGB). Stages that
// want straight colour say so; the renderer unpremultiplies and premultiplies around them.

import Foundation

extension BuiltinFilters {
    /// CIColorCrossPolynomial: Maps each output channel through a polynomial in r, g, b including squared and cross terms.
    static let colorCrossPolynomial = BuiltinFilter(
        FilterDescriptor(
            "CIColorCrossPolynomial", "Color Cross Polynomial", "Maps each output channel through a polynomial in r, g, b including squared and cross terms.",
            categories: [.builtIn, .colorEffect, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
            macOS: "10.9", iOS: "7", factory: "colorCrossPolynomial",
            doc: """
                Each output channel is a second-order polynomial of all three
                straight input channels, with Apple's coefficient order
                `[r, g, b, r², g², b², r·g, g·b, b·r, 1]`; alpha is kept.
                """,
            inputs: [
                .image(),
                .vector("inputRedCoefficients", "Red Coefficients", nil, default: [1, 0, 0, 0, 0, 0, 0, 0, 0, 0], identity: [1, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
                .vector("inputGreenCoefficients", "Green Coefficients", nil, default: [0, 1, 0, 0, 0, 0, 0, 0, 0, 0], identity: [0, 1, 0, 0, 0, 0, 0, 0, 0, 0]),
                .vector("inputBlueCoefficients", "Blue Coefficients", nil, default: [0, 0, 1, 0, 0, 0, 0, 0, 0, 0], identity: [0, 0, 1, 0, 0, 0, 0, 0, 0, 0]),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        func coefficients(_ key: String) throws(CIFilterError) -> [Float] {
            let v = try args.vector(key).values.map { Float($0) }
            return (0..<10).map { $0 < v.count ? v[$0] : 0 }
        }
        let r = try coefficients("inputRedCoefficients"), g = try coefficients("inputGreenCoefficients"), b = try coefficients("inputBlueCoefficients")
        if r == [1, 0, 0, 0, 0, 0, 0, 0, 0, 0], g == [0, 1, 0, 0, 0, 0, 0, 0, 0, 0], b == [0, 0, 1, 0, 0, 0, 0, 0, 0, 0] { return image }
        return image.applying(CrossPolynomialStage(r: r, g: g, b: b))
    }

    /// CIColorCurves: Applies per-channel 1D curves supplied as a table.
    static let colorCurves = BuiltinFilter(
        FilterDescriptor(
            "CIColorCurves", "Color Curves", "Applies per-channel 1D curves supplied as a table.",
            categories: [.builtIn, .colorEffect, .interlaced, .nonSquarePixels, .stillImage, .video], macOS: "10.13", iOS: "11", factory: "colorCurves",
            doc: """
                Per-channel lookup in `inputCurvesData`, a table of N float32 RGB
                triplets spread evenly over `inputCurvesDomain` [lo, hi]; values between entries are
                interpolated linearly and values outside the domain take the end entries. With
                `inputColorSpace` set, the curves apply to values encoded with that space's transfer
                function; without it, to working-space (linear) values. The default table is the
                identity [0, 0.5, 1].
                """,
            inputs: [
                .image(),
                .other("NSData", "inputCurvesData", "Curves Data", nil, default: .data(byteLength: 36)),
                .vector("inputCurvesDomain", "Curves Domain", nil, default: [0, 1]),
                .other("NSObject", "inputColorSpace", "Color Space", nil),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        var table: [SIMD3<Float>] = [SIMD3(repeating: 0), SIMD3(repeating: 0.5), SIMD3(repeating: 1)]
        if args.values["inputCurvesData"] != nil {
            let data = try args.data("inputCurvesData")
            let n = data.count / 12
            guard n >= 1 else {
                throw .invalidValue(filter: args.descriptor.name, key: "inputCurvesData", reason: "needs at least one RGB triplet of float32 (12 bytes); got \(data.count) bytes")
            }
            let floats: [Float] = data.withUnsafeBytes { raw in (0..<(3 * n)).map { raw.loadUnaligned(fromByteOffset: 4 * $0, as: Float.self) } }
            table = (0..<n).map { SIMD3(floats[3 * $0], floats[3 * $0 + 1], floats[3 * $0 + 2]) }
        }
        let d = try args.vector("inputCurvesDomain").values.map { Float($0) }
        let lo = d.count > 0 ? d[0] : 0, hi = d.count > 1 ? d[1] : 1
        let space = args.values["inputColorSpace"] as? CGColorSpace
        return image.applying(CurvesStage(table: table, lo: lo, hi: hi, space: space))
    }

    /// CIColorPosterize: Quantizes each color channel to a fixed number of levels.
    static let colorPosterize = BuiltinFilter(
        FilterDescriptor(
            "CIColorPosterize", "Color Posterize", "Quantizes each color channel to a fixed number of levels.",
            categories: [.builtIn, .colorEffect, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
            macOS: "10.4", iOS: "6", factory: "colorPosterize",
            doc: """
                Each straight channel becomes `floor(v * levels + 0.5) / levels`, so
                [0, 1] maps to levels + 1 evenly spaced values (0 and 1 included); alpha is kept.
                Works on working-space values (values above 1 keep posterizing).
                """,
            inputs: [
                .image(),
                .number("inputLevels", "Levels", .scalar, default: 6, identity: 300, min: 1, slider: 2...30),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        return image.applying(PosterizeStage(levels: try args.float("inputLevels")))
    }

    /// CIConvertRGBtoLab: Converts pixel values from the RGB working space to L*a*b*.
    static let convertRGBtoLab = BuiltinFilter(
        FilterDescriptor(
            "CIConvertRGBtoLab", "Convert RGB to Lab", "Converts pixel values from the RGB working space to L*a*b*.",
            categories: [.builtIn, .colorEffect, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
            macOS: "13.0", iOS: "16", factory: "convertRGBtoLab", protocol: "CIConvertLab",
            doc: """
                Working-space linear sRGB to CIE L*a*b* (D65 white, the sRGB/XYZ
                matrix of IEC 61966-2-1, CIE 1976 formulas). Apple's scaling: L in [0, 100], a and b in
                about [-128, 128]; with `inputNormalize`, L / 100 and (a + 128) / 256, (b + 128) / 256,
                all in [0, 1]. Alpha is kept; Lab lands in the red, green and blue channels.
                """,
            inputs: [
                .image(),
                .bool("inputNormalize", nil, default: false, min: 0, max: 1),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        return image.applying(LabStage(toLab: true, normalize: try args.bool("inputNormalize")))
    }
    /// CIConvertLabToRGB: Converts pixel values from L*a*b* to the RGB working space.
    static let convertLabToRGB = BuiltinFilter(
        FilterDescriptor(
            "CIConvertLabToRGB", "Convert Lab to RGB", "Converts pixel values from L*a*b* to the RGB working space.",
            categories: [.builtIn, .colorEffect, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
            macOS: "13.0", iOS: "16", factory: "convertLabToRGB", protocol: "CIConvertLab",
            doc: "The inverse of CIConvertRGBtoLab, with the same scaling.",
            inputs: [
                .image(),
                .bool("inputNormalize", nil, default: false, min: 0, max: 1),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        return image.applying(LabStage(toLab: false, normalize: try args.bool("inputNormalize")))
    }

    /// CILabDeltaE: Per-pixel CIE Delta E color difference between two images.
    static let labDeltaE = BuiltinFilter(
        FilterDescriptor(
            "CILabDeltaE", "Lab ∆E", "Per-pixel CIE Delta E color difference between two images.",
            categories: [.builtIn, .colorEffect, .interlaced, .nonSquarePixels, .stillImage, .video], macOS: "10.13", iOS: "11", factory: "labDeltaE",
            doc: """
                The CIE 1994 colour difference (graphic-arts weights kL = 1, K1 = 0.045,
                K2 = 0.015, the first image as reference) between the two images' straight colours in
                L*a*b* D65, in red, green and blue, alpha 1. 2 is about a just-noticeable difference.
                """,
            inputs: [
                .image(),
                .image("inputImage2", "Image2"),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image(), other = try args.image("inputImage2")
        return image.applying(DeltaEStage(), extras: [other])
    }

    /// CIDither: Adds dithering noise to reduce banding.
    static let dither = BuiltinFilter(
        FilterDescriptor(
            "CIDither", "Dither", "Adds dithering noise to reduce banding.",
            categories: [.builtIn, .colorEffect, .highDynamicRange, .stillImage, .video], macOS: "10.14", iOS: "12", factory: "dither",
            doc: """
                Adds uniform noise of amplitude ±intensity / 64 to the sRGB-encoded
                straight colour, from a hash of the pixel's coordinates and channel (the same noise
                whatever the tiling). At the default 0.1 that is about ±0.4 of an 8-bit step, enough to
                break banding when quantising to 8 bits; intensity 0 is the identity.
                """,
            inputs: [
                .image(),
                .number("inputIntensity", "Intensity", .scalar, default: 0.1, identity: 0, min: 0, max: 5, slider: 0...1),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let k = try args.float(kCIInputIntensityKey)
        if k == 0 { return image }
        return image.applying(DitherStage(amplitude: k / 64))
    }

    /// CIFalseColor: Maps luminance onto a ramp between two colors.
    static let falseColor = BuiltinFilter(
        FilterDescriptor(
            "CIFalseColor", "False Color", "Maps luminance onto a ramp between two colors.",
            categories: [.builtIn, .colorEffect, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video], macOS: "10.4", iOS: "5", factory: "falseColor",
            doc: """
                Straight colour's luma `l` (Rec. 709 weights, working space) picks
                `color0 + (color1 - color0) * l` (straight colours, not clamped); the result's alpha
                is that colour's alpha times the pixel's.
                """,
            inputs: [
                .image(),
                .color("inputColor0", "Color 1", .color, default: [0.3, 0, 0, 1]),
                .color("inputColor1", "Color 2", .color, default: [1, 0.9, 0.8, 1]),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let c0 = straightWorking(try args.color("inputColor0")), c1 = straightWorking(try args.color("inputColor1"))
        return image.applying(FalseColorStage(c0: c0, c1: c1))
    }

    /// CIMaskToAlpha: Turns a grayscale mask into white with the mask as alpha.
    static let maskToAlpha = BuiltinFilter(
        FilterDescriptor(
            "CIMaskToAlpha", "Mask to Alpha", "Turns a grayscale mask into white with the mask as alpha.",
            categories: [.builtIn, .colorEffect, .interlaced, .nonSquarePixels, .stillImage, .video], macOS: "10.4", iOS: "6", factory: "maskToAlpha",
            doc: """
                A white image whose alpha is the input's luma (Rec. 709 weights on the
                premultiplied working values): white stays opaque, black becomes clear.
                """,
            inputs: [
                .image()
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        return image.applying(ComponentStage(kind: .maskToAlpha))
    }
    /// CIMaximumComponent: Grayscale from the maximum of R, G, B.
    static let maximumComponent = BuiltinFilter(
        FilterDescriptor(
            "CIMaximumComponent", "Maximum Component", "Grayscale from the maximum of R, G, B.",
            categories: [.builtIn, .colorEffect, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
            macOS: "10.5", iOS: "6", factory: "maximumComponent",
            doc: "Grey of `max(r, g, b)`; alpha kept.",
            inputs: [
                .image()
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        return image.applying(ComponentStage(kind: .maximum))
    }
    /// CIMinimumComponent: Grayscale from the minimum of R, G, B.
    static let minimumComponent = BuiltinFilter(
        FilterDescriptor(
            "CIMinimumComponent", "Minimum Component", "Grayscale from the minimum of R, G, B.",
            categories: [.builtIn, .colorEffect, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
            macOS: "10.5", iOS: "6", factory: "minimumComponent",
            doc: "Grey of `min(r, g, b)`; alpha kept.",
            inputs: [
                .image()
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        return image.applying(ComponentStage(kind: .minimum))
    }

    /// CIVignetteEffect: Vignette around a chosen center with radius, intensity and falloff.
    static let vignetteEffect = BuiltinFilter(
        FilterDescriptor(
            "CIVignetteEffect", "Vignette Effect", "Vignette around a chosen center with radius, intensity and falloff.",
            categories: [.builtIn, .colorEffect, .highDynamicRange, .interlaced, .stillImage, .video], macOS: "10.9", iOS: "7", factory: "vignetteEffect",
            doc: """
                Darkens outside a circle. With `d` the distance from `center`, a
                smoothstep ramp `s` runs from 0 at `radius * (1 - falloff)` to 1 at
                `radius * (1 + falloff)` (a hard edge at `radius` when falloff is 0), and colour is
                scaled by `max(0, 1 - intensity * s)`: intensity 1 goes black outside, negative
                intensity brightens, 0 is the identity.
                """,
            inputs: [
                .image(),
                .vector("inputCenter", "Center", .position, default: [150, 150], "The centre of the circle left alone."),
                .number("inputRadius", "Radius", .distance, default: 150, min: 0, slider: 0...2000, "The circle's radius, in pixels."),
                .number("inputIntensity", "Intensity", .scalar, default: 1, identity: 0, min: -1, max: 1, slider: -1...1, "How dark it gets outside the circle (1: black)."),
                .number("inputFalloff", "Falloff", .scalar, default: 0.5, min: 0, max: 1, slider: 0...1, "The width of the ramp, as a fraction of the radius on each side of it."),
            ]),
        pictureRelative: [kCIInputRadiusKey]
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let c = try args.point(kCIInputCenterKey)
        let r = try args.float(kCIInputRadiusKey), k = try args.float(kCIInputIntensityKey), f = try args.float("inputFalloff")
        if k == 0 { return image }
        return image.applying(VignetteEffectStage(cx: Float(c.x), cy: Float(c.y), inner: r * (1 - f), outer: r * (1 + f), intensity: k))
    }
}

/// A colour's straight working-space value (linear sRGB, alpha in w).
func straightWorking(_ c: CIColor) -> SIMD4<Float> {
    let p = c.workingValue
    let inv: Float = p.w > 0 ? 1 / p.w : 0
    return p.w > 0 ? SIMD4(p.x * inv, p.y * inv, p.z * inv, p.w) : SIMD4(Float(c.red), Float(c.green), Float(c.blue), 0)
}

struct CrossPolynomialStage: ColorStage {
    let r: [Float], g: [Float], b: [Float]
    var wantsUnpremultiplied: Bool { true }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        // Columns of a 10-term map: out = sum(term_i * k_i).
        var k = [SIMD4<Float>](repeating: .zero, count: 10)
        for i in 0..<10 { k[i] = SIMD4(r[i], g[i], b[i], 0) }
        k.withUnsafeBufferPointer { k in
            for i in 0..<count {
                let p = row[i]
                let rr: Float = p.x * p.x, gg: Float = p.y * p.y, bb: Float = p.z * p.z
                let rg: Float = p.x * p.y, gb: Float = p.y * p.z, br: Float = p.z * p.x
                var o: SIMD4<Float> = k[9]
                o += k[0] * p.x
                o += k[1] * p.y
                o += k[2] * p.z
                o += k[3] * rr
                o += k[4] * gg
                o += k[5] * bb
                o += k[6] * rg
                o += k[7] * gb
                o += k[8] * br
                row[i] = SIMD4(o.x, o.y, o.z, p.w)
            }
        }
    }
    var label: String { "cross polynomial" }
}

struct CurvesStage: ColorStage {
    let table: [SIMD3<Float>]
    let lo: Float, hi: Float
    let space: CGColorSpace?
    var wantsUnpremultiplied: Bool { true }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let n = table.count
        let last = Float(n - 1)
        let scale: Float = hi != lo ? last / (hi - lo) : 0
        let encode = space
        table.withUnsafeBufferPointer { t in
            @inline(__always) func look(_ v: Float, _ c: Int) -> Float {
                if n == 1 { return t[0][c] }
                let u = (v - lo) * scale
                let pos = u > 0 ? (u < last ? u : last) : 0
                let i = min(Int(pos), n - 2)
                let f = pos - Float(i)
                return t[i][c] + (t[i + 1][c] - t[i][c]) * f
            }
            for i in 0..<count {
                var p = row[i]
                if let s = encode { p = SIMD4(s.encode(p.x), s.encode(p.y), s.encode(p.z), p.w) }
                var o = SIMD4(look(p.x, 0), look(p.y, 1), look(p.z, 2), p.w)
                if let s = encode { o = SIMD4(s.decode(o.x), s.decode(o.y), s.decode(o.z), o.w) }
                row[i] = o
            }
        }
    }
    var label: String { "curves (\(table.count) entries)" }
}

struct PosterizeStage: ColorStage {
    let levels: Float
    var wantsUnpremultiplied: Bool { true }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let l = levels, inv = 1 / levels
        for i in 0..<count {
            let p = row[i]
            row[i] = SIMD4((p.x * l + 0.5).rounded(.down) * inv, (p.y * l + 0.5).rounded(.down) * inv, (p.z * l + 0.5).rounded(.down) * inv, p.w)
        }
    }
    var label: String { "posterize \(levels)" }
}

// MARK: Lab

/// CIE L*a*b* (D65) from linear sRGB and back.
enum Lab {
    static let toXYZ: [Float] = [0.4124564, 0.3575761, 0.1804375, 0.2126729, 0.7151522, 0.0721750, 0.0193339, 0.1191920, 0.9503041]
    static let fromXYZ: [Float] = invert3x3(toXYZ)
    static let white = SIMD3<Float>(0.95047, 1.0, 1.08883)
    static let delta: Float = 6.0 / 29.0

    @inline(__always) static func f(_ t: Float) -> Float {
        t > delta * delta * delta ? cbrtf(t) : t / (3 * delta * delta) + 4.0 / 29.0
    }
    @inline(__always) static func finv(_ t: Float) -> Float {
        t > delta ? t * t * t : 3 * delta * delta * (t - 4.0 / 29.0)
    }
    @inline(__always) static func fromRGB(_ c: SIMD3<Float>) -> SIMD3<Float> {
        let m = toXYZ
        let xyz = SIMD3(m[0] * c.x + m[1] * c.y + m[2] * c.z, m[3] * c.x + m[4] * c.y + m[5] * c.z, m[6] * c.x + m[7] * c.y + m[8] * c.z) / white
        let fx = f(xyz.x), fy = f(xyz.y), fz = f(xyz.z)
        return SIMD3(116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
    }
    @inline(__always) static func toRGB(_ lab: SIMD3<Float>) -> SIMD3<Float> {
        let fy = (lab.x + 16) / 116
        let xyz = SIMD3(finv(fy + lab.y / 500), finv(fy), finv(fy - lab.z / 200)) * white
        let m = fromXYZ
        return SIMD3(m[0] * xyz.x + m[1] * xyz.y + m[2] * xyz.z, m[3] * xyz.x + m[4] * xyz.y + m[5] * xyz.z, m[6] * xyz.x + m[7] * xyz.y + m[8] * xyz.z)
    }
}

struct LabStage: ColorStage {
    let toLab: Bool, normalize: Bool
    var wantsUnpremultiplied: Bool { true }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        for i in 0..<count {
            let p = row[i]
            let c = SIMD3(p.x, p.y, p.z)
            if toLab {
                var l = Lab.fromRGB(c)
                if normalize { l = SIMD3(l.x / 100, (l.y + 128) / 256, (l.z + 128) / 256) }
                row[i] = SIMD4(l, p.w)
            } else {
                let l = normalize ? SIMD3(c.x * 100, c.y * 256 - 128, c.z * 256 - 128) : c
                row[i] = SIMD4(Lab.toRGB(l), p.w)
            }
        }
    }
    var label: String { toLab ? "RGB to Lab" : "Lab to RGB" }
}

struct DeltaEStage: ColorStage {
    var extraInputCount: Int { 1 }
    var wantsUnpremultiplied: Bool { true }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let other = extra[0]
        for i in 0..<count {
            let p = row[i], q = other[i]
            let a = Lab.fromRGB(SIMD3(p.x, p.y, p.z)), b = Lab.fromRGB(SIMD3(q.x, q.y, q.z))
            let dl = a.x - b.x
            let c1 = (a.y * a.y + a.z * a.z).squareRoot(), c2 = (b.y * b.y + b.z * b.z).squareRoot()
            let dc = c1 - c2
            let da = a.y - b.y, db = a.z - b.z
            let dh2 = max(0, da * da + db * db - dc * dc)
            let sc = 1 + 0.045 * c1, sh = 1 + 0.015 * c1
            let e = (dl * dl + (dc / sc) * (dc / sc) + dh2 / (sh * sh)).squareRoot()
            row[i] = SIMD4(e, e, e, 1)
        }
    }
    var label: String { "Lab ΔE94" }
}

// MARK: Dither, false colour, components, vignette

/// A uniform value in [0, 1) from integer coordinates (a 32-bit integer hash).
@inline(__always) func hashUnit(_ x: Int, _ y: Int, _ c: UInt32) -> Float {
    var h = UInt32(truncatingIfNeeded: x) &* 0x8da6b343 ^ UInt32(truncatingIfNeeded: y) &* 0xd8163841 ^ c &* 0xcb1ab31f
    h ^= h >> 16; h = h &* 0x7feb352d; h ^= h >> 15; h = h &* 0x846ca68b; h ^= h >> 16
    return Float(h >> 8) * (1.0 / 16_777_216.0)
}

struct DitherStage: ColorStage {
    let amplitude: Float
    var wantsUnpremultiplied: Bool { true }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let k = 2 * amplitude
        for i in 0..<count {
            let p = row[i]
            let n = SIMD3(hashUnit(x + i, y, 0) - 0.5, hashUnit(x + i, y, 1) - 0.5, hashUnit(x + i, y, 2) - 0.5) * k
            row[i] = SIMD4(sRGBToLinear(linearToSRGB(p.x) + n.x), sRGBToLinear(linearToSRGB(p.y) + n.y), sRGBToLinear(linearToSRGB(p.z) + n.z), p.w)
        }
    }
    var label: String { "dither" }
}

struct FalseColorStage: ColorStage {
    let c0: SIMD4<Float>, c1: SIMD4<Float>
    var wantsUnpremultiplied: Bool { true }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let w = lumaWeights, d = c1 - c0
        for i in 0..<count {
            let p = row[i]
            let l = w.x * p.x + w.y * p.y + w.z * p.z
            let c = c0 + d * l
            row[i] = SIMD4(c.x, c.y, c.z, c.w * p.w)
        }
    }
    var label: String { "false color" }
}

struct ComponentStage: ColorStage {
    enum Kind { case maximum, minimum, maskToAlpha }
    let kind: Kind
    var wantsUnpremultiplied: Bool { false }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        switch kind {
        case .maximum:
            for i in 0..<count { let p = row[i]; let m = max(p.x, p.y, p.z); row[i] = SIMD4(m, m, m, p.w) }
        case .minimum:
            for i in 0..<count { let p = row[i]; let m = min(p.x, p.y, p.z); row[i] = SIMD4(m, m, m, p.w) }
        case .maskToAlpha:
            let w = lumaWeights
            for i in 0..<count { let p = row[i]; let m = w.x * p.x + w.y * p.y + w.z * p.z; row[i] = SIMD4(m, m, m, m) }
        }
    }
    var label: String { "\(kind) component" }
}

struct VignetteEffectStage: ColorStage {
    let cx: Float, cy: Float, inner: Float, outer: Float, intensity: Float
    var wantsUnpremultiplied: Bool { false }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let dy = Float(y) + 0.5 - cy
        let span = outer - inner
        for i in 0..<count {
            let dx = Float(x + i) + 0.5 - cx
            let d = (dx * dx + dy * dy).squareRoot()
            let s: Float
            if span > 0 {
                let t = clamp01((d - inner) / span)
                s = t * t * (3 - 2 * t)
            } else {
                s = d > outer ? 1 : 0
            }
            let f = max(0, 1 - intensity * s)
            let p = row[i]
            row[i] = SIMD4(p.x * f, p.y * f, p.z * f, p.w)
        }
    }
    var label: String { "vignette effect" }
}
