import CyanotypeCodecs
import Foundation
import Testing

@testable import Cyanotype

/// `ImageFileProperties`: Image I/O's dictionary for a file, key for key; and EXIF/XMP kept by
/// `CIContext`'s writers in every format, orientation and all.
@Suite struct ImagePropertiesTests {
    static let xmp = Data(
        """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description xmlns:tiff="http://ns.adobe.com/tiff/1.0/" xmlns:exif="http://ns.adobe.com/exif/1.0/"
          tiff:Orientation="6" exif:GPSLatitude="48,51.4N" exif:FNumber="28/10"/>
        </rdf:RDF></x:xmpmeta>
        """.utf8)

    func file(_ format: CyanotypeCodecs.ImageFileFormat, _ options: EncodeOptions, width: Int = 8, height: Int = 4) throws -> Data {
        let px = [UInt8](repeating: 0x60, count: width * height * 4)
        return try px.withUnsafeBufferPointer {
            try ImageCodecs.encode(rgba8: $0, width: width, height: height, hasAlpha: false, format: format, options: options)
        }
    }

    @Test func jpegWithEXIFHasImageIOsKeys() throws {
        var o = EncodeOptions()
        o.exif = Data(EXIFPropertiesTests.exifBlock())
        o.iccProfile = ColorProfilesForTests.displayP3
        o.dpi = 150
        o.progressive = true
        let p = try ImageFileProperties.properties(ofImageData: try file(.jpeg, o))
        #expect(p[kCGImagePropertyPixelWidth] as? Int == 8 && p[kCGImagePropertyPixelHeight] as? Int == 4)
        #expect(p[kCGImagePropertyDepth] as? Int == 8 && p[kCGImagePropertyColorModel] as? String == kCGImagePropertyColorModelRGB)
        #expect(p[kCGImagePropertyHasAlpha] as? Bool == false && p[kCGImagePropertyOrientation] as? Int == 6)
        #expect(p[kCGImagePropertyDPIWidth] as? Double == 150 && (p[kCGImagePropertyProfileName] as? String)?.contains("P3") == true)
        let tiff = try #require(p["{TIFF}"] as? [String: Any])
        #expect(tiff[kCGImagePropertyTIFFMake] as? String == "Canon" && tiff[kCGImagePropertyTIFFOrientation] as? Int == 6)
        let exif = try #require(p["{Exif}"] as? [String: Any])
        #expect(exif[kCGImagePropertyExifExposureTime] as? Double == 1.0 / 125 && exif[kCGImagePropertyExifISOSpeedRatings] as? Int == 200)
        let gps = try #require(p["{GPS}"] as? [String: Any])
        #expect(gps[kCGImagePropertyGPSLatitudeRef] as? String == "N")
        let jfif = try #require(p["{JFIF}"] as? [String: Any])
        #expect(jfif[kCGImagePropertyJFIFVersion] as? [Int] == [1, 0, 1] && jfif[kCGImagePropertyJFIFIsProgressive] as? Bool == true)
        #expect(jfif[kCGImagePropertyJFIFDensityUnit] as? Int == 1 && jfif[kCGImagePropertyJFIFXDensity] as? Int == 150)
        // Script-ready: the dictionary is JSON as it is.
        #expect(JSONSerialization.isValidJSONObject(p))
        // Raw blocks live only in CIImage.properties, not in Image I/O's dictionary.
        #expect(p[kCyanotypePropertyRawEXIF] == nil)
    }

    @Test func pngTIFFAndJPEGXLDictionaries() throws {
        var o = EncodeOptions()
        o.dpi = 72
        let png = try ImageFileProperties.properties(ofImageData: try file(.png, o))
        let pngDict = try #require(png["{PNG}"] as? [String: Any])
        #expect(pngDict[kCGImagePropertyPNGInterlaceType] as? Int == 0 && pngDict[kCGImagePropertyPNGXPixelsPerMeter] as? Int == 2835)
        let tiff = try ImageFileProperties.properties(ofImageData: try file(.tiff, o))
        let tiffDict = try #require(tiff["{TIFF}"] as? [String: Any])
        #expect(tiffDict[kCGImagePropertyTIFFCompression] as? Int == 5 && tiffDict[kCGImagePropertyTIFFPhotometricInterpretation] as? Int == 2)
        o.lossless = true
        let px = [Float](repeating: 0.25, count: 4 * 4 * 4)
        let jxl = try px.withUnsafeBufferPointer {
            try ImageCodecs.encode(rgbaF: $0, width: 4, height: 4, hasAlpha: true, format: .jxl, options: o)
        }
        let j = try ImageFileProperties.properties(ofImageData: jxl)
        #expect(j[kCGImagePropertyIsFloat] as? Bool == true && j[kCGImagePropertyDepth] as? Int == 32)
        #expect(j[kCyanotypePropertyIsLossless] as? Bool == true && j[kCGImagePropertyHasAlpha] as? Bool == true)
    }

    @Test func errorsNameTheFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cy-props-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("broken.jxl")
        try Data([0xFF, 0x0A, 1, 2, 3]).write(to: url)
        #expect(throws: ImageIOError.self) { try ImageFileProperties.properties(contentsOf: url) }
        do {
            _ = try ImageFileProperties.properties(contentsOf: url)
        } catch {
            #expect(error.description.hasPrefix(url.path + ": "), "\(error)")
        }
    }

    /// What `CIContext` writes keeps the EXIF and XMP of the image it renders, in every
    /// format, with their orientation set to the pixels': 1 once turned upright.
    @Test(arguments: [Cyanotype.ImageFileFormat.jpeg, .png, .webp, .tiff, .jxl, .avif].filter(\.canEncode))
    func contextWritersKeepEXIFAndXMP(format: Cyanotype.ImageFileFormat) throws {
        var o = EncodeOptions()
        o.exif = Data(EXIFPropertiesTests.exifBlock())
        o.xmp = Self.xmp
        let source = try CIImage.read(data: try file(.jpeg, o), options: [.applyOrientationProperty: true])
        #expect(source.properties[kCGImagePropertyOrientation] as? Int == 1)
        #expect(source.properties[kCyanotypePropertyRawXMP] as? Data == Self.xmp)
        let written = try CIContext().encode(source, as: format)
        let h = try ImageCodecs.readHeader(written)
        let props = try ImageFileProperties.properties(ofImageData: written)
        #expect((props["{TIFF}"] as? [String: Any])?["Make"] as? String == "Canon", "\(format)")
        let xmp = String(decoding: try #require(h.xmp), as: UTF8.self)
        #expect(xmp.contains("tiff:Orientation=\"1\"") && xmp.contains("exif:FNumber"), "\(format)")
        // EXIF's orientation is upright too; TIFF's own tag wins there (written as 1).
        #expect(h.orientation == 1, "\(format)")
        if format != .tiff { #expect((props["{TIFF}"] as? [String: Any])?["Orientation"] as? Int == 1, "\(format)") }
        // Not turned: the orientation the pixels still need is kept, in EXIF and XMP, and in
        // TIFF's and JPEG XL's own headers.
        let raw = try CIImage.read(data: try file(.jpeg, o))
        let kept = try ImageCodecs.readHeader(try CIContext().encode(raw, as: format))
        #expect(kept.orientation == (format == .avif || format == .heif ? 1 : 6), "\(format)")
        #expect(String(decoding: try #require(kept.xmp), as: UTF8.self).contains("tiff:Orientation=\"6\""))
        // .stripMetadata writes none of it.
        let stripped = try ImageCodecs.readHeader(try CIContext().encode(raw, as: format, options: [.stripMetadata: true]))
        #expect(stripped.exif == nil && stripped.xmp == nil && stripped.orientation == 1, "\(format)")
    }

    @Test func jpegXLRepresentationsKeepDepth() throws {
        let ctx = CIContext()
        let img = CIImage(color: CIColor(red: 0.2, green: 0.4, blue: 0.6)).cropped(to: CGRect(x: 0, y: 0, width: 6, height: 3))
        let deep = try #require(
            ctx.jpegXLRepresentation(
                of: img, format: .RGBA16, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!,
                options: [.lossless: true]))
        #expect(try ImageCodecs.readHeader(deep).bitDepth == 16)
        let float = try #require(ctx.jpegXLRepresentation(of: img, format: .RGBAf, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!))
        #expect(try ImageCodecs.readHeader(float).bitDepth == 32)
        #expect(Cyanotype.ImageFileFormat(pathExtension: "jxl") == .jxl && Cyanotype.ImageFileFormat(sniffing: deep) == .jxl && Cyanotype.ImageFileFormat.jxl.canEncode)
    }
}

/// The Display P3 profile the codecs build, for tests that embed one.
enum ColorProfilesForTests {
    static var displayP3: Data? { ColorProfiles.displayP3 }
}
