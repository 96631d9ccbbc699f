import Foundation
import Testing
@testable import Cyanotype

/// A photographed-like QR code: our generator's modules (message known) drawn by the test in
/// perspective on a white card over a textured background, blurred, with seeded noise.
/// Corners are where the test put them (raster points, y down: top-left, top-right,
/// bottom-right, bottom-left of the symbol).
private func qrScene(_ message: String, corners: [CGPoint], width: Int = 480, height: Int = 400, blur: Int = 1, noise: Double = 6, seed: UInt64)
    throws -> CIImage
{
    let modules = try qrModules(message)
    let n = modules.count, quiet = 4, m = n - 2 * quiet
    var grey = texturedBackground(width: width, height: height, seed: seed)
    // The card: the symbol and six modules of white around it.
    let margin = 6.0 / Double(m)
    drawWarped(&grey, width: width, height: height, corners: corners) { u, v in
        guard u >= -margin, u < 1 + margin, v >= -margin, v < 1 + margin else { return nil }
        guard u >= 0, u < 1, v >= 0, v < 1 else { return 235 }
        return modules[quiet + Int(v * Double(m))][quiet + Int(u * Double(m))] ? 25 : 235
    }
    if blur > 0 { grey = blurred(grey, width: width, height: height, radius: blur) }
    return greyImage(grey, width: width, height: height, noise: noise, seed: seed &+ 1)
}

@Suite struct DetectorQRTests {
    let message = "https://example.org/cyanotype?detector=qr&id=42"
    let corners = [CGPoint(x: 120, y: 70), CGPoint(x: 345, y: 95), CGPoint(x: 330, y: 320), CGPoint(x: 105, y: 300)]

    @Test func aCodeInPerspectiveWithBlurAndNoiseDecodesToItsMessageAtItsCorners() throws {
        let img = try qrScene(message, corners: corners, seed: 7)
        let detector = try #require(CIDetector(ofType: CIDetectorTypeQRCode, context: CIContext(), options: [CIDetectorAccuracy: CIDetectorAccuracyHigh]))
        let features = try detector.detectFeatures(in: img)
        try #require(features.count == 1)
        let qr = try #require(features[0] as? CIQRCodeFeature)
        #expect(qr.type == CIFeatureTypeQRCode)
        #expect(qr.messageString == message)
        // Core Image's coordinates: y up from the bottom.
        let h = img.extent.height
        let expected = corners.map { CGPoint(x: $0.x, y: h - $0.y) }
        let module = 225.0 / 33  // about 7 pixels: version 4, 33 modules over the ~225-pixel top edge
        let got = [qr.topLeft, qr.topRight, qr.bottomRight, qr.bottomLeft]
        for (g, e) in zip(got, expected) {
            #expect(distance(g, e) <= 0.5 * module, "corner \(g) vs \(e)")
        }
        #expect(qr.bounds.contains(CGRect(x: 110, y: h - 315, width: 220, height: 210)))
    }

    @Test func zbarimgReadsTheSamePictureTheSame() throws {
        guard let zbarimg = firstExecutable(["/usr/bin/zbarimg", "/usr/local/bin/zbarimg"]) else {
            Issue.record("zbarimg (Debian zbar-tools) is not installed: scripts/setup.sh --test installs it")
            return
        }
        for (seed, blur) in [(UInt64(11), 1), (12, 2), (13, 0)] {
            let img = try qrScene(message, corners: corners, blur: blur, seed: seed)
            let url = scratchPNG("qr")
            defer { try? FileManager.default.removeItem(at: url) }
            try writeTestPNG(img, to: url)
            let theirs = try #require(runTool(zbarimg, ["--raw", "-q", "-Sdisable", "-Sqrcode.enable", url.path]))
            let ours = CIDetector(ofType: CIDetectorTypeQRCode, context: nil)!.features(in: img).compactMap { ($0 as? CIQRCodeFeature)?.messageString }
            #expect(theirs.status == 0, "zbarimg found nothing (seed \(seed))")
            #expect(ours == [theirs.out.trimmingCharacters(in: .newlines)], "seed \(seed)")
            #expect(ours == [message])
        }
    }

    @Test func twoCodesAreBothFoundAndNoneInAPictureWithout() throws {
        let width = 640, height = 320
        let a = try qrModules("first"), b = try qrModules("second code")
        var grey = texturedBackground(width: width, height: height, seed: 21)
        for (modules, x0) in [(a, 40.0), (b, 360.0)] {
            let q = 4, m = modules.count - 8
            drawWarped(&grey, width: width, height: height, corners: [CGPoint(x: x0, y: 40), CGPoint(x: x0 + 230, y: 40), CGPoint(x: x0 + 230, y: 270), CGPoint(x: x0, y: 270)]) {
                u, v in
                guard u >= -0.15, u < 1.15, v >= -0.15, v < 1.15 else { return nil }
                guard u >= 0, u < 1, v >= 0, v < 1 else { return 240 }
                return modules[q + Int(v * Double(m))][q + Int(u * Double(m))] ? 20 : 240
            }
        }
        let img = greyImage(grey, width: width, height: height, noise: 4, seed: 22)
        let found = CIDetector(ofType: CIDetectorTypeQRCode, context: nil)!.features(in: img).compactMap { $0 as? CIQRCodeFeature }
        #expect(Set(found.compactMap(\.messageString)) == ["first", "second code"])
        let empty = greyImage(texturedBackground(width: 200, height: 200, seed: 5), width: 200, height: 200, noise: 4, seed: 6)
        #expect(CIDetector(ofType: CIDetectorTypeQRCode, context: nil)!.features(in: empty).isEmpty)
    }

    @Test func anOrientationOptionReportsCornersInTheImagesOwnCoordinates() throws {
        // The scene turned a quarter (EXIF 6: stored rotated, shown upright): told the
        // orientation, the detector still decodes, and its corners lie on the stored picture's code.
        let img = try qrScene(message, corners: corners, seed: 31)
        let stored = img.oriented(.left)  // what a camera stores for orientation 6 (.right shows it upright)
        let detector = try #require(CIDetector(ofType: CIDetectorTypeQRCode, context: nil))
        let features = detector.features(in: stored, options: [CIDetectorImageOrientation: 6])
        let qr = try #require(features.first as? CIQRCodeFeature)
        #expect(qr.messageString == message)
        #expect(stored.extent.insetBy(dx: -1, dy: -1).contains(qr.bounds))
        // Each corner of the stored picture's code is where the quarter turn put the scene's.
        let turn = img.orientationTransform(for: .left)  // img's extent starts at the origin
        let expected = corners.map { p in CGPoint(x: p.x, y: img.extent.height - p.y).applying(turn) }
        for g in [qr.topLeft, qr.topRight, qr.bottomRight, qr.bottomLeft] {
            #expect(expected.contains { distance($0, g) < 12 }, "corner \(g) not near \(expected)")
        }
    }

    @Test func tinyAndFlatImagesGiveNothingForEveryType() throws {
        let pictures = [
            CIImage(color: CIColor(red: 0.5, green: 0.5, blue: 0.5)).cropped(to: CGRect(x: 0, y: 0, width: 1, height: 1)),
            CIImage(color: CIColor(red: 0, green: 0, blue: 0, alpha: 0)).cropped(to: CGRect(x: -7, y: 3, width: 3, height: 200)),
            CIImage(color: CIColor(red: 1, green: 1, blue: 1)).cropped(to: CGRect(x: 10, y: 10, width: 300, height: 2)),
        ]
        for type in [CIDetectorTypeQRCode, CIDetectorTypeRectangle, CIDetectorTypeFace, CIDetectorTypeText] {
            let d = try #require(CIDetector(ofType: type, context: nil, options: [CIDetectorImageOrientation: 8]))
            for p in pictures { #expect(try d.detectFeatures(in: p).isEmpty, "\(type) on \(p.extent)") }
        }
        #expect(
            CIDetectorError.libraryUnavailable("detecting QR codes (CIDetector) needs libzbar.so.0, which could not be loaded (gone)").description
                == "detecting QR codes (CIDetector) needs libzbar.so.0, which could not be loaded (gone); install libzbar0 (Debian) to detect QR codes")
    }

    @Test func otherTypesAndBadOptionsAreHandledAsCoreImageDoes() {
        #expect(CIDetector(ofType: "CIDetectorTypeNothing", context: nil) == nil)
        // Options of the wrong type are ignored, never a crash.
        let d = CIDetector(ofType: CIDetectorTypeQRCode, context: nil, options: [CIDetectorAccuracy: 3, CIDetectorMaxFeatureCount: "x", CIDetectorMinFeatureSize: Double.nan])
        #expect(d != nil)
        // Absurd numbers are clamped or ignored before they become counts: no trap converting to Int.
        let absurd = CIDetector(
            ofType: CIDetectorTypeQRCode, context: nil,
            options: [CIDetectorMaxFeatureCount: 1e300, CIDetectorImageOrientation: -1e300, CIDetectorNumberOfAngles: Double.infinity])
        #expect(absurd?.features(in: CIImage(color: CIColor(red: 1, green: 1, blue: 1)).cropped(to: CGRect(x: 0, y: 0, width: 32, height: 32))).isEmpty == true)
        // An infinite image is a typed error, and an empty result from features(in:).
        let infinite = CIImage(color: CIColor(red: 1, green: 1, blue: 1))
        #expect(d?.features(in: infinite).isEmpty == true)
        #expect(throws: CIDetectorError.renderFailed("the image has no finite extent; crop it first")) { try d?.detectFeatures(in: infinite) }
    }
}
