import CyanotypeTestSupport
import Foundation
import Testing
@testable import Cyanotype
import CyanotypeCodecs

/// Colour matching out of and into the working space, the cancelling of inverse conversions,
/// and the folding of sRGB conversions into 8-bit reads and writes (`Optimizer.foldSRGBIntoRead/Write`).
@Suite struct EncodedIOTests {
    let width = 23, height = 11
    var pixels: [UInt8] { testPixels(width: width, height: height) }
    var input: CIImage { image(pixels, width, height) }
    var extent: CGRect { CGRect(x: 0, y: 0, width: width, height: height) }

    @Test func matchedFromWorkingSpaceGivesSRGBEncodedValues() throws {
        let sRGB = CGColorSpace(name: CGColorSpace.sRGB)!
        let out = try renderFloat(try #require(input.matchedFromWorkingSpace(to: sRGB)), extent)
        for (i, p) in out.enumerated() {
            let row = i / width, col = i % width
            let code = (0..<3).map { Double(pixels[(row * width + col) * 4 + $0]) / 255 }
            for k in 0..<3 { #expect(abs(Double(p[k]) - code[k]) < 2e-6, "pixel \(i) channel \(k)") }
        }
    }

    @Test func matchedToWorkingSpaceUndoesIt() throws {
        let p3 = CGColorSpace(name: CGColorSpace.displayP3)!
        let there = try #require(input.matchedFromWorkingSpace(to: p3))
        let back = try #require(there.matchedToWorkingSpace(from: p3))
        // The inverse pair cancels in the optimiser: nothing is left to run.
        #expect(try Optimizer.optimize(back.node).root is BitmapNode)
        #expect(try renderFloat(back, extent) == renderFloat(input, extent))
        // Display P3 values of linear sRGB red: the published matrix's first column, encoded.
        let red = CIImage(color: CIColor(red: 1, green: 0, blue: 0)).cropped(to: CGRect(x: 0, y: 0, width: 1, height: 1))
        let v = try renderFloat(try #require(red.matchedFromWorkingSpace(to: p3)), CGRect(x: 0, y: 0, width: 1, height: 1))[0]
        let expected = [0.8225, 0.0332, 0.0171].map(linearToSrgb)
        for k in 0..<3 { #expect(abs(Double(v[k]) - expected[k]) < 2e-3, "channel \(k): \(v[k]) vs \(expected[k])") }
        #expect(CIImage.empty().matchedFromWorkingSpace(to: CGColorSpace(name: CGColorSpace.linearGray)!) == nil)
    }

    @Test func consecutiveLUTsShareOneConversionPair() throws {
        let a = try LUT.make(size: 9) { $0 * $0 }, b = try LUT.make(size: 9) { SIMD3(1, 1, 1) - $0 }
        let out = input.applyingLUT(a).applyingLUT(b)
        let fused = try #require(try Optimizer.optimize(out.node).root as? FusedColorNode)
        #expect(fused.steps.map(\.stage.label) == ["to kCGColorSpaceSRGB", "lut 9^3 tetrahedral", "lut 9^3 tetrahedral", "from kCGColorSpaceSRGB"])
    }

    /// The folded 8-bit path (codes in, LUT, codes out) against a formula on the codes, and
    /// against the unfolded path through linear float.
    @Test func lutOn8BitSRGBFoldsConversionsIntoReadAndWrite() throws {
        let lut = try LUT(contentsOf: LUTFixtures.lutC)
        let ref = RefTable(lut)
        // What the renderer runs: the LUT alone, over the codes, into an unmanaged writer.
        var buffer = [UInt8](repeating: 0, count: width * height * 4)
        try buffer.withUnsafeMutableBytes { raw in
            let writer = try #require(
                DestinationWriter(
                    base: raw.baseAddress!, rowBytes: width * 4, bounds: PixelRect(covering: extent), format: .RGBA8,
                    colorSpace: CGColorSpace(name: CGColorSpace.sRGB), premultiplied: false))
            let recipe = try Optimizer.optimize(input.applyingLUT(lut).node, Optimizer.Options(writer: writer))
            let w = try #require(recipe.writer)
            let fused = try #require(recipe.root as? FusedColorNode)
            #expect(fused.steps.map(\.stage.label) == ["lut \"acceptance lutC 2\" 2^3 tetrahedral"])
            #expect((fused.head as? BitmapNode)?.colorSpace == nil && w.space == nil)
        }
        for interpolation in LUTInterpolation.allCases {
            let out = input.applyingLUT(lut, interpolation: interpolation)
            let folded = try render8(out, extent)
            // Unfolded: float linear, then encoded and quantised here.
            let linear = try renderFloat(
                out, extent, context: CIContext(options: [.outputPremultiplied: false, .outputColorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!]))
            for yTop in 0..<height {
                for x in 0..<width {
                    let i = (yTop * width + x) * 4
                    let code = (0..<3).map { Double(pixels[i + $0]) / 255 }
                    let e = interpolation == .tetrahedral ? ref.tetrahedral(code) : ref.trilinear(code)
                    let l = linear[yTop * width + x]
                    for k in 0..<3 {
                        // Rounded from the exact value (ties, frequent with this table's
                        // tenths, may go either way in float).
                        let want = min(max(e[k], 0), 1) * 255
                        #expect(abs(Double(folded[i + k]) - want) <= 0.5 + 1e-3, "\(interpolation) (\(x), \(yTop)) channel \(k): \(folded[i + k]) vs \(want)")
                        let viaLinear = Int((min(max(linearToSrgb(Double(l[k])), 0), 1) * 255).rounded())
                        #expect(abs(Int(folded[i + k]) - viaLinear) <= 1)
                    }
                    #expect(folded[i + 3] == 255)
                }
            }
        }
    }

    @Test func foldedRenderIsTileIndependentAndKeepsAlpha() throws {
        let img = image(testPixels(width: 37, height: 23, alpha: true), 37, 23)
        let out = img.applyingLUT(LUTConfiguration.shared.tealOrange, intensity: 0.8)
        let whole = try render8(out, out.extent)
        let tiled = try render8(out, out.extent, context: CIContext(options: [.tileSize: 7, .outputPremultiplied: false]))
        #expect(whole == tiled)
        let src = testPixels(width: 37, height: 23, alpha: true)
        for i in stride(from: 3, to: src.count, by: 4) { #expect(whole[i] == src[i]) }
    }

    @Test func sortedTetrahedralEqualsTheBranchingOne() throws {
        var rng = SplitMix(11)
        for n in [2, 5, 17] {
            let lut = try LUT.make(size: n) { c in SIMD3(c.x * c.y, c.z * c.z, (c.x + c.y + c.z) / 3) }
            let s = LUTSampler(lut: lut, extrapolate: false)
            let corners = UnsafeMutablePointer<Int>.allocate(capacity: 16)
            defer { corners.deallocate() }
            s.tetrahedronCorners(into: corners)
            var points: [SIMD4<Float>] = (0..<2000).map { _ in SIMD4(rng.unit() * 1.2 - 0.1, rng.unit(), rng.unit(), 1) }
            // Ties between the fractions, exact grid points, and NaN.
            points += [
                SIMD4(0.5, 0.5, 0.5, 1), SIMD4(0.3, 0.3, 0.7, 1), SIMD4(0.7, 0.3, 0.3, 1), SIMD4(0.3, 0.7, 0.3, 1),
                SIMD4(1, 1, 1, 1), SIMD4(0, 0, 0, 1), SIMD4(.nan, 0.2, 0.9, 1), SIMD4(0.25, 0.75, 0.25, 1),
            ]
            for p in points {
                let a = s.tetrahedralSorted(p, corners), b = s.tetrahedral(p)
                for k in 0..<3 { #expect(abs(a[k] - b[k]) < 1e-5, "n \(n) at \(p): \(a) vs \(b)") }
            }
        }
    }
}

/// JPEG files rendered band by band while the encoder runs equal render-then-encode.
@Suite struct StreamingJPEGTests {
    @Test func streamingEqualsRenderThenEncode() throws {
        let (w, h) = (70, 53)
        let src = image(testPixels(width: w, height: h), w, h)
        let recipes: [(String, CIImage)] = [
            ("lut", src.applyingLUT(LUTConfiguration.shared.tealOrange)),
            ("blur", src.clampedToExtent().applyingGaussianBlur(sigma: 2).cropped(to: src.extent)),
            ("exposure, cropped", src.applyingFilter("CIExposureAdjust", parameters: [kCIInputEVKey: 0.4]).cropped(to: CGRect(x: 3, y: 5, width: 50, height: 40))),
        ]
        for tile in [5, 16, 64, 0] {
            let ctx = tile == 0 ? CIContext() : CIContext(options: [.tileSize: tile])
            for (what, img) in recipes {
                let streamed = try ctx.encode(img, as: .jpeg, options: [.lossyCompressionQuality: 0.8])
                let r = try ctx.renderToData(img, from: img.extent, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB), premultiplied: false)
                var o = EncodeOptions()
                o.quality = 0.8
                let reference = try r.data.withUnsafeBytes { raw in
                    try ImageCodecs.encode(rgba8: raw.bindMemory(to: UInt8.self), width: r.width, height: r.height, hasAlpha: false, format: .jpeg, options: o)
                }
                #expect(streamed == reference, "\(what), tiles of \(tile)")
            }
        }
    }
}

/// Baseline JPEGs decode on a thread while tiles render; the pixels are the one-shot decode's.
@Suite struct StreamingDecodeTests {
    @Test func streamedSourceRendersTheOneShotPixels() throws {
        let (w, h) = (301, 157)
        let file = try CIContext().encode(image(testPixels(width: w, height: h), w, h), as: .jpeg, options: [.lossyCompressionQuality: 0.85])
        let streamed = try CIImage.read(data: file)
        let lazy = try #require(streamed.node as? LazySourceNode)
        #expect((try lazy.source() as? BitmapNode)?.gate != nil)
        let decoded = try ImageCodecs.decode(file)
        let reference = image(decoded.pixels, w, h)
        let look = { (i: CIImage) in i.applyingLUT(LUTConfiguration.shared.warmFilm).applyingFilter("CIVignette", parameters: [kCIInputIntensityKey: 0.6]) }
        for ctx in [CIContext(), CIContext(options: [.tileSize: 24])] {
            #expect(try render8(look(try CIImage.read(data: file)), streamed.extent, context: ctx) == render8(look(reference), streamed.extent, context: ctx))
            #expect(try ctx.encode(try CIImage.read(data: file), as: .png) == ctx.encode(reference, as: .png))
        }
    }

    @Test func reductionsWaitForTheDecoder() throws {
        let (w, h) = (640, 480)
        let file = try CIContext().encode(image(testPixels(width: w, height: h), w, h), as: .jpeg)
        let reference = image(try ImageCodecs.decode(file).pixels, w, h)
        func histogram(_ i: CIImage) throws -> [SIMD4<Float>] {
            try CIContext().reduce(i.applyingFilter("CIAreaHistogram", parameters: [kCIInputExtentKey: CIVector(cgRect: i.extent), "inputCount": 64, "inputScale": 1]))
        }
        #expect(try histogram(try CIImage.read(data: file)) == histogram(reference))
    }

    @Test func unfilteredJPEGIsEncodedWhileItDecodes() throws {
        // JPEG -> JPEG with no filter: rows go to the encoder as the decoder delivers them;
        // the bytes are the one-shot decode's pixels encoded in one go.
        let (w, h) = (301, 157)
        let file = try CIContext().encode(image(testPixels(width: w, height: h), w, h), as: .jpeg, options: [.lossyCompressionQuality: 0.85])
        let streamed = try CIImage.read(data: file)
        #expect((try (streamed.node as? LazySourceNode)?.source() as? BitmapNode)?.gate != nil)
        let decoded = try ImageCodecs.decode(file)
        var o = EncodeOptions()
        o.quality = 0.9
        o.iccProfile = ICCProfile.profile(for: CGColorSpace(name: CGColorSpace.sRGB)!)
        let reference = try decoded.pixels.withUnsafeBufferPointer { px in
            try ImageCodecs.encode(rgba8: px, width: w, height: h, hasAlpha: false, format: .jpeg, options: o)
        }
        let options: [CIImageRepresentationOption: Any] = [.lossyCompressionQuality: 0.9]
        #expect(try CIContext().encode(streamed, as: .jpeg, options: options) == reference)
        // Rendered unfiltered, rows are copied band by band as they arrive: the decoded pixels.
        let straight = CIContext(options: [.outputPremultiplied: false])
        #expect(Array(try straight.renderToData(try CIImage.read(data: file), from: streamed.extent, format: .RGBA8).data) == decoded.pixels)
        // A file cut short fails with a typed error rather than a part-grey picture.
        let cut = try CIImage.read(data: file.prefix(file.count / 2))
        #expect(throws: ImageIOError.self) { try CIContext().encode(cut, as: .jpeg, options: options) }
        #expect(throws: CIRenderError.self) { try straight.renderToData(try CIImage.read(data: file.prefix(file.count / 2)), from: streamed.extent, format: .RGBA8) }
    }

    @Test func aTruncatedStreamFailsTheRender() throws {
        let (w, h) = (256, 256)
        let file = try CIContext().encode(image(testPixels(width: w, height: h), w, h), as: .jpeg)
        let cut = file.prefix(file.count * 2 / 3)
        let img = try CIImage.read(data: cut).applyingFilter("CIColorInvert")
        #expect(throws: CIRenderError.self) { try CIContext().renderToData(img, from: img.extent) }
        #expect(throws: (any Error).self) { try CIContext().encode(img, as: .jpeg) }
    }
}

/// The fused loop's alpha bookkeeping (opaque rows skip conversions, straight matrices run on
/// straight rows) against a straight-colour formula, on translucent and opaque rows.
@Suite struct FusedAlphaTests {
    @Test func straightMatricesAndGammaOnTranslucentRows() throws {
        let (w, h) = (19, 6)
        var px = testPixels(width: w, height: h, alpha: true)
        for x in 0..<(w * 4) where x % 4 == 3 { px[x] = 255 }  // top row opaque
        let img = image(px, w, h)
        let bias = CIVector(x: 0.05, y: -0.02, z: 0.1, w: 0)
        let out =
            img
            .applyingFilter("CIColorMatrix", parameters: ["inputRVector": CIVector(x: 0.9, y: 0.1, z: 0, w: 0), "inputBiasVector": bias])
            .applyingFilter("CIGammaAdjust", parameters: ["inputPower": 1.3])
            .applyingFilter("CIColorMatrix", parameters: ["inputGVector": CIVector(x: 0, y: 0.8, z: 0.2, w: 0), "inputBiasVector": bias])
        let got = try renderFloat(out, img.extent)
        for yTop in 0..<h {
            for x in 0..<w {
                let l = linearPixel(px, w, x, yTop)
                var c = [0.9 * l[0] + 0.1 * l[1] + 0.05, l[1] - 0.02, l[2] + 0.1]
                c = c.map { $0 < 0 ? -pow(-$0, 1.3) : pow($0, 1.3) }
                c = [c[0] + 0.05, 0.8 * c[1] + 0.2 * c[2] - 0.02, c[2] + 0.1]
                let g = got[yTop * w + x]
                for k in 0..<3 { #expect(abs(Double(g[k]) - c[k]) < 2e-4, "(\(x), \(yTop)) channel \(k): \(g[k]) vs \(c[k])") }
                #expect(abs(Double(g.w) - l[3]) < 1e-6)
            }
        }
    }
}

/// File to file in the memory of a few bands: a streaming encode decodes its JPEG for itself,
/// a bounded distance ahead, and gives rows back once no output row left reads them.
@Suite struct StreamingMemoryTests {
    @Test func pagedRowsGiveBackWholePagesOnly() {
        let rows = PagedRows(count: 5 * 4096 + 100)
        rows.base.initializeMemory(as: UInt8.self, repeating: 7, count: rows.count)
        rows.giveBack(10..<(2 * 4096 + 10))
        let bytes = rows.base.assumingMemoryBound(to: UInt8.self)
        // Pages 0 and 1 lie wholly below the end of the range: given back, they read as zero.
        #expect(bytes[0] == 0 && bytes[4095] == 0 && bytes[4096] == 0 && bytes[8191] == 0)
        // The page the range ends in still holds bytes that are read.
        #expect(bytes[8192] == 7 && bytes[8201] == 7 && bytes[5 * 4096 + 99] == 7)
    }

    @Test func theGateHoldsTheDecoderBackUntilRowsAreGivenBackOrWanted() throws {
        let rows = PagedRows(count: 1000 * 4)
        let gate = RowGate(total: 1000, rows: rows, rowBytes: 4, servesOneRender: true)
        gate.limitLookahead(40)
        let decoder = Thread {
            var done = 0
            while done < 1000, gate.mayDecode(past: done) {
                done = min(1000, done + 16)
                gate.advance(to: done)
            }
        }
        decoder.start()
        // The decoder reaches the lookahead (waiting for it has a deadline, not a guess at how
        // long a thread takes to start), and goes at most one band past it.
        waitUntil(seconds: 30, every: 0.001) { gate.rowsReady >= 40 }
        #expect(gate.rowsReady >= 40 && gate.rowsReady <= 56)
        // A reader that needs more gets it (its wait is the decoder's demand).
        #expect(gate.wait(untilRows: 300))
        gate.giveBack(rowsAbove: 200)
        #expect(gate.rowsGivenBack == 200)
        #expect(gate.holds(fromRow: 200))
        #expect(gate.error == nil)
        // A read of rows given back fails the render by name instead of reading zeros.
        #expect(!gate.holds(fromRow: 150))
        #expect(gate.error != nil)
        gate.abandon()
        #expect(!gate.mayDecode(past: 400))
    }

    @Test func aGateForSharedPixelsNeverGivesBack() {
        let rows = PagedRows(count: 100 * 4)
        let gate = RowGate(total: 100, rows: rows, rowBytes: 4)
        gate.advance(to: 100)
        gate.giveBack(rowsAbove: 100)
        gate.limitLookahead(1)
        #expect(gate.rowsGivenBack == 0 && gate.holds(fromRow: 0) && gate.mayDecode(past: 100))
    }

    @Test func streamingEncodesEqualRenderThenEncodeWhateverOrderTheyReadRowsIn() throws {
        let (w, h) = (160, 700)
        let file = try CIContext().encode(image(testPixels(width: w, height: h), w, h), as: .jpeg, options: [.lossyCompressionQuality: 0.9])
        let recipes: [(String, (CIImage) -> CIImage)] = [
            ("blur", { $0.clampedToExtent().applyingGaussianBlur(sigma: 6).cropped(to: $0.extent) }),
            ("flipped (reads the bottom first)", { $0.transformed(by: CGAffineTransform(scaleX: 1, y: -1).translatedBy(x: 0, y: -CGFloat(h))) }),
            ("turned a quarter", { $0.oriented(.right) }),
            ("downscaled (decodes small)", { $0.applyingFilter("CILanczosScaleTransform", parameters: [kCIInputScaleKey: 0.3]) }),
            ("lower half", { $0.cropped(to: CGRect(x: 10, y: 0, width: 100, height: 300)) }),
            ("unfiltered", { $0 }),
        ]
        let q: [CIImageRepresentationOption: Any] = [.lossyCompressionQuality: 0.8]
        for ctx in [CIContext(options: [.tileSize: 32]), CIContext()] {
            for (what, recipe) in recipes {
                let img = recipe(try CIImage.read(data: file))
                let lazy = try #require(Optimizer.postOrder(img.node).compactMap { $0 as? LazySourceNode }.first)
                let streamed = try ctx.encode(img, as: .jpeg, options: q)
                // The encode decoded for itself: the image's shared decode was never made.
                #expect(!lazy.isLoaded, "\(what)")
                // Twice: each render decodes again.
                #expect(try ctx.encode(img, as: .jpeg, options: q) == streamed, "\(what), again")
                let r = try ctx.renderToData(img, from: img.extent, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB), premultiplied: false)
                var o = EncodeOptions()
                o.quality = 0.8
                o.iccProfile = ICCProfile.profile(for: CGColorSpace(name: CGColorSpace.sRGB)!)
                let reference = try r.data.withUnsafeBytes { raw in
                    try ImageCodecs.encode(rgba8: raw.bindMemory(to: UInt8.self), width: r.width, height: r.height, hasAlpha: false, format: .jpeg, options: o)
                }
                #expect(streamed == reference, "\(what)")
            }
        }
    }

    @Test func theDecodeLimitBoundsTheRowsHeldWhenAFileStreams() throws {
        // 1.44 MP against a limit of 0.5 MP: streamed to JPEG through a blur, the render holds
        // a few hundred rows at once and goes through; a render that needs the whole picture
        // at once (turned upside down, or written as PNG) is refused with the limit's error.
        let (w, h) = (600, 2400)
        let file = try CIContext().encode(image(testPixels(width: w, height: h), w, h), as: .jpeg, options: [.lossyCompressionQuality: 0.9])
        let limited: [CIImageOption: Any] = [.decodeLimits: Cyanotype.DecodeLimits(maxPixels: 500_000, maxBytes: 2 << 30)]
        let blur = { (i: CIImage) in i.clampedToExtent().applyingGaussianBlur(sigma: 6).cropped(to: i.extent) }
        let ctx = CIContext()
        let q: [CIImageRepresentationOption: Any] = [.lossyCompressionQuality: 0.8]
        let streamed = try ctx.encode(blur(try CIImage.read(data: file, options: limited)), as: .jpeg, options: q)
        #expect(try streamed == ctx.encode(blur(try CIImage.read(data: file)), as: .jpeg, options: q))
        let upsideDown = try CIImage.read(data: file, options: limited).oriented(.down)
        #expect(throws: ImageIOError.self) { try ctx.encode(upsideDown, as: .jpeg, options: q) }
        // PNG streams too; what needs the whole picture at once is refused whatever the format.
        #expect(try ctx.encode(blur(try CIImage.read(data: file, options: limited)), as: .png) == ctx.encode(blur(try CIImage.read(data: file)), as: .png))
        #expect(throws: ImageIOError.self) { try ctx.encode(upsideDown, as: .png) }
    }

    @Test func streamedPNGEqualsRenderThenEncodeAndWritesTheSameFile() throws {
        let (w, h) = (150, 620)
        let file = try CIContext().encode(image(testPixels(width: w, height: h), w, h), as: .jpeg, options: [.lossyCompressionQuality: 0.9])
        let recipes: [(String, (CIImage) -> CIImage)] = [
            ("blur", { $0.clampedToExtent().applyingGaussianBlur(sigma: 6).cropped(to: $0.extent) }),
            ("flipped (reads the bottom first)", { $0.transformed(by: CGAffineTransform(scaleX: 1, y: -1).translatedBy(x: 0, y: -CGFloat(h))) }),
            ("sepia, translucent", { $0.applyingFilter("CISepiaTone").applyingFilter("CIColorMatrix", parameters: ["inputAVector": CIVector(x: 0, y: 0, z: 0, w: 0.5)]) }),
            ("unfiltered", { $0 }),
        ]
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-png-stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for ctx in [CIContext(options: [.tileSize: 32]), CIContext()] {
            for (what, recipe) in recipes {
                for level in [2, 6] {
                    let img = recipe(try CIImage.read(data: file))
                    let options: [CIImageRepresentationOption: Any] = [.compressionLevel: level]
                    let streamed = try ctx.encode(img, as: .png, options: options)
                    let r = try ctx.renderToData(img, from: img.extent, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB), premultiplied: false)
                    var o = EncodeOptions()
                    o.compressionLevel = level
                    o.iccProfile = ICCProfile.profile(for: CGColorSpace(name: CGColorSpace.sRGB)!)
                    let reference = try r.data.withUnsafeBytes { raw in
                        try ImageCodecs.encode(rgba8: raw.bindMemory(to: UInt8.self), width: r.width, height: r.height, hasAlpha: true, format: .png, options: o)
                    }
                    #expect(streamed == reference, "\(what), level \(level)")
                    // Written to a file as it is made: the same bytes, and nothing else left beside it.
                    let out = dir.appendingPathComponent("out.png")
                    try ctx.write(img, as: .png, to: out, options: options)
                    #expect(try Data(contentsOf: out) == reference, "\(what), level \(level), file")
                    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["out.png"])
                }
            }
        }
    }

    @Test func aStreamingJPEGFileIsReadAgainNotHeldAndAChangedFileIsAnError() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-file-source-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (w, h) = (200, 520)
        let bytes = try CIContext().encode(image(testPixels(width: w, height: h), w, h), as: .jpeg, options: [.lossyCompressionQuality: 0.9])
        let url = dir.appendingPathComponent("in.jpg")
        try bytes.write(to: url)
        let blur = { (i: CIImage) in i.clampedToExtent().applyingGaussianBlur(sigma: 4).cropped(to: i.extent) }
        let ctx = CIContext(options: [.tileSize: 64])
        // Read from the file (its bytes read again, 64 KiB at a time) or from memory: the same
        // pixels, for one render or several, at full size or decoded small.
        let fromFile = try CIImage.read(contentsOf: url), fromData = try CIImage.read(data: bytes)
        #expect(try ctx.encode(blur(fromFile), as: .jpeg) == ctx.encode(blur(fromData), as: .jpeg))
        #expect(try ctx.encode(blur(fromFile), as: .png) == ctx.encode(blur(fromData), as: .png))
        let srgb = CGColorSpace(name: CGColorSpace.sRGB)
        #expect(try ctx.renderToData(fromFile, from: fromFile.extent, colorSpace: srgb).data == ctx.renderToData(fromData, from: fromData.extent, colorSpace: srgb).data)
        let small = { (i: CIImage) in i.applyingFilter("CILanczosScaleTransform", parameters: [kCIInputScaleKey: 0.25]) }
        #expect(try ctx.encode(small(fromFile), as: .jpeg) == ctx.encode(small(fromData), as: .jpeg))
        // Replaced by other bytes after it was read (and before its pixels were decoded): the
        // render stops with an error naming the file, not with pixels of another picture;
        // removed: the same. (An image already decoded keeps its pixels.)
        let (before, beforeRemoval) = (try CIImage.read(contentsOf: url), try CIImage.read(contentsOf: url))
        let other = try CIContext().encode(image(testPixels(width: h, height: w), h, w), as: .jpeg)
        try other.write(to: url)
        #expect(throws: ImageIOError.self) { try ctx.encode(blur(before), as: .jpeg) }
        #expect(try ctx.encode(blur(fromFile), as: .png) == ctx.encode(blur(fromData), as: .png))
        try FileManager.default.removeItem(at: url)
        do {
            _ = try ctx.encode(beforeRemoval, as: .jpeg)
            Issue.record("a removed file rendered")
        } catch {
            #expect(error.description.contains("in.jpg"), "\(error)")
        }
    }

    @Test func an8BitPNGStreamsWithTheWholeDecodesPixels() throws {
        let (w, h) = (90, 700)
        let px = testPixels(width: w, height: h)
        let ctx = CIContext(options: [.tileSize: 64])
        let blur = { (i: CIImage) in i.clampedToExtent().applyingGaussianBlur(sigma: 5).cropped(to: i.extent) }
        for (what, hasAlpha, grey) in [("RGBA", true, false), ("RGB", false, false), ("grey", false, true), ("grey + alpha", true, true)] {
            var o = EncodeOptions()
            o.grayscale = grey
            let file = try px.withUnsafeBufferPointer { p in
                try ImageCodecs.encode(rgba8: p, width: w, height: h, hasAlpha: hasAlpha, format: .png, options: o)
            }
            // Lenient reads decode whole (the row decoder is for strict ones): the reference.
            let streamed = try CIImage.read(data: file), whole = try CIImage.read(data: file, options: [.lenientDecoding: true])
            #expect(try ctx.encode(blur(streamed), as: .png) == ctx.encode(blur(whole), as: .png), "\(what)")
            #expect(try ctx.encode(streamed, as: .jpeg) == ctx.encode(whole, as: .jpeg), "\(what), unfiltered")
            let srgb = CGColorSpace(name: CGColorSpace.sRGB)
            #expect(
                try ctx.renderToData(streamed, from: streamed.extent, colorSpace: srgb).data == ctx.renderToData(whole, from: whole.extent, colorSpace: srgb).data,
                "\(what), shared decode")
            // A decode limit a third of the picture: streamed through the blur, it goes through.
            let limited: [CIImageOption: Any] = [.decodeLimits: Cyanotype.DecodeLimits(maxPixels: w * h / 3, maxBytes: 2 << 30)]
            #expect(try ctx.encode(blur(try CIImage.read(data: file, options: limited)), as: .png) == ctx.encode(blur(whole), as: .png), "\(what), limited")
            // Cut short: the render stops with an error, whatever row it reached.
            let cut = try CIImage.read(data: file.prefix(file.count * 2 / 3))
            #expect(throws: ImageIOError.self) { try ctx.encode(blur(cut), as: .jpeg) }
        }
    }

    @Test func an8BitPNGFileIsReadAsItDecodesAndAChangedOneIsAnError() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-png-source-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (w, h) = (70, 300)
        let bytes = try CIContext().encode(image(testPixels(width: w, height: h, alpha: true), w, h), as: .png)
        let url = dir.appendingPathComponent("in.png")
        try bytes.write(to: url)
        let blur = { (i: CIImage) in i.clampedToExtent().applyingGaussianBlur(sigma: 4).cropped(to: i.extent) }
        let ctx = CIContext(options: [.tileSize: 64])
        let fromFile = try CIImage.read(contentsOf: url), fromData = try CIImage.read(data: bytes)
        #expect(try ctx.encode(blur(fromFile), as: .png) == ctx.encode(blur(fromData), as: .png))
        let srgb = CGColorSpace(name: CGColorSpace.sRGB)
        #expect(try ctx.renderToData(fromFile, from: fromFile.extent, colorSpace: srgb).data == ctx.renderToData(fromData, from: fromData.extent, colorSpace: srgb).data)
        let before = try CIImage.read(contentsOf: url)
        try CIContext().encode(image(testPixels(width: h, height: w), h, w), as: .png).write(to: url)
        #expect(throws: ImageIOError.self) { try ctx.encode(blur(before), as: .jpeg) }
    }

    @Test func aWriteThatFailsLeavesNothing() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-failed-write-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // A truncated JPEG fails part way through the streamed render: no output, no temporary.
        let (w, h) = (64, 400)
        let file = try CIContext().encode(image(testPixels(width: w, height: h), w, h), as: .jpeg, options: [.lossyCompressionQuality: 0.9])
        let cut = try CIImage.read(data: file.prefix(file.count / 2))
        let blurred = cut.clampedToExtent().applyingGaussianBlur(sigma: 3).cropped(to: cut.extent)
        // Every streamed output: JPEG, 8 and 16-bit PNG, 8, 16 and float TIFF.
        for (format, depth): (Cyanotype.ImageFileFormat, Int) in [(.png, 8), (.jpeg, 8), (.png, 16), (.tiff, 8), (.tiff, 16), (.tiff, 32)] {
            #expect(throws: ImageIOError.self, "\(format) \(depth)") {
                try CIContext().write(blurred, as: format, to: dir.appendingPathComponent("out"), depth: depth)
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        // A folder that does not exist: a write error naming the file.
        #expect(throws: ImageIOError.self) { try CIContext().write(blurred, as: .png, to: dir.appendingPathComponent("no/such/out.png")) }
    }
}
