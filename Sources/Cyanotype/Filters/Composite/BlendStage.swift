import CCyanotypeKernels

/// Porter-Duff and W3C blend modes over premultiplied colour: the row holds the source
/// (foreground), `extra[0]` the backdrop (background).
///
/// Blend modes (`CI*BlendMode`) use the W3C / PDF general formula on premultiplied values,
/// `co = cs(1 - ab) + cb(1 - as) + as*ab*B(Cb, Cs)`, `ao = as + ab - as*ab`, with `B` taken on
/// straight colours. Each mode gets its own row loop: `run` switches once per row and calls a
/// generic loop specialised for the mode's `B`, so no pixel pays for a switch or a closure.
struct BlendStage: ColorStage {
    enum Mode: String, CaseIterable, Sendable {
        // Porter-Duff and component-wise compositing.
        case sourceOver, sourceAtop, sourceIn, sourceOut
        case clear, source, destination, destinationOver, destinationAtop, destinationIn, destinationOut, exclusiveOr
        case addition, maximum, minimum, multiplyCompositing
        // Separable W3C / Photoshop blend modes. `subtract` is Photoshop's (backdrop minus
        // source, CISubtractBlendMode); `subtractBackground` is CIBlendKernel.subtract's
        // (foreground minus background, as Apple documents the kernel).
        case multiply, screen, overlay, darken, lighten, colorDodge, colorBurn, hardLight, softLight
        case difference, exclusion, linearBurn, linearDodge, linearLight, vividLight, pinLight, subtract, divide
        case subtractBackground, hardMix
        // Non-separable W3C blend modes, and Photoshop's darker / lighter colour.
        case hue, saturation, color, luminosity, darkerColor, lighterColor
    }
    let mode: Mode
    var extraInputCount: Int { 1 }
    var wantsUnpremultiplied: Bool { false }

    static let sourceOver = BlendStage(mode: .sourceOver)
    static let multiply = BlendStage(mode: .multiply)

    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let bg = extra[0]
        switch mode {
        case .sourceOver: for i in 0..<count { row[i] = porterDuffOver(row[i], bg[i]) }
        case .sourceAtop: for i in 0..<count { row[i] = porterDuffAtop(row[i], bg[i]) }
        case .sourceIn: for i in 0..<count { row[i] = row[i] * bg[i].w }
        case .sourceOut: for i in 0..<count { row[i] = row[i] * (1 - bg[i].w) }
        case .clear:
            for i in 0..<count { row[i] = .zero }
        case .source:
            break
        case .destination:
            for i in 0..<count { row[i] = bg[i] }
        // The destination operators are the source ones with the two images swapped.
        case .destinationOver: for i in 0..<count { row[i] = porterDuffOver(bg[i], row[i]) }
        case .destinationAtop: for i in 0..<count { row[i] = porterDuffAtop(bg[i], row[i]) }
        case .destinationIn: for i in 0..<count { row[i] = bg[i] * row[i].w }
        case .destinationOut: for i in 0..<count { row[i] = bg[i] * (1 - row[i].w) }
        case .exclusiveOr:
            // o = s*(1 - ab) + b*(1 - as), alpha too.
            for i in 0..<count {
                let s = row[i], b = bg[i]
                row[i] = s * (1 - b.w) + b * (1 - s.w)
            }
        case .addition:
            // Premultiplied colours add (unclamped, so HDR survives); alpha saturates at 1.
            for i in 0..<count {
                let s = row[i], b = bg[i]
                var o = s + b
                o.w = min(1, s.w + b.w)
                row[i] = o
            }
        case .maximum:
            for i in 0..<count {
                let s = row[i], b = bg[i]
                row[i] = SIMD4(max(s.x, b.x), max(s.y, b.y), max(s.z, b.z), max(s.w, b.w))
            }
        case .minimum:
            for i in 0..<count {
                let s = row[i], b = bg[i]
                row[i] = SIMD4(min(s.x, b.x), min(s.y, b.y), min(s.z, b.z), min(s.w, b.w))
            }
        case .multiplyCompositing:
            for i in 0..<count { row[i] = row[i] * bg[i] }
        case .multiply:
            // co = cs(1 - ab) + cb(1 - as) + cs*cb; alpha = as + ab - as*ab.
            for i in 0..<count {
                let s = row[i], b = bg[i]
                var o = s * (1 - b.w) + b * (1 - s.w) + s * b
                o.w = s.w + b.w - s.w * b.w
                row[i] = o
            }
        case .screen:
            // as*ab*B = cb*as + cs*ab - cs*cb, so co = cs + cb - cs*cb (alpha too).
            for i in 0..<count {
                let s = row[i], b = bg[i]
                row[i] = s + b - s * b
            }
        case .overlay: blendRow(Overlay.self, row, bg, count)
        case .darken: blendRow(Darken.self, row, bg, count)
        case .lighten: blendRow(Lighten.self, row, bg, count)
        case .colorDodge: blendRow(ColorDodge.self, row, bg, count)
        case .colorBurn: blendRow(ColorBurn.self, row, bg, count)
        case .hardLight: blendRow(HardLight.self, row, bg, count)
        case .softLight: blendRow(SoftLight.self, row, bg, count)
        case .difference: blendRow(Difference.self, row, bg, count)
        case .exclusion: blendRow(Exclusion.self, row, bg, count)
        case .linearBurn: blendRow(LinearBurn.self, row, bg, count)
        case .linearDodge: blendRow(LinearDodge.self, row, bg, count)
        case .linearLight: blendRow(LinearLight.self, row, bg, count)
        case .vividLight: blendRow(VividLight.self, row, bg, count)
        case .pinLight: blendRow(PinLight.self, row, bg, count)
        case .subtract: blendRow(Subtract.self, row, bg, count)
        case .divide: blendRow(Divide.self, row, bg, count)
        case .subtractBackground: blendRow(SubtractBackground.self, row, bg, count)
        case .hardMix: blendRow(HardMix.self, row, bg, count)
        case .hue: blendRow(Hue.self, row, bg, count)
        case .saturation: blendRow(Saturation.self, row, bg, count)
        case .color: blendRow(Color.self, row, bg, count)
        case .luminosity: blendRow(Luminosity.self, row, bg, count)
        case .darkerColor: blendRow(DarkerColor.self, row, bg, count)
        case .lighterColor: blendRow(LighterColor.self, row, bg, count)
        }
    }
    var label: String { mode.rawValue }
}

// MARK: Separable blend functions B(Cb, Cs) on straight colour

/// Porter-Duff `top` over `bottom` (premultiplied): `o = t + b(1 - at)`, alpha too.
@inline(__always) private func porterDuffOver(_ t: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> { t + b * (1 - t.w) }

/// Porter-Duff `top` atop `bottom` (premultiplied): `co = ct*ab + cb*(1 - at)`, `ao = ab`.
@inline(__always) private func porterDuffAtop(_ t: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
    var o = t * b.w + b * (1 - t.w)
    o.w = b.w
    return o
}

/// A W3C blend function `B(Cb, Cs)` on straight backdrop and source colours, as the general
/// formula's row loop (`blendRow`) calls it.
protocol BlendFunction { static func blendColor(_ cb: SIMD3<Float>, _ cs: SIMD3<Float>) -> SIMD3<Float> }

/// A separable blend function: one channel of straight backdrop `cb` and source `cs`.
protocol SeparableBlend: BlendFunction { static func blend(_ cb: Float, _ cs: Float) -> Float }

extension SeparableBlend {
    /// The function on each of red, green and blue.
    @inline(__always) static func blendColor(_ cb: SIMD3<Float>, _ cs: SIMD3<Float>) -> SIMD3<Float> {
        SIMD3(blend(cb.x, cs.x), blend(cb.y, cs.y), blend(cb.z, cs.z))
    }
}

/// The general formula, one loop per mode (the generic is specialised for each `F`).
@inline(__always)
func blendRow<F: BlendFunction>(_: F.Type, _ row: UnsafeMutablePointer<SIMD4<Float>>, _ bg: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int) {
    for i in 0..<count {
        let s = row[i], b = bg[i]
        // Divided, not multiplied by a reciprocal, so an opaque-white colour stays exactly 1
        // (colour burn and divide jump there).
        let cs = s.w > 0 ? s / s.w : .zero, cb = b.w > 0 ? b / b.w : .zero
        let ab = s.w * b.w
        let m = F.blendColor(SIMD3(cb.x, cb.y, cb.z), SIMD3(cs.x, cs.y, cs.z))
        var o = s * (1 - b.w) + b * (1 - s.w) + SIMD4(m, 0) * ab
        o.w = s.w + b.w - ab
        row[i] = o
    }
}

@inline(__always) private func multiplyB(_ cb: Float, _ cs: Float) -> Float { cb * cs }
@inline(__always) private func screenB(_ cb: Float, _ cs: Float) -> Float { cb + cs - cb * cs }
/// W3C hard-light: multiply(Cb, 2Cs) below half, screen(Cb, 2Cs - 1) above.
@inline(__always) private func hardLightB(_ cb: Float, _ cs: Float) -> Float {
    cs <= 0.5 ? multiplyB(cb, 2 * cs) : screenB(cb, 2 * cs - 1)
}
/// W3C color-dodge.
@inline(__always) private func colorDodgeB(_ cb: Float, _ cs: Float) -> Float {
    if cb == 0 { return 0 }
    if cs >= 1 { return 1 }
    return min(1, cb / (1 - cs))
}
/// W3C color-burn. `Cb >= 1` (not just `== 1`) gives 1, so a backdrop a rounding above white
/// (unpremultiplied translucent pixels, extended values) stays white instead of dropping to 0
/// under a black source.
@inline(__always) private func colorBurnB(_ cb: Float, _ cs: Float) -> Float {
    if cb >= 1 { return 1 }
    if cs <= 0 { return 0 }
    return 1 - min(1, (1 - cb) / cs)
}

extension BlendStage {
    enum Overlay: SeparableBlend { @inline(__always) static func blend(_ cb: Float, _ cs: Float) -> Float { hardLightB(cs, cb) } }
    enum Darken: SeparableBlend { @inline(__always) static func blend(_ cb: Float, _ cs: Float) -> Float { min(cb, cs) } }
    enum Lighten: SeparableBlend { @inline(__always) static func blend(_ cb: Float, _ cs: Float) -> Float { max(cb, cs) } }
    enum ColorDodge: SeparableBlend { @inline(__always) static func blend(_ cb: Float, _ cs: Float) -> Float { colorDodgeB(cb, cs) } }
    enum ColorBurn: SeparableBlend { @inline(__always) static func blend(_ cb: Float, _ cs: Float) -> Float { colorBurnB(cb, cs) } }
    enum HardLight: SeparableBlend { @inline(__always) static func blend(_ cb: Float, _ cs: Float) -> Float { hardLightB(cb, cs) } }
    enum SoftLight: SeparableBlend {
        @inline(__always) static func blend(_ cb: Float, _ cs: Float) -> Float {
            if cs <= 0.5 { return cb - (1 - 2 * cs) * cb * (1 - cb) }
            let d: Float = cb <= 0.25 ? ((16 * cb - 12) * cb + 4) * cb : max(cb, 0).squareRoot()
            return cb + (2 * cs - 1) * (d - cb)
        }
    }
    enum Difference: SeparableBlend { @inline(__always) static func blend(_ cb: Float, _ cs: Float) -> Float { abs(cb - cs) } }
    enum Exclusion: SeparableBlend { @inline(__always) static func blend(_ cb: Float, _ cs: Float) -> Float { cb + cs - 2 * cb * cs } }
    /// Photoshop linear burn: `Cb + Cs - 1`, limited to [0, 1].
    enum LinearBurn: SeparableBlend { @inline(__always) static func blend(_ cb: Float, _ cs: Float) -> Float { clamp01(cb + cs - 1) } }
    /// Photoshop linear dodge (add): `Cb + Cs`, limited to [0, 1].
    enum LinearDodge: SeparableBlend { @inline(__always) static func blend(_ cb: Float, _ cs: Float) -> Float { clamp01(cb + cs) } }
    /// Photoshop linear light: linear burn with `2Cs` below half, linear dodge with `2Cs - 1`
    /// above: `Cb + 2Cs - 1`, limited to [0, 1].
    enum LinearLight: SeparableBlend { @inline(__always) static func blend(_ cb: Float, _ cs: Float) -> Float { clamp01(cb + 2 * cs - 1) } }
    /// Photoshop vivid light: colour burn with `2Cs` below half, colour dodge with `2Cs - 1` above.
    enum VividLight: SeparableBlend {
        @inline(__always) static func blend(_ cb: Float, _ cs: Float) -> Float {
            cs <= 0.5 ? colorBurnB(cb, 2 * cs) : colorDodgeB(cb, 2 * cs - 1)
        }
    }
    /// Photoshop pin light: darken with `2Cs` below half, lighten with `2Cs - 1` above.
    enum PinLight: SeparableBlend {
        @inline(__always) static func blend(_ cb: Float, _ cs: Float) -> Float {
            cs <= 0.5 ? min(cb, 2 * cs) : max(cb, 2 * cs - 1)
        }
    }
    /// Photoshop subtract: backdrop minus source, `max(0, Cb - Cs)`.
    enum Subtract: SeparableBlend { @inline(__always) static func blend(_ cb: Float, _ cs: Float) -> Float { max(0, cb - cs) } }
    /// Photoshop divide: backdrop over source, `min(1, Cb / Cs)`; a black source gives white
    /// (black where the backdrop is black too).
    enum Divide: SeparableBlend {
        @inline(__always) static func blend(_ cb: Float, _ cs: Float) -> Float {
            if cs <= 0 { return cb > 0 ? 1 : 0 }
            return clamp01(cb / cs)
        }
    }
    /// CIBlendKernel.subtract: the foreground minus the background, `max(0, Cs - Cb)` (Apple
    /// documents the kernel as subtracting the background from the foreground, the reverse of
    /// Photoshop's subtract that CISubtractBlendMode uses).
    enum SubtractBackground: SeparableBlend { @inline(__always) static func blend(_ cb: Float, _ cs: Float) -> Float { max(0, cs - cb) } }
    /// Photoshop hard mix: the sum thresholded, `B = 1` where `Cb + Cs >= 1`, else 0.
    enum HardMix: SeparableBlend { @inline(__always) static func blend(_ cb: Float, _ cs: Float) -> Float { cb + cs >= 1 ? 1 : 0 } }
}

// MARK: Non-separable blend functions (W3C SetLum / SetSat / ClipColor)

/// A non-separable blend function on straight backdrop and source colours.
protocol NonSeparableBlend: BlendFunction { static func blend(_ cb: SIMD3<Float>, _ cs: SIMD3<Float>) -> SIMD3<Float> }

extension NonSeparableBlend {
    @inline(__always) static func blendColor(_ cb: SIMD3<Float>, _ cs: SIMD3<Float>) -> SIMD3<Float> { blend(cb, cs) }
}

/// W3C luminosity weights (0.3, 0.59, 0.11), not Rec. 709: the blend modes are defined with these.
@inline(__always) func blendLum(_ c: SIMD3<Float>) -> Float { 0.3 * c.x + 0.59 * c.y + 0.11 * c.z }

@inline(__always) func blendClipColor(_ c: SIMD3<Float>) -> SIMD3<Float> {
    let l = blendLum(c)
    let n = min(c.x, min(c.y, c.z)), x = max(c.x, max(c.y, c.z))
    var r = c
    if n < 0, l - n > 0 {
        let k = l / (l - n)
        r = SIMD3(repeating: l) + (r - SIMD3(repeating: l)) * k
    }
    if x > 1, x - l > 0 {
        let k = (1 - l) / (x - l)
        r = SIMD3(repeating: l) + (r - SIMD3(repeating: l)) * k
    }
    return r
}

@inline(__always) func blendSetLum(_ c: SIMD3<Float>, _ l: Float) -> SIMD3<Float> {
    blendClipColor(c + SIMD3(repeating: l - blendLum(c)))
}

@inline(__always) func blendSat(_ c: SIMD3<Float>) -> Float { max(c.x, max(c.y, c.z)) - min(c.x, min(c.y, c.z)) }

/// W3C SetSat without sorting: each channel's place between min and max, scaled to `s`
/// (the maximum lands on `s`, the minimum on 0, the middle in proportion).
@inline(__always) func blendSetSat(_ c: SIMD3<Float>, _ s: Float) -> SIMD3<Float> {
    let n = min(c.x, min(c.y, c.z)), x = max(c.x, max(c.y, c.z))
    guard x > n else { return .zero }
    return (c - SIMD3(repeating: n)) * (s / (x - n))
}

extension BlendStage {
    enum Hue: NonSeparableBlend {
        @inline(__always) static func blend(_ cb: SIMD3<Float>, _ cs: SIMD3<Float>) -> SIMD3<Float> {
            blendSetLum(blendSetSat(cs, blendSat(cb)), blendLum(cb))
        }
    }
    enum Saturation: NonSeparableBlend {
        @inline(__always) static func blend(_ cb: SIMD3<Float>, _ cs: SIMD3<Float>) -> SIMD3<Float> {
            blendSetLum(blendSetSat(cb, blendSat(cs)), blendLum(cb))
        }
    }
    enum Color: NonSeparableBlend {
        @inline(__always) static func blend(_ cb: SIMD3<Float>, _ cs: SIMD3<Float>) -> SIMD3<Float> { blendSetLum(cs, blendLum(cb)) }
    }
    enum Luminosity: NonSeparableBlend {
        @inline(__always) static func blend(_ cb: SIMD3<Float>, _ cs: SIMD3<Float>) -> SIMD3<Float> { blendSetLum(cb, blendLum(cs)) }
    }
    /// Photoshop darker colour: whichever whole colour has the lower W3C luminosity (the
    /// backdrop on a tie).
    enum DarkerColor: NonSeparableBlend {
        @inline(__always) static func blend(_ cb: SIMD3<Float>, _ cs: SIMD3<Float>) -> SIMD3<Float> { blendLum(cs) < blendLum(cb) ? cs : cb }
    }
    /// Photoshop lighter colour: whichever whole colour has the higher W3C luminosity (the
    /// backdrop on a tie).
    enum LighterColor: NonSeparableBlend {
        @inline(__always) static func blend(_ cb: SIMD3<Float>, _ cs: SIMD3<Float>) -> SIMD3<Float> { blendLum(cs) > blendLum(cb) ? cs : cb }
    }
}

// MARK: Apple's blend kernels not behind a built-in filter

extension CIBlendKernel {
    /// Porter-Duff clear: a clear colour everywhere.
    public static let clear = CIBlendKernel(stage: BlendStage(mode: .clear))
    /// Porter-Duff source: the foreground as it is.
    public static let source = CIBlendKernel(stage: BlendStage(mode: .source))
    /// Porter-Duff destination: the background as it is.
    public static let destination = CIBlendKernel(stage: BlendStage(mode: .destination))
    /// Porter-Duff destination-over: the background over the foreground, `o = b + s(1 - ab)`.
    public static let destinationOver = CIBlendKernel(stage: BlendStage(mode: .destinationOver))
    /// Porter-Duff destination-in: the background where the foreground is, `o = b * as`.
    public static let destinationIn = CIBlendKernel(stage: BlendStage(mode: .destinationIn))
    /// Porter-Duff destination-out: the background where the foreground is not, `o = b * (1 - as)`.
    public static let destinationOut = CIBlendKernel(stage: BlendStage(mode: .destinationOut))
    /// Porter-Duff destination-atop: the background over the foreground, kept to the
    /// foreground's coverage: `co = cb*as + cs*(1 - ab)`, `ao = as`.
    public static let destinationAtop = CIBlendKernel(stage: BlendStage(mode: .destinationAtop))
    /// Porter-Duff exclusive-or: each image where the other is clear,
    /// `o = s(1 - ab) + b(1 - as)`.
    public static let exclusiveOr = CIBlendKernel(stage: BlendStage(mode: .exclusiveOr))
    /// Photoshop hard mix: each channel 0 or 1, `B = 1` where `Cb + Cs >= 1`.
    public static let hardMix = CIBlendKernel(stage: BlendStage(mode: .hardMix))
    /// Photoshop darker colour: the whole colour (foreground or background) with the lower
    /// W3C luminosity (0.3 R + 0.59 G + 0.11 B); the background on a tie.
    public static let darkerColor = CIBlendKernel(stage: BlendStage(mode: .darkerColor))
    /// Photoshop lighter colour: the whole colour with the higher W3C luminosity; the
    /// background on a tie.
    public static let lighterColor = CIBlendKernel(stage: BlendStage(mode: .lighterColor))

    /// Cyanotype: this kernel's blend function `B(Cb, Cs)` (W3C Compositing and Blending), to
    /// run on rows of straight colour inside a kernel of your own (Core Image has no
    /// row-level blend). Present for the blend modes (multiply through luminosity, the
    /// Photoshop modes, subtract, divide, hard mix, darker and lighter colour) and for
    /// `sourceOver` (`B = Cs`, W3C's "normal"); nil for the other Porter-Duff operators, the
    /// component kernels and custom kernels, which composite without one.
    public var blendFunction: CIBlendFunction? {
        guard let mode = (stage as? BlendStage)?.mode, CIBlendFunction.hasFunction(mode) else { return nil }
        return CIBlendFunction(mode: mode)
    }
}

/// Cyanotype: the blend function `B(Cb, Cs)` of a built-in blend kernel
/// (`CIBlendKernel.overlay.blendFunction`), applied to whole rows of straight colour in any
/// encoding: the engine's own formulas, for kernels that blend in a space of their own (CSS
/// and most design tools blend sRGB-encoded values) without a call per pixel.
public struct CIBlendFunction: Sendable, Hashable, CustomStringConvertible {
    let mode: BlendStage.Mode

    /// The blend kernel's name ("overlay", "softLight", ...; "sourceOver" for normal).
    public var description: String { mode.rawValue }

    static func hasFunction(_ mode: BlendStage.Mode) -> Bool {
        switch mode {
        case .sourceAtop, .sourceIn, .sourceOut, .clear, .source, .destination, .destinationOver, .destinationAtop,
            .destinationIn, .destinationOut, .exclusiveOr, .addition, .maximum, .minimum, .multiplyCompositing:
            return false
        default:
            return true
        }
    }

    /// Blends `source` into `backdrop` in place, pixel by pixel over the shorter row: with
    /// straight colours and the source's alpha as its coverage,
    /// `Cb <- Cb + As * (B(Cb, Cs) - Cb)` for red, green and blue, the backdrop's alpha kept.
    /// This is W3C's compositing of a blended source over an opaque backdrop (what browsers
    /// draw for `mix-blend-mode` on an opaque page), written in straight colour; a translucent
    /// backdrop's colour is blended the same way.
    public func apply(source: UnsafeBufferPointer<SIMD4<Float>>, to backdrop: UnsafeMutableBufferPointer<SIMD4<Float>>) {
        let n = min(source.count, backdrop.count)
        guard n > 0, let s = source.baseAddress, let b = backdrop.baseAddress else { return }
        if vectorMix(b, s, sourceStep: 1, n) { return }
        typealias S = BlendStage
        switch mode {
        case .sourceOver: mixRow4(S.Normal.self, b, s, n)
        case .multiply: mixRow4(S.Multiply.self, b, s, n)
        case .screen: mixRow4(S.Screen.self, b, s, n)
        case .overlay: mixRow4(S.Overlay.self, b, s, n)
        case .hardLight: mixRow4(S.HardLight.self, b, s, n)
        case .softLight: mixRow4(S.SoftLight.self, b, s, n)
        case .difference: mixRow4(S.Difference.self, b, s, n)
        case .exclusion: mixRow4(S.Exclusion.self, b, s, n)
        case .darken: mixRow4(S.Darken.self, b, s, n)
        case .lighten: mixRow4(S.Lighten.self, b, s, n)
        case .colorDodge: mixRow(S.ColorDodge.self, b, s, n)
        case .colorBurn: mixRow(S.ColorBurn.self, b, s, n)
        case .linearBurn: mixRow(S.LinearBurn.self, b, s, n)
        case .linearDodge: mixRow(S.LinearDodge.self, b, s, n)
        case .linearLight: mixRow(S.LinearLight.self, b, s, n)
        case .vividLight: mixRow(S.VividLight.self, b, s, n)
        case .pinLight: mixRow(S.PinLight.self, b, s, n)
        case .subtract: mixRow(S.Subtract.self, b, s, n)
        case .divide: mixRow(S.Divide.self, b, s, n)
        case .subtractBackground: mixRow(S.SubtractBackground.self, b, s, n)
        case .hardMix: mixRow(S.HardMix.self, b, s, n)
        case .hue: mixRow(S.Hue.self, b, s, n)
        case .saturation: mixRow(S.Saturation.self, b, s, n)
        case .color: mixRow(S.Color.self, b, s, n)
        case .luminosity: mixRow(S.Luminosity.self, b, s, n)
        case .darkerColor: mixRow(S.DarkerColor.self, b, s, n)
        case .lighterColor: mixRow(S.LighterColor.self, b, s, n)
        case .sourceAtop, .sourceIn, .sourceOut, .clear, .source, .destination, .destinationOver, .destinationAtop,
            .destinationIn, .destinationOut, .exclusiveOr, .addition, .maximum, .minimum, .multiplyCompositing:
            break
        }
    }
}

extension CIBlendFunction {
    /// Blends one straight colour `source` into every pixel of `backdrop`, as
    /// `apply(source:to:)` with a row of that colour would (a flat overlay, without filling a
    /// row with copies of it first).
    public func apply(color source: SIMD4<Float>, to backdrop: UnsafeMutableBufferPointer<SIMD4<Float>>) {
        let n = backdrop.count
        guard n > 0, let b = backdrop.baseAddress else { return }
        var colour = source
        if vectorMix(b, &colour, sourceStep: 0, n) { return }
        withUnsafeTemporaryAllocation(of: SIMD4<Float>.self, capacity: n) { row in
            row.initialize(repeating: source)
            apply(source: UnsafeBufferPointer(row), to: backdrop)
        }
    }

    /// The C row loop (vector width chosen at run time, eight pixels a step with AVX2, four
    /// with SSE2) for the modes with a vector `B` (`mixRow4`), colour dodge and burn and the
    /// non-separable modes, the same arithmetic bit for bit; false for the other modes or
    /// where it has no path (the Swift loops run).
    private func vectorMix(_ b: UnsafeMutablePointer<SIMD4<Float>>, _ s: UnsafePointer<SIMD4<Float>>, sourceStep: Int32, _ n: Int) -> Bool {
        let code: Int
        switch mode {
        case .sourceOver: code = CYAN_BLEND_NORMAL
        case .multiply: code = CYAN_BLEND_MULTIPLY
        case .screen: code = CYAN_BLEND_SCREEN
        case .overlay: code = CYAN_BLEND_OVERLAY
        case .hardLight: code = CYAN_BLEND_HARD_LIGHT
        case .softLight: code = CYAN_BLEND_SOFT_LIGHT
        case .difference: code = CYAN_BLEND_DIFFERENCE
        case .exclusion: code = CYAN_BLEND_EXCLUSION
        case .darken: code = CYAN_BLEND_DARKEN
        case .lighten: code = CYAN_BLEND_LIGHTEN
        case .colorDodge: code = CYAN_BLEND_COLOR_DODGE
        case .colorBurn: code = CYAN_BLEND_COLOR_BURN
        case .hue: code = CYAN_BLEND_HUE
        case .saturation: code = CYAN_BLEND_SATURATION
        case .color: code = CYAN_BLEND_COLOR
        case .luminosity: code = CYAN_BLEND_LUMINOSITY
        default: return false
        }
        return UnsafeMutableRawPointer(b).withMemoryRebound(to: Float.self, capacity: 4 * n) { bf in
            UnsafeRawPointer(s).withMemoryRebound(to: Float.self, capacity: 4) { sf in
                cyan_blend_mix_rgbaf(bf, sf, sourceStep, n, Int32(code)) != 0
            }
        }
    }
}

// MARK: Row mixes for `CIBlendFunction`

/// A separable blend function also written on whole vectors, lane for lane the same
/// arithmetic as its scalar `blend` (checked bit for bit by the tests), without branches on
/// the data (photo pixels sit on either side of the 0.5 pivots unpredictably).
protocol VectorSeparableBlend: SeparableBlend {
    static func blend4(_ cb: SIMD4<Float>, _ cs: SIMD4<Float>) -> SIMD4<Float>
}

/// `Cb + As * (B - Cb)` with a vector `B`, every pixel; alpha kept.
@inline(__always)
func mixRow4<F: VectorSeparableBlend>(_: F.Type, _ b: UnsafeMutablePointer<SIMD4<Float>>, _ s: UnsafePointer<SIMD4<Float>>, _ n: Int) {
    let alphaLane: SIMDMask<SIMD4<Int32>> = [false, false, false, true]
    for i in 0..<n {
        let src = s[i], dst = b[i]
        let r = dst + (F.blend4(dst, src) - dst) * SIMD4(repeating: src.w)
        b[i] = r.replacing(with: dst, where: alphaLane)
    }
}

/// `Cb + As * (B - Cb)` per channel; pixels the source does not cover (`As <= 0`) are left
/// alone.
@inline(__always)
func mixRow<F: BlendFunction>(_: F.Type, _ b: UnsafeMutablePointer<SIMD4<Float>>, _ s: UnsafePointer<SIMD4<Float>>, _ n: Int) {
    for i in 0..<n {
        let src = s[i]
        let a = src.w
        if a <= 0 { continue }
        let dst = b[i]
        let r = F.blendColor(SIMD3(dst.x, dst.y, dst.z), SIMD3(src.x, src.y, src.z))
        b[i] = SIMD4(dst.x + a * (r.x - dst.x), dst.y + a * (r.y - dst.y), dst.z + a * (r.z - dst.z), dst.w)
    }
}

extension BlendStage {
    /// W3C normal: `B = Cs` (source-over's blend function).
    enum Normal: VectorSeparableBlend {
        @inline(__always) static func blend(_ cb: Float, _ cs: Float) -> Float { cs }
        @inline(__always) static func blend4(_ cb: SIMD4<Float>, _ cs: SIMD4<Float>) -> SIMD4<Float> { cs }
    }
    /// W3C multiply: `B = Cb * Cs`.
    enum Multiply: VectorSeparableBlend {
        @inline(__always) static func blend(_ cb: Float, _ cs: Float) -> Float { multiplyB(cb, cs) }
        @inline(__always) static func blend4(_ cb: SIMD4<Float>, _ cs: SIMD4<Float>) -> SIMD4<Float> { cb * cs }
    }
    /// W3C screen: `B = Cb + Cs - Cb * Cs`.
    enum Screen: VectorSeparableBlend {
        @inline(__always) static func blend(_ cb: Float, _ cs: Float) -> Float { screenB(cb, cs) }
        @inline(__always) static func blend4(_ cb: SIMD4<Float>, _ cs: SIMD4<Float>) -> SIMD4<Float> { cb + cs - cb * cs }
    }
}

/// `hardLightB` on vectors: multiply by `2Cs` where `Cs <= 0.5`, screen with `2Cs - 1` elsewhere.
@inline(__always) func hardLightB4(_ cb: SIMD4<Float>, _ cs: SIMD4<Float>) -> SIMD4<Float> {
    let t = 2 * cs - 1
    let high = cb + t - cb * t
    return high.replacing(with: cb * (2 * cs), where: cs .<= 0.5)
}

extension BlendStage.Overlay: VectorSeparableBlend {
    @inline(__always) static func blend4(_ cb: SIMD4<Float>, _ cs: SIMD4<Float>) -> SIMD4<Float> { hardLightB4(cs, cb) }
}
extension BlendStage.HardLight: VectorSeparableBlend {
    @inline(__always) static func blend4(_ cb: SIMD4<Float>, _ cs: SIMD4<Float>) -> SIMD4<Float> { hardLightB4(cb, cs) }
}
extension BlendStage.SoftLight: VectorSeparableBlend {
    @inline(__always) static func blend4(_ cb: SIMD4<Float>, _ cs: SIMD4<Float>) -> SIMD4<Float> {
        let low = cb - (1 - 2 * cs) * cb * (1 - cb)
        let d = cb.squareRoot().replacing(with: ((16 * cb - 12) * cb + 4) * cb, where: cb .<= 0.25)
        let high = cb + (2 * cs - 1) * (d - cb)
        return high.replacing(with: low, where: cs .<= 0.5)
    }
}
extension BlendStage.Difference: VectorSeparableBlend {
    @inline(__always) static func blend4(_ cb: SIMD4<Float>, _ cs: SIMD4<Float>) -> SIMD4<Float> {
        (cs - cb).replacing(with: cb - cs, where: cb .> cs)
    }
}
extension BlendStage.Exclusion: VectorSeparableBlend {
    @inline(__always) static func blend4(_ cb: SIMD4<Float>, _ cs: SIMD4<Float>) -> SIMD4<Float> { cb + cs - 2 * cb * cs }
}
extension BlendStage.Darken: VectorSeparableBlend {
    // Swift's `min(cb, cs)` is `cs < cb ? cs : cb`.
    @inline(__always) static func blend4(_ cb: SIMD4<Float>, _ cs: SIMD4<Float>) -> SIMD4<Float> { cb.replacing(with: cs, where: cs .< cb) }
}
extension BlendStage.Lighten: VectorSeparableBlend {
    // Swift's `max(cb, cs)` is `cs >= cb ? cs : cb`.
    @inline(__always) static func blend4(_ cb: SIMD4<Float>, _ cs: SIMD4<Float>) -> SIMD4<Float> { cb.replacing(with: cs, where: cs .>= cb) }
}
