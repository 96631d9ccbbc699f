// Choosing JPEG or PNG by whether an image has transparency: CIImage.isOpaque.
import CoreImage
import Foundation
import Testing

private func preferredExtension(for image: CIImage) -> String { image.isOpaque ? "jpg" : "png" }

@Suite struct IsOpaqueIdiom {
    @Test(.enabled(if: Tools.path("convert") != nil, "ImageMagick missing"))
    func filesAndColoursSayWhetherTheyAreOpaque() throws {
        let dir = try Tools.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let opaqueURL = dir.appendingPathComponent("opaque.jpg"), clearURL = dir.appendingPathComponent("clear.png")
        try Tools.run("convert", ["-size", "8x8", "xc:red", opaqueURL.path])
        try Tools.run("convert", ["-size", "8x8", "xc:none", "-fill", "red", "-draw", "rectangle 0,0 3,3", clearURL.path])
        let opaque = try #require(CIImage(contentsOf: opaqueURL)), clear = try #require(CIImage(contentsOf: clearURL))
        #expect(preferredExtension(for: opaque) == "jpg")
        #expect(preferredExtension(for: clear) == "png")
        #expect(CIImage(color: .red).cropped(to: CGRect(x: 0, y: 0, width: 2, height: 2)).isOpaque)
        #expect(!CIImage(color: CIColor(red: 1, green: 0, blue: 0, alpha: 0.5)).isOpaque)
        #expect(opaque.colorSpace?.name == CGColorSpace.sRGB)
    }
}
