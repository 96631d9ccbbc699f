import CCyanotypeKernels
import Dispatch
import Foundation
import Synchronization

/// The one place where renders run work in parallel: output tiles, intermediates, reductions
/// and whole-image nodes (k-means). A `CIContext` owns one and hands it to each render's
/// `Evaluator`, so a node runs a parallel loop as `ev.executor.parallelFor(n) { i in ... }`
/// and never touches threads itself.
///
/// Loops may nest (a reduction started while output tiles run); the bodies of one loop run
/// on up to `width` threads at once and the call returns when all are done. Results must not
/// depend on which thread ran which index: callers give each index its own output and merge
/// in index order.
///
/// An executor bound to a `CIRenderJob` (`bound(to:)`, what a job's context renders on) tells
/// the loops it runs whether the job was cancelled (`isCancelled`): tile bodies then skip
/// their work, and the render throws once the loop returns.
package final class Executor: Sendable {
    /// How many loop bodies run at once: the cores the process may use by default.
    package let width: Int
    /// The job whose renders run here (nil: renders that cannot be cancelled).
    let job: CIRenderJob?

    /// An executor running at most `width` loop bodies at once, for `job`'s renders.
    package init(width: Int = ProcessInfo.processInfo.activeProcessorCount, job: CIRenderJob? = nil) {
        self.width = max(1, width)
        self.job = job
    }

    /// The same width, running the loops of `job`'s renders.
    func bound(to job: CIRenderJob?) -> Executor { Executor(width: width, job: job) }

    /// Whether the job these loops run for was cancelled.
    var isCancelled: Bool { job?.isCancelled ?? false }

    /// For evaluators made outside a context (probes, tests).
    static let shared = Executor()

    /// Runs `body(0..<count)` on at most `width` threads at once (the caller's among them),
    /// indices claimed in increasing order; in order on the calling thread when `width` or
    /// `count` is 1.
    package func parallelFor(_ count: Int, _ body: @Sendable (Int) -> Void) {
        if count <= 0 { return }
        if count == 1 || width == 1 {
            for i in 0..<count { body(i) }
            return
        }
        // A kernel path selected on this thread (tests: `cyan_select_vector_bits`) holds in
        // every body, whichever thread runs it.
        let path = cyan_selected_vector_bits()
        if path < 0 {
            spread(count, body)
        } else {
            spread(count) { i in
                let outer = cyan_selected_vector_bits()
                _ = cyan_select_vector_bits(path)
                body(i)
                _ = cyan_select_vector_bits(outer)
            }
        }
    }

    /// `body(0..<count)` on `width` workers (fewer for fewer indices), each claiming the next
    /// index until none is left.
    private func spread(_ count: Int, _ body: @Sendable (Int) -> Void) {
        if count <= width {
            DispatchQueue.concurrentPerform(iterations: count, execute: body)
            return
        }
        let next = IndexClaim(count)
        DispatchQueue.concurrentPerform(iterations: width) { _ in
            while let i = next.claim() { body(i) }
        }
    }

    /// Runs `body` over `rect` split into tiles; rows of tiles are handed out bottom up, or top
    /// down (the order files store rows in) when `topDown`. With `bandsAhead`, no tile starts
    /// while a row of tiles that many rows before its own is unfinished: a consumer taking the
    /// output band by band (and a source giving rows back behind it) then holds a bounded
    /// number of bands however unevenly the tiles run. With a `ledger`, no tile starts until
    /// the consumer has taken the band `ledger.slots` rows of tiles before its own (the
    /// consumer's memory for that band can then be reused).
    func forEachTile(
        _ rect: PixelRect, tileWidth: Int, tileHeight: Int, topDown: Bool = false, bandsAhead: Int? = nil,
        ledger: BandLedger? = nil, _ body: @Sendable (PixelRect) -> Void
    ) {
        if rect.isEmpty { return }
        let cols = (rect.width + tileWidth - 1) / tileWidth
        let rows = (rect.height + tileHeight - 1) / tileHeight
        @Sendable func tile(_ i: Int) -> PixelRect {
            let c = i % cols, r = topDown ? rows - 1 - i / cols : i / cols
            let x0 = rect.minX + c * tileWidth, y0 = rect.minY + r * tileHeight
            return PixelRect(minX: x0, minY: y0, maxX: min(x0 + tileWidth, rect.maxX), maxY: min(y0 + tileHeight, rect.maxY))
        }
        guard bandsAhead != nil || ledger != nil else {
            parallelFor(cols * rows) { i in body(tile(i)) }
            return
        }
        // Indices are claimed in increasing order, so every tile of an earlier band is
        // already running when a later one waits: the wait always ends (the ledger's consumer
        // takes bands as they finish, or is cancelled).
        let window = BandWindow(bands: rows, tilesPerBand: cols, ahead: max(1, bandsAhead ?? rows))
        parallelFor(cols * rows) { i in
            window.waitToStart(band: i / cols)
            ledger?.waitForSlot(band: i / cols)
            body(tile(i))
            window.finished(band: i / cols)
        }
    }
}

extension Executor {
    /// Starts a long-running thread of its own for work that blocks while it waits (a
    /// streaming encode's band feeder, a file decoding ahead of its render, a server's render
    /// worker), never on the loop threads, which a blocked body would starve. The one place
    /// the package starts threads, but where a library demands its own (libmicrohttpd, the
    /// video demuxer and encoder). `stackSize` in bytes (nil: the system's default).
    package static func startThread(name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = name
        if let stackSize { thread.stackSize = stackSize }
        thread.start()
    }
}

/// The indices of one `parallelFor` loop, handed out in increasing order.
private final class IndexClaim: Sendable {
    private let next = Atomic<Int>(0)
    private let count: Int
    init(_ count: Int) { self.count = count }
    /// The next index not yet claimed, or nil when all are.
    func claim() -> Int? {
        let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
        return i < count ? i : nil
    }
}

/// How many bands of a render's output (rows of tiles, in the order handed out) a consumer
/// has taken, when it keeps `slots` bands of memory and reuses them in turn: tiles of a band
/// wait for its slot (`Executor.forEachTile`'s `ledger`).
final class BandLedger: Sendable {
    private struct State {
        var taken = 0
        var cancelled = false
    }
    private let state = Handoff(State())
    let slots: Int

    init(slots: Int) { self.slots = max(1, slots) }

    /// Waits until band `band`'s slot is free (the band `slots` before it taken).
    func waitForSlot(band: Int) {
        let slots = self.slots
        state.wait { band < $0.taken + slots || $0.cancelled }
    }
    /// The consumer took the next band.
    func tookBand() { state.update { $0.taken += 1 } }
    /// The consumer stopped: tiles no longer wait (what they write is not read).
    func cancel() { state.update { $0.cancelled = true } }
}

/// Which rows of tiles (in the order handed out) are finished, for `forEachTile`'s
/// `bandsAhead`.
private final class BandWindow: Sendable {
    private struct State {
        var tilesDone: [Int]
        /// Bands finished, counted from the first handed out.
        var bandsDone = 0
    }
    private let state: Handoff<State>
    private let tilesPerBand: Int, ahead: Int

    init(bands: Int, tilesPerBand: Int, ahead: Int) {
        state = Handoff(State(tilesDone: Array(repeating: 0, count: bands)))
        self.tilesPerBand = tilesPerBand
        self.ahead = ahead
    }

    func waitToStart(band: Int) {
        let ahead = self.ahead
        state.wait { band - $0.bandsDone < ahead }
    }

    func finished(band: Int) {
        let tilesPerBand = self.tilesPerBand
        state.change { s in
            s.tilesDone[band] += 1
            let before = s.bandsDone
            while s.bandsDone < s.tilesDone.count && s.tilesDone[s.bandsDone] == tilesPerBand { s.bandsDone += 1 }
            return s.bandsDone > before
        }
    }
}
