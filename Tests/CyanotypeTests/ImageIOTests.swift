import Foundation
import Testing

@testable import Cyanotype
@testable import CyanotypeCodecs

/// A solid-colour frame as a CGImage (through Core Image, as Apple's users make them).
func solidFrame(_ r: Double, _ g: Double, _ b: Double, width: Int = 8, height: Int = 6) -> CGImage {
    let image = CIImage(color: CIColor(red: r, green: g, blue: b)).cropped(to: CGRect(x: 0, y: 0, width: width, height: height))
    return CIContext().createCGImage(image, from: image.extent)!
}

func temporaryURL(_ name: String) -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-imageio-\(UUID().uuidString)-\(name)")
}

@Suite struct ImageIOTests {
    @Test func appleStyleGIFRoundTrip() throws {
        let url = temporaryURL("a.gif")
        defer { try? FileManager.default.removeItem(at: url) }
        let frames = [solidFrame(1, 0, 0), solidFrame(0, 1, 0), solidFrame(0, 0, 1)]
        #expect(AppleStyleImageIO.writeGIF(frames: frames, delay: 0.25, to: url))
        #expect(AppleStyleImageIO.frameDelays(at: url) == [0.25, 0.25, 0.25])
        let (loops, type) = AppleStyleImageIO.loopCountAndType(at: url)
        #expect(loops == 0)
        #expect(type == "com.compuserve.gif")
        let back = AppleStyleImageIO.frames(from: try Data(contentsOf: url))
        #expect(back.count == 3)
        let blue = [UInt8](back[2].data)
        #expect(Array(blue.prefix(4)) == [0, 0, 255, 255])
        // Core Image's reader of a source's frame; and the frame option on a file.
        #expect(AppleStyleImageIO.ciImage(from: url, index: 1)?.extent == CGRect(x: 0, y: 0, width: 8, height: 6))
        let second = try #require(CIImage(contentsOf: url, options: [.frameIndex: 1]))
        let px = try CIContext().renderToData(second, from: second.extent, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
        #expect(Array([UInt8](px.data).prefix(4)) == [0, 255, 0, 255])
        let first = try #require(CIImage(contentsOf: url))
        let p0 = try CIContext().renderToData(first, from: first.extent, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
        #expect(Array([UInt8](p0.data).prefix(4)) == [255, 0, 0, 255])
        #expect(CIImage(contentsOf: url, options: [.frameIndex: 3]) == nil)
    }

    @Test func appleStyleTIFFPages() throws {
        let pages = [solidFrame(1, 1, 0, width: 5, height: 3), solidFrame(0, 1, 1, width: 9, height: 4)]
        let data = try #require(AppleStyleImageIO.tiffData(pages: pages))
        let source = try #require(CGImageSourceCreateWithData(data as CFData, nil))
        #expect(CGImageSourceGetCount(source) == 2)
        #expect(CGImageSourceGetType(source) == "public.tiff")
        let p1 = try #require(CGImageSourceCopyPropertiesAtIndex(source, 1, nil) as? [String: Any])
        #expect(p1[kCGImagePropertyPixelWidth] as? Int == 9)
        #expect(p1[kCGImagePropertyPixelHeight] as? Int == 4)
        #expect(CGImageSourceCreateImageAtIndex(source, 1, nil)?.width == 9)
        #expect(CGImageSourceCreateImageAtIndex(source, 2, nil) == nil)
    }

    @Test(arguments: [
        ("public.png", kCGImagePropertyPNGDictionary), ("org.webmproject.webp", kCGImagePropertyWebPDictionary),
        ("com.compuserve.gif", kCGImagePropertyGIFDictionary),
    ])
    func animationPropertiesPerFormat(type: String, key: String) throws {
        let data = NSMutableData()
        let destination = try #require(CGImageDestinationCreateWithData(data, type, 2, nil))
        CGImageDestinationSetProperties(destination, [key: [kCGImagePropertyGIFLoopCount: 4], CIImageRepresentationOption.lossless.rawValue: true] as CFDictionary)
        CGImageDestinationAddImage(destination, solidFrame(1, 0, 0), [key: [kCGImagePropertyGIFDelayTime: 0.05]] as CFDictionary)
        CGImageDestinationAddImage(destination, solidFrame(0, 0, 1), [key: [kCGImagePropertyGIFDelayTime: 0.5]] as CFDictionary)
        #expect(CGImageDestinationFinalize(destination))
        let source = try #require(CGImageSourceCreateWithData(data, nil))
        #expect(CGImageSourceGetType(source) == type)
        #expect(CGImageSourceGetCount(source) == 2)
        let file = try #require(CGImageSourceCopyProperties(source, nil) as? [String: Any])
        let dict = try #require(file[key] as? [String: Any])
        #expect(dict[kCGImagePropertyGIFLoopCount] as? Int == 4)
        #expect(dict[kCGImagePropertyGIFCanvasPixelWidth] as? Int == 8)
        let infos = try #require(dict[kCGImagePropertyGIFFrameInfoArray] as? [[String: Any]])
        #expect(infos.map { $0[kCGImagePropertyGIFUnclampedDelayTime] as? Double } == [0.05, 0.5])
        // The clamped delay: never below 0.1 s.
        #expect(infos.map { $0[kCGImagePropertyGIFDelayTime] as? Double } == [0.1, 0.5])
        let frame = try #require(CGImageSourceCopyPropertiesAtIndex(source, 1, nil) as? [String: Any])
        let fd = try #require(frame[key] as? [String: Any])
        #expect(fd[kCGImagePropertyGIFUnclampedDelayTime] as? Double == 0.5)
        #expect(fd[kCyanotypePropertyFrameRect] as? CGRect == CGRect(x: 0, y: 0, width: 8, height: 6) || type == "org.webmproject.webp")
        #expect(frame[kCGImagePropertyPixelWidth] as? Int == 8)
        let blue = try #require(CGImageSourceCreateImageAtIndex(source, 1, nil))
        #expect(Array([UInt8](blue.data).prefix(4)) == [0, 0, 255, 255])
    }

    @Test func thumbnailsScaleAndTurnUpright() throws {
        // A 40x20 TIFF whose EXIF orientation 6 says "turn right": upright it is 20x40.
        var o = EncodeOptions()
        o.orientation = 6
        let px = testPixels(width: 40, height: 20)
        let tiff = try px.withUnsafeBufferPointer {
            try ImageCodecs.encode(rgba8: $0, width: 40, height: 20, hasAlpha: false, format: .tiff, options: o)
        }
        let thumb = try #require(AppleStyleImageIO.thumbnail(of: tiff, maxPixelSize: 10))
        #expect((thumb.width, thumb.height) == (5, 10))
        let source = try #require(CGImageSourceCreateWithData(tiff as CFData, nil))
        let plain = try #require(
            CGImageSourceCreateThumbnailAtIndex(
                source, 0,
                [
                    kCGImageSourceCreateThumbnailFromImageAlways: true,
                    kCGImageSourceThumbnailMaxPixelSize: 8,
                ] as CFDictionary))
        #expect((plain.width, plain.height) == (8, 4))
        // Never enlarged; and without a "from image" flag there is no embedded thumbnail to give.
        let full = try #require(
            CGImageSourceCreateThumbnailAtIndex(
                source, 0,
                [
                    kCGImageSourceCreateThumbnailFromImageAlways: true,
                    kCGImageSourceThumbnailMaxPixelSize: 400,
                ] as CFDictionary))
        #expect((full.width, full.height) == (40, 20))
        #expect(CGImageSourceCreateThumbnailAtIndex(source, 0, nil) == nil)
    }

    /// Image 0 of a still file has exactly `ImageFileProperties`' dictionary (one builder for
    /// both); an APNG frame's `{PNG}` holds the file's PNG keys and the frame's timing.
    @Test func framePropertiesAreTheFilesDictionary() throws {
        var o = EncodeOptions()
        o.exif = Data(EXIFPropertiesTests.exifBlock())
        o.xmp = ImagePropertiesTests.xmp
        o.dpi = 150
        let px = [UInt8](repeating: 0x60, count: 8 * 4 * 4)
        let jpeg = try px.withUnsafeBufferPointer { try ImageCodecs.encode(rgba8: $0, width: 8, height: 4, hasAlpha: false, format: .jpeg, options: o) }
        let still = try #require(CGImageSourceCreateWithData(jpeg as CFData, nil))
        let atIndex = try #require(CGImageSourceCopyPropertiesAtIndex(still, 0, nil) as? [String: Any])
        let file = try ImageFileProperties.properties(ofImageData: jpeg)
        func json(_ d: [String: Any]) throws -> String {
            String(decoding: try JSONSerialization.data(withJSONObject: d, options: [.sortedKeys]), as: UTF8.self)
        }
        #expect(try json(atIndex) == json(file))
        #expect((atIndex["{Exif}"] as? [String: Any])?[kCGImagePropertyExifISOSpeedRatings] as? Int == 200)

        let data = NSMutableData()
        let destination = try #require(CGImageDestinationCreateWithData(data, "public.png", 2, nil))
        for (i, frame) in [solidFrame(1, 0, 0), solidFrame(0, 1, 0)].enumerated() {
            CGImageDestinationAddImage(destination, frame, [kCGImagePropertyPNGDictionary: [kCGImagePropertyAPNGDelayTime: 0.2 * Double(i + 1)]] as CFDictionary)
        }
        #expect(CGImageDestinationFinalize(destination))
        let source = try #require(CGImageSourceCreateWithData(data, nil))
        let frame = try #require(CGImageSourceCopyPropertiesAtIndex(source, 1, nil) as? [String: Any])
        let png = try #require(frame[kCGImagePropertyPNGDictionary] as? [String: Any])
        #expect(png[kCGImagePropertyAPNGUnclampedDelayTime] as? Double == 0.4 && png[kCGImagePropertyPNGInterlaceType] as? Int == 0, "\(png)")
        let firstOfFile = try ImageFileProperties.properties(ofImageData: data as Data)
        #expect((firstOfFile[kCGImagePropertyPNGDictionary] as? [String: Any])?[kCGImagePropertyPNGInterlaceType] as? Int == 0)
    }

    /// Animations and pages written through a destination keep the first image's EXIF, XMP
    /// (with its orientation) and colour profile; GIF holds none.
    @Test(arguments: ["public.png", "org.webmproject.webp", "public.tiff", "com.compuserve.gif"])
    func destinationsCarryMetadataIntoAnimations(type: String) throws {
        var o = EncodeOptions()
        o.exif = Data(EXIFPropertiesTests.exifBlock())  // orientation 6, Make Canon
        o.xmp = ImagePropertiesTests.xmp
        let px = [UInt8](repeating: 0x60, count: 8 * 6 * 4)
        let jpeg = try px.withUnsafeBufferPointer { try ImageCodecs.encode(rgba8: $0, width: 8, height: 6, hasAlpha: false, format: .jpeg, options: o) }
        let source = try #require(CGImageSourceCreateWithData(jpeg as CFData, nil))
        let data = NSMutableData()
        let destination = try #require(CGImageDestinationCreateWithData(data, type, 2, nil))
        CGImageDestinationAddImageFromSource(destination, source, 0, nil)
        CGImageDestinationAddImage(destination, solidFrame(0, 0, 1), nil)
        #expect(CGImageDestinationFinalize(destination))
        let h = try ImageCodecs.readHeader(data as Data)
        #expect(try FrameDecoder(data: data as Data).sequence.frameCount == 2)
        if type == "com.compuserve.gif" {
            #expect(h.exif == nil && h.xmp == nil)
            return
        }
        let exif = try #require(h.exif, "\(type)")
        #expect(EXIFProperties(exif).tiff["Make"] as? String == "Canon", "\(type)")
        #expect(h.orientation == 6 && h.xmp.map { String(decoding: $0, as: UTF8.self).contains("tiff:Orientation=\"6\"") } == true, "\(type)")
        #expect(h.iccProfile == nil, "sRGB frames: no profile")
        // A Display P3 first frame: its profile goes in.
        let p3 = CGColorSpace(name: CGColorSpace.displayP3)
        let red = CIImage(color: CIColor(red: 1, green: 0, blue: 0)).cropped(to: CGRect(x: 0, y: 0, width: 8, height: 6))
        let frame = try #require(CIContext().createCGImage(red, from: red.extent, format: .RGBA8, colorSpace: p3))
        let tagged = NSMutableData()
        let second = try #require(CGImageDestinationCreateWithData(tagged, type, 2, nil))
        CGImageDestinationAddImage(second, frame, nil)
        CGImageDestinationAddImage(second, frame, nil)
        #expect(CGImageDestinationFinalize(second))
        let profile = try #require(try ImageCodecs.readHeader(tagged as Data).iccProfile, "\(type)")
        #expect(ColorProfiles.description(of: profile)?.contains("P3") == true)
    }

    @Test func typedErrorsNameTheFile() throws {
        let url = temporaryURL("cut.gif")
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(AppleStyleImageIO.writeGIF(frames: [solidFrame(1, 0, 0), solidFrame(0, 1, 0)], delay: 0.1, to: url))
        let data = try Data(contentsOf: url)
        try data.prefix(data.count - 20).write(to: url)
        let source = try #require(CGImageSourceCreateWithURL(url as CFURL, nil))
        #expect(CGImageSourceCreateImageAtIndex(source, 1, nil) == nil)
        guard case .codec(let path, .truncated)? = source.error else {
            Issue.record("expected a truncation error, got \(String(describing: source.error))")
            return
        }
        #expect(path == url.path)
        #expect(source.error?.description.hasPrefix(url.path + ": image data is truncated") == true)
        // Not an image at all.
        let junk = try #require(CGImageSourceCreateWithData(Data("hello".utf8) as CFData, nil))
        #expect(CGImageSourceGetCount(junk) == 0)
        #expect(CGImageSourceGetType(junk) == nil)
        #expect(CGImageSourceGetStatus(junk) == .statusUnknownType)
        // Destinations refuse unknown types and too many images.
        #expect(CGImageDestinationCreateWithData(NSMutableData(), "public.bmp", 1, nil) == nil)
        let d = try #require(CGImageDestinationCreateWithData(NSMutableData(), "public.png", 1, nil))
        CGImageDestinationAddImage(d, solidFrame(1, 0, 0), nil)
        CGImageDestinationAddImage(d, solidFrame(1, 0, 0), nil)
        #expect(!CGImageDestinationFinalize(d))
    }
}
