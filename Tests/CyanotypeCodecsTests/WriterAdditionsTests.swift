import Foundation
import Testing

import CyanotypeCodecs

/// Grey output, DPI in PNG and JPEG, encoder effort, and EXIF edits (the CLI's needs, #13).
@Suite struct WriterAdditionsTests {
    @Test func greyFilesHoldOneChannel() throws {
        let (w, h) = (9, 7)
        var px = smoothRGBA8(width: w, height: h, alpha: true)
        for i in 0..<(w * h) { px[4 * i] = px[4 * i + 1]; px[4 * i + 2] = px[4 * i + 1] }
        var o = EncodeOptions()
        o.grayscale = true
        for (format, alpha, channels) in [(ImageFileFormat.png, false, 1), (.png, true, 2), (.tiff, false, 1), (.tiff, true, 2), (.jpeg, false, 1)] {
            let data = try encode8(px, w, h, alpha: alpha, format, o)
            let header = try ImageCodecs.readHeader(data)
            #expect(header.channels == channels && header.colorModel == "Gray", "\(format) alpha \(alpha)")
            let back = try ImageCodecs.decode(data)
            let tolerance = format == .jpeg ? 3 : 0
            for i in 0..<(w * h) {
                #expect(abs(Int(back.pixels[4 * i]) - Int(px[4 * i + 1])) <= tolerance && back.pixels[4 * i] == back.pixels[4 * i + 2])
                #expect(back.pixels[4 * i + 3] == (alpha ? px[4 * i + 3] : 255))
            }
        }
        // 16-bit grey PNG keeps 16 bits.
        let deep: [UInt16] = (0..<(w * h)).flatMap { i -> [UInt16] in
            let v = UInt16(i * 1000); return [v, v, v, 65535]
        }
        let png16 = try deep.withUnsafeBufferPointer { try ImageCodecs.encode(rgba16: $0, width: w, height: h, hasAlpha: false, format: .png, options: o) }
        let h16 = try ImageCodecs.readHeader(png16)
        #expect(h16.channels == 1 && h16.bitDepth == 16)
        #expect(try ImageCodecs.decode(png16).pixels16 == deep)
    }

    @Test func dpiInPNGAndJPEG() throws {
        let px = smoothRGBA8(width: 6, height: 4)
        var o = EncodeOptions()
        for dpi in [72.0, 300, 600] {
            o.dpi = dpi
            for format in [ImageFileFormat.png, .jpeg, .tiff] {
                #expect(try ImageCodecs.readHeader(encode8(px, 6, 4, alpha: false, format, o)).dpi == dpi, "\(format) \(dpi)")
            }
        }
        #expect(try ImageCodecs.readHeader(encode8(px, 6, 4, alpha: false, .png)).dpi == nil)
    }

    @Test func effortIsCheckedAndUsed() throws {
        let px = smoothRGBA8(width: 32, height: 32)
        var o = EncodeOptions()
        o.effort = 0
        let fast = try encode8(px, 32, 32, alpha: false, .webp, o)
        o.effort = 6
        let slow = try encode8(px, 32, 32, alpha: false, .webp, o)
        #expect(try ImageCodecs.decode(fast).width == 32 && ImageCodecs.decode(slow).width == 32)
        o.effort = 7
        #expect(throws: ImageFileError.self) { try encode8(px, 32, 32, alpha: false, .webp, o) }
    }

    /// A little-endian EXIF block: IFD0 (Orientation, GPS pointer, EXIF pointer), a GPS IFD
    /// with a latitude and a marker, an EXIF IFD with PixelXDimension / PixelYDimension.
    func exifBlock() -> Data {
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * $0) & 0xFF) } }
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: [UInt8]) -> [UInt8] {
            le16(tag) + le16(type) + le32(count) + value + [UInt8](repeating: 0, count: 4 - value.count)
        }
        let ifd0 = 8, exif = ifd0 + 2 + 3 * 12 + 4, gps = exif + 2 + 2 * 12 + 4, marker = gps + 2 + 2 * 12 + 4
        var b: [UInt8] = Array("II".utf8) + [42, 0] + le32(ifd0)
        b += le16(3) + entry(0x0112, 3, 1, le16(6)) + entry(0x8769, 4, 1, le32(exif)) + entry(0x8825, 4, 1, le32(gps)) + le32(0)
        b += le16(2) + entry(0xA002, 4, 1, le32(4000)) + entry(0xA003, 3, 1, le16(3000)) + le32(0)
        b += le16(2) + entry(0x0001, 2, 2, Array("N".utf8) + [0]) + entry(0x001B, 7, 8, le32(marker)) + le32(0)
        b += Array("GPSMARK!".utf8)
        return Data(b)
    }

    @Test func gpsIsRemovedWithEveryByte() throws {
        let exif = exifBlock()
        #expect(ImageCodecs.exifContainsGPS(exif))
        let clean = try #require(ImageCodecs.exifRemovingGPS(exif))
        #expect(!ImageCodecs.exifContainsGPS(clean) && clean.count == exif.count)
        #expect(clean.range(of: Data("GPSMARK!".utf8)) == nil && clean.range(of: Data("N\0".utf8)) == nil)
        // The rest still reads: orientation and the EXIF sizes.
        var o = EncodeOptions()
        o.exif = clean
        #expect(try ImageCodecs.readHeader(encode8(smoothRGBA8(width: 4, height: 4), 4, 4, alpha: false, .jpeg, o)).orientation == 6)
        let sized = ImageCodecs.exifSettingPixelDimensions(clean, width: 40, height: 30)
        #expect(sized.range(of: Data([40, 0, 0, 0])) != nil && sized.range(of: Data([30, 0])) != nil)
        #expect(ImageCodecs.exifRemovingGPS(clean) == clean)
        #expect(ImageCodecs.exifRemovingGPS(Data("not exif".utf8)) == nil)
        #expect(ImageCodecs.exifRemovingGPS(exif.prefix(20)) == nil)
    }
}
