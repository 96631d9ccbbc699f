// The built-in looks: 33^3 LUTs generated from the formulas below at first use (no binary
// resources). Every formula works on sRGB-encoded values in 0...1, as the LUT does, and
// uses only these building blocks:
//   luma(c)        = 0.2126 r + 0.7152 g + 0.0722 b (Rec. 709 weights on encoded values)
//   saturate(c, s) = luma + (c - luma) * s
//   sCurve(x, k)   = x + k * (smoothstep(x) - x), smoothstep(x) = x^2 (3 - 2x): k > 0 adds
//                    contrast around mid grey, k < 0 flattens
//   lift(x, b, w)  = b + (w - b) * x: black point b, white point w (fades and mattes)
// Results are clamped to 0...1.

/// The looks that ship with Cyanotype, by name; how each is made is in its doc comment.
enum BuiltinLooks {
    static let size = 33

    /// Names in the order they are listed.
    static let names = ["warmFilm", "coolFade", "tealOrange", "bwHighContrast", "crossProcess", "fadedMatte"]

    static func formula(_ name: String) -> (@Sendable (SIMD3<Float>) -> SIMD3<Float>)? {
        switch name {
        case "warmFilm": return warmFilm
        case "coolFade": return coolFade
        case "tealOrange": return tealOrange
        case "bwHighContrast": return bwHighContrast
        case "crossProcess": return crossProcess
        case "fadedMatte": return fadedMatte
        default: return nil
        }
    }

    /// Warm film: sCurve k = 0.35 per channel, blacks lifted to 0.03, then a warm balance
    /// (red x1.06, green x1.01, blue x0.90) and saturation 0.92.
    static let warmFilm: @Sendable (SIMD3<Float>) -> SIMD3<Float> = { c in
        var v = SIMD3(sCurve(c.x, 0.35), sCurve(c.y, 0.35), sCurve(c.z, 0.35))
        v = lift(v, 0.03, 1)
        v *= SIMD3(1.06, 1.01, 0.90)
        return clamp(saturate(v, 0.92))
    }

    /// Cool fade: blacks lifted to 0.08 and whites pulled to 0.95 (fade), sCurve k = -0.15
    /// (flatter), a cool balance (red x0.93, blue x1.07 + 0.02) and saturation 0.85.
    static let coolFade: @Sendable (SIMD3<Float>) -> SIMD3<Float> = { c in
        var v = SIMD3(sCurve(c.x, -0.15), sCurve(c.y, -0.15), sCurve(c.z, -0.15))
        v = lift(v, 0.08, 0.95)
        v = v * SIMD3(0.93, 1.0, 1.07) + SIMD3(0, 0, 0.02)
        return clamp(saturate(v, 0.85))
    }

    /// Teal and orange: split toning by luma. Shadows (weight (1 - luma)^2) move 25% toward
    /// teal (0.0, 0.45, 0.5); highlights (weight luma^2) 20% toward orange (1.0, 0.62, 0.35);
    /// then sCurve k = 0.25 and saturation 1.1.
    static let tealOrange: @Sendable (SIMD3<Float>) -> SIMD3<Float> = { c in
        let y = luma(c)
        let ws = (1 - y) * (1 - y) * 0.25, wh = y * y * 0.20
        var v = c + (SIMD3(0.0, 0.45, 0.5) - c) * ws
        v = v + (SIMD3(1.0, 0.62, 0.35) - v) * wh
        v = SIMD3(sCurve(clamp1(v.x), 0.25), sCurve(clamp1(v.y), 0.25), sCurve(clamp1(v.z), 0.25))
        return clamp(saturate(v, 1.1))
    }

    /// Black and white, high contrast: luma (Rec. 709 on encoded values), then sCurve
    /// k = 1 applied twice (a strong S), then blacks crushed: max(0, (x - 0.02) / 0.98).
    static let bwHighContrast: @Sendable (SIMD3<Float>) -> SIMD3<Float> = { c in
        var y = sCurve(sCurve(luma(c), 1), 1)
        y = max(0, (y - 0.02) / 0.98)
        return clamp(SIMD3(repeating: y))
    }

    /// Cross-process (slide film in C-41 chemistry): per-channel curves. Red sCurve k = 0.6;
    /// green sCurve k = 0.3 then x0.98 + 0.02; blue flattened and lifted: lift(x, 0.18, 0.82);
    /// then saturation 1.15.
    static let crossProcess: @Sendable (SIMD3<Float>) -> SIMD3<Float> = { c in
        let r = sCurve(c.x, 0.6)
        let g = sCurve(c.y, 0.3) * 0.98 + 0.02
        let b = 0.18 + 0.64 * c.z
        return clamp(saturate(SIMD3(r, g, b), 1.15))
    }

    /// Faded matte: sCurve k = 0.2, then lift(x, 0.10, 0.92) (grey blacks, soft whites),
    /// saturation 0.8, and a slight warm shadow tint (+0.015 red, -0.01 blue, weighted by
    /// (1 - luma)).
    static let fadedMatte: @Sendable (SIMD3<Float>) -> SIMD3<Float> = { c in
        var v = SIMD3(sCurve(c.x, 0.2), sCurve(c.y, 0.2), sCurve(c.z, 0.2))
        v = lift(v, 0.10, 0.92)
        v = saturate(v, 0.8)
        v += SIMD3(0.015, 0, -0.01) * (1 - luma(v))
        return clamp(v)
    }

    @inline(__always) static func luma(_ c: SIMD3<Float>) -> Float { 0.2126 * c.x + 0.7152 * c.y + 0.0722 * c.z }
    @inline(__always) static func saturate(_ c: SIMD3<Float>, _ s: Float) -> SIMD3<Float> {
        let y = luma(c)
        return SIMD3(repeating: y) + (c - SIMD3(repeating: y)) * s
    }
    @inline(__always) static func sCurve(_ x: Float, _ k: Float) -> Float { x + k * (x * x * (3 - 2 * x) - x) }
    @inline(__always) static func lift(_ c: SIMD3<Float>, _ black: Float, _ white: Float) -> SIMD3<Float> { SIMD3(repeating: black) + c * (white - black) }
    @inline(__always) static func clamp1(_ x: Float) -> Float { min(max(x, 0), 1) }
    @inline(__always) static func clamp(_ c: SIMD3<Float>) -> SIMD3<Float> { SIMD3(clamp1(c.x), clamp1(c.y), clamp1(c.z)) }
}

/// The named looks: the built-in ones (generated from formulas at first use, 33^3 each) and
/// any a user adds. Thread-safe; `shared` backs `CILUTFilter.<name>`.
public final class LUTConfiguration: @unchecked Sendable {
    /// The configuration `CILUTFilter`'s named looks (`CILUTFilter.warmFilm`) come from.
    public static let shared = LUTConfiguration()
    private struct Registry {
        var looks: [String: LUT] = [:]
        var userNames: [String] = []
    }
    private let registry = SharedValue(Registry())

    /// A configuration with the built-in looks only (for a set of looks kept apart from `shared`).
    public init() {}

    /// Warm film: gentle S-curve, lifted blacks, warm balance, slightly less saturation.
    public var warmFilm: LUT { builtin("warmFilm") }
    /// Cool fade: faded blacks and whites, flatter contrast, cool balance, less saturation.
    public var coolFade: LUT { builtin("coolFade") }
    /// Teal and orange: teal shadows, orange highlights, more contrast and saturation.
    public var tealOrange: LUT { builtin("tealOrange") }
    /// Black and white with a strong S-curve and crushed blacks.
    public var bwHighContrast: LUT { builtin("bwHighContrast") }
    /// Cross-process: contrasty red, lifted flat blue, more saturation.
    public var crossProcess: LUT { builtin("crossProcess") }
    /// Faded matte: grey blacks, soft whites, muted colour, warm shadows.
    public var fadedMatte: LUT { builtin("fadedMatte") }

    /// Every look name: the built-in ones, then the user's in the order added.
    public var lookNames: [String] {
        registry.read { BuiltinLooks.names + $0.userNames.filter { !BuiltinLooks.names.contains($0) } }
    }

    /// The look called `name`, or nil.
    public func look(named name: String) -> LUT? {
        registry.update { r in
            if let l = r.looks[name] { return l }
            guard let f = BuiltinLooks.formula(name), let l = try? LUT.make(size: BuiltinLooks.size, title: name, f) else { return nil }
            r.looks[name] = l
            return l
        }
    }

    /// The look called `name`, or an error listing the names there are.
    public func requireLook(named name: String) throws(LUTError) -> LUT {
        guard let l = look(named: name) else { throw .unknownLook(name: name, available: lookNames) }
        return l
    }

    /// Adds (or replaces) a look; replacing a built-in name overrides it in this configuration.
    public func register(_ lut: LUT, named name: String) {
        registry.update { r in
            r.looks[name] = lut
            if !r.userNames.contains(name) { r.userNames.append(name) }
        }
    }

    /// Removes a user look (built-in looks come back at their defaults).
    public func removeLook(named name: String) {
        registry.update { r in
            r.looks[name] = nil
            r.userNames.removeAll { $0 == name }
        }
    }

    /// The look called `name`, or nil (as `look(named:)`).
    public subscript(name: String) -> LUT? { look(named: name) }

    private func builtin(_ name: String) -> LUT {
        guard let l = look(named: name) else { preconditionFailure("built-in look \(name) failed to build") }
        return l
    }
}
