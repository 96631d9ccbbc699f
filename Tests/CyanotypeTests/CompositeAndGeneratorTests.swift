import Foundation
import Testing
@testable import Cyanotype

/// Blend modes against the W3C compositing formulas, generators against their geometry.
@Suite struct CompositeAndGeneratorTests {
    /// Pairs of straight linear colours with alpha.
    let pairs: [([Double], [Double])] = [
        ([0.8, 0.2, 0.1, 1], [0.1, 0.5, 0.9, 1]),
        ([0.8, 0.2, 0.1, 0.5], [0.1, 0.5, 0.9, 1]),
        ([0.3, 0.7, 0.2, 0.25], [0.6, 0.2, 0.4, 0.6]),
        ([0, 0, 0, 0], [0.6, 0.2, 0.4, 0.6]),
    ]
    func solid(_ c: [Double]) -> CIImage {
        CIImage(color: CIColor(red: linearToSrgb(c[0]), green: linearToSrgb(c[1]), blue: linearToSrgb(c[2]), alpha: c[3]))
            .cropped(to: CGRect(x: 0, y: 0, width: 3, height: 3))
    }
    func composite(_ name: String, _ s: [Double], _ b: [Double]) throws -> SIMD4<Float> {
        let out = solid(s).applyingFilter(name, parameters: [kCIInputBackgroundImageKey: solid(b)])
        return try renderFloat(out, CGRect(x: 1, y: 1, width: 1, height: 1))[0]
    }

    @Test func sourceOverIsPorterDuff() throws {
        for (s, b) in pairs {
            let ao = s[3] + b[3] * (1 - s[3])
            let co = (0..<3).map { (s[$0] * s[3] + b[$0] * b[3] * (1 - s[3])) / (ao > 0 ? ao : 1) }
            #expect(close(try composite("CISourceOverCompositing", s, b), co + [ao], tol: 2e-4))
        }
    }

    @Test func multiplyIsW3C() throws {
        for (s, b) in pairs {
            // W3C: co = cs(1 - ab) + cb(1 - as) + as ab B(Cb, Cs), premultiplied cs = as Cs.
            let ao = s[3] + b[3] - s[3] * b[3]
            let co = (0..<3).map { c -> Double in
                let v = s[c] * s[3] * (1 - b[3]) + b[c] * b[3] * (1 - s[3]) + s[3] * b[3] * (s[c] * b[c])
                return ao > 0 ? v / ao : 0
            }
            #expect(close(try composite("CIMultiplyBlendMode", s, b), co + [ao], tol: 2e-4))
        }
    }

    @Test func compositeExtentIsTheUnion() throws {
        let a = CIImage(color: .red).cropped(to: CGRect(x: 0, y: 0, width: 4, height: 4))
        let b = CIImage(color: .blue).cropped(to: CGRect(x: 2, y: 2, width: 4, height: 4))
        #expect(a.composited(over: b).extent == CGRect(x: 0, y: 0, width: 6, height: 6))
    }

    @Test func constantColorIsInfiniteAndExact() throws {
        let f = CIFilter(name: "CIConstantColorGenerator")!
        f.setValue(CIColor(red: 0.25, green: 0.6, blue: 1), forKey: kCIInputColorKey)
        let out = f.outputImage!
        #expect(out.extent.isInfinite)
        let px = try render8(out, CGRect(x: -1000, y: 5000, width: 2, height: 2))
        #expect(Array(px[0..<4]) == [64, 153, 255, 255])
    }

    @Test func linearGradientInterpolatesInWorkingSpace() throws {
        let f = CIFilter.linearGradient()
        f.point0 = CGPoint(x: 0, y: 0); f.point1 = CGPoint(x: 100, y: 0)
        f.color0 = CIColor(red: 1, green: 1, blue: 1); f.color1 = CIColor(red: 0, green: 0, blue: 0)
        let got = try renderFloat(f.outputImage!, CGRect(x: -10, y: 0, width: 130, height: 1))
        for x in [-10, 0, 24, 50, 99, 119] {
            let t = min(1, max(0, (Double(x) + 0.5) / 100))
            #expect(close(got[x + 10], [1 - t, 1 - t, 1 - t, 1], tol: 1e-5, "x=\(x)"))
        }
    }

    @Test func radialGradientByDistance() throws {
        let f = CIFilter.radialGradient()
        f.center = CGPoint(x: 50, y: 50); f.radius0 = 10; f.radius1 = 30
        let got = try renderFloat(f.outputImage!, CGRect(x: 0, y: 0, width: 100, height: 100))
        for (x, yUp) in [(50, 50), (70, 50), (50, 85), (65, 62)] {
            let d = ((Double(x) + 0.5 - 50) * (Double(x) + 0.5 - 50) + (Double(yUp) + 0.5 - 50) * (Double(yUp) + 0.5 - 50)).squareRoot()
            let t = min(1, max(0, (d - 10) / 20))
            #expect(close(got[(99 - yUp) * 100 + x], [1 - t, 1 - t, 1 - t, 1], tol: 1e-5))
        }
    }

    @Test func checkerboardSquares() throws {
        let f = CIFilter.checkerboardGenerator()
        f.center = CGPoint(x: 0, y: 0); f.width = 4; f.sharpness = 1
        let px = try render8(f.outputImage!, CGRect(x: 0, y: 0, width: 8, height: 8))
        for yUp in 0..<8 {
            for x in 0..<8 {
                let white = ((x / 4) + (yUp / 4)) % 2 == 0
                #expect(px[((7 - yUp) * 8 + x) * 4] == (white ? 255 : 0), "at \(x),\(yUp)")
            }
        }
    }
}

@Suite struct BlendInColorSpaceTests {
    @Test func multiplyInSRGBMultipliesEncodedValues() throws {
        let a = CIImage(color: CIColor(red: 0.5, green: 0.8, blue: 0.2)).cropped(to: CGRect(x: 0, y: 0, width: 2, height: 2))
        let b = CIImage(color: CIColor(red: 0.6, green: 0.5, blue: 1.0)).cropped(to: CGRect(x: 0, y: 0, width: 2, height: 2))
        let out = try #require(CIBlendKernel.multiply.apply(foreground: a, background: b, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!))
        let px = try render8(out, CGRect(x: 0, y: 0, width: 1, height: 1))
        // In sRGB-encoded values: 0.5*0.6, 0.8*0.5, 0.2*1.0.
        #expect(Array(px[0..<4]) == [77, 102, 51, 255])
        #expect(out.settingProperties(["k": 1]).properties["k"] as? Int == 1)
    }
}
