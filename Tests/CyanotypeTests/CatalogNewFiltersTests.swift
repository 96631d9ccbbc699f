import Foundation
import Testing
@testable import Cyanotype

// What every filter added for issue #16's geometry, distortion, stylize, transition and tone
// part must do, checked the same way for all: registered with Apple's attributes, tiled
// renders equal whole ones bit for bit, a 1% crop of a local filter reads about 1% of its
// sources, and NaN, infinite and out-of-range inputs are handled as in the rest of the
// catalogue (typed errors, declared limits).

/// The filters and a setting of each that exercises it on an `n` x `n` picture.
private func settings(_ n: Double) -> [(String, [String: Any])] {
    let s = n / 400
    func v(_ x: Double, _ y: Double) -> CIVector { CIVector(x: x * s, y: y * s) }
    let guides: [String: Any] = ["inputBottomLeft": v(60, 40), "inputBottomRight": v(340, 50), "inputTopRight": v(320, 360), "inputTopLeft": v(80, 350)]
    return [
        ("CIKeystoneCorrectionVertical", guides), ("CIKeystoneCorrectionHorizontal", guides), ("CIKeystoneCorrectionCombined", guides),
        ("CIPerspectiveRotate", ["inputPitch": 0.2, "inputYaw": -0.1, "inputRoll": 0.05, "inputFocalLength": 35]),
        ("CIPerspectiveTile", ["inputBottomLeft": v(100, 60), "inputBottomRight": v(300, 70), "inputTopRight": v(260, 220), "inputTopLeft": v(130, 200)]),
        ("CINinePartStretched", ["inputBreakpoint0": v(100, 100), "inputBreakpoint1": v(300, 260), "inputGrowAmount": v(80, 60)]),
        ("CINinePartTiled", ["inputBreakpoint0": v(100, 100), "inputBreakpoint1": v(300, 260), "inputGrowAmount": v(80, 60)]),
        ("CIStretchCrop", ["inputSize": v(360, 300), "inputCropAmount": 0.4, "inputCenterStretchAmount": 0.5]),
        ("CIMaximumScaleTransform", [kCIInputScaleKey: 0.5, kCIInputAspectRatioKey: 1.2]),
        ("CISampleNearest", [:]),
        ("CIDroste", ["inputInsetPoint0": v(150, 150), "inputInsetPoint1": v(250, 250), "inputStrands": 1]),
        ("CIGlassLozenge", ["inputPoint0": v(140, 200), "inputPoint1": v(260, 210), kCIInputRadiusKey: 60 * s]),
        ("CISpotLight", ["inputLightPosition": CIVector(x: 200 * s, y: 300 * s, z: 150 * s), "inputLightPointsAt": CIVector(x: 200 * s, y: 180 * s, z: 0)]),
        ("CISpotColor", ["inputCenterColor1": CIColor(red: 0.5, green: 0.5, blue: 0.2)]),
        ("CIShadedMaterial", ["inputShadingImage": TestPicture(21, 21).image, kCIInputScaleKey: 20]),
        ("CIHeightFieldFromMask", [kCIInputRadiusKey: 10]),
        (
            "CIPageCurlTransition",
            [
                "inputShadingImage": TestPicture(21, 5).image, kCIInputTimeKey: 0.4, kCIInputExtentKey: CIVector(x: 0, y: 0, z: n, w: n), kCIInputRadiusKey: 30 * s,
                kCIInputAngleKey: 0.3,
            ]
        ),
        ("CIPageCurlWithShadowTransition", [kCIInputTimeKey: 0.4, kCIInputRadiusKey: 30 * s, kCIInputAngleKey: 2.0]),
        (
            "CIRippleTransition",
            [
                "inputShadingImage": TestPicture(21, 21).image, kCIInputTimeKey: 0.4, kCIInputCenterKey: v(180, 220), kCIInputExtentKey: CIVector(x: 0, y: 0, z: n, w: n),
                kCIInputWidthKey: 40 * s,
            ]
        ),
        ("CIAccordionFoldTransition", [kCIInputTimeKey: 0.2, "inputBottomHeight": 50 * s]),
        ("CISystemToneMap", ["inputDisplayHeadroom": 2]),
    ]
}

/// The filter `name` over an n x n picture (and a second picture for every other image input).
private func configured(_ name: String, _ params: [String: Any], n: Int) -> CIFilter? {
    guard let f = CIFilter(name: name), let d = CIFilter.descriptor(forFilterName: name) else { return nil }
    for input in d.inputs where input.isImage {
        f.setValue(input.key == kCIInputImageKey ? TestPicture(n, n).image : secondPicture(n, n).image, forKey: input.key)
    }
    for (k, v) in params { f.setValue(v, forKey: k) }
    return f
}

/// Filters whose output pixels do not read their sources near them: a whole-image reduction,
/// a periodic tiling, a spiral reaching into every scale.
private let global: Set<String> = ["CISystemToneMap", "CIDroste", "CIPerspectiveTile"]

@Suite struct CatalogNewFiltersTests {
    @Test func everyFilterIsRegisteredWithApplesInputs() throws {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: LUTFixtures.specJSON)) as! [[String: Any]]
        let spec = Dictionary(json.map { ($0["name"] as! String, $0) }, uniquingKeysWith: { a, _ in a })
        let all = Set(CIFilter.filterNames(inCategory: nil))
        for (name, _) in settings(64) {
            #expect(all.contains(name), "\(name) is not registered")
            let f = try #require(CIFilter(name: name))
            let keys = (spec[name]?["inputs"] as? [[String: Any]])?.map { $0["key"] as! String } ?? []
            #expect(f.inputKeys == keys, "\(name) inputs")
            #expect(f.attributes[kCIAttributeFilterCategories] as? [String] == spec[name]?["categories"] as? [String], "\(name) categories")
        }
    }

    @Test func tiledRendersEqualWholeOnes() throws {
        for (name, params) in settings(72) {
            let f = try #require(configured(name, params, n: 72))
            let out = try f.makeOutputImage()
            let window = (out.extent.isInfinite ? CGRect(x: -8, y: -8, width: 88, height: 88) : out.extent.intersection(CGRect(x: -8, y: -8, width: 88, height: 88))).integral
            if window.isEmpty { Issue.record("\(name): empty output"); continue }
            try expectTiledEqualsWhole(out, window, name)
        }
    }

    @Test func aOnePercentCropReadsAboutOnePercentOfTheSources() throws {
        let n = 400
        for (name, params) in settings(Double(n)) where !global.contains(name) {
            let f = try #require(configured(name, params, n: n))
            let out = try f.makeOutputImage()
            let e = out.extent.intersection(CGRect(x: 0, y: 0, width: 2 * n, height: 2 * n))
            // A tenth of the width and height, around the middle of the output.
            let crop = CGRect(x: e.midX - e.width / 20, y: e.midY - e.height / 20, width: e.width / 10, height: e.height / 10).integral
            let sources = f.inputKeys.filter { CIFilter.descriptor(forFilterName: name)?.input($0)?.isImage == true }
                .compactMap { (f.value(forKey: $0) as? CIImage)?.extent }.reduce(0.0) { $0 + Double($1.width * $1.height) }
            let read = try sourcePixelsRead(out.cropped(to: crop), crop)
            #expect(read > 0, "\(name) read nothing")
            // The crop's share, grown by each filter's reach (a halo, a refraction's shift).
            #expect(Double(read) <= 0.04 * sources, "\(name) read \(read) of \(Int(sources)) source pixels for a 1% crop")
        }
    }

    @Test func nonFiniteInputsAreTypedErrors() throws {
        for (name, params) in settings(32) {
            guard let d = CIFilter.descriptor(forFilterName: name) else { continue }
            for input in d.inputs where !input.isImage && (input.className == "NSNumber" || input.attributeType == "CIAttributeTypePosition") {
                if input.attributeType == "CIAttributeTypeBoolean" { continue }
                for bad in [Double.nan, .infinity] {
                    let f = try #require(configured(name, params, n: 32))
                    f.setValue(input.className == "NSNumber" ? bad as Any : CIVector(x: bad, y: 1) as Any, forKey: input.key)
                    #expect(f.outputImage == nil, "\(name).\(input.key) = \(bad)")
                    #expect(throws: CIFilterError.self, "\(name).\(input.key) = \(bad)") { try f.makeOutputImage() }
                }
            }
            // Wrong types are typed errors too.
            let f = try #require(configured(name, params, n: 32))
            f.setValue("not an image", forKey: kCIInputImageKey)
            #expect(throws: CIFilterError.self, "\(name) with a string image") { try f.makeOutputImage() }
        }
    }

    @Test("values beyond a limit render as the limit (Apple's ranges and ours)")
    func outOfRangeValuesRenderAsTheirLimit() throws {
        let pic = TestPicture(30, 24), other = secondPicture(30, 24)
        let rect = CGRect(x: -4, y: -4, width: 38, height: 32)
        // (filter, key, beyond, at the limit, other inputs)
        let cases: [(String, String, Any, Any, [String: Any])] = [
            ("CIPerspectiveRotate", "inputFocalLength", -5.0, 0.1, ["inputPitch": 0.001]),
            ("CIGlassLozenge", "inputRefraction", 0.0, 0.001, ["inputPoint0": CIVector(x: 8, y: 12), "inputPoint1": CIVector(x: 20, y: 12), kCIInputRadiusKey: 6.0]),
            ("CIHeightFieldFromMask", kCIInputRadiusKey, 900.0, 500.0, [:]),
            ("CIHeightFieldFromMask", kCIInputRadiusKey, -3.0, 0.0, [:]),
            ("CINinePartStretched", "inputGrowAmount", CIVector(x: -1e12, y: 3), CIVector(x: -1_073_741_824, y: 3), [:]),
            ("CIStretchCrop", "inputSize", CIVector(x: -20, y: 10), CIVector(x: 0, y: 10), [:]),
            ("CIStretchCrop", "inputCropAmount", 3.0, 1.0, ["inputSize": CIVector(x: 20, y: 10)]),
            ("CISpotLight", "inputConcentration", -1.0, 0.001, [:]),
            ("CIDroste", "inputPeriodicity", 0.0, 1.0, ["inputInsetPoint0": CIVector(x: 10, y: 8), "inputInsetPoint1": CIVector(x: 20, y: 16)]),
            ("CIRippleTransition", kCIInputWidthKey, 0.0, 1.0, [kCIInputTimeKey: 0.3, kCIInputCenterKey: CIVector(x: 15, y: 12)]),
            ("CIAccordionFoldTransition", "inputNumberOfFolds", 90.0, 50.0, [kCIInputTimeKey: 0.4]),
            ("CIPageCurlTransition", kCIInputRadiusKey, -9.0, 0.01, [kCIInputTimeKey: 0.4]),
            ("CISystemToneMap", "inputDisplayHeadroom", 0.2, 1.0, [:]),
        ]
        for (name, key, beyond, atLimit, others) in cases {
            func render(_ value: Any) throws -> [SIMD4<Float>] {
                let f = try #require(CIFilter(name: name))
                for k in f.inputKeys where CIFilter.descriptor(forFilterName: name)?.input(k)?.isImage == true {
                    f.setValue(k == kCIInputImageKey ? pic.image : other.image, forKey: k)
                }
                for (k, v) in others { f.setValue(v, forKey: k) }
                f.setValue(value, forKey: key)
                let out = try f.makeOutputImage()
                return out.extent.isEmpty ? [] : try renderPremultiplied(out, rect)
            }
            let a = try render(beyond), b = try render(atLimit)
            #expect(a.elementsEqual(b) { p, q in (0..<4).allSatisfy { p[$0].bitPattern == q[$0].bitPattern } }, "\(name).\(key): \(beyond) differs from \(atLimit)")
        }
    }

    @Test func nanPixelsNeverTrap() throws {
        // NaN and infinite pixels in every image input (the catalogue-wide test does the same
        // at defaults; here with the settings that reach each filter's inner branches).
        let poison = CIColorKernel(name: "poison") { row in
            for i in row.output.indices {
                switch (row.x + i + row.y) % 3 {
                case 0: row.output[i] = SIMD4(.nan, .nan, .nan, .nan)
                case 1: row.output[i] = SIMD4(.infinity, -.infinity, 1, 1)
                default: row.output[i] = SIMD4(0.5, .nan, 0.2, 0.5)
                }
            }
        }
        let bad = try #require(poison.apply(extent: CGRect(x: 0, y: 0, width: 24, height: 24), arguments: []))
        for (name, params) in settings(24) {
            let f = try #require(configured(name, params, n: 24))
            for k in f.inputKeys where CIFilter.descriptor(forFilterName: name)?.input(k)?.isImage == true { f.setValue(bad, forKey: k) }
            let out = try f.makeOutputImage()
            let r = out.extent.isInfinite ? CGRect(x: -4, y: -4, width: 32, height: 32) : out.extent.intersection(CGRect(x: -4, y: -4, width: 32, height: 32)).integral
            if r.isEmpty { continue }
            _ = try CIContext().renderToData(out, from: r, format: .RGBA8)
        }
    }
}
