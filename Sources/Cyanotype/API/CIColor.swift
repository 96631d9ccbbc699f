/// An immutable colour. Components are in `colorSpace` (sRGB unless given), straight (not
/// premultiplied) alpha, as in Core Image; filters convert them into the working space.
public final class CIColor: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// The components, in `colorSpace`, with straight (unpremultiplied) alpha.
    public let red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat
    /// The space the components are in (sRGB unless given).
    public let colorSpace: CGColorSpace

    init(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat, in colorSpace: CGColorSpace) {
        self.red = red; self.green = green; self.blue = blue; self.alpha = alpha; self.colorSpace = colorSpace
    }
    /// An sRGB colour; alpha defaults to 1 (opaque).
    public convenience init(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat = 1) {
        self.init(red: red, green: green, blue: blue, alpha: alpha, in: .sRGBSpace)
    }
    /// Components in `colorSpace`; nil unless it is an RGB space (Core Image's rule).
    public convenience init?(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat, colorSpace: CGColorSpace) {
        guard colorSpace.model == .rgb else { return nil }
        self.init(red: red, green: green, blue: blue, alpha: alpha, in: colorSpace)
    }
    /// An opaque colour in `colorSpace`; nil unless it is an RGB space.
    public convenience init?(red: CGFloat, green: CGFloat, blue: CGFloat, colorSpace: CGColorSpace) {
        self.init(red: red, green: green, blue: blue, alpha: 1, colorSpace: colorSpace)
    }
    /// Parses Core Image's string form `"r g b a"` (brackets optional); missing alpha is 1.
    public convenience init(string: String) {
        let v = CIVector(string: string)
        self.init(red: v.value(at: 0), green: v.value(at: 1), blue: v.value(at: 2), alpha: v.count >= 4 ? v.value(at: 3) : 1)
    }

    /// The number of components, alpha included: always 4.
    public var numberOfComponents: Int { 4 }
    /// The components in order: red, green, blue, alpha.
    public var components: [CGFloat] { [red, green, blue, alpha] }
    /// The components as Core Image writes them, `"r g b a"`; `init(string:)` reads it back.
    public var stringRepresentation: String { [red, green, blue, alpha].map { formatNumber($0) }.joined(separator: " ") }
    /// The colour as `CIColor(r g b a)`.
    public var description: String { "CIColor(\(stringRepresentation))" }

    /// Opaque black.
    public static let black = CIColor(red: 0, green: 0, blue: 0)
    /// Opaque white.
    public static let white = CIColor(red: 1, green: 1, blue: 1)
    /// Opaque mid grey (0.5 in every component, sRGB-encoded).
    public static let gray = CIColor(red: 0.5, green: 0.5, blue: 0.5)
    /// Opaque red.
    public static let red = CIColor(red: 1, green: 0, blue: 0)
    /// Opaque green.
    public static let green = CIColor(red: 0, green: 1, blue: 0)
    /// Opaque blue.
    public static let blue = CIColor(red: 0, green: 0, blue: 1)
    /// Opaque cyan.
    public static let cyan = CIColor(red: 0, green: 1, blue: 1)
    /// Opaque magenta.
    public static let magenta = CIColor(red: 1, green: 0, blue: 1)
    /// Opaque yellow.
    public static let yellow = CIColor(red: 1, green: 1, blue: 0)
    /// Fully transparent black.
    public static let clear = CIColor(red: 0, green: 0, blue: 0, alpha: 0)

    /// Premultiplied linear-sRGB RGBA: the working-space value of this colour.
    var workingValue: SIMD4<Float> {
        let rgb = colorSpace.toLinearSRGB(SIMD3(Float(red), Float(green), Float(blue)))
        let a = Float(alpha)
        return SIMD4(rgb * a, a)
    }

    /// Premultiplied RGBA of the colour's own components (no conversion): its value in a
    /// context without colour management.
    var unmanagedValue: SIMD4<Float> {
        let a = Float(alpha)
        let rgb = colorSpace.model == .monochrome ? SIMD3(repeating: Float(red)) : SIMD3(Float(red), Float(green), Float(blue))
        return SIMD4(rgb * a, a)
    }

    /// Two colours are equal when their components and colour spaces are.
    public static func == (l: CIColor, r: CIColor) -> Bool {
        l.components == r.components && l.colorSpace == r.colorSpace
    }
    /// Hashes the components.
    public func hash(into h: inout Hasher) { h.combine(components) }
}
