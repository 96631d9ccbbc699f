import Foundation

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
    /// Counters at zero.
    public init() {}
}

/// The state of one render, shared by all its tile workers: the optimised recipe every input
/// is read through, the executor parallel loops run on, the blocks materialised for this
/// render (intermediates, whole results) and the statistics. Nodes reach their inputs with
/// `fill`, run parallel loops with `executor`, and read whole results with `wholeResult`.
final class Evaluator: @unchecked Sendable {
    /// false for a context with `NSNull` working space: sources are read without conversion.
    let colorManaged: Bool
    /// Where this render's parallel loops run (the context's).
    let executor: Executor
    /// The recipe as rendered: `fill` reads every node through `recipe.resolve`.
    let recipe: OptimizedRecipe
    /// The context's cache, when it keeps blocks between renders.
    private let cache: RenderCache?
    private let lock = NSLock()
    private var materialized: [ObjectIdentifier: PixelBlock] = [:]
    private var wholeResults: [ObjectIdentifier: OnceCell<PixelBlock>] = [:]
    private var stats = RenderStatistics()
    /// The row gates of the files this render reads as they decode (found on first use).
    private var sourceGates: [RowGate]?

    init(colorManaged: Bool = true, executor: Executor = .shared, recipe: OptimizedRecipe? = nil, cache: RenderCache? = nil) {
        self.colorManaged = colorManaged
        self.executor = executor
        self.recipe = recipe ?? Evaluator.asBuilt
        self.cache = cache
    }

    /// For evaluators made outside a render (probes, tests): inputs read as built.
    private static let asBuilt = OptimizedRecipe(unoptimized: ConstantColorNode(color: .zero))

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

    /// Whether a file this render reads as it decodes has failed: its rows read as zeros and
    /// the render reports the error, so work over many of its rows (a downscale) can stop.
    var sourceFailed: Bool {
        lock.lock()
        let gates =
            sourceGates
            ?? Optimizer.postOrder(recipe.root, inputs: recipe.inputs(of:)).compactMap { ($0 as? any StoredPixels)?.rowGate }
        sourceGates = gates
        lock.unlock()
        return gates.contains { $0.error != nil }
    }

    /// Fills `out` with `node`'s pixels over `rect`: clear outside the node's extent, from a
    /// materialised block when there is one, else by evaluating the node (as the optimiser
    /// rewrote it).
    func fill(_ node: RecipeNode, _ rect: PixelRect, _ out: TileBuffer) {
        let node = recipe.resolve(node)
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
        if node.traits.isPixelSource { count { $0.sourcePixels += inside.area } }
        node.evaluate(inside, into: target, self)
    }

    /// The whole result of a node that `computesWholeResult`: computed once per render (the
    /// first caller computes, others wait), or taken from the context's cache.
    func wholeResult(of node: RecipeNode) -> PixelBlock {
        let id = ObjectIdentifier(node)
        lock.lock()
        let cell: OnceCell<PixelBlock>
        if let c = wholeResults[id] { cell = c } else { cell = OnceCell(); wholeResults[id] = cell }
        lock.unlock()
        return cell.value {
            let key = recipe.cacheKey(node)
            let block =
                cache?.block(for: key) ?? (node as? any WholeResult)?.computeWholeResult(self) ?? PixelBlock(rect: node.pixelExtent, zeroed: true)
            // A cancelled job's result was computed from skipped tiles: never kept.
            if !executor.isCancelled { cache?.store(block, for: key) }
            setMaterialized(node, block)
            return block
        }
    }

    /// `rect` of `node` evaluated into a new block, tiles in parallel.
    func materialize(_ node: RecipeNode, _ rect: PixelRect) -> PixelBlock {
        let block = PixelBlock(rect: rect, zeroed: rect.isEmpty)
        if rect.isEmpty { return block }
        let executor = self.executor
        executor.forEachTile(rect, tileWidth: 512, tileHeight: 64) { t in
            // A cancelled job's tiles are cleared, not computed: whatever reads them (a
            // reduction) finishes quickly on zeros, and the render throws once it returns.
            if executor.isCancelled { block.view(t).zero(); return }
            self.fill(node, t, block.view(t))
        }
        return block
    }

    /// A finite image's pixels over its whole extent (limited to 16 M pixels), read once.
    func wholeImage(_ node: RecipeNode) -> PixelBlock {
        let r = node.pixelExtent.intersection(PixelRect(x: -(1 << 20), y: -(1 << 20), width: 1 << 21, height: 1 << 21))
        let rect = r.area <= (1 << 24) ? r : PixelRect(x: r.x, y: r.y, width: min(r.width, 4096), height: min(r.height, 4096))
        return materialize(node, rect)
    }

    /// The bitmap `node` shows unchanged over `region` in this render (see
    /// `OptimizedRecipe.bitmapSource`).
    func bitmapSource(_ node: RecipeNode, covering region: PixelRect) -> BitmapNode? {
        recipe.bitmapSource(node, covering: region)
    }
}
