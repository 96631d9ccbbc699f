import Foundation
import Testing
@testable import Cyanotype

/// A light sheet (a quadrilateral with the given raster corners, y down) with a little print
/// on it, over a textured background, with seeded noise.
private func sheetScene(_ corners: [CGPoint], width: Int = 640, height: Int = 480, sheet: Double = 215, noise: Double = 8, seed: UInt64) -> CIImage {
    var grey = texturedBackground(width: width, height: height, seed: seed)
    drawWarped(&grey, width: width, height: height, corners: corners, samples: 4) { u, v in
        guard u >= 0, u < 1, v >= 0, v < 1 else { return nil }
        // Lines of "text": thin darker bars, as a printed page has.
        let inLine = v > 0.15 && v < 0.85 && u > 0.1 && u < 0.9 && (v * 20).truncatingRemainder(dividingBy: 1) < 0.25
        return inLine ? sheet - 60 : sheet
    }
    return greyImage(grey, width: width, height: height, noise: noise, seed: seed &+ 1)
}

@Suite struct DetectorRectangleTests {
    /// The detector's corners against the scene's (Core Image coordinates: y up).
    private func check(_ f: CIRectangleFeature, _ corners: [CGPoint], height: Double, tolerance: Double) {
        let expected = corners.map { CGPoint(x: $0.x, y: height - $0.y) }
        let got = [f.topLeft, f.topRight, f.bottomRight, f.bottomLeft]
        for (g, e) in zip(got, expected) {
            #expect(distance(g, e) <= tolerance, "corner \(g) vs \(e)")
        }
    }

    @Test func aSheetInPerspectiveIsFoundWithinOnePixel() throws {
        let corners = [CGPoint(x: 150, y: 90), CGPoint(x: 470, y: 70), CGPoint(x: 520, y: 400), CGPoint(x: 110, y: 380)]
        let img = sheetScene(corners, seed: 101)
        let detector = try #require(CIDetector(ofType: CIDetectorTypeRectangle, context: nil, options: [CIDetectorAccuracy: CIDetectorAccuracyHigh]))
        let features = try detector.detectFeatures(in: img)
        #expect(features.count == 1)  // Core Image returns the most prominent one by default
        let f = try #require(features.first as? CIRectangleFeature)
        #expect(f.type == CIFeatureTypeRectangle)
        check(f, corners, height: 480, tolerance: 1)
        #expect(abs(f.bounds.minX - 110) <= 2 && abs(f.bounds.maxY - 410) <= 2)
    }

    @Test func aRotatedSheetAndSeveralSeedsStayWithinOnePixel() throws {
        // About 20 degrees turned, and seeds for the noise and background.
        let corners = [CGPoint(x: 230, y: 60), CGPoint(x: 500, y: 160), CGPoint(x: 420, y: 390), CGPoint(x: 150, y: 290)]
        for seed in [UInt64(1), 2, 3] {
            let f = try #require(CIDetector(ofType: CIDetectorTypeRectangle, context: nil)!.features(in: sheetScene(corners, seed: seed)).first as? CIRectangleFeature)
            check(f, corners, height: 480, tolerance: 1)
        }
    }

    @Test func maxFeatureCountReturnsTheSmallerSheetTooAndMinimumSizeDropsIt() throws {
        var grey = texturedBackground(width: 640, height: 480, seed: 55)
        let big = [CGPoint(x: 40, y: 60), CGPoint(x: 330, y: 50), CGPoint(x: 340, y: 420), CGPoint(x: 50, y: 430)]
        let small = [CGPoint(x: 420, y: 150), CGPoint(x: 580, y: 160), CGPoint(x: 570, y: 300), CGPoint(x: 430, y: 290)]
        for c in [big, small] { drawWarped(&grey, width: 640, height: 480, corners: c) { u, v in (0..<1).contains(u) && (0..<1).contains(v) ? 220 : nil } }
        let img = greyImage(grey, width: 640, height: 480, noise: 6, seed: 56)
        let two = CIDetector(ofType: CIDetectorTypeRectangle, context: nil, options: [CIDetectorMaxFeatureCount: 4])!.features(in: img).compactMap { $0 as? CIRectangleFeature }
        try #require(two.count == 2)
        check(two[0], big, height: 480, tolerance: 1)  // most prominent first
        check(two[1], small, height: 480, tolerance: 1)
        // 0.4 of the smaller side (192 px) keeps only the big sheet.
        let one = CIDetector(ofType: CIDetectorTypeRectangle, context: nil, options: [CIDetectorMaxFeatureCount: 4, CIDetectorMinFeatureSize: 0.4])!.features(in: img)
        #expect(one.count == 1)
    }

    @Test func anAspectRatioKeepsTheSheetOfThatShape() throws {
        var grey = texturedBackground(width: 640, height: 480, seed: 77)
        let square = [CGPoint(x: 40, y: 100), CGPoint(x: 300, y: 100), CGPoint(x: 300, y: 360), CGPoint(x: 40, y: 360)]
        let wide = [CGPoint(x: 340, y: 180), CGPoint(x: 610, y: 180), CGPoint(x: 610, y: 300), CGPoint(x: 340, y: 300)]
        for c in [square, wide] { drawWarped(&grey, width: 640, height: 480, corners: c) { u, v in (0..<1).contains(u) && (0..<1).contains(v) ? 220 : nil } }
        let img = greyImage(grey, width: 640, height: 480, noise: 6, seed: 78)
        let detector = CIDetector(ofType: CIDetectorTypeRectangle, context: nil)!
        let byDefault = try #require(detector.features(in: img).first as? CIRectangleFeature)
        check(byDefault, square, height: 480, tolerance: 1)  // the larger
        let asked = try #require(detector.features(in: img, options: [CIDetectorAspectRatio: 270.0 / 120.0]).first as? CIRectangleFeature)
        check(asked, wide, height: 480, tolerance: 1)
    }

    @Test func aPictureOfNoiseHasNoRectangle() {
        let img = greyImage(texturedBackground(width: 320, height: 240, seed: 9), width: 320, height: 240, noise: 10, seed: 10)
        #expect(CIDetector(ofType: CIDetectorTypeRectangle, context: nil)!.features(in: img).isEmpty)
    }
}
