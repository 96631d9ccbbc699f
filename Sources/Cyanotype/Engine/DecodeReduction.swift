// Decoding small: a downscale over a file that can decode at a fraction of its size reads
// that fraction (JPEG scaled in the IDCT, WebP's scaled decoder) and finishes with the exact
// resampling. The optimiser asks nodes their roles (`DownscaleResampler`, `DecodeReducible`,
// `GridReducible`); it names no node class here.

/// How a file source decodes at a fraction of its size: the factors it offers (largest first,
/// powers of two dividing both of its sides, so the coarser grid lands on its pixels exactly)
/// and the loader of the reduced pixels.
struct DecodeReducer: Sendable {
    let factors: [Int]
    /// Whether the reduced decodes stream (a decode of their own per render is worth it).
    let streams: Bool
    /// The source decoded at 1/factor, for one render when the flag says so.
    let load: @Sendable (_ factor: Int, _ forOneRender: Bool) throws -> RecipeNode
    /// For a file that decodes at any smaller size (WebP's scaled decoder): the source decoded
    /// at that upright width and height; nil when it cannot.
    var scaledLoad: (@Sendable (_ width: Int, _ height: Int) throws -> RecipeNode)? = nil
}

extension PixelRect {
    /// The rectangle on a grid `factor` times coarser, when its edges fall on that grid.
    func reduced(by factor: Int) -> PixelRect? {
        guard factor > 0, !isEmpty, x % factor == 0, y % factor == 0, width % factor == 0, height % factor == 0 else { return nil }
        return PixelRect(x: x / factor, y: y / factor, width: width / factor, height: height / factor)
    }
}

extension Optimizer {
    /// How much resolution a reduced decode keeps above what the downscale asks for: the
    /// final resampling always shrinks by at least this much (libvips's thumbnail rule), so
    /// the exact kernel, not the decoder's scaling, shapes the result.
    static let decodeReductionMargin = 2.0

    /// The same margin for a source that decodes at any size (WebP): its decoder's rescaler
    /// averages each output pixel's exact cell (an area filter; libvips decodes WebP
    /// thumbnails straight at their size with it), so a quarter more resolution is enough for
    /// the final resampling to shape the result (twice the output measured no closer to the full
    /// decode: 0.83 against 0.92 of a level on average, on the tests' picture).
    static let scaledDecodeMargin = 1.25

    /// 0. A downscale (a filtering resampling, with the stages of the same kernel under it)
    /// over a file source that decodes small, through nodes that only move, clip or extend
    /// pixels: the source is asked for the smallest decode that still covers the requested
    /// resolution times `decodeReductionMargin`, the nodes between are rebuilt on that coarser
    /// grid, and the resampling (restaged) finishes from there. Runs first, from the root
    /// down, before any source is loaded; gives each downscale rewritten and its replacement.
    /// Pixels differ from the full decode only within the tolerance the README states.
    static func reduceDecodes(_ root: RecipeNode) -> [(original: RecipeNode, replacement: RecipeNode)] {
        var out: [(original: RecipeNode, replacement: RecipeNode)] = []
        var covered = Set<ObjectIdentifier>()
        // Reversed post-order: every node before its inputs, so the outermost stage of a
        // staged reduction is met first and the whole reduction is rescaled at once.
        for node in postOrder(root).reversed() where !covered.contains(ObjectIdentifier(node)) {
            guard let resampler = node as? any DownscaleResampler, let first = resampler.resamplingScale else { continue }
            var (sx, sy) = first
            var base = node.inputs[0], stages = [node]
            while let below = base as? any DownscaleResampler, let s = below.resamplingScale, resampler.resamplesAlike(below) {
                sx *= s.x; sy *= s.y
                stages.append(base)
                base = base.inputs[0]
            }
            guard sx < 1, sy < 1, let source = leaf(base) as? any DecodeReducible else { continue }
            var factor = source.decodeReduction(covering: sx * decodeReductionMargin, sy * decodeReductionMargin)
            var replaced: RecipeNode? = nil
            while factor > 1, replaced == nil {
                if let reduced = reducedChain(base, by: factor) {
                    replaced = resampler.resampled(reduced, scaleX: sx * Double(factor), scaleY: sy * Double(factor))
                }
                factor /= 2
            }
            if replaced == nil { replaced = scaledDecode(resampler, base: base, source: source, sx, sy) }
            if let replaced {
                out.append((node, replaced))
                for s in stages { covered.insert(ObjectIdentifier(s)) }
            }
        }
        return out
    }

    /// 1. A downscale (with the stages of the same kernel under it) over a file source shown
    /// upright from an EXIF orientation that reorders rows (`StoredOrderSource`: 3 to 8),
    /// through nodes that only clip to or extend their input's whole extent: the file is read
    /// in stored order (its rows stream and are given back as they pass, as an upright file's
    /// do), the downscale runs there (scales swapped for a quarter turn) and the same
    /// whole-pixel turn or flip shows its small result upright. The downscale's output must
    /// land on whole pixels (its size times its scale within 1e-6 of whole numbers; the
    /// CLI's sizes always do) so that the turn moves whole pixels; then each output pixel
    /// reads the same source pixels with the same weights as before, summed in another order
    /// (within a level in 8 bits). Runs after `reduceDecodes`, from the root down, before any
    /// source is loaded, over the recipe with 0's rewrites in place (`inputs` gives them);
    /// gives each downscale rewritten and its replacement.
    static func commuteOrientations(_ root: RecipeNode, inputs: (RecipeNode) -> [RecipeNode]) -> [(original: RecipeNode, replacement: RecipeNode)] {
        var out: [(original: RecipeNode, replacement: RecipeNode)] = []
        var covered = Set<ObjectIdentifier>()
        for node in postOrder(root, inputs: inputs).reversed() where !covered.contains(ObjectIdentifier(node)) {
            guard let resampler = node as? any DownscaleResampler, let first = resampler.resamplingScale else { continue }
            var (sx, sy) = first
            var base = inputs(node)[0], stages = [node]
            while let below = base as? any DownscaleResampler, let s = below.resamplingScale, resampler.resamplesAlike(below) {
                sx *= s.x; sy *= s.y
                stages.append(base)
                base = inputs(base)[0]
            }
            guard sx < 1, sy < 1, let source = leaf(base) as? any StoredOrderSource, let (value, stored) = source.storedOrder,
                let orientation = CGImagePropertyOrientation(rawValue: UInt32(value))
            else { continue }
            let e = source.extent, swaps = value >= 5
            guard e.minX == 0, e.minY == 0, !e.isInfinite, !e.isEmpty,
                let storedBase = rebuiltChain(base, depth: 0, source: { $0 === source ? stored : nil }, over: { $0.rescaled(over: $1) })
            else { continue }
            // The downscale in stored order, and the size of its output there.
            let (tx, ty) = swaps ? (sy, sx) : (sx, sy)
            let (w, h) = (Double(stored.extent.width) * tx, Double(stored.extent.height) * ty)
            func whole(_ v: Double) -> Bool { abs(v - v.rounded()) <= 1e-6 * max(1, v) }
            guard whole(w), whole(h), let shrunk = resampler.resampled(storedBase, scaleX: tx, scaleY: ty) else { continue }
            let turn = CGAffineTransform.upright(orientation, width: CGFloat(w.rounded()), height: CGFloat(h.rounded()))
            out.append((node, AffineNode(input: shrunk, transform: turn, mode: .linear)))
            for s in stages { covered.insert(ObjectIdentifier(s)) }
        }
        return out
    }

    /// The same for a source that decodes at any smaller size (`scaledSource`) when no whole
    /// factor fits: decoded at the requested resolution times `scaledDecodeMargin` (rounded
    /// up), when that holds at most half its pixels; the resampling finishes from there.
    private static func scaledDecode(_ node: any DownscaleResampler, base: RecipeNode, source: any DecodeReducible, _ sx: Double, _ sy: Double) -> RecipeNode? {
        let e = source.pixelExtent
        guard !e.isEmpty, e.minX == 0, e.minY == 0 else { return nil }
        let w = min(e.width, max(1, Int((Double(e.width) * sx * scaledDecodeMargin).rounded(.up))))
        let h = min(e.height, max(1, Int((Double(e.height) * sy * scaledDecodeMargin).rounded(.up))))
        guard w * h * 2 <= e.width * e.height, let reduced = scaledChain(base, width: w, height: h) else { return nil }
        return node.resampled(reduced, scaleX: sx * Double(e.width) / Double(w), scaleY: sy * Double(e.height) / Double(h))
    }

    /// The source at the bottom of a chain of one-input nodes (at most 64 deep), or nil.
    private static func leaf(_ node: RecipeNode) -> RecipeNode? {
        var n = node
        for _ in 0..<64 {
            if n.inputs.isEmpty { return n }
            guard n.inputs.count == 1 else { return nil }
            n = n.inputs[0]
        }
        return nil
    }

    /// The chain from `node` down to its source, rebuilt over the source decoded at
    /// 1/`factor`; nil when a node of it cannot follow.
    private static func reducedChain(_ node: RecipeNode, by factor: Int) -> RecipeNode? {
        rebuiltChain(node, depth: 0, source: { ($0 as? any DecodeReducible)?.reducedSource(by: factor) }, over: { $0.reduced(over: $1, by: factor) })
    }

    /// The chain from `node` down to its source, rebuilt over the source decoded at `width` x
    /// `height`; nil when a node of it cannot follow.
    private static func scaledChain(_ node: RecipeNode, width: Int, height: Int) -> RecipeNode? {
        rebuiltChain(node, depth: 0, source: { ($0 as? any DecodeReducible)?.scaledSource(width: width, height: height) }, over: { $0.rescaled(over: $1) })
    }

    /// The chain of one-input nodes from `node` down to its source (at most 64 deep), rebuilt
    /// bottom up: the source replaced by `source(it)`, each node above by `over(it, the
    /// rebuilt input)`; nil when the source or a node of the chain cannot follow.
    private static func rebuiltChain(
        _ node: RecipeNode, depth: Int, source: (RecipeNode) -> RecipeNode?, over: (any GridReducible, RecipeNode) -> RecipeNode?
    ) -> RecipeNode? {
        if node.inputs.isEmpty { return source(node) }
        guard depth < 64, node.inputs.count == 1, let grid = node as? any GridReducible,
            let below = rebuiltChain(node.inputs[0], depth: depth + 1, source: source, over: over)
        else { return nil }
        return over(grid, below)
    }
}
