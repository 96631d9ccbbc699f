import Foundation
import Testing
@testable import Cyanotype

// Synthetic scenes for the CIDetector tests (every value from a seeded generator), and the
// independent programs they are checked against: zbarimg (QR), tesseract (text), OpenCV's
// CascadeClassifier from Python (faces).

/// The detector scenes draw from the tests' seeded `SplitMix` (LUTSupport.swift), with
/// 53-bit doubles, so every scene is the same on every run.
extension SplitMix {
    /// Uniform in 0..<1, 53 bits.
    mutating func unitDouble() -> Double { Double(next() >> 11) / Double(1 << 53) }
    /// Roughly normal (sum of four uniforms), mean 0, standard deviation `sigma`.
    mutating func gaussian(_ sigma: Double) -> Double {
        ((unitDouble() + unitDouble() + unitDouble() + unitDouble()) - 2) * sigma * 1.732
    }
}

/// A photo-like grey background (a soft gradient, blotches and fine texture), `width` x
/// `height` grey levels, top row first.
func texturedBackground(width: Int, height: Int, seed: UInt64, base: Double = 80, spread: Double = 40) -> [Double] {
    var rng = SplitMix(seed)
    let blobs = (0..<12).map { _ in (rng.unitDouble() * Double(width), rng.unitDouble() * Double(height), 20 + rng.unitDouble() * 80, rng.gaussian(spread)) }
    var out = [Double](repeating: 0, count: width * height)
    for y in 0..<height {
        for x in 0..<width {
            var v = base + spread * 0.5 * (Double(x) / Double(width) - Double(y) / Double(height))
            for b in blobs {
                let dx = Double(x) - b.0, dy = Double(y) - b.1
                v += b.3 * exp(-(dx * dx + dy * dy) / (2 * b.2 * b.2))
            }
            v += 12 * sin(Double(x) * 0.31 + Double(y) * 0.17) * sin(Double(y) * 0.23)
            out[y * width + x] = v
        }
    }
    return out
}

/// Whether (x, y) lies inside the convex polygon `p` (any winding).
func insideConvex(_ x: Double, _ y: Double, _ p: [CGPoint]) -> Bool {
    var sign = 0.0
    for i in p.indices {
        let a = p[i], b = p[(i + 1) % p.count]
        let c = (b.x - a.x) * (y - a.y) - (b.y - a.y) * (x - a.x)
        if c != 0 {
            if sign == 0 { sign = c } else if (c > 0) != (sign > 0) { return false }
        }
    }
    return true
}

/// `grey` (levels 0...255 per pixel, top row first) with seeded noise, as an opaque sRGB image.
func greyImage(_ grey: [Double], width: Int, height: Int, noise: Double, seed: UInt64) -> CIImage {
    var rng = SplitMix(seed)
    var rgba = [UInt8](repeating: 255, count: width * height * 4)
    for i in 0..<(width * height) {
        let v = UInt8(max(0, min(255, (grey[i] + rng.gaussian(noise)).rounded())))
        rgba[i * 4] = v
        rgba[i * 4 + 1] = v
        rgba[i * 4 + 2] = v
    }
    return image(rgba, width, height)
}

/// The first of `paths` that is an executable file.
func firstExecutable(_ paths: [String]) -> String? {
    paths.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// A scratch PNG path (the caller removes it).
func scratchPNG(_ name: String) -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-detector-\(name)-\(UUID().uuidString).png")
}

/// Writes `img` (its extent) as an sRGB PNG.
func writeTestPNG(_ img: CIImage, to url: URL) throws {
    try CIContext().writePNGRepresentation(of: img, to: url, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!)
}

/// The distance between two points.
func distance(_ a: CGPoint, _ b: CGPoint) -> Double { hypot(a.x - b.x, a.y - b.y) }

/// The projective map taking the unit square's corners (0,0), (1,0), (1,1), (0,1) to `p[0]`
/// ... `p[3]` (Heckbert's square-to-quadrilateral), as a 3x3 matrix, row-major.
func squareToQuad(_ p: [CGPoint]) -> [Double] {
    let (x0, y0, x1, y1, x2, y2, x3, y3) = (p[0].x, p[0].y, p[1].x, p[1].y, p[2].x, p[2].y, p[3].x, p[3].y)
    let dx1 = x1 - x2, dx2 = x3 - x2, dx3 = x0 - x1 + x2 - x3
    let dy1 = y1 - y2, dy2 = y3 - y2, dy3 = y0 - y1 + y2 - y3
    let den = dx1 * dy2 - dx2 * dy1
    let g = (dx3 * dy2 - dx2 * dy3) / den, h = (dx1 * dy3 - dx3 * dy1) / den
    return [x1 - x0 + g * x1, x3 - x0 + h * x3, x0, y1 - y0 + g * y1, y3 - y0 + h * y3, y0, g, h, 1]
}

/// The inverse of a 3x3 matrix (row-major), by its adjugate.
func inverse3(_ m: [Double]) -> [Double] {
    let (a, b, c, d, e, f, g, h, i) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
    let A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g
    let det = a * A + b * B + c * C
    return [A, -(b * i - c * h), b * f - c * e, B, a * i - c * g, -(a * f - c * d), C, -(a * h - b * g), a * e - b * d].map { $0 / det }
}

/// `m` applied to (x, y) with the projective divide.
func project(_ m: [Double], _ x: Double, _ y: Double) -> (Double, Double) {
    let w = m[6] * x + m[7] * y + m[8]
    return ((m[0] * x + m[1] * y + m[2]) / w, (m[3] * x + m[4] * y + m[5]) / w)
}

/// Draws into `grey` (top row first) the picture `value(u, v)` (u, v in 0..<1 across the
/// unit square, v down; nil outside what it paints) seen through the map taking the square to
/// `corners` (raster points, y down: top-left, top-right, bottom-right, bottom-left), with
/// `samples` x `samples` supersampling at edges.
func drawWarped(_ grey: inout [Double], width: Int, height: Int, corners: [CGPoint], samples: Int = 3, value: (Double, Double) -> Double?) {
    let inv = inverse3(squareToQuad(corners))
    for y in 0..<height {
        for x in 0..<width {
            var total = 0.0
            var painted = 0
            for sy in 0..<samples {
                for sx in 0..<samples {
                    let (u, v) = project(inv, Double(x) + (Double(sx) + 0.5) / Double(samples), Double(y) + (Double(sy) + 0.5) / Double(samples))
                    if let g = value(u, v) { total += g; painted += 1 }
                }
            }
            guard painted > 0 else { continue }
            let n = Double(samples * samples)
            grey[y * width + x] = grey[y * width + x] * (n - Double(painted)) / n + total / n
        }
    }
}

/// `grey` blurred by a separable box of radius `r`, twice (about a Gaussian of sigma ~ r).
func blurred(_ grey: [Double], width: Int, height: Int, radius r: Int) -> [Double] {
    var a = grey
    for _ in 0..<2 {
        var b = a
        for y in 0..<height {
            for x in 0..<width {
                var s = 0.0
                for k in -r...r { s += a[y * width + min(max(x + k, 0), width - 1)] }
                b[y * width + x] = s / Double(2 * r + 1)
            }
        }
        for y in 0..<height {
            for x in 0..<width {
                var s = 0.0
                for k in -r...r { s += b[min(max(y + k, 0), height - 1) * width + x] }
                a[y * width + x] = s / Double(2 * r + 1)
            }
        }
    }
    return a
}

/// The modules of a QR code from `CIQRCodeGenerator` (true: dark), its quiet zone included,
/// read from its one-pixel-per-module rendering.
func qrModules(_ message: String, level: String = "M") throws -> [[Bool]] {
    let f = try #require(CIFilter(name: "CIQRCodeGenerator"))
    f.setValue(Data(message.utf8), forKey: "inputMessage")
    f.setValue(level, forKey: "inputCorrectionLevel")
    let out = try #require(f.outputImage)
    let n = Int(out.extent.width)
    let px = try render8(out, out.extent)
    return (0..<n).map { y in (0..<n).map { x in px[(y * n + x) * 4] < 128 } }
}
