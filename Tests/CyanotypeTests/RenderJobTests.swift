import Foundation
import Testing
@testable import Cyanotype

/// `CIRenderJob`: renders that stop between tiles when cancelled, and plans refused over a
/// memory budget before any tile runs.
@Suite struct RenderJobTests {
    /// Counts the rows a generator kernel computes, and cancels `job` (when set) at the first.
    final class Probe: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        var job: CIRenderJob?
        var rows: Int { lock.lock(); defer { lock.unlock() }; return count }
        func row() {
            lock.lock(); count += 1; let j = job; lock.unlock()
            j?.cancel()
        }
    }

    /// A `side` x `side` generator whose colour is a formula of position, reporting each row.
    static func generator(_ side: Int, _ probe: Probe) -> CIImage {
        let kernel = CIColorKernel(name: "probe") { row in
            probe.row()
            for i in row.output.indices {
                let x = Float(row.x + i), y = Float(row.y)
                row.output[i] = SIMD4(x.truncatingRemainder(dividingBy: 7) / 7, y.truncatingRemainder(dividingBy: 5) / 5, 0.5, 1)
            }
        }
        return kernel.apply(extent: CGRect(x: 0, y: 0, width: side, height: side), arguments: [])!
    }

    @Test func aCancelledRenderStopsBetweenTilesAndThrows() throws {
        let probe = Probe()
        let image = Self.generator(512, probe)
        let context = CIContext(options: [.tileSize: 32])  // 256 tiles of 32 rows
        let job = CIRenderJob()
        probe.job = job
        #expect(throws: CIRenderError.cancelled) { try context.forJob(job).renderToData(image, from: image.extent) }
        // Only the tiles already running when the first row cancelled the job finished.
        let allRows = 512 * 512 / 32
        #expect(probe.rows > 0 && probe.rows <= 32 * (ProcessInfo.processInfo.activeProcessorCount + 1), "\(probe.rows) of \(allRows) rows")
        #expect(job.isCancelled && job.stoppedRenders == 1)

        // A job cancelled before it starts renders nothing; the streaming PNG encode too.
        let before = probe.rows
        probe.job = nil
        #expect(throws: CIRenderError.cancelled) { try context.forJob(job).renderToData(image, from: image.extent) }
        do {
            _ = try context.forJob(job).encode(image, as: .png)
            Issue.record("a cancelled job's encode returned a file")
        } catch {
            guard case .render(.cancelled) = error else { Issue.record("\(error)"); return }
        }
        #expect(probe.rows == before)
    }

    @Test func aCancelledStreamingEncodeStops() throws {
        let probe = Probe()
        let image = Self.generator(600, probe).applyingGaussianBlur(sigma: 3).cropped(to: CGRect(x: 0, y: 0, width: 600, height: 600))
        let job = CIRenderJob()
        probe.job = job
        for format in [ImageFileFormat.png, .jpeg] {
            do {
                _ = try CIContext().forJob(job).encode(image, as: format)
                Issue.record("\(format): a cancelled encode returned a file")
            } catch {
                guard case .render(.cancelled) = error else { Issue.record("\(format): \(error)"); continue }
            }
        }
    }

    @Test func aCancelledRenderLeavesNothingInTheCache() throws {
        let probe = Probe()
        let source = Self.generator(256, probe)
        // The blur is read twice, so it is materialised and kept in the context's cache.
        let blurred = source.applyingGaussianBlur(sigma: 4)
        let image = blurred.applyingFilter("CIMultiplyBlendMode", parameters: [kCIInputBackgroundImageKey: blurred]).cropped(to: source.extent)
        let context = CIContext(options: [.tileSize: 32])
        let job = CIRenderJob()
        probe.job = job
        #expect(throws: CIRenderError.cancelled) { try context.forJob(job).renderToData(image, from: image.extent) }
        probe.job = nil
        // The same context now renders what a fresh one does.
        let again = try context.renderToData(image, from: image.extent).data
        let fresh = try CIContext(options: [.tileSize: 32]).renderToData(image, from: image.extent).data
        #expect(again == fresh)
    }

    @Test func aPlanOverTheBudgetIsRefusedBeforeAnyTileRuns() throws {
        let probe = Probe()
        let side = 1000
        let image = Self.generator(side, probe).clampedToExtent().applyingGaussianBlur(sigma: 30).cropped(to: CGRect(x: 0, y: 0, width: side, height: side))
        let context = CIContext()
        let limit = 1 << 20
        do {
            _ = try context.forJob(CIRenderJob(memoryBudget: limit)).renderToData(image, from: image.extent)
            Issue.record("rendered over the budget")
        } catch let CIRenderError.overMemoryBudget(estimated, budget) {
            #expect(budget == limit)
            // At least the output tile itself, in float RGBA, for each core.
            #expect(estimated >= 16 * 256 * 256 * ProcessInfo.processInfo.activeProcessorCount, "\(estimated)")
            #expect(estimated == context.estimatedMemory(of: image))
            #expect("\(CIRenderError.overMemoryBudget(estimated: estimated, limit: budget))".contains("over the memory budget of 1 MB"))
        }
        #expect(probe.rows == 0)
        // Within a budget it renders the bytes an unbounded context does.
        let bounded = try context.forJob(CIRenderJob(memoryBudget: 1 << 30)).renderToData(image, from: image.extent).data
        #expect(bounded == (try CIContext().renderToData(image, from: image.extent).data))
    }

    @Test func estimatesGrowWithTheDepthOfANeighbourhoodChain() throws {
        let probe = Probe()
        let side = 1500
        let source = Self.generator(side, probe)
        func blurs(_ n: Int) -> CIImage {
            var image = source
            for _ in 0..<n { image = image.applyingGaussianBlur(sigma: 10) }
            return image.cropped(to: source.extent)
        }
        let context = CIContext()
        let estimates = [1, 10, 100, 300].map { context.estimatedMemory(of: blurs($0)) }
        #expect(estimates == estimates.sorted() && Set(estimates).count == estimates.count, "\(estimates)")
        // The issue's 300-step recipe held 12.8 GB; the plan must foresee gigabytes, not megabytes.
        #expect(estimates[3] > 1 << 30, "\(estimates)")
        // A per-pixel chain stays small: a few tiles per core.
        let graded = source.applyingFilter("CISepiaTone").applyingFilter("CIExposureAdjust", parameters: [kCIInputEVKey: 0.5])
        #expect(context.estimatedMemory(of: graded) < 64 << 20)
        #expect(probe.rows == 0)  // estimating renders nothing
    }
}
