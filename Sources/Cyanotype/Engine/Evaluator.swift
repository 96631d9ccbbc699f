import Dispatch

/// Counters a render keeps, for tests and `explain`: how much work a recipe really cost.
public struct RenderStatistics: Sendable, Equatable {
    /// Pixels read from bitmap and file sources.
    public var sourcePixels: Int = 0
    /// Tiles rendered for the output and for intermediates.
    public var tiles: Int = 0
    /// Intermediates materialised (not counting cache hits).
    public var intermediatesRendered: Int = 0
    /// Intermediates served from the context's cache.
    public var intermediateCacheHits: Int = 0
    public init() {}
}

/// Shared state of one render: materialised intermediates and statistics. Safe to use from
/// all tile workers at once.
final class Evaluator: @unchecked Sendable {
    /// false for a context with `NSNull` working space: sources are read without conversion.
    let colorManaged: Bool
    init(colorManaged: Bool = true) { self.colorManaged = colorManaged }
    private let lock = NSLock()
    private var materialized: [ObjectIdentifier: PixelBlock] = [:]
    private var stats = RenderStatistics()

    func setMaterialized(_ node: RecipeNode, _ block: PixelBlock) {
        lock.lock(); materialized[ObjectIdentifier(node)] = block; lock.unlock()
    }
    func materializedBlock(_ node: RecipeNode) -> PixelBlock? {
        lock.lock(); defer { lock.unlock() }
        return materialized[ObjectIdentifier(node)]
    }
    func count(_ update: (inout RenderStatistics) -> Void) {
        lock.lock(); update(&stats); lock.unlock()
    }
    var statistics: RenderStatistics { lock.lock(); defer { lock.unlock() }; return stats }

    /// Fills `out` with `node`'s pixels over `rect`: clear outside the node's extent, from a
    /// materialised block when there is one, else by evaluating the node.
    func fill(_ node: RecipeNode, _ rect: PixelRect, _ out: TileBuffer) {
        let inside = rect.intersection(node.pixelExtent)
        if inside.isEmpty { out.zero(); return }
        let target: TileBuffer
        if inside != rect {
            out.zero()
            target = out.view(x: inside.minX - rect.minX, y: inside.minY - rect.minY, width: inside.width, height: inside.height)
        } else {
            target = out
        }
        if let block = materializedBlock(node), block.rect.contains(inside) {
            target.copy(from: block.view(inside))
            return
        }
        if node.isPixelSource { count { $0.sourcePixels += inside.area } }
        node.evaluate(inside, into: target, self)
    }
}

/// Runs `body` over `rect` split into tiles, on all cores; rows of tiles are handed out
/// bottom up, or top down (the order files store rows in) when `topDown`.
func forEachTile(_ rect: PixelRect, tileWidth: Int, tileHeight: Int, topDown: Bool = false, _ body: @Sendable (PixelRect) -> Void) {
    if rect.isEmpty { return }
    let cols = (rect.width + tileWidth - 1) / tileWidth
    let rows = (rect.height + tileHeight - 1) / tileHeight
    let n = cols * rows
    @Sendable func tile(_ i: Int) -> PixelRect {
        let c = i % cols, r = topDown ? rows - 1 - i / cols : i / cols
        let x0 = rect.minX + c * tileWidth, y0 = rect.minY + r * tileHeight
        return PixelRect(minX: x0, minY: y0, maxX: min(x0 + tileWidth, rect.maxX), maxY: min(y0 + tileHeight, rect.maxY))
    }
    if n == 1 { body(tile(0)); return }
    DispatchQueue.concurrentPerform(iterations: n) { i in body(tile(i)) }
}
