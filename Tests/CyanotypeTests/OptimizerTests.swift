import Dispatch
import Foundation
import Testing
@testable import Cyanotype

// The optimiser's rewrites one by one, and the scheduler and cache policy: one executor for
// every parallel loop, whole results computed once per render and kept by the render or the
// context (never by a node). References are formulas written here or the unrewritten graph.

private let linearContext = CIContext(options: [
    .outputColorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!,
    .outputPremultiplied: true, .cacheIntermediates: false,
])

/// Premultiplied linear float pixels of `node` over `rect`, rows bottom up (the working values).
private func working(_ node: RecipeNode, _ rect: PixelRect) throws -> [SIMD4<Float>] {
    let r = try linearContext.renderToData(CIImage(node: node), from: rect.cgRect, format: .RGBAf)
    let top = r.data.withUnsafeBytes { Array($0.bindMemory(to: SIMD4<Float>.self)) }
    // Rows come top down: flip to bottom up, as blocks store them.
    return (0..<rect.height).reversed().flatMap { top[$0 * rect.width..<($0 + 1) * rect.width] }
}

/// A stage from a formula on one premultiplied pixel.
private func stage(_ name: String, _ f: @escaping @Sendable (SIMD4<Float>) -> SIMD4<Float>) -> any ColorStage {
    ClosureColorStage(name: name, extraInputCount: 0, wantsUnpremultiplied: false) { row in
        for i in row.output.indices { row.output[i] = f(row.output[i]) }
    }
}

private let sRGB = CGColorSpace(name: CGColorSpace.sRGB)!
private let p3 = CGColorSpace(name: CGColorSpace.displayP3)!
private func identity(_ n: RecipeNode) -> RecipeNode { n }

@Suite struct OptimizerTests {
    let w = 19, h = 13
    let src = image(testPixels(width: 19, height: 13, alpha: true), 19, 13)
    var rect: PixelRect { PixelRect(x: 0, y: 0, width: w, height: h) }

    // MARK: 1. loadSource

    @Test func fileSourcesLoadOnceAndFailTyped() throws {
        let png = try CIContext().encode(src, as: .png)
        let file = try CIImage.read(data: png)
        let loaded = try #require(try Optimizer.loadSource(file.node))
        #expect((loaded as? any StoredPixels)?.storedBitmap != nil && loaded.extent == file.extent)
        // Decoded once per source: every render (on any context) reads the same pixels.
        #expect(try Optimizer.loadSource(file.node) === loaded)
        #expect(try Optimizer.optimize(file.node).root === loaded)
        #expect(try Optimizer.loadSource(src.node) == nil)
        // explain leaves files as they are.
        #expect(try Optimizer.optimize(file.node, Optimizer.Options(loadSources: false)).root === file.node)
        // A file that cannot be decoded stops the render with a typed error.
        let cut = try CIImage.read(data: png.prefix(png.count / 2))
        #expect(throws: CIRenderError.self) { try Optimizer.optimize(cut.node) }
    }

    // MARK: 2. mergeCrops

    @Test func cropOfACropIsOneCrop() throws {
        let inner = CropNode(input: src.node, rect: CGRect(x: 2, y: 1, width: 12, height: 9))
        let outer = CropNode(input: inner, rect: CGRect(x: 5.5, y: -3, width: 30, height: 7.2))
        let merged = try #require(Optimizer.mergeCrops(outer, identity) as? CropNode)
        #expect(merged.inputs[0] === src.node && merged.extent == outer.extent)
        #expect(Optimizer.mergeCrops(inner, identity) == nil)
        // Pixels: the source inside both rectangles, clear elsewhere.
        let all = try working(src.node, rect), got = try working(outer, rect)
        for y in 0..<h {
            for x in 0..<w {
                let inside = x >= 5 && x < 14 && y >= 1 && y < 5
                #expect(got[y * w + x] == (inside ? all[y * w + x] : .zero), "(\(x), \(y))")
            }
        }
    }

    // MARK: 3. mergeTransforms

    @Test func transformOfATransformIsOneResampling() throws {
        let t1 = CGAffineTransform(rotationAngle: 0.3), t2 = CGAffineTransform(scaleX: 1.5, y: 0.75)
        let nested = AffineNode(input: AffineNode(input: src.node, transform: t1, mode: .linear), transform: t2, mode: .linear)
        let merged = try #require(Optimizer.mergeTransforms(nested, identity) as? AffineNode)
        #expect(merged.inputs[0] === src.node && merged.transform == t1.concatenating(t2) && merged.mode == .linear)
        // Transforms that cancel leave the input itself.
        let back = AffineNode(input: AffineNode(input: src.node, transform: t2, mode: .linear), transform: t2.inverted(), mode: .linear)
        if t2.concatenating(t2.inverted()).isIdentity { #expect(Optimizer.mergeTransforms(back, identity) === src.node) }
        // Different sampling modes are two resamplings.
        let mixed = AffineNode(input: AffineNode(input: src.node, transform: t1, mode: .nearest), transform: t2, mode: .linear)
        #expect(Optimizer.mergeTransforms(mixed, identity) == nil)
        // Through a mark of the same mode.
        let marked = AffineNode(
            input: SamplingNode(input: AffineNode(input: src.node, transform: t1, mode: .nearest), mode: .nearest),
            transform: t2, mode: .nearest)
        #expect((Optimizer.mergeTransforms(marked, identity) as? AffineNode)?.inputs[0] === src.node)
        // What CIImage builds is the merged node, so the public extent is the concatenated one.
        let built = src.transformed(by: t1).transformed(by: t2)
        #expect(built.extent == src.extent.applying(t1.concatenating(t2)))
        #expect((built.node as? AffineNode)?.transform == t1.concatenating(t2))
    }

    // MARK: 4. fuseColorStages

    @Test func colourKernelsFuseIntoOneRun() throws {
        let halve = stage("halve") { $0 * 0.5 }, lift = stage("lift") { $0 + SIMD4(0.1, 0.1, 0.1, 0) }
        let a = ColorKernelNode(stage: halve, inputs: [src.node], extent: src.extent)
        let b = ColorKernelNode(stage: lift, inputs: [a], extent: src.extent)
        let recipe = try Optimizer.optimize(b)
        let run = try #require(recipe.root as? FusedColorNode)
        #expect(run.head === src.node && run.steps.map(\.stage.label) == ["halve", "lift"])
        // The formula on the source's working values.
        let s = try working(src.node, rect), got = try working(b, rect)
        for i in 0..<s.count {
            let want = s[i] * 0.5 + SIMD4(0.1, 0.1, 0.1, 0)
            #expect(abs(got[i].x - want.x) < 1e-6 && abs(got[i].z - want.z) < 1e-6 && got[i].w == want.w)
        }
        // Another extent starts a run of its own, over the first.
        let wider = ColorKernelNode(stage: lift, inputs: [a], extent: src.extent.insetBy(dx: -2, dy: -2))
        let two = try #require(try Optimizer.optimize(wider).root as? FusedColorNode)
        #expect(two.steps.count == 1 && (two.head as? FusedColorNode)?.head === src.node)
        // A run shared by two consumers is rewritten once and each consumer extends its own copy.
        let c = ColorKernelNode(stage: halve, inputs: [a], extent: src.extent)
        let blend = ColorKernelNode(stage: BlendStage.sourceOver, inputs: [b, c], extent: src.extent)
        let shared = try Optimizer.optimize(CropNode(input: blend, rect: src.extent.insetBy(dx: 1, dy: 1)))
        let top = try #require(shared.resolve(blend) as? FusedColorNode)
        #expect(top.steps.map(\.stage.label) == ["halve", "lift", "sourceOver"])
        #expect((shared.resolve(c) as? FusedColorNode)?.steps.map(\.stage.label) == ["halve", "halve"])
        #expect(shared.resolve(b) === shared.resolve(b) && shared.resolve(a) !== a)
    }

    // MARK: 5. cancelConversions

    @Test func aConversionNextToItsInverseCancels() throws {
        typealias Step = FusedColorNode.Step
        let to = Step(stage: SpaceConversionStage(space: p3, direction: .fromWorking), extras: [])
        let from = Step(stage: SpaceConversionStage(space: p3, direction: .toWorking), extras: [])
        let fromSRGB = Step(stage: SpaceConversionStage(space: sRGB, direction: .toWorking), extras: [])
        #expect(Optimizer.cancelConversions(to, from) && Optimizer.cancelConversions(from, to))
        #expect(!Optimizer.cancelConversions(to, fromSRGB) && !Optimizer.cancelConversions(to, to))
        #expect(!Optimizer.cancelConversions(to, Step(stage: from.stage, extras: [src.node])))
        // In a recipe: the pair goes, and with nothing left the source itself renders.
        let there = try #require(src.matchedFromWorkingSpace(to: p3)?.matchedToWorkingSpace(from: p3))
        #expect(try Optimizer.optimize(there.node).root === src.node)
        let lut = try #require(src.applyingFilter("CIVibrance", parameters: [kCIInputAmountKey: 0.5]).matchedFromWorkingSpace(to: sRGB)?.matchedToWorkingSpace(from: sRGB))
        let left = try #require(try Optimizer.optimize(lut.node).root as? FusedColorNode)
        #expect(left.steps.count == 1 && left.steps[0].stage.label.hasPrefix("vibrance"), "\(left.label)")
    }

    // MARK: 6. foldMatrices

    @Test func neighbouringMatricesFold() throws {
        typealias Step = FusedColorNode.Step
        let m1 = ColorMatrix(rows: [0.9, 0.1, 0, 0], [0, 1, 0.2, 0], [0.3, 0, 0.7, 0], [0, 0, 0, 1], bias: [0.05, 0, 0, 0])
        let m2 = ColorMatrix(rows: [1, 0, 0, 0], [0.5, 0.5, 0, 0], [0, 0, 2, 0], [0, 0, 0, 1], bias: [0, 0.1, 0, 0])
        let a = Step(stage: MatrixStage(m: m1, wantsUnpremultiplied: true), extras: [])
        let b = Step(stage: MatrixStage(m: m2, wantsUnpremultiplied: true), extras: [])
        let folded = try #require(Optimizer.foldMatrices(a, b)?.stage.matrix)
        // The product against both matrices applied in turn, by their row vectors.
        let p = SIMD4<Float>(0.2, 0.6, 0.9, 1)
        func apply(_ rows: [SIMD4<Float>], _ bias: SIMD4<Float>, _ v: SIMD4<Float>) -> SIMD4<Float> {
            SIMD4((rows[0] * v).sum(), (rows[1] * v).sum(), (rows[2] * v).sum(), (rows[3] * v).sum()) + bias
        }
        let once = apply([[0.9, 0.1, 0, 0], [0, 1, 0.2, 0], [0.3, 0, 0.7, 0], [0, 0, 0, 1]], [0.05, 0, 0, 0], p)
        let twice = apply([[1, 0, 0, 0], [0.5, 0.5, 0, 0], [0, 0, 2, 0], [0, 0, 0, 1]], [0, 0.1, 0, 0], once)
        let got = folded.apply(p)
        for k in 0..<4 { #expect(abs(got[k] - twice[k]) < 1e-6) }
        // Straight and premultiplied matrices that do not commute with premultiplication stay apart.
        let premultiplied = Step(stage: MatrixStage(m: m2, wantsUnpremultiplied: false), extras: [])
        #expect(Optimizer.foldMatrices(a, premultiplied) == nil)
        #expect(Optimizer.foldMatrices(a, Step(stage: b.stage, extras: [src.node])) == nil)
        // A chain of matrix filters renders as one folded matrix.
        let chain = src.applyingFilter("CIExposureAdjust", parameters: [kCIInputEVKey: 0.5]).applyingFilter("CIHueAdjust", parameters: [kCIInputAngleKey: 0.4])
        #expect((try Optimizer.optimize(chain.node).root as? FusedColorNode)?.steps.map(\.stage.label) == ["folded matrix"])
    }

    // MARK: 7. foldSRGBIntoWrite, 8. foldSRGBIntoRead

    @Test func sRGBConversionsFoldIntoIntegerReadsAndWrites() throws {
        let lut = src.applyingLUT(try LUT.identity(size: 5))
        let run = try #require(try Optimizer.optimize(lut.node).root as? FusedColorNode)
        #expect(run.steps.first?.stage.label == "to kCGColorSpaceSRGB" && run.steps.last?.stage.label == "from kCGColorSpaceSRGB")
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 16)
        defer { scratch.deallocate() }
        let rgba8 = try #require(DestinationWriter(base: scratch, rowBytes: 0, bounds: rect, format: .RGBA8, colorSpace: sRGB, premultiplied: false))
        let rgbaf = try #require(DestinationWriter(base: scratch, rowBytes: 0, bounds: rect, format: .RGBAf, colorSpace: sRGB, premultiplied: false))
        // Write: into sRGB integers the trailing conversion goes and the writer stores values.
        let (written, raw) = try #require(Optimizer.foldSRGBIntoWrite(run, rgba8))
        #expect(written.steps.count == run.steps.count - 1 && raw.space == nil)
        #expect(Optimizer.foldSRGBIntoWrite(run, rgbaf) == nil)
        // Read: over an sRGB 8-bit bitmap the leading conversion goes and codes are read.
        let read = try #require(Optimizer.foldSRGBIntoRead(run))
        #expect(read.steps.count == run.steps.count - 1 && (read.head as? any StoredPixels)?.storedBitmap?.colorSpace == nil)
        let float = CIImage(
            bitmapData: Data(count: w * h * 16), bytesPerRow: w * 16, size: CGSize(width: w, height: h), format: .RGBAf,
            colorSpace: CGColorSpace(name: CGColorSpace.linearSRGB))
        let overFloat = try #require(try Optimizer.optimize(float.applyingLUT(try LUT.identity(size: 5)).node).root as? FusedColorNode)
        #expect(Optimizer.foldSRGBIntoRead(overFloat) == nil)
        // The codes read as values are exactly code / 255 (an identity LUT between).
        let codes = try working(read.head, rect)
        let px = testPixels(width: w, height: h, alpha: true)
        #expect(abs(codes[0].x - Float(px[(h - 1) * w * 4]) / 255 * codes[0].w) < 1e-6)
        // Both, through a crop at the root, as a render into RGBA8 sRGB does.
        let cropped = lut.cropped(to: CGRect(x: 2, y: 2, width: 10, height: 5))
        let both = try Optimizer.optimize(cropped.node, Optimizer.Options(writer: rgba8))
        let inner = try #require((both.root as? CropNode).flatMap { both.resolve($0.inputs[0]) as? FusedColorNode })
        #expect(inner.steps.map(\.stage.label) == ["lut \"identity 5\" 5^3 tetrahedral"] && both.writer?.space == nil, "\(inner.label)")
        // Without colour management nothing folds.
        let unmanaged = try Optimizer.optimize(cropped.node, Optimizer.Options(writer: rgba8, colorManaged: false))
        #expect(unmanaged.writer?.space != nil)
    }

    @Test func explainPrintsTheOptimisedPlan() throws {
        let halve = stage("halve") { $0 * 0.5 }
        let chain = CIImage(node: ColorKernelNode(stage: halve, inputs: [src.applyingFilter("CIColorInvert").node], extent: src.extent))
        let plan = CIContext().explain(chain)
        #expect(plan.contains("fused color [invert -> halve]"), "\(plan)")
        #expect(!plan.contains("- color "), "\(plan)")
        #expect(chain.description.contains("fused color [invert -> halve]"))
    }
}

// MARK: - The scheduler and the cache policy

/// Counts calls from any thread (tests).
final class CallCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func add() { lock.lock(); n += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return n }
}

/// The mean of the region, counting how often it is finished (once per computation).
private struct CountingAverage: Reduction {
    let counter: CallCounter
    var outputWidth: Int { 1 }
    var outputHeight: Int { 1 }
    func partialCount(_ region: PixelRect) -> Int { 4 }
    func accumulate(_ row: UnsafePointer<SIMD4<Float>>, count: Int, x: Int, y: Int, region: PixelRect, into p: UnsafeMutablePointer<Double>) {
        for i in 0..<count { for k in 0..<4 { p[k] += Double(row[i][k]) } }
    }
    func finish(_ p: UnsafePointer<Double>, region: PixelRect) -> [SIMD4<Float>] {
        counter.add()
        let n = Double(max(1, region.area))
        return [SIMD4(Float(p[0] / n), Float(p[1] / n), Float(p[2] / n), Float(p[3] / n))]
    }
    var label: String { "counting average" }
}

@Suite struct SchedulerTests {
    let w = 40, h = 30
    let src = image(testPixels(width: 40, height: 30, alpha: true), 40, 30)

    /// A recipe that reads a reduction and a whole-image node from every tile.
    func reading(_ counter: CallCounter, _ wholeCounter: CallCounter) -> CIImage {
        let region = PixelRect(x: 0, y: 0, width: w, height: h)
        let mean = CIImage(node: ReductionNode(input: src.node, region: region, reduction: CountingAverage(counter: counter)))
        let doubled = CIImage(
            node: WholeImageNode(input: src.node, region: region, extent: src.extent, name: "doubled") { block, _ in
                wholeCounter.add()
                let out = PixelBlock(rect: block.rect)
                for i in 0..<block.rect.area { out.pixels[i] = block.pixels[i] * 2 }
                return out
            })
        let tinted = CIBlendKernel.multiply.apply(foreground: doubled, background: mean.clampedToExtent())!
        return tinted.cropped(to: src.extent)
    }

    @Test func wholeResultsAreComputedOncePerRender() throws {
        let reductions = CallCounter(), wholes = CallCounter()
        let img = reading(reductions, wholes)
        // Tiles of 8: 20 tiles read the reduction and the whole-image node.
        let uncached = CIContext(options: [.tileSize: 8, .cacheIntermediates: false])
        let first = try uncached.renderToData(img, from: img.extent).data
        #expect(reductions.value == 1 && wholes.value == 1)
        #expect(uncached.lastRenderStatistics.tiles >= 20)
        // Nodes keep nothing: a context that does not cache computes again, once.
        #expect(try uncached.renderToData(img, from: img.extent).data == first)
        #expect(reductions.value == 2 && wholes.value == 2)
        // A caching context keeps the results between renders, under its budget.
        let cached = CIContext(options: [.tileSize: 8])
        #expect(try cached.renderToData(img, from: img.extent).data == first)
        #expect(try cached.renderToData(img, from: img.extent).data == first)
        #expect(reductions.value == 3 && wholes.value == 3)
        #expect(cached.cache.byteCount > 0)
        cached.clearCaches()
        #expect(try cached.renderToData(img, from: img.extent).data == first)
        #expect(reductions.value == 4 && wholes.value == 4)
        // A reduction read straight (the render's root) is also computed once.
        let mean = CIImage(node: ReductionNode(input: src.node, region: PixelRect(x: 0, y: 0, width: w, height: h), reduction: CountingAverage(counter: reductions)))
        _ = try uncached.reduce(mean)
        #expect(reductions.value == 5)
    }

    @Test func concurrentRendersOfOneRecipeOnOneContextGiveTheSameBytes() throws {
        let blurred = src.clampedToExtent().applyingGaussianBlur(sigma: 2).cropped(to: src.extent).insertingIntermediate()
        let means = src.applyingFilter("CIKMeans", parameters: [kCIInputExtentKey: CIVector(cgRect: src.extent), "inputCount": 4, "inputPasses": 3])
        let recipe = blurred.applyingLUT(LUTConfiguration.shared.tealOrange)
            .composited(over: reading(CallCounter(), CallCounter()).transformed(by: CGAffineTransform(rotationAngle: 0.2)))
            .applyingFilter("CIColorThresholdOtsu")
            .composited(over: means.transformed(by: CGAffineTransform(scaleX: 10, y: 30)).samplingNearest())
            .cropped(to: src.extent)
        let context = CIContext(options: [.tileSize: 8])
        let reference = try CIContext(options: [.cacheIntermediates: false]).renderToData(recipe, from: recipe.extent).data
        let results = SharedValue([Data?](repeating: nil, count: 12))
        DispatchQueue.concurrentPerform(iterations: 12) { i in
            let d = try? context.renderToData(recipe, from: recipe.extent).data
            results.update { $0[i] = d }
        }
        for (i, d) in results.read({ $0 }).enumerated() { #expect(d == reference, "render \(i)") }
    }

    @Test func executorRunsEveryIndexOnceEvenNested() {
        let executor = Executor(width: 4)
        let hits = SharedValue([Int](repeating: 0, count: 60))
        executor.parallelFor(6) { i in
            executor.parallelFor(10) { j in hits.update { $0[i * 10 + j] += 1 } }
        }
        #expect(hits.read { $0 } == [Int](repeating: 1, count: 60))
        let area = SharedValue(0)
        let rect = PixelRect(x: -3, y: 5, width: 37, height: 23)
        executor.forEachTile(rect, tileWidth: 8, tileHeight: 5, topDown: true) { t in
            #expect(rect.contains(t))
            area.update { $0 += t.area }
        }
        #expect(area.read { $0 } == rect.area)
    }

    @Test func cachesKeepTheirPolicies() throws {
        // The context's cache: one budget; a block over it is not kept, one that would overflow
        // it drops the rest.
        let cache = RenderCache(budget: 100 * 16)
        let a = ConstantColorNode(color: .zero), b = ConstantColorNode(color: .one)
        cache.store(PixelBlock(rect: PixelRect(x: 0, y: 0, width: 10, height: 6)), for: a)
        #expect(cache.block(for: a, covering: PixelRect(x: 2, y: 2, width: 3, height: 3)) != nil)
        #expect(cache.block(for: a, covering: PixelRect(x: 2, y: 2, width: 30, height: 3)) == nil)
        cache.store(PixelBlock(rect: PixelRect(x: 0, y: 0, width: 11, height: 11)), for: b)
        #expect(cache.block(for: b) == nil && cache.byteCount == 60 * 16)
        cache.store(PixelBlock(rect: PixelRect(x: 0, y: 0, width: 10, height: 5)), for: b)
        #expect(cache.block(for: a) == nil && cache.block(for: b) != nil && cache.byteCount == 50 * 16)
        // Made once, whoever asks first.
        let once = OnceCell<Int>(), made = CallCounter()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            _ = once.value {
                made.add(); return 42
            }
        }
        #expect(made.value == 1 && once.current == 42)
        // Recent tables: equal keys hit, failures are not kept, the oldest goes first.
        let tables = RecentTables<String, Int>(capacity: 2)
        #expect(tables.value(for: "a") { 1 } == 1 && tables.value(for: "a") { 2 } == 1)
        #expect(throws: CIRenderError.self) { try tables.value(for: "b") { () throws(CIRenderError) -> Int in throw .emptyBounds } }
        #expect(tables.value(for: "b") { 3 } == 3 && tables.value(for: "c") { 4 } == 4 && tables.value(for: "a") { 5 } == 5)
    }
}
