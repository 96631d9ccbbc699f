import Foundation
import Testing
@testable import Cyanotype

// Shared by the geometry, stylize and transition catalogue tests: a test picture with a
// scalar bilinear sampler, an 8x8 homography solve, renders and the checks every new filter
// gets (tiled equals whole, a small crop reads a small part of the source).

/// A test picture of `w` x `h` straight sRGB RGBA8 pixels, read back as premultiplied linear
/// values and sampled bilinearly in the test (pixel centres at +0.5, y up).
struct TestPicture {
    let w: Int, h: Int
    let pixels: [UInt8]

    init(_ w: Int, _ h: Int, alpha: Bool = true, pixels: [UInt8]? = nil) {
        self.w = w; self.h = h
        self.pixels = pixels ?? testPixels(width: w, height: h, alpha: alpha)
    }
    var image: CIImage { CyanotypeTests.image(pixels, w, h) }
    var extent: CGRect { CGRect(x: 0, y: 0, width: w, height: h) }

    /// Premultiplied linear pixel (x, y up); nil outside.
    func premul(_ x: Int, _ y: Int) -> [Double]? {
        guard x >= 0, x < w, y >= 0, y < h else { return nil }
        let p = linearPixel(pixels, w, x, h - 1 - y)
        return [p[0] * p[3], p[1] * p[3], p[2] * p[3], p[3]]
    }
    enum Edge { case clear, wrap }
    func sample(_ u: Double, _ v: Double, _ edge: Edge = .clear) -> [Double] {
        let su = u - 0.5, sv = v - 0.5
        let x0 = Int(floor(su)), y0 = Int(floor(sv))
        let tx = su - floor(su), ty = sv - floor(sv)
        var o = [0.0, 0, 0, 0]
        for (dx, dy, k) in [(0, 0, (1 - tx) * (1 - ty)), (1, 0, tx * (1 - ty)), (0, 1, (1 - tx) * ty), (1, 1, tx * ty)] {
            let x = x0 + dx, y = y0 + dy
            let p = edge == .wrap ? premul(((x % w) + w) % w, ((y % h) + h) % h)! : (premul(x, y) ?? [0, 0, 0, 0])
            for c in 0..<4 { o[c] += p[c] * k }
        }
        return o
    }
}

/// The homography (row-major 3x3, h33 = 1) taking the four points `from` to `to`, by
/// Gauss-Jordan elimination of the 8x8 system.
func solvedHomography(from: [(Double, Double)], to: [(Double, Double)]) -> [Double] {
    var a = [[Double]](repeating: [Double](repeating: 0, count: 9), count: 8)
    for k in 0..<4 {
        let (x, y) = from[k], (u, v) = to[k]
        a[2 * k] = [x, y, 1, 0, 0, 0, -x * u, -y * u, u]
        a[2 * k + 1] = [0, 0, 0, x, y, 1, -x * v, -y * v, v]
    }
    for c in 0..<8 {
        let p = (c..<8).max { abs(a[$0][c]) < abs(a[$1][c]) }!
        a.swapAt(c, p)
        for r in 0..<8 where r != c {
            let f = a[r][c] / a[c][c]
            for k in c..<9 { a[r][k] -= f * a[c][k] }
        }
    }
    return (0..<8).map { a[$0][8] / a[$0][$0] } + [1]
}

/// (x, y) through a row-major homography: the point and w.
func mapped(_ m: [Double], _ x: Double, _ y: Double) -> (Double, Double, Double) {
    let w = m[6] * x + m[7] * y + m[8]
    return ((m[0] * x + m[1] * y + m[2]) / w, (m[3] * x + m[4] * y + m[5]) / w, w)
}

/// The inverse of a row-major 3x3 (adjugate over determinant).
func inverted3(_ m: [Double]) -> [Double] {
    let (a, b, c, d, e, f, g, h, i) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
    let det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    return [
        (e * i - f * h) / det, (c * h - b * i) / det, (b * f - c * e) / det,
        (f * g - d * i) / det, (a * i - c * g) / det, (c * d - a * f) / det,
        (d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det,
    ]
}

/// Premultiplied linear float render of `rect`, rows top-down.
func renderPremultiplied(_ img: CIImage, _ rect: CGRect, tile: Int = 4096) throws -> [SIMD4<Float>] {
    let ctx = CIContext(options: [.tileSize: tile, .outputColorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!, .cacheIntermediates: false])
    let d = try ctx.renderToData(img, from: rect, format: .RGBAf, premultiplied: true).data
    return d.withUnsafeBytes { Array($0.bindMemory(to: SIMD4<Float>.self)) }
}

/// Compares every pixel of `rect` with `reference(x + 0.5, y + 0.5)` (premultiplied linear;
/// nil skips the pixel).
func expectMatches(
    _ img: CIImage, _ rect: CGRect, _ what: String, tol: Double = 2e-4,
    _ reference: (Double, Double) -> [Double]?
) throws {
    let got = try renderPremultiplied(img, rect)
    let W = Int(rect.width), H = Int(rect.height)
    var bad = 0
    for j in 0..<H {
        for i in 0..<W {
            let x = Double(Int(rect.minX) + i) + 0.5, y = Double(Int(rect.minY) + j) + 0.5
            guard let e = reference(x, y) else { continue }
            let g = got[(H - 1 - j) * W + i]
            if (0..<4).contains(where: { !(abs(Double(g[$0]) - e[$0]) <= tol) }) {
                bad += 1
                if bad <= 3 { Issue.record("\(what) at \(x),\(y): got \(g) expected \(e)") }
            }
        }
    }
    #expect(bad == 0, "\(what): \(bad) pixels differ")
}

/// Tiles of 3, 5 and 7 pixels render `rect` bit for bit as one tile does (float).
func expectTiledEqualsWhole(_ img: CIImage, _ rect: CGRect, _ what: String) throws {
    let whole = try renderPremultiplied(img, rect)
    for t in [3, 5, 7] {
        let tiled = try renderPremultiplied(img, rect, tile: t)
        let same = zip(whole, tiled).allSatisfy { a, b in (0..<4).allSatisfy { a[$0].bitPattern == b[$0].bitPattern } }
        #expect(same, "\(what): tile \(t) differs from the whole render")
    }
}

/// Source pixels read to render `rect` of `img`.
func sourcePixelsRead(_ img: CIImage, _ rect: CGRect) throws -> Int {
    let ctx = CIContext(options: [.cacheIntermediates: false])
    _ = try ctx.renderToData(img, from: rect, format: .RGBA8)
    return ctx.lastRenderStatistics.sourcePixels
}

/// A second picture: other gradients, alpha 40% to 100%.
func secondPicture(_ w: Int, _ h: Int) -> TestPicture {
    var p = [UInt8](repeating: 0, count: w * h * 4)
    for y in 0..<h {
        for x in 0..<w {
            let i = (y * w + x) * 4
            p[i] = UInt8(255 - (y * 255) / max(1, h - 1)); p[i + 1] = UInt8((x * 9 + y * 5) % 256)
            p[i + 2] = UInt8((x * 255) / max(1, w - 1)); p[i + 3] = UInt8(100 + (x * 7 + y * 3) % 156)
        }
    }
    return TestPicture(w, h, pixels: p)
}
