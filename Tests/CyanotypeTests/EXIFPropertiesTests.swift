import Foundation
import Testing
@testable import Cyanotype

/// EXIF metadata in `CIImage.properties`, from a block built here byte by byte.
@Suite struct EXIFPropertiesTests {
    /// A little-endian TIFF-structured EXIF block: IFD0 (Make, Orientation, Exif and GPS
    /// pointers), an Exif IFD (ExposureTime 1/125, ISO 200, DateTimeOriginal) and a GPS IFD
    /// (48 deg 51' 24" N).
    static func exifBlock() -> [UInt8] {
        var b: [UInt8] = Array("II".utf8) + [42, 0, 8, 0, 0, 0]
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { u16(v & 0xFFFF) + u16(v >> 16) }
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: [UInt8]) -> [UInt8] {
            u16(tag) + u16(type) + u32(count) + value + [UInt8](repeating: 0, count: 4 - value.count)
        }
        // Layout: IFD0 at 8 (4 entries: 2 + 48 + 4 = 54 bytes) -> data at 62.
        let ifd0 = 8, make = 62, exifIFD = 70, exifData = exifIFD + 2 + 3 * 12 + 4, gpsIFD = exifData + 8 + 20
        b += u16(4)
        b += entry(0x010F, 2, 6, u32(make))
        b += entry(0x0112, 3, 1, u16(6))
        b += entry(0x8769, 4, 1, u32(exifIFD))
        b += entry(0x8825, 4, 1, u32(gpsIFD))
        b += u32(0)
        precondition(b.count == make && ifd0 == 8)
        b += Array("Canon".utf8) + [0, 0, 0]  // 8 bytes to 70
        b += u16(3)
        b += entry(0x829A, 5, 1, u32(exifData))  // ExposureTime -> rational
        b += entry(0x8827, 3, 1, u16(200))
        b += entry(0x9003, 2, 20, u32(exifData + 8))
        b += u32(0)
        b += u32(1) + u32(125)
        b += Array("2026:12:01 10:20:30".utf8) + [0]
        precondition(b.count == gpsIFD)
        let gpsData = gpsIFD + 2 + 2 * 12 + 4
        b += u16(2)
        b += entry(0x0001, 2, 2, Array("N".utf8) + [0])
        b += entry(0x0002, 5, 3, u32(gpsData))
        b += u32(0)
        b += u32(48) + u32(1) + u32(51) + u32(1) + u32(2400) + u32(100)
        return b
    }

    @Test func dictionariesFromTheBlock() throws {
        let d = EXIFDictionary.parse(Data(Self.exifBlock()))
        let tiff = try #require(d[kCGImagePropertyTIFFDictionary] as? [String: Any])
        #expect(tiff["Make"] as? String == "Canon")
        #expect(tiff["Orientation"] as? Int == 6)
        let exif = try #require(d[kCGImagePropertyExifDictionary] as? [String: Any])
        #expect(exif["ExposureTime"] as? Double == 1.0 / 125)
        #expect(exif["ISOSpeedRatings"] as? Int == 200)
        #expect(exif["DateTimeOriginal"] as? String == "2026:12:01 10:20:30")
        let gps = try #require(d[kCGImagePropertyGPSDictionary] as? [String: Any])
        #expect(gps["LatitudeRef"] as? String == "N")
        #expect(abs((gps["Latitude"] as? Double ?? 0) - (48 + 51.0 / 60 + 24.0 / 3600)) < 1e-9)
    }

    @Test func aJPEGCarriesThemIntoProperties() throws {
        let img = image(testPixels(width: 8, height: 4), 8, 4)
        let jpeg = try CIContext().encode(img, as: .jpeg)
        let tiff = Self.exifBlock()
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let app1: [UInt8] = [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        let withExif = Data(Array(jpeg.prefix(2)) + app1 + Array(jpeg.dropFirst(2)))
        let read = try CIImage.read(data: withExif)
        #expect(read.properties[kCGImagePropertyOrientation] as? Int == 6)
        #expect((read.properties[kCGImagePropertyTIFFDictionary] as? [String: Any])?["Model"] == nil)
        #expect((read.properties[kCGImagePropertyExifDictionary] as? [String: Any])?["ISOSpeedRatings"] as? Int == 200)
        #expect((read.properties[kCGImagePropertyGPSDictionary] as? [String: Any])?["LatitudeRef"] as? String == "N")
    }

    @Test func damagedBlocksGiveFewerEntriesNotTraps() {
        let good = Self.exifBlock()
        for cut in stride(from: 0, to: good.count, by: 7) { _ = EXIFDictionary.parse(Data(good.prefix(cut))) }
        var rng = SplitMix(0xE81F)
        for _ in 0..<300 {
            var bad = good
            for _ in 0..<4 { bad[Int.random(in: 0..<bad.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
            _ = EXIFDictionary.parse(Data(bad))
        }
    }
}

@Suite struct EXIFRoundTripTests {
    @Test func jpegKeepsEXIFUnlessStripped() throws {
        let img = image(testPixels(width: 8, height: 4), 8, 4)
        let jpeg = try CIContext().encode(img, as: .jpeg)
        let payload = Array("Exif".utf8) + [0, 0] + EXIFPropertiesTests.exifBlock()
        let app1: [UInt8] = [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        let withExif = Data(Array(jpeg.prefix(2)) + app1 + Array(jpeg.dropFirst(2)))
        // Turned upright on reading: the written EXIF keeps the camera data, orientation 1.
        let upright = try CIImage.read(data: withExif, options: [.applyOrientationProperty: true])
        let written = try CIContext().encode(upright, as: .jpeg)
        let again = try CIImage.read(data: written)
        #expect(again.properties[kCGImagePropertyOrientation] as? Int == 1)
        #expect((again.properties[kCGImagePropertyExifDictionary] as? [String: Any])?["ISOSpeedRatings"] as? Int == 200)
        // Not turned: the orientation tag is kept.
        let asStored = try CIContext().encode(try CIImage.read(data: withExif), as: .jpeg)
        #expect(try CIImage.read(data: asStored).properties[kCGImagePropertyOrientation] as? Int == 6)
        // Stripped: no EXIF at all.
        let stripped = try CIContext().encode(upright, as: .jpeg, options: [.stripMetadata: true])
        #expect(try CIImage.read(data: stripped).properties[kCGImagePropertyExifDictionary] == nil)
    }
}
