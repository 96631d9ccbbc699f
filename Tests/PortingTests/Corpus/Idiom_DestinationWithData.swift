// Encoding into memory with CGImageDestinationCreateWithData and a UTType identifier.
import CoreImage
import Foundation
import ImageIO
import Testing
import UniformTypeIdentifiers

private func pngData(from image: CGImage) -> Data? {
    let data = NSMutableData()
    guard let destination = CGImageDestinationCreateWithData(data as CFMutableData, UTType.png.identifier as CFString, 1, nil) else { return nil }
    CGImageDestinationAddImage(destination, image, nil)
    guard CGImageDestinationFinalize(destination) else { return nil }
    return data as Data
}

@Suite struct DestinationWithDataIdiom {
    @Test(.enabled(if: Tools.path("identify") != nil, "ImageMagick missing"))
    func theDataIsAPNGOfTheImage() throws {
        let picture = CIImage(color: CIColor(red: 0, green: 0.5, blue: 1)).cropped(to: CGRect(x: 0, y: 0, width: 20, height: 10))
        let cgImage = try #require(CIContext().createCGImage(picture, from: picture.extent))
        let data = try #require(pngData(from: cgImage))
        let source = try #require(CGImageSourceCreateWithData(data as CFData, nil))
        #expect(CGImageSourceGetType(source) == UTType.png.identifier as CFString)
        let dir = try Tools.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("x.png")
        try data.write(to: url)
        #expect(String(decoding: try Tools.run("identify", ["-format", "%m %w %h", url.path]), as: UTF8.self) == "PNG 20 10")
    }
}
