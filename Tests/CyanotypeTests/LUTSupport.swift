import Foundation
import Testing
@testable import Cyanotype

// Helpers for the LUT tests: fixtures, encoded-space rendering, and independent reference
// interpolations written from lut_conventions.md §4 (not from the code under test).

enum LUTFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static var identity64Tiles: URL { directory.appendingPathComponent("identity_64_tiles.png") }
    static var lutC: URL { directory.appendingPathComponent("lutC_2.cube") }
    static var specJSON: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("spec/coreimage-filters.json")
    }
}

/// Renders to straight float RGBA in (extended) sRGB encoding: the space LUTs are authored in.
let encodedContext = CIContext(options: [.outputColorSpace: CGColorSpace(name: CGColorSpace.extendedSRGB)!, .outputPremultiplied: false, .cacheIntermediates: false])

func renderEncoded(_ img: CIImage, context: CIContext = encodedContext) throws -> [SIMD4<Float>] {
    try renderFloat(img, img.extent, context: context)
}

/// An image whose pixels have the given sRGB-encoded colours (opaque), `width` wide.
func encodedImage(_ colors: [SIMD3<Float>], width: Int) -> CIImage {
    let h = (colors.count + width - 1) / width
    var px = [SIMD4<Float>](repeating: SIMD4(0, 0, 0, 1), count: width * h)
    for (i, c) in colors.enumerated() { px[i] = SIMD4(c, 1) }
    return CIImage(
        unpremultipliedBitmapData: px.withUnsafeBytes { Data($0) }, bytesPerRow: width * 16,
        size: CGSize(width: width, height: h), format: .RGBAf, colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
}

/// Deterministic colours in 0...1: the cube's corners, edges, grey axis and pseudo-random points.
func sampleColors(_ count: Int = 200, seed: UInt64 = 7) -> [SIMD3<Float>] {
    var out: [SIMD3<Float>] = []
    for b in [0, 0.5, 1] as [Float] { for g in [0, 0.5, 1] as [Float] { for r in [0, 0.5, 1] as [Float] { out.append(SIMD3(r, g, b)) } } }
    for k in 0...10 { let v = Float(k) / 10; out.append(SIMD3(v, v, v)) }
    var rng = SplitMix(seed)
    while out.count < count { out.append(SIMD3(rng.unit(), rng.unit(), rng.unit())) }
    return out
}

/// A seeded generator (SplitMix64): tests that draw numbers draw the same ones every run.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(_ seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func unit() -> Float { Float(next() >> 40) / Float(1 << 24) }
    mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

/// A table as nested Doubles: t[b][g][r] = [R, G, B].
struct RefTable {
    let n: Int
    let t: [[[[Double]]]]
    init(_ lut: LUT) {
        let n = lut.size
        self.n = n
        t = (0..<n).map { b in
            (0..<n).map { g in
                (0..<n).map { r in
                    let e = lut[r, g, b]; return [Double(e.x), Double(e.y), Double(e.z)]
                }
            }
        }
    }
    func cell(_ c: [Double]) -> (i: [Int], f: [Double]) {
        var i = [0, 0, 0], f = [0.0, 0.0, 0.0]
        for k in 0..<3 {
            let x = min(max(c[k], 0), 1) * Double(n - 1)
            i[k] = min(Int(x.rounded(.down)), n - 2)
            f[k] = x - Double(i[k])
        }
        return (i, f)
    }
    /// c_abc: offsets a in red, b in green, c in blue.
    func corner(_ i: [Int], _ a: Int, _ b: Int, _ c: Int) -> [Double] { t[i[2] + c][i[1] + b][i[0] + a] }

    func trilinear(_ c: [Double]) -> [Double] {
        let (i, f) = cell(c)
        var out = [0.0, 0.0, 0.0]
        for a in 0...1 {
            for b in 0...1 {
                for cc in 0...1 {
                    let w = (a == 1 ? f[0] : 1 - f[0]) * (b == 1 ? f[1] : 1 - f[1]) * (cc == 1 ? f[2] : 1 - f[2])
                    let v = corner(i, a, b, cc)
                    for k in 0..<3 { out[k] += w * v[k] }
                }
            }
        }
        return out
    }

    func tetrahedral(_ c: [Double]) -> [Double] {
        let (i, f) = cell(c)
        let (fr, fg, fb) = (f[0], f[1], f[2])
        let c000 = corner(i, 0, 0, 0), c111 = corner(i, 1, 1, 1)
        var terms: [(Double, [Double])]
        if fr > fg && fg > fb {
            terms = [(1 - fr, c000), (fr - fg, corner(i, 1, 0, 0)), (fg - fb, corner(i, 1, 1, 0)), (fb, c111)]
        } else if fr > fb && fb >= fg {
            terms = [(1 - fr, c000), (fr - fb, corner(i, 1, 0, 0)), (fb - fg, corner(i, 1, 0, 1)), (fg, c111)]
        } else if fb >= fr && fr > fg {
            terms = [(1 - fb, c000), (fb - fr, corner(i, 0, 0, 1)), (fr - fg, corner(i, 1, 0, 1)), (fg, c111)]
        } else if fb > fg {
            terms = [(1 - fb, c000), (fb - fg, corner(i, 0, 0, 1)), (fg - fr, corner(i, 0, 1, 1)), (fr, c111)]
        } else if fb > fr {
            terms = [(1 - fg, c000), (fg - fb, corner(i, 0, 1, 0)), (fb - fr, corner(i, 0, 1, 1)), (fr, c111)]
        } else {
            terms = [(1 - fg, c000), (fg - fr, corner(i, 0, 1, 0)), (fr - fb, corner(i, 1, 1, 0)), (fb, c111)]
        }
        var out = [0.0, 0.0, 0.0]
        for (w, v) in terms { for k in 0..<3 { out[k] += w * v[k] } }
        return out
    }
}

func maxDiff(_ a: [SIMD4<Float>], _ b: [SIMD4<Float>]) -> Float {
    var m: Float = 0
    for i in 0..<min(a.count, b.count) { for k in 0..<3 { m = max(m, abs(a[i][k] - b[i][k])) } }
    return a.count == b.count ? m : .infinity
}

/// A LUT whose entries are k/255 (so 8-bit PNGs hold it exactly), from a smooth formula.
func quantizedLUT(size: Int) throws -> LUT {
    try LUT.make(size: size, title: nil) { c in
        let v = SIMD3(c.x * c.x * 0.9 + 0.05 * c.z, 0.2 + 0.7 * c.y * (1 - 0.3 * c.x), 1 - 0.8 * c.z + 0.1 * c.y * c.x)
        let c = SIMD3(min(max(v.x, 0), 1), min(max(v.y, 0), 1), min(max(v.z, 0), 1))
        return SIMD3((c.x * 255).rounded() / 255, (c.y * 255).rounded() / 255, (c.z * 255).rounded() / 255)
    }
}
