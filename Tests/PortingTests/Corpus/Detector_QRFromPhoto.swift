// Reading a QR code from a photo, as scanner apps do: CIDetector of type QR code, messages
// from the CIQRCodeFeatures. The "photo" is a generated code seen in perspective on a noisy
// background, slightly blurred.
import CoreImage
import CoreImage.CIFilterBuiltins
import Testing

private func readQRCodes(in image: CIImage) -> [String] {
    let detector = CIDetector(ofType: CIDetectorTypeQRCode, context: nil, options: [CIDetectorAccuracy: CIDetectorAccuracyHigh])
    guard let features = detector?.features(in: image) else { return [] }
    var messages: [String] = []
    for case let qr as CIQRCodeFeature in features {
        if let message = qr.messageString { messages.append(message) }
    }
    return messages
}

private func photographedCode(_ message: String) -> CIImage? {
    let generator = CIFilter.qrCodeGenerator()
    generator.message = Data(message.utf8)
    generator.correctionLevel = "Q"
    guard let code = generator.outputImage?.transformed(by: CGAffineTransform(scaleX: 6, y: 6)) else { return nil }
    let warp = CIFilter.perspectiveTransform()
    warp.inputImage = code
    warp.topLeft = CGPoint(x: 70, y: 330)
    warp.topRight = CGPoint(x: 300, y: 345)
    warp.bottomLeft = CGPoint(x: 80, y: 90)
    warp.bottomRight = CGPoint(x: 320, y: 70)
    guard let warped = warp.outputImage else { return nil }
    let noise = CIFilter.randomGenerator().outputImage?.cropped(to: CGRect(x: 0, y: 0, width: 400, height: 400))
    let grain = CIFilter.colorControls()
    grain.inputImage = noise
    grain.saturation = 0
    grain.brightness = -0.3
    grain.contrast = 0.4
    guard let background = grain.outputImage else { return nil }
    let blur = CIFilter.gaussianBlur()
    blur.inputImage = warped.composited(over: background)
    blur.radius = 1
    return blur.outputImage?.cropped(to: background.extent)
}

@Suite struct DetectorQRFromPhoto {
    @Test func theMessageIsReadBack() throws {
        let message = "WIFI:T:WPA;S:cyanotype-lab;P:correct horse battery staple;;"
        let photo = try #require(photographedCode(message))
        #expect(readQRCodes(in: photo) == [message])
    }
}
