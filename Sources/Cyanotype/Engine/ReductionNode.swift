import Foundation

/// The maths of one reduction (an area's average, a histogram, ...), apart from its schedule.
///
/// The renderer splits the input region into tiles, gives each worker its own partial (a run
/// of `partialCount` Doubles), calls `accumulate` once per tile row, merges the workers'
/// partials in a fixed order and asks `finish` for the small output image. Results are the
/// same bytes whatever the tiling or the number of cores, as the assignment of tiles to
/// workers and the merge order are fixed.
protocol Reduction: Sendable {
    /// Size of the result image in pixels; its extent is `[0, 0, width, height]`.
    var outputWidth: Int { get }
    var outputHeight: Int { get }
    /// Doubles per partial result, for `region` (the pixels reduced).
    func partialCount(_ region: PixelRect) -> Int
    /// Sets a fresh partial (sums start at 0; minima at +inf, ...).
    func initialize(_ p: UnsafeMutablePointer<Double>, _ region: PixelRect)
    /// Folds `count` premultiplied working-space pixels of row `y`, from column `x`, into `p`.
    func accumulate(_ row: UnsafePointer<SIMD4<Float>>, count: Int, x: Int, y: Int, region: PixelRect, into p: UnsafeMutablePointer<Double>)
    /// Folds a whole tile (rows ascending y from `y`); the default calls `accumulate` per row.
    /// Reductions override it to keep per-tile scratch state (integer histogram counters).
    func accumulateTile(_ tile: TileBuffer, x: Int, y: Int, region: PixelRect, into p: UnsafeMutablePointer<Double>)
    /// `into = into (op) other`, element by element.
    func merge(_ into: UnsafeMutablePointer<Double>, _ other: UnsafePointer<Double>, _ region: PixelRect)
    /// The output pixels, `outputWidth * outputHeight`, bottom row first.
    func finish(_ p: UnsafePointer<Double>, region: PixelRect) -> [SIMD4<Float>]
    /// Small images the reduction needs whole before it starts (a palette, say), as extra
    /// node inputs after the reduced image; the default needs none.
    func prepared(with auxiliary: [PixelBlock]) -> Self
    /// A reader that folds tiles of `bitmap` (the image under the reduction, unchanged over
    /// the region) straight from its memory, giving the partial `accumulateTile` would give
    /// for the evaluated tile; nil (the default) reads float tiles.
    func directReader(_ bitmap: BitmapNode, _ ev: Evaluator) -> (any DirectTileReader)?
    /// Whether the result is data whose alpha is not coverage (a histogram's alpha bins):
    /// see `NodeTraits.producesData`. The default is false (averages, extremes: colours).
    var producesData: Bool { get }
    var label: String { get }
}

/// Folds the pixels of a rectangle of a source straight from its memory (see
/// `Reduction.directReader`).
protocol DirectTileReader: Sendable {
    /// Folds the pixels of `rect` (inside the source) into `p`.
    func accumulate(_ rect: PixelRect, region: PixelRect, into p: UnsafeMutablePointer<Double>)
}

extension Reduction {
    func accumulateTile(_ tile: TileBuffer, x: Int, y: Int, region: PixelRect, into p: UnsafeMutablePointer<Double>) {
        for row in 0..<tile.height {
            accumulate(UnsafePointer(tile.row(row)), count: tile.width, x: x, y: y + row, region: region, into: p)
        }
    }
    func initialize(_ p: UnsafeMutablePointer<Double>, _ region: PixelRect) {
        p.update(repeating: 0, count: partialCount(region))
    }
    func merge(_ into: UnsafeMutablePointer<Double>, _ other: UnsafePointer<Double>, _ region: PixelRect) {
        for i in 0..<partialCount(region) { into[i] += other[i] }
    }
    func prepared(with auxiliary: [PixelBlock]) -> Self { self }
    func directReader(_ bitmap: BitmapNode, _ ev: Evaluator) -> (any DirectTileReader)? { nil }
    var producesData: Bool { false }
}

/// Computes a `Reduction` of its first input over `region` (Core Image's `inputExtent`) as a
/// whole result: once per render (kept by the render and the context's cache, never by the
/// node), input tiles evaluated in parallel on the render's executor, each worker with its
/// own partial in Double.
final class ReductionNode: RecipeNode, WholeResult, @unchecked Sendable {
    let reduction: any Reduction
    /// The input pixels reduced (clipped to the input's extent when evaluated).
    let region: PixelRect

    init(input: RecipeNode, auxiliary: [RecipeNode] = [], region: PixelRect, reduction: any Reduction) {
        self.reduction = reduction
        self.region = region
        super.init(
            extent: CGRect(x: 0, y: 0, width: reduction.outputWidth, height: reduction.outputHeight), inputs: [input] + auxiliary,
            traits: NodeTraits(isExpensive: true, producesData: reduction.producesData, computesWholeResult: true))
    }

    override func inputRect(_ index: Int, for rect: PixelRect) -> PixelRect {
        index == 0 ? region : inputs[index].pixelExtent.intersection(PixelRect(x: -4096, y: -4096, width: 8192, height: 8192))
    }
    /// The whole result over the node's extent, bottom row first.
    func computeWholeResult(_ ev: Evaluator) -> PixelBlock {
        let aux = inputs.dropFirst().map { ev.wholeImage($0) }
        let values = runReduction(reduction.prepared(with: aux), input: inputs[0], region: region, ev)
        let block = PixelBlock(rect: pixelExtent, zeroed: true)
        values.withUnsafeBufferPointer { v in
            if let p = v.baseAddress { block.pixels.update(from: p, count: min(v.count, pixelExtent.area)) }
        }
        return block
    }

    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        ev.wholeResult(of: self).copy(rect, into: out)
    }
    override var label: String { "reduction \(reduction.label) over \(region)" }
}

/// Reduction tiles: wide and short, so each is a few rows of cache-resident pixels.
let reductionTileWidth = 1024, reductionTileHeight = 32

/// Runs `reduction` over `region` of `input`: tiles dealt round-robin to a fixed number of
/// partials, each accumulated by whichever thread picks it up, merged in partial order (so
/// results do not depend on scheduling). Four partials per core let a core that starts late
/// or is busy elsewhere take fewer (one per core left a core idle half the time in perf).
///
/// When the input is a bitmap shown unchanged over the region and the reduction has a direct
/// reader for it, tiles are read straight from the bitmap's memory instead (no float tiles),
/// in whole rows of the region (up to 8192 pixels) about 128 K pixels a tile.
func runReduction(_ reduction: any Reduction, input: RecipeNode, region requested: PixelRect, _ ev: Evaluator) -> [SIMD4<Float>] {
    let region = requested
    let n = reduction.partialCount(region)
    let direct = region.isEmpty ? nil : ev.bitmapSource(input, covering: region).flatMap { reduction.directReader($0, ev) }
    let tileWidth = direct == nil ? reductionTileWidth : min(region.width, 8192)
    let tileHeight = direct == nil ? reductionTileHeight : max(1, (1 << 17) / max(1, tileWidth))
    let cols = max(1, (region.width + tileWidth - 1) / tileWidth)
    let rows = max(1, (region.height + tileHeight - 1) / tileHeight)
    let tiles = region.isEmpty ? 0 : cols * rows
    let workers = max(1, min(tiles, 4 * ev.executor.width))
    let partials = UnsafeMutablePointer<Double>.allocate(capacity: max(1, n * workers))
    defer { partials.deallocate() }
    for w in 0..<workers { reduction.initialize(partials + w * n, region) }
    let shared = SendablePointer(partials)
    if direct != nil { ev.count { $0.sourcePixels += region.area } }
    let body: @Sendable (Int) -> Void = { w in
        let scratch = direct != nil ? nil : PixelBlock(rect: PixelRect(x: 0, y: 0, width: min(tileWidth, region.width), height: min(tileHeight, region.height)))
        var t = w
        while t < tiles {
            let c = t % cols, r = t / cols
            let x0 = region.minX + c * tileWidth, y0 = region.minY + r * tileHeight
            let tr = PixelRect(minX: x0, minY: y0, maxX: min(x0 + tileWidth, region.maxX), maxY: min(y0 + tileHeight, region.maxY))
            if let direct {
                direct.accumulate(tr, region: region, into: shared.p + w * n)
            } else if let scratch {
                let buf = TileBuffer(base: scratch.pixels, width: tr.width, height: tr.height, rowStride: tr.width)
                ev.fill(input, tr, buf)
                reduction.accumulateTile(buf, x: tr.minX, y: tr.minY, region: region, into: shared.p + w * n)
            }
            t += workers
        }
    }
    ev.executor.parallelFor(workers, body)
    for w in 1..<workers { reduction.merge(partials, partials + w * n, region) }
    return reduction.finish(partials, region: region)
}

/// A raw pointer handed to worker closures; each worker writes only its own range.
struct SendablePointer<T>: @unchecked Sendable {
    let p: UnsafeMutablePointer<T>
    init(_ p: UnsafeMutablePointer<T>) { self.p = p }
}

/// A node computed from its input's whole region at once (a distance transform, k-means): the
/// input is read once per render, the result kept by the render (and the context's cache) as
/// a whole result, and tiles copied out of it.
final class WholeImageNode: RecipeNode, WholeResult, @unchecked Sendable {
    /// Turns the input pixels over `region` into the output block covering `outputRect`.
    /// `auxiliary` holds the other inputs' whole images; parallel loops run on `executor`.
    typealias Compute = @Sendable (_ input: PixelBlock, _ auxiliary: [PixelBlock], _ executor: Executor) -> PixelBlock
    let region: PixelRect
    let compute: Compute
    let name: String
    /// See `NodeTraits.producesData`.
    let isData: Bool

    init(
        input: RecipeNode, auxiliary: [RecipeNode] = [], region: PixelRect, extent: CGRect, name: String, isData: Bool = false,
        computeWith compute: @escaping Compute
    ) {
        self.region = region
        self.compute = compute
        self.name = name
        self.isData = isData
        super.init(
            extent: extent, inputs: [input] + auxiliary,
            traits: NodeTraits(isExpensive: true, producesData: isData, computesWholeResult: true))
    }
    /// A computation that runs on one thread.
    convenience init(
        input: RecipeNode, auxiliary: [RecipeNode] = [], region: PixelRect, extent: CGRect, name: String,
        compute: @escaping @Sendable (_ input: PixelBlock, _ auxiliary: [PixelBlock]) -> PixelBlock
    ) {
        self.init(input: input, auxiliary: auxiliary, region: region, extent: extent, name: name, computeWith: { block, aux, _ in compute(block, aux) })
    }
    override func inputRect(_ index: Int, for rect: PixelRect) -> PixelRect {
        index == 0 ? region : inputs[index].pixelExtent.intersection(PixelRect(x: -4096, y: -4096, width: 8192, height: 8192))
    }
    func computeWholeResult(_ ev: Evaluator) -> PixelBlock {
        compute(ev.materialize(inputs[0], region), inputs.dropFirst().map { ev.wholeImage($0) }, ev.executor)
    }
    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        ev.wholeResult(of: self).copy(rect, into: out)
    }
    override var label: String { "\(name) over \(region)" }
}
