import Foundation
import Testing
import Cyanotype

// Core Image code as Apple's users write it, against the public API only (no @testable):
// each test checks values -- pixels, attribute dictionaries, names -- against Apple's
// documented behaviour, with references computed here from the published formulas.
// Where this platform cannot behave as Apple does (no Objective-C KVC), the test checks the
// documented workaround instead.

// MARK: - Fixtures and references (file-private: the other suites have their own helpers)

private let W = 8, H = 6

/// sRGB 8-bit test photo, opaque, every pixel distinct; (x, row) with row 0 at the top.
private func photoPixel(_ x: Int, _ row: Int) -> (UInt8, UInt8, UInt8) {
    (UInt8(20 + 25 * x), UInt8(30 + 35 * row), UInt8(200 - 10 * x - 5 * row))
}

private let sRGB = CGColorSpace(name: CGColorSpace.sRGB)!

/// The 8x6 photo through `CIImage(bitmapData:bytesPerRow:size:format:colorSpace:)`.
private func photo() -> CIImage {
    var bytes = [UInt8]()
    for row in 0..<H {
        for x in 0..<W {
            let p = photoPixel(x, row)
            bytes += [p.0, p.1, p.2, 255]
        }
    }
    return CIImage(bitmapData: Data(bytes), bytesPerRow: W * 4, size: CGSize(width: W, height: H), format: .RGBA8, colorSpace: sRGB)
}

/// `CIContext.render(_:toBitmap:rowBytes:bounds:format:colorSpace:)` into 4-byte pixels,
/// rows top-down as Core Image writes them.
private func render(
    _ image: CIImage, _ rect: CGRect, context: CIContext = CIContext(),
    format: CIFormat = .RGBA8, colorSpace: CGColorSpace? = CGColorSpace(name: CGColorSpace.sRGB)
) -> [UInt8] {
    var buffer = [UInt8](repeating: 0x5A, count: Int(rect.width) * Int(rect.height) * 4)
    buffer.withUnsafeMutableBytes { raw in
        context.render(image, toBitmap: raw.baseAddress!, rowBytes: Int(rect.width) * 4, bounds: rect, format: format, colorSpace: colorSpace)
    }
    return buffer
}

/// Float pixels (RGBAf) rows top-down.
private func renderFloats(_ image: CIImage, _ rect: CGRect, context: CIContext = CIContext(), colorSpace: CGColorSpace?) -> [SIMD4<Float>] {
    var buffer = [SIMD4<Float>](repeating: SIMD4(repeating: -7), count: Int(rect.width) * Int(rect.height))
    buffer.withUnsafeMutableBytes { raw in
        context.render(image, toBitmap: raw.baseAddress!, rowBytes: Int(rect.width) * 16, bounds: rect, format: .RGBAf, colorSpace: colorSpace)
    }
    return buffer
}

private func decode(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
private func encode(_ v: Double) -> Double { v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055 }
private func linear(_ b: UInt8) -> Double { decode(Double(b) / 255) }
private func byte(_ linearValue: Double) -> Int { Int((encode(min(max(linearValue, 0), 1)) * 255).rounded()) }

/// Each byte within `tol` of the expected value.
private func near(_ got: [UInt8], _ want: [Int], tol: Int = 1, _ what: String = "") -> Bool {
    guard got.count == want.count else { Issue.record("\(what): \(got.count) bytes, expected \(want.count)"); return false }
    for i in got.indices where abs(Int(got[i]) - want[i]) > tol {
        Issue.record("\(what): byte \(i) (pixel \(i / 4), channel \(i % 4)) is \(got[i]), expected \(want[i])")
        return false
    }
    return true
}

/// The photo's bytes, mapped through `f(x, row) -> source (x, row)` for a `w` x `h` result.
private func photoBytes(width w: Int = W, height h: Int = H, _ f: (Int, Int) -> (Int, Int) = { ($0, $1) }) -> [Int] {
    var out = [Int]()
    for row in 0..<h {
        for x in 0..<w {
            let (sx, sr) = f(x, row)
            let p = photoPixel(sx, sr)
            out += [Int(p.0), Int(p.1), Int(p.2), 255]
        }
    }
    return out
}

/// Applies a per-channel function of linear values to every photo pixel (alpha stays opaque).
private func photoBytesLinear(_ f: (Double) -> Double) -> [Int] {
    photoBytes().enumerated().map { i, v in i % 4 == 3 ? v : byte(f(linear(UInt8(v)))) }
}

private let rect = CGRect(x: 0, y: 0, width: W, height: H)

// MARK: - Subclasses and a filter constructor, written as Core Image users write them

/// A user filter: stored inputs, `outputImage` overridden (the Core Image extension pattern).
private final class BrightenFilter: CIFilter {
    var inputImage: CIImage?
    var inputEV: CGFloat = 1

    override var outputImage: CIImage? {
        guard let inputImage else { return nil }
        return inputImage.applyingFilter("CIExposureAdjust", parameters: [kCIInputEVKey: inputEV])
    }
}

/// The same filter reachable by key, for use by name: it routes its own keys, which works
/// with and without Objective-C key-value coding.
private final class KeyedBrightenFilter: CIFilter {
    var inputImage: CIImage?
    var inputEV: CGFloat = 1

    override func setValue(_ value: Any?, forKey key: String) {
        switch key {
        case kCIInputImageKey: inputImage = value as? CIImage
        case kCIInputEVKey:
            if let d = value as? Double { inputEV = CGFloat(d) } else if let n = value as? NSNumber { inputEV = CGFloat(n.doubleValue) }
        default: super.setValue(value, forKey: key)
        }
    }
    override var inputKeys: [String] { [kCIInputImageKey, kCIInputEVKey] }
    override var outputImage: CIImage? {
        guard let inputImage else { return nil }
        return inputImage.applyingFilter("CIExposureAdjust", parameters: [kCIInputEVKey: inputEV])
    }
}

/// Core Image's documented pattern: an NSObject subclass adopting CIFilterConstructor.
private class BrightenVendor: NSObject, CIFilterConstructor {
    func filter(withName name: String) -> CIFilter? {
        name == "AppleStyleBrighten" ? KeyedBrightenFilter() : nil
    }
}

/// The deprecated spellings, called through a protocol so the suite itself builds without
/// deprecation warnings (the aliases still warn where users call them directly).
private protocol OlderSpellings {
    func cropping(_ image: CIImage, _ rect: CGRect) -> CIImage
    func applyingWithInputParameters(_ image: CIImage) -> CIImage
    func clamping(_ image: CIImage) -> CIImage
    func filterWithInputParameters(_ image: CIImage) -> CIFilter?
}
private struct OlderSpellingCalls: OlderSpellings {
    @available(*, deprecated)
    func cropping(_ image: CIImage, _ rect: CGRect) -> CIImage { image.cropping(to: rect) }
    @available(*, deprecated)
    func applyingWithInputParameters(_ image: CIImage) -> CIImage {
        image.applyingFilter("CIColorMatrix", withInputParameters: ["inputRVector": CIVector(x: 0, y: 1, z: 0, w: 0)])
    }
    @available(*, deprecated)
    func clamping(_ image: CIImage) -> CIImage { image.clampingToExtent() }
    @available(*, deprecated)
    func filterWithInputParameters(_ image: CIImage) -> CIFilter? {
        CIFilter(name: "CISepiaTone", withInputParameters: [kCIInputImageKey: image, kCIInputIntensityKey: 0.0])
    }
}

@Suite struct AppleStyleUsageTests {

    // MARK: CIFilter by name, key-value access

    @Test func filterByNameWithKeyValueCoding() throws {
        let f = try #require(CIFilter(name: "CISepiaTone"))
        #expect(f.name == "CISepiaTone")
        #expect(f.inputKeys == [kCIInputImageKey, kCIInputIntensityKey])
        #expect(f.outputKeys == [kCIOutputImageKey])
        // iOS sets defaults on creation: intensity 1, no image.
        #expect((f.value(forKey: kCIInputIntensityKey) as? NSNumber)?.doubleValue == 1)
        #expect(f.value(forKey: kCIInputImageKey) == nil)
        #expect(f.outputImage == nil)

        f.setValue(photo(), forKey: kCIInputImageKey)
        f.setValue(0.0, forKey: kCIInputIntensityKey)  // the identity value
        #expect((f.value(forKey: kCIInputIntensityKey) as? NSNumber)?.doubleValue == 0)
        let out = try #require(f.outputImage)
        #expect(out.extent == rect)
        #expect(near(render(out, out.extent), photoBytes(), tol: 0, "sepia at intensity 0"))
        #expect(f.value(forKey: kCIOutputImageKey) is CIImage)

        // Numbers arrive as Double, NSNumber, Float or CGFloat alike.
        f.setValue(0.25, forKey: kCIInputIntensityKey)
        let quarter = render(try #require(f.outputImage), rect)
        #expect(quarter != render(out, rect))
        for v: Any in [NSNumber(value: 0.25), Float(0.25), CGFloat(0.25)] {
            f.setValue(v, forKey: kCIInputIntensityKey)
            #expect(render(try #require(f.outputImage), rect) == quarter, "\(type(of: v))")
        }

        // setDefaults() restores the default and keeps the image.
        f.setDefaults()
        #expect((f.value(forKey: kCIInputIntensityKey) as? NSNumber)?.doubleValue == 1)
        #expect(f.value(forKey: kCIInputImageKey) is CIImage)

        // init?(name:parameters:) and an unknown name.
        let g = try #require(CIFilter(name: "CISepiaTone", parameters: [kCIInputImageKey: photo(), kCIInputIntensityKey: 0.0]))
        #expect(render(try #require(g.outputImage), rect) == render(out, rect))
        #expect(CIFilter(name: "CINoSuchFilter") == nil)
    }

    @Test func typedSepiaToneMatchesTheFilterByName() throws {
        let sepia = CIFilter.sepiaTone()
        #expect(sepia.intensity == 1)
        #expect(sepia.inputImage == nil)
        sepia.inputImage = photo()
        sepia.intensity = 0.8
        #expect(sepia.intensity == 0.8)
        #expect(sepia.value(forKey: kCIInputImageKey) is CIImage)
        #expect(abs(((sepia.value(forKey: kCIInputIntensityKey) as? NSNumber)?.doubleValue ?? 0) - 0.8) < 1e-6)
        let typed = try #require(sepia.outputImage)

        let byName = CIFilter(name: "CISepiaTone")!
        byName.setValue(photo(), forKey: kCIInputImageKey)
        byName.setValue(0.8, forKey: kCIInputIntensityKey)
        let a = render(typed, rect), b = render(try #require(byName.outputImage), rect)
        #expect(a == b)
        #expect(a != render(photo(), rect))  // it did tint
        // The same through CIImage.applyingFilter(_:parameters:).
        #expect(render(photo().applyingFilter("CISepiaTone", parameters: [kCIInputIntensityKey: 0.8]), rect) == a)
        // At full intensity sepia leaves a toned image: red >= green >= blue at every pixel.
        sepia.intensity = 1
        let full = render(try #require(sepia.outputImage), rect)
        for i in stride(from: 0, to: full.count, by: 4) { #expect(full[i] >= full[i + 1] && full[i + 1] >= full[i + 2], "pixel \(i / 4)") }
    }

    @Test func colorMatrixThroughCIVectorsSwapsChannels() throws {
        let f = CIFilter(name: "CIColorMatrix")!
        f.setValue(photo(), forKey: kCIInputImageKey)
        f.setValue(CIVector(x: 0, y: 1, z: 0, w: 0), forKey: "inputRVector")  // red <- green
        f.setValue(CIVector(x: 1, y: 0, z: 0, w: 0), forKey: "inputGVector")  // green <- red
        let out = render(try #require(f.outputImage), rect)
        let want = photoBytes().enumerated().map { i, v -> Int in
            let base = i - i % 4, c = i % 4
            return c == 0 ? photoBytes()[base + 1] : c == 1 ? photoBytes()[base] : v
        }
        #expect(near(out, want, "swapped red and green"))
        // The typed spelling reads the same vectors back.
        let typed = CIFilter.colorMatrix()
        typed.rVector = CIVector(x: 0, y: 1, z: 0, w: 0)
        #expect(typed.rVector == CIVector(x: 0, y: 1, z: 0, w: 0))
        #expect(typed.biasVector == CIVector(x: 0, y: 0, z: 0, w: 0))
    }

    // MARK: Attributes, categories, names

    @Test func attributesHaveCoreImagesShape() throws {
        let attrs = CIFilter(name: "CISepiaTone")!.attributes
        #expect(attrs[kCIAttributeFilterName] as? String == "CISepiaTone")
        #expect(attrs[kCIAttributeFilterDisplayName] as? String == "Sepia Tone")
        let categories = try #require(attrs[kCIAttributeFilterCategories] as? [String])
        #expect(categories.contains(kCICategoryColorEffect) && categories.contains(kCICategoryBuiltIn) && categories.contains(kCICategoryStillImage))

        let intensity = try #require(attrs[kCIInputIntensityKey] as? [String: Any])
        #expect(intensity[kCIAttributeClass] as? String == "NSNumber")
        #expect(intensity[kCIAttributeType] as? String == kCIAttributeTypeScalar)
        #expect((intensity[kCIAttributeDefault] as? NSNumber)?.doubleValue == 1)
        #expect((intensity[kCIAttributeIdentity] as? NSNumber)?.doubleValue == 0)
        #expect((intensity[kCIAttributeMin] as? NSNumber)?.doubleValue == 0)
        #expect((intensity[kCIAttributeSliderMin] as? NSNumber)?.doubleValue == 0)
        #expect((intensity[kCIAttributeSliderMax] as? NSNumber)?.doubleValue == 1)
        #expect(intensity[kCIAttributeDisplayName] as? String == "Intensity")

        let image = try #require(attrs[kCIInputImageKey] as? [String: Any])
        #expect(image[kCIAttributeClass] as? String == "CIImage")
        #expect(image[kCIAttributeType] as? String == kCIAttributeTypeImage)

        let radius = try #require(CIFilter(name: "CIGaussianBlur")!.attributes[kCIInputRadiusKey] as? [String: Any])
        #expect((radius[kCIAttributeDefault] as? NSNumber)?.doubleValue == 10)
        #expect((radius[kCIAttributeMin] as? NSNumber)?.doubleValue == 0)
        #expect((radius[kCIAttributeSliderMin] as? NSNumber)?.doubleValue == 0)
        #expect((radius[kCIAttributeSliderMax] as? NSNumber)?.doubleValue == 100)
        #expect(radius[kCIAttributeType] as? String == kCIAttributeTypeScalar)

        let center = try #require(CIFilter(name: "CIVignetteEffect")?.attributes[kCIInputCenterKey] as? [String: Any])
        #expect(center[kCIAttributeClass] as? String == "CIVector")
        #expect(center[kCIAttributeType] as? String == kCIAttributeTypePosition)
        #expect(center[kCIAttributeDefault] as? CIVector == CIVector(x: 150, y: 150))
    }

    @Test func filterNamesByCategoryAndLocalizedNames() {
        let blurs = CIFilter.filterNames(inCategory: kCICategoryBlur)
        #expect(blurs.contains("CIGaussianBlur") && blurs.contains("CIBoxBlur"))
        #expect(!blurs.contains("CISepiaTone"))
        for name in blurs {
            let categories = CIFilter(name: name)?.attributes[kCIAttributeFilterCategories] as? [String] ?? []
            #expect(categories.contains(kCICategoryBlur), "\(name)")
        }
        let stillEffects = CIFilter.filterNames(inCategories: [kCICategoryColorEffect, kCICategoryStillImage])
        #expect(stillEffects.contains("CISepiaTone") && !stillEffects.contains("CIGaussianBlur"))
        let all = CIFilter.filterNames(inCategory: nil)
        #expect(all.count >= 130 && all.contains("CIGaussianBlur") && all.contains("CISepiaTone"))
        #expect(Set(CIFilter.filterNames(inCategories: nil)) == Set(all))
        #expect(Set(CIFilter.filterNames(inCategory: kCICategoryBuiltIn)).isSuperset(of: blurs))

        #expect(CIFilter.localizedName(forFilterName: "CIGaussianBlur") == "Gaussian Blur")
        #expect(CIFilter.localizedName(forFilterName: "CINoSuchFilter") == nil)
        #expect(CIFilter.localizedName(forCategory: kCICategoryColorAdjustment) == "Color Adjustment")
    }

    // MARK: Subclassing and registering

    @Test func subclassOverridingOutputImage() throws {
        let f = BrightenFilter()
        #expect(f.outputImage == nil)
        f.inputImage = photo()
        f.inputEV = 1
        let out = try #require(f.outputImage)
        // CIExposureAdjust: s.rgb * 2^EV in the (linear) working space.
        #expect(near(render(out, rect), photoBytesLinear { $0 * 2 }, "subclass, EV 1"))
        // A subclass can be used wherever a CIFilter is.
        let asFilter: CIFilter = f
        #expect(asFilter.outputImage != nil)
    }

    @Test func keyValueCodingReachesSubclassPropertiesThroughAnOverride() {
        // On Apple's platforms setValue(_:forKey:) sets a subclass's `inputImage` property
        // through Objective-C key-value coding; Swift on Linux has none (README: not supported
        // yet), so a subclass overrides setValue(_:forKey:), as KeyedBrightenFilter does.
        let plain = BrightenFilter()
        plain.setValue(photo(), forKey: kCIInputImageKey)
        #expect(plain.inputImage == nil, "without KVC the stored property is not reached")
        let keyed = KeyedBrightenFilter()
        keyed.setValue(photo(), forKey: kCIInputImageKey)
        keyed.setValue(2.0, forKey: kCIInputEVKey)
        #expect(keyed.inputImage != nil && keyed.inputEV == 2)
    }

    @Test func registeredFilterNameIsFoundByName() throws {
        CIFilter.registerName(
            "AppleStyleBrighten", constructor: BrightenVendor(),
            classAttributes: [
                kCIAttributeFilterDisplayName: "Apple Style Brighten",
                kCIAttributeFilterCategories: [kCICategoryColorAdjustment, kCICategoryStillImage],
            ])
        let f = try #require(CIFilter(name: "AppleStyleBrighten"))
        #expect(f.name == "AppleStyleBrighten")
        #expect(f.inputKeys == [kCIInputImageKey, kCIInputEVKey])
        f.setValue(photo(), forKey: kCIInputImageKey)
        f.setValue(1.0, forKey: kCIInputEVKey)
        let out = try #require(f.outputImage)
        #expect(near(render(out, rect), photoBytesLinear { $0 * 2 }, "registered filter, EV 1"))
        f.setValue(0.0, forKey: kCIInputEVKey)
        #expect(near(render(try #require(f.outputImage), rect), photoBytes(), tol: 0, "registered filter, EV 0"))

        #expect(CIFilter.filterNames(inCategory: kCICategoryColorAdjustment).contains("AppleStyleBrighten"))
        #expect(CIFilter.filterNames(inCategories: [kCICategoryColorAdjustment, kCICategoryStillImage]).contains("AppleStyleBrighten"))
        #expect(!CIFilter.filterNames(inCategory: kCICategoryBlur).contains("AppleStyleBrighten"))
        #expect(CIFilter.localizedName(forFilterName: "AppleStyleBrighten") == "Apple Style Brighten")

        // Core Image's init(name:) returns the constructor's own object.
        #expect(CIFilter(name: "AppleStyleBrighten") is KeyedBrightenFilter)
        #expect((CIFilter(name: "AppleStyleBrighten", parameters: [kCIInputEVKey: 0.5]) as? KeyedBrightenFilter)?.inputEV == 0.5)
    }

    @Test func typedOffsetsAreCGPointsAsInApple() throws {
        // CIToneCurve's points are CGPoints in Apple's protocol (keys take CIVectors).
        let typed = CIFilter.toneCurve()
        typed.inputImage = photo()
        typed.point1 = CGPoint(x: 0.25, y: 0.4)
        typed.point3 = CGPoint(x: 0.75, y: 0.85)
        let byName = try #require(
            CIFilter(
                name: "CIToneCurve",
                parameters: [
                    kCIInputImageKey: photo(),
                    "inputPoint1": CIVector(x: 0.25, y: 0.4), "inputPoint3": CIVector(x: 0.75, y: 0.85),
                ]))
        #expect(render(try #require(typed.outputImage), rect) == render(try #require(byName.outputImage), rect))
        #expect(typed.point1 == CGPoint(x: 0.25, y: 0.4))
        // CITemperatureAndTint keeps CIVector neutrals, as Apple's does.
        let t: CIVector = CIFilter.temperatureAndTint().neutral
        #expect(t.x == 6500 && t.y == 0)
    }

    @Test func parentProtocolsHoldEveryMember() throws {
        // Apple's shared parents: any transition as CITransitionFilter, any four-corner
        // geometry filter as CIFourCoordinateGeometryFilter, any blend as CICompositeOperation.
        let transitions: [CIFilter & CITransitionFilter] = [CIFilter.dissolveTransition(), CIFilter.swipeTransition(), CIFilter.modTransition()]
        for t in transitions {
            t.inputImage = photo(); t.targetImage = CIImage(color: CIColor(red: 0, green: 0, blue: 1)).cropped(to: rect); t.time = 0
            #expect(near(render(try #require(t.outputImage), rect), photoBytes(), tol: 0, "\(t.name) at time 0"))
        }
        let corners: [CIFilter & CIFourCoordinateGeometryFilter] = [CIFilter.perspectiveTransform(), CIFilter.perspectiveCorrection()]
        for c in corners { #expect(c.topLeft != .zero, "\(c.name) has its default corners") }
        let blend: CIFilter & CICompositeOperation = CIFilter.multiplyBlendMode()
        #expect(blend.name == "CIMultiplyBlendMode")
    }

    @Test func builtinByNameIsItsTypedFilter() throws {
        // As in Core Image, the object behind a name conforms to the name's typed protocol.
        let f = try #require(CIFilter(name: "CISepiaTone") as? CIFilter & CISepiaTone)
        f.inputImage = photo()
        f.intensity = 0.5
        #expect(f.value(forKey: kCIInputIntensityKey) as? Float == 0.5)
        let typed = CIFilter.sepiaTone()
        typed.inputImage = photo()
        typed.intensity = 0.5
        #expect(render(try #require(f.outputImage), rect) == render(try #require(typed.outputImage), rect))
        #expect(CIFilter(name: "CIGaussianBlur") is CIGaussianBlur)
        #expect(CIFilter(name: "CINoSuchFilter") == nil)
    }

    // MARK: CIContext

    @Test func createCGImageFromExtent() throws {
        let context = CIContext()
        let out = CIFilter.sepiaTone()
        out.inputImage = photo()
        let image = try #require(out.outputImage)
        let cg = try #require(context.createCGImage(image, from: image.extent))
        #expect(cg.width == W && cg.height == H)
        #expect(cg.bitsPerComponent == 8 && cg.bitsPerPixel == 32)
        #expect(cg.bytesPerRow >= W * 4)
        let rendered = render(image, image.extent, context: context)
        var rows = [UInt8]()
        for r in 0..<H { rows += cg.data[(r * cg.bytesPerRow)..<(r * cg.bytesPerRow + W * 4)] }
        #expect(rows == rendered)
        // And back: CIImage(cgImage:) shows the same pixels.
        #expect(render(CIImage(cgImage: cg), rect, context: context) == rendered)
        // A sub-rectangle: the top-left 3x2 pixels.
        let corner = try #require(context.createCGImage(image, from: CGRect(x: 0, y: 4, width: 3, height: 2)))
        #expect(corner.width == 3 && corner.height == 2)
        #expect(Array(corner.data[0..<12]) == Array(rendered[0..<12]))
        // Nothing to render: nil, as Core Image returns.
        #expect(context.createCGImage(CIImage(color: .red), from: .infinite) == nil)
    }

    @Test func contextOptionsWorkingSpaceAndAlpha() throws {
        let exposure = photo().applyingFilter("CIExposureAdjust", parameters: [kCIInputEVKey: 1])
        // Colour managed (the default working space, extended linear sRGB): 2x linear light.
        let managed = CIContext()
        #expect(managed.workingColorSpace?.name == CGColorSpace.extendedLinearSRGB)
        #expect(managed.workingFormat == .RGBAf)
        #expect(near(render(exposure, rect, context: managed), photoBytesLinear { $0 * 2 }, "managed exposure"))
        // NSNull: no colour management, the stored sRGB values are doubled as they are.
        let unmanaged = CIContext(options: [.workingColorSpace: NSNull()])
        #expect(unmanaged.workingColorSpace == nil)
        let raw = photoBytes().enumerated().map { i, v in i % 4 == 3 ? v : min(255, v * 2) }
        #expect(near(render(exposure, rect, context: unmanaged), raw, "unmanaged exposure"))

        // Half-transparent red: premultiplied bytes by default, straight with the option.
        let red = CIImage(color: CIColor(red: 1, green: 0, blue: 0, alpha: 0.5)).cropped(to: CGRect(x: 0, y: 0, width: 1, height: 1))
        let one = CGRect(x: 0, y: 0, width: 1, height: 1)
        #expect(near(render(red, one, context: managed), [128, 0, 0, 128], "premultiplied"))
        let straight = CIContext(options: [.outputPremultiplied: false, .cacheIntermediates: false, .workingFormat: CIFormat.RGBAh])
        #expect(near(render(red, one, context: straight), [255, 0, 0, 128], "straight alpha"))
        managed.clearCaches()
        #expect(near(render(exposure, rect, context: managed), photoBytesLinear { $0 * 2 }, "after clearCaches"))
    }

    @Test func renderIntoAnArrayWithNilColorSpace() throws {
        // The common "average colour" snippet: CIAreaAverage into a 4-byte array via `&`.
        let image = photo()
        let avg = image.applyingFilter("CIAreaAverage", parameters: [kCIInputExtentKey: CIVector(cgRect: image.extent)])
        #expect(avg.extent == CGRect(x: 0, y: 0, width: 1, height: 1))
        var mean = [0.0, 0.0, 0.0]
        for row in 0..<H {
            for x in 0..<W {
                let p = photoPixel(x, row)
                mean[0] += linear(p.0) / Double(W * H); mean[1] += linear(p.1) / Double(W * H); mean[2] += linear(p.2) / Double(W * H)
            }
        }
        let context = CIContext()
        var bitmap = [UInt8](repeating: 0, count: 4)
        context.render(avg, toBitmap: &bitmap, rowBytes: 4, bounds: CGRect(x: 0, y: 0, width: 1, height: 1), format: .RGBA8, colorSpace: nil)
        // nil: the context's output colour space (sRGB by default), as Core Image documents.
        #expect(near(bitmap, [byte(mean[0]), byte(mean[1]), byte(mean[2]), 255], "average, colorSpace nil"))
        var explicit = [UInt8](repeating: 0, count: 4)
        context.render(avg, toBitmap: &explicit, rowBytes: 4, bounds: CGRect(x: 0, y: 0, width: 1, height: 1), format: .RGBA8, colorSpace: sRGB)
        #expect(bitmap == explicit)
        // An NSNull output space writes working (linear) values.
        let unmatched = CIContext(options: [.outputColorSpace: NSNull()])
        unmatched.render(avg, toBitmap: &bitmap, rowBytes: 4, bounds: CGRect(x: 0, y: 0, width: 1, height: 1), format: .RGBA8, colorSpace: nil)
        #expect(near(bitmap, mean.map { Int(($0 * 255).rounded()) } + [255], "average, no output matching"))
    }

    // MARK: CIImage geometry and orientation

    @Test func orientedMatchesExifForAllEight() throws {
        // (displayed x, row) -> stored (x, row), rows top-down, per the EXIF definitions.
        let maps: [(CGImagePropertyOrientation, Int, Int, (Int, Int) -> (Int, Int))] = [
            (.up, W, H, { ($0, $1) }),
            (.upMirrored, W, H, { (W - 1 - $0, $1) }),
            (.down, W, H, { (W - 1 - $0, H - 1 - $1) }),
            (.downMirrored, W, H, { ($0, H - 1 - $1) }),
            (.leftMirrored, H, W, { x, r in (r, x) }),
            (.right, H, W, { x, r in (r, H - 1 - x) }),
            (.rightMirrored, H, W, { x, r in (W - 1 - r, H - 1 - x) }),
            (.left, H, W, { x, r in (W - 1 - r, x) }),
        ]
        for (o, w, h, map) in maps {
            let out = photo().oriented(o)
            #expect(out.extent == CGRect(x: 0, y: 0, width: w, height: h), "\(o)")
            #expect(near(render(out, out.extent), photoBytes(width: w, height: h, map), tol: 0, "oriented(\(o))"))
            let byNumber = photo().oriented(forExifOrientation: Int32(o.rawValue))
            #expect(render(byNumber, byNumber.extent) == render(out, out.extent), "forExifOrientation \(o.rawValue)")
            #expect(photo().orientationTransform(forExifOrientation: Int32(o.rawValue)) == photo().orientationTransform(for: o))
            let manual = photo().transformed(by: photo().orientationTransform(for: o))
            #expect(render(manual, manual.extent) == render(out, out.extent), "orientationTransform(for: \(o))")
        }
        // `.right`: the stored top-left pixel ends at the top right.
        let right = render(photo().oriented(.right), CGRect(x: 0, y: 0, width: H, height: W))
        let tl = photoPixel(0, 0)
        #expect(Array(right[(H - 1) * 4..<(H * 4)]) == [tl.0, tl.1, tl.2, 255])
    }

    @Test func croppingTransformingClampingCompositing() throws {
        let img = photo()
        // cropped(to:): extent and pixels of the bottom-left 3x2 (rows 4...5 from the top).
        let crop = img.cropped(to: CGRect(x: 0, y: 0, width: 3, height: 2))
        #expect(crop.extent == CGRect(x: 0, y: 0, width: 3, height: 2))
        #expect(near(render(crop, crop.extent), photoBytes(width: 3, height: 2) { x, r in (x, r + 4) }, tol: 0, "crop"))
        // transformed(by:) with CGAffineTransform: a whole-pixel move keeps the pixels.
        let moved = img.transformed(by: CGAffineTransform(translationX: 3, y: 2))
        #expect(moved.extent == CGRect(x: 3, y: 2, width: W, height: H))
        #expect(render(moved, moved.extent) == render(img, rect))
        let scaled = img.transformed(by: CGAffineTransform(scaleX: 2, y: 2))
        #expect(scaled.extent == CGRect(x: 0, y: 0, width: 16, height: 12))
        // samplingNearest(): a 2x upscale repeats each pixel exactly.
        let nearest = img.samplingNearest().transformed(by: CGAffineTransform(scaleX: 2, y: 2))
        #expect(near(render(nearest, nearest.extent), photoBytes(width: 16, height: 12) { ($0 / 2, $1 / 2) }, tol: 0, "nearest 2x"))
        // samplingLinear() (the default) blends neighbours instead.
        #expect(render(img.samplingNearest().samplingLinear().transformed(by: CGAffineTransform(scaleX: 2, y: 2)), scaled.extent) == render(scaled, scaled.extent))
        #expect(render(scaled, scaled.extent) != render(nearest, nearest.extent))

        // clampedToExtent(): infinite, and the edge pixel repeats outward.
        let clamped = img.clampedToExtent()
        #expect(clamped.extent.isInfinite)
        let outside = render(clamped, CGRect(x: -5, y: H + 3, width: 1, height: 1))  // above the top-left corner
        let tl = photoPixel(0, 0)
        #expect(outside == [tl.0, tl.1, tl.2, 255])
        let clampedTo = img.clamped(to: CGRect(x: 2, y: 2, width: 2, height: 2))
        let p = photoPixel(2, H - 3)  // pixel (2, 2) from the bottom
        #expect(render(clampedTo, CGRect(x: -9, y: -9, width: 1, height: 1)) == [p.0, p.1, p.2, 255])

        // CIImage(color:) is infinite; composited(over:) is Porter-Duff source-over in linear light.
        let halfRed = CIImage(color: CIColor(red: 1, green: 0, blue: 0, alpha: 0.5))
        #expect(halfRed.extent.isInfinite)
        let over = halfRed.composited(over: CIImage(color: .blue)).cropped(to: CGRect(x: 0, y: 0, width: 1, height: 1))
        #expect(near(render(over, over.extent), [byte(0.5), 0, byte(0.5), 255], "source-over"))
        // settingAlphaOne(in:): alpha 1 inside (premultiplied colour kept), clear outside.
        let opaque = halfRed.settingAlphaOne(in: CGRect(x: 0, y: 0, width: 2, height: 1))
        #expect(opaque.extent == CGRect(x: 0, y: 0, width: 2, height: 1))
        #expect(near(render(opaque, CGRect(x: 1, y: 0, width: 2, height: 1)), [byte(0.5), 0, 0, 255, 0, 0, 0, 0], "settingAlphaOne"))
        // unpremultiplyingAlpha() / premultiplyingAlpha(): stored values, read as floats.
        let ext = CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!
        let px = CGRect(x: 0, y: 0, width: 1, height: 1)
        #expect(renderFloats(halfRed.cropped(to: px), px, colorSpace: ext)[0] == SIMD4(0.5, 0, 0, 0.5))
        #expect(renderFloats(halfRed.unpremultiplyingAlpha().cropped(to: px), px, colorSpace: ext)[0] == SIMD4(1, 0, 0, 0.5))
        #expect(renderFloats(halfRed.unpremultiplyingAlpha().premultiplyingAlpha().cropped(to: px), px, colorSpace: ext)[0] == SIMD4(0.5, 0, 0, 0.5))

        // CIImage.empty(), insertingIntermediate(), applyingFilter(_:), applyingGaussianBlur(sigma:).
        #expect(CIImage.empty().extent.isEmpty)
        #expect(render(img.insertingIntermediate(), rect) == render(img, rect))
        #expect(near(render(img.applyingFilter("CIColorInvert"), rect), photoBytesLinear { 1 - $0 }, "CIColorInvert"))
        let grey = CIImage(color: CIColor(red: 0.3, green: 0.6, blue: 0.9))
        let blurred = grey.applyingGaussianBlur(sigma: 3)
        #expect(blurred.extent.isInfinite)
        #expect(near(render(blurred, rect), render(grey, rect).map { Int($0) }, "blurred constant colour"))
    }

    @Test func deprecatedSpellingsStillWork() throws {
        let img = photo()
        let calls: any OlderSpellings = OlderSpellingCalls()
        let r = CGRect(x: 1, y: 1, width: 4, height: 3)
        #expect(calls.cropping(img, r).extent == img.cropped(to: r).extent)
        #expect(render(calls.cropping(img, r), r) == render(img.cropped(to: r), r))
        let swapped = calls.applyingWithInputParameters(img)
        let viaParameters = img.applyingFilter("CIColorMatrix", parameters: ["inputRVector": CIVector(x: 0, y: 1, z: 0, w: 0)])
        #expect(render(swapped, rect) == render(viaParameters, rect))
        #expect(render(swapped, rect) != render(img, rect))
        #expect(calls.clamping(img).extent.isInfinite)
        #expect(render(calls.clamping(img), CGRect(x: -3, y: -3, width: 2, height: 2)) == render(img.clampedToExtent(), CGRect(x: -3, y: -3, width: 2, height: 2)))
        let f = try #require(calls.filterWithInputParameters(img))
        #expect(render(try #require(f.outputImage), rect) == render(img, rect))
    }

    // MARK: CIVector, CIColor, CIFormat, colour spaces, CGAffineTransform

    @Test func vectorInitialisersAndProperties() {
        let v = CIVector(x: 1, y: 2, z: 3, w: 4)
        #expect(v.count == 4 && v.x == 1 && v.y == 2 && v.z == 3 && v.w == 4)
        #expect(v.value(at: 2) == 3)
        #expect(v.stringRepresentation == "[1 2 3 4]")
        let values: [CGFloat] = [0.5, 1.5, 2.5]
        let fromPointer = CIVector(values: values, count: 3)
        #expect(fromPointer.count == 3 && fromPointer.value(at: 1) == 1.5)
        #expect(CIVector(x: 7).count == 1 && CIVector(x: 1, y: 2).count == 2 && CIVector(x: 1, y: 2, z: 3).count == 3)
        #expect(CIVector(string: "[1.0 0.5 0]") == CIVector(x: 1, y: 0.5, z: 0))
        #expect(CIVector(string: CIVector(x: 0.25, y: -3).stringRepresentation) == CIVector(x: 0.25, y: -3))
        let r = CGRect(x: 1, y: 2, width: 30, height: 40)
        #expect(CIVector(cgRect: r).cgRectValue == r)
        #expect(CIVector(cgRect: r) == CIVector(x: 1, y: 2, z: 30, w: 40))
        #expect(CIVector(cgPoint: CGPoint(x: 5, y: 6)).cgPointValue == CGPoint(x: 5, y: 6))
        let t = CGAffineTransform(a: 1, b: 2, c: 3, d: 4, tx: 5, ty: 6)
        #expect(CIVector(cgAffineTransform: t).cgAffineTransformValue == t)
        #expect(CIVector(cgAffineTransform: t).count == 6)
    }

    @Test func colorInitialisersAndProperties() throws {
        let c = CIColor(red: 0.2, green: 0.4, blue: 0.6)
        #expect(c.red == 0.2 && c.green == 0.4 && c.blue == 0.6 && c.alpha == 1)
        #expect(c.numberOfComponents == 4)
        #expect(c.components[3] == 1)
        #expect(c.colorSpace.name == CGColorSpace.sRGB)
        let d = CIColor(red: 0.2, green: 0.4, blue: 0.6, alpha: 0.8)
        #expect(d.stringRepresentation == "0.2 0.4 0.6 0.8")
        #expect(CIColor(string: d.stringRepresentation) == d)
        #expect(CIColor(string: "0.5 0.25 1") == CIColor(red: 0.5, green: 0.25, blue: 1, alpha: 1))
        #expect(CIColor.red == CIColor(red: 1, green: 0, blue: 0) && CIColor.clear.alpha == 0 && CIColor.white.blue == 1)

        // init?(red:green:blue:alpha:colorSpace:) is failable: nil for a non-RGB space.
        let linearSpace = CGColorSpace(name: CGColorSpace.linearSRGB)!
        let linearHalf = try #require(CIColor(red: 0.5, green: 0.5, blue: 0.5, alpha: 1, colorSpace: linearSpace))
        #expect(linearHalf.colorSpace == linearSpace)
        #expect(CIColor(red: 0.5, green: 0.5, blue: 0.5, alpha: 1, colorSpace: CGColorSpace(name: CGColorSpace.genericGrayGamma2_2)!) == nil)
        #expect(CIColor(red: 0.5, green: 0.5, blue: 0.5, colorSpace: CGColorSpace(name: CGColorSpace.linearGray)!) == nil)
        #expect(CIColor(red: 0.5, green: 0.5, blue: 0.5, colorSpace: linearSpace) != nil)

        // Colours render as their values: sRGB components as they are, linear ones encoded.
        let px = CGRect(x: 0, y: 0, width: 1, height: 1)
        #expect(near(render(CIImage(color: CIColor(red: 1, green: 0.5, blue: 0)).cropped(to: px), px), [255, 128, 0, 255], "sRGB colour"))
        #expect(near(render(CIImage(color: linearHalf).cropped(to: px), px), [188, 188, 188, 255], "linear 0.5"))
        #expect(near(render(CIImage.green.cropped(to: px), px), [0, 255, 0, 255], "CIImage.green"))
    }

    @Test func formatsLayOutPixelsAsNamed() throws {
        let p = photoPixel(2, 1)  // rendered alone at (2, H - 2)
        let one = CGRect(x: 2, y: H - 2, width: 1, height: 1)
        func bytes(_ format: CIFormat, _ count: Int, space: CGColorSpace? = CGColorSpace(name: CGColorSpace.sRGB)) -> [UInt8] {
            var b = [UInt8](repeating: 0x5A, count: count)
            b.withUnsafeMutableBytes { CIContext().render(photo(), toBitmap: $0.baseAddress!, rowBytes: count, bounds: one, format: format, colorSpace: space) }
            return b
        }
        #expect(bytes(.RGBA8, 4) == [p.0, p.1, p.2, 255])
        #expect(bytes(.BGRA8, 4) == [p.2, p.1, p.0, 255])
        #expect(bytes(.ARGB8, 4) == [255, p.0, p.1, p.2])
        #expect(bytes(.ABGR8, 4) == [255, p.2, p.1, p.0])
        #expect(bytes(.R8, 1) == [p.0])
        #expect(bytes(.A8, 1) == [255])
        let rgba16 = bytes(.RGBA16, 8).withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
        #expect(near(rgba16.map { UInt8(clamping: Int($0) / 257) }, [Int(p.0), Int(p.1), Int(p.2), 255], "RGBA16 / 257"))
        #expect(rgba16[3] == 65535)
        let linearSpace = CGColorSpace(name: CGColorSpace.linearSRGB)!
        let f = bytes(.RGBAf, 16, space: linearSpace).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(abs(Double(f[0]) - linear(p.0)) < 1e-4 && abs(Double(f[1]) - linear(p.1)) < 1e-4 && abs(Double(f[2]) - linear(p.2)) < 1e-4 && f[3] == 1)
        let h = bytes(.RGBAh, 8, space: linearSpace).withUnsafeBytes { Array($0.bindMemory(to: Float16.self)) }
        #expect(abs(Double(h[0]) - linear(p.0)) < 2e-3 && abs(Double(h[2]) - linear(p.2)) < 2e-3 && h[3] == 1)
        let rf = bytes(.Rf, 4, space: linearSpace).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(abs(Double(rf[0]) - linear(p.0)) < 1e-4)
        // Grey formats of a grey pixel hold its value.
        var greyBytes = [UInt8]()
        for _ in 0..<4 { greyBytes += [90, 90, 90, 255] }
        let grey = CIImage(bitmapData: Data(greyBytes), bytesPerRow: 8, size: CGSize(width: 2, height: 2), format: .RGBA8, colorSpace: sRGB)
        var l8 = [UInt8](repeating: 0, count: 4)
        l8.withUnsafeMutableBytes { CIContext().render(grey, toBitmap: $0.baseAddress!, rowBytes: 2, bounds: grey.extent, format: .L8, colorSpace: sRGB) }
        #expect(near(l8, [90, 90, 90, 90], "L8"))
        #expect(CIFormat.RGBA8.bytesPerPixel == 4 && CIFormat.RGBAh.bytesPerPixel == 8 && CIFormat.RGBAf.bytesPerPixel == 16 && CIFormat.L8.bytesPerPixel == 1)
    }

    @Test func colorSpaceNamesAndConversions() throws {
        for name in [
            CGColorSpace.sRGB, CGColorSpace.linearSRGB, CGColorSpace.extendedSRGB, CGColorSpace.extendedLinearSRGB,
            CGColorSpace.displayP3, CGColorSpace.extendedDisplayP3, CGColorSpace.genericGrayGamma2_2, CGColorSpace.linearGray,
        ] {
            let space = try #require(CGColorSpace(name: name), "\(name)")
            #expect(space.name == name)
        }
        #expect(CGColorSpace(name: CGColorSpace.sRGB)!.numberOfComponents == 3)
        #expect(CGColorSpace(name: CGColorSpace.genericGrayGamma2_2)!.numberOfComponents == 1)
        #expect(CGColorSpace(name: "kCGColorSpaceNoSuchSpace") == nil)
        #expect(CGColorSpaceCreateDeviceRGB().numberOfComponents == 3 && CGColorSpaceCreateDeviceGray().numberOfComponents == 1)

        // sRGB red rendered into Display P3: (0.9175, 0.2003, 0.1386) -> 234, 51, 35.
        let px = CGRect(x: 0, y: 0, width: 1, height: 1)
        let red = CIImage(color: CIColor(red: 1, green: 0, blue: 0)).cropped(to: px)
        #expect(near(render(red, px, colorSpace: CGColorSpace(name: CGColorSpace.displayP3)!), [234, 51, 35, 255], "sRGB red in P3"))
        // Linear sRGB destination: the linear value of the sRGB component.
        let l = Int((decode(0.5) * 255).rounded())  // 55
        #expect(
            near(
                render(CIImage(color: CIColor(red: 0.5, green: 0.5, blue: 0.5)).cropped(to: px), px, colorSpace: CGColorSpace(name: CGColorSpace.linearSRGB)!),
                [l, l, l, 255], "sRGB 0.5 in linear sRGB"))
        // A P3 colour as source: P3 (1, 0, 0) is outside sRGB, clipped red in 8-bit sRGB.
        let p3Red = try #require(CIColor(red: 1, green: 0, blue: 0, alpha: 1, colorSpace: CGColorSpace(name: CGColorSpace.displayP3)!))
        let out = render(CIImage(color: p3Red).cropped(to: px), px)
        #expect(out[0] == 255 && out[1] == 0 && out[2] == 0)
        // ... and its linear sRGB value, unclipped in the extended space, is (1.2249, -0.0421, -0.0196).
        let f = renderFloats(CIImage(color: p3Red).cropped(to: px), px, colorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!)[0]
        #expect(abs(f.x - 1.2249) < 2e-3 && abs(f.y + 0.0421) < 2e-3 && abs(f.z + 0.0196) < 2e-3)
    }

    @Test func affineTransformsFollowCoreGraphics() {
        let p = CGPoint(x: 1, y: 1)
        // translatedBy/scaledBy/rotated(by:) prepend to the receiver, as CoreGraphics does.
        #expect(p.applying(CGAffineTransform(translationX: 2, y: 3).scaledBy(x: 2, y: 2)) == CGPoint(x: 4, y: 5))
        #expect(p.applying(CGAffineTransform(scaleX: 2, y: 2).translatedBy(x: 2, y: 3)) == CGPoint(x: 6, y: 8))
        let r = CGPoint(x: 1, y: 0).applying(CGAffineTransform.identity.rotated(by: .pi / 2))
        #expect(abs(r.x) < 1e-12 && abs(r.y - 1) < 1e-12)
        let rot = CGAffineTransform(rotationAngle: .pi / 2)
        #expect(abs(rot.a) < 1e-12 && rot.b == 1 && rot.c == -1 && abs(rot.d) < 1e-12)
        // concatenating: the receiver first, then the argument.
        let t = CGAffineTransform(scaleX: 2, y: 2).concatenating(CGAffineTransform(translationX: 1, y: 0))
        #expect(CGPoint(x: 3, y: 0).applying(t) == CGPoint(x: 7, y: 0))
        #expect(t.inverted().concatenating(t).isIdentity)
        #expect(CGAffineTransform.identity.isIdentity && !t.isIdentity)
        let turned = CGRect(x: 0, y: 0, width: 2, height: 1).applying(rot)
        #expect(abs(turned.minX + 1) < 1e-12 && abs(turned.minY) < 1e-12 && abs(turned.width - 1) < 1e-12 && abs(turned.height - 2) < 1e-12)
        #expect(CGSize(width: 2, height: 3).applying(CGAffineTransform(scaleX: 2, y: -1)) == CGSize(width: 4, height: -3))
        #expect(CGAffineTransform(1, 0, 0, 1, 5, 6) == CGAffineTransform(translationX: 5, y: 6))
        // CIAffineTransform takes one by key; CIImage.transformed(by:) gives the same pixels.
        let move = CGAffineTransform(translationX: 2, y: 1)
        let f = CIFilter(name: "CIAffineTransform")!
        f.setValue(photo(), forKey: kCIInputImageKey)
        f.setValue(move, forKey: kCIInputTransformKey)
        let out = f.outputImage!
        #expect(out.extent == photo().transformed(by: move).extent)
        #expect(render(out, out.extent) == render(photo(), rect))
        // (CIFilterBuiltins has no affineTransform(): CIImage.transformed(by:) is the typed way.)
        #expect(CIFilter(name: "CIAffineTransform")?.value(forKey: kCIInputTransformKey) as? CGAffineTransform == .identity)
    }

    // MARK: Kernels written in Swift

    @Test func colorKernelsInvertAndMix() throws {
        let invert = CIColorKernel(name: "invert") { row in
            for i in row.output.indices {
                let p = row.output[i]
                row.output[i] = SIMD4(p.w - p.x, p.w - p.y, p.w - p.z, p.w)
            }
        }
        let inverted = try #require(invert.apply(extent: photo().extent, arguments: [photo()]))
        #expect(inverted.extent == rect)
        let got = render(inverted, rect)
        #expect(near(got, photoBytesLinear { 1 - $0 }, "colour kernel invert"))
        #expect(got == render(try #require(CIFilter(name: "CIColorInvert", parameters: [kCIInputImageKey: photo()])?.outputImage), rect))

        // Two images: the second is `row.input(0)`; the average of the photo and its inversion.
        let mix = CIColorKernel(name: "mix") { row in
            let other = row.input(0)
            for i in row.output.indices { row.output[i] = (row.output[i] + other[i]) * 0.5 }
        }
        let mixed = try #require(mix.apply(extent: rect, arguments: [photo(), inverted]))
        #expect(near(render(mixed, rect), photoBytes().enumerated().map { i, _ in i % 4 == 3 ? 255 : byte(0.5) }, "mix to grey"))

        // A generator: no image arguments, the kernel fills clear rows.
        let fill = CIColorKernel(name: "fill") { row in
            for i in row.output.indices { row.output[i] = SIMD4(0.25, 0.5, 1, 1) }
        }
        let filled = try #require(fill.apply(extent: CGRect(x: 0, y: 0, width: 2, height: 1), arguments: []))
        #expect(near(render(filled, filled.extent), [byte(0.25), byte(0.5), 255, 255, byte(0.25), byte(0.5), 255, 255], "generator kernel"))
    }

    @Test func warpKernelMirrors() throws {
        let mirror = CIWarpKernel(name: "mirror") { row in
            for i in row.sourcePoints.indices {
                row.sourcePoints[i] = SIMD2(Float(W) - (Float(row.x + i) + 0.5), Float(row.y) + 0.5)
            }
        }
        let warped = mirror.apply(
            extent: rect,
            roiCallback: { _, r in
                CGRect(x: CGFloat(W) - r.maxX, y: r.minY, width: r.width, height: r.height)
            }, image: photo(), arguments: [])
        let out = try #require(warped)
        #expect(out.extent == rect)
        #expect(near(render(out, rect), photoBytes { (W - 1 - $0, $1) }, tol: 0, "warp mirror"))
    }

    @Test func generalKernelReadsItsRegionOfInterest() throws {
        // A 3-tap horizontal box blur; the ROI callback asks for one more pixel each side.
        let box = CIKernel(name: "box3") { tile in
            let src = tile.inputs[0]
            let x0 = Int(tile.rect.minX), y0 = Int(tile.rect.minY)
            for r in 0..<Int(tile.rect.height) {
                let out = tile.outputRow(r)
                for i in 0..<out.count {
                    let x = x0 + i, y = y0 + r
                    out[i] = (src.pixel(x: x - 1, y: y) + src.pixel(x: x, y: y) + src.pixel(x: x + 1, y: y)) / 3
                }
            }
        }
        let asked = ROIRecorder()
        let boxed = box.apply(
            extent: rect,
            roiCallback: { index, r in
                asked.record(index, r)
                return r.insetBy(dx: -1, dy: 0)
            }, arguments: [photo().clampedToExtent()])
        let out = try #require(boxed)
        #expect(out.extent == rect)
        let got = render(out, rect)
        var want = [Int]()
        for row in 0..<H {
            for x in 0..<W {
                let l = photoPixel(max(0, x - 1), row), c = photoPixel(x, row), rr = photoPixel(min(W - 1, x + 1), row)
                want += [
                    byte((linear(l.0) + linear(c.0) + linear(rr.0)) / 3), byte((linear(l.1) + linear(c.1) + linear(rr.1)) / 3),
                    byte((linear(l.2) + linear(c.2) + linear(rr.2)) / 3), 255,
                ]
            }
        }
        #expect(near(got, want, "box3 with clamped edges"))
        #expect(asked.indices.allSatisfy { $0 == 0 } && !asked.indices.isEmpty)
    }

    @Test func blendKernelsBuiltInAndCustom() throws {
        let fg = photo()
        let bg = CIImage(color: CIColor(red: 0.5, green: 0.25, blue: 1)).cropped(to: rect)
        // CIBlendKernel.multiply == CIMultiplyBlendMode; .sourceOver == composited(over:).
        let m = try #require(CIBlendKernel.multiply.apply(foreground: fg, background: bg))
        let viaFilter = try #require(CIFilter(name: "CIMultiplyBlendMode", parameters: [kCIInputImageKey: fg, kCIInputBackgroundImageKey: bg])?.outputImage)
        #expect(render(m, rect) == render(viaFilter, rect))
        let bgLinear = [decode(0.5), decode(0.25), 1.0]
        let want = photoBytes().enumerated().map { i, v in i % 4 == 3 ? 255 : byte(linear(UInt8(v)) * bgLinear[i % 4]) }
        #expect(near(render(m, rect), want, "multiply"))
        let halfRed = CIImage(color: CIColor(red: 1, green: 0, blue: 0, alpha: 0.5)).cropped(to: rect)
        #expect(render(try #require(CIBlendKernel.sourceOver.apply(foreground: halfRed, background: bg)), rect) == render(halfRed.composited(over: bg), rect))
        let screen = try #require(CIBlendKernel.screen.apply(foreground: fg, background: bg))
        #expect(render(screen, rect) == render(fg.applyingFilter("CIScreenBlendMode", parameters: [kCIInputBackgroundImageKey: bg]), rect))

        // A custom blend kernel: the mean of foreground and background; the extent is the union.
        let mean = CIBlendKernel(name: "mean") { row in
            let back = row.input(0)
            for i in row.output.indices { row.output[i] = (row.output[i] + back[i]) * 0.5 }
        }
        let small = fg.cropped(to: CGRect(x: 0, y: 0, width: 4, height: 6))
        let blended = try #require(mean.apply(foreground: small, background: bg))
        #expect(blended.extent == rect)
        let meanWant = photoBytes().enumerated().map { i, v in i % 4 == 3 ? 255 : byte((linear(UInt8(v)) + bgLinear[i % 4]) / 2) }
        let got = render(blended, rect)
        // The left half (where the foreground is) is the mean.
        for row in 0..<H {
            let start = row * W * 4
            #expect(near(Array(got[start..<(start + 16)]), Array(meanWant[start..<(start + 16)]), "mean blend row \(row)"))
        }
    }
}

/// Collects ROI callback calls (which may come from any tile's thread).
private final class ROIRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var calls: [Int32] = []
    func record(_ index: Int32, _ rect: CGRect) { lock.lock(); calls.append(index); lock.unlock() }
    var indices: [Int32] { lock.lock(); defer { lock.unlock() }; return calls }
}

@Suite struct FractionalBitmapBounds {
    /// Code that reads one pixel under a detected feature passes its fractional centre
    /// (`CGRect(x: bounds.midX, y: bounds.midY, width: 1, height: 1)`) and a 4-byte buffer:
    /// it gets the pixel nearest that point, not an untouched buffer.
    @Test func aOnePixelReadAtAFractionalPointFillsItsBuffer() {
        let image = photo()
        // x 3.4 -> pixel 3; y 2.6 (from the bottom) -> pixel 3 from the bottom, row H-1-3 from the top.
        let bytes = render(image, CGRect(x: 3.4, y: 2.6, width: 1, height: 1))
        let p = photoPixel(3, H - 1 - 3)
        #expect(bytes == [p.0, p.1, p.2, 255])
        // A 2x2 read straddling pixels keeps its size: the buffer is filled, no byte left as it was.
        let block = render(image, CGRect(x: 0.5, y: 0.5, width: 2, height: 2))
        #expect(!block.contains(0x5A))
        #expect(
            Array(block[0..<4])
                == {
                    let q = photoPixel(1, H - 1 - 2); return [q.0, q.1, q.2, 255]
                }())
    }
}
