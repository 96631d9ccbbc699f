// Saving with a quality, the CIContext way: writeJPEGRepresentation with
// kCGImageDestinationLossyCompressionQuality as the option key.
import CoreImage
import Foundation
import ImageIO
import Testing

extension CIContext {
    fileprivate func save(_ image: CIImage, to url: URL, quality: CGFloat) throws {
        let key = CIImageRepresentationOption(rawValue: kCGImageDestinationLossyCompressionQuality as String)
        try writeJPEGRepresentation(of: image, to: url, colorSpace: image.colorSpace ?? CGColorSpaceCreateDeviceRGB(), options: [key: quality])
    }
}

@Suite struct WriteJPEGQualityIdiom {
    @Test(.enabled(if: Tools.path("identify") != nil, "ImageMagick missing"))
    func imageMagickEstimatesTheQualityWritten() throws {
        let dir = try Tools.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let image = CIImage(color: .yellow).cropped(to: CGRect(x: 0, y: 0, width: 32, height: 32))
        for quality in [0.5, 0.9] {
            let url = dir.appendingPathComponent("q\(Int(quality * 100)).jpg")
            try CIContext().save(image, to: url, quality: CGFloat(quality))
            let q = String(decoding: try Tools.run("identify", ["-format", "%Q", url.path]), as: UTF8.self)
            #expect(q == "\(Int(quality * 100))")
        }
    }
}
