import Foundation
import Testing

@testable import CyanotypeCodecs

@Suite struct PNGTests {
    @Test func rgba8RoundTripIsExact() throws {
        let (w, h) = (23, 17)
        let px = smoothRGBA8(width: w, height: h, alpha: true)
        let png = try encode8(px, w, h, alpha: true, .png)
        let bmp = try ImageCodecs.decode(png)
        #expect(bmp.bitDepth == 8 && bmp.width == w && bmp.height == h)
        #expect(bmp.pixels == px)
        #expect(bmp.pixels16.isEmpty)
        #expect(bmp.isComplete)
        let header = try ImageCodecs.readHeader(png)
        #expect(header == bmp.header)
        #expect(header.channels == 4 && header.hasAlpha && header.bitDepth == 8 && header.colorModel == "RGB")
        #expect(header.orientation == 1 && header.iccProfile == nil && header.exif == nil)
    }

    @Test func opaqueEncodeStoresRGBAndDecodesAlphaMax() throws {
        let (w, h) = (5, 4)
        var px = smoothRGBA8(width: w, height: h)
        for i in stride(from: 3, to: px.count, by: 4) { px[i] = 7 }  // ignored when hasAlpha is false
        let png = try encode8(px, w, h, alpha: false, .png)
        let header = try ImageCodecs.readHeader(png)
        #expect(header.channels == 3 && !header.hasAlpha)
        let bmp = try ImageCodecs.decode(png)
        for i in 0..<(w * h) {
            #expect(bmp.pixels[4 * i..<4 * i + 3] == px[4 * i..<4 * i + 3])
            #expect(bmp.pixels[4 * i + 3] == 255)
        }
    }

    @Test func rgba16RoundTripIsBitExact() throws {
        let (w, h) = (13, 9)
        let px: [UInt16] = (0..<(w * h * 4)).map { UInt16(truncatingIfNeeded: $0 &* 40_503 &+ 17) }
        for alpha in [true, false] {
            var options = EncodeOptions()
            options.compressionLevel = 9
            let png = try px.withUnsafeBufferPointer {
                try ImageCodecs.encode(rgba16: $0, width: w, height: h, hasAlpha: alpha, format: .png, options: options)
            }
            let bmp = try ImageCodecs.decode(png)
            #expect(bmp.bitDepth == 16 && bmp.header.bitDepth == 16 && bmp.pixels.isEmpty)
            if alpha {
                #expect(bmp.pixels16 == px)
            } else {
                for i in 0..<(w * h) {
                    #expect(bmp.pixels16[4 * i..<4 * i + 3] == px[4 * i..<4 * i + 3])
                    #expect(bmp.pixels16[4 * i + 3] == 65535)
                }
            }
        }
    }

    /// 16-bit samples from another encoder (ImageMagick) come out native-endian with the right values.
    @Test func sixteenBitFixtureValuesAndInterlacedMatchesPlain() throws {
        let plain = try ImageCodecs.decode(Fixtures.plain16PNG)
        #expect(plain.bitDepth == 16 && plain.width == 9 && plain.height == 7)
        #expect(Array(plain.pixels16[4..<8]) == [8192, 0, 32768, 65535])  // pixel (1, 0)
        let interlaced = try ImageCodecs.decode(Fixtures.interlacedPNG)
        #expect(interlaced.pixels16 == plain.pixels16)
    }

    @Test func greyDecodesToRGBA() throws {
        let png = PNGBuilder.png(width: 3, height: 2, depth: 8, colorType: 0, rows: [[0, 128, 255], [1, 2, 3]])
        let h = try ImageCodecs.readHeader(png)
        #expect(h.channels == 1 && h.colorModel == "Gray" && !h.hasAlpha && h.bitDepth == 8)
        let bmp = try ImageCodecs.decode(png)
        #expect(bmp.pixels == [0, 0, 0, 255, 128, 128, 128, 255, 255, 255, 255, 255, 1, 1, 1, 255, 2, 2, 2, 255, 3, 3, 3, 255])
    }

    @Test func oneBitGreyDecodesToEightBit() throws {
        let png = PNGBuilder.png(width: 4, height: 1, depth: 1, colorType: 0, rows: [[0b1010_0000]])
        let bmp = try ImageCodecs.decode(png)
        #expect(bmp.bitDepth == 8 && bmp.header.bitDepth == 8)
        #expect(bmp.pixels == [255, 255, 255, 255, 0, 0, 0, 255, 255, 255, 255, 255, 0, 0, 0, 255])
    }

    @Test func greyAlphaAndGrey16() throws {
        let ga = PNGBuilder.png(width: 2, height: 1, depth: 8, colorType: 4, rows: [[10, 20, 30, 40]])
        let h = try ImageCodecs.readHeader(ga)
        #expect(h.channels == 2 && h.hasAlpha && h.colorModel == "Gray")
        #expect(try ImageCodecs.decode(ga).pixels == [10, 10, 10, 20, 30, 30, 30, 40])

        let g16 = PNGBuilder.png(width: 2, height: 1, depth: 16, colorType: 0, rows: [[0x12, 0x34, 0xFF, 0xFE]])
        let bmp = try ImageCodecs.decode(g16)
        #expect(bmp.bitDepth == 16 && bmp.header.channels == 1)
        #expect(bmp.pixels16 == [0x1234, 0x1234, 0x1234, 0xFFFF, 0xFFFE, 0xFFFE, 0xFFFE, 0xFFFF])
    }

    @Test func paletteWithTransparencyDecodes() throws {
        let plte = PNGBuilder.chunk("PLTE", [255, 0, 0, 0, 255, 0, 0, 0, 255])
        let trns = PNGBuilder.chunk("tRNS", [255, 128])  // entry 2 stays opaque
        let png = PNGBuilder.png(
            width: 3, height: 1, depth: 8, colorType: 3, rows: [[0, 1, 2]], extra: [plte, trns])
        let h = try ImageCodecs.readHeader(png)
        #expect(h.channels == 4 && h.hasAlpha && h.colorModel == "RGB")
        #expect(try ImageCodecs.decode(png).pixels == [255, 0, 0, 255, 0, 255, 0, 128, 0, 0, 255, 255])

        let opaque = PNGBuilder.png(width: 3, height: 1, depth: 2, colorType: 3, rows: [[0b0001_1000]], extra: [plte])
        let oh = try ImageCodecs.readHeader(opaque)
        #expect(oh.channels == 3 && !oh.hasAlpha)
        #expect(try ImageCodecs.decode(opaque).pixels == [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255])
    }

    @Test func metadataChunks() throws {
        // pHYs 2835 px/m = 72.009 dpi, reported as 72; eXIf with orientation 6 (big-endian TIFF).
        let phys = PNGBuilder.chunk("pHYs", PNGBuilder.be32(2835) + PNGBuilder.be32(2835) + [1])
        let exif = exifBlock(orientation: 6, bigEndian: true)
        let png = PNGBuilder.png(
            width: 1, height: 1, depth: 8, colorType: 0, rows: [[9]],
            extra: [phys, PNGBuilder.chunk("eXIf", exif)])
        let h = try ImageCodecs.readHeader(png)
        #expect(h.dpi == 72)
        #expect(h.orientation == 6)
        #expect(h.exif == Data(exif))
    }

    @Test func iccProfileRoundTrips() throws {
        var options = EncodeOptions()
        options.iccProfile = fakeICC(count: 3000)
        let px = smoothRGBA8(width: 4, height: 4)
        let png = try encode8(px, 4, 4, alpha: false, .png, options)
        #expect(try ImageCodecs.readHeader(png).iccProfile == options.iccProfile)
        #expect(try ImageCodecs.decode(png).header.iccProfile == options.iccProfile)
    }

    @Test func compressionLevelIsValidatedAndUsed() throws {
        let px = smoothRGBA8(width: 64, height: 64)
        var fast = EncodeOptions()
        fast.compressionLevel = 0
        var best = EncodeOptions()
        best.compressionLevel = 9
        let a = try encode8(px, 64, 64, alpha: false, .png, fast)
        let b = try encode8(px, 64, 64, alpha: false, .png, best)
        #expect(a.count > b.count)
        var bad = EncodeOptions()
        bad.compressionLevel = 12
        let e = codecError { try encode8(px, 64, 64, alpha: false, .png, bad) }
        #expect(e?.description == "invalid argument: PNG compressionLevel must be 0...9, got 12")
    }
}
