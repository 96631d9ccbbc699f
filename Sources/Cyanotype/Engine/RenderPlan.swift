/// What the renderer will do for one request, on the recipe as the optimiser left it: the
/// rectangle each node must produce (regions of interest propagated from the output: the
/// crop push-down, so a crop of a blur computes only what is visible), which nodes are
/// materialised or computed whole before the tiles, and the tile size. `CIContext.explain`
/// prints it.
final class RenderPlan: @unchecked Sendable {
    let recipe: OptimizedRecipe
    var root: RecipeNode { recipe.root }
    let rect: PixelRect
    /// Nodes in topological order, the root first.
    private(set) var order: [RecipeNode] = []
    private(set) var roi: [ObjectIdentifier: PixelRect] = [:]
    private(set) var parentCount: [ObjectIdentifier: Int] = [:]
    /// Nodes materialised before the output tiles run, deepest first.
    private(set) var materialize: [RecipeNode] = []
    /// Nodes whose whole result is computed before the output tiles run, deepest first.
    private(set) var wholeResults: [RecipeNode] = []
    let tileWidth: Int
    let tileHeight: Int
    /// Whether the output goes to a consumer band by band, top first (see `init`).
    let banded: Bool

    /// `banded`: the output is consumed band by band, top first (a streaming encode), so tiles
    /// are short (a quarter as tall as wide): the rows held at once (decoded source ahead,
    /// output waiting for the encoder) scale with the tile height.
    init(recipe: OptimizedRecipe, rect: PixelRect, tileSize: Int? = nil, banded: Bool = false) {
        self.recipe = recipe
        self.rect = rect
        self.banded = banded
        let root = recipe.root
        let post = Optimizer.postOrder(root, inputs: recipe.inputs(of:))
        for node in post {
            for input in recipe.inputs(of: node) { parentCount[ObjectIdentifier(input), default: 0] += 1 }
        }
        order = post.reversed()
        // Regions of interest: each node's request is complete before it is passed on.
        roi[ObjectIdentifier(root)] = rect
        var radius = 0
        for node in order {
            guard let want = roi[ObjectIdentifier(node)]?.intersection(node.pixelExtent), !want.isEmpty else { continue }
            radius = max(radius, node.traits.halo)
            for (i, input) in recipe.inputs(of: node).enumerated() {
                let r = node.inputRect(i, for: want).intersection(input.pixelExtent)
                let id = ObjectIdentifier(input)
                roi[id] = (roi[id] ?? .empty).union(r)
            }
        }
        // Whole results (reductions, k-means) once; explicit intermediates, and expensive
        // nodes read by several consumers, materialised.
        for node in post {
            let id = ObjectIdentifier(node)
            guard let r = roi[id], !r.intersection(node.pixelExtent).isEmpty else { continue }
            if node.traits.computesWholeResult {
                wholeResults.append(node)
            } else if node !== root && (node.traits.isAlwaysMaterialized || (node.traits.isExpensive && (parentCount[id] ?? 0) > 1)) {
                materialize.append(node)
            }
        }
        // Tiles: big enough that a neighbourhood's halo is a small overhead, small enough to
        // stay cache-resident and to spread over the cores.
        // 16x the halo keeps the re-read border near 12% (8x measured 1.5x the source reads).
        let side = tileSize ?? min(1024, max(256, (16 * radius + 63) / 64 * 64))
        // Recipes that only read each input at the output pixel (per-pixel colour work over
        // bitmaps, generators, crops) run in wide, short tiles: a 2048-pixel row (32 KiB)
        // stays in L1 through every stage, the tile (512 KiB) in L2 until it is written out,
        // and sources are read in long sequential runs (measured: a float copy 470 -> 700+
        // MP/s). Anything that resamples or reads neighbours keeps square tiles, whose
        // regions of interest stay compact.
        let perPixel = radius == 0 && order.allSatisfy(\.traits.isPointwise)
        if tileSize == nil && perPixel {
            tileWidth = 2048
            tileHeight = 16
        } else if tileSize == nil && banded {
            // A quarter as tall: what a streaming render holds scales with the band height
            // (the decoded rows ahead of it, the output bands waiting for the encoder, about
            // five bands of full-width 8-bit rows), and a tile's float blocks (its input with
            // the halo, its output) with its area. A separable pass re-reads more vertical halo
            // (2r rows for s/4, r up to s/16: up to half again the rows, where 2s x s/2 tiles
            // re-read a quarter), but the tile's blocks now stay in L2: a 24 MP blur of sigma
            // 10 measured the same CPU time as with 2s x s/2 tiles, at 45 MB less.
            tileWidth = side
            tileHeight = side / 4
        } else {
            tileWidth = side
            tileHeight = side
        }
    }

    func region(of node: RecipeNode) -> PixelRect {
        (roi[ObjectIdentifier(node)] ?? .empty).intersection(node.pixelExtent)
    }

    /// Bytes the render holds at its peak, estimated before it runs: materialised
    /// intermediates, the inputs whole-image nodes read whole (a reduction's region), and on
    /// each core one output tile's working set (`tileWorkingSet`), at least three tiles. The
    /// figure `explain` prints, and what a `CIRenderJob`'s memory budget is checked against.
    var estimatedMemory: Int {
        let px = MemoryLayout<SIMD4<Float>>.stride
        let intermediates = materialize.reduce(0) { $0 + region(of: $1).area * px }
        let wholeInputs = wholeResults.reduce(0) { sum, node in
            sum + recipe.inputs(of: node).reduce(0) { $0 + region(of: $1).area * px }
        }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let perTile = max(3 * min(tileWidth, rect.width) * min(tileHeight, rect.height), tileWorkingSet)
        let (bytes, overflow) = perTile.multipliedReportingOverflow(by: px * cores)
        return overflow ? Self.saturated : Self.add(Self.add(intermediates, wholeInputs), bytes)
    }

    /// Where estimates stop growing (no overflow, still far beyond any budget).
    private static let saturated = Int.max / 4
    private static func add(_ a: Int, _ b: Int) -> Int { min(saturated, a.addingReportingOverflow(b).overflow ? saturated : a + b) }

    /// Pixels one output tile in the middle of the render holds while it is evaluated: the
    /// region every node below it computes for that tile (its halo grown at each neighbourhood
    /// and resampling step), down to the materialised nodes it reads from memory. Deep chains
    /// of blurs grow it fast: each step's region is the one above plus its halo.
    var tileWorkingSet: Int {
        let w = min(tileWidth, rect.width), h = min(tileHeight, rect.height)
        let tile = PixelRect(x: rect.minX + (rect.width - w) / 2, y: rect.minY + (rect.height - h) / 2, width: w, height: h)
        let stored = Set(materialize.map { ObjectIdentifier($0) } + wholeResults.map { ObjectIdentifier($0) })
        var want: [ObjectIdentifier: PixelRect] = [ObjectIdentifier(root): tile]
        var total = 0
        for node in order {
            let id = ObjectIdentifier(node)
            guard let r = want[id]?.intersection(node.pixelExtent), !r.isEmpty else { continue }
            total = Self.add(total, r.area)
            if node !== root && stored.contains(id) { continue }
            for (i, input) in recipe.inputs(of: node).enumerated() {
                let need = node.inputRect(i, for: r).intersection(input.pixelExtent)
                let inputID = ObjectIdentifier(input)
                want[inputID] = (want[inputID] ?? .empty).union(need)
            }
        }
        return total
    }

    func describe() -> String {
        var lines: [String] = []
        let tiles = ((rect.width + tileWidth - 1) / tileWidth) * ((rect.height + tileHeight - 1) / tileHeight)
        lines.append("render \(rect) in \(tiles) tile(s) of \(tileWidth)x\(tileHeight) on \(ProcessInfo.processInfo.activeProcessorCount) core(s)")
        lines.append("intermediates: \(materialize.count); estimated memory \(estimatedMemory / 1024) KiB")
        var seen = Set<ObjectIdentifier>()
        func walk(_ n: RecipeNode, _ depth: Int) {
            let id = ObjectIdentifier(n)
            let pad = String(repeating: "  ", count: depth)
            let mark = materialize.contains { $0 === n } ? " [materialised]" : wholeResults.contains { $0 === n } ? " [computed whole]" : ""
            let shared = seen.contains(id) ? " (shared, see above)" : ""
            lines.append("\(pad)- \(n.label) roi \(region(of: n))\(mark)\(shared)")
            if !seen.insert(id).inserted { return }
            for i in recipe.inputs(of: n) { walk(i, depth + 1) }
        }
        walk(root, 0)
        return lines.joined(separator: "\n")
    }
}
