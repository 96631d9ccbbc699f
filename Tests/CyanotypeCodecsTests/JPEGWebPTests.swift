import Foundation
import Testing

@testable import CyanotypeCodecs

@Suite struct JPEGTests {
    @Test(arguments: ChromaSubsampling.allCases)
    func q90RoundTripIsClose(subsampling: ChromaSubsampling) throws {
        let (w, h) = (64, 48)
        let px = smoothRGBA8(width: w, height: h)
        var options = EncodeOptions()
        options.chromaSubsampling = subsampling
        let jpeg = try encode8(px, w, h, alpha: false, .jpeg, options)
        let bmp = try ImageCodecs.decode(jpeg)
        #expect(bmp.width == w && bmp.height == h && bmp.bitDepth == 8)
        #expect(psnrRGB(bmp.pixels, px) > 30)
        #expect(stride(from: 3, to: bmp.pixels.count, by: 4).allSatisfy { bmp.pixels[$0] == 255 })
        let header = try ImageCodecs.readHeader(jpeg)
        #expect(header.channels == 3 && header.colorModel == "RGB" && header.bitDepth == 8 && !header.hasAlpha)
    }

    @Test func progressiveWritesSOF2AndQualityMatters() throws {
        let px = smoothRGBA8(width: 32, height: 32)
        var options = EncodeOptions()
        options.progressive = true
        let jpeg = try encode8(px, 32, 32, alpha: false, .jpeg, options)
        #expect(jpeg.windowed(pairOf: 0xFF, 0xC2))
        #expect(psnrRGB(try ImageCodecs.decode(jpeg).pixels, px) > 30)
        options.quality = 0.2
        let small = try encode8(px, 32, 32, alpha: false, .jpeg, options)
        #expect(small.count < jpeg.count)
    }

    @Test(arguments: [false, true])
    func exifOrientationBothByteOrders(bigEndian: Bool) throws {
        let jpeg = try encode8(smoothRGBA8(width: 8, height: 8), 8, 8, alpha: false, .jpeg)
        for orientation in UInt16(1)...8 {
            let tagged = jpegWithEXIF(jpeg, exif: exifBlock(orientation: orientation, bigEndian: bigEndian, dpi: 240))
            let h = try ImageCodecs.readHeader(tagged)
            #expect(h.orientation == Int(orientation))
            #expect(h.exif == Data(exifBlock(orientation: orientation, bigEndian: bigEndian, dpi: 240)))
            #expect(h.dpi == 240)
            #expect(try ImageCodecs.decode(tagged).header.orientation == Int(orientation))
        }
    }

    @Test(arguments: [1000, 150_000])
    func iccProfileSurvivesRoundTrip(size: Int) throws {
        var options = EncodeOptions()
        options.iccProfile = fakeICC(count: size)  // 150 000 bytes needs 3 APP2 chunks
        let px = smoothRGBA8(width: 16, height: 16)
        let jpeg = try encode8(px, 16, 16, alpha: false, .jpeg, options)
        let bmp = try ImageCodecs.decode(jpeg)
        #expect(bmp.header.iccProfile == options.iccProfile)
        #expect(psnrRGB(bmp.pixels, px) > 30)
    }

    @Test func greyJPEGFixture() throws {
        let data = Fixtures.grayJPEG
        let h = try ImageCodecs.readHeader(data)
        #expect(h.channels == 1 && h.colorModel == "Gray" && h.width == 16 && h.height == 8)
        let bmp = try ImageCodecs.decode(data)
        for i in stride(from: 0, to: bmp.pixels.count, by: 4) {
            #expect(bmp.pixels[i] == bmp.pixels[i + 1] && bmp.pixels[i] == bmp.pixels[i + 2] && bmp.pixels[i + 3] == 255)
        }
        #expect(bmp.pixels[0] > 240)  // white-to-black gradient starts white
    }

    @Test func adobeCMYKFixtureConvertsToRGB() throws {
        let data = Fixtures.cmykJPEG  // ImageMagick: solid red, converted to CMYK (Adobe APP14)
        let h = try ImageCodecs.readHeader(data)
        #expect(h.channels == 4 && h.colorModel == "CMYK")
        let bmp = try ImageCodecs.decode(data)
        let p = Array(bmp.pixels[0..<4])
        #expect(p[0] > 245 && p[1] < 10 && p[2] < 10 && p[3] == 255)
    }

    @Test func sixteenBitInputIsRoundedToEight() throws {
        let v: [UInt16] = [0, 257, 65535, 65535, 128, 32896, 65278, 65535]  // -> 0 1 255 255 | 0 128 254 255
        let webp = try v.withUnsafeBufferPointer {
            try ImageCodecs.encode(
                rgba16: $0, width: 2, height: 1, hasAlpha: false, format: .webp,
                options: {
                    var o = EncodeOptions()
                    o.lossless = true
                    return o
                }())
        }
        #expect(try ImageCodecs.decode(webp).pixels == [0, 1, 255, 255, 0, 128, 254, 255])
    }
}

@Suite struct WebPTests {
    @Test func losslessIsExactWithAndWithoutAlpha() throws {
        var options = EncodeOptions()
        options.lossless = true
        let (w, h) = (19, 11)
        let withAlpha = smoothRGBA8(width: w, height: h, alpha: true)
        let a = try encode8(withAlpha, w, h, alpha: true, .webp, options)
        #expect(try ImageCodecs.decode(a).pixels == withAlpha)
        let ha = try ImageCodecs.readHeader(a)
        #expect(ha.hasAlpha && ha.channels == 4 && ha.format == .webp && ha.width == w && ha.height == h)

        let opaque = smoothRGBA8(width: w, height: h)
        let b = try encode8(opaque, w, h, alpha: false, .webp, options)
        #expect(try ImageCodecs.decode(b).pixels == opaque)
        let hb = try ImageCodecs.readHeader(b)
        #expect(!hb.hasAlpha && hb.channels == 3)
    }

    @Test func lossyIsClose() throws {
        let (w, h) = (64, 48)
        let px = smoothRGBA8(width: w, height: h)
        let webp = try encode8(px, w, h, alpha: false, .webp)
        #expect(psnrRGB(try ImageCodecs.decode(webp).pixels, px) > 30)
        let withAlpha = smoothRGBA8(width: w, height: h, alpha: true)
        let wa = try encode8(withAlpha, w, h, alpha: true, .webp)
        let back = try ImageCodecs.decode(wa)
        #expect(back.header.hasAlpha)
        #expect(psnrRGB(back.pixels, withAlpha) > 25)
    }

    @Test(arguments: [false, true])
    func iccProfileSurvivesRoundTrip(lossless: Bool) throws {
        var options = EncodeOptions()
        options.lossless = lossless
        options.iccProfile = fakeICC(count: 557)  // odd size: exercises RIFF padding
        let px = smoothRGBA8(width: 9, height: 5, alpha: true)
        for alpha in [false, true] {
            let webp = try encode8(px, 9, 5, alpha: alpha, .webp, options)
            let bmp = try ImageCodecs.decode(webp)
            #expect(bmp.header.iccProfile == options.iccProfile)
            #expect(bmp.header.hasAlpha == alpha)
            if lossless && alpha { #expect(bmp.pixels == px) }
        }
    }
}

extension Data {
    func windowed(pairOf a: UInt8, _ b: UInt8) -> Bool {
        let bytes = [UInt8](self)
        return zip(bytes, bytes.dropFirst()).contains { $0 == a && $1 == b }
    }
}
