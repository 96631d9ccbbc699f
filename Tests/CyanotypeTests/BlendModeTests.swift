import Foundation
import Testing
@testable import Cyanotype

// The 30 composite operations against references written here from the W3C Compositing and
// Blending spec (shared/spec/filter_effects.json), Photoshop's definitions and Porter-Duff:
// straight colour maths in Double, then the general alpha formula.

/// W3C / Photoshop separable blend functions B(Cb, Cs) on straight colour.
private func referenceB(_ mode: String, _ cb: Double, _ cs: Double) -> Double {
    func multiply(_ b: Double, _ s: Double) -> Double { b * s }
    func screen(_ b: Double, _ s: Double) -> Double { b + s - b * s }
    func hardLight(_ b: Double, _ s: Double) -> Double { s <= 0.5 ? multiply(b, 2 * s) : screen(b, 2 * s - 1) }
    func dodge(_ b: Double, _ s: Double) -> Double { b == 0 ? 0 : (s >= 1 ? 1 : min(1, b / (1 - s))) }
    func burn(_ b: Double, _ s: Double) -> Double { b == 1 ? 1 : (s <= 0 ? 0 : 1 - min(1, (1 - b) / s)) }
    func clip(_ v: Double) -> Double { min(1, max(0, v)) }
    switch mode {
    case "CIMultiplyBlendMode": return multiply(cb, cs)
    case "CIScreenBlendMode": return screen(cb, cs)
    case "CIOverlayBlendMode": return hardLight(cs, cb)
    case "CIDarkenBlendMode": return min(cb, cs)
    case "CILightenBlendMode": return max(cb, cs)
    case "CIColorDodgeBlendMode": return dodge(cb, cs)
    case "CIColorBurnBlendMode": return burn(cb, cs)
    case "CIHardLightBlendMode": return hardLight(cb, cs)
    case "CISoftLightBlendMode":
        if cs <= 0.5 { return cb - (1 - 2 * cs) * cb * (1 - cb) }
        let d = cb <= 0.25 ? ((16 * cb - 12) * cb + 4) * cb : cb.squareRoot()
        return cb + (2 * cs - 1) * (d - cb)
    case "CIDifferenceBlendMode": return abs(cb - cs)
    case "CIExclusionBlendMode": return cb + cs - 2 * cb * cs
    case "CILinearBurnBlendMode": return clip(cb + cs - 1)
    case "CILinearDodgeBlendMode": return clip(cb + cs)
    case "CILinearLightBlendMode": return cs <= 0.5 ? clip(cb + 2 * cs - 1) : clip(cb + (2 * cs - 1))  // linear burn / linear dodge
    case "CIVividLightBlendMode": return cs <= 0.5 ? burn(cb, 2 * cs) : dodge(cb, 2 * (cs - 0.5))
    case "CIPinLightBlendMode": return cs <= 0.5 ? min(cb, 2 * cs) : max(cb, 2 * (cs - 0.5))
    case "CISubtractBlendMode": return max(0, cb - cs)
    case "CIDivideBlendMode": return cs == 0 ? (cb == 0 ? 0 : 1) : min(1, cb / cs)
    default: fatalError("no reference for \(mode)")
    }
}

/// W3C non-separable blend functions, with the spec's sorting SetSat.
private func referenceNonSeparable(_ mode: String, _ cb: [Double], _ cs: [Double]) -> [Double] {
    func lum(_ c: [Double]) -> Double { 0.3 * c[0] + 0.59 * c[1] + 0.11 * c[2] }
    func clipColor(_ c: [Double]) -> [Double] {
        let l = lum(c), n = c.min()!, x = c.max()!
        var r = c
        if n < 0 { r = r.map { l + ($0 - l) * l / (l - n) } }
        if x > 1 { r = r.map { l + ($0 - l) * (1 - l) / (x - l) } }
        return r
    }
    func setLum(_ c: [Double], _ l: Double) -> [Double] { let d = l - lum(c); return clipColor(c.map { $0 + d }) }
    func sat(_ c: [Double]) -> Double { c.max()! - c.min()! }
    func setSat(_ c: [Double], _ s: Double) -> [Double] {
        let order = [0, 1, 2].sorted { c[$0] < c[$1] }  // min, mid, max
        var r = [0.0, 0.0, 0.0]
        let mn = c[order[0]], md = c[order[1]], mx = c[order[2]]
        if mx > mn {
            r[order[1]] = (md - mn) * s / (mx - mn)
            r[order[2]] = s
        }
        return r
    }
    switch mode {
    case "CIHueBlendMode": return setLum(setSat(cs, sat(cb)), lum(cb))
    case "CISaturationBlendMode": return setLum(setSat(cb, sat(cs)), lum(cb))
    case "CIColorBlendMode": return setLum(cs, lum(cb))
    case "CILuminosityBlendMode": return setLum(cb, lum(cs))
    default: fatalError("no reference for \(mode)")
    }
}

/// Porter-Duff and component-wise operations on premultiplied RGBA.
private func referenceComposite(_ mode: String, _ s: [Double], _ b: [Double]) -> [Double] {
    let as_ = s[3], ab = b[3]
    switch mode {
    case "CISourceOverCompositing": return (0..<4).map { s[$0] + b[$0] * (1 - as_) }
    case "CISourceAtopCompositing": return (0..<3).map { s[$0] * ab + b[$0] * (1 - as_) } + [ab]
    case "CISourceInCompositing": return s.map { $0 * ab }
    case "CISourceOutCompositing": return s.map { $0 * (1 - ab) }
    case "CIAdditionCompositing": return (0..<3).map { s[$0] + b[$0] } + [min(1, as_ + ab)]
    case "CIMaximumCompositing": return (0..<4).map { max(s[$0], b[$0]) }
    case "CIMinimumCompositing": return (0..<4).map { min(s[$0], b[$0]) }
    case "CIMultiplyCompositing": return (0..<4).map { s[$0] * b[$0] }
    default: fatalError("no reference for \(mode)")
    }
}

let separableBlendModes = [
    "CIMultiplyBlendMode", "CIScreenBlendMode", "CIOverlayBlendMode", "CIDarkenBlendMode", "CILightenBlendMode",
    "CIColorDodgeBlendMode", "CIColorBurnBlendMode", "CIHardLightBlendMode", "CISoftLightBlendMode", "CIDifferenceBlendMode",
    "CIExclusionBlendMode", "CILinearBurnBlendMode", "CILinearDodgeBlendMode", "CILinearLightBlendMode", "CIVividLightBlendMode",
    "CIPinLightBlendMode", "CISubtractBlendMode", "CIDivideBlendMode",
]
let nonSeparableBlendModes = ["CIHueBlendMode", "CISaturationBlendMode", "CIColorBlendMode", "CILuminosityBlendMode"]
let compositingOperations = [
    "CISourceOverCompositing", "CISourceAtopCompositing", "CISourceInCompositing", "CISourceOutCompositing",
    "CIAdditionCompositing", "CIMaximumCompositing", "CIMinimumCompositing", "CIMultiplyCompositing",
]

/// A one-row image of premultiplied linear float pixels given as straight RGBA.
func linearRow(_ straight: [[Double]]) -> CIImage {
    var floats: [Float] = []
    for p in straight {
        let a = Float(p[3])
        floats += [Float(p[0]) * a, Float(p[1]) * a, Float(p[2]) * a, a]
    }
    let data = floats.withUnsafeBufferPointer { Data(buffer: $0) }
    return CIImage(
        bitmapData: data, bytesPerRow: straight.count * 16, size: CGSize(width: straight.count, height: 1), format: .RGBAf,
        colorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB))
}

@Suite struct BlendModeTests {
    /// Straight colours (with exact 0, 1/2 and 1 channels for the modes' edge cases) at
    /// alphas 1, a fraction and 0.
    static let backdrops: [[Double]] = {
        let colours: [[Double]] = [[0.8, 0.2, 0.1], [0, 0.5, 1], [1, 1, 1], [0, 0, 0], [0.3, 0.7, 0.45], [0.2, 0.25, 0.9]]
        return [1.0, 0.6, 0.0].flatMap { a in colours.map { $0 + [a] } }
    }()
    static let sources: [[Double]] = {
        let colours: [[Double]] = [[0.1, 0.5, 0.9], [1, 0, 0.5], [0.25, 0.75, 0.4], [0, 0, 0], [1, 1, 1], [0.6, 0.3, 0.05]]
        return [1.0, 0.5, 0.0].flatMap { a in colours.map { $0 + [a] } }
    }()
    /// Every (source, backdrop) pair, one per pixel.
    static let pairs: [([Double], [Double])] = sources.flatMap { s in backdrops.map { (s, $0) } }

    /// Renders `name` over all pairs at once; returns straight linear RGBA per pair.
    func render(_ name: String) throws -> [SIMD4<Float>] {
        let src = linearRow(Self.pairs.map(\.0)), bg = linearRow(Self.pairs.map(\.1))
        let out = src.applyingFilter(name, parameters: [kCIInputBackgroundImageKey: bg])
        return try renderFloat(out, CGRect(x: 0, y: 0, width: Self.pairs.count, height: 1))
    }

    /// Premultiplied result -> straight, as the float render returns it.
    func straight(_ o: [Double]) -> [Double] {
        o[3] > 0 ? [o[0] / o[3], o[1] / o[3], o[2] / o[3], o[3]] : [0, 0, 0, 0]
    }

    /// The W3C general formula with `B` applied to straight colour.
    func general(_ s: [Double], _ b: [Double], _ mixed: [Double]) -> [Double] {
        let as_ = s[3], ab = b[3]
        let co = (0..<3).map { as_ * s[$0] * (1 - ab) + ab * b[$0] * (1 - as_) + as_ * ab * mixed[$0] }
        return straight(co + [as_ + ab - as_ * ab])
    }

    /// Float inputs as the filter sees them (the reference starts from the same numbers).
    func f(_ c: [Double]) -> [Double] { c.map { Double(Float($0)) } }

    @Test(arguments: separableBlendModes)
    func separableModeMatchesW3C(_ name: String) throws {
        let got = try render(name)
        for (k, (s, b)) in Self.pairs.enumerated() {
            let s = f(s), b = f(b)
            let mixed = (0..<3).map { referenceB(name, b[$0], s[$0]) }
            #expect(close(got[k], general(s, b, mixed), tol: 2e-4, "\(name) s=\(s) b=\(b)"))
        }
    }

    @Test(arguments: nonSeparableBlendModes)
    func nonSeparableModeMatchesW3C(_ name: String) throws {
        let got = try render(name)
        for (k, (s, b)) in Self.pairs.enumerated() {
            let s = f(s), b = f(b)
            let mixed = referenceNonSeparable(name, Array(b[0..<3]), Array(s[0..<3]))
            #expect(close(got[k], general(s, b, mixed), tol: 2e-4, "\(name) s=\(s) b=\(b)"))
        }
    }

    @Test(arguments: compositingOperations)
    func compositingMatchesPorterDuffAndApple(_ name: String) throws {
        let got = try render(name)
        for (k, (s, b)) in Self.pairs.enumerated() {
            let s = f(s), b = f(b)
            let sp = [s[0] * s[3], s[1] * s[3], s[2] * s[3], s[3]], bp = [b[0] * b[3], b[1] * b[3], b[2] * b[3], b[3]]
            #expect(close(got[k], straight(referenceComposite(name, sp, bp)), tol: 2e-4, "\(name) s=\(s) b=\(b)"))
        }
    }

    /// A clear source leaves the backdrop as it is, in every blend mode (W3C: B only acts where
    /// both are present).
    @Test(arguments: separableBlendModes + nonSeparableBlendModes)
    func clearSourceLeavesBackdrop(_ name: String) throws {
        let got = try render(name)
        for (k, (s, b)) in Self.pairs.enumerated() where s[3] == 0 {
            #expect(close(got[k], b[3] > 0 ? f(b) : [0, 0, 0, 0], tol: 2e-4, "\(name) b=\(b)"))
        }
    }

    @Test(arguments: separableBlendModes + nonSeparableBlendModes + compositingOperations)
    func extentIsAsDocumented(_ name: String) throws {
        let a = CIImage(color: .red).cropped(to: CGRect(x: 0, y: 0, width: 4, height: 4))
        let b = CIImage(color: .blue).cropped(to: CGRect(x: 2, y: 1, width: 5, height: 6))
        let out = a.applyingFilter(name, parameters: [kCIInputBackgroundImageKey: b])
        let expected: CGRect
        switch name {
        case "CISourceInCompositing": expected = CGRect(x: 2, y: 1, width: 2, height: 3)
        case "CISourceAtopCompositing": expected = b.extent
        case "CISourceOutCompositing": expected = a.extent
        default: expected = CGRect(x: 0, y: 0, width: 7, height: 7)
        }
        #expect(out.extent == expected, "\(name)")
    }

    @Test func compositeCategoryHasExactlyTheThirty() {
        let names = CIFilter.filterNames(inCategory: kCICategoryCompositeOperation)
        let expected = (separableBlendModes + nonSeparableBlendModes + compositingOperations).sorted()
        #expect(expected.count == 30)
        #expect(names.sorted() == expected)
    }

    @Test func blendKernelsMatchTheirFilters() throws {
        // Not CIBlendKernel.subtract: Apple documents it as foreground minus background, the
        // reverse of CISubtractBlendMode (see BlendKernelTests).
        let kernels: [(CIBlendKernel, String)] = [
            (.screen, "CIScreenBlendMode"), (.overlay, "CIOverlayBlendMode"), (.darken, "CIDarkenBlendMode"),
            (.lighten, "CILightenBlendMode"), (.colorDodge, "CIColorDodgeBlendMode"), (.colorBurn, "CIColorBurnBlendMode"),
            (.hardLight, "CIHardLightBlendMode"), (.softLight, "CISoftLightBlendMode"), (.difference, "CIDifferenceBlendMode"),
            (.exclusion, "CIExclusionBlendMode"), (.linearBurn, "CILinearBurnBlendMode"), (.linearDodge, "CILinearDodgeBlendMode"),
            (.linearLight, "CILinearLightBlendMode"), (.vividLight, "CIVividLightBlendMode"), (.pinLight, "CIPinLightBlendMode"),
            (.divide, "CIDivideBlendMode"), (.hue, "CIHueBlendMode"),
            (.saturation, "CISaturationBlendMode"), (.color, "CIColorBlendMode"), (.luminosity, "CILuminosityBlendMode"),
            (.sourceAtop, "CISourceAtopCompositing"), (.sourceIn, "CISourceInCompositing"), (.sourceOut, "CISourceOutCompositing"),
            (.componentAdd, "CIAdditionCompositing"), (.componentMax, "CIMaximumCompositing"),
            (.componentMin, "CIMinimumCompositing"), (.componentMultiply, "CIMultiplyCompositing"),
            (.multiply, "CIMultiplyBlendMode"), (.sourceOver, "CISourceOverCompositing"),
        ]
        let src = linearRow(Self.pairs.map(\.0)), bg = linearRow(Self.pairs.map(\.1))
        let rect = CGRect(x: 0, y: 0, width: Self.pairs.count, height: 1)
        for (kernel, name) in kernels {
            let viaKernel = try #require(kernel.apply(foreground: src, background: bg))
            #expect(viaKernel.extent == src.extent.union(bg.extent))
            let a = try renderFloat(viaKernel, rect)
            let b = try renderFloat(src.applyingFilter(name, parameters: [kCIInputBackgroundImageKey: bg]), rect)
            #expect(a == b, "\(name)")
        }
    }

    /// The blend modes on an 8-bit sRGB backdrop through the public pipeline, a spot check that
    /// the float path above is the one users get.
    @Test func hardLightOnSRGBSolids() throws {
        let s: [Double] = [0.7, 0.2, 0.5, 0.8], b: [Double] = [0.3, 0.6, 0.9, 1]
        func solid(_ c: [Double]) -> CIImage {
            CIImage(color: CIColor(red: linearToSrgb(c[0]), green: linearToSrgb(c[1]), blue: linearToSrgb(c[2]), alpha: c[3]))
                .cropped(to: CGRect(x: 0, y: 0, width: 3, height: 3))
        }
        let out = solid(s).applyingFilter("CIHardLightBlendMode", parameters: [kCIInputBackgroundImageKey: solid(b)])
        let got = try renderFloat(out, CGRect(x: 1, y: 1, width: 1, height: 1))[0]
        let mixed = (0..<3).map { referenceB("CIHardLightBlendMode", b[$0], s[$0]) }
        #expect(close(got, general(s, b, mixed), tol: 2e-4))
    }
}
