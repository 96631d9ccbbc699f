import Foundation
import Testing

@testable import CyanotypeCodecs

/// The one EXIF reader (`EXIFProperties`, `EXIFSummary`, the upright rewrite) and the one
/// lcms2 wrapper (`ColorProfiles`), against blocks and colours worked out here.
@Suite struct EXIFAndProfileTests {
    /// A big-endian block: IFD0 with Model, Orientation 6, an unknown tag and an Exif pointer;
    /// the Exif IFD holds FNumber 28/10 and a 7-byte MakerNote (skipped: opaque).
    static func bigEndianBlock() -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { u16(v >> 16) + u16(v & 0xFFFF) }
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: [UInt8]) -> [UInt8] {
            u16(tag) + u16(type) + u32(count) + value + [UInt8](repeating: 0, count: 4 - value.count)
        }
        var b: [UInt8] = Array("MM".utf8) + [0, 42] + u32(8)
        let ifd0Size = 2 + 4 * 12 + 4, model = 8 + ifd0Size, exifIFD = model + 4
        let exifData = exifIFD + 2 + 2 * 12 + 4
        b += u16(4)
        b += entry(0x0110, 2, 4, Array("X10".utf8) + [0])
        b += entry(0x0112, 3, 1, u16(6))
        b += entry(0xC0DE, 3, 1, u16(77))
        b += entry(0x8769, 4, 1, u32(exifIFD))
        b += u32(0)
        precondition(b.count == model)
        b += Array("pad!".utf8)
        b += u16(2)
        b += entry(0x829D, 5, 1, u32(exifData))
        b += entry(0x927C, 7, 7, u32(exifData + 8))
        b += u32(0)
        b += u32(28) + u32(10) + [1, 2, 3, 4, 5, 6, 7]
        return b
    }

    @Test func propertiesFromABigEndianBlock() throws {
        let e = EXIFProperties(Data(Self.bigEndianBlock()))
        #expect(e.tiff["Model"] as? String == "X10")
        #expect(e.tiff["Orientation"] as? Int == 6)
        #expect(e.tiff["0xC0DE"] as? Int == 77)
        #expect(e.tiff.count == 3, "the Exif pointer is followed, not reported")
        #expect(e.exif["FNumber"] as? Double == 2.8)
        #expect(e.exif["0x927C"] == nil, "opaque blobs are skipped")
        #expect(e.gps.isEmpty)
        #expect(EXIFSummary(tiff: Data(Self.bigEndianBlock())).orientation == 6)
    }

    @Test func notTIFFOrDamagedBlocksGiveNothingAndNeverTrap() {
        #expect(EXIFProperties(Data("Exif\0\0 not a TIFF".utf8)).tiff.isEmpty)
        #expect(EXIFProperties(Data()).tiff.isEmpty)
        let good = Self.bigEndianBlock()
        for cut in 0..<good.count { _ = EXIFProperties(Data(good.prefix(cut))); _ = EXIFSummary(tiff: Data(good.prefix(cut))) }
        var rng: UInt64 = 0x5EED
        for _ in 0..<300 {
            var bad = good
            for _ in 0..<4 {
                rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                bad[Int(rng >> 33) % bad.count] = UInt8(truncatingIfNeeded: rng >> 17)
            }
            _ = EXIFProperties(Data(bad))
            _ = ImageCodecs.uprightedEXIF(Data(bad))
        }
    }

    /// The upright rewrite sets IFD0's orientation to 1 and changes no other byte.
    @Test(arguments: [false, true])
    func uprightingChangesOnlyTheOrientation(bigEndian: Bool) {
        let block = exifBlock(orientation: 7, bigEndian: bigEndian, dpi: 96)
        let upright = [UInt8](ImageCodecs.uprightedEXIF(Data(block)))
        let summary = EXIFSummary(tiff: Data(upright))
        #expect(summary.orientation == 1 && summary.dpi == 96)
        #expect(zip(block, upright).filter { $0 != $1 }.count == 1)
    }

    @Test func profileNamesAndSRGBDetection() throws {
        let p3 = try #require(ColorProfiles.displayP3)
        #expect(ColorProfiles.description(of: p3) == "Display P3")
        #expect(!ColorProfiles.isSRGB(p3))
        let srgb = try #require(ColorProfiles.rgbProfile(.sRGB, transfer: .sRGB, description: "sRGB (built here)"))
        #expect(ColorProfiles.isSRGB(srgb))
        let linear = try #require(ColorProfiles.rgbProfile(.sRGB, transfer: .linear, description: "Linear sRGB"))
        #expect(!ColorProfiles.isSRGB(linear))
        #expect(ColorProfiles.description(of: fakeICC(count: 300)) == nil)
        #expect(!ColorProfiles.isSRGB(Data()))
    }

    /// Display P3 pixels convert to the linear sRGB the published P3 -> sRGB matrix gives
    /// (lcms2 adapts through D50, hence the tolerance); alpha is copied.
    @Test func displayP3PixelsToLinearSRGB() throws {
        let p3 = try #require(ColorProfiles.displayP3)
        let header = ImageHeader(format: .png, width: 3, height: 1, channels: 4, bitDepth: 8, hasAlpha: true, colorModel: "RGB", iccProfile: p3)
        let bitmap = DecodedBitmap(
            header: header, width: 3, height: 1, bitDepth: 8,
            pixels: [255, 0, 0, 255, 0, 255, 0, 128, 255, 255, 255, 0], pixels16: [])
        let data = try #require(ColorProfiles.linearSRGBPixels(of: bitmap, profile: p3))
        let out = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let want: [Float] = [1.2249, -0.0420, -0.0197, 1, -0.2247, 1.0419, -0.0786, 128.0 / 255, 1, 1, 1, 0]
        for i in 0..<12 { #expect(abs(out[i] - want[i]) < 2e-3, "sample \(i): \(out[i]) vs \(want[i])") }
        #expect(ColorProfiles.linearSRGBPixels(of: bitmap, profile: fakeICC(count: 200)) == nil)
    }

    /// sRGB's chromaticities, the one definition the engine's colour matrices use too.
    @Test func sRGBChromaticitiesAreTheStandardOnes() {
        let c = ColorProfiles.Chromaticities.sRGB
        #expect(c.red == (0.64, 0.33) && c.green == (0.30, 0.60) && c.blue == (0.15, 0.06) && c.white == (0.3127, 0.3290))
    }
}
