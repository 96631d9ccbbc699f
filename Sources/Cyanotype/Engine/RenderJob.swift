import Foundation

/// What a caller controls of a render while it runs: a cancellation flag and a memory budget.
/// A context bound to a job (`CIContext.forJob(_:)`) checks the flag between tiles and bands
/// (output tiles, intermediates, whole-image inputs, streaming encodes) and refuses, before
/// any tile runs, a plan whose estimated memory (`CIContext.estimatedMemory(of:rect:)`, the
/// figure `explain` prints) is over the budget. A cancelled render throws
/// `CIRenderError.cancelled`; its memory is freed as it unwinds, and it never stores what it
/// computed in the context's cache.
///
/// A job is a value handed to the render, not a global: one job per request (a server's
/// deadline) or per export; `cancel()` may be called from any thread.
public final class CIRenderJob: @unchecked Sendable {
    /// The most bytes a plan may be estimated to hold (nil: no limit).
    public let memoryBudget: Int?
    private let lock = NSLock()
    private var cancelled = false
    private var stopped: Int = 0

    /// A job with an optional memory budget in bytes.
    public init(memoryBudget: Int? = nil) {
        self.memoryBudget = memoryBudget.map { max(0, $0) }
    }

    /// Asks the render to stop: tiles not yet started are skipped and the render throws
    /// `CIRenderError.cancelled`.
    public func cancel() {
        lock.lock(); cancelled = true; lock.unlock()
    }

    /// Whether `cancel()` was called.
    public var isCancelled: Bool {
        lock.lock(); defer { lock.unlock() }
        return cancelled
    }

    /// How many renders of this job noticed the cancellation and stopped (for servers and
    /// tests: proof that the work really ended).
    public var stoppedRenders: Int {
        lock.lock(); defer { lock.unlock() }
        return stopped
    }

    /// Cyanotype: how far this job's renders have come, in tiles (output tiles and the tiles
    /// of intermediates): `completed` of the `planned` so far. A render adds its tiles as
    /// it reaches each loop, so `planned` grows while it runs; renders that copy pixels as
    /// they are (pass-through) add none, and tiles skipped on cancellation never complete.
    public var progress: (completed: Int, planned: Int) {
        lock.lock(); defer { lock.unlock() }
        return (tilesCompleted, tilesPlanned)
    }
    private var tilesPlanned = 0
    private var tilesCompleted = 0

    /// A render of this job is about to run `count` tiles.
    func plan(tiles count: Int) {
        lock.lock(); tilesPlanned += count; lock.unlock()
    }
    /// A tile of this job's render finished.
    func tileCompleted() {
        lock.lock(); tilesCompleted += 1; lock.unlock()
    }

    /// Records that a render of this job stopped on cancellation, and throws.
    func stop() throws -> Never {
        lock.lock(); stopped += 1; lock.unlock()
        throw CIRenderError.cancelled
    }

    /// Throws `CIRenderError.overMemoryBudget` when `estimate` is over the budget.
    func checkBudget(_ estimate: Int) throws {
        if let memoryBudget, estimate > memoryBudget {
            throw CIRenderError.overMemoryBudget(estimated: estimate, limit: memoryBudget)
        }
    }
}

// MARK: - One render

/// What a context lends each render: where its parallel loops run (bound to the caller's
/// `CIRenderJob`, if any), whether colour is managed, the cache of intermediates, the tile
/// size override, and where the render's counters go when it ends.
struct RenderEnvironment: Sendable {
    /// Where the render's parallel loops run; carries the `CIRenderJob` (cancellation, budget).
    let executor: Executor
    /// false for a context with `NSNull` working space: nothing converts on read or write.
    let colorManaged: Bool
    /// The context's cache, when it keeps intermediates between renders.
    let cache: RenderCache?
    /// The tile side the context was told to use (nil: the planner's choice).
    let tileSize: Int?
    /// Receives the render's counters when it ends (`CIContext.lastRenderStatistics`).
    let record: @Sendable (RenderStatistics) -> Void
}

/// One render, the way every render runs (`CIContext.render`, `createCGImage`, the
/// `*Representation` encoders, `startTask(toRender:)`, planar video frames, reductions):
///
/// 1. optimise the recipe once, for this destination (`Optimizer.optimize`);
/// 2. decide pass-through once (`Optimizer.passThrough`): stored pixels the destination
///    takes as they are are copied, fed to the encoder, or lent, and nothing is planned;
/// 3. plan (`RenderPlan`) and 4. execute on the environment's executor: whole results and
///    intermediates first, then the output tiles, checking the `CIRenderJob`'s budget before
///    any tile and its cancellation between tiles and bands.
///
/// A streaming encode (`.bands`) also owns the band ring, the decode-ahead of its sources
/// and the thread feeding the encoder (`Render.renderBands`). Two take a shorter way: a JPEG
/// file written unchanged but for a turn, as JPEG, is re-encoded from its Y'CbCr planes
/// before anything loads (`Optimizer.recodedPlanes`, `encodePlanes`); a turn over a
/// downscale in stored order (rewrite 1) renders the downscale's bands and stores them
/// upright before the encoder (`renderTurnedBands`).
struct Render {
    /// Where the rendered pixels go.
    enum Delivery {
        /// Rows into caller memory. `lendsUnchanged`: a pass-through bitmap exactly the size
        /// of the rect, rows packed, is handed back (`Outcome.unchanged`) instead of copied.
        case bitmap(DestinationWriter, lendsUnchanged: Bool)
        /// The planes of a Y'CbCr buffer (a video frame).
        case planes(YCbCrWriter)
        /// RGBA8 rows band by band, top first, to the encoder `makeEncoder(width, height)`
        /// returns, as they finish (a streaming encode); the writer says how tiles are
        /// stored (its memory is replaced by the band ring's). An unchanged bitmap already in
        /// memory is handed back (`Outcome.unchanged`) for the caller to encode whole.
        /// `takesYCbCr`: the encoder (a JPEG one) can take Y'CbCr rows instead
        /// (`BandEncoder.takeYCbCr`), so an unchanged JPEG file is re-encoded from its planes.
        case bands(
            DestinationWriter, takesYCbCr: Bool = false, makeEncoder: (_ width: Int, _ height: Int) throws(ImageFileError) -> any BandEncoder)
        /// Working-space tiles handed to `sink` as they finish (reductions, probes).
        case tiles(@Sendable (TileBuffer, PixelRect) -> Void)
    }

    /// How a render ended.
    enum Outcome {
        /// Tiles were rendered into the destination.
        case rendered
        /// The destination took the source's stored pixels as they are (copied or encoded).
        case copied
        /// The recipe is this bitmap, unchanged and exactly the rect, lent to the caller
        /// (`lendsUnchanged`, or `.bands` over a bitmap already in memory); nothing written.
        case unchanged(BitmapNode)
    }

    /// The recipe as built (not yet optimised).
    let node: RecipeNode
    /// The destination rectangle, in pixels.
    let rect: PixelRect
    let delivery: Delivery
    let environment: RenderEnvironment

    var executor: Executor { environment.executor }

    /// Runs the render: optimise once, pass-through or plan, execute.
    @discardableResult
    func run() throws -> Outcome {
        var options = Optimizer.Options(loadSources: true, writer: nil, colorManaged: environment.colorManaged)
        let destination: (any RenderDestination)?
        switch delivery {
        case .bitmap(let w, _): destination = w
        case .planes(let w): destination = w
        case .bands(let w, _, _):
            destination = w
            // One pass over the sources, top down: files decode for this render alone.
            options.forOneRender = true
        case .tiles: destination = nil
        }
        options.writer = destination
        // Before optimising: an unchanged JPEG file written as a JPEG is re-encoded from its
        // planes, before any source loads (its file would otherwise start decoding to RGBA).
        if case .bands(let w, true, let makeEncoder) = delivery,
            let stored = Optimizer.recodedPlanes(node, rect: rect, into: w, colorManaged: environment.colorManaged),
            let outcome = try encodePlanes(stored, makeEncoder: makeEncoder)
        {
            return outcome
        }
        let recipe = try Optimizer.optimize(node, options)

        if let destination,
            let pass = Optimizer.passThrough(recipe, rect: rect, into: destination, colorManaged: environment.colorManaged),
            let outcome = try deliverUnchanged(pass)
        {
            return outcome
        }

        switch delivery {
        case .bitmap(let writer, _):
            let w = recipe.writer ?? writer
            try execute(plan(recipe)) { tile, tileRect in w.write(tile, tileRect) }
        case .planes(let writer):
            let w = recipe.destination as? YCbCrWriter ?? writer
            try execute(plan(recipe)) { tile, tileRect in w.write(tile, tileRect) }
        case .bands(let writer, _, let makeEncoder):
            if try renderTurnedBands(recipe, writer: recipe.writer ?? writer, makeEncoder: makeEncoder) { break }
            let sources = StreamedSources(recipe)
            defer { sources.end() }
            try renderBands(recipe, writer: recipe.writer ?? writer, sources: sources, encoder: try makeEncoder(rect.width, rect.height))
        case .tiles(let sink):
            try execute(plan(recipe), sink: sink)
        }
        return .rendered
    }

    /// The plan for `rect` of `recipe` (`banded`: wide short tiles for a consumer taking bands
    /// top first).
    func plan(_ recipe: OptimizedRecipe, banded: Bool = false) -> RenderPlan {
        RenderPlan(recipe: recipe, rect: rect, tileSize: environment.tileSize, banded: banded)
    }

    // MARK: Pass-through

    /// Delivers stored pixels as they are; nil when this delivery cannot take them so (the
    /// render then runs as usual).
    private func deliverUnchanged(_ pass: PassThrough) throws -> Outcome? {
        switch (pass, delivery) {
        case (.planes(let source), .planes(let writer)):
            writer.copyPlanes(from: source)
            environment.record(RenderStatistics(sourcePixels: rect.area))
            return .copied
        case (.bitmap(let bitmap), .bitmap(let writer, let lends)):
            if lends, bitmap.bytesPerRow == rect.width * writer.bytesPerPixel, bitmap.pixelExtent == rect {
                // Read as a whole: wait for the decoder.
                if let gate = bitmap.gate {
                    do { try gate.waitAll() } catch { throw CIRenderError.sourceFailed(String(describing: error)) }
                }
                return .unchanged(bitmap)
            }
            try copyRows(of: bitmap, into: writer)
            environment.record(RenderStatistics(sourcePixels: rect.area))
            return .copied
        case (.bitmap(let bitmap), .bands(let writer, _, let makeEncoder)):
            guard bitmap.bytesPerRow == rect.width * writer.bytesPerPixel, bitmap.pixelExtent == rect else { return nil }
            // Already in memory: the caller encodes it whole, as it is.
            guard let gate = bitmap.gate else { return .unchanged(bitmap) }
            // Still decoding: rows go to the encoder as they arrive.
            try encodeWhileDecoding(bitmap, gate, encoder: try makeEncoder(bitmap.width, bitmap.height))
            return .copied
        case (.narrowedBitmap(let bitmap), .bands(_, _, let makeEncoder)):
            // Unfiltered 16-bit rows (a 16-bit PNG or TIFF decoding on its thread): each band
            // is rounded to 8 bits as it arrives, with no float pass.
            guard let gate = bitmap.gate, bitmap.bytesPerRow == rect.width * 8, bitmap.pixelExtent == rect else { return nil }
            try encodeWhileDecoding(bitmap, gate, encoder: try makeEncoder(bitmap.width, bitmap.height))
            return .copied
        default:
            return nil
        }
    }

    /// Copies `rect` of `bitmap` into the writer's memory, top row first, each band as soon
    /// as a decoding source has delivered it, so the copy overlaps the decode.
    private func copyRows(of bitmap: BitmapNode, into writer: DestinationWriter) throws {
        let bpp = writer.bytesPerPixel
        let ext = bitmap.pixelExtent
        let band = 64
        try bitmap.data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws in
            guard let base = raw.baseAddress else { return }
            var y = rect.maxY - 1
            while y >= rect.minY {
                let last = max(rect.minY, y - band + 1)
                if let gate = bitmap.gate, !gate.wait(untilRows: ext.maxY - last) {
                    throw CIRenderError.sourceFailed(gate.error.map { String(describing: $0) } ?? "decoding stopped")
                }
                for row in stride(from: y, through: last, by: -1) {
                    let src = base + (ext.maxY - 1 - row) * bitmap.bytesPerRow + (rect.minX - ext.minX) * bpp
                    let dst = writer.base + (rect.maxY - 1 - row) * writer.rowBytes
                    dst.copyMemory(from: src, byteCount: rect.width * bpp)
                }
                y = last - 1
            }
        }
    }

    // MARK: Execution

    /// Computes the plan's whole results and materialises its intermediates (from the
    /// cache where it can), then renders the output tiles on the executor, handing each
    /// finished tile to `sink`. A banded plan runs its tiles top band first, at most two
    /// bands ahead of the oldest unfinished one, and with a `ledger` as the consumer frees its
    /// band memory.
    func execute(_ plan: RenderPlan, ledger: BandLedger? = nil, sink: @escaping @Sendable (TileBuffer, PixelRect) -> Void) throws {
        let recipe = plan.recipe, rect = plan.rect, topDown = plan.banded
        let executor = self.executor, cache = environment.cache
        if let job = executor.job {
            try job.checkBudget(plan.estimatedMemory)
            if job.isCancelled { try job.stop() }
        }
        let ev = Evaluator(colorManaged: environment.colorManaged, executor: executor, recipe: recipe, cache: cache)
        // Deepest first: whole results and intermediates only read what is below them.
        var pending = Set(plan.materialize.map { ObjectIdentifier($0) })
        pending.formUnion(plan.wholeResults.map { ObjectIdentifier($0) })
        for node in plan.order.reversed() where pending.contains(ObjectIdentifier(node)) {
            if executor.isCancelled { try executor.job?.stop() }
            if node.traits.computesWholeResult {
                _ = ev.wholeResult(of: node)
                continue
            }
            let region = plan.region(of: node)
            let key = recipe.cacheKey(node)
            if let hit = cache?.block(for: key, covering: region) {
                ev.setMaterialized(node, hit)
                ev.count { $0.intermediateCacheHits += 1 }
                continue
            }
            let block = PixelBlock(rect: region)
            executor.job?.plan(tiles: Self.tiles(region, plan))
            executor.forEachTile(region, tileWidth: plan.tileWidth, tileHeight: plan.tileHeight) { t in
                if executor.isCancelled { return }
                node.evaluate(t, into: block.view(t), ev)
                ev.count { $0.tiles += 1 }
                executor.job?.tileCompleted()
            }
            if executor.isCancelled { try executor.job?.stop() }
            ev.setMaterialized(node, block)
            ev.count { $0.intermediatesRendered += 1 }
            if let cache, node.traits.mayBeCached { cache.store(block, for: key) }
        }
        if executor.isCancelled { try executor.job?.stop() }
        let root = recipe.root
        executor.job?.plan(tiles: Self.tiles(rect, plan))
        executor.forEachTile(rect, tileWidth: plan.tileWidth, tileHeight: plan.tileHeight, topDown: topDown, bandsAhead: topDown ? 2 : nil, ledger: ledger) { t in
            // A cancelled job's tiles are skipped; a consumer taking bands (a streaming encode)
            // still hears of each, so that no band it waits for is left unfinished.
            if executor.isCancelled {
                if ledger != nil { sink(PixelBlock(rect: t, zeroed: true).buffer, t) }
                return
            }
            // Tiles stay cache-resident; writers then store to the destination once (float
            // destinations with streaming stores: rendering in place measured slower).
            let block = PixelBlock(rect: t)
            ev.fill(root, t, block.buffer)
            sink(block.buffer, t)
            ev.count { $0.tiles += 1 }
            executor.job?.tileCompleted()
        }
        if executor.isCancelled { try executor.job?.stop() }
        environment.record(ev.statistics)
        // Work that ran alongside the tiles (a file decoding on its thread) and failed fails
        // the render.
        for node in plan.order {
            if let e = (node as? any StoredPixels)?.deferredError { throw CIRenderError.sourceFailed(String(describing: e)) }
        }
    }
}

extension Render {
    /// How many tiles of `plan`'s size cover `rect`.
    static func tiles(_ rect: PixelRect, _ plan: RenderPlan) -> Int {
        rect.isEmpty ? 0 : ((rect.width + plan.tileWidth - 1) / plan.tileWidth) * ((rect.height + plan.tileHeight - 1) / plan.tileHeight)
    }
}

extension RenderStatistics {
    /// Counters of a render that read `sourcePixels` and computed nothing (a pass-through).
    init(sourcePixels: Int) {
        self.init()
        self.sourcePixels = sourcePixels
    }
}
