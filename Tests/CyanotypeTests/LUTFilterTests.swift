import Foundation
import Testing
@testable import Cyanotype

/// The Core Image face: the CIColorCube family, CILUTFilter and the named looks.
@Suite struct LUTFilterTests {
    let colors = sampleColors(60)
    var input: CIImage { encodedImage(colors, width: 10) }

    @Test func colorCubeAttributesMatchTheCatalog() throws {
        let spec = try JSONSerialization.jsonObject(with: Data(contentsOf: LUTFixtures.specJSON)) as! [[String: Any]]
        for name in ["CIColorCube", "CIColorCubeWithColorSpace", "CIColorCubesMixedWithMask"] {
            let entry = spec.first { $0["name"] as? String == name }!
            let f = CIFilter(name: name)!
            let inputs = entry["inputs"] as! [[String: Any]]
            #expect(f.inputKeys == inputs.map { $0["key"] as! String })
            let attrs = f.attributes
            #expect(attrs[kCIAttributeFilterDisplayName] as? String == entry["displayName"] as? String)
            #expect(attrs[kCIAttributeFilterCategories] as? [String] == entry["categories"] as? [String])
            for i in inputs {
                let a = attrs[i["key"] as! String] as! [String: Any]
                #expect(a[kCIAttributeClass] as? String == i["class"] as? String)
                if let lo = i["min"] as? Double { #expect((a[kCIAttributeMin] as? NSNumber)?.doubleValue == lo) }
                if let hi = i["max"] as? Double { #expect((a[kCIAttributeMax] as? NSNumber)?.doubleValue == hi) }
            }
        }
        let cube = CIFilter.colorCube()
        #expect(cube.cubeDimension == 2)
    }

    @Test func identityCubeDataIsTheIdentity() throws {
        let d = ColorCubeData.identity(dimension: 2)
        #expect(d.count == 128)
        let floats = d.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(floats == [0, 0, 0, 1, 1, 0, 0, 1, 0, 1, 0, 1, 1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1])
        let ref = try renderFloat(input, input.extent)
        // Unset data is Apple's default identity of dimension 2; and an identity of 16.
        let f = CIFilter.colorCube()
        f.inputImage = input
        #expect(maxDiff(try renderFloat(f.outputImage!, input.extent), ref) < 1e-6)
        f.cubeDimension = 16
        f.cubeData = ColorCubeData.identity(dimension: 16)
        #expect(maxDiff(try renderFloat(f.outputImage!, input.extent), ref) < 1e-6)
        #expect(
            try LUT(cubeDataRGBA: ColorCubeData.identity(dimension: 16), dimension: 16)
                == (try {
                    var l = try LUT.identity(size: 16); l.title = nil; return l
                }()))
    }

    @Test func colorCubeIsAppliedToLinearValuesAndColorSpaceVariantToEncoded() throws {
        let lut = try LUT(contentsOf: LUTFixtures.lutC)
        let ref = RefTable(lut)
        // CIColorCube: linear working values in, linear out (Apple's behaviour).
        let plain = CIFilter.colorCube()
        plain.inputImage = input
        plain.cubeDimension = 2
        plain.cubeData = lut.cubeDataRGBA
        let lin = try renderFloat(plain.outputImage!, input.extent)
        // CIColorCubeWithColorSpace(sRGB): encoded in, encoded out.
        let withSpace = CIFilter.colorCubeWithColorSpace()
        withSpace.inputImage = input
        withSpace.cubeDimension = 2
        withSpace.cubeData = lut.cubeDataRGBA
        withSpace.colorSpace = CGColorSpace(name: CGColorSpace.sRGB)!
        let enc = try renderEncoded(withSpace.outputImage!)
        for (i, c) in colors.enumerated() {
            let e = [Double(c.x), Double(c.y), Double(c.z)]
            let l = e.map(srgbToLinear)
            let tl = ref.trilinear(l), te = ref.trilinear(e)
            for k in 0..<3 {
                #expect(abs(Double(lin[i][k]) - tl[k]) < 2e-5)
                #expect(abs(Double(enc[i][k]) - te[k]) < 2e-5)
            }
        }
    }

    @Test func extrapolateExtendsTheEdgeCells() throws {
        // A cube doubling its input: extended input 1.25 gives 2.5 only when extrapolating.
        let doubling = try LUT.make(size: 2) { $0 * 2 }
        let img = CIImage(color: CIColor(red: 1.25, green: 0.5, blue: 0, alpha: 1)).cropped(to: CGRect(x: 0, y: 0, width: 1, height: 1))
        let f = CIFilter.colorCube()
        f.inputImage = img; f.cubeDimension = 2; f.cubeData = doubling.cubeDataRGBA
        let clamped = try renderFloat(f.outputImage!, img.extent)
        f.extrapolate = true
        let extended = try renderFloat(f.outputImage!, img.extent)
        let r = Float(CIColor(red: 1.25, green: 0.5, blue: 0).workingValue.x)
        #expect(abs(clamped[0].x - 2) < 1e-5)
        #expect(abs(extended[0].x - 2 * r) < 1e-4)
    }

    @Test func cubesMixedWithMaskFollowTheMaskLuminance() throws {
        let img = image(testPixels(width: 6, height: 4), 6, 4)
        let ref = try renderFloat(img, img.extent)
        let invert = try LUT.make(size: 2) { SIMD3(1, 1, 1) - $0 }
        for (mask, expectInverted) in [(CIImage.white, true), (CIImage.black, false)] {
            let f = CIFilter(name: "CIColorCubesMixedWithMask")!
            f.setValue(img, forKey: kCIInputImageKey)
            f.setValue(mask, forKey: kCIInputMaskImageKey)
            f.setValue(2, forKey: "inputCubeDimension")
            f.setValue(ColorCubeData.identity(dimension: 2), forKey: "inputCube0Data")
            f.setValue(invert.cubeDataRGBA, forKey: "inputCube1Data")
            let out = try renderFloat(try f.makeOutputImage(), img.extent)
            for i in 0..<out.count {
                let want = expectInverted ? SIMD4(1 - ref[i].x, 1 - ref[i].y, 1 - ref[i].z, 1) : ref[i]
                #expect(maxDiff([out[i]], [want]) < 1e-5)
            }
        }
    }

    @Test func cubeDataIsParsedOncePerDistinctData() throws {
        let data = try LUT.identity(size: 9).cubeDataRGBA
        let a = try ColorCubeCache.shared.table(dimension: 9, data: data).table
        let b = try ColorCubeCache.shared.table(dimension: 9, data: Data(data)).table  // equal bytes, another buffer
        #expect(a === b)
        var other = data
        other[0] = 0x3F
        #expect(try ColorCubeCache.shared.table(dimension: 9, data: other).table !== a)
    }

    @Test func lutFilterFromImageLUTOrFile() throws {
        let lutImage = CIImage(contentsOf: LUTFixtures.identity64Tiles)!
        let ref = try renderEncoded(input)
        let byImage = CILUTFilter(image: lutImage)
        byImage.inputImage = input
        #expect(maxDiff(try renderEncoded(byImage.outputImage!), ref) <= 0.5 / 255 + 1e-5)
        // Parsed once: the same table on every call until the source changes.
        let first = try byImage.makeLUT(), second = try byImage.makeLUT()
        #expect(first.table === second.table)
        byImage.lutImage = lutImage
        #expect(try byImage.makeLUT().table !== first.table)

        let lutC = try LUT(contentsOf: LUTFixtures.lutC)
        let byURL = CIFilter.lutFilter(url: LUTFixtures.lutC)
        byURL.inputImage = input
        byURL.interpolation = .trilinear
        let byValue = CIFilter.lutFilter(lutC)
        byValue.setValue(input, forKey: kCIInputImageKey)
        byValue.setValue("trilinear", forKey: "interpolation")
        #expect(try renderEncoded(byURL.outputImage!) == renderEncoded(byValue.outputImage!))
        #expect(byValue.inputKeys.contains("lutImage") && byValue.value(forKey: "interpolation") as? String == "trilinear")
        #expect(CIFilter.lutFilter(lutImage).lutImage === lutImage)
    }

    @Test func intensityMixesWithTheOriginal() throws {
        let lutC = try LUT(contentsOf: LUTFixtures.lutC)
        let f = CILUTFilter(lutC)
        f.inputImage = input
        f.intensity = 0
        #expect(try renderEncoded(f.outputImage!) == renderEncoded(input))
        f.intensity = 1
        let full = try renderEncoded(f.outputImage!)
        f.setValue(0.25, forKey: "intensity")
        let quarter = try renderEncoded(f.outputImage!)
        let orig = try renderEncoded(input)
        for i in 0..<orig.count {
            let want = orig[i] + (full[i] - orig[i]) * 0.25
            #expect(maxDiff([quarter[i]], [want]) < 2e-5)
        }
    }

    @Test func namedLooksAreReachableAndDifferent() throws {
        let names = LUTConfiguration.shared.lookNames
        #expect(Array(names.prefix(6)) == ["warmFilm", "coolFade", "tealOrange", "bwHighContrast", "crossProcess", "fadedMatte"])
        let ref = try renderEncoded(input)
        var outputs: [[SIMD4<Float>]] = []
        for name in names.prefix(6) {
            let lut = LUTConfiguration.shared.look(named: name)!
            #expect(lut.size == 33 && lut.title == name && lut.colorSpace == .sRGB)
            #expect(lut.image.extent == CGRect(x: 0, y: 0, width: 198, height: 198))
            let f = try CILUTFilter.look(named: name)
            f.inputImage = input
            let out = try renderEncoded(f.outputImage!)
            #expect(maxDiff(out, ref) > 0.03, "\(name) should change the image")
            outputs.append(out)
        }
        for i in 0..<outputs.count { for j in (i + 1)..<outputs.count { #expect(maxDiff(outputs[i], outputs[j]) > 0.02) } }
        // Dynamic member lookup over the configuration.
        let warm = CILUTFilter.warmFilm
        warm.inputImage = input
        #expect(try renderEncoded(warm.outputImage!) == outputs[0])
        #expect(CILUTFilter.bwHighContrast.lut?.apply(SIMD3(0.9, 0.2, 0.4)).x == CILUTFilter.bwHighContrast.lut?.apply(SIMD3(0.9, 0.2, 0.4)).z)
        // Generated once: the same table each time.
        #expect(LUTConfiguration.shared.tealOrange.table === LUTConfiguration.shared.tealOrange.table)
        #expect(throws: LUTError.unknownLook(name: "nope", available: names)) { try CILUTFilter.look(named: "nope") }
    }

    @Test func usersCanAddLooksFromManyThreads() throws {
        let config = LUTConfiguration()
        let lut = try quantizedLUT(size: 5)
        DispatchQueue.concurrentPerform(iterations: 16) { i in
            config.register(lut, named: "mine\(i)")
            _ = config.look(named: "coolFade")
            _ = config.lookNames
        }
        #expect(config.lookNames.count == 6 + 16)
        #expect(config.look(named: "mine7") == lut)
        config.removeLook(named: "mine7")
        #expect(config.look(named: "mine7") == nil)
        LUTConfiguration.shared.register(lut, named: "sharedTest")
        let f = try CILUTFilter.look(named: "sharedTest")
        #expect(f.lut == lut)
        LUTConfiguration.shared.removeLook(named: "sharedTest")
    }
}
