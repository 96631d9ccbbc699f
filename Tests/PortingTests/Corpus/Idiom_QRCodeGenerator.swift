// Generating a QR code, the way share sheets and ticket apps do: CIQRCodeGenerator by name,
// the message as data, scaled up with a transform before making a CGImage.
import CoreImage
import CoreImage.CIFilterBuiltins
import Foundation
import ImageIO
import Testing
import UniformTypeIdentifiers

/// A crisp QR code of `string`, `scale` pixels per module.
private func generateQRCode(from string: String, scale: CGFloat) -> CIImage? {
    let data = string.data(using: .ascii)
    guard let filter = CIFilter(name: "CIQRCodeGenerator") else { return nil }
    filter.setValue(data, forKey: "inputMessage")
    filter.setValue("Q", forKey: "inputCorrectionLevel")
    let transform = CGAffineTransform(scaleX: scale, y: scale)
    return filter.outputImage?.transformed(by: transform)
}

@Suite struct QRCodeGeneratorIdiom {
    @Test(.enabled(if: Tools.path("zbarimg") != nil, "zbarimg missing: scripts/setup.sh --test installs zbar-tools"))
    func zbarReadsTheGeneratedMessage() throws {
        let message = "https://example.org/ticket?id=4711"
        let image = try #require(generateQRCode(from: message, scale: 8))
        // A QR code is (4 * version + 17) modules plus a quiet zone: here ISO/IEC 18004's four
        // modules each side (Apple documents none).
        let modules = Int(image.extent.width / 8)
        #expect((modules - 8 - 17) % 4 == 0, "\(modules) modules")

        // White quiet zone added around it so any reader finds the finder patterns.
        let padded = image.composited(over: CIImage(color: .white).cropped(to: image.extent.insetBy(dx: -32, dy: -32)))
        let context = CIContext()
        let cgImage = try #require(context.createCGImage(padded, from: padded.extent))
        let dir = try Tools.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("qr.png")
        let destination = try #require(CGImageDestinationCreateWithURL(url as CFURL, UTType.png.identifier as CFString, 1, nil))
        CGImageDestinationAddImage(destination, cgImage, nil)
        #expect(CGImageDestinationFinalize(destination))

        let decoded = String(decoding: try Tools.run("zbarimg", ["--quiet", "--raw", url.path]), as: UTF8.self)
        #expect(decoded.trimmingCharacters(in: .whitespacesAndNewlines) == message)
    }
}
