/// A recipe after the optimiser: the root to render, the destination to render into, and for
/// every node a rewrite replaced, the node that renders in its place.
///
/// Nodes are immutable and a rewrite does not copy the parents of the node it replaces: the
/// evaluator, the plan and `explain` read every input through `resolve`. Nodes the optimiser
/// makes are built from resolved inputs already.
final class OptimizedRecipe: @unchecked Sendable {
    let root: RecipeNode
    /// The destination after the rewrites (its conversion may have been folded into the
    /// root); nil when the render has none (reductions read into working-space memory).
    let destination: (any RenderDestination)?
    private let replacements: [ObjectIdentifier: RecipeNode]
    /// Nodes the optimiser made, mapped to the recipe node they stand for: the key under
    /// which the context caches their pixels, the same in every render.
    private let origins: [ObjectIdentifier: RecipeNode]

    init(
        root: RecipeNode, destination: (any RenderDestination)?, replacements: [ObjectIdentifier: RecipeNode],
        origins: [ObjectIdentifier: RecipeNode]
    ) {
        self.root = root
        self.destination = destination
        self.replacements = replacements
        self.origins = origins
    }

    /// The same rewrites with `root` rendered instead (a node of this recipe, resolved).
    func rooted(at root: RecipeNode) -> OptimizedRecipe {
        OptimizedRecipe(root: root, destination: destination, replacements: replacements, origins: origins)
    }

    /// A recipe rendered as built, without rewrites.
    convenience init(unoptimized root: RecipeNode) {
        self.init(root: root, destination: nil, replacements: [:], origins: [:])
    }

    /// The destination after the rewrites, when it is a bitmap writer.
    var writer: DestinationWriter? { destination as? DestinationWriter }

    /// The node that renders in place of `node`.
    @inline(__always) func resolve(_ node: RecipeNode) -> RecipeNode {
        if replacements.isEmpty { return node }
        return replacements[ObjectIdentifier(node)] ?? node
    }

    /// `node`'s inputs as rendered.
    func inputs(of node: RecipeNode) -> [RecipeNode] { node.inputs.map(resolve) }

    /// The recipe node whose pixels `node` renders: the cache key.
    func cacheKey(_ node: RecipeNode) -> RecipeNode { origins[ObjectIdentifier(node)] ?? node }

    /// The bitmap that `node` shows unchanged over all of `region`, looking through crops and
    /// sampling marks; nil when anything else stands between them or the region reaches
    /// outside any of them (pixels there are clear, not the bitmap's). Rows still decoding
    /// are waited for; a failed decode gives nil (the tile path then leaves its pixels clear
    /// and the render reports the error).
    func bitmapSource(_ node: RecipeNode, covering region: PixelRect) -> BitmapNode? {
        var n = resolve(node)
        while n.pixelExtent.contains(region) {
            if let b = (n as? any StoredPixels)?.storedBitmap {
                if let gate = b.gate, (try? gate.waitAll()) == nil { return nil }
                // A bitmap placed at a fractional origin covers one pixel more than it holds.
                return b.pixelExtent.width == b.width && b.pixelExtent.height == b.height ? b : nil
            }
            guard n.traits.showsInputUnchanged else { return nil }
            n = resolve(n.inputs[0])
        }
        return nil
    }
}

/// The bitmap `node` shows unchanged over `region` once optimised (file sources decoded).
func bitmapSource(_ node: RecipeNode, covering region: PixelRect) -> BitmapNode? {
    guard let recipe = try? Optimizer.optimize(node) else { return nil }
    return recipe.bitmapSource(recipe.root, covering: region)
}

/// The one rewrite pass. It runs at render time (once per render, and for `explain`) over the
/// recipe as the builders made it (`CIImage` methods and filters build plain nodes), from the
/// sources up, memoised by node identity, so a shared node is rewritten once.
///
/// First, from the root down, `reduceDecodes` (0., in DecodeReduction.swift): a downscale over
/// a file that decodes small reads it small; then
///   1. `commuteOrientations` (in DecodeReduction.swift): a downscale over a file turned
///      upright from its EXIF orientation shrinks it in stored order and turns the result.
/// Each node is offered to the node rewrites in this order; the first that applies replaces it:
///   2. `loadSource`: a file source stands for its decoded pixels.
///   3. `mergeCrops`: a crop of a crop is one crop.
///   4. `mergeTransforms`: a transform of a transform with the same sampling is one
///      resampling (or nothing, when they cancel).
///   5. `fuseColorStages`: a colour kernel over a run of colour stages of the same extent
///      joins the run, which renders in one pass per row; within it
///      6. `cancelConversions`: a colour conversion right after its inverse: both go, and
///      7. `foldMatrices`: neighbouring colour matrices fold into one.
/// Then, at the root, for the destination (through crops at the root):
///   8. `foldSRGBIntoWrite`: a trailing "from sRGB" into a destination of sRGB-encoded values.
///   9. `foldSRGBIntoRead`: a leading "to sRGB" over a source of sRGB-encoded values.
///   10. `passEncodedThrough`: a source of sRGB-encoded values (not a bitmap) as the root, into
///      a destination of sRGB-encoded values: neither curve.
///
/// Rewrites are functions of a node and a `resolve` that gives the rewritten form of any node
/// below it; they ask nodes the roles of NodeRoles.swift (`node as? any Crop`, `any Affine`,
/// `any ColorRun`, ...), never their classes; the planner asks `traits`. None changes a pixel from what the recipe means; fusion
/// and folds decide which roundings happen, the same way on every render.
enum Optimizer {
    /// What a render asks of the pass.
    struct Options {
        /// Whether file sources are decoded now (a render) or left as they are (`explain`).
        var loadSources = true
        /// The destination, whose conversion may fold into the root; nil when there is none.
        var writer: (any RenderDestination)? = nil
        /// false without colour management (`NSNull` working space): nothing folds into I/O.
        var colorManaged = true
        /// Whether downscales over files that decode small read them small (`reduceDecodes`),
        /// and those over turned files shrink them in stored order (`commuteOrientations`).
        var reduceDecodes = true
        /// Whether the render passes over its sources once, top down (a streaming encode):
        /// file sources that decode on a thread then decode for it alone (see
        /// `FileSource.loadedSource(forOneRender:)`).
        var forOneRender = false
    }

    typealias Resolve = (RecipeNode) -> RecipeNode
    typealias Step = FusedColorNode.Step

    /// Runs the pass over the recipe under `root`. Throws `CIRenderError.sourceFailed` when a
    /// source cannot be loaded.
    static func optimize(_ root: RecipeNode, _ options: Options = Options()) throws -> OptimizedRecipe {
        // 0. Downscales over files that decode small, rewritten before any source loads; the
        // rest of the pass walks the recipe with them in place.
        var replacements: [ObjectIdentifier: RecipeNode] = [:]
        var origins: [ObjectIdentifier: RecipeNode] = [:]
        for (original, reduced) in options.reduceDecodes ? reduceDecodes(root) : [] {
            replacements[ObjectIdentifier(original)] = reduced
            origins[ObjectIdentifier(reduced)] = original
        }
        // 1. Then downscales over turned files shrink them in stored order; a downscale 0
        // rewrote is replaced in its recipe node's place.
        if options.reduceDecodes {
            let reduced = replacements
            func rewritten(_ n: RecipeNode) -> RecipeNode { reduced[ObjectIdentifier(n)] ?? n }
            for (node, turned) in commuteOrientations(rewritten(root), inputs: { $0.inputs.map(rewritten) }) {
                let original = origins.removeValue(forKey: ObjectIdentifier(node)) ?? node
                replacements[ObjectIdentifier(original)] = turned
                origins[ObjectIdentifier(turned)] = original
            }
        }
        let reducedDecodes = replacements
        func pre(_ n: RecipeNode) -> RecipeNode { reducedDecodes[ObjectIdentifier(n)] ?? n }
        let order = reducedDecodes.isEmpty ? postOrder(root) : postOrder(pre(root), inputs: { $0.inputs.map(pre) })
        let originals = Set(order.map { ObjectIdentifier($0) })
        func resolve(_ n: RecipeNode) -> RecipeNode { replacements[ObjectIdentifier(n)] ?? n }
        for node in order {
            var rewritten: RecipeNode?
            if options.loadSources {
                do { rewritten = try loadSource(node, forOneRender: options.forOneRender) } catch { throw CIRenderError.sourceFailed(String(describing: error)) }
            }
            rewritten = rewritten ?? mergeCrops(node, resolve) ?? mergeTransforms(node, resolve) ?? fuseColorStages(node, resolve)
            guard let n = rewritten, n !== node else { continue }
            replacements[ObjectIdentifier(node)] = n
            let id = ObjectIdentifier(n)
            if !originals.contains(id) && origins[id] == nil { origins[id] = node }
        }
        var out = resolve(root)
        var writer = options.writer
        if let w = writer, options.colorManaged {
            if let r = rewriteRootRun(
                out, resolve,
                { run in
                    guard let (folded, raw) = foldSRGBIntoWrite(run, w) else { return nil }
                    writer = raw
                    return folded
                })
            {
                out = r
            }
            if let r = rewriteRootRun(out, resolve, foldSRGBIntoRead) { out = r }
            if let (source, raw) = passEncodedThrough(out, resolve, w) {
                out = source
                writer = raw
            }
        }
        return OptimizedRecipe(root: out, destination: writer, replacements: replacements, origins: origins)
    }

    /// Nodes under `root` (itself included), each after all of its inputs.
    static func postOrder(_ root: RecipeNode, inputs: (RecipeNode) -> [RecipeNode] = { $0.inputs }) -> [RecipeNode] {
        // Iterative: recipes can be long chains.
        var visited: Set<ObjectIdentifier> = [ObjectIdentifier(root)]
        var post: [RecipeNode] = []
        var stack: [(node: RecipeNode, inputs: [RecipeNode], next: Int)] = [(root, inputs(root), 0)]
        while let (node, ins, next) = stack.popLast() {
            if next < ins.count {
                stack.append((node, ins, next + 1))
                let child = ins[next]
                if visited.insert(ObjectIdentifier(child)).inserted { stack.append((child, inputs(child), 0)) }
            } else {
                post.append(node)
            }
        }
        return post
    }

    // MARK: Node rewrites

    /// 2. A source that stands for other pixels once loaded (a file) is replaced by them
    /// (decoded once per source node; see `LazySourceNode`). The clip to its declared extent
    /// stays when the decoded pixels differ in size.
    static func loadSource(_ node: RecipeNode, forOneRender: Bool = false) throws -> RecipeNode? {
        guard let file = node as? any FileSource else { return nil }
        let loaded = try file.loadedSource(forOneRender: forOneRender)
        return loaded.extent == node.extent ? loaded : CropNode(input: loaded, rect: node.extent)
    }

    /// 3. A crop of a crop: one crop to the inner one's input, with the outer extent (the
    /// intersection of both rectangles, already). `CIImage.cropped(to:)` builds its node with
    /// `cropped(_:to:)`, which merges as the image is made, because the extent of the result
    /// is public (an empty one's origin differs when merged later).
    static func mergeCrops(_ node: RecipeNode, _ resolve: Resolve) -> RecipeNode? {
        guard node is any Crop, let inner = resolve(node.inputs[0]) as? any Crop else { return nil }
        return CropNode(input: resolve(inner.inputs[0]), rect: node.extent)
    }

    /// `input` cropped to `rect`, a crop of a crop as one crop (`mergeCrops`).
    static func cropped(_ input: RecipeNode, to rect: CGRect) -> RecipeNode {
        if input is any Crop { return CropNode(input: input.inputs[0], rect: input.extent.intersection(rect)) }
        return CropNode(input: input, rect: rect)
    }

    /// 4. A transform over a transform with the same sampling mode (looking through a mark of
    /// that mode): one resampling by the concatenated transform, or the input itself when the
    /// product is the identity. `CIImage.transformed(by:)` builds its node with
    /// `transformed(_:by:)`, which applies this merge as the image is made, because the
    /// extent of a transformed image (public) is that of the concatenated transform.
    static func mergeTransforms(_ node: RecipeNode, _ resolve: Resolve) -> RecipeNode? {
        guard let outer = node as? any Affine,
            let (base, total) = concatenated(resolve(outer.inputs[0]), outer.transform, mode: outer.mode, resolve)
        else { return nil }
        return total.isIdentity ? base : AffineNode(input: base, transform: total, mode: outer.mode)
    }

    /// `input` through `t` as one resampling: a sampling mark on `input` gives the mode, and
    /// a transform of that mode under it concatenates (`mergeTransforms`).
    static func transformed(_ input: RecipeNode, by t: CGAffineTransform, _ resolve: Resolve = { $0 }) -> RecipeNode {
        let mark = (input as? any SamplingMark)?.samplingMode
        let mode = mark ?? .linear
        if let (base, total) = concatenated(input, t, mode: mode, resolve) {
            return total.isIdentity ? base : AffineNode(input: base, transform: total, mode: mode)
        }
        // The mark itself is not needed under the transform that reads it.
        let base = mark == nil ? input : resolve(input.inputs[0])
        return AffineNode(input: base, transform: t, mode: mode)
    }

    /// The transform under `input` (through a mark of `mode`) with `t` after it, and the node
    /// it applies to; nil when there is none of that mode.
    private static func concatenated(_ input: RecipeNode, _ t: CGAffineTransform, mode: SamplingMode, _ resolve: Resolve)
        -> (base: RecipeNode, total: CGAffineTransform)?
    {
        var n = input
        if let m = (n as? any SamplingMark)?.samplingMode, m == mode { n = resolve(n.inputs[0]) }
        guard let a = n as? any Affine, a.mode == mode else { return nil }
        return (resolve(a.inputs[0]), a.transform.concatenating(t))
    }

    /// 5. A colour kernel joins the run of colour stages under it when the run has the same
    /// extent (conversions cancelling and matrices folding as it joins); otherwise it starts
    /// a run of its own over its input.
    static func fuseColorStages(_ node: RecipeNode, _ resolve: Resolve) -> RecipeNode? {
        guard let kernel = node as? any ColorKernel else { return nil }
        let input = resolve(kernel.inputs[0])
        let step = Step(stage: kernel.stage, extras: kernel.inputs.dropFirst().map(resolve))
        let e = kernel.extent
        guard let run = input as? any ColorRun, run.extent == e else {
            return FusedColorNode(head: input, steps: [step], extent: e)
        }
        let head = resolve(run.head)
        var steps = run.steps
        if let last = steps.last, cancelConversions(last, step) {
            steps.removeLast()
            if steps.isEmpty && head.extent == e { return head }
        } else if let last = steps.last, let folded = foldMatrices(last, step) {
            steps[steps.count - 1] = folded
        } else {
            steps.append(step)
        }
        return FusedColorNode(head: head, steps: steps, extent: e)
    }

    /// 6. Whether `next` converts colour back from where `last` took it (sRGB -> linear ->
    /// sRGB between two LUTs or looks, say): then both go.
    static func cancelConversions(_ last: Step, _ next: Step) -> Bool {
        guard last.extras.isEmpty, next.extras.isEmpty, let a = last.stage as? SpaceConversionStage,
            let b = next.stage as? SpaceConversionStage
        else { return false }
        return b.isInverse(of: a)
    }

    /// 7. Two neighbouring colour matrices as one matrix (the product), when both apply to
    /// the same alpha convention or one of them commutes with premultiplication (it then
    /// adopts its neighbour's).
    static func foldMatrices(_ last: Step, _ next: Step) -> Step? {
        guard last.extras.isEmpty, next.extras.isEmpty, let m1 = last.stage.matrix, let m2 = next.stage.matrix,
            last.stage.matrixIsStraight == next.stage.matrixIsStraight || last.stage.alphaAgnostic || next.stage.alphaAgnostic
        else { return nil }
        let straight = last.stage.alphaAgnostic ? next.stage.matrixIsStraight : last.stage.matrixIsStraight
        return Step(stage: MatrixStage(m: m1.followed(by: m2), wantsUnpremultiplied: straight, name: "folded matrix"), extras: [])
    }

    // MARK: Root rewrites (the destination)

    /// The root's colour run rewritten by `body`, looking through crops at the root (a clip
    /// does not care how colour is encoded); nil when nothing changes.
    static func rewriteRootRun(_ root: RecipeNode, _ resolve: Resolve, _ body: (any ColorRun) -> FusedColorNode?) -> RecipeNode? {
        if root is any Crop {
            guard let inner = rewriteRootRun(resolve(root.inputs[0]), resolve, body) else { return nil }
            return CropNode(input: inner, rect: root.extent)
        }
        guard let run = root as? any ColorRun else { return nil }
        return body(run)
    }

    /// 8. A run ending in "from sRGB" (sRGB-encoded values back to linear) rendered into a
    /// destination of sRGB-encoded values (8/16-bit sRGB bitmaps, video planes): the
    /// conversion goes and the destination stores the encoded values as they are.
    static func foldSRGBIntoWrite<W: RenderDestination>(_ run: any ColorRun, _ writer: W) -> (FusedColorNode, W)? {
        guard let last = run.steps.last, last.extras.isEmpty, let conv = last.stage as? SpaceConversionStage,
            conv.direction == .toWorking, conv.isSRGBCurveOnly, writer.storesSRGBIntegers, let raw = writer.unmanaged()
        else { return nil }
        return (FusedColorNode(head: run.head, steps: Array(run.steps.dropLast()), extent: run.extent), raw)
    }

    /// 10. A source that holds sRGB-encoded colour, rendered as it is (through crops) into a
    /// destination of sRGB-encoded values (a video frame re-encoded without a filter): the
    /// encoded values are read and stored as they are, with no curve either way (the
    /// conversions of 8 and 9 with no step between them). Bitmaps are left to the pass-through
    /// copy, which takes their stored bytes.
    static func passEncodedThrough<W: RenderDestination>(_ root: RecipeNode, _ resolve: Resolve, _ writer: W) -> (RecipeNode, W)? {
        if root is any Crop {
            guard let (inner, raw) = passEncodedThrough(resolve(root.inputs[0]), resolve, writer) else { return nil }
            return (CropNode(input: inner, rect: root.extent), raw)
        }
        guard (root as? any StoredPixels)?.storedBitmap == nil, writer.storesSRGBIntegers,
            let encoded = (root as? any SRGBEncodedSource)?.sRGBEncodedSource(), let raw = writer.unmanaged()
        else { return nil }
        return (encoded, raw)
    }

    /// 9. A run starting with "to sRGB" over a source that holds sRGB-encoded colour (a
    /// bitmap of sRGB integers, a video frame's R'G'B': `sRGBEncodedSource`): the conversion
    /// goes and the source's encoded values are read as they are.
    static func foldSRGBIntoRead(_ run: any ColorRun) -> FusedColorNode? {
        guard let first = run.steps.first, first.extras.isEmpty, let conv = first.stage as? SpaceConversionStage,
            conv.direction == .fromWorking, conv.isSRGBCurveOnly, let raw = (run.head as? any SRGBEncodedSource)?.sRGBEncodedSource()
        else { return nil }
        return FusedColorNode(head: raw, steps: Array(run.steps.dropFirst()), extent: run.extent)
    }
}
