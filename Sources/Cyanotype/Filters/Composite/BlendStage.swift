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
        case addition, maximum, minimum, multiplyCompositing
        // Separable W3C / Photoshop blend modes.
        case multiply, screen, overlay, darken, lighten, colorDodge, colorBurn, hardLight, softLight
        case difference, exclusion, linearBurn, linearDodge, linearLight, vividLight, pinLight, subtract, divide
        // Non-separable W3C blend modes.
        case hue, saturation, color, luminosity
    }
    let mode: Mode
    var extraInputCount: Int { 1 }
    var wantsUnpremultiplied: Bool { false }

    static let sourceOver = BlendStage(mode: .sourceOver)
    static let multiply = BlendStage(mode: .multiply)

    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let bg = extra[0]
        switch mode {
        case .sourceOver:
            for i in 0..<count {
                let s = row[i], b = bg[i]
                row[i] = s + b * (1 - s.w)
            }
        case .sourceAtop:
            // co = cs*ab + cb*(1 - as); ao = ab.
            for i in 0..<count {
                let s = row[i], b = bg[i]
                var o = s * b.w + b * (1 - s.w)
                o.w = b.w
                row[i] = o
            }
        case .sourceIn:
            for i in 0..<count { row[i] = row[i] * bg[i].w }
        case .sourceOut:
            for i in 0..<count { row[i] = row[i] * (1 - bg[i].w) }
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
        case .overlay: separableBlendRow(Overlay.self, row, bg, count)
        case .darken: separableBlendRow(Darken.self, row, bg, count)
        case .lighten: separableBlendRow(Lighten.self, row, bg, count)
        case .colorDodge: separableBlendRow(ColorDodge.self, row, bg, count)
        case .colorBurn: separableBlendRow(ColorBurn.self, row, bg, count)
        case .hardLight: separableBlendRow(HardLight.self, row, bg, count)
        case .softLight: separableBlendRow(SoftLight.self, row, bg, count)
        case .difference: separableBlendRow(Difference.self, row, bg, count)
        case .exclusion: separableBlendRow(Exclusion.self, row, bg, count)
        case .linearBurn: separableBlendRow(LinearBurn.self, row, bg, count)
        case .linearDodge: separableBlendRow(LinearDodge.self, row, bg, count)
        case .linearLight: separableBlendRow(LinearLight.self, row, bg, count)
        case .vividLight: separableBlendRow(VividLight.self, row, bg, count)
        case .pinLight: separableBlendRow(PinLight.self, row, bg, count)
        case .subtract: separableBlendRow(Subtract.self, row, bg, count)
        case .divide: separableBlendRow(Divide.self, row, bg, count)
        case .hue: nonSeparableBlendRow(Hue.self, row, bg, count)
        case .saturation: nonSeparableBlendRow(Saturation.self, row, bg, count)
        case .color: nonSeparableBlendRow(Color.self, row, bg, count)
        case .luminosity: nonSeparableBlendRow(Luminosity.self, row, bg, count)
        }
    }
    var label: String { mode.rawValue }
}

// MARK: Separable blend functions B(Cb, Cs) on straight colour

/// A separable blend function: one channel of straight backdrop `cb` and source `cs`.
protocol SeparableBlend { static func blend(_ cb: Float, _ cs: Float) -> Float }

/// The general formula, one loop per mode (the generic is specialised for each `F`).
@inline(__always)
func separableBlendRow<F: SeparableBlend>(_: F.Type, _ row: UnsafeMutablePointer<SIMD4<Float>>, _ bg: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int) {
    for i in 0..<count {
        let s = row[i], b = bg[i]
        // Divided, not multiplied by a reciprocal, so an opaque-white colour stays exactly 1
        // (colour burn and divide jump there).
        let cs = s.w > 0 ? s / s.w : .zero, cb = b.w > 0 ? b / b.w : .zero
        let ab = s.w * b.w
        let mixed = SIMD4(F.blend(cb.x, cs.x), F.blend(cb.y, cs.y), F.blend(cb.z, cs.z), 0)
        var o = s * (1 - b.w) + b * (1 - s.w) + mixed * ab
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
/// W3C color-burn.
@inline(__always) private func colorBurnB(_ cb: Float, _ cs: Float) -> Float {
    if cb == 1 { return 1 }
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
}

// MARK: Non-separable blend functions (W3C SetLum / SetSat / ClipColor)

/// A non-separable blend function on straight backdrop and source colours.
protocol NonSeparableBlend { static func blend(_ cb: SIMD3<Float>, _ cs: SIMD3<Float>) -> SIMD3<Float> }

@inline(__always)
func nonSeparableBlendRow<F: NonSeparableBlend>(_: F.Type, _ row: UnsafeMutablePointer<SIMD4<Float>>, _ bg: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int) {
    for i in 0..<count {
        let s = row[i], b = bg[i]
        let cs = s.w > 0 ? s / s.w : .zero, cb = b.w > 0 ? b / b.w : .zero
        let ab = s.w * b.w
        let m = F.blend(SIMD3(cb.x, cb.y, cb.z), SIMD3(cs.x, cs.y, cs.z))
        var o = s * (1 - b.w) + b * (1 - s.w) + SIMD4(m, 0) * ab
        o.w = s.w + b.w - ab
        row[i] = o
    }
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
}
