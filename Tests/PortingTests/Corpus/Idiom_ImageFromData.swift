// Decoding uploaded bytes: CIImage(data:), then a downscale with CILanczosScaleTransform.
import CoreImage
import Foundation
import Testing

private func resized(_ data: Data, to width: CGFloat) -> CIImage? {
    guard let image = CIImage(data: data) else { return nil }
    let scale = width / image.extent.width
    guard let filter = CIFilter(name: "CILanczosScaleTransform") else { return nil }
    filter.setValue(image, forKey: kCIInputImageKey)
    filter.setValue(scale, forKey: kCIInputScaleKey)
    filter.setValue(1.0, forKey: kCIInputAspectRatioKey)
    return filter.outputImage
}

@Suite struct ImageFromDataIdiom {
    @Test(.enabled(if: Tools.path("convert") != nil, "ImageMagick missing"))
    func anUploadIsDecodedAndScaled() throws {
        let dir = try Tools.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("upload.png")
        try Tools.run("convert", ["-size", "200x100", "xc:#3366CC", url.path])
        let out = try #require(resized(try Data(contentsOf: url), to: 50))
        #expect(out.extent.width.rounded() == 50 && out.extent.height.rounded() == 25)
        #expect(CIImage(data: Data("not an image".utf8)) == nil)
        var px = [UInt8](repeating: 0, count: 4)
        CIContext().render(out, toBitmap: &px, rowBytes: 4, bounds: CGRect(x: 20, y: 10, width: 1, height: 1), format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
        for (i, v) in [0x33, 0x66, 0xCC].enumerated() { #expect(abs(Int(px[i]) - v) <= 1, "\(px)") }
    }
}
