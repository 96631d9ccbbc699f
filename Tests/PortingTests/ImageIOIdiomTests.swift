// Image I/O code as it is written for Apple's platforms: Apple's import lines, unchanged.
import Foundation
import ImageIO
import Testing
import UniformTypeIdentifiers

/// A thumbnailer as server-side resizers write it: options as `[CFString: Any]`, the size as
/// whatever number type the caller had.
private func thumbnail(of url: URL, maxPixelSize: Any, always: Any = true) -> CGImage? {
    guard let source = CGImageSourceCreateWithURL(url as CFURL, nil) else { return nil }
    let options: [CFString: Any] = [
        kCGImageSourceCreateThumbnailFromImageAlways: always,
        kCGImageSourceCreateThumbnailWithTransform: true,
        kCGImageSourceShouldCacheImmediately: true,
        kCGImageSourceThumbnailMaxPixelSize: maxPixelSize,
    ]
    return CGImageSourceCreateThumbnailAtIndex(source, 0, options as CFDictionary)
}

/// Pixel size from the properties dictionary, the way metadata tools read it.
private func pixelSize(of url: URL) -> (Int, Int)? {
    guard let source = CGImageSourceCreateWithURL(url as CFURL, nil),
        let properties = CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [CFString: Any],
        let width = properties[kCGImagePropertyPixelWidth] as? Int,
        let height = properties[kCGImagePropertyPixelHeight] as? Int
    else { return nil }
    return (width, height)
}

@Suite struct ImageIOIdiomTests {
    /// A 240 x 120 PNG made by ImageMagick.
    static func picture(in dir: URL) throws -> URL {
        let url = dir.appendingPathComponent("wide.png")
        try Tools.run("convert", ["-size", "240x120", "gradient:red-blue", url.path])
        return url
    }

    @Test func thumbnailMaxPixelSizeIsHonouredWhateverTheNumberType() throws {
        let dir = try Tools.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = try Self.picture(in: dir)
        #expect(pixelSize(of: url).map { [$0.0, $0.1] } == [240, 120])
        let sizes: [(String, Any)] = [
            ("CGFloat", CGFloat(60)), ("Int", 60), ("Double", 60.0), ("NSNumber", NSNumber(value: 60)), ("Float", Float(60)),
            ("Int32", Int32(60)),
        ]
        for (type, size) in sizes {
            let thumb = try #require(thumbnail(of: url, maxPixelSize: size), "\(type)")
            // Longer side 60, aspect kept: 60 x 30.
            #expect(thumb.width == 60, "\(type)")
            #expect(thumb.height == 30, "\(type)")
        }
        // Flags as Core Foundation booleans, NSNumbers or integers alike.
        for flag: Any in [kCFBooleanTrue as CFBoolean, NSNumber(value: true), 1] {
            let thumb = try #require(thumbnail(of: url, maxPixelSize: 60, always: flag), "\(flag)")
            #expect(thumb.width == 60)
        }
        #expect(thumbnail(of: url, maxPixelSize: 60, always: NSNumber(value: false)) == nil)
    }

    @Test func jpegQualityAsCGFloatIsHonoured() throws {
        let dir = try Tools.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try #require(CGImageSourceCreateWithURL(try Self.picture(in: dir) as CFURL, nil))
        let image = try #require(CGImageSourceCreateImageAtIndex(source, 0, nil))
        for quality in [CGFloat(0.3), CGFloat(0.9)] {
            let url = dir.appendingPathComponent("q\(Int(quality * 100)).jpg")
            let destination = try #require(CGImageDestinationCreateWithURL(url as CFURL, "public.jpeg" as CFString, 1, nil))
            CGImageDestinationAddImage(destination, image, [kCGImageDestinationLossyCompressionQuality: quality] as CFDictionary)
            #expect(CGImageDestinationFinalize(destination))
            // ImageMagick estimates the quality from the quantisation tables.
            let estimate = String(decoding: try Tools.run("identify", ["-format", "%Q", url.path]), as: UTF8.self)
            let q = try #require(Int(estimate.trimmingCharacters(in: .whitespacesAndNewlines)))
            #expect(abs(q - Int(quality * 100)) <= 3, "asked \(quality), ImageMagick estimates \(q)")
        }
    }

    @Test func aDestinationTypedByUTTypeWritesThatFormat() throws {
        let dir = try Tools.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try #require(CGImageSourceCreateWithURL(try Self.picture(in: dir) as CFURL, nil))
        let image = try #require(CGImageSourceCreateImageAtIndex(source, 0, nil))
        for type in [UTType.png, UTType.jpeg, UTType.tiff] {
            let data = NSMutableData()
            let destination = try #require(CGImageDestinationCreateWithData(data as CFMutableData, type.identifier as CFString, 1, nil))
            CGImageDestinationAddImage(destination, image, nil)
            #expect(CGImageDestinationFinalize(destination))
            let url = dir.appendingPathComponent("out.\(type.preferredFilenameExtension ?? "bin")")
            try (data as Data).write(to: url)
            let described = String(decoding: try Tools.run("identify", ["-format", "%m %w %h", url.path]), as: UTF8.self)
            #expect(described == "\(["public.png": "PNG", "public.jpeg": "JPEG", "public.tiff": "TIFF"][type.identifier]!) 240 120")
        }
        #expect(UTType(filenameExtension: "JPG") == .jpeg)
        #expect(UTType(mimeType: "image/heic")?.conforms(to: .image) == true)
        #expect(UTType("public.mpeg-4")?.conforms(to: .image) == false)
    }

    @Test func exifKeysReadWhatExiftoolWrote() throws {
        let dir = try Tools.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        // exiftool names tag 0x9004 (Image I/O's DateTimeDigitized) CreateDate.
        let url = dir.appendingPathComponent("camera.jpg")
        try Tools.run("convert", ["-size", "16x8", "xc:gray", url.path])
        try Tools.run(
            "exiftool",
            [
                "-q", "-overwrite_original", "-ExifIFD:CreateDate=2024:01:02 03:04:05", "-SubjectDistance=2.5", "-WhiteBalance#=1",
                "-LensMake=Acme", "-Artist=Someone", url.path,
            ])
        let source = try #require(CGImageSourceCreateWithURL(url as CFURL, nil))
        let properties = try #require(CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [CFString: Any])
        let exif = try #require(properties[kCGImagePropertyExifDictionary] as? [CFString: Any])
        let tiff = try #require(properties[kCGImagePropertyTIFFDictionary] as? [CFString: Any])
        #expect(exif[kCGImagePropertyExifDateTimeDigitized] as? String == "2024:01:02 03:04:05")
        #expect((exif[kCGImagePropertyExifSubjectDistance] as? NSNumber)?.doubleValue == 2.5)
        #expect((exif[kCGImagePropertyExifWhiteBalance] as? NSNumber)?.intValue == 1)
        #expect(exif[kCGImagePropertyExifLensMake] as? String == "Acme")
        #expect(tiff[kCGImagePropertyTIFFArtist] as? String == "Someone")
    }
}
