import Foundation
import Testing

@testable import Cyanotype

// Core Image Kernel Language and Metal-source kernels, compiled at run time: every construct
// against the same maths written here in Swift (within 1e-5), tiled == whole for a general
// kernel, errors as nil (never a crash, also under seeded random mutation of valid sources).

private let W = 37, H = 5
private let rawSpace = CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!
/// Renders working-space values unchanged (premultiplied, linear, float).
private let rawContext = CIContext(options: [.outputColorSpace: rawSpace, .outputPremultiplied: true, .cacheIntermediates: false])

/// Seeded premultiplied test pixels, row 0 at the bottom (y up, as kernels see them).
private func testPixels(seed: UInt64) -> [SIMD4<Float>] {
    var s = seed
    func next() -> Float {
        s = s &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Float((s >> 33) % 10_000) / 10_000
    }
    return (0..<(W * H)).map { _ in
        let a = 0.2 + 0.8 * next()
        return SIMD4(next() * a, next() * a, next() * a, a)
    }
}

/// The pixels as an image whose working values are exactly `pixels` (bottom row first).
private func image(_ pixels: [SIMD4<Float>], width: Int = W, height: Int = H) -> CIImage {
    var topDown: [SIMD4<Float>] = []
    for row in (0..<height).reversed() { topDown += pixels[(row * width)..<(row * width + width)] }
    let data = topDown.withUnsafeBytes { Data($0) }
    return CIImage(bitmapData: data, bytesPerRow: width * 16, size: CGSize(width: width, height: height), format: .RGBAf, colorSpace: rawSpace)
}

/// Rendered working values, bottom row first.
private func values(_ img: CIImage, _ rect: CGRect, context: CIContext = rawContext) throws -> [SIMD4<Float>] {
    let r = try context.renderToData(img, from: rect, format: .RGBAf)
    let topDown = r.data.withUnsafeBytes { Array($0.bindMemory(to: SIMD4<Float>.self)) }
    let w = Int(rect.width), h = Int(rect.height)
    var out: [SIMD4<Float>] = []
    for row in (0..<h).reversed() { out += topDown[(row * w)..<(row * w + w)] }
    return out
}

private func near(_ a: SIMD4<Float>, _ b: SIMD4<Double>, tol: Double = 1e-5) -> Bool {
    (0..<4).allSatisfy { i in abs(Double(a[i]) - b[i]) <= tol * max(1, abs(b[i])) }
}

private let rect = CGRect(x: 0, y: 0, width: W, height: H)

/// A colour-kernel case: source, its arguments after the images, and the formula per pixel
/// (premultiplied input, pixel centre x, y).
/// A colour-kernel case: source, its arguments after the images, and the formula per pixel.
struct KernelColorCase: Sendable, CustomStringConvertible {
    let name: String
    let source: String
    let extra: [Double]
    let formula: @Sendable (SIMD4<Double>, Double, Double) -> SIMD4<Double>
    var description: String { name }
}

private func clampD(_ x: Double, _ lo: Double, _ hi: Double) -> Double { min(max(x, lo), hi) }
private func smooth(_ e0: Double, _ e1: Double, _ x: Double) -> Double {
    let t = clampD((x - e0) / (e1 - e0), 0, 1)
    return t * t * (3 - 2 * t)
}
private func lumaD(_ p: SIMD4<Double>) -> Double { 0.2126 * p.x + 0.7152 * p.y + 0.0722 * p.z }

private let colorCases: [KernelColorCase] = [
    KernelColorCase(
        name: "scale rgb", source: "kernel vec4 k(__sample s, float a) { return vec4(s.rgb * a, s.a); }", extra: [0.7],
        formula: { p, _, _ in SIMD4(p.x * 0.7, p.y * 0.7, p.z * 0.7, p.w) }),
    KernelColorCase(
        name: "swizzles and write swizzles",
        source: """
            kernel vec4 k(__sample s) {
                vec4 c = s.bgra;
                c.rg = s.gr;   // write swizzle
                c.z += 0.25;
                c.w = s.w;
                return c;
            }
            """, extra: [],
        formula: { p, _, _ in SIMD4(p.y, p.x, p.x + 0.25, p.w) }),
    KernelColorCase(
        name: "mix clamp smoothstep step",
        source: """
            kernel vec4 k(__sample s, float t) {
                vec3 m = mix(s.rgb, vec3(1.0, 0.5, 0.0), t);
                float a = clamp(s.r * 3.0, 0.1, 0.9);
                float b = smoothstep(0.2, 0.6, s.g);
                return vec4(m.r, a, b + step(0.5, s.b), s.a);
            }
            """, extra: [0.3],
        formula: { p, _, _ in
            SIMD4(p.x + (1 - p.x) * 0.3, clampD(p.x * 3, 0.1, 0.9), smooth(0.2, 0.6, p.y) + (p.z < 0.5 ? 0 : 1), p.w)
        }),
    KernelColorCase(
        name: "dot length distance normalize cross",
        source: """
            kernel vec4 k(__sample s) {
                float l = dot(s.rgb, vec3(0.2126, 0.7152, 0.0722));
                vec3 n = normalize(s.rgb + vec3(0.1));
                vec3 c = cross(s.rgb, vec3(0.0, 0.0, 1.0));
                return vec4(l, length(s.rg) + distance(s.rg, vec2(0.5)), n.x + c.x, c.y);
            }
            """, extra: [],
        formula: { p, _, _ in
            let v = SIMD3(p.x + 0.1, p.y + 0.1, p.z + 0.1)
            let n = v / (v * v).sum().squareRoot()
            let cx = p.y * 1 - p.z * 0, cy = p.z * 0 - p.x * 1
            let len = (p.x * p.x + p.y * p.y).squareRoot()
            let dist = ((p.x - 0.5) * (p.x - 0.5) + (p.y - 0.5) * (p.y - 0.5)).squareRoot()
            return SIMD4(lumaD(p), len + dist, n.x + cx, cy)
        }),
    KernelColorCase(
        name: "pow exp log sqrt inversesqrt trig",
        source: """
            kernel vec4 k(__sample s) {
                float a = pow(s.r + 0.1, 2.2) + exp(s.g) - log(s.b + 1.0);
                float b = sqrt(s.a) + inversesqrt(s.a + 1.0);
                float c = sin(s.r) + cos(s.g) + tan(s.b * 0.5) + atan(s.r) + atan(s.g, s.b + 0.5);
                return vec4(a, b, c, s.a);
            }
            """, extra: [],
        formula: { p, _, _ in
            SIMD4(
                Foundation.pow(p.x + 0.1, 2.2) + Foundation.exp(p.y) - Foundation.log(p.z + 1), p.w.squareRoot() + 1 / (p.w + 1).squareRoot(),
                Foundation.sin(p.x) + Foundation.cos(p.y) + Foundation.tan(p.z * 0.5) + Foundation.atan(p.x) + Foundation.atan2(p.y, p.z + 0.5), p.w)
        }),
    KernelColorCase(
        name: "abs sign floor ceil fract mod min max",
        source: """
            kernel vec4 k(__sample s) {
                float x = s.r * 7.0 - 3.0;
                return vec4(abs(x) + sign(x), floor(x) + ceil(x), fract(x) + mod(x, 1.5), min(x, s.g) + max(x, s.b));
            }
            """, extra: [],
        formula: { p, _, _ in
            let x = Double(Float(p.x) * 7 - 3)
            let sg: Double = x > 0 ? 1 : (x < 0 ? -1 : 0)
            return SIMD4(abs(x) + sg, x.rounded(.down) + x.rounded(.up), (x - x.rounded(.down)) + (x - 1.5 * (x / 1.5).rounded(.down)), min(x, p.y) + max(x, p.z))
        }),
    KernelColorCase(
        name: "if else, ternary, compare",
        source: """
            kernel vec4 k(__sample s, float threshold) {
                vec4 o;
                if (s.r > threshold) {
                    o = vec4(1.0, 0.0, 0.0, 1.0);
                } else if (s.g > threshold) {
                    o = vec4(0.0, 1.0, 0.0, 1.0);
                } else {
                    o = vec4(0.0, 0.0, s.b > 0.2 ? 1.0 : 0.5, 1.0);
                }
                o.a = compare(s.b - 0.3, 0.25, 0.75);
                return o;
            }
            """, extra: [0.4],
        formula: { p, _, _ in
            var o: SIMD4<Double> = p.x > 0.4 ? SIMD4(1, 0, 0, 1) : (p.y > 0.4 ? SIMD4(0, 1, 0, 1) : SIMD4(0, 0, p.z > 0.2 ? 1 : 0.5, 1))
            o.w = Double(Float(p.z) - 0.3) < 0 ? 0.25 : 0.75
            return o
        }),
    KernelColorCase(
        name: "early return in a branch",
        source: """
            kernel vec4 k(__sample s) {
                if (s.a < 0.5) { return vec4(0.0); }
                return vec4(s.rgb, 1.0);
            }
            """, extra: [],
        formula: { p, _, _ in p.w < 0.5 ? SIMD4(0, 0, 0, 0) : SIMD4(p.x, p.y, p.z, 1) }),
    KernelColorCase(
        name: "bounded for loop with a uniform bound, break",
        source: """
            kernel vec4 k(__sample s, float n) {
                float acc = 0.0;
                for (int i = 0; i < 10; i++) {
                    if (float(i) >= n) { break; }
                    acc += s.r * float(i);
                }
                return vec4(acc, s.g, s.b, s.a);
            }
            """, extra: [4],
        formula: { p, _, _ in SIMD4(p.x * 6, p.y, p.z, p.w) }),
    KernelColorCase(
        name: "helper functions",
        source: """
            float luma(vec3 c) { return dot(c, vec3(0.2126, 0.7152, 0.0722)); }
            vec3 tint(vec3 c, float amount) {
                float l = luma(c);
                return mix(vec3(l), c, amount);
            }
            kernel vec4 k(__sample s, float amount) { return vec4(tint(s.rgb, amount), s.a); }
            """, extra: [0.25],
        formula: { p, _, _ in
            let l = lumaD(p)
            return SIMD4(l + (p.x - l) * 0.25, l + (p.y - l) * 0.25, l + (p.z - l) * 0.25, p.w)
        }),
    KernelColorCase(
        name: "matrices",
        source: """
            kernel vec4 k(__sample s) {
                mat3 m = mat3(0.5, 0.1, 0.0,  0.2, 0.6, 0.1,  0.0, 0.3, 0.9);
                vec3 c = m * s.rgb;
                vec2 d = mat2(2.0) * s.rg;
                return vec4(c.r + d.x, c.g, c.b, s.a);
            }
            """, extra: [],
        formula: { p, _, _ in
            // Column-major: column 0 = (0.5, 0.1, 0.0), ...
            let r = 0.5 * p.x + 0.2 * p.y + 0.0 * p.z
            let g = 0.1 * p.x + 0.6 * p.y + 0.3 * p.z
            let b = 0.0 * p.x + 0.1 * p.y + 0.9 * p.z
            return SIMD4(r + 2 * p.x, g, b, p.w)
        }),
    KernelColorCase(
        name: "premultiply unpremultiply destCoord",
        source: """
            kernel vec4 k(__sample s) {
                vec4 u = unpremultiply(s);
                u.rgb = vec3(1.0) - u.rgb;
                vec2 d = destCoord();
                vec4 o = premultiply(u);
                return vec4(o.r, o.g + d.x * 0.01, o.b + d.y * 0.1, o.a);
            }
            """, extra: [],
        formula: { p, x, y in
            let u = SIMD3(p.x, p.y, p.z) / p.w
            return SIMD4((1 - u.x) * p.w, (1 - u.y) * p.w + x * 0.01, (1 - u.z) * p.w + y * 0.1, p.w)
        }),
    KernelColorCase(
        name: "vec2 vec3 vec4 uniforms and a while loop",
        source: """
            kernel vec4 k(__sample s, vec2 a, vec3 b, vec4 c) {
                float x = s.r;
                int n = 0;
                while (n < 3) { x = x * a.x + a.y; n++; }
                return vec4(x, s.g * b.y + b.z, s.b + c.z, s.a * c.w);
            }
            """, extra: [],
        formula: { p, _, _ in
            var x = p.x
            for _ in 0..<3 { x = x * 0.5 + 0.1 }
            return SIMD4(x, p.y * 0.2 + 0.3, p.z + 0.6, p.w * 0.7)
        }),
]

private func arguments(for c: KernelColorCase, image: CIImage) -> [Any] {
    if c.name.hasPrefix("vec2 vec3") {
        return [image, CIVector(x: 0.5, y: 0.1), CIVector(x: 0.1, y: 0.2, z: 0.3), CIVector(x: 0.4, y: 0.5, z: 0.6, w: 0.7)]
    }
    return [image] + c.extra.map { $0 as Any }
}

@Suite struct KernelLanguageTests {
    @Test(arguments: colorCases)
    func colorKernelMatchesSwift(_ c: KernelColorCase) throws {
        let pixels = testPixels(seed: 42)
        let kernel = try #require(CIColorKernel(source: c.source), "\(c.name) compiles")
        #expect(kernel.name == "k")
        let out = try #require(kernel.apply(extent: rect, arguments: arguments(for: c, image: image(pixels))))
        let got = try values(out, rect)
        var bad = 0
        for y in 0..<H {
            for x in 0..<W {
                let p = pixels[y * W + x]
                let want = c.formula(SIMD4<Double>(Double(p.x), Double(p.y), Double(p.z), Double(p.w)), Double(x) + 0.5, Double(y) + 0.5)
                if !near(got[y * W + x], want) {
                    if bad < 3 { Issue.record("\(c.name) at (\(x), \(y)): got \(got[y * W + x]) expected \(want)") }
                    bad += 1
                }
            }
        }
        #expect(bad == 0)
    }

    @Test func blendKernelFromSource() throws {
        let fg = testPixels(seed: 1), bg = testPixels(seed: 2)
        let blend = try #require(
            CIBlendKernel(source: "kernel vec4 multiplyish(__sample fore, __sample back) { return fore * back + fore * (1.0 - back.a); }"))
        let out = try #require(blend.apply(foreground: image(fg), background: image(bg)))
        let got = try values(out, rect)
        for i in 0..<(W * H) {
            let f = SIMD4<Double>(fg[i]), b = SIMD4<Double>(bg[i])
            #expect(near(got[i], f * b + f * (1 - b.w)))
        }
        // Not two __samples: not a blend kernel.
        #expect(CIBlendKernel(source: "kernel vec4 k(__sample s) { return s; }") == nil)
    }

    @Test func generatorAndColorArgument() throws {
        let k = try #require(CIColorKernel(source: "kernel vec4 fill(__color c, float k) { return c * k; }"))
        let out = try #require(k.apply(extent: rect, arguments: [CIColor(red: 1, green: 0.5, blue: 0.25, alpha: 1, colorSpace: rawSpace)!, 0.5]))
        let got = try values(out, rect)
        #expect(got.allSatisfy { near($0, SIMD4(0.5, 0.25, 0.125, 0.5)) })
    }

    @Test func warpKernelMirrors() throws {
        let pixels = testPixels(seed: 7)
        let kernel = try #require(CIWarpKernel(source: "kernel vec2 mirror(float w) { vec2 d = destCoord(); return vec2(w - d.x, d.y); }"))
        let applied = kernel.apply(
            extent: rect, roiCallback: { _, r in CGRect(x: CGFloat(W) - r.maxX, y: r.minY, width: r.width, height: r.height) },
            image: image(pixels), arguments: [Double(W)])
        let out = try #require(applied)
        let got = try values(out, rect)
        for y in 0..<H {
            for x in 0..<W { #expect(near(got[y * W + x], SIMD4<Double>(pixels[y * W + (W - 1 - x)]))) }
        }
    }

    /// A 3x3 box blur over a clamped image, in CIKL: rendered whole and in 4x4 tiles, both
    /// against the sum written here.
    @Test func generalKernelTiledEqualsWholeAndMatchesSwift() throws {
        let pixels = testPixels(seed: 9)
        let source = """
            kernel vec4 box(sampler src, float scale) {
                vec2 c = samplerCoord(src);
                vec4 sum = vec4(0.0);
                for (int dy = -1; dy <= 1; dy++) {
                    for (int dx = -1; dx <= 1; dx++) {
                        sum += sample(src, samplerTransform(src, destCoord() + vec2(float(dx), float(dy))));
                    }
                }
                return sum * scale + 0.0 * c.x;
            }
            """
        let kernels = try #require(CIKernel.kernels(withString: source))
        #expect(kernels.count == 1)
        let box = try #require(kernels.first)
        #expect(!(box is CIColorKernel) && !(box is CIWarpKernel))
        let src = image(pixels).clampedToExtent()
        let applied = box.apply(extent: rect, roiCallback: { _, r in r.insetBy(dx: -1, dy: -1) }, arguments: [src, 1.0 / 9.0])
        let out = try #require(applied)
        let whole = try values(out, rect)
        let tiledContext = CIContext(options: [
            .outputColorSpace: rawSpace, .outputPremultiplied: true, .cacheIntermediates: false, .tileSize: 4,
        ])
        let tiled = try values(out, rect, context: tiledContext)
        #expect(whole == tiled)
        for y in 0..<H {
            for x in 0..<W {
                var sum = SIMD4<Double>.zero
                for dy in -1...1 {
                    for dx in -1...1 { sum += SIMD4<Double>(pixels[min(max(y + dy, 0), H - 1) * W + min(max(x + dx, 0), W - 1)]) }
                }
                #expect(near(whole[y * W + x], sum / 9))
            }
        }
    }

    @Test func kindsFromOneSource() throws {
        let source = """
            float half_(float x) { return x * 0.5; }
            kernel vec4 dim(__sample s) { return vec4(s.rgb * half_(1.0), s.a); }
            kernel vec2 shift(float dx) { return destCoord() + vec2(dx, 0.0); }
            kernel vec4 pick(sampler a) { return sample(a, samplerCoord(a)); }
            """
        let k = try #require(CIKernel.kernels(withString: source))
        #expect(k.map(\.name) == ["dim", "shift", "pick"])
        #expect(k[0] is CIColorKernel)
        #expect(k[1] is CIWarpKernel)
        #expect(type(of: k[2]) == CIKernel.self)
        // Asking for the wrong class gives nil.
        #expect(CIWarpKernel(source: "kernel vec4 k(__sample s) { return s; }") == nil)
        #expect(CIColorKernel(source: "kernel vec2 k() { return destCoord(); }") == nil)
    }

    @Test func metalKernelsMatchSwift() throws {
        let source = """
            #include <CoreImage/CoreImage.h>
            using namespace metal;
            extern "C" { namespace coreimage {
                float luma(float3 c) { return dot(c, float3(0.2126, 0.7152, 0.0722)); }
                [[stitchable]] float4 desaturate(coreimage::sample_t s, float amount, coreimage::destination dest) {
                    float l = luma(s.rgb);
                    float3 g = mix(s.rgb, float3(l), amount);
                    return float4(g.r, g.g, g.b + 0.0 * dest.coord().x, s.a);
                }
                [[stitchable]] float2 flip(float h, coreimage::destination dest) {
                    float2 d = dest.coord();
                    return float2(d.x, h - d.y);
                }
                [[stitchable]] float4 blur3(coreimage::sampler src) {
                    float2 c = src.coord();
                    half4 a = src.sample(src.transform(c + float2(-1.0, 0.0)));
                    float4 b = src.sample(c);
                    float4 d = src.sample(src.transform(c + float2(1.0, 0.0)));
                    float3x3 m = float3x3(1.0);
                    return float4(m * ((float4(a) + b + d) / 3.0).rgb, ((float4(a) + b + d) / 3.0).a);
                }
            }}
            """
        let kernels = try CIKernel.kernels(withMetalString: source)
        #expect(kernels.map(\.name) == ["desaturate", "flip", "blur3"])
        let pixels = testPixels(seed: 11)
        let desat = try #require(kernels[0] as? CIColorKernel)
        let d = try values(try #require(desat.apply(extent: rect, arguments: [image(pixels), 0.6])), rect)
        for i in 0..<(W * H) {
            let p = SIMD4<Double>(pixels[i]), l = lumaD(p)
            #expect(near(d[i], SIMD4(p.x + (l - p.x) * 0.6, p.y + (l - p.y) * 0.6, p.z + (l - p.z) * 0.6, p.w)))
        }
        let flip = try #require(kernels[1] as? CIWarpKernel)
        let flipped = flip.apply(extent: rect, roiCallback: { _, _ in rect }, image: image(pixels), arguments: [Double(H)])
        let f = try values(try #require(flipped), rect)
        for y in 0..<H { for x in 0..<W { #expect(near(f[y * W + x], SIMD4<Double>(pixels[(H - 1 - y) * W + x]))) } }
        let blur = kernels[2]
        let blurred = blur.apply(extent: rect, roiCallback: { _, r in r.insetBy(dx: -1, dy: 0) }, arguments: [image(pixels).clampedToExtent()])
        let b = try values(try #require(blurred), rect)
        for y in 0..<H {
            for x in 0..<W {
                let s = SIMD4<Double>(pixels[y * W + max(x - 1, 0)]) + SIMD4<Double>(pixels[y * W + x]) + SIMD4<Double>(pixels[y * W + min(x + 1, W - 1)])
                #expect(near(b[y * W + x], s / 3))
            }
        }
    }

    @Test func metalLibraryDataIsATypedError() {
        #expect(throws: CIKernelError.metalLibraryUnsupported(functionName: "myKernel")) {
            _ = try CIColorKernel(functionName: "myKernel", fromMetalLibraryData: Data([0x4D, 0x54, 0x4C, 0x42]))
        }
        #expect(throws: CIKernelError.self) { _ = try CIKernel(functionName: "k", fromMetalLibraryData: Data()) }
        #expect(throws: CIKernelError.self) { _ = try CIKernel.kernels(withMetalString: "float4 f(") }
    }

    /// Syntax and type errors give nil, and the message names the line and column.
    @Test(arguments: [
        ("kernel vec4 k(__sample s) { return s }", 1, 38),
        ("kernel vec4 k(__sample s) {\n  return vec3(s.rgb);\n}", 2, 10),
        ("kernel vec4 k(__sample s) {\n  float x = y;\n  return s;\n}", 2, 13),
        ("kernel vec4 k(__sample s) { return s.rgbx; }", 1, 37),
        ("kernel vec4 k(__sample s) { return frobnicate(s); }", 1, 36),
        ("float f(float x) { return f(x); }\nkernel vec4 k(__sample s) { return vec4(f(s.r)); }", 1, 27),
        ("kernel vec4 k(__sample s, sampler t) { return s; }", 1, 8),
        ("kernel vec4 k(__sample s) { return s; ", 1, 39),
        ("kernel float k(__sample s) { return s.r; }", 1, 8),
    ])
    func errorsGiveNilWithLineAndColumn(_ c: (String, Int, Int)) {
        #expect(CIKernel.kernels(withString: c.0) == nil)
        #expect(CIColorKernel(source: c.0) == nil)
        do {
            _ = try KernelCompiler.compile(c.0, dialect: .ciKernelLanguage)
            Issue.record("compiled: \(c.0)")
        } catch let e as KernelSourceError {
            #expect(e.location == SourceLocation(line: c.1, column: c.2), "\(e)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func samplerExtentSizeAndTables() throws {
        let source = """
            kernel vec4 k(__table sampler t, sampler s) {
                vec4 e = samplerExtent(s);
                vec2 z = samplerSize(s);
                vec2 o = samplerOrigin(t);
                return vec4(e.x + o.x, e.y + o.y, e.z + z.x, e.w + z.y) + 0.0 * sample(t, samplerCoord(t));
            }
            """
        let k = try #require(CIKernel(source: source))
        let table = image(testPixels(seed: 4)).transformed(by: CGAffineTransform(translationX: 3, y: 2))
        let s = image(testPixels(seed: 6))
        let applied = k.apply(extent: rect, roiCallback: { _, r in r }, arguments: [table, s])
        let got = try values(try #require(applied), rect)
        #expect(got.allSatisfy { near($0, SIMD4(3, 2, Double(2 * W), Double(2 * H))) })
    }

    @Test func deepNestingIsRefusedNotACrash() {
        let deep = "kernel vec4 k(__sample s) { return " + String(repeating: "(", count: 50_000) + "s" + String(repeating: ")", count: 50_000) + "; }"
        #expect(CIColorKernel(source: deep) == nil)
        let negations = "kernel vec4 k(__sample s) { return " + String(repeating: "-", count: 50_000) + "s; }"
        #expect(CIColorKernel(source: negations) == nil)
        let blocks = "kernel vec4 k(__sample s) " + String(repeating: "{", count: 50_000) + "return s;" + String(repeating: "}", count: 50_000)
        #expect(CIColorKernel(source: blocks) == nil)
    }

    @Test func wrongArgumentsGiveNil() throws {
        let k = try #require(CIColorKernel(source: "kernel vec4 k(__sample s, float a) { return s * a; }"))
        let img = image(testPixels(seed: 3))
        #expect(k.apply(extent: rect, arguments: [img]) == nil)
        #expect(k.apply(extent: rect, arguments: [img, "half"]) == nil)
        #expect(k.apply(extent: rect, arguments: [0.5, img]) == nil)
        #expect(k.apply(extent: rect, arguments: [img, NSNumber(value: 0.5)]) != nil)
    }

    /// Seeded random mutations of valid sources: compiling never crashes, and what compiles runs.
    @Test func fuzzedSourcesNeverCrash() throws {
        let seeds =
            colorCases.map(\.source) + [
                "kernel vec2 w(float a) { vec2 d = destCoord(); return d * a; }",
                "kernel vec4 g(sampler s) { vec4 t = vec4(0.0); for (int i = 0; i < 3; i++) { t += sample(s, samplerCoord(s) + vec2(float(i), 0.0)); } return t / 3.0; }",
            ]
        let alphabet = Array("(){};,.+-*/<>=!?:0123456789abcdefghijklmnopqrstuvwxyz_ \n\"#[]&|vec4float")
        var state: UInt64 = 2024
        func rand(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(max(1, n)))
        }
        let img = image(testPixels(seed: 5))
        let small = CGRect(x: 0, y: 0, width: 4, height: 2)
        var compiled = 0
        for _ in 0..<1500 {
            var chars = Array(seeds[rand(seeds.count)])
            for _ in 0..<(1 + rand(3)) {
                guard !chars.isEmpty else { break }
                let at = rand(chars.count)
                switch rand(3) {
                case 0: chars.remove(at: at)
                case 1: chars.insert(alphabet[rand(alphabet.count)], at: at)
                default: chars[at] = alphabet[rand(alphabet.count)]
                }
            }
            let source = String(chars)
            guard let kernels = try? KernelCompiler.compile(source, dialect: rand(2) == 0 ? .ciKernelLanguage : .metal) else { continue }
            compiled += 1
            for k in kernels {
                let args: [Any] = k.arguments.compactMap { a -> Any? in
                    switch a.kind {
                    case .image: return img
                    case .number(let w, _): return w == 1 ? 0.5 as Any : CIVector(values: Array(repeating: 0.5, count: w))
                    case .color: return CIColor(red: 0.5, green: 0.5, blue: 0.5)
                    case .destination: return nil
                    }
                }
                let kernel = CIKernel.make(k)
                let out: CIImage?
                if let w = kernel as? CIWarpKernel {
                    out = w.apply(extent: small, roiCallback: { _, r in r }, image: img, arguments: args)
                } else {
                    out = kernel.apply(extent: small, roiCallback: { _, r in r.insetBy(dx: -2, dy: -2) }, arguments: args)
                }
                if let out { _ = try? values(out, small) }
            }
        }
        #expect(compiled > 10)
    }

    /// Prints the speed of a CIKL colour kernel against the same maths as a Swift closure (no
    /// assertion on time: the numbers are for the README).
    @Test func speedPrintout() throws {
        let size = 512
        let pixels = (0..<(size * size)).map { i in SIMD4<Float>(Float(i % 97) / 200, 0.3, 0.2, 0.9) }
        var topDown = pixels
        topDown.reverse()
        let data = topDown.withUnsafeBytes { Data($0) }
        let img = CIImage(bitmapData: data, bytesPerRow: size * 16, size: CGSize(width: size, height: size), format: .RGBAf, colorSpace: rawSpace)
        let cikl = try #require(CIColorKernel(source: "kernel vec4 k(__sample s, float a) { return vec4(s.rgb * a, s.a); }"))
        let closure = CIColorKernel(name: "scale") { row in
            for i in row.output.indices {
                let p = row.output[i]
                row.output[i] = SIMD4(p.x * 0.7, p.y * 0.7, p.z * 0.7, p.w)
            }
        }
        let r = CGRect(x: 0, y: 0, width: size, height: size)
        let a = try #require(cikl.apply(extent: r, arguments: [img, 0.7]))
        let b = try #require(closure.apply(extent: r, arguments: [img]))
        // Alternating runs, the best of each (the machine is shared).
        var tc = Double.infinity, ts = Double.infinity
        for _ in 0..<9 {
            for (image, isSource) in [(a, true), (b, false)] {
                let t = Date()
                _ = try rawContext.renderToData(image, from: r, format: .RGBAf)
                let dt = Date().timeIntervalSince(t)
                if isSource { tc = min(tc, dt) } else { ts = min(ts, dt) }
            }
        }
        print(
            "kernel speed: CIKL \(String(format: "%.2f", tc * 1000)) ms, Swift closure \(String(format: "%.2f", ts * 1000)) ms, CIKL/closure speed \(String(format: "%.2f", ts / tc)) (\(size)x\(size) RGBAf)"
        )
        #expect(try values(a, CGRect(x: 0, y: 0, width: 8, height: 1)) == values(b, CGRect(x: 0, y: 0, width: 8, height: 1)))
    }
}
