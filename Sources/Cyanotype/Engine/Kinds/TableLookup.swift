// The table-lookup kind: per-pixel work that also reads a small second image whole (a
// gradient to map through, a palette, statistics from a reduction).

/// Per-pixel work reading a small table image whole: all a table filter supplies.
///
/// To add one, write a struct conforming to this in the filter's file and build
/// `TableLookupNode(input: image.node, table: table.node, stage: MyStage(...), extent: image.extent)`.
protocol TableStage: Sendable {
    /// Transforms the premultiplied pixels of `tile` (at `origin`) in place; `table` holds the
    /// table image. Called once per tile, so per-table set-up is paid once per tile.
    func run(_ tile: TileBuffer, origin: (x: Int, y: Int), table: TileBuffer)
    /// One line for `CIContext.explain`.
    var label: String { get }
}

/// The table-lookup kind: applies a `TableStage` to its first input, reading the second
/// (small, finite) input whole for every tile. The stage is called once per tile.
final class TableLookupNode: RecipeNode, @unchecked Sendable {
    let stage: any TableStage
    init(input: RecipeNode, table: RecipeNode, stage: any TableStage, extent: CGRect) {
        self.stage = stage
        super.init(extent: extent, inputs: [input, table])
    }
    override func inputRect(_ index: Int, for rect: PixelRect) -> PixelRect { index == 0 ? rect : inputs[1].pixelExtent }
    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        ev.fill(inputs[0], rect, out)
        let t = PixelBlock(rect: inputs[1].pixelExtent)
        ev.fill(inputs[1], t.rect, t.buffer)
        stage.run(out, origin: (rect.minX, rect.minY), table: t.buffer)
    }
    override var label: String { "table lookup \(stage.label)" }
}
