import Foundation
import Testing
@testable import Cyanotype
import CyanotypeCodecs

/// TIFF, HEIF and AVIF through Core Image's API; Display P3 in and out; orientation.
@Suite struct ImageFormatsIOTests {
    // Published matrices (D65): linear Display P3 -> XYZ, and XYZ -> linear sRGB (IEC 61966-2-1).
    static let p3ToXYZ: [Double] = [0.4865709, 0.2656677, 0.1982173, 0.2289746, 0.6917385, 0.0792869, 0.0000000, 0.0451134, 1.0439444]
    static let xyzToSRGB: [Double] = [3.2404542, -1.5371385, -0.4985314, -0.9692660, 1.8760108, 0.0415560, 0.0556434, -0.2040259, 1.0572252]

    static func mul(_ m: [Double], _ v: [Double]) -> [Double] {
        (0..<3).map { r in m[3 * r] * v[0] + m[3 * r + 1] * v[1] + m[3 * r + 2] * v[2] }
    }
    /// Encoded P3 (0...1) -> linear sRGB, independently of the code under test.
    static func expectedLinearSRGB(p3 encoded: [Double]) -> [Double] {
        mul(xyzToSRGB, mul(p3ToXYZ, encoded.map(srgbToLinear)))
    }

    @Test func publishedMatrixGivesTheKnownRed() {
        let red = Self.expectedLinearSRGB(p3: [1, 0, 0])
        #expect(abs(red[0] - 1.2249) < 2e-3 && abs(red[1] + 0.0420) < 2e-3 && abs(red[2] + 0.0197) < 2e-3, "\(red)")
    }

    /// A PNG and a TIFF whose pixels are Display P3 (tagged with a P3 profile built by lcms2)
    /// decode to the linear sRGB the published matrices give, out-of-gamut values included.
    @Test func displayP3FileDecodesToExpectedSRGB() throws {
        let colours: [[UInt8]] = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [200, 100, 50], [128, 128, 128], [255, 255, 255]]
        var px: [UInt8] = []
        for c in colours { px += c + [255] }
        let p3 = try #require(ColorProfiles.displayP3)
        #expect(ICCProfile.description(of: p3) == "Display P3")
        var o = EncodeOptions()
        o.iccProfile = p3
        for format in [CyanotypeCodecs.ImageFileFormat.png, .tiff] {
            let data = try px.withUnsafeBufferPointer {
                try ImageCodecs.encode(rgba8: $0, width: colours.count, height: 1, hasAlpha: true, format: format, options: o)
            }
            let img = try #require(CIImage(data: data))
            #expect(img.properties[kCGImagePropertyProfileName] as? String == "Display P3")
            let out = try renderFloat(img, img.extent)
            for (i, c) in colours.enumerated() {
                let want = Self.expectedLinearSRGB(p3: c.map { Double($0) / 255 }) + [1]
                #expect(close(out[i], want, tol: 2e-3, "\(format) P3 \(c)"))
            }
        }
    }

    /// Writing in Display P3 embeds the profile; reading the file back gives the same colours.
    @Test func displayP3OutputCarriesAProfileAndRoundTrips() throws {
        let px = testPixels(width: 12, height: 6)
        let img = image(px, 12, 6)
        let ctx = CIContext()
        let p3 = try #require(CGColorSpace(name: CGColorSpace.displayP3))
        let srgb = try #require(CGColorSpace(name: CGColorSpace.sRGB))
        let tiff = try #require(ctx.tiffRepresentation(of: img, format: .RGBA16, colorSpace: p3))
        let h = try ImageCodecs.readHeader(tiff)
        #expect(h.bitDepth == 16 && h.iccProfile != nil)
        #expect(ICCProfile.description(of: h.iccProfile!) == "Display P3")
        let back = try renderFloat(try #require(CIImage(data: tiff)), img.extent)
        let ref = try renderFloat(img, img.extent)
        for i in 0..<ref.count { #expect(close(back[i], (0..<4).map { Double(ref[i][$0]) }, tol: 2e-3, "pixel \(i)")) }
        // sRGB output stays untagged; .stripMetadata drops the P3 profile.
        #expect(try ImageCodecs.readHeader(try #require(ctx.pngRepresentation(of: img, format: .RGBA8, colorSpace: srgb))).iccProfile == nil)
        let jpeg = try #require(ctx.jpegRepresentation(of: img, colorSpace: p3))
        #expect(try ImageCodecs.readHeader(jpeg).iccProfile == ColorProfiles.displayP3)
        let bare = try #require(ctx.jpegRepresentation(of: img, colorSpace: p3, options: [.stripMetadata: true]))
        #expect(try ImageCodecs.readHeader(bare).iccProfile == nil)
    }

    /// Stored pixels for EXIF orientation `o` such that turning them upright gives `base`.
    static func stored(_ base: [UInt8], _ w: Int, _ h: Int, orientation o: Int) -> ([UInt8], Int, Int) {
        let (ws, hs) = o >= 5 ? (h, w) : (w, h)
        var s = [UInt8](repeating: 0, count: base.count)
        for y in 0..<hs {
            for x in 0..<ws {
                // Where stored (x, y) lands when displayed (the EXIF definitions).
                let (dx, dy): (Int, Int)
                switch o {
                case 2: (dx, dy) = (ws - 1 - x, y)
                case 3: (dx, dy) = (ws - 1 - x, hs - 1 - y)
                case 4: (dx, dy) = (x, hs - 1 - y)
                case 5: (dx, dy) = (y, x)
                case 6: (dx, dy) = (hs - 1 - y, x)
                case 7: (dx, dy) = (hs - 1 - y, ws - 1 - x)
                case 8: (dx, dy) = (y, ws - 1 - x)
                default: (dx, dy) = (x, y)
                }
                for k in 0..<4 { s[(y * ws + x) * 4 + k] = base[(dy * w + dx) * 4 + k] }
            }
        }
        return (s, ws, hs)
    }

    @Test func allEightOrientationsDecodeToIdenticalPixels() throws {
        let (w, h) = (5, 3)
        var base = [UInt8](repeating: 255, count: w * h * 4)
        for i in 0..<(w * h) { base[4 * i] = UInt8(i * 16); base[4 * i + 1] = UInt8(255 - i * 9); base[4 * i + 2] = UInt8((i * 37) % 256) }
        let ctx = CIContext()
        for o in 1...8 {
            let (s, ws, hs) = Self.stored(base, w, h, orientation: o)
            var opts = EncodeOptions()
            opts.orientation = o
            let tiff = try s.withUnsafeBufferPointer {
                try ImageCodecs.encode(rgba8: $0, width: ws, height: hs, hasAlpha: false, format: .tiff, options: opts)
            }
            let raw = try #require(CIImage(data: tiff))
            #expect(raw.properties[kCGImagePropertyOrientation] as? Int == o)
            #expect(raw.extent.size == CGSize(width: ws, height: hs))
            let upright = try #require(CIImage(data: tiff, options: [.applyOrientationProperty: true]))
            #expect(upright.properties[kCGImagePropertyOrientation] as? Int == 1)
            #expect(upright.extent == CGRect(x: 0, y: 0, width: w, height: h), "orientation \(o)")
            #expect(try render8(upright, upright.extent) == base, "orientation \(o)")
            // Written back, the file is upright with orientation 1.
            let again = try ImageCodecs.decode(try #require(ctx.tiffRepresentation(of: upright, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!)))
            #expect(again.header.orientation == 1 && again.width == w)
        }
    }

    @Test func tiffFloatAndSixteenBitThroughCIContext() throws {
        let px = testPixels(width: 9, height: 4, alpha: true)
        let img = image(px, 9, 4)
        let ctx = CIContext()
        let srgb = try #require(CGColorSpace(name: CGColorSpace.sRGB))
        let f = try #require(ctx.tiffRepresentation(of: img, format: .RGBAf, colorSpace: srgb))
        let d = try ImageCodecs.decode(f)
        #expect(d.bitDepth == 32)
        let back = try #require(CIImage(data: f))
        #expect(back.properties[kCGImagePropertyDepth] as? Int == 32)
        #expect(try render8(back, back.extent) == px)
        let s16 = try #require(ctx.tiffRepresentation(of: img, format: .RGBA16, colorSpace: srgb, options: [.tiffCompression: Cyanotype.TIFFCompression.deflate]))
        #expect(try ImageCodecs.decode(s16).bitDepth == 16)
        #expect(try render8(try #require(CIImage(data: s16)), back.extent) == px)
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("cy-\(UUID().uuidString).tif")
        defer { try? FileManager.default.removeItem(at: tmp) }
        try ctx.writeTIFFRepresentation(of: img, to: tmp, format: .RGBA8, colorSpace: srgb)
        #expect(try render8(try #require(CIImage(contentsOf: tmp)), back.extent) == px)
    }

    @Test func heifAndAVIFThroughCIContext() throws {
        // Smooth content: 4:2:0 chroma cannot hold testPixels' 4-pixel blue sawtooth.
        var px = [UInt8](repeating: 255, count: 32 * 24 * 4)
        for y in 0..<24 { for x in 0..<32 { let i = (y * 32 + x) * 4; px[i] = UInt8(x * 8); px[i + 1] = UInt8(y * 10); px[i + 2] = UInt8((x + y) * 4) } }
        let img = image(px, 32, 24)
        let ctx = CIContext()
        let srgb = try #require(CGColorSpace(name: CGColorSpace.sRGB))
        for format in [Cyanotype.ImageFileFormat.heif, .avif] where format.canEncode {
            let data =
                format == .heif
                ? try #require(ctx.heifRepresentation(of: img, format: .RGBA8, colorSpace: srgb, options: [.lossyCompressionQuality: 0.95]))
                : try #require(ctx.avifRepresentation(of: img, colorSpace: srgb, options: [.lossyCompressionQuality: 0.95]))
            let back = try #require(CIImage(data: data))
            #expect(back.properties[kCyanotypePropertyFileFormat] as? String == format.rawValue)
            let out = try render8(back, back.extent)
            var se = 0.0
            for i in stride(from: 0, to: px.count, by: 4) { for k in 0..<3 { se += pow(Double(out[i + k]) - Double(px[i + k]), 2) } }
            let psnr = 10 * log10(255 * 255 / (se / Double(32 * 24 * 3)))
            #expect(psnr > 30, "\(format) PSNR \(psnr)")
            let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("cy-\(UUID().uuidString).\(format.rawValue)")
            defer { try? FileManager.default.removeItem(at: tmp) }
            if format == .heif {
                try ctx.writeHEIFRepresentation(of: img, to: tmp, format: .RGBA8, colorSpace: srgb)
            } else {
                try ctx.writeAVIFRepresentation(of: img, to: tmp, colorSpace: srgb)
            }
            #expect(CIImage(contentsOf: tmp)?.extent == img.extent)
        }
    }

    @Test func absurdTIFFHeaderIsATypedErrorBeforeDecoding() {
        // 4294967295 x 4294967295: the product overflows Int; still a typed error.
        var b: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0, 2, 0]
        b += [0, 1, 4, 0, 1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]
        b += [1, 1, 4, 0, 1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]
        b += [0, 0, 0, 0]
        #expect(throws: ImageIOError.self) { try CIImage.read(data: Data(b)) }
    }
}
