// A server-side thumbnailer: CGImageSourceCreateThumbnailAtIndex with the size as a CGFloat
// computed from a point size and a screen scale, written back as JPEG with Image I/O.
import Foundation
import ImageIO
import Testing
import UniformTypeIdentifiers

private func downsample(imageAt imageURL: URL, to pointSize: CGSize, scale: CGFloat) -> CGImage? {
    let imageSourceOptions = [kCGImageSourceShouldCache: false] as CFDictionary
    guard let imageSource = CGImageSourceCreateWithURL(imageURL as CFURL, imageSourceOptions) else { return nil }
    let maxDimensionInPixels = max(pointSize.width, pointSize.height) * scale
    let downsampleOptions =
        [
            kCGImageSourceCreateThumbnailFromImageAlways: true,
            kCGImageSourceShouldCacheImmediately: true,
            kCGImageSourceCreateThumbnailWithTransform: true,
            kCGImageSourceThumbnailMaxPixelSize: maxDimensionInPixels,
        ] as CFDictionary
    return CGImageSourceCreateThumbnailAtIndex(imageSource, 0, downsampleOptions)
}

private func writeJPEG(_ image: CGImage, to url: URL, quality: Double) -> Bool {
    guard let destination = CGImageDestinationCreateWithURL(url as CFURL, UTType.jpeg.identifier as CFString, 1, nil) else { return false }
    let properties = [kCGImageDestinationLossyCompressionQuality: quality] as CFDictionary
    CGImageDestinationAddImage(destination, image, properties)
    return CGImageDestinationFinalize(destination)
}

@Suite struct ThumbnailImageSourceIdiom {
    @Test(.enabled(if: Tools.path("convert") != nil, "ImageMagick missing"))
    func aCGFloatMaxPixelSizeGivesTheRequestedSize() throws {
        let dir = try Tools.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("photo.jpg"), output = dir.appendingPathComponent("thumb.jpg")
        try Tools.run("convert", ["-size", "400x300", "plasma:fractal", "-seed", "7", input.path])
        let thumbnail = try #require(downsample(imageAt: input, to: CGSize(width: 50, height: 40), scale: 2))
        #expect(writeJPEG(thumbnail, to: output, quality: 0.8))
        // ImageMagick's reading of the file: longest side 100, aspect 4:3 kept.
        let size = String(decoding: try Tools.run("identify", ["-format", "%w %h %m", output.path]), as: UTF8.self)
        #expect(size == "100 75 JPEG")
    }
}
