// Sniffing a file's size, DPI and colour model without decoding it.
import Foundation
import ImageIO
import Testing

private func describe(_ url: URL) -> (width: Int, height: Int, dpi: Double, model: String, type: String)? {
    guard let source = CGImageSourceCreateWithURL(url as CFURL, [kCGImageSourceShouldCache: false] as CFDictionary),
        let type = CGImageSourceGetType(source),
        let p = CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as NSDictionary?,
        let width = p[kCGImagePropertyPixelWidth] as? Int, let height = p[kCGImagePropertyPixelHeight] as? Int
    else { return nil }
    let dpi = (p[kCGImagePropertyDPIWidth] as? NSNumber)?.doubleValue ?? 72
    let model = (p[kCGImagePropertyColorModel] as? String) ?? "?"
    return (width, height, dpi, model, type as String)
}

@Suite struct ImageSourcePropertiesIdiom {
    @Test(.enabled(if: Tools.path("convert") != nil, "ImageMagick missing"))
    func propertiesAgreeWithImageMagick() throws {
        let dir = try Tools.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("scan.png")
        try Tools.run("convert", ["-size", "30x20", "xc:gray50", "-units", "PixelsPerInch", "-density", "300", "PNG24:" + url.path])
        let d = try #require(describe(url))
        let magick = String(decoding: try Tools.run("identify", ["-format", "%w %h", url.path]), as: UTF8.self)
        #expect("\(d.width) \(d.height)" == magick)
        #expect(abs(d.dpi - 300) < 0.5, "\(d.dpi)")
        #expect(d.model == kCGImagePropertyColorModelRGB as String)
        #expect(d.type == "public.png")
    }
}
