import Cyanotype
import Foundation

/// A CSS `mix-blend-mode`, computed as W3C Compositing and Blending Level 1 defines it on
/// sRGB-encoded values (as browsers do), with the engine's own formulas (`blendKernel`'s
/// `blendFunction`). `ciFilterName` names Core Image's filter with the same formula, which
/// blends in the linear working space instead.
public enum CSSBlendMode: String, Sendable, CaseIterable, Codable {
    /// The source colour alone (plain source-over compositing).
    case normal
    /// The product of the colours: darkens, white is neutral.
    case multiply
    /// The inverse of the product of the inverses: lightens, black is neutral.
    case screen
    /// Multiply or screen depending on the backdrop: contrast, keeping the backdrop's
    /// highlights and shadows.
    case overlay
    /// The darker of the two colours, per channel.
    case darken
    /// The lighter of the two colours, per channel.
    case lighten
    /// Brightens the backdrop to reflect the source (`color-dodge`).
    case colorDodge = "color-dodge"
    /// Darkens the backdrop to reflect the source (`color-burn`).
    case colorBurn = "color-burn"
    /// Multiply or screen depending on the source: overlay with the layers swapped (`hard-light`).
    case hardLight = "hard-light"
    /// A gentler hard light: darkens or lightens depending on the source (`soft-light`).
    case softLight = "soft-light"
    /// The absolute difference of the colours, per channel.
    case difference
    /// Like difference, with lower contrast.
    case exclusion
    /// The source's hue with the backdrop's saturation and luminosity.
    case hue
    /// The source's saturation with the backdrop's hue and luminosity.
    case saturation
    /// The source's hue and saturation with the backdrop's luminosity.
    case color
    /// The source's luminosity with the backdrop's hue and saturation.
    case luminosity

    /// Core Image's blend kernel for this mode (`CIBlendKernel.overlay`, ...; `sourceOver`,
    /// whose blend function is W3C's normal, for `.normal`). The looks blend sRGB-encoded
    /// rows with its `blendFunction`.
    public var blendKernel: CIBlendKernel {
        switch self {
        case .normal: return .sourceOver
        case .multiply: return .multiply
        case .screen: return .screen
        case .overlay: return .overlay
        case .darken: return .darken
        case .lighten: return .lighten
        case .colorDodge: return .colorDodge
        case .colorBurn: return .colorBurn
        case .hardLight: return .hardLight
        case .softLight: return .softLight
        case .difference: return .difference
        case .exclusion: return .exclusion
        case .hue: return .hue
        case .saturation: return .saturation
        case .color: return .color
        case .luminosity: return .luminosity
        }
    }

    /// Core Image's filter for this mode (same formula, working-space values).
    public var ciFilterName: String {
        switch self {
        case .normal: return "CISourceOverCompositing"
        case .multiply: return "CIMultiplyBlendMode"
        case .screen: return "CIScreenBlendMode"
        case .overlay: return "CIOverlayBlendMode"
        case .darken: return "CIDarkenBlendMode"
        case .lighten: return "CILightenBlendMode"
        case .colorDodge: return "CIColorDodgeBlendMode"
        case .colorBurn: return "CIColorBurnBlendMode"
        case .hardLight: return "CIHardLightBlendMode"
        case .softLight: return "CISoftLightBlendMode"
        case .difference: return "CIDifferenceBlendMode"
        case .exclusion: return "CIExclusionBlendMode"
        case .hue: return "CIHueBlendMode"
        case .saturation: return "CISaturationBlendMode"
        case .color: return "CIColorBlendMode"
        case .luminosity: return "CILuminosityBlendMode"
        }
    }
}

/// A CSS colour: 8-bit-scale sRGB channels (0...255) and alpha (0...1), as in `rgba()`.
public struct CSSColor: Sendable, Equatable, Hashable, Codable {
    /// The sRGB channels, 0...255, and alpha, 0...1.
    public var red: Double, green: Double, blue: Double, alpha: Double
    /// A colour as `rgba(red, green, blue, alpha)` writes it; alpha defaults to 1.
    public init(_ red: Double, _ green: Double, _ blue: Double, _ alpha: Double = 1) {
        self.red = red; self.green = green; self.blue = blue; self.alpha = alpha
    }
    /// Transparent black (CSS `transparent`).
    public static let transparent = CSSColor(0, 0, 0, 0)
}

/// A colour stop; `position` is a fraction of the gradient line (nil: placed by CSS's rules).
public struct CSSColorStop: Sendable, Equatable, Hashable {
    /// The stop's colour.
    public var color: CSSColor
    /// Where the stop sits, as a fraction of the gradient line (it may lie outside 0...1);
    /// nil to let CSS place it.
    public var position: Double?
    /// A stop of `color` at `position` (nil: placed by CSS's rules).
    public init(_ color: CSSColor, _ position: Double? = nil) { self.color = color; self.position = position }
}

/// What fills an overlay box (`background` of `::before` / `::after`).
public enum CSSFill: Sendable, Equatable, Hashable {
    /// A plain colour.
    case color(CSSColor)
    /// `linear-gradient(to <side>, ...)`: the first stop at the starting edge.
    case linearGradient(to: CSSSide, stops: [CSSColorStop])
    /// `radial-gradient(circle at X Y, ...)`, size farthest-corner; `center` is in fractions
    /// of the box, measured from the top left as CSS does.
    case radialGradient(center: CSSPosition, stops: [CSSColorStop])
}

/// A point in fractions of the box (CSS percentages / 100), from the top left.
public struct CSSPosition: Sendable, Equatable, Hashable {
    /// The fractions of the box's width (from the left) and height (from the top).
    public var x: Double, y: Double
    /// The point at fractions `x` and `y` of the box, from the top left.
    public init(_ x: Double, _ y: Double) { self.x = x; self.y = y }
}

/// Sides a linear gradient can run to.
public enum CSSSide: String, Sendable, Equatable, Hashable {
    /// The right edge (`to right`).
    case right
    /// The left edge (`to left`).
    case left
    /// The bottom edge (`to bottom`).
    case bottom
    /// The top edge (`to top`).
    case top
}

/// A pseudo-element overlay: a fill, blended onto the image with `blendMode`, at `opacity`.
public struct CSSOverlay: Sendable, Equatable, Hashable {
    /// What the overlay box is filled with.
    public var fill: CSSFill
    /// How the fill is blended onto the image.
    public var blendMode: CSSBlendMode
    /// The overlay's opacity, 0...1.
    public var opacity: Double
    /// An overlay of `fill`, blended with `blend` at `opacity`.
    public init(_ fill: CSSFill, blend: CSSBlendMode, opacity: Double = 1) {
        self.fill = fill; self.blendMode = blend; self.opacity = opacity
    }
}

/// Stops with CSS's position fix-up applied: a missing first position is 0, a missing last
/// is 1, missing ones between are spaced evenly, and none is before the one preceding it.
func resolvedStops(_ stops: [CSSColorStop]) -> [(pos: Double, color: CSSColor)] {
    guard !stops.isEmpty else { return [] }
    var pos: [Double?] = stops.map(\.position)
    if pos[0] == nil { pos[0] = 0 }
    if pos[pos.count - 1] == nil { pos[pos.count - 1] = max(1, pos.compactMap { $0 }.max() ?? 1) }
    // Monotonic: each declared position at least the largest before it.
    var running = pos[0]!
    for i in pos.indices { if let p = pos[i] { running = max(running, p); pos[i] = running } }
    var i = 0
    while i < pos.count {
        if pos[i] == nil {
            var j = i
            while pos[j] == nil { j += 1 }
            let a = pos[i - 1]!, b = pos[j]!
            for k in i..<j { pos[k] = a + (b - a) * Double(k - i + 1) / Double(j - i + 1) }
            i = j
        }
        i += 1
    }
    return zip(pos, stops).map { ($0!, $1.color) }
}
