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
    /// down (the order files store rows in) when `topDown`.
    func forEachTile(_ rect: PixelRect, tileWidth: Int, tileHeight: Int, topDown: Bool = false, _ body: @Sendable (PixelRect) -> Void) {
        if rect.isEmpty { return }
        let cols = (rect.width + tileWidth - 1) / tileWidth
        let rows = (rect.height + tileHeight - 1) / tileHeight
        @Sendable func tile(_ i: Int) -> PixelRect {
            let c = i % cols, r = topDown ? rows - 1 - i / cols : i / cols
            let x0 = rect.minX + c * tileWidth, y0 = rect.minY + r * tileHeight
            return PixelRect(minX: x0, minY: y0, maxX: min(x0 + tileWidth, rect.maxX), maxY: min(y0 + tileHeight, rect.maxY))
        }
        parallelFor(cols * rows) { i in body(tile(i)) }
    }
}
