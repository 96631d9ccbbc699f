/// An immutable colour. Components are in `colorSpace` (sRGB unless given), straight (not
/// premultiplied) alpha, as in Core Image; filters convert them into the working space.
public final class CIColor: @unchecked Sendable, Hashable, CustomStringConvertible {
    public let red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat
    public let colorSpace: CGColorSpace

    init(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat, in colorSpace: CGColorSpace) {
        self.red = red; self.green = green; self.blue = blue; self.alpha = alpha; self.colorSpace = colorSpace
    }
    public convenience init(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat = 1) {
        self.init(red: red, green: green, blue: blue, alpha: alpha, in: .sRGBSpace)
    }
    /// Components in `colorSpace`; nil unless it is an RGB space (Core Image's rule).
    public convenience init?(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat, colorSpace: CGColorSpace) {
        guard colorSpace.model == .rgb else { return nil }
        self.init(red: red, green: green, blue: blue, alpha: alpha, in: colorSpace)
    }
    public convenience init?(red: CGFloat, green: CGFloat, blue: CGFloat, colorSpace: CGColorSpace) {
        self.init(red: red, green: green, blue: blue, alpha: 1, colorSpace: colorSpace)
    }
    /// Parses Core Image's string form `"r g b a"` (brackets optional); missing alpha is 1.
    public convenience init(string: String) {
        let v = CIVector(string: string)
        self.init(red: v.value(at: 0), green: v.value(at: 1), blue: v.value(at: 2), alpha: v.count >= 4 ? v.value(at: 3) : 1)
    }

    public var numberOfComponents: Int { 4 }
    public var components: [CGFloat] { [red, green, blue, alpha] }
    public var stringRepresentation: String { [red, green, blue, alpha].map { formatNumber($0) }.joined(separator: " ") }
    public var description: String { "CIColor(\(stringRepresentation))" }

    public static let black = CIColor(red: 0, green: 0, blue: 0)
    public static let white = CIColor(red: 1, green: 1, blue: 1)
    public static let gray = CIColor(red: 0.5, green: 0.5, blue: 0.5)
    public static let red = CIColor(red: 1, green: 0, blue: 0)
    public static let green = CIColor(red: 0, green: 1, blue: 0)
    public static let blue = CIColor(red: 0, green: 0, blue: 1)
    public static let cyan = CIColor(red: 0, green: 1, blue: 1)
    public static let magenta = CIColor(red: 1, green: 0, blue: 1)
    public static let yellow = CIColor(red: 1, green: 1, blue: 0)
    public static let clear = CIColor(red: 0, green: 0, blue: 0, alpha: 0)

    /// Premultiplied linear-sRGB RGBA: the working-space value of this colour.
    var workingValue: SIMD4<Float> {
        let rgb = colorSpace.toLinearSRGB(SIMD3(Float(red), Float(green), Float(blue)))
        let a = Float(alpha)
        return SIMD4(rgb * a, a)
    }

    public static func == (l: CIColor, r: CIColor) -> Bool {
        l.components == r.components && l.colorSpace == r.colorSpace
    }
    public func hash(into h: inout Hasher) { h.combine(components) }
}
