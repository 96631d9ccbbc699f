import Foundation
import Testing

@testable import CyanotypeCodecs

/// The repository's sample photographs (Samples/), found from this file's path.
func samplePhoto(_ name: String, file: StaticString = #filePath) -> Data? {
    let url = URL(fileURLWithPath: "\(file)").deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Samples/\(name)")
    return try? Data(contentsOf: url)
}

func fnv1a(_ bytes: [UInt8]) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
    return h
}

@Suite struct InteropTests {
    /// Hashes of ImageMagick's `convert X.png -depth 8 rgba:-` output: a second decoder agrees byte for byte.
    @Test(arguments: [("astronaut.png", 512, 512, 0xf58a_2e03_5245_a225 as UInt64), ("coffee.png", 600, 400, 0xc468_7473_3443_2d18)])
    func samplePhotosMatchImageMagick(name: String, width: Int, height: Int, hash: UInt64) throws {
        guard let data = samplePhoto(name) else {
            Issue.record("Samples/\(name) is missing")
            return
        }
        let bmp = try ImageCodecs.decode(data)
        #expect(bmp.width == width && bmp.height == height && bmp.header.channels == 3)
        #expect(fnv1a(bmp.pixels) == hash)
    }

    @Test func photoThroughJPEGAndWebPStaysClose() throws {
        guard let data = samplePhoto("astronaut.png") else {
            Issue.record("Samples/astronaut.png is missing")
            return
        }
        let original = try ImageCodecs.decode(data).pixels
        for format in [ImageFileFormat.jpeg, .webp] {
            let encoded = try encode8(original, 512, 512, alpha: false, format)
            let back = try ImageCodecs.decode(encoded).pixels
            #expect(psnrRGB(back, original) > 30, "\(format)")
        }
    }

    @Test func jfifDensityWinsOverEXIF() throws {
        var jpeg = [UInt8](try encode8(smoothRGBA8(width: 8, height: 8), 8, 8, alpha: false, .jpeg))
        // TurboJPEG writes APP0 JFIF right after SOI: units at 13, X density at 14...15.
        #expect(jpeg[6..<11] == [0x4A, 0x46, 0x49, 0x46, 0])
        #expect(try ImageCodecs.readHeader(Data(jpeg)).dpi == nil)  // units 0: aspect ratio only
        jpeg[13] = 2  // dots per cm
        jpeg[14] = 0
        jpeg[15] = 100
        let tagged = jpegWithEXIF(Data(jpeg), exif: exifBlock(orientation: 3, bigEndian: false, dpi: 72))
        let h = try ImageCodecs.readHeader(tagged)
        #expect(h.dpi == 254)
        #expect(h.orientation == 3)
    }

    @Test func webpEXIFChunkIsRead() throws {
        var options = EncodeOptions()
        options.iccProfile = fakeICC(count: 10)  // makes an extended (VP8X) file
        var webp = [UInt8](try encode8(smoothRGBA8(width: 4, height: 4), 4, 4, alpha: false, .webp, options))
        let exif = exifBlock(orientation: 8, bigEndian: true)
        webp += Array("EXIF".utf8) + [UInt8(exif.count), 0, 0, 0] + exif + (exif.count % 2 == 1 ? [0] : [])
        webp[20] |= 0x08  // VP8X flags: EXIF present
        let riffSize = webp.count - 8
        webp[4..<8] = [UInt8(riffSize & 0xFF), UInt8(riffSize >> 8 & 0xFF), UInt8(riffSize >> 16 & 0xFF), 0]
        let h = try ImageCodecs.readHeader(Data(webp))
        #expect(h.orientation == 8)
        #expect(h.exif == Data(exif))
        #expect(h.iccProfile == options.iccProfile)
        #expect(try ImageCodecs.decode(Data(webp)).width == 4)
    }

    @Test func concurrentDecodesAgree() throws {
        let files = try sampleFiles()
        let expected = try files.map { try ImageCodecs.decode($0.1).pixels }
        struct Slots: @unchecked Sendable { let ok: UnsafeMutableBufferPointer<Bool> }
        let slots = Slots(ok: .allocate(capacity: 32))
        slots.ok.initialize(repeating: false)
        defer { slots.ok.deallocate() }
        DispatchQueue.concurrentPerform(iterations: 32) { i in
            let k = i % files.count
            slots.ok[i] = (try? ImageCodecs.decode(files[k].1).pixels) == expected[k]  // one slot per worker
        }
        #expect(slots.ok.allSatisfy { $0 })
    }
}
