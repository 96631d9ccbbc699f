// The neighbourhood kind: each output pixel is computed from the input pixels within a fixed
// reach of it (convolutions, blurs, rank filters, edge detectors). The filter supplies the
// operation; the node reads each tile's input with the halo the operation asks for, and the
// renderer sizes tiles so the halo stays a small overhead.

/// How far a neighbourhood operation reads around each output pixel, in pixels, per side
/// (Core Image's y-up coordinates: `below` is towards smaller y).
struct NeighbourhoodReach: Sendable, Equatable {
    var left: Int, right: Int, below: Int, above: Int

    init(left: Int, right: Int, below: Int, above: Int) {
        self.left = left; self.right = right; self.below = below; self.above = above
    }
    /// The same reach on every side.
    init(_ r: Int) { self.init(left: r, right: r, below: r, above: r) }

    /// The largest of the four.
    var maximum: Int { max(left, right, below, above) }

    /// `rect` grown by the reach: the input pixels its output pixels read.
    func grow(_ rect: PixelRect) -> PixelRect {
        PixelRect(minX: rect.minX - left, minY: rect.minY - below, maxX: rect.maxX + right, maxY: rect.maxY + above)
    }
}

/// The input of one tile of a neighbourhood operation: the input pixels over the output
/// rectangle grown by the operation's reach (rows ascending y, clear outside the input), and
/// the pixels of any auxiliary images over the rectangles the operation asked for.
struct NeighbourhoodInput {
    /// The output rectangle.
    let rect: PixelRect
    /// The input pixels of `rect` grown by `reach`: the operation's own for this tile (it
    /// may overwrite them), with one more row of scratch before the first
    /// (`pixels.row(-1)`), so a separable pass can write each row's horizontal result one row
    /// down, in place, instead of into a second block. Rows start an odd number of cache
    /// lines apart (`PixelBlock.spreadRowStride`).
    let pixels: TileBuffer
    let reach: NeighbourhoodReach
    /// The auxiliary images' pixels (`auxiliary[0]` is the node's input 1), each over its
    /// `auxiliaryRect` for `rect` (`PixelBlock.rect` says which), clear outside its image.
    var auxiliary: [PixelBlock] = []

    /// The absolute column of `pixels`' first column.
    var originX: Int { rect.minX - reach.left }
    /// The absolute row of `pixels`' first row.
    var originY: Int { rect.minY - reach.below }

    /// Pixels from one input row to the next (the row above, at y + 1).
    var rowStride: Int { pixels.rowStride }
    /// The input pixel under output pixel (0, `row`): its neighbours are at `± k` (columns)
    /// and `± k * rowStride` (rows).
    @inline(__always) func centre(_ row: Int) -> UnsafeMutablePointer<SIMD4<Float>> {
        pixels.row(row + reach.below) + reach.left
    }
}

/// A neighbourhood filter's maths: its reach and what it computes from the pixels within
/// it. This is all a neighbourhood filter supplies; ``NeighbourhoodNode`` does the halo, the
/// tiling and the region of interest.
///
/// To add one, write a struct conforming to this (or to ``NeighbourhoodRowOperation`` when
/// each output row is computed on its own) in the filter's file under `Filters/`, and build
/// `NeighbourhoodNode(input: image.node, operation: MyOperation(...))`. The node calls `apply`
/// once per tile; as a requirement of a concrete struct it runs specialised (make operations
/// concrete structs, not generic ones). Loop over whole rows with pointers, never a call per
/// pixel.
///
/// An operation that also reads other images (a mask, a guide, a small image to upsample)
/// says how many (`auxiliaryCount`) and which rectangle of each a tile reads
/// (`auxiliaryRect`); they are the node's inputs after the first
/// (`NeighbourhoodNode(input:auxiliary:operation:)`), and `apply` finds their pixels in
/// `NeighbourhoodInput.auxiliary`.
protocol NeighbourhoodOperation: Sendable {
    /// How far each output pixel reads.
    var reach: NeighbourhoodReach { get }
    /// The output extent for the input's (default: the input's).
    func extent(of input: CGRect) -> CGRect
    /// Images besides the main one that the operation reads: the node's inputs
    /// 1...auxiliaryCount (default none).
    static var auxiliaryCount: Int { get }
    /// The rectangle of auxiliary input `index` (1...) that the tile `rect` reads (default:
    /// `rect` grown by the reach).
    func auxiliaryRect(_ index: Int, for rect: PixelRect) -> PixelRect
    /// The rectangle of the main input that the tile `rect` reads (default: `rect` grown by
    /// the reach). An operation whose reads are no fixed reach (a user kernel's ROI callback)
    /// states it; `NeighbourhoodInput.reach` is then how far that rectangle reaches past the
    /// tile on each side.
    func inputRect(for rect: PixelRect) -> PixelRect
    /// How many auxiliary images this operation reads (default `auxiliaryCount`): for an
    /// operation whose count is known only when it is made (a user kernel's images).
    var auxiliaryImageCount: Int { get }
    /// Writes the output pixels of `input.rect` into `out` (rows ascending y).
    func apply(_ input: NeighbourhoodInput, into out: TileBuffer)
    /// One line for `CIContext.explain`.
    var label: String { get }
}

extension NeighbourhoodOperation {
    func extent(of input: CGRect) -> CGRect { input }
    static var auxiliaryCount: Int { 0 }
    func auxiliaryRect(_ index: Int, for rect: PixelRect) -> PixelRect { reach.grow(rect) }
    func inputRect(for rect: PixelRect) -> PixelRect { reach.grow(rect) }
    var auxiliaryImageCount: Int { Self.auxiliaryCount }
}

/// A neighbourhood operation computed one output row at a time.
protocol NeighbourhoodRowOperation: NeighbourhoodOperation {
    /// Writes `count` output pixels from the input row under them: `centre` is the input pixel
    /// under the first output pixel, the row above starts at `centre + stride`.
    func run(_ centre: UnsafeMutablePointer<SIMD4<Float>>, stride: Int, into out: UnsafeMutablePointer<SIMD4<Float>>, count: Int)
}

extension NeighbourhoodRowOperation {
    func apply(_ input: NeighbourhoodInput, into out: TileBuffer) {
        for r in 0..<out.height { run(input.centre(r), stride: input.rowStride, into: out.row(r), count: out.width) }
    }
}

/// The neighbourhood kind: reads each tile's input grown by the operation's reach (clear
/// outside the input), and each auxiliary input over the rectangle the operation asks for,
/// and hands them to the operation.
final class NeighbourhoodNode<Operation: NeighbourhoodOperation>: RecipeNode, @unchecked Sendable {
    let operation: Operation

    /// `auxiliary` are the other images the operation reads (`auxiliaryImageCount` of them).
    init(input: RecipeNode, auxiliary: [RecipeNode] = [], operation: Operation) {
        precondition(
            auxiliary.count == operation.auxiliaryImageCount, "a neighbourhood operation reads \(operation.auxiliaryImageCount) auxiliary images")
        self.operation = operation
        super.init(
            extent: operation.extent(of: input.extent), inputs: [input] + auxiliary,
            traits: NodeTraits(halo: operation.reach.maximum, isExpensive: true))
    }

    override func inputRect(_ index: Int, for rect: PixelRect) -> PixelRect {
        index == 0 ? operation.inputRect(for: rect) : operation.auxiliaryRect(index, for: rect)
    }

    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        let src = operation.inputRect(for: rect)
        // How far the pixels read reach past the tile (the operation's reach, unless it
        // states its input rectangle otherwise).
        let reach = NeighbourhoodReach(left: rect.minX - src.minX, right: src.maxX - rect.maxX, below: rect.minY - src.minY, above: src.maxY - rect.maxY)
        // One spare row before the input (see `NeighbourhoodInput.pixels`).
        let block = PixelBlock(
            rect: PixelRect(minX: src.minX, minY: src.minY - 1, maxX: src.maxX, maxY: src.maxY),
            rowStride: PixelBlock.spreadRowStride(forWidth: src.width))
        let pixels = block.view(src)
        if !src.isEmpty { ev.fill(inputs[0], src, pixels) }
        var input = NeighbourhoodInput(rect: rect, pixels: pixels, reach: reach)
        let count = operation.auxiliaryImageCount
        if count > 0 {
            input.auxiliary = (1...count).map { i -> PixelBlock in
                let r = operation.auxiliaryRect(i, for: rect)
                let b = PixelBlock(rect: r)
                if !r.isEmpty { ev.fill(inputs[i], r, b.buffer) }
                return b
            }
        }
        operation.apply(input, into: out)
    }

    override var label: String { operation.label }
}
