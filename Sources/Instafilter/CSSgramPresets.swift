// Transcribed from ../shared/spec/cssgram_presets.json (CSSgram 0.1.12, MIT, by Una Kravets):
// one declaration per look. Regenerate rather than edit by hand when the preset file changes.
import Foundation

extension CSSLookDefinition {
    /// CSSgram `._1977`: filter `contrast(1.1) brightness(1.1) saturate(1.3)`.
    public static let _1977 = CSSLookDefinition(
        name: "1977", displayName: "1977", origin: .cssgram,
        before: nil,
        after: CSSOverlay(.color(CSSColor(243, 106, 188, 0.3)), blend: .screen, opacity: 1),
        filters: [.contrast(1.1), .brightness(1.1), .saturate(1.3)])
    /// CSSgram `.aden`: filter `hue-rotate(-20deg) contrast(0.9) saturate(0.85) brightness(1.2)`.
    public static let aden = CSSLookDefinition(
        name: "aden", displayName: "Aden", origin: .cssgram,
        before: nil,
        after: CSSOverlay(.linearGradient(to: .right, stops: [CSSColorStop(CSSColor(66, 10, 14, 0.2)), CSSColorStop(CSSColor(0, 0, 0, 0))]), blend: .darken, opacity: 1),
        filters: [.hueRotate(degrees: -20), .contrast(0.9), .saturate(0.85), .brightness(1.2)])
    /// CSSgram `.brannan`: filter `sepia(0.5) contrast(1.4)`.
    public static let brannan = CSSLookDefinition(
        name: "brannan", displayName: "Brannan", origin: .cssgram,
        before: nil,
        after: CSSOverlay(.color(CSSColor(161, 44, 199, 0.31)), blend: .lighten, opacity: 1),
        filters: [.sepia(0.5), .contrast(1.4)])
    /// CSSgram `.brooklyn`: filter `contrast(0.9) brightness(1.1)`.
    public static let brooklyn = CSSLookDefinition(
        name: "brooklyn", displayName: "Brooklyn", origin: .cssgram,
        before: nil,
        after: CSSOverlay(
            .radialGradient(center: CSSPosition(0.5, 0.5), stops: [CSSColorStop(CSSColor(168, 223, 193, 0.4), 0.7), CSSColorStop(CSSColor(196, 183, 200, 1))]), blend: .overlay,
            opacity: 1),
        filters: [.contrast(0.9), .brightness(1.1)])
    /// CSSgram `.clarendon`: filter `contrast(1.2) saturate(1.35)`.
    public static let clarendon = CSSLookDefinition(
        name: "clarendon", displayName: "Clarendon", origin: .cssgram,
        before: CSSOverlay(.color(CSSColor(127, 187, 227, 0.2)), blend: .overlay, opacity: 1),
        after: nil,
        filters: [.contrast(1.2), .saturate(1.35)])
    /// CSSgram `.earlybird`: filter `contrast(0.9) sepia(0.2)`.
    public static let earlybird = CSSLookDefinition(
        name: "earlybird", displayName: "Earlybird", origin: .cssgram,
        before: nil,
        after: CSSOverlay(
            .radialGradient(
                center: CSSPosition(0.5, 0.5),
                stops: [CSSColorStop(CSSColor(208, 186, 142, 1), 0.2), CSSColorStop(CSSColor(54, 3, 9, 1), 0.85), CSSColorStop(CSSColor(29, 2, 16, 1), 1)]), blend: .overlay,
            opacity: 1),
        filters: [.contrast(0.9), .sepia(0.2)])
    /// CSSgram `.gingham`: filter `brightness(1.05) hue-rotate(-10deg)`.
    public static let gingham = CSSLookDefinition(
        name: "gingham", displayName: "Gingham", origin: .cssgram,
        before: nil,
        after: CSSOverlay(.color(CSSColor(230, 230, 250, 1)), blend: .softLight, opacity: 1),
        filters: [.brightness(1.05), .hueRotate(degrees: -10)])
    /// CSSgram `.hudson`: filter `brightness(1.2) contrast(0.9) saturate(1.1)`.
    public static let hudson = CSSLookDefinition(
        name: "hudson", displayName: "Hudson", origin: .cssgram,
        before: nil,
        after: CSSOverlay(
            .radialGradient(center: CSSPosition(0.5, 0.5), stops: [CSSColorStop(CSSColor(166, 177, 255, 1), 0.5), CSSColorStop(CSSColor(52, 33, 52, 1))]), blend: .multiply,
            opacity: 0.5),
        filters: [.brightness(1.2), .contrast(0.9), .saturate(1.1)])
    /// CSSgram `.inkwell`: filter `sepia(0.3) contrast(1.1) brightness(1.1) grayscale(1)`.
    public static let inkwell = CSSLookDefinition(
        name: "inkwell", displayName: "Inkwell", origin: .cssgram,
        before: nil,
        after: nil,
        filters: [.sepia(0.3), .contrast(1.1), .brightness(1.1), .grayscale(1)])
    /// CSSgram `.kelvin`: filter `none`.
    public static let kelvin = CSSLookDefinition(
        name: "kelvin", displayName: "Kelvin", origin: .cssgram,
        before: CSSOverlay(.color(CSSColor(56, 44, 52, 1)), blend: .colorDodge, opacity: 1),
        after: CSSOverlay(.color(CSSColor(183, 125, 33, 1)), blend: .overlay, opacity: 1),
        filters: [])
    /// CSSgram `.lark`: filter `contrast(0.9)`.
    public static let lark = CSSLookDefinition(
        name: "lark", displayName: "Lark", origin: .cssgram,
        before: CSSOverlay(.color(CSSColor(34, 37, 63, 1)), blend: .colorDodge, opacity: 1),
        after: CSSOverlay(.color(CSSColor(242, 242, 242, 0.8)), blend: .darken, opacity: 1),
        filters: [.contrast(0.9)])
    /// CSSgram `.lofi`: filter `saturate(1.1) contrast(1.5)`.
    public static let lofi = CSSLookDefinition(
        name: "lofi", displayName: "Lo-Fi", origin: .cssgram,
        before: nil,
        after: CSSOverlay(
            .radialGradient(center: CSSPosition(0.5, 0.5), stops: [CSSColorStop(CSSColor(0, 0, 0, 0), 0.7), CSSColorStop(CSSColor(34, 34, 34, 1), 1.5)]), blend: .multiply,
            opacity: 1),
        filters: [.saturate(1.1), .contrast(1.5)])
    /// CSSgram `.maven`: filter `sepia(0.25) brightness(0.95) contrast(0.95) saturate(1.5)`.
    public static let maven = CSSLookDefinition(
        name: "maven", displayName: "Maven", origin: .cssgram,
        before: nil,
        after: CSSOverlay(.color(CSSColor(3, 230, 26, 0.2)), blend: .hue, opacity: 1),
        filters: [.sepia(0.25), .brightness(0.95), .contrast(0.95), .saturate(1.5)])
    /// CSSgram `.mayfair`: filter `contrast(1.1) saturate(1.1)`.
    public static let mayfair = CSSLookDefinition(
        name: "mayfair", displayName: "Mayfair", origin: .cssgram,
        before: nil,
        after: CSSOverlay(
            .radialGradient(
                center: CSSPosition(0.4, 0.4),
                stops: [CSSColorStop(CSSColor(255, 255, 255, 0.8)), CSSColorStop(CSSColor(255, 200, 200, 0.6)), CSSColorStop(CSSColor(17, 17, 17, 1), 0.6)]), blend: .overlay,
            opacity: 0.4),
        filters: [.contrast(1.1), .saturate(1.1)])
    /// CSSgram `.moon`: filter `grayscale(1) contrast(1.1) brightness(1.1)`.
    public static let moon = CSSLookDefinition(
        name: "moon", displayName: "Moon", origin: .cssgram,
        before: CSSOverlay(.color(CSSColor(160, 160, 160, 1)), blend: .softLight, opacity: 1),
        after: CSSOverlay(.color(CSSColor(56, 56, 56, 1)), blend: .lighten, opacity: 1),
        filters: [.grayscale(1), .contrast(1.1), .brightness(1.1)])
    /// CSSgram `.nashville`: filter `sepia(0.2) contrast(1.2) brightness(1.05) saturate(1.2)`.
    public static let nashville = CSSLookDefinition(
        name: "nashville", displayName: "Nashville", origin: .cssgram,
        before: CSSOverlay(.color(CSSColor(247, 176, 153, 0.56)), blend: .darken, opacity: 1),
        after: CSSOverlay(.color(CSSColor(0, 70, 150, 0.4)), blend: .lighten, opacity: 1),
        filters: [.sepia(0.2), .contrast(1.2), .brightness(1.05), .saturate(1.2)])
    /// CSSgram `.perpetua`: filter `none`.
    public static let perpetua = CSSLookDefinition(
        name: "perpetua", displayName: "Perpetua", origin: .cssgram,
        before: nil,
        after: CSSOverlay(.linearGradient(to: .bottom, stops: [CSSColorStop(CSSColor(0, 91, 154, 1)), CSSColorStop(CSSColor(230, 193, 61, 1))]), blend: .softLight, opacity: 0.5),
        filters: [])
    /// CSSgram `.reyes`: filter `sepia(0.22) brightness(1.1) contrast(0.85) saturate(0.75)`.
    public static let reyes = CSSLookDefinition(
        name: "reyes", displayName: "Reyes", origin: .cssgram,
        before: nil,
        after: CSSOverlay(.color(CSSColor(239, 205, 173, 1)), blend: .softLight, opacity: 0.5),
        filters: [.sepia(0.22), .brightness(1.1), .contrast(0.85), .saturate(0.75)])
    /// CSSgram `.rise`: filter `brightness(1.05) sepia(0.2) contrast(0.9) saturate(0.9)`.
    public static let rise = CSSLookDefinition(
        name: "rise", displayName: "Rise", origin: .cssgram,
        before: CSSOverlay(
            .radialGradient(center: CSSPosition(0.5, 0.5), stops: [CSSColorStop(CSSColor(236, 205, 169, 0.15), 0.55), CSSColorStop(CSSColor(50, 30, 7, 0.4))]), blend: .multiply,
            opacity: 1),
        after: CSSOverlay(
            .radialGradient(center: CSSPosition(0.5, 0.5), stops: [CSSColorStop(CSSColor(232, 197, 152, 0.8)), CSSColorStop(CSSColor(0, 0, 0, 0), 0.9)]), blend: .overlay,
            opacity: 0.6),
        filters: [.brightness(1.05), .sepia(0.2), .contrast(0.9), .saturate(0.9)])
    /// CSSgram `.slumber`: filter `saturate(0.66) brightness(1.05)`.
    public static let slumber = CSSLookDefinition(
        name: "slumber", displayName: "Slumber", origin: .cssgram,
        before: CSSOverlay(.color(CSSColor(69, 41, 12, 0.4)), blend: .lighten, opacity: 1),
        after: CSSOverlay(.color(CSSColor(125, 105, 24, 0.5)), blend: .softLight, opacity: 1),
        filters: [.saturate(0.66), .brightness(1.05)])
    /// CSSgram `.stinson`: filter `contrast(0.75) saturate(0.85) brightness(1.15)`.
    public static let stinson = CSSLookDefinition(
        name: "stinson", displayName: "Stinson", origin: .cssgram,
        before: CSSOverlay(.color(CSSColor(240, 149, 128, 0.2)), blend: .softLight, opacity: 1),
        after: nil,
        filters: [.contrast(0.75), .saturate(0.85), .brightness(1.15)])
    /// CSSgram `.toaster`: filter `contrast(1.5) brightness(0.9)`.
    public static let toaster = CSSLookDefinition(
        name: "toaster", displayName: "Toaster", origin: .cssgram,
        before: nil,
        after: CSSOverlay(
            .radialGradient(center: CSSPosition(0.5, 0.5), stops: [CSSColorStop(CSSColor(128, 78, 15, 1)), CSSColorStop(CSSColor(59, 0, 59, 1))]), blend: .screen, opacity: 1),
        filters: [.contrast(1.5), .brightness(0.9)])
    /// CSSgram `.valencia`: filter `contrast(1.08) brightness(1.08) sepia(0.08)`.
    public static let valencia = CSSLookDefinition(
        name: "valencia", displayName: "Valencia", origin: .cssgram,
        before: nil,
        after: CSSOverlay(.color(CSSColor(58, 3, 57, 1)), blend: .exclusion, opacity: 0.5),
        filters: [.contrast(1.08), .brightness(1.08), .sepia(0.08)])
    /// CSSgram `.walden`: filter `brightness(1.1) hue-rotate(-10deg) sepia(0.3) saturate(1.6)`.
    public static let walden = CSSLookDefinition(
        name: "walden", displayName: "Walden", origin: .cssgram,
        before: nil,
        after: CSSOverlay(.color(CSSColor(0, 68, 204, 1)), blend: .screen, opacity: 0.3),
        filters: [.brightness(1.1), .hueRotate(degrees: -10), .sepia(0.3), .saturate(1.6)])
    /// CSSgram `.willow`: filter `grayscale(0.5) contrast(0.95) brightness(0.9)`.
    public static let willow = CSSLookDefinition(
        name: "willow", displayName: "Willow", origin: .cssgram,
        before: nil,
        after: CSSOverlay(.color(CSSColor(216, 205, 203, 1)), blend: .color, opacity: 1),
        filters: [.grayscale(0.5), .contrast(0.95), .brightness(0.9)])
    /// CSSgram `.xpro2`: filter `sepia(0.3)`.
    public static let xpro2 = CSSLookDefinition(
        name: "xpro2", displayName: "X-Pro II", origin: .cssgram,
        before: nil,
        after: CSSOverlay(
            .radialGradient(center: CSSPosition(0.5, 0.5), stops: [CSSColorStop(CSSColor(230, 231, 224, 1), 0.4), CSSColorStop(CSSColor(43, 42, 161, 0.6), 1.1)]),
            blend: .colorBurn, opacity: 1),
        filters: [.sepia(0.3)])

    /// The 26 CSSgram presets, in the preset file's order.
    public static let cssgram: [CSSLookDefinition] = [
        ._1977, .aden, .brannan, .brooklyn, .clarendon, .earlybird, .gingham, .hudson, .inkwell, .kelvin, .lark, .lofi, .maven, .mayfair, .moon, .nashville, .perpetua, .reyes,
        .rise, .slumber, .stinson, .toaster, .valencia, .walden, .willow, .xpro2,
    ]
}

/// 1977 (CSSgram `._1977`), reproduced from its CSS.
public final class Insta1977: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the CSSgram `._1977` definition.
    public init() { super.init(._1977) }
}
/// Aden (CSSgram `.aden`), reproduced from its CSS.
public final class InstaAden: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the CSSgram `.aden` definition.
    public init() { super.init(.aden) }
}
/// Brannan (CSSgram `.brannan`), reproduced from its CSS.
public final class InstaBrannan: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the CSSgram `.brannan` definition.
    public init() { super.init(.brannan) }
}
/// Brooklyn (CSSgram `.brooklyn`), reproduced from its CSS.
public final class InstaBrooklyn: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the CSSgram `.brooklyn` definition.
    public init() { super.init(.brooklyn) }
}
/// Clarendon (CSSgram `.clarendon`), reproduced from its CSS.
public final class InstaClarendon: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the CSSgram `.clarendon` definition.
    public init() { super.init(.clarendon) }
}
/// Earlybird (CSSgram `.earlybird`), reproduced from its CSS.
public final class InstaEarlybird: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the CSSgram `.earlybird` definition.
    public init() { super.init(.earlybird) }
}
/// Gingham (CSSgram `.gingham`), reproduced from its CSS.
public final class InstaGingham: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the CSSgram `.gingham` definition.
    public init() { super.init(.gingham) }
}
/// Hudson (CSSgram `.hudson`), reproduced from its CSS.
public final class InstaHudson: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the CSSgram `.hudson` definition.
    public init() { super.init(.hudson) }
}
/// Inkwell (CSSgram `.inkwell`), reproduced from its CSS.
public final class InstaInkwell: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the CSSgram `.inkwell` definition.
    public init() { super.init(.inkwell) }
}
/// Kelvin (CSSgram `.kelvin`), reproduced from its CSS.
public final class InstaKelvin: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the CSSgram `.kelvin` definition.
    public init() { super.init(.kelvin) }
}
/// Lark (CSSgram `.lark`), reproduced from its CSS.
public final class InstaLark: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the CSSgram `.lark` definition.
    public init() { super.init(.lark) }
}
/// Lo-Fi (CSSgram `.lofi`), reproduced from its CSS.
public final class InstaLoFi: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the CSSgram `.lofi` definition.
    public init() { super.init(.lofi) }
}
/// Maven (CSSgram `.maven`), reproduced from its CSS.
public final class InstaMaven: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the CSSgram `.maven` definition.
    public init() { super.init(.maven) }
}
/// Mayfair (CSSgram `.mayfair`), reproduced from its CSS.
public final class InstaMayfair: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the CSSgram `.mayfair` definition.
    public init() { super.init(.mayfair) }
}
/// Moon (CSSgram `.moon`), reproduced from its CSS.
public final class InstaMoon: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the CSSgram `.moon` definition.
    public init() { super.init(.moon) }
}
/// Nashville (CSSgram `.nashville`), reproduced from its CSS.
public final class InstaNashville: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the CSSgram `.nashville` definition.
    public init() { super.init(.nashville) }
}
/// Perpetua (CSSgram `.perpetua`), reproduced from its CSS.
public final class InstaPerpetua: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the CSSgram `.perpetua` definition.
    public init() { super.init(.perpetua) }
}
/// Reyes (CSSgram `.reyes`), reproduced from its CSS.
public final class InstaReyes: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the CSSgram `.reyes` definition.
    public init() { super.init(.reyes) }
}
/// Rise (CSSgram `.rise`), reproduced from its CSS.
public final class InstaRise: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the CSSgram `.rise` definition.
    public init() { super.init(.rise) }
}
/// Slumber (CSSgram `.slumber`), reproduced from its CSS.
public final class InstaSlumber: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the CSSgram `.slumber` definition.
    public init() { super.init(.slumber) }
}
/// Stinson (CSSgram `.stinson`), reproduced from its CSS.
public final class InstaStinson: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the CSSgram `.stinson` definition.
    public init() { super.init(.stinson) }
}
/// Toaster (CSSgram `.toaster`), reproduced from its CSS.
public final class InstaToaster: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the CSSgram `.toaster` definition.
    public init() { super.init(.toaster) }
}
/// Valencia (CSSgram `.valencia`), reproduced from its CSS.
public final class InstaValencia: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the CSSgram `.valencia` definition.
    public init() { super.init(.valencia) }
}
/// Walden (CSSgram `.walden`), reproduced from its CSS.
public final class InstaWalden: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the CSSgram `.walden` definition.
    public init() { super.init(.walden) }
}
/// Willow (CSSgram `.willow`), reproduced from its CSS.
public final class InstaWillow: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the CSSgram `.willow` definition.
    public init() { super.init(.willow) }
}
/// X-Pro II (CSSgram `.xpro2`), reproduced from its CSS.
public final class InstaXPro2: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the CSSgram `.xpro2` definition.
    public init() { super.init(.xpro2) }
}
