// Document scanning: find the page with a rectangle detector, then straighten it with
// CIPerspectiveCorrection from the feature's corners (the recipe of many scanner apps).
import CoreImage
import CoreImage.CIFilterBuiltins
import Testing

private func scanDocument(_ image: CIImage) -> CIImage? {
    let context = CIContext()
    let detector = CIDetector(
        ofType: CIDetectorTypeRectangle, context: context,
        options: [CIDetectorAccuracy: CIDetectorAccuracyHigh, CIDetectorAspectRatio: 1.414])
    guard let rectangle = detector?.features(in: image).first as? CIRectangleFeature else { return nil }
    let correction = CIFilter(name: "CIPerspectiveCorrection")!
    correction.setValue(image, forKey: kCIInputImageKey)
    correction.setValue(CIVector(cgPoint: rectangle.topLeft), forKey: "inputTopLeft")
    correction.setValue(CIVector(cgPoint: rectangle.topRight), forKey: "inputTopRight")
    correction.setValue(CIVector(cgPoint: rectangle.bottomLeft), forKey: "inputBottomLeft")
    correction.setValue(CIVector(cgPoint: rectangle.bottomRight), forKey: "inputBottomRight")
    return correction.outputImage
}

/// An A-series page (297 x 210, a black square in its top-left corner) photographed at an
/// angle on a dark desk.
private func photographedPage() -> CIImage? {
    let paper = CIImage(color: CIColor(red: 0.95, green: 0.94, blue: 0.9)).cropped(to: CGRect(x: 0, y: 0, width: 297, height: 210))
    let mark = CIImage(color: CIColor(red: 0, green: 0, blue: 0)).cropped(to: CGRect(x: 20, y: 140, width: 50, height: 50))
    let warp = CIFilter.perspectiveTransform()
    warp.inputImage = mark.composited(over: paper)
    warp.topLeft = CGPoint(x: 90, y: 330)
    warp.topRight = CGPoint(x: 420, y: 350)
    warp.bottomLeft = CGPoint(x: 60, y: 80)
    warp.bottomRight = CGPoint(x: 450, y: 100)
    let desk = CIImage(color: CIColor(red: 0.25, green: 0.2, blue: 0.15)).cropped(to: CGRect(x: 0, y: 0, width: 520, height: 420))
    return warp.outputImage?.composited(over: desk).cropped(to: desk.extent)
}

@Suite struct DetectorDocumentScan {
    @Test func thePageComesOutUprightWithItsMarkTopLeft() throws {
        let photo = try #require(photographedPage())
        let scan = try #require(scanDocument(photo))
        // The corrected page is as wide as its longer horizontal edge (about 390 pixels here)
        // and as tall as its longer vertical one (about 253): the page's 1.41 within 6 %.
        let ratio = scan.extent.width / scan.extent.height
        #expect(abs(ratio - 390.5 / 253.2) < 0.06 * ratio, "\(scan.extent)")
        var pixel = [UInt8](repeating: 0, count: 4)
        let context = CIContext()
        func grey(atFraction fx: CGFloat, _ fy: CGFloat) -> UInt8 {
            let p = CGPoint(x: (scan.extent.minX + fx * scan.extent.width).rounded(), y: (scan.extent.minY + fy * scan.extent.height).rounded())
            context.render(
                scan, toBitmap: &pixel, rowBytes: 4, bounds: CGRect(origin: p, size: CGSize(width: 1, height: 1)), format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)
            )
            return pixel[1]
        }
        // The mark (the page's 20...70 of 297 across, 140...190 of 210 up) is black; the middle is paper.
        #expect(grey(atFraction: 45.0 / 297, 165.0 / 210) < 40)
        #expect(grey(atFraction: 0.5, 0.5) > 200)
        #expect(grey(atFraction: 250.0 / 297, 40.0 / 210) > 200)
    }
}
