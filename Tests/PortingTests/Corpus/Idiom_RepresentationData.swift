// Encoding a filtered image to Data in a share extension: jpegRepresentation,
// pngRepresentation and heifRepresentation on CIContext.
import CoreImage
import Foundation
import Testing

@Suite struct RepresentationDataIdiom {
    @Test(.enabled(if: Tools.path("identify") != nil, "ImageMagick missing"))
    func eachRepresentationIsAFileOfItsType() throws {
        let image = CIImage(color: CIColor(red: 0.2, green: 0.5, blue: 0.8)).cropped(to: CGRect(x: 0, y: 0, width: 48, height: 32))
        let context = CIContext()
        let sRGB = CGColorSpace(name: CGColorSpace.sRGB)!
        let dir = try Tools.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let files: [(String, Data?, String)] = [
            ("a.jpg", context.jpegRepresentation(of: image, colorSpace: sRGB, options: [:]), "JPEG"),
            ("a.png", context.pngRepresentation(of: image, format: .RGBA8, colorSpace: sRGB, options: [:]), "PNG"),
            ("a.heic", context.heifRepresentation(of: image, format: .RGBA8, colorSpace: sRGB, options: [:]), "HEIC"),
        ]
        for (name, data, magick) in files {
            let url = dir.appendingPathComponent(name)
            try #require(data, "\(name)").write(to: url)
            let info = String(decoding: try Tools.run("identify", ["-format", "%m %w %h", url.path]), as: UTF8.self)
            #expect(info == "\(magick) 48 32", "\(name)")
        }
        // The PNG holds the colour exactly: ImageMagick's mean of its red channel.
        let pngURL = dir.appendingPathComponent("a.png")
        let mean = String(decoding: try Tools.run("convert", [pngURL.path, "-format", "%[fx:int(255*mean.r+0.5)] %[fx:int(255*mean.b+0.5)]", "info:"]), as: UTF8.self)
        #expect(mean == "\(Int(0.2 * 255 + 0.5)) \(Int(0.8 * 255 + 0.5))")
    }
}
