import Foundation
import Testing
@testable import Cyanotype

/// CIFilter's API as Core Image users write it, and every user-facing error message.
@Suite struct FilterAPITests {
    let input = image(testPixels(width: 6, height: 4), 6, 4)

    @Test func unknownNamesGiveNil() {
        #expect(CIFilter(name: "CINoSuchFilter") == nil)
        #expect(CIFilter(name: "") == nil)
        #expect(CIFilter.localizedName(forFilterName: "CINoSuchFilter") == nil)
    }

    @Test func defaultsAndValuesByKey() throws {
        let f = try #require(CIFilter(name: "CIGaussianBlur"))
        #expect(f.name == "CIGaussianBlur")
        #expect(f.inputKeys == ["inputImage", "inputRadius"])
        #expect(f.outputKeys == ["outputImage"])
        #expect((f.value(forKey: kCIInputRadiusKey) as? NSNumber)?.doubleValue == 10)
        f.setValue(3.5, forKey: kCIInputRadiusKey)
        #expect((f.value(forKey: kCIInputRadiusKey) as? Double) == 3.5)
        f.setDefaults()
        #expect((f.value(forKey: kCIInputRadiusKey) as? NSNumber)?.doubleValue == 10)
        let typed = CIFilter.gaussianBlur()
        typed.radius = 4
        #expect(typed.radius == 4)
        #expect((typed.value(forKey: "inputRadius") as? Float) == 4)
    }

    @Test func attributesHaveCoreImagesShape() throws {
        let a = try #require(CIFilter(name: "CISepiaTone")).attributes
        #expect(a[kCIAttributeFilterName] as? String == "CISepiaTone")
        #expect(a[kCIAttributeFilterDisplayName] as? String == "Sepia Tone")
        #expect((a[kCIAttributeFilterCategories] as? [String])?.contains(kCICategoryColorEffect) == true)
        let intensity = try #require(a["inputIntensity"] as? [String: Any])
        #expect(intensity[kCIAttributeClass] as? String == "NSNumber")
        #expect(intensity[kCIAttributeType] as? String == kCIAttributeTypeScalar)
        #expect((intensity[kCIAttributeDefault] as? NSNumber)?.doubleValue == 1)
        #expect((intensity[kCIAttributeSliderMax] as? NSNumber)?.doubleValue == 1)
    }

    @Test func categories() {
        let blurs = CIFilter.filterNames(inCategory: kCICategoryBlur)
        #expect(blurs.contains("CIGaussianBlur") && blurs.contains("CIBoxBlur"))
        #expect(!blurs.contains("CISepiaTone"))
        // Other suites register filters of their own while this runs: compare the built-ins.
        let builtIn = Set(CIFilter.filterNames(inCategory: kCICategoryBuiltIn))
        #expect(builtIn.count == 247)
        #expect(Set(CIFilter.filterNames(inCategory: nil)).intersection(builtIn) == builtIn)
        #expect(Set(CIFilter.filterNames(inCategories: nil)).intersection(builtIn) == builtIn)
        #expect(CIFilter.filterNames(inCategories: [kCICategoryBlur, kCICategoryStillImage]).contains("CIGaussianBlur"))
        #expect(CIFilter.localizedName(forCategory: kCICategoryColorAdjustment) == "Color Adjustment")
    }

    @Test func errorMessagesArePinned() throws {
        let f = try #require(CIFilter(name: "CISepiaTone"))
        #expect(f.outputImage == nil)
        #expect(throws: CIFilterError.missingInput(filter: "CISepiaTone", key: "inputImage")) { try f.makeOutputImage() }
        #expect(CIFilterError.missingInput(filter: "CISepiaTone", key: "inputImage").description == "CISepiaTone needs an image for 'inputImage'")

        f.setValue(input, forKey: kCIInputImageKey)
        f.setValue(Double.nan, forKey: kCIInputIntensityKey)
        #expect(f.outputImage == nil)
        #expect(throws: CIFilterError.nonFinite(filter: "CISepiaTone", key: "inputIntensity")) { try f.makeOutputImage() }
        #expect(CIFilterError.nonFinite(filter: "CISepiaTone", key: "inputIntensity").description == "CISepiaTone.inputIntensity must be a finite number (got NaN or infinity)")

        f.setValue("strong", forKey: kCIInputIntensityKey)
        #expect(throws: CIFilterError.wrongType(filter: "CISepiaTone", key: "inputIntensity", expected: "a number", got: "String")) { try f.makeOutputImage() }
        f.setValue(CIColor.red, forKey: kCIInputIntensityKey)
        #expect(
            CIFilterError.wrongType(filter: "CISepiaTone", key: "inputIntensity", expected: "a number", got: "CIColor").description
                == "CISepiaTone.inputIntensity expects a number, got CIColor")

        f.setValue(0.5, forKey: kCIInputIntensityKey)
        f.setValue(1, forKey: "inputRadius")
        #expect(throws: CIFilterError.unknownKey(filter: "CISepiaTone", key: "inputRadius", validKeys: ["inputImage", "inputIntensity"])) { try f.makeOutputImage() }
        #expect(
            CIFilterError.unknownKey(filter: "CISepiaTone", key: "inputRadius", validKeys: ["inputImage", "inputIntensity"]).description
                == "CISepiaTone has no input 'inputRadius'; its inputs are inputImage, inputIntensity")
        #expect(CIFilterError.unknownFilter("CIFoo").description == "unknown filter 'CIFoo': see CIFilter.filterNames(inCategory: nil) for the built-in names")
        f.setDefaults()
        f.setValue(input, forKey: kCIInputImageKey)
        #expect(f.outputImage != nil)
    }

    @Test func outOfRangeNumbersAreClampedToTheHardLimits() throws {
        // CIGaussianBlur's radius has minimum 0: -5 behaves as 0 (the identity).
        let blurred = input.applyingFilter("CIGaussianBlur", parameters: [kCIInputRadiusKey: -5])
        #expect(try render8(blurred, input.extent) == render8(input, input.extent))
        // CIVibrance's amount has maximum 1.
        let a = input.applyingFilter("CIVibrance", parameters: [kCIInputAmountKey: 7])
        let b = input.applyingFilter("CIVibrance", parameters: [kCIInputAmountKey: 1])
        #expect(try render8(a, input.extent) == render8(b, input.extent))
    }

    @Test func valuesOfEveryReasonableSwiftType() throws {
        for v: Any in [Float(0.5), 0.5, CGFloat(0.5), NSNumber(value: 0.5), "0.5"] {
            let out = input.applyingFilter("CISepiaTone", parameters: [kCIInputIntensityKey: v])
            #expect(try render8(out, input.extent) == render8(input.applyingFilter("CISepiaTone", parameters: [kCIInputIntensityKey: 0.5]), input.extent))
        }
        let t = CGAffineTransform(translationX: 2, y: 0)
        for v: Any in [t, CIVector(cgAffineTransform: t), AffineTransform(translationByX: 2, byY: 0)] {
            #expect(input.applyingFilter("CIAffineTransform", parameters: [kCIInputTransformKey: v]).extent.minX == 2)
        }
    }

    /// Users extend Core Image by subclassing CIFilter.
    final class Halver: CIFilter {
        var inputImage: CIImage?
        override var outputImage: CIImage? {
            inputImage?.applyingFilter("CIColorMatrix", parameters: ["inputRVector": CIVector(x: 0.5, y: 0, z: 0, w: 0)])
        }
        override var inputKeys: [String] { [kCIInputImageKey] }
    }
    struct HalverConstructor: CIFilterConstructor {
        func filter(withName name: String) -> CIFilter? { Halver() }
    }

    @Test func subclassesAndRegisteredNamesWork() throws {
        let h = Halver()
        h.inputImage = input
        let out = try #require(h.outputImage)
        let px = try render8(out, input.extent), ref = try render8(input, input.extent)
        #expect(px[0] < ref[0] || ref[0] == 0)
        CIFilter.registerName("XHalver", constructor: HalverConstructor(), classAttributes: [kCIAttributeFilterCategories: ["XCategory"]])
        #expect(CIFilter.filterNames(inCategory: "XCategory") == ["XHalver"])
        let named = try #require(CIFilter(name: "XHalver"))
        #expect(named.inputKeys == [kCIInputImageKey])
    }
}
