import Dispatch
import Foundation

/// The one place where renders run work in parallel: output tiles, intermediates, reductions
/// and whole-image nodes (k-means). A `CIContext` owns one and hands it to each render's
/// `Evaluator`, so a node runs a parallel loop as `ev.executor.parallelFor(n) { i in ... }`
/// and never touches threads itself.
///
/// Loops may nest (a reduction started while output tiles run); the bodies of one loop run
/// on up to `width` threads at once and the call returns when all are done. Results must not
/// depend on which thread ran which index: callers give each index its own output and merge
/// in index order.
final class Executor: Sendable {
    /// How many loop bodies run at once: the cores the process may use.
    let width: Int

    init(width: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.width = max(1, width)
    }

    /// For evaluators made outside a context (probes, tests).
    static let shared = Executor()

    /// Runs `body(0..<count)`, in parallel when there is more than one index.
    func parallelFor(_ count: Int, _ body: @Sendable (Int) -> Void) {
        if count <= 0 { return }
        if count == 1 { body(0); return }
        DispatchQueue.concurrentPerform(iterations: count, execute: body)
    }

    /// Runs `body` over `rect` split into tiles; rows of tiles are handed out bottom up, or top
    /// down (the order files store rows in) when `topDown`. With `bandsAhead`, no tile starts
    /// while a row of tiles that many rows before its own is unfinished: a consumer taking the
    /// output band by band (and a source giving rows back behind it) then holds a bounded
    /// number of bands however unevenly the tiles run.
    func forEachTile(
        _ rect: PixelRect, tileWidth: Int, tileHeight: Int, topDown: Bool = false, bandsAhead: Int? = nil,
        _ body: @Sendable (PixelRect) -> Void
    ) {
        if rect.isEmpty { return }
        let cols = (rect.width + tileWidth - 1) / tileWidth
        let rows = (rect.height + tileHeight - 1) / tileHeight
        @Sendable func tile(_ i: Int) -> PixelRect {
            let c = i % cols, r = topDown ? rows - 1 - i / cols : i / cols
            let x0 = rect.minX + c * tileWidth, y0 = rect.minY + r * tileHeight
            return PixelRect(minX: x0, minY: y0, maxX: min(x0 + tileWidth, rect.maxX), maxY: min(y0 + tileHeight, rect.maxY))
        }
        guard let ahead = bandsAhead, rows > ahead else {
            parallelFor(cols * rows) { i in body(tile(i)) }
            return
        }
        // Indices are claimed in increasing order, so every tile of an earlier band is
        // already running when a later one waits: the wait always ends.
        let window = BandWindow(bands: rows, tilesPerBand: cols, ahead: max(1, ahead))
        parallelFor(cols * rows) { i in
            window.waitToStart(band: i / cols)
            body(tile(i))
            window.finished(band: i / cols)
        }
    }
}

/// Which rows of tiles (in the order handed out) are finished, for `forEachTile`'s
/// `bandsAhead`.
private final class BandWindow: @unchecked Sendable {
    private let condition = NSCondition()
    private var tilesDone: [Int]
    /// Bands finished, counted from the first handed out.
    private var bandsDone = 0
    private let tilesPerBand: Int, ahead: Int

    init(bands: Int, tilesPerBand: Int, ahead: Int) {
        tilesDone = Array(repeating: 0, count: bands)
        self.tilesPerBand = tilesPerBand
        self.ahead = ahead
    }

    func waitToStart(band: Int) {
        condition.lock()
        while band - bandsDone >= ahead { condition.wait() }
        condition.unlock()
    }

    func finished(band: Int) {
        condition.lock()
        tilesDone[band] += 1
        var advanced = false
        while bandsDone < tilesDone.count && tilesDone[bandsDone] == tilesPerBand {
            bandsDone += 1
            advanced = true
        }
        if advanced { condition.broadcast() }
        condition.unlock()
    }
}
