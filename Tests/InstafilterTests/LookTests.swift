import CCyanotypeKernels
import Cyanotype
import Foundation
import Testing
@testable import Instafilter

/// The seed's class names, keyed by CSSgram's preset names.
let cssgramLooks: [String: @Sendable () -> BaseFilter] = [
    "1977": { Insta1977() }, "aden": { InstaAden() }, "brannan": { InstaBrannan() }, "brooklyn": { InstaBrooklyn() },
    "clarendon": { InstaClarendon() }, "earlybird": { InstaEarlybird() }, "gingham": { InstaGingham() },
    "hudson": { InstaHudson() }, "inkwell": { InstaInkwell() }, "kelvin": { InstaKelvin() }, "lark": { InstaLark() },
    "lofi": { InstaLoFi() }, "maven": { InstaMaven() }, "mayfair": { InstaMayfair() }, "moon": { InstaMoon() },
    "nashville": { InstaNashville() }, "perpetua": { InstaPerpetua() }, "reyes": { InstaReyes() }, "rise": { InstaRise() },
    "slumber": { InstaSlumber() }, "stinson": { InstaStinson() }, "toaster": { InstaToaster() },
    "valencia": { InstaValencia() }, "walden": { InstaWalden() }, "willow": { InstaWillow() }, "xpro2": { InstaXPro2() },
]

@Suite struct CSSgramLookTests {
    @Test func everyPresetHasALook() {
        #expect(CSSReference.presets.count == 26)
        #expect(Set(CSSReference.presets.map(\.name)) == Set(cssgramLooks.keys))
        #expect(CSSLookDefinition.cssgram.count == 26)
        #expect(CSSLookDefinition.instafilter.count == 6)
        #expect(CSSLookDefinition.instafilter.allSatisfy { $0.origin == .instafilter })
    }

    @Test(arguments: CSSReference.presets.map(\.name))
    func matchesCSSReference(name: String) throws {
        let preset = CSSReference.presets.first { $0.name == name }!
        let w = 32, h = 24
        let (img, src) = testCard(width: w, height: h)
        let look = try #require(cssgramLooks[name]?())
        #expect(look.name == name)
        let out = try pixels(look.apply(to: img))
        #expect(out.count == w * h * 4)
        var worst = 0.0, at = (0, 0)
        for y in 0..<h {
            for x in 0..<w {
                let i = (y * w + x) * 4
                let ref = CSSReference.evaluate(preset, rgb: Array(src[i..<i + 3]), px: x, py: y, w: w, h: h)
                for c in 0..<3 {
                    let d = abs(Double(out[i + c]) - ref[c].rounded())
                    if d > worst { worst = d; at = (x, y) }
                }
                #expect(out[i + 3] == 255)
            }
        }
        print("CSS reference \(name): worst \(worst)/255")
        #expect(worst <= 2, "\(name): worst difference \(worst)/255 at \(at)")
    }

    @Test(arguments: ["clarendon", "lofi", "mayfair", "willow", "xpro2"])
    func intensityMixes(name: String) throws {
        let (img, src) = testCard()
        let look = try #require(cssgramLooks[name]?())
        look.intensity = 0
        #expect(try pixels(look.apply(to: img)) == src)
        look.intensity = 1
        let full = try pixels(look.apply(to: img))
        let fresh = try #require(cssgramLooks[name]?())
        #expect(try pixels(fresh.apply(to: img)) == full)
        look.intensity = 0.5
        let half = try pixels(look.apply(to: img))
        // Half intensity: the average of original and look in linear light.
        func lin(_ v: UInt8) -> Double { let u = Double(v) / 255; return u <= 0.04045 ? u / 12.92 : pow((u + 0.055) / 1.055, 2.4) }
        func enc(_ l: Double) -> Double { l <= 0.0031308 ? l * 12.92 : 1.055 * pow(l, 1 / 2.4) - 0.055 }
        var worst = 0.0
        for i in 0..<src.count where i % 4 != 3 {
            let expected = enc((lin(src[i]) + lin(full[i])) / 2) * 255
            worst = max(worst, abs(expected - Double(half[i])))
        }
        #expect(worst <= 1.5)
    }

    @Test func ownLooksRenderAndDiffer() throws {
        let (img, src) = testCard()
        for make in [{ InstaJuno() }, { InstaLudwig() }, { InstaCrema() }, { InstaSierra() }, { InstaPortra() }, { InstaTriX() }] as [() -> BaseFilter] {
            let f = make()
            let out = try pixels(f.apply(to: img))
            #expect(out.count == src.count)
            #expect(maxDifference(out, src) > 10, "\(f.name) changes the image")
        }
    }

    @Test func outputKeepsTheInputExtent() {
        let img = testCard().image.transformed(by: CGAffineTransform(translationX: 5, y: 7))
        for make in cssgramLooks.values {
            #expect(make().apply(to: img).extent == img.extent)
        }
        #expect(InstaGrain().apply(to: img).extent == img.extent)
        // Infinite and empty inputs come back as they are.
        let inf = CIImage(color: .gray)
        #expect(InstaClarendon().apply(to: inf).extent.isInfinite)
    }

    @Test func ciFilterWrapper() throws {
        let (img, _) = testCard()
        let look = InstaClarendon()
        look.intensity = 0.7
        let f = look.ciFilter
        f.setValue(img, forKey: kCIInputImageKey)
        let a = try pixels(try #require(f.outputImage))
        #expect(a == (try pixels(look.apply(to: img))))
        f.setValue(0.0, forKey: kCIInputIntensityKey)
        #expect(look.intensity == 0)
        let g = InstaGrain().ciFilter
        g.setValue(3.0, forKey: "inputGrainScale")
        #expect(g.value(forKey: "inputGrainScale") as? Double == 3)
    }
}

@Suite struct CSSPieceTests {
    @Test func parsesCSSFilterLists() throws {
        let f = try CSSFilterFunction.parseList("contrast(110%) hue-rotate(-20deg) saturate(1.3) grayscale()")
        #expect(f == [.contrast(1.1), .hueRotate(degrees: -20), .saturate(1.3), .grayscale(1)])
        #expect(throws: RecipeError.invalidCSS("blur(2px)", reason: "unknown or unsupported filter function 'blur'")) {
            try CSSFilterFunction.parseList("blur(2px)")
        }
        #expect(throws: RecipeError.self) { try CSSFilterFunction.parseList("contrast(abc)") }
    }

    @Test func filterListMatchesReference() throws {
        let (img, src) = testCard()
        let list = try CSSFilterList(css: "sepia(0.4) invert(0.2) brightness(1.3) contrast(1.2) hue-rotate(45deg) grayscale(0.3)")
        let out = try pixels(list.apply(to: img))
        var worst = 0.0
        for i in stride(from: 0, to: src.count, by: 4) {
            var c = src[i..<i + 3].map { Double($0) / 255 }
            for (fn, a) in [("sepia", 0.4), ("invert", 0.2), ("brightness", 1.3), ("contrast", 1.2), ("hue-rotate", 45), ("grayscale", 0.3)] {
                c = CSSReference.apply(fn, a, c)
            }
            for k in 0..<3 { worst = max(worst, abs(c[k] * 255 - Double(out[i + k]))) }
        }
        #expect(worst <= 1.5)
    }

    @Test(arguments: CSSBlendMode.allCases)
    func blendModesMatchW3C(mode: CSSBlendMode) throws {
        let (img, src) = testCard()
        let fg = CSSColor(200, 90, 40, 0.8)
        let out = try pixels(CSSOverlayFilter(CSSOverlay(.color(fg), blend: mode, opacity: 0.9)).apply(to: img))
        // The same via an image foreground.
        let fgImage = CIImage(color: CIColor(red: 200 / 255, green: 90 / 255, blue: 40 / 255, alpha: 0.8)).cropped(to: img.extent)
        let viaImage = try pixels(cssBlend(fgImage, over: img, mode: mode, opacity: 0.9))
        var worst = 0.0
        for i in stride(from: 0, to: src.count, by: 4) {
            let cb = src[i..<i + 3].map { Double($0) / 255 }
            let b = CSSReference.blend(mode.rawValue, cb, [200 / 255, 90 / 255, 40 / 255])
            for k in 0..<3 {
                let ref = (cb[k] + 0.72 * (b[k] - cb[k])) * 255
                worst = max(worst, abs(ref - Double(out[i + k])), abs(ref - Double(viaImage[i + k])))
            }
        }
        #expect(worst <= 1.5, "\(mode): \(worst)")
    }
}

@Suite struct TilingTests {
    /// Gradients are computed from each row's position: small tiles must give the same bytes.
    @Test(arguments: ["mayfair", "rise", "aden", "perpetua"])
    func tiledEqualsWhole(name: String) throws {
        let (img, _) = testCard(width: 37, height: 29)
        let moved = img.transformed(by: CGAffineTransform(translationX: 11, y: -5))
        let look = try #require(cssgramLooks[name]?())
        let tiled = CIContext(options: [.tileSize: 8])
        #expect(try pixels(look.apply(to: moved), context: tiled) == (try pixels(look.apply(to: moved))))
        // Where the image sits does not change the look.
        #expect(try pixels(look.apply(to: moved)) == (try pixels(look.apply(to: img))))
    }
}

/// The looks' C row loops (vector width picked at run time) against the Swift formulas they
/// replace, bit for bit, on rows whose length is no multiple of the vector width.
@Suite struct RowLoopTests {
    /// A seeded row of RGBA values in about -0.1...1.1, with some 0s, 1s, an infinity and a NaN.
    private func row(_ n: Int, seed: UInt64) -> [SIMD4<Float>] {
        var state = seed
        func unit() -> Float {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(state >> 40) / Float(1 << 24) * 1.2 - 0.1
        }
        var r = (0..<n).map { _ in SIMD4(unit(), unit(), unit(), unit()) }
        r[3].x = 0; r[4].y = 1; r[5].w = 1; r[7].x = .infinity; r[11].z = .nan
        return r
    }
    private func bits(_ v: [SIMD4<Float>]) -> [UInt32] { v.flatMap { p in (0..<4).map { p[$0].bitPattern } } }

    @Test func cssFunctionsEqualTheSwiftLoop() {
        let functions: [[CSSFilterFunction]] = [
            [.contrast(1.2), .saturate(1.35)], [.sepia(0.3), .hueRotate(degrees: -20), .opacity(0.8), .brightness(1.1)],
            [.grayscale(1), .invert(0.4)],
        ]
        for f in functions {
            let m = f.flatMap { $0.affine.packed }
            var viaC = row(1003, seed: 3), viaSwift = viaC
            m.withUnsafeBufferPointer { mb in
                viaC.withUnsafeMutableBufferPointer { applyAffines(mb, $0.baseAddress!, $0.count) }
                viaSwift.withUnsafeMutableBufferPointer { applyAffinesPortable(mb, $0.baseAddress!, $0.count) }
            }
            #expect(bits(viaC) == bits(viaSwift), "\(f)")
        }
    }

    /// Grain noise and the grain overlay: the hash and the luminance-weighted sum as written in
    /// Swift here.
    @Test func grainEqualsTheFormulas() throws {
        let seed: UInt32 = 77, y = -3, x0 = -13, n = 1003
        var noise = [SIMD4<Float>](repeating: .zero, count: n)
        noise.withUnsafeMutableBufferPointer { b in
            UnsafeMutableRawPointer(b.baseAddress!).withMemoryRebound(to: Float.self, capacity: 4 * n) {
                cyan_grain_noise_rgbaf($0, n, Int64(x0), Int64(y), seed)
            }
        }
        let base = UInt32(truncatingIfNeeded: y) &* 0x9E37_79B1 ^ seed &* 0x85EB_CA77
        for i in 0..<n {
            let x = x0 + i
            var h = UInt32(truncatingIfNeeded: x >> 1) &* 0xC2B2_AE3D ^ base
            h ^= h >> 16; h = h &* 0x7FEB_352D
            h ^= h >> 15; h = h &* 0x846C_A68B
            h ^= h >> 16
            let u = Float(h >> 8) * (1 / 16_777_216)
            let v = (UInt32(x & 1) ^ (h & 1)) == 0 ? u : 1 - u
            #expect(bits([noise[i]]) == bits([SIMD4(v, v, v, 1)]), "x \(x)")
        }
        let strength: Float = 0.14
        var viaC = row(n, seed: 9)
        var expected = viaC
        for i in 0..<n {
            let c = expected[i]
            let l = 0.2126 * c.x + 0.7152 * c.y + 0.0722 * c.z
            let d = strength * 4 * l * (1 - l) * (noise[i].x - 0.5)
            expected[i] = c + SIMD4(d, d, d, 0)
        }
        viaC.withUnsafeMutableBufferPointer { p in
            noise.withUnsafeBufferPointer { q in
                UnsafeMutableRawPointer(p.baseAddress!).withMemoryRebound(to: Float.self, capacity: 4 * n) { pf in
                    UnsafeRawPointer(q.baseAddress!).withMemoryRebound(to: Float.self, capacity: 4 * n) { cyan_grain_overlay_rgbaf(pf, $0, n, strength) }
                }
            }
        }
        #expect(bits(viaC) == bits(expected))
    }
}
