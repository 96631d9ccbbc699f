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
/// rectangle grown by the operation's reach (rows ascending y, clear outside the input).
struct NeighbourhoodInput {
    /// The output rectangle.
    let rect: PixelRect
    /// The input pixels of `rect` grown by `reach`.
    let pixels: TileBuffer
    let reach: NeighbourhoodReach

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
protocol NeighbourhoodOperation: Sendable {
    /// How far each output pixel reads.
    var reach: NeighbourhoodReach { get }
    /// The output extent for the input's (default: the input's).
    func extent(of input: CGRect) -> CGRect
    /// Writes the output pixels of `input.rect` into `out` (rows ascending y).
    func apply(_ input: NeighbourhoodInput, into out: TileBuffer)
    /// One line for `CIContext.explain`.
    var label: String { get }
}

extension NeighbourhoodOperation {
    func extent(of input: CGRect) -> CGRect { input }
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
/// outside the input) and hands it to the operation.
final class NeighbourhoodNode<Operation: NeighbourhoodOperation>: RecipeNode, @unchecked Sendable {
    let operation: Operation

    init(input: RecipeNode, operation: Operation) {
        self.operation = operation
        super.init(extent: operation.extent(of: input.extent), inputs: [input])
    }

    override var halo: Int { operation.reach.maximum }
    override var isExpensive: Bool { true }

    override func inputRect(_ index: Int, for rect: PixelRect) -> PixelRect { operation.reach.grow(rect) }

    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        let reach = operation.reach
        let src = reach.grow(rect)
        let block = PixelBlock(rect: src)
        ev.fill(inputs[0], src, block.buffer)
        operation.apply(NeighbourhoodInput(rect: rect, pixels: block.buffer, reach: reach), into: out)
    }

    override var label: String { operation.label }
}
