import Foundation
import Testing
@testable import Cyanotype

// What the descriptors tell the tools, measured rather than trusted: every filter that takes
// an image is run on a seeded noise picture with and without one changed pixel (an impulse),
// and on the noise cropped by a few pixels; the farthest output pixel that changes is compared
// with the reach the filter declares (`FilterDescriptor.reach`): none for a pointwise filter,
// at most the halo for the others.

/// Side of the noise picture; the impulse sits at its centre.
private let side = 49
private let centre = side / 2

/// Seeded noise, opaque, as linear float RGBA.
private func noise(seed: UInt64) -> CIImage {
    var rng = SplitMix(seed)
    var floats: [Float] = []
    floats.reserveCapacity(side * side * 4)
    for _ in 0..<(side * side) { floats += [0.2 + 0.6 * rng.unit(), 0.2 + 0.6 * rng.unit(), 0.2 + 0.6 * rng.unit(), 1] }
    let data = floats.withUnsafeBufferPointer { Data(buffer: $0) }
    return CIImage(
        bitmapData: data, bytesPerRow: side * 16, size: CGSize(width: side, height: side), format: .RGBAf,
        colorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB))
}

/// The same noise with the centre pixel set to a colour the noise never has.
private func impulse(seed: UInt64) -> CIImage {
    let spot = CIImage(color: CIColor(red: 1, green: 0, blue: 1)).cropped(to: CGRect(x: centre, y: centre, width: 1, height: 1))
    return spot.composited(over: noise(seed: seed))
}

/// The filter's output on `picture` (its other image inputs the plain noise), rendered over
/// the test picture's square; nil when the filter cannot run on these pictures.
private func output(_ name: String, _ descriptor: FilterDescriptor, values: [String: Any], on picture: CIImage) -> [SIMD4<Float>]? {
    guard let f = CIFilter(name: name) else { return nil }
    for (k, v) in values { f.setValue(v, forKey: k) }
    for input in descriptor.inputs where input.className == "CIImage" {
        f.setValue(input.key == kCIInputImageKey ? picture : noise(seed: 7), forKey: input.key)
    }
    guard let out = try? f.makeOutputImage() else { return nil }
    return try? renderFloat(out, CGRect(x: 0, y: 0, width: side, height: side))
}

private func differ(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> Bool {
    (0..<4).contains { k in a[k].isNaN != b[k].isNaN || (!a[k].isNaN && abs(a[k] - b[k]) > 1e-4) }
}

/// How far (in pixels, the larger of dx and dy) from the impulse the output changes when the
/// impulse is added; nil when the filter cannot run on these pictures.
private func measuredReach(_ name: String, _ descriptor: FilterDescriptor, values: [String: Any]) -> Int? {
    guard let plain = output(name, descriptor, values: values, on: noise(seed: 7)),
        let marked = output(name, descriptor, values: values, on: impulse(seed: 7))
    else { return nil }
    var reach = 0
    for y in 0..<side {
        for x in 0..<side where differ(plain[y * side + x], marked[y * side + x]) {
            reach = max(reach, abs(x - centre), abs((side - 1 - y) - centre))
        }
    }
    return reach
}

/// Margin of the cropped picture inside the test square.
private let margin = 4

/// How deep inside a cropped input (the noise less a 4-pixel border) the output still differs
/// from the output of the whole noise: an output pixel that differs reads input pixels at
/// least that far away (depth 1: the pixel next to the cut). Catches what an impulse misses
/// (a cell filter samples a site that seldom falls on the impulse).
private func measuredReachByCropping(_ name: String, _ descriptor: FilterDescriptor, values: [String: Any]) -> Int? {
    let inner = CGRect(x: margin, y: margin, width: side - 2 * margin, height: side - 2 * margin)
    guard let whole = output(name, descriptor, values: values, on: noise(seed: 7)),
        let cut = output(name, descriptor, values: values, on: noise(seed: 7).cropped(to: inner))
    else { return nil }
    var reach = 0
    for row in 0..<side {
        let y = side - 1 - row
        for x in margin..<(side - margin) where y >= margin && y < side - margin && differ(whole[row * side + x], cut[row * side + x]) {
            let depth = min(x - margin + 1, side - margin - x, y - margin + 1, side - margin - y)
            reach = max(reach, depth)
        }
    }
    return reach
}

@Suite struct FilterReachTests {
    /// The numeric inputs at the middle of their slider ranges (a transition half-way, a
    /// threshold in mid-range), where the defaults may leave the picture as it is.
    static func midpoints(_ d: FilterDescriptor) -> [String: Any] {
        var values: [String: Any] = [:]
        for input in d.inputs where input.className == "NSNumber" && input.attributeType != kCIAttributeTypeBoolean {
            if let lo = input.sliderMinimum, let hi = input.sliderMaximum { values[input.key] = (lo + hi) / 2 }
        }
        return values
    }

    @Test(
        "every pointwise or halo filter reads no farther than it declares (impulse response, cropped input)",
        arguments: ["defaults", "slider midpoints"])
    func declaredReachBoundsTheImpulseResponse(setting: String) {
        var checked = 0, halos = 0
        var skipped: [String] = []
        for name in CIFilter.filterNames(inCategory: nil) {
            guard let d = CIFilter.descriptor(forFilterName: name), d.takesImage, d.reach != .unbounded, d.reach != .wholeImage else { continue }
            var values = setting == "defaults" ? [:] : Self.midpoints(d)
            // A halo's input is set so that the halo fits the cropped picture (at most 12 pixels).
            if case .halo(let key?, let factor, let pixels) = d.reach, factor > 0, let fit = d.reachInPixels(values: values), fit > 12 {
                values[key] = (12 - pixels) / factor
            }
            guard let declared = d.reachInPixels(values: values) else {
                Issue.record("\(name): a halo with no value at the defaults")
                continue
            }
            guard declared <= 12 else {
                Issue.record("\(name): a halo of \(declared) pixels does not fit the test picture")
                continue
            }
            guard let impulse = measuredReach(name, d, values: values), let cropping = measuredReachByCropping(name, d, values: values)
            else {
                skipped.append(name)
                continue
            }
            let measured = max(impulse, cropping)
            checked += 1
            if case .halo = d.reach { halos += 1 }
            #expect(Double(measured) <= declared, "\(name) declares \(d.reach) (\(declared) px) but reads \(measured) px away (impulse \(impulse), cropping \(cropping))")
        }
        // The suite measured most filters; those it could not run on these pictures are listed.
        #expect(checked >= 80, "measured only \(checked) filters; not run: \(skipped)")
        #expect(halos >= 10, "only \(halos) filters declare a halo")
    }

    @Test("a declared halo is tight enough to be useful: a Gaussian blur spreads close to it")
    func gaussianHaloIsNearTheSpread() throws {
        let d = try #require(CIFilter.descriptor(forFilterName: "CIGaussianBlur"))
        for sigma in [2.0, 5.0, 7.0] {
            let declared = try #require(d.reachInPixels(values: [kCIInputRadiusKey: sigma]))
            // 3 sigma, rounded up, plus a pixel: the oracle is the formula.
            #expect(declared == 3 * sigma + 1)
            let f = CIFilter(name: "CIGaussianBlur")!
            f.setValue(sigma, forKey: kCIInputRadiusKey)
            f.setValue(impulse(seed: 3), forKey: kCIInputImageKey)
            let g = CIFilter(name: "CIGaussianBlur")!
            g.setValue(sigma, forKey: kCIInputRadiusKey)
            g.setValue(noise(seed: 3), forKey: kCIInputImageKey)
            let rect = CGRect(x: 0, y: 0, width: side, height: side)
            let a = try renderFloat(f.outputImage!, rect), b = try renderFloat(g.outputImage!, rect)
            var reach = 0
            for i in 0..<a.count where abs(a[i].y - b[i].y) > 1e-6 {
                reach = max(reach, abs(i % side - centre), abs((side - 1 - i / side) - centre))
            }
            #expect(Double(reach) <= declared && Double(reach) >= 3 * sigma - 1, "sigma \(sigma): spread \(reach)")
        }
    }

    @Test("a value outside the range is clamped once, to Apple's range narrowed by our limit")
    func haloUsesTheClampedValue() throws {
        let d = try #require(CIFilter.descriptor(forFilterName: "CIGaussianBlur"))
        // gaussianSigma's limit is 250 (3 * 250 + 1 = 751); Apple's minimum is 0.
        #expect(d.reachInPixels(values: [kCIInputRadiusKey: 1e9]) == 751)
        #expect(d.reachInPixels(values: [kCIInputRadiusKey: -5]) == 1)
        #expect(CIFilter.descriptor(forFilterName: "CIColorInvert")?.reachInPixels() == 0)
        #expect(CIFilter.descriptor(forFilterName: "CITwirlDistortion")?.reachInPixels() == nil)
        // A histogram reads the whole (finite) image: nothing to extend under it.
        for n in ["CIAreaAverage", "CIColorThresholdOtsu", "CIDocumentEnhancer"] {
            let r = CIFilter.descriptor(forFilterName: n)?.reach
            #expect(r == .wholeImage && r?.readsPastEdges == false, "\(n): \(String(describing: r))")
        }
    }

    @Test("code generators say so, with or without their quiet zone; other generators do not")
    func barcodesAreDeclared() {
        let codes = CIFilter.filterNames(inCategory: nil).filter { CIFilter.descriptor(forFilterName: $0)?.barcode != nil }
        #expect(
            Set(codes)
                == [
                    "CIAztecCodeGenerator", "CIBarcodeGenerator", "CICode128BarcodeGenerator", "CIPDF417BarcodeGenerator",
                    "CIQRCodeGenerator", "CIRoundedQRCodeGenerator",
                ])
        #expect(CIFilter.descriptor(forFilterName: "CIQRCodeGenerator")?.barcode?.includesQuietZone == true)
        #expect(CIFilter.descriptor(forFilterName: "CIAztecCodeGenerator")?.barcode?.includesQuietZone == false)
        // Measured: a code that says it carries its quiet zone has white left and right
        // edges; one that does not has dark modules there.
        for (name, message) in [
            ("CIQRCodeGenerator", "cyanotype"), ("CIPDF417BarcodeGenerator", "cyanotype"), ("CICode128BarcodeGenerator", "CY-128"),
            ("CIAztecCodeGenerator", "cyanotype"),
        ] {
            let f = CIFilter(name: name)!
            f.setValue(Data(message.utf8), forKey: "inputMessage")
            guard let out = f.outputImage, let quiet = CIFilter.descriptor(forFilterName: name)?.barcode?.includesQuietZone,
                let px = try? renderFloat(out, out.extent)
            else {
                Issue.record("\(name) drew nothing")
                continue
            }
            let w = Int(out.extent.width), h = Int(out.extent.height)
            // The left and right columns (a linear code's bars run top to bottom).
            var border: [SIMD4<Float>] = []
            for y in 0..<h { border += [px[y * w], px[y * w + w - 1]] }
            let allWhite = border.allSatisfy { $0.x > 0.5 || $0.w < 0.5 }
            #expect(allWhite == quiet, "\(name): white border \(allWhite), declared quiet zone \(quiet)")
        }
    }

    @Test("geometry: scales and crops keep an upright rectangle; an affine transform does when it does not rotate")
    func geometryIsDeclared() {
        func d(_ n: String) -> FilterDescriptor { CIFilter.descriptor(forFilterName: n)! }
        for n in ["CILanczosScaleTransform", "CIBicubicScaleTransform", "CICrop", "CIStraightenFilter", "CIPerspectiveCorrection"] {
            #expect(d(n).keepsRectangle(), "\(n)")
        }
        let affine = d("CIAffineTransform")
        #expect(affine.keepsRectangle(values: [kCIInputTransformKey: CGAffineTransform(scaleX: 2, y: 3)]))
        #expect(affine.keepsRectangle(values: [kCIInputTransformKey: CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 0, ty: 0)]))
        #expect(!affine.keepsRectangle(values: [kCIInputTransformKey: CGAffineTransform(rotationAngle: 0.3)]))
        #expect(!d("CIPerspectiveTransform").keepsRectangle() && d("CIPerspectiveTransform").geometry == .reshapes)
        #expect(d("CIGaussianBlur").geometry == .inPlace && !d("CIGaussianBlur").keepsRectangle())
    }
}

@Suite struct FilterClampTests {
    /// Apple's hard range then our limit, as two clamps: the oracle for the one clamp the
    /// argument reader does.
    static func twoClamps(_ x: Double, apple: (Double?, Double?), limit: (Double?, Double?)) -> Double {
        var v = x
        if let lo = apple.0 { v = max(v, lo) }
        if let hi = apple.1 { v = min(v, hi) }
        if let lo = limit.0 { v = max(v, lo) }
        if let hi = limit.1 { v = min(v, hi) }
        return v
    }

    @Test("one clamp to the narrowed range equals Apple's clamp then the limit's, even where they do not overlap")
    func oneClampEqualsTwo() {
        var rng = SplitMix(25)
        let ranges: [((Double?, Double?), (Double?, Double?))] = [
            ((0, 100), (nil, 250)), ((0, nil), (nil, 250)), ((1, 10), (20, nil)), ((nil, nil), (0.001, nil)),
            ((-5, 5), (-1, 1)), ((0, 10), (nil, -3)), ((nil, 2), (3, 4)),
        ]
        for (apple, limit) in ranges {
            let input = FilterInputDescriptor(
                key: "inputX", displayName: nil, className: "NSNumber", attributeType: nil, minimum: apple.0, maximum: apple.1,
                limit: FilterInputLimit(minimum: limit.0, maximum: limit.1, reason: "test"))
            for _ in 0..<200 {
                let x = Double(rng.unit()) * 60 - 30
                #expect(input.effectiveValue(x) == Self.twoClamps(x, apple: apple, limit: limit), "\(apple) \(limit) at \(x)")
            }
            #expect(input.effectiveValue(.infinity) == Self.twoClamps(.infinity, apple: apple, limit: limit))
            #expect(input.effectiveValue(-.infinity) == Self.twoClamps(-.infinity, apple: apple, limit: limit))
        }
    }

    @Test("the argument reader clamps a radius to the limit, and refuses NaN with the typed error")
    func readerClampsAndRefuses() throws {
        let blur = CIFilter(name: "CIBoxBlur")!
        blur.setValue(CIImage(color: .white).cropped(to: CGRect(x: 0, y: 0, width: 8, height: 8)), forKey: kCIInputImageKey)
        blur.setValue(Double.nan, forKey: kCIInputRadiusKey)
        #expect(throws: CIFilterError.self) { try blur.makeOutputImage() }
        blur.setValue(1e9, forKey: kCIInputRadiusKey)
        // 2000 (the box blur's limit) grows the extent by 2000 on each side.
        let out = try blur.makeOutputImage()
        #expect(abs(out.extent.width - (8 + 2 * 2000)) < 0.5, "\(out.extent)")
    }
}
