// Splitting an animated GIF into frames with Image I/O, as sticker and GIF-picker code does.
import Foundation
import ImageIO
import Testing

private func frames(of url: URL) -> [(CGImage, Double)] {
    guard let source = CGImageSourceCreateWithURL(url as CFURL, nil) else { return [] }
    var result: [(CGImage, Double)] = []
    for index in 0..<CGImageSourceGetCount(source) {
        guard let image = CGImageSourceCreateImageAtIndex(source, index, nil) else { continue }
        let properties = CGImageSourceCopyPropertiesAtIndex(source, index, nil) as? [String: Any]
        let gif = properties?[kCGImagePropertyGIFDictionary as String] as? [String: Any]
        let delay = (gif?[kCGImagePropertyGIFUnclampedDelayTime as String] as? Double) ?? (gif?[kCGImagePropertyGIFDelayTime as String] as? Double) ?? 0.1
        result.append((image, delay))
    }
    return result
}

@Suite struct AnimatedGIFFramesIdiom {
    @Test(.enabled(if: Tools.path("convert") != nil && Tools.path("identify") != nil, "ImageMagick missing"))
    func frameCountAndDelaysMatchImageMagick() throws {
        let dir = try Tools.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("anim.gif")
        try Tools.run("convert", ["-delay", "20", "-size", "12x10", "xc:red", "xc:green", "xc:blue", "-loop", "0", url.path])
        let list = frames(of: url)
        let magickFrames = String(decoding: try Tools.run("identify", ["-format", "%T\n", url.path]), as: UTF8.self).split(separator: "\n")
        #expect(list.count == magickFrames.count)
        // ImageMagick's delay is in hundredths of a second.
        for ((image, delay), ticks) in zip(list, magickFrames) {
            #expect(image.width == 12 && image.height == 10)
            #expect(abs(delay - Double(ticks)! / 100) < 1e-6)
        }
    }
}
