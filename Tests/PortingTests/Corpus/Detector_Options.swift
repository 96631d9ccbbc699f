// Detector options as real code passes them: accuracy, the image's own orientation from its
// properties, a minimum feature size and a feature count.
import CoreImage
import CoreImage.CIFilterBuiltins
import ImageIO
import Testing

@Suite struct DetectorOptions {
    /// A code as a phone stores a portrait shot: pixels turned, the orientation in the properties.
    @Test func theImageOrientationOptionReadsATurnedCode() throws {
        let generator = CIFilter.qrCodeGenerator()
        generator.message = Data("turned".utf8)
        let upright = try #require(generator.outputImage).transformed(by: CGAffineTransform(scaleX: 8, y: 8))
        let stored = upright.oriented(.left)
        let detector = try #require(CIDetector(ofType: CIDetectorTypeQRCode, context: nil, options: [CIDetectorAccuracy: CIDetectorAccuracyLow]))
        let orientation: Int = 6  // what image.properties[kCGImagePropertyOrientation as String] holds for it
        let features = detector.features(in: stored, options: [CIDetectorImageOrientation: NSNumber(value: orientation)])
        let code = try #require(features.first as? CIQRCodeFeature)
        #expect(code.messageString == "turned")
        #expect(stored.extent.insetBy(dx: -2, dy: -2).contains(code.bounds))
    }

    @Test func minimumSizeAndCountChooseTheRectangles() throws {
        let desk = CIImage(color: CIColor(red: 0.1, green: 0.1, blue: 0.12)).cropped(to: CGRect(x: 0, y: 0, width: 600, height: 400))
        let card = CIImage(color: CIColor(red: 0.9, green: 0.9, blue: 0.9))
        let scene = card.cropped(to: CGRect(x: 40, y: 60, width: 300, height: 280))
            .composited(over: card.cropped(to: CGRect(x: 400, y: 150, width: 140, height: 100)))
            .composited(over: desk)
        let many = CIDetector(ofType: CIDetectorTypeRectangle, context: nil, options: [CIDetectorMaxFeatureCount: 5])!
        #expect(many.features(in: scene).count == 2)
        let one = CIDetector(ofType: CIDetectorTypeRectangle, context: nil, options: nil)!
        let biggest = try #require(one.features(in: scene).first as? CIRectangleFeature)
        #expect(abs(biggest.bounds.width - 300) < 3 && abs(biggest.bounds.height - 280) < 3)
        // 0.3 of the 400-pixel side: the 100-pixel card is too small.
        let large = CIDetector(ofType: CIDetectorTypeRectangle, context: nil, options: [CIDetectorMaxFeatureCount: 5, CIDetectorMinFeatureSize: 0.3])!
        #expect(large.features(in: scene).count == 1)
    }

    @Test func lowAccuracyAndSmileOptionsStillFindTheFace() throws {
        guard let photo = CIImage(contentsOf: URL(fileURLWithPath: "/work/shared/images/astronaut.png")) else {
            Issue.record("/work/shared/images/astronaut.png is missing")
            return
        }
        let fast = CIDetector(ofType: CIDetectorTypeFace, context: nil, options: [CIDetectorAccuracy: CIDetectorAccuracyLow, CIDetectorTracking: true])!
        let faces = fast.features(in: photo, options: [CIDetectorSmile: true, CIDetectorEyeBlink: true]).compactMap { $0 as? CIFaceFeature }
        try #require(faces.count == 1)
        #expect(faces[0].bounds.width > 70 && faces[0].bounds.width < 130)
        #expect(faces[0].type == CIFeatureTypeFace)
    }
}
