// Core Image code as it is written for Apple's platforms: Apple's import lines, unchanged.
import CoreImage
import CoreImage.CIFilterBuiltins
import Testing

#if canImport(CoreImage)
private let coreImageIsImportable = true
#else
private let coreImageIsImportable = false
#endif

// A filter extension, the commonest idiom in the wild.
extension CIImage {
    fileprivate func inverted() -> CIImage? {
        let filter = CIFilter.colorInvert()
        filter.inputImage = self
        return filter.outputImage
    }

    fileprivate func scaled(by scale: CGFloat) -> CIImage? {
        guard let filter = CIFilter(name: "CILanczosScaleTransform") else { return nil }
        filter.setValue(self, forKey: kCIInputImageKey)
        filter.setValue(scale, forKey: kCIInputScaleKey)
        filter.setValue(1.0, forKey: kCIInputAspectRatioKey)
        return filter.outputImage
    }
}

/// Renders one pixel of `image` as sRGB RGBA8, the way Core Image users read pixels back.
private func pixel(_ image: CIImage, _ context: CIContext, x: CGFloat = 0, y: CGFloat = 0) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: 4)
    context.render(
        image, toBitmap: &bytes, rowBytes: 4, bounds: CGRect(x: x, y: y, width: 1, height: 1), format: .RGBA8,
        colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
    return bytes
}

@Suite struct CoreImageIdiomTests {
    @Test func canImportCoreImageIsTrue() {
        #expect(coreImageIsImportable)
    }

    @Test func aFilterExtensionInvertsInTheLinearWorkingSpace() throws {
        let input = CIImage(color: CIColor(red: 0.2, green: 0.6, blue: 0.9)).cropped(to: CGRect(x: 0, y: 0, width: 4, height: 4))
        let output = try #require(input.inverted())
        let got = pixel(output, CIContext())
        // Core Image inverts in its linear working space: 1 - linear, back to sRGB.
        for (i, v) in [0.2, 0.6, 0.9].enumerated() {
            let expected = SRGB.fromLinear(1 - SRGB.toLinear(v)) * 255
            #expect(abs(Double(got[i]) - expected) <= 1.0, "channel \(i): \(got[i]) vs \(expected)")
        }
        #expect(got[3] == 255)
    }

    @Test func aChainByNameScalesTheExtent() throws {
        let input = CIImage(color: .red).cropped(to: CGRect(x: 0, y: 0, width: 200, height: 100))
        let output = try #require(input.scaled(by: 0.25))
        #expect(output.extent.width.rounded() == 50)
        #expect(output.extent.height.rounded() == 25)
    }

    @Test func cgColorsHaveAppleComponentsAndConvertToCIColor() throws {
        let rgb = CGColor(red: 0.25, green: 0.5, blue: 0.75, alpha: 0.5)
        #expect(rgb.components == [0.25, 0.5, 0.75, 0.5])
        #expect(rgb.numberOfComponents == 4)
        #expect(rgb.alpha == 0.5)
        #expect(rgb.colorSpace?.model == .rgb)
        let ci = CIColor(cgColor: rgb)
        #expect([ci.red, ci.green, ci.blue, ci.alpha] == [0.25, 0.5, 0.75, 0.5])

        #expect(CGColor.black.components == [0, 1])
        #expect(CGColor.white.components == [1, 1])
        #expect(CGColor.clear.components == [0, 0])
        #expect(CIColor(cgColor: .white).components == [1, 1, 1, 1])
        #expect(CIColor(cgColor: .clear).alpha == 0)

        // Generic grey has a 2.2 gamma: the same light in sRGB is the sRGB encoding of 0.5^2.2.
        let grey = CIColor(cgColor: CGColor(gray: 0.5, alpha: 1))
        let expected = SRGB.fromLinear(pow(0.5, 2.2))
        #expect(abs(Double(grey.red) - expected) < 1e-4)
        #expect(grey.red == grey.green && grey.green == grey.blue)
        #expect(CGColor(gray: 0.5, alpha: 1).copy(alpha: 0.25)?.components == [0.5, 0.25])
        // CSS Color 4's worked example: sRGB red is display-p3 (0.9175, 0.2003, 0.1386).
        let p3 = try #require(CGColorSpace(name: CGColorSpace.displayP3))
        let converted = try #require(CGColor(red: 1, green: 0, blue: 0, alpha: 1).converted(to: p3, intent: .defaultIntent, options: nil))
        for (got, want) in zip(converted.components ?? [], [0.9175, 0.2003, 0.1386, 1]) { #expect(abs(Double(got) - want) < 0.001, "\(got) vs \(want)") }
        #expect(converted.colorSpace == p3)
    }

    @Test func aBitmapContextFillsInCoreGraphicsCoordinates() throws {
        // 4 x 4 RGBA, origin bottom left: the bottom-left 2 x 2 quarter is stored in rows 2 and 3.
        let context = try #require(
            CGContext(
                data: nil, width: 4, height: 4, bitsPerComponent: 8, bytesPerRow: 0, space: CGColorSpaceCreateDeviceRGB(),
                bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue))
        context.setFillColor(CGColor.white)
        context.fill(CGRect(x: 0, y: 0, width: 4, height: 4))
        context.setFillColor(CGColor(red: 1, green: 0, blue: 0, alpha: 1))
        context.fill(CGRect(x: 0, y: 0, width: 2, height: 2))
        context.setFillColor(CGColor(red: 0, green: 0, blue: 1, alpha: 0.5))
        context.fill(CGRect(x: 2, y: 2, width: 2, height: 2))
        let bytes = try #require(context.data).assumingMemoryBound(to: UInt8.self)
        func at(_ x: Int, _ rowFromTop: Int) -> [UInt8] { (0..<4).map { bytes[rowFromTop * context.bytesPerRow + x * 4 + $0] } }
        #expect(at(0, 3) == [255, 0, 0, 255])
        #expect(at(1, 2) == [255, 0, 0, 255])
        #expect(at(0, 0) == [255, 255, 255, 255])
        // Half-transparent blue over white, premultiplied: 0.5 * blue + 0.5 * white.
        #expect(at(3, 0) == [128, 128, 255, 255])
        #expect(at(3, 3) == [255, 255, 255, 255])

        let image = try #require(context.makeImage())
        #expect(image.width == 4 && image.height == 4)
        let back = pixel(CIImage(cgImage: image), CIContext(), x: 0, y: 0)  // Core Image: bottom-left pixel
        #expect(back == [255, 0, 0, 255])
    }

    @Test func aBitmapContextDrawsAnImageScaledAndUpright() throws {
        // A 2 x 2 picture: top row red, bottom row blue (Core Image's y is up).
        let top = CIImage(color: .red).cropped(to: CGRect(x: 0, y: 1, width: 2, height: 1))
        let picture = top.composited(over: CIImage(color: .blue).cropped(to: CGRect(x: 0, y: 0, width: 2, height: 2)))
        let ciContext = CIContext()
        let cgImage = try #require(ciContext.createCGImage(picture, from: picture.extent))

        // Caller-owned memory, BGRA little-endian: the layout most resizing helpers use.
        var buffer = [UInt8](repeating: 0, count: 8 * 6 * 4)
        try buffer.withUnsafeMutableBytes { raw in
            let context = try #require(
                CGContext(
                    data: raw.baseAddress, width: 8, height: 6, bitsPerComponent: 8, bytesPerRow: 8 * 4,
                    space: CGColorSpace(name: CGColorSpace.sRGB)!,
                    bitmapInfo: CGBitmapInfo.byteOrder32Little.rawValue | CGImageAlphaInfo.premultipliedFirst.rawValue))
            context.interpolationQuality = .none
            context.draw(cgImage, in: CGRect(x: 0, y: 0, width: 8, height: 6))
        }
        func bgra(_ x: Int, _ row: Int) -> [UInt8] { Array(buffer[(row * 8 + x) * 4..<(row * 8 + x) * 4 + 4]) }
        #expect(bgra(0, 0) == [0, 0, 255, 255])  // top row of memory: red (B, G, R, A)
        #expect(bgra(7, 2) == [0, 0, 255, 255])
        #expect(bgra(0, 3) == [255, 0, 0, 255])  // bottom half: blue
        #expect(bgra(5, 5) == [255, 0, 0, 255])
    }

    @Test func pixelBytesBecomeACGImageThroughADataProvider() throws {
        // A gradient made in memory, wrapped as Core Graphics code does, read back through Core Image.
        let width = 16, height = 2
        var bytes = [UInt8]()
        for _ in 0..<height { for x in 0..<width { bytes += [UInt8(x * 16), UInt8(255 - x * 16), 40, 255] } }
        let provider = try #require(CGDataProvider(data: Data(bytes) as CFData))
        let image = try #require(
            CGImage(
                width: width, height: height, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: width * 4,
                space: CGColorSpaceCreateDeviceRGB(), bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.premultipliedLast.rawValue),
                provider: provider, decode: nil, shouldInterpolate: false, intent: .defaultIntent))
        #expect(image.bitsPerPixel == 32 && image.bitsPerComponent == 8)
        #expect(image.alphaInfo == .premultipliedLast)
        let stored = try #require(image.dataProvider?.data)
        #expect(Data(bytes: stored.bytes, count: stored.length) == Data(bytes))
        var out = [UInt8](repeating: 0, count: width * height * 4)
        CIContext().render(
            CIImage(cgImage: image), toBitmap: &out, rowBytes: width * 4, bounds: CGRect(x: 0, y: 0, width: width, height: height),
            format: .RGBA8, colorSpace: CGColorSpaceCreateDeviceRGB())
        #expect(out == bytes)
        let cropped = try #require(image.cropping(to: CGRect(x: 3, y: 0, width: 2, height: 1)))
        #expect(cropped.width == 2 && cropped.height == 1)
        #expect(Array(cropped.data.prefix(4)) == [48, 207, 40, 255])
    }

    @Test func coreFoundationNamesAndCastsCompile() {
        let options: [CFString: Any] = [
            kCGImageSourceShouldCache: kCFBooleanFalse as CFBoolean, "count" as CFString: 3 as CFNumber,
            "nothing" as CFString: kCFNull!,
        ]
        let dictionary = options as CFDictionary
        let back = dictionary as? [String: Any]
        #expect((back?["count"] as? NSNumber)?.intValue == 3)
        #expect(back?["nothing"] is NSNull)
        #expect(back?[kCGImageSourceShouldCache] as? Bool == false)
        #expect(CFBooleanGetValue(kCFBooleanTrue))
    }
}

// Pixel readers as they are written in the wild: through a bitmap context over an array, and
// through the image's data provider.
extension CGImage {
    fileprivate func rgbxBytes() -> [UInt8]? {
        let bytesPerRow = width * 4
        var pixels = [UInt8](repeating: 0, count: bytesPerRow * height)
        let drawn: Bool = pixels.withUnsafeMutableBytes { raw in
            guard
                let context = CGContext(
                    data: raw.baseAddress, width: width, height: height, bitsPerComponent: 8, bytesPerRow: bytesPerRow,
                    space: CGColorSpaceCreateDeviceRGB(), bitmapInfo: CGImageAlphaInfo.noneSkipLast.rawValue)
            else { return false }
            context.draw(self, in: CGRect(x: 0, y: 0, width: width, height: height))
            return true
        }
        return drawn ? pixels : nil
    }

    fileprivate func color(x: Int, y: Int) -> (UInt8, UInt8, UInt8, UInt8)? {
        guard let data = dataProvider?.data else { return nil }
        let bytes = CFDataGetBytePtr(data)
        let i = y * bytesPerRow + x * 4
        guard i + 3 < CFDataGetLength(data) else { return nil }
        return (bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3])
    }
}

@Suite struct PixelReaderIdiomTests {
    @Test func readersSeeTheBitmapPixelsTopRowFirst() throws {
        // Made from raw bytes with Core Image's old format constant: a top row of (10, 20, 30) and
        // a bottom row of (200, 150, 100), two pixels wide.
        let bytes: [UInt8] = [10, 20, 30, 255, 10, 20, 30, 255, 200, 150, 100, 255, 200, 150, 100, 255]
        let image = CIImage(
            bitmapData: Data(bytes), bytesPerRow: 8, size: CGSize(width: 2, height: 2), format: kCIFormatRGBA8,
            colorSpace: CGColorSpaceCreateDeviceRGB())
        let context = CIContext(options: nil)
        let cgImage = try #require(context.createCGImage(image, from: image.extent))
        let c = try #require(cgImage.color(x: 1, y: 1))
        #expect([c.0, c.1, c.2, c.3] == [200, 150, 100, 255])
        let top = try #require(cgImage.color(x: 0, y: 0))
        #expect([top.0, top.1, top.2] == [10, 20, 30])
        // The padding byte is undefined in Core Graphics: compare red, green and blue.
        let drawn = try #require(cgImage.rgbxBytes())
        let rgb = { (b: [UInt8]) in b.enumerated().filter { $0.offset % 4 != 3 }.map(\.element) }
        #expect(rgb(drawn) == rgb(bytes), "\(drawn)")
    }
}

@Suite struct NamedColorSpaceTests {
    /// Renders a flat colour in `space` to extended linear sRGB floats.
    private func linearSRGB(_ r: CGFloat, _ g: CGFloat, _ b: CGFloat, in space: CGColorSpace) throws -> [Float] {
        let color = try #require(CIColor(red: r, green: g, blue: b, alpha: 1, colorSpace: space))
        var out = [Float](repeating: 0, count: 4)
        CIContext().render(
            CIImage(color: color), toBitmap: &out, rowBytes: 16, bounds: CGRect(x: 0, y: 0, width: 1, height: 1), format: .RGBAf,
            colorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB))
        return out
    }

    @Test func adobeRGBRedAndGreyMatchThePublishedMatrices() throws {
        let adobe = try #require(CGColorSpace(name: CGColorSpace.adobeRGB1998))
        // Adobe RGB (1998) specification: RGB -> XYZ; IEC 61966-2-1: XYZ -> linear sRGB.
        let toXYZ: [[Double]] = [[0.57667, 0.18556, 0.18823], [0.29734, 0.62736, 0.07529], [0.02703, 0.07069, 0.99134]]
        let toSRGB: [[Double]] = [[3.2406, -1.5372, -0.4986], [-0.9689, 1.8758, 0.0415], [0.0557, -0.2040, 1.0570]]
        let xyz = (0..<3).map { toXYZ[$0][0] }  // pure red: the first column
        let expected = (0..<3).map { i in (0..<3).map { toSRGB[i][$0] * xyz[$0] }.reduce(0, +) }
        let red = try linearSRGB(1, 0, 0, in: adobe)
        for i in 0..<3 { #expect(abs(Double(red[i]) - expected[i]) < 0.004, "channel \(i): \(red[i]) vs \(expected[i])") }
        // Grey stays grey (both D65); Adobe's gamma is 563/256.
        let grey = try linearSRGB(0.5, 0.5, 0.5, in: adobe)
        for i in 0..<3 { #expect(abs(Double(grey[i]) - pow(0.5, 563.0 / 256)) < 1e-3) }
    }

    @Test func linearBT2020PrimariesAreWiderThanSRGB() throws {
        let bt2020 = try #require(CGColorSpace(name: CGColorSpace.linearITUR_2020))
        // ITU-R BT.2087: linear BT.2020 -> linear BT.709 (the sRGB primaries), first column.
        let green = try linearSRGB(0, 1, 0, in: bt2020)
        let expected = [-0.5876, 1.1329, -0.1006]
        for i in 0..<3 { #expect(abs(Double(green[i]) - expected[i]) < 0.003, "channel \(i): \(green[i]) vs \(expected[i])") }
        #expect(CGColorSpace(name: CGColorSpace.extendedLinearITUR_2020) != nil)
        #expect(CGColorSpace(name: CGColorSpace.extendedLinearDisplayP3) != nil)
    }

    @Test func filesWrittenInAdobeRGBCarryItsProfile() throws {
        let dir = try Tools.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("adobe.png")
        let adobe = try #require(CGColorSpace(name: CGColorSpace.adobeRGB1998))
        try CIContext().writePNGRepresentation(
            of: CIImage(color: .red).cropped(to: CGRect(x: 0, y: 0, width: 4, height: 4)), to: url, format: .RGBA8, colorSpace: adobe)
        // ImageMagick reads the embedded profile's description and the stored pixel.
        let description = String(decoding: try Tools.run("identify", ["-format", "%[icc:description]", url.path]), as: UTF8.self)
        #expect(description == "Adobe RGB (1998)")
        // sRGB red in Adobe RGB: linear sRGB red -> XYZ (IEC 61966-2-1) -> Adobe RGB (its spec's inverse matrix), gamma 563/256.
        let stored = String(decoding: try Tools.run("convert", [url.path, "-format", "%[fx:int(255*p{0,0}.r)],%[fx:int(255*p{0,0}.g)]", "info:"]), as: UTF8.self)
        let xyz = [0.4124, 0.2126, 0.0193]
        let fromXYZ: [[Double]] = [[2.04159, -0.56501, -0.34473], [-0.96924, 1.87597, 0.04156], [0.01344, -0.11836, 1.01517]]
        let linear = (0..<2).map { i in (0..<3).map { fromXYZ[i][$0] * xyz[$0] }.reduce(0, +) }
        let expected = linear.map { Int(255 * pow(max($0, 0), 256.0 / 563)) }
        let got = stored.split(separator: ",").compactMap { Int($0) }
        #expect(got.count == 2)
        for i in 0..<min(2, got.count) { #expect(abs(got[i] - expected[i]) <= 2, "channel \(i): \(got[i]) vs \(expected[i])") }
    }
}

@Suite struct BitmapContextIdiomTests {
    /// A 1 x 2 picture: red on top, blue below.
    private func redOverBlue() throws -> CGImage {
        let picture = CIImage(color: .red).cropped(to: CGRect(x: 0, y: 1, width: 1, height: 1))
            .composited(over: CIImage(color: .blue).cropped(to: CGRect(x: 0, y: 0, width: 1, height: 1)))
        return try #require(CIContext().createCGImage(picture, from: picture.extent))
    }

    @Test func theFlipTransformDrawsUpsideDown() throws {
        // The UIKit-style flip (`translateBy(0, h)`, `scaleBy(1, -1)`) puts the image's top row at
        // the bottom of memory.
        let context = try #require(
            CGContext(
                data: nil, width: 1, height: 2, bitsPerComponent: 8, bytesPerRow: 4, space: CGColorSpaceCreateDeviceRGB(),
                bitmapInfo: CGImageAlphaInfo.premultipliedFirst.rawValue))
        context.translateBy(x: 0, y: 2)
        context.scaleBy(x: 1, y: -1)
        context.draw(try redOverBlue(), in: CGRect(x: 0, y: 0, width: 1, height: 2))
        let bytes = try #require(context.data).assumingMemoryBound(to: UInt8.self)
        // ARGB in memory (default byte order, alpha first).
        #expect((0..<4).map { bytes[$0] } == [255, 0, 0, 255])  // top of memory: blue
        #expect((4..<8).map { bytes[$0] } == [255, 255, 0, 0])  // bottom: red
    }

    @Test func aGreyContextStoresLuminance() throws {
        let context = try #require(
            CGContext(
                data: nil, width: 1, height: 2, bitsPerComponent: 8, bytesPerRow: 0, space: CGColorSpaceCreateDeviceGray(),
                bitmapInfo: CGImageAlphaInfo.none.rawValue))
        context.draw(try redOverBlue(), in: CGRect(x: 0, y: 0, width: 1, height: 2))
        let bytes = try #require(context.data).assumingMemoryBound(to: UInt8.self)
        // Linear luminance of sRGB red and blue (Rec. 709 weights), encoded with grey's 2.2 gamma.
        let red = Int((pow(0.2126, 1 / 2.2) * 255).rounded()), blue = Int((pow(0.0722, 1 / 2.2) * 255).rounded())
        #expect(abs(Int(bytes[0]) - red) <= 1, "\(bytes[0]) vs \(red)")
        #expect(abs(Int(bytes[1]) - blue) <= 1, "\(bytes[1]) vs \(blue)")
        let image = try #require(context.makeImage())
        #expect(image.bitsPerPixel == 8 && image.alphaInfo == .none)
    }

    @Test func unsupportedLayoutsAreNil() {
        let rgb = CGColorSpaceCreateDeviceRGB()
        // Core Graphics refuses straight alpha in contexts; 16-bit and float are not provided here.
        #expect(CGContext(data: nil, width: 2, height: 2, bitsPerComponent: 8, bytesPerRow: 0, space: rgb, bitmapInfo: CGImageAlphaInfo.last.rawValue) == nil)
        #expect(CGContext(data: nil, width: 2, height: 2, bitsPerComponent: 16, bytesPerRow: 0, space: rgb, bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue) == nil)
        #expect(CGContext(data: nil, width: 0, height: 2, bitsPerComponent: 8, bytesPerRow: 0, space: rgb, bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue) == nil)
        #expect(CGContext(data: nil, width: 2, height: 2, bitsPerComponent: 8, bytesPerRow: 4, space: rgb, bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue) == nil)
    }

    @Test func cgImageOptionsNameTheSpaceOfTheBytes() throws {
        // Mid-grey bytes declared linear: rendered to sRGB they come out as the sRGB encoding of 128/255.
        let bytes = [UInt8](repeating: 128, count: 4)
        let provider = try #require(CGDataProvider(data: Data(bytes) as CFData))
        let cgImage = try #require(
            CGImage(
                width: 2, height: 2, bitsPerComponent: 8, bitsPerPixel: 8, bytesPerRow: 2, space: CGColorSpaceCreateDeviceGray(),
                bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.none.rawValue), provider: provider, decode: nil,
                shouldInterpolate: true, intent: .defaultIntent))
        let linear = try #require(CGColorSpace(name: CGColorSpace.linearSRGB))
        let image = CIImage(cgImage: cgImage, options: [.colorSpace: linear])
        var out = [UInt8](repeating: 0, count: 4)
        CIContext().render(
            image, toBitmap: &out, rowBytes: 4, bounds: CGRect(x: 0, y: 0, width: 1, height: 1), format: .RGBA8,
            colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
        let expected = SRGB.fromLinear(128.0 / 255) * 255
        #expect(abs(Double(out[0]) - expected) <= 1, "\(out[0]) vs \(expected)")
        #expect(out[0] == out[1] && out[1] == out[2])
    }
}
