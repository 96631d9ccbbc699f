import Foundation
import Testing
@testable import Cyanotype

/// The renderer: tiling, threads, demand-driven evaluation, fusion, formats, kernels.
@Suite struct EngineTests {
    /// A recipe that exercises every node kind: colour chain, blur, transform, blend, clamp.
    func busyRecipe(_ w: Int, _ h: Int) -> CIImage {
        let src = image(testPixels(width: w, height: h, alpha: true), w, h)
        let graded = src.applyingFilter("CISepiaTone", parameters: [kCIInputIntensityKey: 0.5])
            .applyingFilter("CIExposureAdjust", parameters: [kCIInputEVKey: 0.3])
            .applyingFilter("CIVibrance", parameters: [kCIInputAmountKey: 0.4])
        let blurred = graded.clampedToExtent().applyingGaussianBlur(sigma: 2.3).cropped(to: src.extent)
        let turned = blurred.transformed(by: CGAffineTransform(rotationAngle: 0.3).translatedBy(x: 5.25, y: -3.5))
        let gradient = CIFilter.radialGradient()
        gradient.center = CGPoint(x: 20, y: 15)
        return turned.applyingFilter("CIMultiplyBlendMode", parameters: [kCIInputBackgroundImageKey: gradient.outputImage!.cropped(to: src.extent)])
            .applyingFilter("CIUnsharpMask", parameters: [:])
    }

    @Test(arguments: [7, 16, 33, 1000])
    func tiledRenderEqualsWholeRender(tile: Int) throws {
        let img = busyRecipe(53, 41)
        let rect = img.extent.integral
        let whole = try render8(img, rect, context: CIContext(options: [.tileSize: 4096, .outputPremultiplied: false]))
        let tiled = try render8(img, rect, context: CIContext(options: [.tileSize: tile, .outputPremultiplied: false]))
        #expect(whole == tiled)
    }

    @Test func floatOutputTiledEqualsWholeAndMatchesTheConvertingPath() throws {
        let img = busyRecipe(37, 29)
        let rect = img.extent.integral
        let linear = CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!
        func render(_ tile: Int) throws -> [SIMD4<Float>] {
            let ctx = CIContext(options: [.tileSize: tile, .outputColorSpace: linear])
            let d = try ctx.renderToData(img, from: rect, format: .RGBAf).data
            return d.withUnsafeBytes { Array($0.bindMemory(to: SIMD4<Float>.self)) }
        }
        let a = try render(5), b = try render(4096)
        #expect(a == b)
        // Same values as the converting path (straight output, premultiplied here by hand).
        let straight = try renderFloat(img, rect)
        for i in stride(from: 0, to: a.count, by: 97) where straight[i].w > 0 {
            // (Fully transparent pixels carry no colour in straight form.)
            let s = straight[i]
            #expect(abs(a[i].x - s.x * s.w) < 1e-5 && abs(a[i].w - s.w) < 1e-6, "\(a[i]) vs \(s)")
        }
    }

    @Test func clampedFloatOutputKeepsPremultipliedColourWithinAlpha() throws {
        let src = image(testPixels(width: 9, height: 7, alpha: true), 9, 7)
        let bright = src.applyingFilter("CIExposureAdjust", parameters: [kCIInputEVKey: 2])
        let linear = CGColorSpace(name: CGColorSpace.linearSRGB)!
        let d = try CIContext(options: [.outputColorSpace: linear]).renderToData(bright, from: src.extent, format: .RGBAf).data
        let got = d.withUnsafeBytes { Array($0.bindMemory(to: SIMD4<Float>.self)) }
        let straight = try renderFloat(bright, src.extent)  // unclamped, straight
        for i in got.indices {
            let a = straight[i].w
            for k in 0..<3 {
                let expect = min(max(straight[i][k], 0), 1) * a
                #expect(abs(got[i][k] - expect) < 1e-5, "pixel \(i) channel \(k)")
            }
            #expect(abs(got[i].w - a) < 1e-6)
        }
    }

    @Test func floatStoresAgreeAlignedAndUnaligned() throws {
        let src = image(testPixels(width: 9, height: 7, alpha: true), 9, 7)
        let bright = src.applyingFilter("CIExposureAdjust", parameters: [kCIInputEVKey: 2])
        let ctx = CIContext(options: [.outputColorSpace: CGColorSpace(name: CGColorSpace.linearSRGB)!])
        let n = 9 * 7 * 4
        let raw = UnsafeMutableRawPointer.allocate(byteCount: n * 4 + 64, alignment: 16)
        defer { raw.deallocate() }
        try ctx.renderChecked(bright, toBitmap: raw, rowBytes: 9 * 16, bounds: src.extent, format: .RGBAf, colorSpace: CGColorSpace(name: CGColorSpace.linearSRGB))
        let aligned = Array(UnsafeBufferPointer(start: raw.assumingMemoryBound(to: Float.self), count: n))
        try ctx.renderChecked(bright, toBitmap: raw + 4, rowBytes: 9 * 16, bounds: src.extent, format: .RGBAf, colorSpace: CGColorSpace(name: CGColorSpace.linearSRGB))
        let shifted = (0..<n).map { (raw + 4).loadUnaligned(fromByteOffset: $0 * 4, as: Float.self) }
        #expect(aligned == shifted)
        #expect(aligned.allSatisfy { $0 >= 0 && $0 <= 1 })
    }

    @Test func oneContextManyThreadsSameBytes() async throws {
        let img = busyRecipe(64, 48)
        let ctx = CIContext(options: [.tileSize: 16])
        let rect = img.extent.integral
        let reference = try ctx.renderToData(img, from: rect).data
        let results = try await withThrowingTaskGroup(of: Data.self) { group in
            for _ in 0..<8 { group.addTask { try ctx.renderToData(img, from: rect).data } }
            var all: [Data] = []
            for try await d in group { all.append(d) }
            return all
        }
        #expect(results.count == 8)
        #expect(results.allSatisfy { $0 == reference })
    }

    @Test func cropOfABlurReadsOnlyWhatItNeeds() throws {
        let w = 400, h = 300
        let src = image(testPixels(width: w, height: h), w, h)
        let blurred = src.applyingGaussianBlur(sigma: 3)  // reach 9 px
        let ctx = CIContext()
        _ = try ctx.renderToData(blurred, from: src.extent)
        let full = ctx.lastRenderStatistics.sourcePixels
        let crop = CGRect(x: 200, y: 150, width: 40, height: 30)  // 1% of the image
        _ = try ctx.renderToData(blurred.cropped(to: crop), from: crop)
        let part = ctx.lastRenderStatistics.sourcePixels
        #expect(part == (40 + 18) * (30 + 18), "read \(part) source pixels for a 40x30 crop")
        #expect(part * 20 < full)
    }

    @Test func perPixelChainsFuseAndMatricesFold() throws {
        let src = image(testPixels(width: 8, height: 8), 8, 8)
        let chained = src.applyingFilter("CIExposureAdjust", parameters: [kCIInputEVKey: 0.5])
            .applyingFilter("CIHueAdjust", parameters: [kCIInputAngleKey: 0.4])
            .applyingFilter("CISepiaTone", parameters: [:])
            .applyingFilter("CIVibrance", parameters: [kCIInputAmountKey: 0.5])
            .applyingFilter("CIColorInvert")
        let fused = try #require(try Optimizer.optimize(chained.node).root as? FusedColorNode)
        #expect(fused.head is BitmapNode)
        // exposure + hue + sepia fold into one matrix; vibrance; invert.
        #expect(fused.steps.count == 3)
        #expect(CIContext().explain(chained).contains("fused color"))
    }

    @Test func unaffectedPixelsRoundTripThroughEveryFormat() throws {
        let w = 5, h = 4
        let px = testPixels(width: w, height: h, alpha: true)
        let img = image(px, w, h)
        let ctx = CIContext(options: [.outputPremultiplied: false])
        let back8 = Array(try ctx.renderToData(img, from: img.extent, format: .RGBA8).data)
        #expect(back8 == px)
        let bgra = Array(try ctx.renderToData(img, from: img.extent, format: .BGRA8).data)
        for i in stride(from: 0, to: px.count, by: 4) { #expect([bgra[i + 2], bgra[i + 1], bgra[i], bgra[i + 3]] == Array(px[i..<i + 4])) }
        let r16 = try ctx.renderToData(img, from: img.extent, format: .RGBA16).data
        let v16 = r16.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
        for i in 0..<px.count { #expect(abs(Int(v16[i]) - Int(px[i]) * 257) <= 40, "16-bit sample \(i)") }
        // A 16-bit source stays 16-bit.
        let img16 = CIImage(
            unpremultipliedBitmapData: r16, bytesPerRow: w * 8, size: CGSize(width: w, height: h), format: .RGBA16, colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
        let again = try ctx.renderToData(img16, from: img.extent, format: .RGBA16).data
        let a16 = again.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
        for i in 0..<v16.count { #expect(abs(Int(a16[i]) - Int(v16[i])) <= 2) }
    }

    @Test func premultipliedOutputIsCoreImagesDefault() throws {
        let img = CIImage(color: CIColor(red: 1, green: 0.4, blue: 0, alpha: 0.6)).cropped(to: CGRect(x: 0, y: 0, width: 1, height: 1))
        let px = Array(try CIContext().renderToData(img, from: img.extent).data)
        #expect(px == [153, 61, 0, 153])
    }

    @Test func displayP3OutputConvertsPrimaries() throws {
        // sRGB pure red lies inside P3: published linear sRGB -> linear P3 matrix row 1 = (0.8225, 0.0332, 0.0171).
        let red = CIImage(color: CIColor(red: 1, green: 0, blue: 0)).cropped(to: CGRect(x: 0, y: 0, width: 1, height: 1))
        let p3 = CGColorSpace(name: CGColorSpace.displayP3)!
        let px = Array(try CIContext(options: [.outputColorSpace: p3]).renderToData(red, from: red.extent).data)
        let expect = [0.8225, 0.0332, 0.0171].map { Int((linearToSrgb($0) * 255).rounded()) }
        for k in 0..<3 { #expect(abs(Int(px[k]) - expect[k]) <= 1, "channel \(k): \(px[k]) vs \(expect[k])") }
    }

    @Test func noColorManagementPassesValuesThrough() throws {
        let px = testPixels(width: 4, height: 4)
        let ctx = CIContext(options: [.workingColorSpace: NSNull(), .outputPremultiplied: false])
        let img = image(px, 4, 4).applyingFilter("CIColorInvert")
        let out = Array(try ctx.renderToData(img, from: img.extent).data)
        for i in stride(from: 0, to: px.count, by: 4) { #expect(out[i] == 255 - px[i]) }
    }

    @Test func swiftColorKernelsFuseAndRun() throws {
        let halve = CIColorKernel(name: "halve") { row in
            for i in row.output.indices { row.output[i] *= 0.5 }
        }
        let src = image(testPixels(width: 6, height: 5), 6, 5)
        let out = try #require(halve.apply(extent: src.extent, arguments: [src]))
        #expect(try Optimizer.optimize(out.node).root is FusedColorNode)
        let a = try renderFloat(src, src.extent, context: CIContext(options: [.outputColorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!]))
        let b = try renderFloat(out, src.extent, context: CIContext(options: [.outputColorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!]))
        for i in 0..<a.count { #expect(abs(b[i].x - a[i].x * 0.5) < 1e-5 && abs(b[i].w - 0.5) < 1e-6) }
    }

    @Test func warpAndGeneralKernels() throws {
        let src = image(testPixels(width: 10, height: 10), 10, 10)
        // A warp that mirrors horizontally about x = 5.
        let mirror = CIWarpKernel(name: "mirror") { row in
            for i in row.sourcePoints.indices { row.sourcePoints[i] = SIMD2(10 - (Float(row.x + i) + 0.5), Float(row.y) + 0.5) }
        }
        let roi: CIKernelROICallback = { _, r in CGRect(x: 10 - r.maxX, y: r.minY, width: r.width, height: r.height) }
        let warped = try #require(mirror.apply(extent: src.extent, roiCallback: roi, image: src, arguments: []))
        let a = try render8(warped, src.extent), b = try render8(src.oriented(.upMirrored), src.extent)
        #expect(a == b)
        // A general kernel computing the horizontal difference with the left neighbour.
        let diff = CIKernel(name: "dx") { tile in
            let s = tile.inputs[0]
            for r in 0..<Int(tile.rect.height) {
                let out = tile.outputRow(r)
                for i in 0..<out.count {
                    let x = Int(tile.rect.minX) + i, y = Int(tile.rect.minY) + r
                    out[i] = s.pixel(x: x, y: y) - s.pixel(x: x - 1, y: y)
                    out[i].w = 1
                }
            }
        }
        let roi2: CIKernelROICallback = { _, r in r.insetBy(dx: -1, dy: 0) }
        let d = try #require(diff.apply(extent: src.extent, roiCallback: roi2, arguments: [src]))
        let f = try renderFloat(
            d, CGRect(x: 3, y: 3, width: 1, height: 1),
            context: CIContext(options: [.outputColorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!, .outputPremultiplied: true]))
        let p = try renderFloat(src, CGRect(x: 2, y: 3, width: 2, height: 1))
        #expect(abs(f[0].x - (p[1].x - p[0].x)) < 1e-5)
    }

    @Test func intermediatesAreMaterialisedOnceAndCached() throws {
        let src = image(testPixels(width: 32, height: 32), 32, 32)
        let blurred = src.applyingGaussianBlur(sigma: 2).insertingIntermediate()
        let ctx = CIContext(options: [.tileSize: 8])
        let out = blurred.composited(over: blurred.transformed(by: CGAffineTransform(translationX: 3, y: 0)))
        _ = try ctx.renderToData(out, from: src.extent)
        #expect(ctx.lastRenderStatistics.intermediatesRendered == 1)
        _ = try ctx.renderToData(out, from: src.extent)
        #expect(ctx.lastRenderStatistics.intermediateCacheHits == 1)
        #expect(ctx.lastRenderStatistics.sourcePixels == 0)
        ctx.clearCaches()
        _ = try ctx.renderToData(out, from: src.extent)
        #expect(ctx.lastRenderStatistics.intermediatesRendered == 1)
    }

    @Test func renderErrorsAreTyped() throws {
        let ctx = CIContext(options: [.maximumRenderPixels: 100])
        #expect(throws: CIRenderError.infiniteExtent) { try ctx.renderToData(CIImage(color: .red), from: .infinite) }
        #expect(throws: CIRenderError.emptyBounds) { try ctx.renderToData(CIImage(color: .red), from: .zero) }
        #expect(throws: CIRenderError.tooLarge(width: 20, height: 20, limit: 100)) { try ctx.renderToData(CIImage(color: .red), from: CGRect(x: 0, y: 0, width: 20, height: 20)) }
        #expect(CIRenderError.infiniteExtent.description == "the image has an infinite extent: crop it (cropped(to:)) or pass finite bounds to render")
        #expect(
            CIRenderError.tooLarge(width: 20, height: 20, limit: 100).description
                == "render of 20x20 pixels is above the context's limit of 100 pixels (CIContextOption.maximumRenderPixels)")
        #expect(ctx.createCGImage(CIImage(color: .red), from: .infinite) == nil)
        // Bad bitmap descriptions give an empty image, not a crash.
        #expect(CIImage(bitmapData: Data(count: 3), bytesPerRow: 4, size: CGSize(width: 1, height: 1), format: .RGBA8, colorSpace: nil).extent.isEmpty)
        for size in [CGSize(width: CGFloat.nan, height: 1), CGSize(width: -4, height: 2), CGSize(width: 1e300, height: 1), CGSize(width: 2, height: CGFloat.infinity)] {
            #expect(CIImage(bitmapData: Data(count: 64), bytesPerRow: 8, size: size, format: .RGBA8, colorSpace: nil).extent.isEmpty)
        }
        // Absurd geometry never traps either.
        let img = CIImage(color: .red).cropped(to: CGRect(x: 0, y: 0, width: 4, height: 4))
        #expect(img.transformed(by: CGAffineTransform(a: .nan, b: 0, c: 0, d: 1, tx: 0, ty: 0)).extent.isEmpty)
        #expect(img.transformed(by: CGAffineTransform(scaleX: 0, y: 1)).extent.isEmpty)
        #expect(img.cropped(to: CGRect(x: CGFloat.nan, y: 0, width: 1, height: 1)).extent.isEmpty)
        #expect(img.applyingFilter("CIGaussianBlur", parameters: [kCIInputRadiusKey: Double.infinity]).extent.isEmpty)
    }
}

/// NaN and infinite pixels (a user kernel's 0/0, say) must pass through every built-in
/// filter without a trap; the output is clamped on the way out.
@Suite struct NonFinitePixelTests {
    @Test func everyFilterSurvivesNaNAndInfinity() throws {
        let poison = CIColorKernel(name: "poison") { row in
            for i in row.output.indices {
                switch (row.x + i) % 4 {
                case 0: row.output[i] = SIMD4(.nan, .nan, .nan, .nan)
                case 1: row.output[i] = SIMD4(.infinity, -.infinity, 1, 1)
                case 2: row.output[i] = SIMD4(0.5, .nan, 0.2, 1)
                default: row.output[i] = SIMD4(-3, 7, 0.5, 0.5)
                }
            }
        }
        let rect = CGRect(x: 0, y: 0, width: 8, height: 4)
        let bad = try #require(poison.apply(extent: rect, arguments: []))
        let ctx = CIContext()
        for name in CIFilter.filterNames(inCategory: kCICategoryBuiltIn) {
            guard let f = CIFilter(name: name) else { continue }
            let keys = f.inputKeys
            if keys.contains(kCIInputImageKey) { f.setValue(bad, forKey: kCIInputImageKey) }
            for k in keys where k != kCIInputImageKey && (CIFilter.descriptor(forFilterName: name)?.input(k)?.isImage ?? false) {
                f.setValue(bad, forKey: k)
            }
            guard let out = f.outputImage else { continue }
            let r = out.extent.isInfinite ? rect : out.extent.intersection(rect.insetBy(dx: -2, dy: -2))
            if r.isNull || r.isEmpty { continue }
            _ = try ctx.renderToData(out, from: r.integral, format: .RGBA8)
            _ = try ctx.renderToData(out, from: r.integral, format: .RGBA16)
        }
    }
}
