#if !canImport(CoreGraphics)
/// Core Graphics' colour: components in a colour space (RGB or grey) followed by alpha,
/// straight (not premultiplied). What `CGContext.setFillColor(_:)` and `CIColor(cgColor:)` take.
public final class CGColor: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// The space the colour components are in.
    public let colorSpace: CGColorSpace?
    /// The components, alpha last: `[r, g, b, a]` in an RGB space, `[gray, a]` in a grey one.
    public let components: [CGFloat]?

    private init(space: CGColorSpace, components: [CGFloat]) {
        self.colorSpace = space; self.components = components
    }
    /// A colour in `space` from its components, alpha last; nil when the count does not match
    /// the space (three colour components and alpha for RGB, one and alpha for grey).
    public convenience init?(colorSpace space: CGColorSpace, components: UnsafePointer<CGFloat>) {
        let n = space.numberOfComponents + 1
        self.init(space: space, components: Array(UnsafeBufferPointer(start: components, count: n)))
    }
    /// A colour in `space` from an array of components, alpha last; nil when the count does
    /// not match the space.
    public convenience init?(colorSpace space: CGColorSpace, components: [CGFloat]) {
        guard components.count == space.numberOfComponents + 1 else { return nil }
        self.init(space: space, components: components)
    }
    /// An sRGB colour (Core Graphics' `CGColor(red:green:blue:alpha:)` on current systems).
    public convenience init(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat) {
        self.init(space: .sRGBSpace, components: [red, green, blue, alpha])
    }
    /// An sRGB colour.
    public convenience init(srgbRed red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat) {
        self.init(red: red, green: green, blue: blue, alpha: alpha)
    }
    /// A grey in the generic grey space (gamma 2.2), as Core Graphics makes it.
    public convenience init(gray: CGFloat, alpha: CGFloat) {
        self.init(space: .genericGraySpace, components: [gray, alpha])
    }
    /// The number of components, alpha included.
    public var numberOfComponents: Int { components?.count ?? 0 }
    /// The alpha component.
    public var alpha: CGFloat { components?.last ?? 1 }
    /// The same colour with another alpha.
    public func copy(alpha: CGFloat) -> CGColor? {
        guard let space = colorSpace, var c = components else { return nil }
        c[c.count - 1] = alpha
        return CGColor(space: space, components: c)
    }
    /// The same colour in `space`, converted colorimetrically through linear light (`intent`
    /// and `options` are accepted; nothing else is implemented); grey from RGB is the luminance.
    public func converted(to space: CGColorSpace, intent: CGColorRenderingIntent, options: CFDictionary?) -> CGColor? {
        let e = encoded(in: space)
        let c: [Float] = space.model == .rgb ? [e.rgb.x, e.rgb.y, e.rgb.z, e.alpha] : [e.gray, e.alpha]
        return CGColor(space: space, components: c.map { CGFloat($0) })
    }
    /// Opaque black (grey 0).
    public static let black = CGColor(gray: 0, alpha: 1)
    /// Opaque white (grey 1).
    public static let white = CGColor(gray: 1, alpha: 1)
    /// Transparent black.
    public static let clear = CGColor(gray: 0, alpha: 0)

    /// The colour as `CGColor(space [components])`.
    public var description: String {
        "CGColor(\(colorSpace?.description ?? "no space") \((components ?? []).map { formatNumber($0) }.joined(separator: " ")))"
    }
    /// Two colours are equal when their spaces and components are.
    public static func == (l: CGColor, r: CGColor) -> Bool { l.colorSpace == r.colorSpace && l.components == r.components }
    /// Hashes the components.
    public func hash(into h: inout Hasher) { h.combine(components) }

    /// The colour in `space` (encoded components and straight alpha), converted through linear
    /// light in double precision: grey goes to RGB as equal components, RGB to grey by its
    /// luminance (Rec. 709 weights).
    func encoded(in space: CGColorSpace) -> (rgb: SIMD3<Float>, gray: Float, alpha: Float) {
        let c = components ?? [0, 1]
        let from = colorSpace ?? .sRGBSpace
        let src = c.count >= 4 ? SIMD3(Double(c[0]), Double(c[1]), Double(c[2])) : SIMD3(repeating: Double(c[0]))
        let alpha = Float(c.last ?? 1)
        if from == space { return (SIMD3<Float>(src), Float(src.x), alpha) }
        var linear = SIMD3(from.decodeDouble(src.x), from.decodeDouble(src.y), from.decodeDouble(src.z))
        if let m = from.toSRGBMatrix { linear = SIMD3<Double>(mul3(m, SIMD3<Float>(linear))) }
        let y = 0.2126 * linear.x + 0.7152 * linear.y + 0.0722 * linear.z
        if space.model == .monochrome {
            let g = Float(space.encodeDouble(y))
            return (SIMD3(repeating: g), g, alpha)
        }
        if let m = space.fromSRGBMatrix { linear = SIMD3<Double>(mul3(m, SIMD3<Float>(linear))) }
        let rgb = SIMD3(space.encodeDouble(linear.x), space.encodeDouble(linear.y), space.encodeDouble(linear.z))
        return (SIMD3<Float>(rgb), Float(space.encodeDouble(y)), alpha)
    }
}

extension CGColorSpace {
    /// Core Graphics' generic grey space (gamma 2.2), what `CGColor(gray:alpha:)` uses.
    static let genericGraySpace = CGColorSpace(name: genericGrayGamma2_2, transfer: .gamma(2.2), model: .monochrome)
    /// An encoded component -> linear light, in double precision.
    func decodeDouble(_ v: Double) -> Double {
        switch transfer {
        case .linear: return v
        case .sRGB: return SRGBCurve.decode(v)
        case .gamma(let g): return v < 0 ? -pow(-v, Double(g)) : pow(v, Double(g))
        case .rec709: return Rec709Curve.decode(v)
        }
    }
    /// Linear light -> an encoded component, in double precision.
    func encodeDouble(_ v: Double) -> Double {
        switch transfer {
        case .linear: return v
        case .sRGB: return SRGBCurve.encode(v)
        case .gamma(let g): return v < 0 ? -pow(-v, 1 / Double(g)) : pow(v, 1 / Double(g))
        case .rec709: return Rec709Curve.encode(v)
        }
    }
}

/// The luminance of linear sRGB (Rec. 709 weights).
@inline(__always) func linearLuminance(_ l: SIMD3<Float>) -> Float { 0.2126 * l.x + 0.7152 * l.y + 0.0722 * l.z }

extension CIColor {
    /// A Core Image colour from a Core Graphics one: RGB colours keep their space; grey ones
    /// become sRGB with the same light (so black, white and clear stay exact).
    public convenience init(cgColor color: CGColor) {
        let space = color.colorSpace ?? .sRGBSpace
        let target: CGColorSpace = space.model == .rgb ? space : .sRGBSpace
        let e = color.encoded(in: target)
        self.init(red: CGFloat(e.rgb.x), green: CGFloat(e.rgb.y), blue: CGFloat(e.rgb.z), alpha: CGFloat(e.alpha), in: target)
    }
}
#endif
