import Cyanotype
import Foundation

/// A look in CSSgram's form: up to two overlays (`::before`, `::after`) blended onto the
/// image, then CSS filter functions, all on sRGB-encoded values.
public struct CSSLookDefinition: Sendable, Equatable {
    /// Where a look comes from.
    public enum Origin: String, Sendable {
        /// Reproduced from CSSgram's CSS.
        case cssgram
        /// Our own interpretation.
        case instafilter
    }
    /// Recipe name ("clarendon", "1977", "lofi").
    public let name: String
    /// The name shown to people ("Clarendon", "X-Pro II").
    public let displayName: String
    /// `.cssgram`: reproduced from CSSgram's CSS; `.instafilter`: our own interpretation.
    public let origin: Origin
    /// The `::before` overlay, blended first; nil when the look has none.
    public let before: CSSOverlay?
    /// The `::after` overlay, blended second; nil when the look has none.
    public let after: CSSOverlay?
    /// The CSS filter functions applied after the overlays, in order.
    public let filters: [CSSFilterFunction]

    /// A look from its parts: names, origin, overlays and filter functions.
    public init(name: String, displayName: String, origin: Origin, before: CSSOverlay?, after: CSSOverlay?, filters: [CSSFilterFunction]) {
        self.name = name; self.displayName = displayName; self.origin = origin
        self.before = before; self.after = after; self.filters = filters
    }

    /// The CSS `filter` value, e.g. `contrast(1.2) saturate(1.35)`.
    public var cssFilter: String { filters.map(\.description).joined(separator: " ") }
}

/// A look defined as CSS (overlays, then filter functions), rendered in one fused colour
/// kernel: decode to sRGB-encoded values, blend the overlays with the W3C formulas, apply
/// each function clamping after it, mix with the original by `intensity`, encode back.
///
/// Overlays assume an opaque image, as CSSgram does; for translucent pixels the colour is
/// processed the same way and alpha is kept (times any `opacity()` function).
open class CSSLook: BaseFilter, @unchecked Sendable {
    /// The CSS the look renders.
    public let definition: CSSLookDefinition
    let program: CSSProgram

    /// A look rendering `definition`, at full intensity.
    public init(_ definition: CSSLookDefinition) {
        self.definition = definition
        program = CSSProgram(
            name: definition.name, overlays: [definition.before, definition.after].compactMap { $0 },
            functions: definition.filters)
        super.init(name: definition.name)
    }

    /// The look at `intensity`, mixed with the original inside the same fused kernel.
    override open func look(for image: CIImage, intensity: Double) -> CIImage {
        program.apply(to: image, intensity: Float(intensity))
    }
    /// The look at full intensity.
    override open func fullLook(for image: CIImage) -> CIImage { look(for: image, intensity: 1) }
}

// MARK: Our own looks

extension CSSLookDefinition {
    /// Juno (our interpretation): warm, punchy colour with cool shadows.
    public static let juno = CSSLookDefinition(
        name: "juno", displayName: "Juno", origin: .instafilter,
        before: CSSOverlay(.color(CSSColor(127, 187, 227, 0.12)), blend: .overlay),
        after: CSSOverlay(.color(CSSColor(255, 196, 120, 0.18)), blend: .softLight),
        filters: [.sepia(0.1), .contrast(1.15), .brightness(1.05), .saturate(1.4)])
    /// Ludwig (our interpretation): muted colour, crisp light, a soft vignette.
    public static let ludwig = CSSLookDefinition(
        name: "ludwig", displayName: "Ludwig", origin: .instafilter,
        before: nil,
        after: CSSOverlay(
            .radialGradient(center: CSSPosition(0.5, 0.5), stops: [CSSColorStop(.transparent, 0.6), CSSColorStop(CSSColor(0, 0, 0, 0.3))]),
            blend: .multiply),
        filters: [.brightness(1.05), .contrast(1.05), .saturate(0.8)])
    /// Crema (our interpretation): creamy, faded, lifted blacks.
    public static let crema = CSSLookDefinition(
        name: "crema", displayName: "Crema", origin: .instafilter,
        before: CSSOverlay(.color(CSSColor(255, 240, 215, 0.25)), blend: .softLight),
        after: CSSOverlay(.color(CSSColor(50, 40, 35, 1)), blend: .lighten, opacity: 0.5),
        filters: [.sepia(0.15), .contrast(0.9), .saturate(0.9), .brightness(1.05)])
    /// Sierra (our interpretation): faded warm tones with a deep vignette.
    public static let sierra = CSSLookDefinition(
        name: "sierra", displayName: "Sierra", origin: .instafilter,
        before: CSSOverlay(.color(CSSColor(128, 78, 15, 0.2)), blend: .screen),
        after: CSSOverlay(
            .radialGradient(center: CSSPosition(0.5, 0.5), stops: [CSSColorStop(.transparent, 0.55), CSSColorStop(CSSColor(40, 20, 10, 0.4))]),
            blend: .multiply),
        filters: [.contrast(0.85), .saturate(1.1), .sepia(0.15), .brightness(1.05)])
    /// Portra (our interpretation of a warm colour-negative film): soft contrast, gentle
    /// saturation, warm highlights; rendered with fine grain.
    public static let portra = CSSLookDefinition(
        name: "portra", displayName: "Portra", origin: .instafilter,
        before: CSSOverlay(.color(CSSColor(255, 220, 180, 0.3)), blend: .softLight),
        after: CSSOverlay(.color(CSSColor(20, 30, 50, 1)), blend: .lighten, opacity: 0.6),
        filters: [.contrast(0.92), .saturate(0.88), .sepia(0.08), .brightness(1.04)])
    /// Tri-X (our interpretation of a classic black-and-white film): high contrast
    /// monochrome with a slight tone; rendered with pronounced grain.
    public static let trix = CSSLookDefinition(
        name: "trix", displayName: "Tri-X", origin: .instafilter,
        before: nil,
        after: CSSOverlay(
            .radialGradient(center: CSSPosition(0.5, 0.5), stops: [CSSColorStop(.transparent, 0.65), CSSColorStop(CSSColor(0, 0, 0, 0.35))]),
            blend: .multiply),
        filters: [.grayscale(1), .contrast(1.35), .brightness(1.05), .sepia(0.05)])

    /// Our own looks.
    public static let instafilter: [CSSLookDefinition] = [.juno, .ludwig, .crema, .sierra, .portra, .trix]
}

/// Juno: our own interpretation (see `CSSLookDefinition.juno`).
public final class InstaJuno: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the `.juno` definition.
    public init() { super.init(.juno) }
}
/// Ludwig: our own interpretation.
public final class InstaLudwig: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the `.ludwig` definition.
    public init() { super.init(.ludwig) }
}
/// Crema: our own interpretation.
public final class InstaCrema: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the `.crema` definition.
    public init() { super.init(.crema) }
}
/// Sierra: our own interpretation.
public final class InstaSierra: CSSLook, @unchecked Sendable {
    /// The look at full intensity, with the `.sierra` definition.
    public init() { super.init(.sierra) }
}

/// A CSS look followed by film grain (scaled by the look's intensity).
open class FilmLook: CSSLook, @unchecked Sendable {
    let grain: InstaGrain
    /// A look rendering `definition`, then grain of `grainAmount` and `grainScale`.
    public init(_ definition: CSSLookDefinition, grainAmount: Double, grainScale: Double) {
        grain = InstaGrain()
        grain.grainAmount = grainAmount
        grain.grainScale = grainScale
        super.init(definition)
    }
    /// The grain's seed (deterministic per seed).
    override open var parameters: [String: Double] { ["seed": grain.parameters["seed"] ?? 0] }
    /// Sets the grain's `seed`; throws `RecipeError.unknownParameter` for any other name.
    override open func setParameter(_ key: String, to value: Double) throws(RecipeError) {
        guard key == "seed" else { throw .unknownParameter(filter: name, key: key, valid: ["intensity", "seed"]) }
        try grain.setParameter(key, to: value)
    }
    /// The CSS look at `intensity`, then grain scaled by `intensity`.
    override open func look(for image: CIImage, intensity: Double) -> CIImage {
        grain.look(for: super.look(for: image, intensity: intensity), intensity: intensity)
    }
}
/// Portra: our own film look (warm colour negative, fine grain).
public final class InstaPortra: FilmLook, @unchecked Sendable {
    /// The look at full intensity, with the `.portra` definition.
    public init() { super.init(.portra, grainAmount: 0.25, grainScale: 1.2) }
}
/// Tri-X: our own film look (contrasty black and white, pronounced grain).
public final class InstaTriX: FilmLook, @unchecked Sendable {
    /// The look at full intensity, with the `.trix` definition.
    public init() { super.init(.trix, grainAmount: 0.5, grainScale: 1.6) }
}

// MARK: Reusable CSS pieces

/// A CSS `filter` list (e.g. `contrast(1.1) saturate(1.3)`) as a filter, on sRGB-encoded
/// values, clamped after each function, in one fused kernel.
public final class CSSFilterList: BaseFilter, @unchecked Sendable {
    private var storedFunctions: [CSSFilterFunction]
    private var program: CSSProgram

    /// A filter applying `functions` in order.
    public init(_ functions: [CSSFilterFunction]) {
        storedFunctions = functions
        program = CSSProgram(name: "css", overlays: [], functions: functions)
        super.init(name: "css")
    }
    /// Parses a CSS `filter` value.
    public convenience init(css: String) throws(RecipeError) {
        self.init(try CSSFilterFunction.parseList(css))
    }
    /// The CSS filter functions, in order; setting them rebuilds the fused kernel.
    public var functions: [CSSFilterFunction] {
        get { withParameterLock { storedFunctions } }
        set {
            let p = CSSProgram(name: "css", overlays: [], functions: newValue)
            withParameterLock {
                storedFunctions = newValue; program = p
            }
        }
    }
    /// The CSS spelling of `functions`.
    public var css: String { functions.map(\.description).joined(separator: " ") }
    /// The functions at `intensity`, mixed with the original inside the fused kernel.
    override public func look(for image: CIImage, intensity: Double) -> CIImage {
        let p = withParameterLock { program }
        return p.apply(to: image, intensity: Float(intensity))
    }
    /// An independent copy with the same functions and intensity.
    override public func copy() -> BaseFilter {
        let c = CSSFilterList(functions)
        c.intensity = intensity
        return c
    }
}

/// One CSS overlay (colour or gradient fill, blend mode, opacity) blended onto the image in
/// sRGB-encoded values, as `mix-blend-mode` does in browsers.
public final class CSSOverlayFilter: BaseFilter, @unchecked Sendable {
    /// The overlay this filter blends.
    public let overlay: CSSOverlay
    private let program: CSSProgram
    /// A filter blending `overlay` onto the image.
    public init(_ overlay: CSSOverlay) {
        self.overlay = overlay
        program = CSSProgram(name: "overlay", overlays: [overlay], functions: [])
        super.init(name: "overlay")
    }
    /// The overlay at `intensity`, mixed with the original inside the fused kernel.
    override public func look(for image: CIImage, intensity: Double) -> CIImage {
        program.apply(to: image, intensity: Float(intensity))
    }
    /// An independent copy with the same overlay and intensity.
    override public func copy() -> BaseFilter {
        let c = CSSOverlayFilter(overlay)
        c.intensity = intensity
        return c
    }
}

/// Blends `foreground` onto `background` with a CSS blend mode computed on sRGB-encoded
/// values (browsers' `mix-blend-mode`), unlike Core Image's `CI...BlendMode` filters, which
/// blend working-space (linear) values. Result covers the background's extent.
public func cssBlend(_ foreground: CIImage, over background: CIImage, mode: CSSBlendMode, opacity: Double = 1) -> CIImage {
    let op = Float(min(max(opacity, 0), 1))
    let blend = mode.blendKernel.blendFunction
    let k = CIColorKernel(name: "css blend \(mode.rawValue)", premultiplied: false) { row in
        let px = row.output, n = px.count
        guard n > 0, let p = px.baseAddress else { return }
        let fg = row.input(0)
        withUnsafeTemporaryAllocation(of: SIMD4<Float>.self, capacity: n) { scratch in
            guard let fill = scratch.baseAddress else { return }
            for i in 0..<n {
                let f = fg[i]
                fill[i] = SIMD4(f.x, f.y, f.z, min(max(f.w, 0), 1) * op)
            }
            blendRow(blend, p, fill, n)
        }
    }
    // Both images as sRGB-encoded values, blended, and matched back.
    guard let b = background.matchedFromWorkingSpace(to: sRGBSpace), let f = foreground.matchedFromWorkingSpace(to: sRGBSpace),
        let blended = k.apply(extent: background.extent, arguments: [b, f]), let out = blended.matchedToWorkingSpace(from: sRGBSpace)
    else { return background }
    return out
}
