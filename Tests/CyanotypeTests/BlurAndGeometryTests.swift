import Foundation
import Testing
@testable import Cyanotype

/// Neighbourhood and geometry filters against direct references computed in the test.
@Suite struct BlurAndGeometryTests {
    let w = 21, h = 17
    var pixels: [UInt8] { testPixels(width: w, height: h, alpha: true) }
    var input: CIImage { image(pixels, w, h) }

    /// Premultiplied linear pixel at (x, yUp), clear outside the image.
    func premul(_ x: Int, _ yUp: Int) -> [Double] {
        guard x >= 0, x < w, yUp >= 0, yUp < h else { return [0, 0, 0, 0] }
        let p = linearPixel(pixels, w, x, h - 1 - yUp)
        return [p[0] * p[3], p[1] * p[3], p[2] * p[3], p[3]]
    }
    func straight(_ p: [Double]) -> [Double] { p[3] > 0 ? [p[0] / p[3], p[1] / p[3], p[2] / p[3], p[3]] : [0, 0, 0, 0] }

    @Test func gaussianBlurIsATrueGaussian() throws {
        let sigma = 1.7
        let r = Int((3 * sigma).rounded(.up))
        var wts = (-r...r).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = wts.reduce(0, +); wts = wts.map { $0 / total }
        let out = input.applyingFilter("CIGaussianBlur", parameters: [kCIInputRadiusKey: sigma])
        #expect(out.extent == CGRect(x: -r, y: -r, width: w + 2 * r, height: h + 2 * r))
        let rect = CGRect(x: -3, y: -2, width: w + 6, height: h + 4)
        let got = try renderFloat(out, rect)
        for (x, yUp) in [(0, 0), (10, 8), (20, 16), (-2, 5), (7, -1), (15, 3)] {
            var acc = [0.0, 0, 0, 0]
            for j in -r...r {
                for i in -r...r {
                    let p = premul(x + i, yUp + j)
                    for k in 0..<4 { acc[k] += p[k] * wts[i + r] * wts[j + r] }
                }
            }
            let row = Int(rect.maxY) - 1 - yUp, col = x - Int(rect.minX)
            #expect(close(got[row * Int(rect.width) + col], straight(acc), tol: 1e-4, "at \(x),\(yUp)"))
        }
    }

    @Test func boxBlurIsTheMean() throws {
        let out = input.applyingFilter("CIBoxBlur", parameters: [kCIInputRadiusKey: 2])
        let got = try renderFloat(out, CGRect(x: 0, y: 0, width: w, height: h))
        for (x, yUp) in [(0, 0), (10, 8), (20, 16), (5, 12)] {
            var acc = [0.0, 0, 0, 0]
            for j in -2...2 { for i in -2...2 { let p = premul(x + i, yUp + j); for k in 0..<4 { acc[k] += p[k] / 25 } } }
            #expect(close(got[(h - 1 - yUp) * w + x], straight(acc), tol: 1e-4))
        }
    }

    @Test func unsharpMaskAddsTheDetail() throws {
        let sigma = 1.0, k = 0.8
        let r = 3
        var wts = (-r...r).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = wts.reduce(0, +); wts = wts.map { $0 / total }
        let out = input.applyingFilter("CIUnsharpMask", parameters: [kCIInputRadiusKey: sigma, kCIInputIntensityKey: k])
        #expect(out.extent == input.extent)
        let got = try renderFloat(out, input.extent)
        for (x, yUp) in [(10, 8), (3, 3), (0, 16)] {
            var blur = [0.0, 0, 0, 0]
            for j in -r...r { for i in -r...r { let p = premul(x + i, yUp + j); for c in 0..<4 { blur[c] += p[c] * wts[i + r] * wts[j + r] } } }
            let p = premul(x, yUp)
            var o = (0..<4).map { p[$0] + (p[$0] - blur[$0]) * k }
            o[3] = p[3]
            #expect(close(got[(h - 1 - yUp) * w + x], straight(o), tol: 2e-4))
        }
    }

    @Test func integerTranslationIsExact() throws {
        let out = input.transformed(by: CGAffineTransform(translationX: 3, y: -2))
        #expect(out.extent == CGRect(x: 3, y: -2, width: w, height: h))
        let a = try render8(input, input.extent), b = try render8(out, out.extent)
        #expect(a == b)
    }

    @Test func fractionalTranslationIsBilinear() throws {
        let out = input.transformed(by: CGAffineTransform(translationX: 0.25, y: 0.5))
        let got = try renderFloat(out, CGRect(x: 0, y: 0, width: w, height: h))
        for (x, yUp) in [(5, 5), (0, 0), (12, 9)] {
            // Output centre (x+.5, y+.5) reads source point (x+.25, y): between x-1..x and y-1..y centres.
            let sx = Double(x) + 0.25 - 0.5, sy = Double(yUp) - 0.5
            let x0 = Int(sx.rounded(.down)), y0 = Int(sy.rounded(.down))
            let fx = sx - Double(x0), fy = sy - Double(y0)
            var o = [0.0, 0, 0, 0]
            for k in 0..<4 {
                let top = premul(x0, y0)[k] * (1 - fx) + premul(x0 + 1, y0)[k] * fx
                let bottom = premul(x0, y0 + 1)[k] * (1 - fx) + premul(x0 + 1, y0 + 1)[k] * fx
                o[k] = top * (1 - fy) + bottom * fy
            }
            #expect(close(got[(h - 1 - yUp) * w + x], straight(o), tol: 1e-4, "at \(x),\(yUp)"))
        }
    }

    @Test func scaledAndMirroredTransformsAreBilinear() throws {
        // Axis-aligned maps (the per-tile column/row weight tables) against the formula.
        for t in [CGAffineTransform(a: 1.5, b: 0, c: 0, d: 1.5, tx: 0.3, ty: -0.2), CGAffineTransform(a: -0.75, b: 0, c: 0, d: 1.25, tx: 20, ty: 1)] {
            let out = input.transformed(by: t)
            let e = out.extent.integral
            let got = try renderFloat(out, e)
            let inv = t.inverted()
            let ew = Int(e.width), eh = Int(e.height)
            for (x, yUp) in [(0, 0), (3, 4), (ew - 1, eh - 1), (ew / 2, eh / 3)] {
                let px = Double(e.minX) + Double(x) + 0.5, py = Double(e.minY) + Double(yUp) + 0.5
                let sx = Double(inv.a) * px + Double(inv.tx) - 0.5, sy = Double(inv.d) * py + Double(inv.ty) - 0.5
                let x0 = Int(sx.rounded(.down)), y0 = Int(sy.rounded(.down))
                let fx = sx - Double(x0), fy = sy - Double(y0)
                var o = [0.0, 0, 0, 0]
                for k in 0..<4 {
                    let top = premul(x0, y0)[k] * (1 - fx) + premul(x0 + 1, y0)[k] * fx
                    let bottom = premul(x0, y0 + 1)[k] * (1 - fx) + premul(x0 + 1, y0 + 1)[k] * fx
                    o[k] = top * (1 - fy) + bottom * fy
                }
                #expect(close(got[(eh - 1 - yUp) * ew + x], straight(o), tol: 1e-4, "\(t) at \(x),\(yUp)"))
            }
            let tiled = try renderFloat(
                out, e, context: CIContext(options: [.tileSize: 5, .outputColorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!, .outputPremultiplied: false]))
            #expect(tiled == got)
        }
    }

    @Test func orientationsMoveTheCornersWhereExifSays() throws {
        // A 3x2 image with distinct pixels; expected layouts from the EXIF definitions (rows top-down).
        let src: [UInt8] = (0..<6).flatMap { [UInt8($0 * 40), 0, 0, 255] }
        let img = image(src, 3, 2)
        let layouts: [CGImagePropertyOrientation: (Int, Int, [Int])] = [
            .up: (3, 2, [0, 1, 2, 3, 4, 5]),
            .upMirrored: (3, 2, [2, 1, 0, 5, 4, 3]),
            .down: (3, 2, [5, 4, 3, 2, 1, 0]),
            .downMirrored: (3, 2, [3, 4, 5, 0, 1, 2]),
            .leftMirrored: (2, 3, [0, 3, 1, 4, 2, 5]),
            .right: (2, 3, [3, 0, 4, 1, 5, 2]),
            .rightMirrored: (2, 3, [5, 2, 4, 1, 3, 0]),
            .left: (2, 3, [2, 5, 1, 4, 0, 3]),
        ]
        for (o, (ow, oh, order)) in layouts {
            let out = img.oriented(o)
            #expect(out.extent == CGRect(x: 0, y: 0, width: ow, height: oh), "\(o)")
            let px = try render8(out, out.extent)
            let reds = stride(from: 0, to: px.count, by: 4).map { Int(px[$0]) / 40 }
            #expect(reds == order, "\(o)")
        }
    }

    @Test func cropKeepsOnlyTheRectangle() throws {
        let out = input.applyingFilter("CICrop", parameters: ["inputRectangle": CIVector(cgRect: CGRect(x: 2, y: 3, width: 5, height: 4))])
        #expect(out.extent == CGRect(x: 2, y: 3, width: 5, height: 4))
        let inside = try render8(out, out.extent), ref = try render8(input, out.extent)
        #expect(inside == ref)
        let outside = try render8(out, CGRect(x: 0, y: 0, width: 2, height: 2))
        #expect(outside.allSatisfy { $0 == 0 })
    }

    @Test func lanczosScalesAndKeepsFlatAreasFlat() throws {
        let flat = CIImage(color: CIColor(red: 0.3, green: 0.6, blue: 0.9)).cropped(to: CGRect(x: 0, y: 0, width: 40, height: 30)).clampedToExtent().cropped(
            to: CGRect(x: 0, y: 0, width: 40, height: 30))
        let f = CIFilter.lanczosScaleTransform(); f.inputImage = flat; f.scale = 0.5; f.aspectRatio = 1.5
        let out = f.outputImage!
        #expect(out.extent == CGRect(x: 0, y: 0, width: 30, height: 15))
        let got = try renderFloat(out, CGRect(x: 5, y: 5, width: 10, height: 5))
        let e = [srgbToLinear(0.3), srgbToLinear(0.6), srgbToLinear(0.9), 1]
        for p in got { #expect(close(p, e, tol: 1e-4)) }
        // A 50x reduction runs in two stages and still keeps flat areas flat.
        let big = CIImage(color: CIColor(red: 0.3, green: 0.6, blue: 0.9)).cropped(to: CGRect(x: 0, y: 0, width: 200, height: 150))
        let shrink = big.clampedToExtent().applyingFilter("CILanczosScaleTransform", parameters: [kCIInputScaleKey: 0.02])
        #expect(shrink.node is LanczosScaleNode && shrink.node.inputs[0] is LanczosScaleNode)
        let tiny = shrink.cropped(to: CGRect(x: 0, y: 0, width: 4, height: 3))
        for p in try renderFloat(tiny, CGRect(x: 1, y: 1, width: 2, height: 1)) { #expect(close(p, e, tol: 1e-4)) }
        // Scale 1 is the identity.
        f.inputImage = input; f.scale = 1; f.aspectRatio = 1
        #expect(try render8(f.outputImage!, input.extent) == render8(input, input.extent))
    }
}
