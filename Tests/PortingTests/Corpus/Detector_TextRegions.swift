// Finding text regions before OCR: CIDetectorTypeText with its characters as sub-features.
import CoreImage
import CoreImage.CIFilterBuiltins
import Testing

@Suite struct DetectorTextRegions {
    @Test func aSignsLineIsOneRegionWithItsLetters() throws {
        let text = CIFilter.textImageGenerator()
        text.text = "OPEN DAILY"
        text.fontName = "DejaVu Sans"
        text.fontSize = 44
        let label = try #require(text.outputImage).transformed(by: CGAffineTransform(translationX: 40, y: 60))
        let gradient = CIFilter.linearGradient()
        gradient.point0 = CGPoint(x: 0, y: 0)
        gradient.point1 = CGPoint(x: 400, y: 200)
        gradient.color0 = CIColor(red: 0.95, green: 0.9, blue: 0.7)
        gradient.color1 = CIColor(red: 0.7, green: 0.8, blue: 0.9)
        let backdrop = try #require(gradient.outputImage)
        let sign = label.composited(over: backdrop).cropped(to: CGRect(x: 0, y: 0, width: 400, height: 200))

        let detector = CIDetector(ofType: CIDetectorTypeText, context: CIContext(), options: nil)
        let features = detector?.features(in: sign, options: [CIDetectorReturnSubFeatures: true]) ?? []
        try #require(features.count == 1)
        let region = try #require(features[0] as? CITextFeature)
        #expect(label.extent.insetBy(dx: -2, dy: -2).contains(region.bounds))
        #expect(region.bounds.width > 0.85 * label.extent.width)
        let letters = try #require(region.subFeatures as? [CITextFeature])
        #expect(letters.count >= 8 && letters.count <= 9)  // "OPENDAILY"; touching letters count once
        #expect(letters.allSatisfy { region.bounds.insetBy(dx: -1, dy: -1).contains($0.bounds) })
    }
}
