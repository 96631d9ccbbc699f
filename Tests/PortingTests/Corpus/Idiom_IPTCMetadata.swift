// Reading a news photo's IPTC caption, keywords and credit, as asset managers do.
import Foundation
import ImageIO
import Testing

private func iptcInfo(at url: URL) -> (caption: String?, keywords: [String], byline: [String], city: String?)? {
    guard let source = CGImageSourceCreateWithURL(url as CFURL, nil),
        let properties = CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [CFString: Any],
        let iptc = properties[kCGImagePropertyIPTCDictionary] as? [CFString: Any]
    else { return nil }
    return (
        iptc[kCGImagePropertyIPTCCaptionAbstract] as? String, iptc[kCGImagePropertyIPTCKeywords] as? [String] ?? [],
        iptc[kCGImagePropertyIPTCByline] as? [String] ?? [], iptc[kCGImagePropertyIPTCCity] as? String
    )
}

@Suite struct IPTCMetadataIdiom {
    @Test(.enabled(if: Tools.path("exiftool") != nil && Tools.path("convert") != nil, "exiftool or ImageMagick missing"))
    func theTagsExiftoolWroteAreRead() throws {
        let dir = try Tools.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("news.jpg")
        try Tools.run("convert", ["-size", "32x24", "xc:teal", url.path])
        try Tools.run(
            "exiftool",
            [
                "-q", "-overwrite_original", "-IPTC:Caption-Abstract=Boats at the quay", "-IPTC:Keywords=harbour", "-IPTC:Keywords=boats",
                "-IPTC:By-line=J. Doe", "-IPTC:City=Genoa", url.path,
            ])
        // Oracle: exiftool's own reading of what it wrote.
        let keywords = String(decoding: try Tools.run("exiftool", ["-s3", "-sep", ",", "-IPTC:Keywords", url.path]), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let info = try #require(iptcInfo(at: url))
        #expect(info.caption == "Boats at the quay")
        #expect(info.keywords.joined(separator: ",") == keywords)
        #expect(info.byline == ["J. Doe"])
        #expect(info.city == "Genoa")
    }
}
