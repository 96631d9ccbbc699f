// Editing a photo's metadata without touching its pixels, as geotaggers and renamers do:
// copy the source's properties, change some, CGImageDestinationAddImageFromSource.
import Foundation
import ImageIO
import Testing

private func addCaption(_ caption: String, artist: String, to input: URL, writingTo output: URL) -> Bool {
    guard let source = CGImageSourceCreateWithURL(input as CFURL, nil),
        let type = CGImageSourceGetType(source),
        let destination = CGImageDestinationCreateWithURL(output as CFURL, type, 1, nil)
    else { return false }
    var properties = (CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [CFString: Any]) ?? [:]
    var exif = (properties[kCGImagePropertyExifDictionary] as? [CFString: Any]) ?? [:]
    exif[kCGImagePropertyExifUserComment] = caption
    properties[kCGImagePropertyExifDictionary] = exif
    var tiff = (properties[kCGImagePropertyTIFFDictionary] as? [CFString: Any]) ?? [:]
    tiff[kCGImagePropertyTIFFArtist] = artist
    properties[kCGImagePropertyTIFFDictionary] = tiff
    CGImageDestinationAddImageFromSource(destination, source, 0, properties as CFDictionary)
    return CGImageDestinationFinalize(destination)
}

@Suite struct MetadataWriteIdiom {
    @Test(.enabled(if: Tools.path("exiftool") != nil && Tools.path("convert") != nil, "exiftool or ImageMagick missing"))
    func exiftoolReadsTheNewTags() throws {
        let dir = try Tools.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.jpg"), output = dir.appendingPathComponent("out.jpg")
        try Tools.run("convert", ["-size", "40x30", "xc:orange", input.path])
        #expect(addCaption("Harbour at dawn", artist: "A. Photographer", to: input, writingTo: output))
        // Oracle: exiftool's reading of the written file.
        let tags = String(decoding: try Tools.run("exiftool", ["-s3", "-UserComment", "-Artist", "-ImageWidth", output.path]), as: UTF8.self)
        #expect(tags.split(separator: "\n").map(String.init) == ["Harbour at dawn", "A. Photographer", "40"])
    }
}
