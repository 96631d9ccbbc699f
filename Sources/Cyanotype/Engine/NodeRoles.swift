// What one kind of node can do beyond `RecipeNode` and its `NodeTraits`: opt-in protocols,
// each adopted by the few nodes that have the ability. The optimiser (and the planner) ask
// `node as? any FileSource` and the like; nothing else in the engine names a node class.

/// A source that stands for other pixels once loaded (a file and its decoded bitmap).
protocol FileSource: RecipeNode {
    /// Loads the pixels and returns the node to render in this one's place. The optimiser
    /// asks before a render; errors stop the render. `forOneRender`: the render passes over
    /// the pixels once, top down, and may give their memory back as it goes, so a source
    /// that decodes on a thread may give it a decode of its own.
    func loadedSource(forOneRender: Bool) throws -> RecipeNode
}

/// A JPEG file source that can give its Y'CbCr planes instead of pixels: what the
/// optimiser's `recodedPlanes` asks for when the file is written as JPEG unchanged.
protocol PlanarJPEGSource: RecipeNode {
    /// The file's planes, turned upright for its orientation when decoded; nil when it has none.
    var storedPlanes: StoredJPEGPlanes? { get }
    /// Whether the source's pixels have been decoded already (then they are used instead).
    var isLoaded: Bool { get }
}

/// A source that can decode at a fraction of its size (JPEG in the IDCT, WebP's scaled
/// decoder): what the optimiser's `reduceDecodes` asks for.
protocol DecodeReducible: RecipeNode {
    /// The largest reduction factor (2, 4, 8) whose decode still covers `scaleX` x `scaleY`
    /// of its resolution (factor * scale <= 1 on both axes); 1 when none does.
    func decodeReduction(covering scaleX: Double, _ scaleY: Double) -> Int

    /// The source decoded at 1/`factor` per axis (a factor up to the one `decodeReduction`
    /// gave, a power of two), its extent this one's divided by `factor`.
    func reducedSource(by factor: Int) -> RecipeNode?

    /// For a source that decodes at any smaller size (WebP's scaled decoder): the source
    /// decoded at `width` x `height`, its extent (0, 0, width, height); nil when it cannot.
    func scaledSource(width: Int, height: Int) -> RecipeNode?
}

extension DecodeReducible {
    /// Decoders that only reduce by whole factors decode at no other size.
    func scaledSource(width: Int, height: Int) -> RecipeNode? { nil }
}

/// A file source shown upright from an EXIF orientation that reorders its rows (3 to 8),
/// which can also give its pixels as the file stores them: what the optimiser's
/// `commuteOrientations` asks for, to shrink in stored order and turn the small result.
protocol StoredOrderSource: RecipeNode {
    /// The EXIF orientation (3...8) this source applies, and the same file in stored order
    /// (orientation 1, its extent at the origin); nil when it has none to give.
    var storedOrder: (orientation: Int, source: RecipeNode)? { get }
}

/// A node that only moves, clips or extends its one input's pixels (crops, clamps, sampling
/// marks, whole-pixel orientations), so it can be rebuilt over that input decoded small.
protocol GridReducible: RecipeNode {
    /// The same node over `input`, which is this node's input at 1/`factor` of its
    /// resolution; nil when its geometry does not fall on that coarser grid.
    func reduced(over input: RecipeNode, by factor: Int) -> RecipeNode?

    /// For a node that only clips to or extends its one input's whole extent (or marks its
    /// sampling): the same node over `input`, a rescaled copy of that input; nil otherwise.
    func rescaled(over input: RecipeNode) -> RecipeNode?
}

extension GridReducible {
    /// Nodes whose geometry names pixel positions cannot follow a rescaled input.
    func rescaled(over input: RecipeNode) -> RecipeNode? { nil }
}

/// A downscaling resampling that filters (a weighted sum, not a maximum).
protocol DownscaleResampler: RecipeNode {
    /// Its scale; nil when it does not filter (then it is no downscale to rescale).
    var resamplingScale: (x: Double, y: Double)? { get }

    /// The same resampling (kernel, staging) of `input` by another scale.
    func resampled(_ input: RecipeNode, scaleX: Double, scaleY: Double) -> RecipeNode?

    /// The kernel it resamples with.
    var resamplingKernel: any ResamplingKernel { get }
}

extension DownscaleResampler {
    /// Whether `other` resamples with the same kernel (stages of one reduction, rescaled
    /// together).
    func resamplesAlike(_ other: any DownscaleResampler) -> Bool { resamplingKernel.isEqual(to: other.resamplingKernel) }
}

extension ResamplingKernel {
    /// Whether `other` is this kernel: the same type and an equal value.
    func isEqual(to other: any ResamplingKernel) -> Bool { (other as? Self) == self }
}

/// A node holding its pixels in memory as stored (a bitmap), possibly still decoding.
protocol StoredPixels: RecipeNode {
    /// The stored pixels, when they read as they are stored (no orientation to apply): what
    /// pass-through copies and reductions reading 8-bit codes use instead of rendered tiles.
    var storedBitmap: BitmapNode? { get }

    /// The gate of a decode that fills the rows on a thread alongside the render; nil when
    /// every row is there.
    var rowGate: RowGate? { get }
}

extension StoredPixels {
    /// An error from the decode that ran alongside the render, reported once the tiles are
    /// done.
    var deferredError: (any Error)? { rowGate?.error }
}

/// A source that holds sRGB-encoded colour (an 8/16-bit sRGB bitmap, a video frame's R'G'B').
protocol SRGBEncodedSource: RecipeNode {
    /// The same pixels read as those encoded values, which is what a "to sRGB" conversion
    /// after it gives, without decoding and re-encoding the curve. The optimiser folds such a
    /// conversion into the read (`foldSRGBIntoRead`); nil when the node cannot.
    func sRGBEncodedSource() -> RecipeNode?
}

/// A node whose pixels come from one computation over whole inputs (`NodeTraits`'s
/// `computesWholeResult`, which such a node sets).
protocol WholeResult: RecipeNode {
    /// The whole result; parallel work goes through `ev.executor`.
    func computeWholeResult(_ ev: Evaluator) -> PixelBlock
}

/// A node that extends its one input's outermost pixels (of a rectangle) outward without end.
protocol RegionClamp: RecipeNode {
    /// That rectangle. A reader of single rows may clamp its coordinates into it and read the
    /// input instead (the resampling kind does).
    var clampedRegion: PixelRect { get }
}

/// A mark of how transforms after it sample (`samplingNearest()`); it shows its input
/// unchanged.
protocol SamplingMark: RecipeNode {
    /// That mode.
    var samplingMode: SamplingMode { get }
}

/// A crop: its one input, clipped to its extent, clear outside.
protocol Crop: RecipeNode {}

/// An affine transform of its one input.
protocol Affine: RecipeNode {
    /// The transform, from input to output coordinates.
    var transform: CGAffineTransform { get }
    /// How it samples between pixel centres.
    var mode: SamplingMode { get }
}

/// One colour stage over its first input, pixel by pixel (its other inputs are read at the
/// same pixel): what the optimiser fuses into runs.
protocol ColorKernel: RecipeNode {
    /// The stage.
    var stage: any ColorStage { get }
}

/// A run of colour stages over one head, rendered in one pass per row.
protocol ColorRun: RecipeNode {
    /// The node the run reads.
    var head: RecipeNode { get }
    /// The stages, first to last, each with the extra inputs it reads.
    var steps: [FusedColorNode.Step] { get }
}
