/// What the planner and the renderer may ask of any node, fixed when the node is made: yes/no
/// and number capabilities, so that they ask instead of checking the node's type. One-class
/// abilities (a file that loads, a resampling that rescales, ...) are opt-in protocols
/// instead (NodeRoles.swift), which only the optimiser and the planner query.
struct NodeTraits: Sendable {
    /// Whether each output pixel reads its inputs at that pixel only (colour stages, crops,
    /// sources): a recipe of such nodes alone runs in wide, short tiles.
    var isPointwise = false

    /// How far around an output pixel the node reads its input, in pixels (a neighbourhood's
    /// radius, a resampler's support): tiles are sized so this border stays a small overhead.
    var halo = 0

    /// Whether recomputing this node per tile is costly enough that a node shared by several
    /// consumers is worth materialising once.
    var isExpensive = false

    /// Whether the node's pixels are data rather than colour (a histogram's bins, k-means
    /// clusters with their weights in alpha): rendered as the root of a render, each
    /// component is written as it is, with no unpremultiplying (an alpha bin of 0 must not
    /// zero the colour bins) and no colour conversion.
    var producesData = false

    /// Whether the planner must always materialise this node (an explicit intermediate).
    var isAlwaysMaterialized = false

    /// Whether one row of the node costs no more than that row's share of a tile (sources
    /// that hold or compute pixels directly): fused colour work then reads it row by row.
    var producesRowsCheaply = false

    /// Bitmaps and materialised pixels: what `RenderStatistics.sourcePixels` counts.
    var isPixelSource = false

    /// Whether the node shows its first input unchanged inside its own extent (a crop, a
    /// sampling mark): readers looking for the bitmap under a recipe may look through it.
    var showsInputUnchanged = false

    /// Whether the context may keep this node's materialised pixels between renders
    /// (`insertingIntermediate(cache: false)` says no).
    var mayBeCached = true

    /// Whether the node's pixels come from one computation over whole inputs (a reduction,
    /// k-means, a distance transform) rather than tile by tile: such a node is a
    /// `WholeResult`, whose `computeWholeResult` the renderer calls once per render, before
    /// the tiles (or on first use); it keeps the block in the render and the context's cache
    /// and serves tiles from it (`evaluate` reads it with `ev.wholeResult(of: self)`).
    var computesWholeResult = false

    /// A source that holds or computes its pixels directly (constant colours, generators).
    static let computedSource = NodeTraits(isPointwise: true, producesRowsCheaply: true)

    /// A source that holds its pixels in memory (bitmaps, planar frames, float blocks).
    static let pixelSource = NodeTraits(isPointwise: true, producesRowsCheaply: true, isPixelSource: true)
}

/// One node of an image recipe. Nodes are immutable after init and shared freely between
/// threads; a `CIImage` is a handle on one.
///
/// The renderer asks a node for the pixels of `rect` (always inside the node's pixel extent:
/// `Evaluator.fill` clips and zero-fills outside it), and asks which rectangle of each input
/// that needs (`inputRect`), so only pixels the output needs are computed. Everything else
/// the planner asks is in `traits`; the optimiser's questions for one kind of node are the
/// protocols of NodeRoles.swift.
class RecipeNode: @unchecked Sendable {
    let extent: CGRect
    let inputs: [RecipeNode]

    /// Integer pixels touched by `extent` (outward rounding).
    let pixelExtent: PixelRect

    /// The node's capabilities, fixed at init.
    let traits: NodeTraits

    init(extent: CGRect, inputs: [RecipeNode], traits: NodeTraits = NodeTraits()) {
        self.extent = extent
        self.inputs = inputs
        self.pixelExtent = PixelRect(covering: extent)
        self.traits = traits
        assert(traits.computesWholeResult == (self is any WholeResult), "\(type(of: self)): computesWholeResult without WholeResult, or the reverse")
    }

    /// Input `index`'s rectangle needed to produce `rect` of this node.
    func inputRect(_ index: Int, for rect: PixelRect) -> PixelRect { rect }

    /// Fills `out` (rect.width x rect.height, rows ascending y) with this node's pixels.
    func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        out.zero()
    }

    /// One line for `CIContext.explain`.
    var label: String { String(describing: type(of: self)) }
}

// MARK: - Sources

/// An infinite image of one colour.
final class ConstantColorNode: RecipeNode, @unchecked Sendable {
    let color: SIMD4<Float>
    /// The colour as given (its own components, premultiplied), for renders without colour
    /// management: an unmanaged context takes a colour's numbers as they are, as Core Image's.
    let unmanagedColor: SIMD4<Float>
    init(color: SIMD4<Float>, unmanaged: SIMD4<Float>? = nil) {
        self.color = color
        self.unmanagedColor = unmanaged ?? color
        super.init(extent: .infinite, inputs: [], traits: .computedSource)
    }
    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        let c = ev.colorManaged ? color : unmanagedColor
        for r in 0..<out.height { out.row(r).update(repeating: c, count: out.width) }
    }
    override var label: String { "constant \(color)" }
}

/// Pixels computed from their coordinates (gradients, patterns, user generators).
protocol GeneratorStage: Sendable {
    /// Writes `count` premultiplied working-space pixels of row `y`, starting at column `x`.
    func generate(_ out: UnsafeMutablePointer<SIMD4<Float>>, count: Int, x: Int, y: Int)
    var label: String { get }
}

final class GeneratorNode: RecipeNode, @unchecked Sendable {
    let stage: any GeneratorStage
    init(stage: any GeneratorStage, extent: CGRect = .infinite) {
        self.stage = stage
        super.init(extent: extent, inputs: [], traits: .computedSource)
    }
    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        for r in 0..<out.height { stage.generate(out.row(r), count: out.width, x: rect.minX, y: rect.minY + r) }
    }
    override var label: String { "generator \(stage.label)" }
}

// MARK: - Geometry and bookkeeping nodes

/// Restricts its input to a rectangle; everything outside is clear.
final class CropNode: RecipeNode, Crop, GridReducible, @unchecked Sendable {
    init(input: RecipeNode, rect: CGRect) {
        let pr = PixelRect(covering: rect)
        let e = input.extent.isInfinite ? pr.cgRect : input.extent.intersection(pr.cgRect)
        super.init(extent: e.isNull ? .zero : e, inputs: [input], traits: NodeTraits(isPointwise: true, showsInputUnchanged: true))
    }
    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        ev.fill(inputs[0], rect, out)
    }
    func reduced(over input: RecipeNode, by factor: Int) -> RecipeNode? {
        guard let r = pixelExtent.reduced(by: factor), r.cgRect == extent else { return nil }
        return CropNode(input: input, rect: r.cgRect)
    }
    func rescaled(over input: RecipeNode) -> RecipeNode? {
        extent == inputs[0].extent ? CropNode(input: input, rect: input.extent) : nil
    }
    override var label: String { "crop to \(pixelExtent)" }
}

/// How transforms and warps read their input between pixel centres.
public enum SamplingMode: Sendable {
    /// Bilinear: a weighted mix of the four nearest pixels (the default).
    case linear
    /// Nearest neighbour: the pixel the point falls in (hard edges, no new colours).
    case nearest
}

/// Marks its input's sampling mode for the transforms applied after it.
final class SamplingNode: RecipeNode, SamplingMark, GridReducible, @unchecked Sendable {
    let mode: SamplingMode
    init(input: RecipeNode, mode: SamplingMode) {
        self.mode = mode
        super.init(extent: input.extent, inputs: [input], traits: NodeTraits(isPointwise: true, showsInputUnchanged: true))
    }
    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) { ev.fill(inputs[0], rect, out) }
    var samplingMode: SamplingMode { mode }
    func reduced(over input: RecipeNode, by factor: Int) -> RecipeNode? { SamplingNode(input: input, mode: mode) }
    func rescaled(over input: RecipeNode) -> RecipeNode? { SamplingNode(input: input, mode: mode) }
    override var label: String { "sampling \(mode)" }
}

/// Materialise the input once per render (or once per context with caching) and read tiles
/// from memory: for shared sub-graphs and expensive inputs read many times.
final class IntermediateNode: RecipeNode, @unchecked Sendable {
    let cacheable: Bool
    init(input: RecipeNode, cacheable: Bool) {
        self.cacheable = cacheable
        super.init(extent: input.extent, inputs: [input], traits: NodeTraits(isAlwaysMaterialized: true, mayBeCached: cacheable))
    }
    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) { ev.fill(inputs[0], rect, out) }
    override var label: String { "intermediate" + (cacheable ? " (cached)" : "") }
}

extension RecipeNode {
    /// Evaluates `rect` as up to four quarters, each through `evaluate` again: how resampling
    /// nodes keep a tile whose source points spread far (a strong reduction, a twist's
    /// centre, a large cell) from reading one huge block. A single pixel reads at most 2x2.
    func evaluateInQuarters(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        let hw = max(1, rect.width / 2), hh = max(1, rect.height / 2)
        for (x0, x1) in [(rect.minX, rect.minX + hw), (rect.minX + hw, rect.maxX)] where x1 > x0 {
            for (y0, y1) in [(rect.minY, rect.minY + hh), (rect.minY + hh, rect.maxY)] where y1 > y0 {
                let sub = PixelRect(minX: x0, minY: y0, maxX: x1, maxY: y1)
                evaluate(sub, into: out.view(x: x0 - rect.minX, y: y0 - rect.minY, width: sub.width, height: sub.height), ev)
            }
        }
    }
}
