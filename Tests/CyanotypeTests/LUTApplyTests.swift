import Foundation
import Testing
import CCyanotypeKernels
@testable import Cyanotype
import CyanotypeCodecs

/// Applying LUTs: identity in every layout, the two interpolations against reference
/// formulas, equal results across formats, banding, tiling, and the sRGB rule.
@Suite struct LUTApplyTests {
    let colors = sampleColors(180)
    var input: CIImage { encodedImage(colors, width: 20) }

    @Test(arguments: [2, 16, 33, 64])
    func identityReproducesInputInEveryLayout(size: Int) throws {
        let lut = try LUT.identity(size: size)
        let reference = try renderEncoded(input)
        var sources: [(String, LUT)] = [("model", lut)]
        for layout in LUTImageLayout.allCases {
            guard let img = try? lut.image(layout: layout) else {
                #expect(layout == .hald && isqrt(size) * isqrt(size) != size)
                continue
            }
            sources.append(("\(layout) float image", try LUT(image: img, layout: layout, maximumSize: 256)))
            sources.append(("\(layout) 16-bit PNG", try LUT(imageData: try lut.pngData(layout: layout, bitDepth: 16), layout: layout, maximumSize: 256)))
        }
        sources.append((".cube", try LUT(cubeString: try lut.cubeString())))
        for (what, l) in sources {
            for interpolation in LUTInterpolation.allCases {
                let out = try renderEncoded(input.applyingLUT(l, interpolation: interpolation))
                let d = maxDiff(out, reference)
                #expect(d <= 1 / 65535, "\(what) \(interpolation) size \(size): max difference \(d * 65535)/65535")
            }
        }
    }

    @Test func identityImage8BitIsWithinHalfAStep() throws {
        let lut = try LUT(contentsOf: LUTFixtures.identity64Tiles)
        #expect(lut.size == 64)
        let out = try renderEncoded(input.applyingLUT(lut))
        #expect(maxDiff(out, try renderEncoded(input)) <= 0.5 / 255 + 1e-5)
    }

    @Test func generatedIdentityPNGEqualsGPUImageLookup() throws {
        let ours = try ImageCodecs.decode(try LUT.identity(size: 64).pngData(layout: .tiles, bitDepth: 8))
        let theirs = try ImageCodecs.decode(try Data(contentsOf: LUTFixtures.identity64Tiles))
        #expect(ours.width == 512 && ours.height == 512)
        #expect(ours.pixels == theirs.pixels)
    }

    @Test func lutCTrilinearAndTetrahedralMatchTheirFormulas() throws {
        let lut = try LUT(contentsOf: LUTFixtures.lutC)
        #expect(lut.size == 2 && lut.title == "acceptance lutC 2")
        let ref = RefTable(lut)
        let tri = try renderEncoded(input.applyingLUT(lut, interpolation: .trilinear))
        let tet = try renderEncoded(input.applyingLUT(lut, interpolation: .tetrahedral))
        var maxMethodGap = 0.0
        for (i, c) in colors.enumerated() {
            let cd = [Double(c.x), Double(c.y), Double(c.z)]
            let et = ref.trilinear(cd), eh = ref.tetrahedral(cd)
            for k in 0..<3 {
                #expect(abs(Double(tri[i][k]) - et[k]) < 2e-5, "trilinear at \(c) channel \(k): \(tri[i][k]) vs \(et[k])")
                #expect(abs(Double(tet[i][k]) - eh[k]) < 2e-5, "tetrahedral at \(c) channel \(k): \(tet[i][k]) vs \(eh[k])")
                maxMethodGap = max(maxMethodGap, abs(et[k] - eh[k]))
            }
            // The scalar API agrees with the image path.
            let s = lut.apply(c, interpolation: .tetrahedral)
            #expect(abs(Double(s.x) - eh[0]) < 1e-5 && abs(Double(s.y) - eh[1]) < 1e-5 && abs(Double(s.z) - eh[2]) < 1e-5)
        }
        #expect(maxMethodGap > 0.2, "lutC should separate the methods strongly (gap \(maxMethodGap))")
    }

    @Test func appliesInSRGBEncodingNotLinear() throws {
        // A LUT that squares its input: applied to encoded values, encoded 0.5 -> 0.25.
        let square = try LUT.make(size: 33) { $0 * $0 }
        let out = try renderEncoded(encodedImage([SIMD3(0.5, 0.5, 0.5)], width: 1).applyingLUT(square, interpolation: .trilinear))
        #expect(abs(out[0].x - 0.25) < 2e-3)
        // Marked linear, the same table acts on working values instead.
        var linear = square
        linear.colorSpace = .linear
        let lin = try renderFloat(encodedImage([SIMD3(0.5, 0.5, 0.5)], width: 1).applyingLUT(linear), CGRect(x: 0, y: 0, width: 1, height: 1))
        let l = Float(srgbToLinear(0.5))
        #expect(abs(lin[0].x - l * l) < 2e-3)
    }

    @Test func sameLUTAsTilePNGHaldPNGAndCubeGivesIdenticalResults() throws {
        let lut = try quantizedLUT(size: 16)
        let tiles = try LUT(imageData: try lut.pngData(layout: .tiles))
        let hald = try LUT(imageData: try lut.pngData(layout: .hald), layout: .hald)
        let cube = try LUT(cubeString: try lut.cubeString())
        let viaCIImage = try LUT(image: CIImage(data: try lut.pngData(layout: .tiles))!)
        #expect(tiles == lut && hald == lut && cube == lut)
        #expect(viaCIImage.maximumDifference(from: lut) < 1e-7)
        let expected = try renderEncoded(input.applyingLUT(lut))
        for other in [tiles, hald, cube, viaCIImage] {
            #expect(maxDiff(try renderEncoded(input.applyingLUT(other)), expected) < 1e-6)
        }
    }

    @Test func smoothGradientShowsNoBandingThrough8BitLUTImage() throws {
        let lut = try LUT(contentsOf: LUTFixtures.identity64Tiles)
        let n = 1024
        let ramp = (0..<n).map { i -> SIMD3<Float> in
            let v = Float(i) / Float(n - 1); return SIMD3(v, v * 0.8 + 0.1, 1 - v)
        }
        let img = encodedImage(ramp, width: n)
        for interpolation in LUTInterpolation.allCases {
            let out = try renderEncoded(img.applyingLUT(lut, interpolation: interpolation))
            for i in 0..<n {
                for k in 0..<3 { #expect(abs(out[i][k] - ramp[i][k]) <= 1 / 255, "pixel \(i) channel \(k)") }
                if i > 0 {
                    #expect(out[i].x >= out[i - 1].x - 1e-6 && out[i].z <= out[i - 1].z + 1e-6, "non-monotonic at \(i)")
                    #expect(abs(out[i].x - out[i - 1].x) <= 1 / 255, "step at \(i)")
                }
            }
        }
    }

    @Test func tiledRenderEqualsWholeRender() throws {
        let img = image(testPixels(width: 37, height: 23, alpha: true), 37, 23)
        let look = LUTConfiguration.shared.tealOrange
        for interpolation in LUTInterpolation.allCases {
            let out = img.applyingLUT(look, interpolation: interpolation, intensity: 0.7).applyingFilter("CIExposureAdjust", parameters: [kCIInputEVKey: 0.3])
            let whole = try renderFloat(out, out.extent)
            let tiled = try renderFloat(
                out, out.extent, context: CIContext(options: [.tileSize: 7, .outputColorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!, .outputPremultiplied: false]))
            #expect(whole == tiled)
        }
    }

    @Test func fusesWithNeighbouringColourFilters() throws {
        let img = image(testPixels(width: 8, height: 8), 8, 8)
        let out = img.applyingFilter("CIExposureAdjust", parameters: [kCIInputEVKey: 0.5]).applyingLUT(LUTConfiguration.shared.warmFilm)
            .applyingFilter("CIColorInvert")
        let plan = CIContext().explain(out)
        #expect(plan.contains("fused color"), "\(plan)")
        #expect(plan.contains("lut \"warmFilm\" 33^3 tetrahedral"), "\(plan)")
    }

    @Test func explainForADestinationShowsTheConversionsFolded() throws {
        // A LUT authored in sRGB between "to sRGB" and "from sRGB" conversions; into an 8-bit
        // sRGB bitmap both fold away (codes read as values, values stored as codes).
        let img = image(testPixels(width: 8, height: 8), 8, 8)
        let out = img.applyingLUT(try LUT.identity(size: 17))
        let context = CIContext()
        let generic = context.explain(out)
        #expect(generic.contains("to kCGColorSpaceSRGB") && generic.contains("from kCGColorSpaceSRGB"), "\(generic)")
        let srgb8 = context.explain(out, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB), premultiplied: false)
        #expect(srgb8.contains("fused color [lut \"identity 17\" 17^3 tetrahedral]") && !srgb8.contains("from kCGColorSpaceSRGB"), "\(srgb8)")
        #expect(srgb8.hasSuffix("write: RGBA8, values as they are (the conversion to kCGColorSpaceSRGB is folded in), straight alpha"), "\(srgb8)")
        // Into float linear nothing folds: the conversions stay, and the write converts.
        let linearF = context.explain(out, format: .RGBAf, colorSpace: CGColorSpace(name: CGColorSpace.linearSRGB))
        #expect(linearF.contains("from kCGColorSpaceSRGB"), "\(linearF)")
        #expect(linearF.hasSuffix("write: RGBAf, converted from the working space to kCGColorSpaceLinearSRGB, premultiplied alpha"), "\(linearF)")
    }

    @Test func alphaIsKeptAndColourUnpremultiplied() throws {
        let px: [UInt8] = [200, 100, 50, 128, 10, 20, 30, 0]
        let img = image(px, 2, 1)
        let lut = try LUT.identity(size: 17)
        let out = try renderFloat(img.applyingLUT(lut), CGRect(x: 0, y: 0, width: 2, height: 1))
        let ref = try renderFloat(img, CGRect(x: 0, y: 0, width: 2, height: 1))
        #expect(out[0].w == ref[0].w && out[1].w == 0)
        #expect(abs(out[0].x - ref[0].x) < 1e-4 && abs(out[0].z - ref[0].z) < 1e-4)
    }

    @Test func shaperRunsBeforeThe3DTable() throws {
        let text = """
            TITLE "shaper then cube"
            LUT_1D_SIZE 3
            LUT_3D_SIZE 2
            0 0 0
            0.25 0.25 0.25
            1 1 1
            0 0 0
            1 0 0
            0 1 0
            1 1 0
            0 0 1
            1 0 1
            0 1 1
            1 1 1
            """
        let lut = try LUT(cubeString: text)
        #expect(lut.shaper?.values.count == 3)
        // 0.5 -> shaper 0.25 -> identity cube 0.25.
        let out = try renderEncoded(encodedImage([SIMD3(0.5, 0.75, 1)], width: 1).applyingLUT(lut))
        #expect(abs(out[0].x - 0.25) < 1e-5 && abs(out[0].y - 0.625) < 1e-5 && abs(out[0].z - 1) < 1e-5)
    }

    @Test func sRGBCurveTablesMatchTheExactCurve() {
        var worstEncode = 0.0, worstDecode = 0.0
        for i in 0...200_000 {
            let v = Double(i) / 200_000
            let e = encodeSRGB(SIMD4(Float(v), Float(v * v), Float(v * v * v), 0.5))
            let d = decodeSRGB(SIMD4(Float(v), Float(v * v), Float(v * v * v), 0.5))
            #expect(e.w == 0.5 && d.w == 0.5)
            for (k, x) in [v, v * v, v * v * v].enumerated() {
                worstEncode = max(worstEncode, abs(Double(e[k]) - linearToSrgb(Double(Float(x)))))
                worstDecode = max(worstDecode, abs(Double(d[k]) - srgbToLinear(Double(Float(x)))))
            }
        }
        #expect(worstEncode < 1e-6, "encode error \(worstEncode)")
        #expect(worstDecode < 2e-7, "decode error \(worstDecode)")
        // Extended values take the exact odd-symmetric curve.
        let ext = encodeSRGB(SIMD4(-0.25, 1.5, 0.5, 1))
        #expect(abs(Double(ext.x) + linearToSrgb(0.25)) < 1e-6 && abs(Double(ext.y) - (1.055 * pow(1.5, 1 / 2.4) - 0.055)) < 1e-6)
    }

    @Test func domainMapsInputToTheGrid() throws {
        let lut = try LUT(cubeString: "LUT_3D_SIZE 2\nDOMAIN_MIN 0 0 0\nDOMAIN_MAX 2 2 2\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 1 1\n1 1 1\n")
        let s = lut.apply(SIMD3(0.5, 1, 0.2))
        #expect(abs(s.x - 0.25) < 1e-6 && abs(s.y - 0.5) < 1e-6 && abs(s.z - 0.1) < 1e-6)
    }
    /// The C loop (AVX2) gives the Swift lookup's bits (any size, domain and
    /// intensity; values outside the domain, NaN, grid points, row lengths not a multiple of 8).
    @Test(.enabled(if: cyan_vector_bits() >= 256, "no AVX2 here: the Swift loop is the only one"), arguments: [2, 17, 64])
    func vectorTetrahedralLookupEqualsTheSwiftLoop(size: Int) throws {
        var rng = SplitMix(UInt64(size))
        let entries = (0..<(size * size * size)).map { _ in SIMD3(rng.unit() * 1.2 - 0.1, rng.unit(), rng.unit()) }
        let lut = try LUT(size: size, entries: entries, domainMin: SIMD3(-0.1, 0, 0), domainMax: SIMD3(1, 1, 2))
        let sampler = LUTSampler(lut: lut, extrapolate: false)
        var pixels: [SIMD4<Float>] = []
        for i in 0..<203 {
            var p = SIMD4(rng.unit() * 1.4 - 0.2, rng.unit(), rng.unit() * 2, rng.unit())
            if i % 7 == 0 { p.x = Float(rng.int(size)) / Float(size - 1) }  // on the grid
            if i % 11 == 0 { p.y = .nan }
            if i % 13 == 0 { p.z = .infinity }
            pixels.append(p)
        }
        for intensity: Float in [1, 0.6] {
            var expected = pixels
            try withUnsafeTemporaryAllocation(of: Int.self, capacity: 16) { corners in
                let t = try #require(corners.baseAddress)
                sampler.tetrahedronCorners(into: t)
                for i in expected.indices {
                    let p = expected[i]
                    var c = sampler.tetrahedralSorted(p, t)
                    if intensity != 1 { c = p + (c - p) * intensity }
                    c.w = p.w
                    expected[i] = c
                }
            }
            var got = pixels
            let ran = got.withUnsafeMutableBufferPointer { LUTStage.vectorLoop($0.baseAddress!, $0.count, sampler, intensity) }
            #expect(ran)
            for i in got.indices {
                #expect(
                    got[i].x.bitPattern == expected[i].x.bitPattern && got[i].y.bitPattern == expected[i].y.bitPattern
                        && got[i].z.bitPattern == expected[i].z.bitPattern && got[i].w.bitPattern == expected[i].w.bitPattern,
                    "pixel \(i) \(pixels[i]) intensity \(intensity): \(got[i]) vs \(expected[i])")
            }
        }
    }
}
