import Foundation
import Testing
@testable import Cyanotype

// Apple's CIBlendKernel statics without a built-in filter behind them, and the row-level
// blend functions (`CIBlendFunction`), against references written here from Porter-Duff,
// the W3C Compositing and Blending spec and Photoshop's definitions.

/// Straight colours with 0, 1/2 and 1 channels, at alphas 1, a fraction and 0.
private let straightColours: [[Double]] = {
    let colours: [[Double]] = [[0.8, 0.2, 0.1], [0, 0.5, 1], [1, 1, 1], [0, 0, 0], [0.3, 0.7, 0.45], [0.6, 0.3, 0.05]]
    return [1.0, 0.55, 0.0].flatMap { a in colours.map { $0 + [a] } }
}()
/// Every (foreground, background) pair, one per pixel.
private let pairs: [([Double], [Double])] = straightColours.flatMap { s in straightColours.reversed().map { (s, $0) } }

private func lum(_ c: [Double]) -> Double { 0.3 * c[0] + 0.59 * c[1] + 0.11 * c[2] }

/// The general formula on straight inputs (Float-rounded, as the pixels are): premultiplied
/// `co = cs(1 - ab) + cb(1 - as) + as ab B`, `ao = as + ab - as ab`, returned straight.
private func general(_ s: [Double], _ b: [Double], _ mixed: [Double]) -> [Double] {
    let a = s[3], ab = b[3]
    let co = (0..<3).map { a * s[$0] * (1 - ab) + ab * b[$0] * (1 - a) + a * ab * mixed[$0] }
    let ao = a + ab - a * ab
    return ao > 0 ? co.map { $0 / ao } + [ao] : [0, 0, 0, 0]
}

/// Porter-Duff on premultiplied colour, returned straight.
private func porterDuff(_ name: String, _ s: [Double], _ b: [Double]) -> [Double] {
    let sp = (0..<3).map { s[$0] * s[3] } + [s[3]], bp = (0..<3).map { b[$0] * b[3] } + [b[3]]
    let a = s[3], ab = b[3]
    let o: [Double]
    switch name {
    case "clear": o = [0, 0, 0, 0]
    case "source": o = sp
    case "destination": o = bp
    case "destinationOver": o = (0..<4).map { bp[$0] + sp[$0] * (1 - ab) }
    case "destinationIn": o = bp.map { $0 * a }
    case "destinationOut": o = bp.map { $0 * (1 - a) }
    case "destinationAtop": o = (0..<3).map { bp[$0] * a + sp[$0] * (1 - ab) } + [a]
    case "exclusiveOr": o = (0..<4).map { sp[$0] * (1 - ab) + bp[$0] * (1 - a) }
    default: fatalError("no reference for \(name)")
    }
    return o[3] > 0 ? [o[0] / o[3], o[1] / o[3], o[2] / o[3], o[3]] : [0, 0, 0, 0]
}

/// W3C hard-light: multiply by `2Cs` below half, screen with `2Cs - 1` above.
private func hardLight(_ b: Double, _ s: Double) -> Double {
    if s <= 0.5 { return b * 2 * s }
    let t = 2 * s - 1
    return b + t - b * t
}

/// `B(Cb, Cs)` of the blend modes these tests check, from the published definitions.
private func referenceB(_ name: String, _ cb: [Double], _ cs: [Double]) -> [Double] {
    switch name {
    case "hardMix": return (0..<3).map { Float(cb[$0]) + Float(cs[$0]) >= 1 ? 1 : 0 }  // the sum as the pixels add it
    case "subtract": return (0..<3).map { max(0, cs[$0] - cb[$0]) }  // Apple: foreground minus background
    case "darkerColor": return lum(cs) < lum(cb) ? Array(cs[0..<3]) : Array(cb[0..<3])
    case "lighterColor": return lum(cs) > lum(cb) ? Array(cs[0..<3]) : Array(cb[0..<3])
    case "sourceOver": return Array(cs[0..<3])
    case "multiply": return (0..<3).map { cb[$0] * cs[$0] }
    case "screen": return (0..<3).map { cb[$0] + cs[$0] - cb[$0] * cs[$0] }
    case "overlay": return (0..<3).map { hardLight(cs[$0], cb[$0]) }
    case "hardLight": return (0..<3).map { hardLight(cb[$0], cs[$0]) }
    case "softLight":
        return (0..<3).map {
            let b = cb[$0], s = cs[$0]
            if s <= 0.5 { return b - (1 - 2 * s) * b * (1 - b) }
            let d = b <= 0.25 ? ((16 * b - 12) * b + 4) * b : b.squareRoot()
            return b + (2 * s - 1) * (d - b)
        }
    case "difference": return (0..<3).map { abs(cb[$0] - cs[$0]) }
    case "exclusion": return (0..<3).map { cb[$0] + cs[$0] - 2 * cb[$0] * cs[$0] }
    case "darken": return (0..<3).map { min(cb[$0], cs[$0]) }
    case "lighten": return (0..<3).map { max(cb[$0], cs[$0]) }
    case "colorDodge": return (0..<3).map { cb[$0] == 0 ? 0 : cs[$0] >= 1 ? 1 : min(1, cb[$0] / (1 - cs[$0])) }
    case "colorBurn": return (0..<3).map { cb[$0] >= 1 ? 1 : cs[$0] <= 0 ? 0 : 1 - min(1, (1 - cb[$0]) / cs[$0]) }
    case "color":
        // W3C: SetLum(Cs, Lum(Cb)), ClipColor pulling the result back into the gamut.
        let d = lum(cb) - lum(cs)
        let c = (0..<3).map { cs[$0] + d }
        let l = lum(c), n = c.min()!, x = c.max()!
        var r = c
        if n < 0 { r = r.map { l + ($0 - l) * l / (l - n) } }
        if x > 1 { r = r.map { l + ($0 - l) * (1 - l) / (x - l) } }
        return r
    default: fatalError("no reference for \(name)")
    }
}

@Suite struct BlendKernelTests {
    /// Every blend kernel Apple's CIBlendKernel lists, by its Swift name.
    @Test func everyAppleBlendKernelExists() {
        let kernels: [(String, CIBlendKernel)] = [
            ("componentAdd", .componentAdd), ("componentMultiply", .componentMultiply), ("componentMin", .componentMin),
            ("componentMax", .componentMax), ("clear", .clear), ("source", .source), ("destination", .destination),
            ("sourceOver", .sourceOver), ("destinationOver", .destinationOver), ("sourceIn", .sourceIn),
            ("destinationIn", .destinationIn), ("sourceOut", .sourceOut), ("destinationOut", .destinationOut),
            ("sourceAtop", .sourceAtop), ("destinationAtop", .destinationAtop), ("exclusiveOr", .exclusiveOr),
            ("multiply", .multiply), ("screen", .screen), ("overlay", .overlay), ("darken", .darken), ("lighten", .lighten),
            ("colorDodge", .colorDodge), ("colorBurn", .colorBurn), ("hardLight", .hardLight), ("softLight", .softLight),
            ("difference", .difference), ("exclusion", .exclusion), ("hue", .hue), ("saturation", .saturation),
            ("color", .color), ("luminosity", .luminosity), ("subtract", .subtract), ("divide", .divide),
            ("linearBurn", .linearBurn), ("linearDodge", .linearDodge), ("vividLight", .vividLight),
            ("linearLight", .linearLight), ("pinLight", .pinLight), ("hardMix", .hardMix), ("darkerColor", .darkerColor),
            ("lighterColor", .lighterColor),
        ]
        #expect(kernels.count == 41)
        #expect(Set(kernels.map { ObjectIdentifier($0.1) }).count == 41, "each name is its own kernel")
    }

    /// Renders `kernel` over all pairs; straight linear RGBA per pair.
    func render(_ kernel: CIBlendKernel) throws -> [SIMD4<Float>] {
        let fg = linearRow(pairs.map(\.0)), bg = linearRow(pairs.map(\.1))
        let out = try #require(kernel.apply(foreground: fg, background: bg))
        #expect(out.extent == fg.extent.union(bg.extent))
        return try renderFloat(out, CGRect(x: 0, y: 0, width: pairs.count, height: 1))
    }

    func f(_ c: [Double]) -> [Double] { c.map { Double(Float($0)) } }

    @Test(arguments: ["clear", "source", "destination", "destinationOver", "destinationIn", "destinationOut", "destinationAtop", "exclusiveOr"])
    func porterDuffKernelsMatchTheirDefinitions(_ name: String) throws {
        let kernels: [String: CIBlendKernel] = [
            "clear": .clear, "source": .source, "destination": .destination, "destinationOver": .destinationOver,
            "destinationIn": .destinationIn, "destinationOut": .destinationOut, "destinationAtop": .destinationAtop,
            "exclusiveOr": .exclusiveOr,
        ]
        let got = try render(try #require(kernels[name]))
        for (k, (s, b)) in pairs.enumerated() {
            #expect(close(got[k], porterDuff(name, f(s), f(b)), tol: 2e-5, "\(name) s=\(s) b=\(b)"))
        }
    }

    @Test(arguments: ["hardMix", "subtract", "darkerColor", "lighterColor"])
    func newBlendModesFollowTheGeneralFormula(_ name: String) throws {
        let kernels: [String: CIBlendKernel] = ["hardMix": .hardMix, "subtract": .subtract, "darkerColor": .darkerColor, "lighterColor": .lighterColor]
        let got = try render(try #require(kernels[name]))
        for (k, (s, b)) in pairs.enumerated() {
            let s = f(s), b = f(b)
            #expect(close(got[k], general(s, b, referenceB(name, b, s)), tol: 2e-5, "\(name) s=\(s) b=\(b)"))
        }
    }

    /// Apple documents `CIBlendKernel.subtract` as the foreground minus the background; the
    /// CISubtractBlendMode filter (Photoshop's subtract) takes the background minus the source.
    @Test func subtractKernelIsForegroundMinusBackground() throws {
        let fg = linearRow([[0.9, 0.5, 0.2, 1]]), bg = linearRow([[0.3, 0.6, 0.1, 1]])
        let rect = CGRect(x: 0, y: 0, width: 1, height: 1)
        let kernel = try renderFloat(try #require(CIBlendKernel.subtract.apply(foreground: fg, background: bg)), rect)
        #expect(close(kernel[0], [0.6, 0, 0.1, 1], tol: 1e-6))
        let filter = try renderFloat(fg.applyingFilter("CISubtractBlendMode", parameters: [kCIInputBackgroundImageKey: bg]), rect)
        #expect(close(filter[0], [0, 0.1, 0, 1], tol: 1e-6))
    }

    @Test func blendFunctionsExistForBlendModesOnly() {
        let with: [CIBlendKernel] = [
            .sourceOver, .multiply, .screen, .overlay, .darken, .lighten, .colorDodge, .colorBurn, .hardLight,
            .softLight, .difference, .exclusion, .hue, .saturation, .color, .luminosity, .subtract, .divide,
            .linearBurn, .linearDodge, .vividLight, .linearLight, .pinLight, .hardMix, .darkerColor, .lighterColor,
        ]
        let without: [CIBlendKernel] = [
            .componentAdd, .componentMultiply, .componentMin, .componentMax, .clear, .source, .destination,
            .destinationOver, .sourceIn, .destinationIn, .sourceOut, .destinationOut, .sourceAtop,
            .destinationAtop, .exclusiveOr, CIBlendKernel(name: "custom") { _ in },
        ]
        for k in with { #expect(k.blendFunction != nil, "\(k.name)") }
        for k in without { #expect(k.blendFunction == nil, "\(k.name)") }
        #expect(CIBlendKernel.softLight.blendFunction?.description == "softLight")
    }

    /// `apply` computes `Cb + As (B(Cb, Cs) - Cb)` on straight colour, alpha kept, for any
    /// encoding of the values (here: raw numbers, as an sRGB-encoded row would hold them).
    @Test(arguments: [
        "sourceOver", "multiply", "screen", "overlay", "hardLight", "softLight", "difference", "exclusion", "darken",
        "lighten", "colorDodge", "colorBurn", "hardMix", "subtract", "darkerColor", "lighterColor", "color",
    ])
    func rowBlendMatchesTheFormula(_ name: String) throws {
        let kernels: [String: CIBlendKernel] = [
            "sourceOver": .sourceOver, "multiply": .multiply, "screen": .screen, "overlay": .overlay, "hardLight": .hardLight,
            "softLight": .softLight, "difference": .difference, "exclusion": .exclusion, "darken": .darken, "lighten": .lighten,
            "colorDodge": .colorDodge, "colorBurn": .colorBurn, "hardMix": .hardMix, "subtract": .subtract,
            "darkerColor": .darkerColor, "lighterColor": .lighterColor, "color": .color,
        ]
        let function = try #require(kernels[name]?.blendFunction)
        var backdrop: [SIMD4<Float>] = [], source: [SIMD4<Float>] = []
        let steps: [Float] = [0, 0.1, 0.25, 0.3, 0.5, 0.5001, 0.7, 0.9, 1]
        for b in steps {
            for s in steps {
                backdrop.append(SIMD4(b, 0.5 + (b - 0.5) * 0.4, b * 0.5 + 0.25, 0.8))
                source.append(SIMD4(s, 0.45 + (s - 0.5) * 0.5, 0.6 - s * 0.4, 0.7 * s + 0.2))
            }
        }
        var out = backdrop
        source.withUnsafeBufferPointer { src in out.withUnsafeMutableBufferPointer { function.apply(source: src, to: $0) } }
        for i in out.indices {
            let b = (0..<4).map { Double(backdrop[i][$0]) }, s = (0..<4).map { Double(source[i][$0]) }
            let B = referenceB(name, b, s)
            let want = (0..<3).map { b[$0] + s[3] * (B[$0] - b[$0]) } + [b[3]]
            #expect(close(out[i], want, tol: 2e-6, "\(name) b=\(b) s=\(s)"))
        }
    }

    /// The branch-free vector forms are the scalar formulas lane for lane, bit for bit.
    @Test func vectorFormsEqualScalarFormulas() {
        var values: [Float] = [0, 0.1, 0.2, 0.25, 0.2500001, 0.3, 0.4999999, 0.5, 0.5000001, 0.7, 0.9, 0.9999999, 1, 1.0000001, 1.5, -0.25]
        var rng = SplitMix(7)
        for _ in 0..<200 { values.append(rng.unit()) }
        func check<F: VectorSeparableBlend>(_: F.Type, _ name: String) {
            var mismatches = 0
            for cb in values {
                for i in stride(from: 0, to: values.count, by: 4) {
                    let cs = SIMD4(values[i], values[(i + 1) % values.count], values[(i + 2) % values.count], values[(i + 3) % values.count])
                    let v = F.blend4(SIMD4(repeating: cb), cs)
                    for k in 0..<4 where v[k].bitPattern != F.blend(cb, cs[k]).bitPattern { mismatches += 1 }
                }
            }
            #expect(mismatches == 0, "\(name)")
        }
        check(BlendStage.Normal.self, "normal")
        check(BlendStage.Multiply.self, "multiply")
        check(BlendStage.Screen.self, "screen")
        check(BlendStage.Overlay.self, "overlay")
        check(BlendStage.HardLight.self, "hardLight")
        check(BlendStage.SoftLight.self, "softLight")
        check(BlendStage.Difference.self, "difference")
        check(BlendStage.Exclusion.self, "exclusion")
        check(BlendStage.Darken.self, "darken")
        check(BlendStage.Lighten.self, "lighten")
    }

    /// The C row loop (AVX2 or SSE2, picked at run time) gives the Swift loops' bits for every
    /// mode it runs, on rows whose length is no multiple of the vector width, with source
    /// alphas of 0 and below, and channels outside 0...1; one colour blended with
    /// `apply(color:to:)` equals a row of that colour.
    @Test(arguments: [
        "sourceOver", "multiply", "screen", "overlay", "hardLight", "softLight", "difference", "exclusion", "darken",
        "lighten", "colorDodge", "colorBurn", "hue", "saturation", "color", "luminosity",
    ])
    func rowLoopEqualsTheSwiftLoopBitForBit(_ name: String) throws {
        typealias S = BlendStage
        let kernels: [String: (CIBlendKernel, (UnsafeMutablePointer<SIMD4<Float>>, UnsafePointer<SIMD4<Float>>, Int) -> Void)] = [
            "sourceOver": (.sourceOver, { mixRow4(S.Normal.self, $0, $1, $2) }), "multiply": (.multiply, { mixRow4(S.Multiply.self, $0, $1, $2) }),
            "screen": (.screen, { mixRow4(S.Screen.self, $0, $1, $2) }), "overlay": (.overlay, { mixRow4(S.Overlay.self, $0, $1, $2) }),
            "hardLight": (.hardLight, { mixRow4(S.HardLight.self, $0, $1, $2) }),
            "softLight": (.softLight, { mixRow4(S.SoftLight.self, $0, $1, $2) }),
            "difference": (.difference, { mixRow4(S.Difference.self, $0, $1, $2) }),
            "exclusion": (.exclusion, { mixRow4(S.Exclusion.self, $0, $1, $2) }),
            "darken": (.darken, { mixRow4(S.Darken.self, $0, $1, $2) }), "lighten": (.lighten, { mixRow4(S.Lighten.self, $0, $1, $2) }),
            "colorDodge": (.colorDodge, { mixRow(S.ColorDodge.self, $0, $1, $2) }),
            "colorBurn": (.colorBurn, { mixRow(S.ColorBurn.self, $0, $1, $2) }),
            "hue": (.hue, { mixRow(S.Hue.self, $0, $1, $2) }),
            "saturation": (.saturation, { mixRow(S.Saturation.self, $0, $1, $2) }),
            "color": (.color, { mixRow(S.Color.self, $0, $1, $2) }),
            "luminosity": (.luminosity, { mixRow(S.Luminosity.self, $0, $1, $2) }),
        ]
        let (kernel, swiftLoop) = try #require(kernels[name])
        let function = try #require(kernel.blendFunction)
        var rng = SplitMix(11)
        let special: [Float] = [0, 1, 0.5, 0.25, -0.1, 1.2]
        func value() -> Float { rng.int(5) == 0 ? special[rng.int(special.count)] : rng.unit() * 1.2 - 0.1 }
        let n = 1003
        let backdrop = (0..<n).map { _ in SIMD4(value(), value(), value(), value()) }
        var source = (0..<n).map { _ in SIMD4(value(), value(), value(), value()) }
        for i in stride(from: 0, to: n, by: 9) { source[i].x = source[i].y }  // equal channels
        var viaC = backdrop, viaSwift = backdrop
        source.withUnsafeBufferPointer { s in viaC.withUnsafeMutableBufferPointer { function.apply(source: s, to: $0) } }
        source.withUnsafeBufferPointer { s in viaSwift.withUnsafeMutableBufferPointer { swiftLoop($0.baseAddress!, s.baseAddress!, n) } }
        let bits = { (v: [SIMD4<Float>]) in v.flatMap { p in (0..<4).map { p[$0].bitPattern } } }
        #expect(bits(viaC) == bits(viaSwift), "\(name)")
        // One colour, as a row of copies.
        let colour = source[5]
        var flat = backdrop, row = backdrop
        flat.withUnsafeMutableBufferPointer { function.apply(color: colour, to: $0) }
        let copies = [SIMD4<Float>](repeating: colour, count: n)
        copies.withUnsafeBufferPointer { s in row.withUnsafeMutableBufferPointer { function.apply(source: s, to: $0) } }
        #expect(bits(flat) == bits(row), "\(name), one colour")
    }

    /// Uncovered pixels (source alpha 0) and a short source row leave the backdrop as it is.
    @Test func rowBlendLeavesUncoveredPixels() throws {
        let function = try #require(CIBlendKernel.colorBurn.blendFunction)
        var backdrop: [SIMD4<Float>] = [SIMD4(0.2, 0.4, 0.6, 1), SIMD4(0.9, 0.1, 0.3, 0.5), SIMD4(0.5, 0.5, 0.5, 1)]
        let before = backdrop
        let source: [SIMD4<Float>] = [SIMD4(0.7, 0.7, 0.7, 0), SIMD4(0.1, 0.2, 0.3, 0)]
        source.withUnsafeBufferPointer { s in backdrop.withUnsafeMutableBufferPointer { function.apply(source: s, to: $0) } }
        #expect(backdrop == before)
    }

    /// The row-level sRGB curves against the published formula, negatives and values above 1
    /// included, alpha untouched; and decode undoes encode.
    @Test func rowSRGBCurvesMatchTheFormula() {
        var values: [Float] = [0, 1e-6, 0.001, 0.0031308, 0.003131, 0.04045, 0.0405, 0.1, 0.18, 0.5, 0.73, 1, 1.5, 4, -0.2, -0.002]
        for i in 0..<997 { values.append(Float(i) / 996) }
        var row = stride(from: 0, to: values.count, by: 3).map { i in
            SIMD4(values[i], values[min(i + 1, values.count - 1)], values[min(i + 2, values.count - 1)], 0.37)
        }
        let linear = row
        row.withUnsafeMutableBufferPointer { CGColorSpace.sRGBEncode($0) }
        func enc(_ v: Double) -> Double { v < 0 ? -linearToSrgb(-v) : linearToSrgb(v) }
        func dec(_ v: Double) -> Double { v < 0 ? -srgbToLinear(-v) : srgbToLinear(v) }
        var worst = 0.0
        for (p, q) in zip(row, linear) {
            #expect(p.w == q.w)
            for k in 0..<3 { worst = max(worst, abs(Double(p[k]) - enc(Double(q[k]))) / max(1, abs(enc(Double(q[k]))))) }
        }
        #expect(worst < 2e-6, "encode off by \(worst)")
        let encoded = row
        row.withUnsafeMutableBufferPointer { CGColorSpace.sRGBDecode($0) }
        worst = 0
        for (p, q) in zip(row, encoded) {
            #expect(p.w == q.w)
            for k in 0..<3 { worst = max(worst, abs(Double(p[k]) - dec(Double(q[k]))) / max(1, abs(dec(Double(q[k]))))) }
        }
        #expect(worst < 2e-6, "decode off by \(worst)")
        for (p, q) in zip(row, linear) { for k in 0..<3 { #expect(abs(p[k] - q[k]) <= 4e-6 * max(1, abs(q[k]))) } }
        // Empty rows are fine.
        CGColorSpace.sRGBEncode(UnsafeMutableBufferPointer(start: nil, count: 0))
    }
}
