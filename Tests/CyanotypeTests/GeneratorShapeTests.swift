import Foundation
import Testing
@testable import Cyanotype

/// Alpha (= coverage for an opaque white shape) at pixel (x, yUp) of `img`, Core Image coordinates.
private func alpha(_ img: CIImage, _ x: Int, _ yUp: Int) throws -> Double {
    Double(try renderFloat(img, CGRect(x: x, y: yUp, width: 1, height: 1))[0][3])
}

/// Signed distance to a circular-cornered rounded rectangle, written from the definition.
private func roundedRectDistance(_ px: Double, _ py: Double, _ r: CGRect, _ radius: Double) -> Double {
    let rad = min(radius, Double(min(r.width, r.height)) / 2)
    let cx = Double(r.midX), cy = Double(r.midY)
    let qx = abs(px - cx) - (Double(r.width) / 2 - rad), qy = abs(py - cy) - (Double(r.height) / 2 - rad)
    let outside = hypot(max(qx, 0), max(qy, 0))
    return outside + min(max(qx, qy), 0) - rad
}

@Suite struct GeneratorShapeTests {
    @Test func stripes() throws {
        let f = CIFilter.stripesGenerator()
        f.center = CGPoint(x: 10, y: 0); f.width = 5; f.sharpness = 1
        let img = try f.makeOutputImage()
        #expect(img.extent.isInfinite)
        let px = try render8(img, CGRect(x: 0, y: 0, width: 30, height: 2))
        for x in 0..<30 {
            let white = Int(((Double(x) + 0.5 - 10) / 5).rounded(.down)) & 1 == 0  // color0 (white) from the centre
            #expect(px[x * 4] == (white ? 255 : 0) && px[(30 + x) * 4] == px[x * 4], "x \(x)")
        }
        f.sharpness = 0
        let soft = try renderFloat(try f.makeOutputImage(), CGRect(x: 10, y: 0, width: 5, height: 1))
        // Sharpness 0: a triangle wave; mid-stripe pure color0, edges at the mean.
        #expect(abs(soft[2][0] - 1) < 1e-5)
        #expect(abs(soft[0][0] - Float(0.5 + 0.5 * (0.1 / 0.5))) < 1e-5)
    }

    @Test func roundedRectangleCoverage() throws {
        let f = CIFilter.roundedRectangleGenerator()
        let r = CGRect(x: 10, y: 20, width: 60, height: 40)
        f.extent = r; f.radius = 12; f.color = CIColor(red: 1, green: 1, blue: 1)
        let img = try f.makeOutputImage()
        #expect(img.extent == r)
        for (x, y) in [(10, 20), (11, 21), (13, 23), (40, 20), (40, 40), (69, 59), (66, 56), (10, 40), (14, 24), (12, 30)] {
            let d = roundedRectDistance(Double(x) + 0.5, Double(y) + 0.5, r, 12)
            #expect(abs(try alpha(img, x, y) - min(max(0.5 - d, 0), 1)) < 1e-4, "at \(x),\(y)")
        }
        // Colour is premultiplied by coverage: straight colour stays the input colour.
        f.color = CIColor(red: 0.25, green: 0.5, blue: 1, alpha: 1)
        let v = try renderFloat(try f.makeOutputImage(), CGRect(x: 40, y: 40, width: 1, height: 1))[0]
        #expect(abs(v[1] - Float(srgbToLinear(0.5))) < 1e-4 && v[3] == 1)
    }

    @Test func roundedRectangleStrokeIsInside() throws {
        let f = CIFilter.roundedRectangleStrokeGenerator()
        let r = CGRect(x: 0, y: 0, width: 50, height: 50)
        f.extent = r; f.radius = 10; f.width = 4
        let img = try f.makeOutputImage()
        for (x, y) in [(25, 0), (25, 3), (25, 4), (25, 25), (0, 25), (2, 2), (4, 4), (49, 30)] {
            let d = roundedRectDistance(Double(x) + 0.5, Double(y) + 0.5, r, 10)
            let expected = min(max(0.5 - d, 0), 1) - min(max(0.5 - (d + 4), 0), 1)
            #expect(abs(try alpha(img, x, y) - expected) < 1e-4, "at \(x),\(y)")
        }
    }

    @Test func blurredRectangleIsGaussianConvolution() throws {
        let f = CIFilter.blurredRectangleGenerator()
        let r = CGRect(x: 0, y: 0, width: 100, height: 60)
        f.extent = r; f.sigma = 6
        let img = try f.makeOutputImage()
        #expect(img.extent == CGRect(x: -18, y: -18, width: 136, height: 96))
        func edge(_ p: Double, _ lo: Double, _ hi: Double) -> Double { 0.5 * (erf((hi - p) / (6 * 2.0.squareRoot())) - erf((lo - p) / (6 * 2.0.squareRoot()))) }
        for (x, y) in [(50, 30), (0, 30), (-5, 30), (99, 59), (-10, -10), (50, 60), (3, 57)] {
            let expected = edge(Double(x) + 0.5, 0, 100) * edge(Double(y) + 0.5, 0, 60)
            #expect(abs(try alpha(img, x, y) - expected) < 1e-4, "at \(x),\(y)")
        }
    }

    @Test func blurredRoundedRectangle() throws {
        let f = CIFilter.blurredRoundedRectangleGenerator()
        let r = CGRect(x: 0, y: 0, width: 80, height: 80)
        f.extent = r; f.radius = 20; f.sigma = 4
        let img = try f.makeOutputImage()
        #expect(img.extent == CGRect(x: -12, y: -12, width: 104, height: 104))
        for (x, y) in [(40, 40), (40, 0), (40, -3), (2, 2), (10, 10), (79, 50)] {
            let d = roundedRectDistance(Double(x) + 0.5, Double(y) + 0.5, r, 20)
            #expect(abs(try alpha(img, x, y) - 0.5 * erfc(d / (4 * 2.0.squareRoot()))) < 1e-4, "at \(x),\(y)")
        }
    }

    @Test func randomIsDeterministicUniformNoise() throws {
        let img = try CIFilter.randomGenerator().makeOutputImage()
        #expect(img.extent.isInfinite)
        let rect = CGRect(x: -37, y: 11, width: 64, height: 64)
        let a = try renderFloat(img, rect, context: CIContext(options: [.workingColorSpace: NSNull(), .outputColorSpace: NSNull(), .outputPremultiplied: true]))
        let b = try renderFloat(
            CIFilter.randomGenerator().outputImage!, rect, context: CIContext(options: [.workingColorSpace: NSNull(), .outputColorSpace: NSNull(), .outputPremultiplied: true]))
        #expect(a == b)
        for c in 0..<4 {
            let values = a.map { Double($0[c]) }
            let mean = values.reduce(0, +) / Double(values.count)
            let variance = values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)
            #expect(values.allSatisfy { $0 >= 0 && $0 < 1 })
            #expect(abs(mean - 0.5) < 0.03, "channel \(c) mean \(mean)")
            #expect(abs(variance - 1.0 / 12) < 0.01, "channel \(c) variance \(variance)")
        }
        // Neighbouring pixels and channels are uncorrelated enough to differ.
        #expect(Set(a.map { $0[0] }).count > 4000)
        #expect(RandomStage.value(5, 7, 0) != RandomStage.value(7, 5, 0))
    }

    @Test func meshDrawsAntialiasedSegments() throws {
        let f = CIFilter.meshGenerator()
        f.width = 2
        f.mesh = [CIVector(x: 10, y: 10, z: 50, w: 10), CIVector(x: 10, y: 10, z: 10, w: 40)]
        let img = try f.makeOutputImage()
        #expect(img.extent == CGRect(x: 8, y: 8, width: 44, height: 34))
        // Coverage = clamp(halfWidth + 0.5 - distance to the nearest segment).
        for (x, y, d) in [(30, 10, 0.5), (30, 11, 1.5), (30, 12, 2.5), (30, 8, 1.5), (20, 20, 10.5), (9, 25, 0.5), (51, 10, hypot(1.5, 0.5))] {
            #expect(abs(try alpha(img, x, y) - min(max(1.5 - d, 0), 1)) < 1e-4, "at \(x),\(y)")
        }
        f.mesh = "not a mesh"
        #expect(throws: CIFilterError.self) { try f.makeOutputImage() }
        f.mesh = [[1.0, 2.0]]
        #expect(throws: CIFilterError.invalidValue(filter: "CIMeshGenerator", key: "inputMesh", reason: "each segment needs 4 values (x0, y0, x1, y1), got 2")) {
            try f.makeOutputImage()
        }
        f.mesh = [CIVector]()
        #expect(try f.makeOutputImage().extent.isEmpty)
    }
}
