// Reading a photo's capture date, camera and exposure the way gallery apps do: the property
// dictionaries of CGImageSourceCopyPropertiesAtIndex, cast to [String: Any].
import Foundation
import ImageIO
import Testing

private struct PhotoInfo {
    var dateTaken: String?
    var dateDigitized: String?
    var cameraModel: String?
    var exposureTime: Double?
    var subjectDistance: Double?
    var width: Int?
}

private func photoInfo(at url: URL) -> PhotoInfo? {
    guard let source = CGImageSourceCreateWithURL(url as CFURL, nil),
        let properties = CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [String: Any]
    else { return nil }
    var info = PhotoInfo()
    info.width = properties[kCGImagePropertyPixelWidth as String] as? Int
    if let exif = properties[kCGImagePropertyExifDictionary as String] as? [String: Any] {
        info.dateTaken = exif[kCGImagePropertyExifDateTimeOriginal as String] as? String
        info.dateDigitized = exif[kCGImagePropertyExifDateTimeDigitized as String] as? String
        info.exposureTime = exif[kCGImagePropertyExifExposureTime as String] as? Double
        info.subjectDistance = exif[kCGImagePropertyExifSubjectDistance as String] as? Double
    }
    if let tiff = properties[kCGImagePropertyTIFFDictionary as String] as? [String: Any] {
        info.cameraModel = tiff[kCGImagePropertyTIFFModel as String] as? String
    }
    return info
}

@Suite struct ExifMetadataReadIdiom {
    @Test(.enabled(if: Tools.path("exiftool") != nil && Tools.path("convert") != nil, "exiftool or ImageMagick missing"))
    func tagsWrittenByExiftoolAreRead() throws {
        let dir = try Tools.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("photo.jpg")
        try Tools.run("convert", ["-size", "64x48", "xc:gray", url.path])
        try Tools.run(
            "exiftool",
            [
                "-q", "-overwrite_original", "-DateTimeOriginal=2021:07:14 10:20:30", "-CreateDate=2021:07:14 10:21:00", "-Model=Test Camera",
                "-ExposureTime=1/250", "-SubjectDistance=2.5", url.path,
            ])
        let info = try #require(photoInfo(at: url))
        #expect(info.width == 64)
        #expect(info.dateTaken == "2021:07:14 10:20:30")
        #expect(info.dateDigitized == "2021:07:14 10:21:00")
        #expect(info.cameraModel == "Test Camera")
        #expect(info.exposureTime.map { abs($0 - 0.004) < 1e-9 } == true)
        #expect(info.subjectDistance.map { abs($0 - 2.5) < 1e-9 } == true)
    }
}
