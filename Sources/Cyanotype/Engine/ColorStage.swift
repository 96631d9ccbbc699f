import CCyanotypeKernels

/// Per-pixel colour work over one row: the unit the renderer fuses. Built-in colour filters
/// are structs conforming to this; `CIColorKernel` wraps a user's row function in one.
/// The renderer calls `run` once per tile row, never per pixel.
protocol ColorStage: Sendable {
    /// Image inputs besides the row being transformed (blend modes take one).
    var extraInputCount: Int { get }
    /// Whether `run` wants straight (unpremultiplied) colour; the renderer converts.
    var wantsUnpremultiplied: Bool { get }
    /// When the stage is an affine colour map, its matrix, so neighbours fold into one.
    var matrix: ColorMatrix? { get }
    /// For a matrix: whether it is defined on straight colour (folding needs the same domain).
    var matrixIsStraight: Bool { get }
    /// Whether alpha leaves the stage as it came in (the fused loop then keeps knowing that a
    /// row is opaque).
    var preservesAlpha: Bool { get }

    /// True when the stage gives the same result on premultiplied and straight colour (a
    /// linear RGB map that keeps alpha): it then runs in whatever state the row is in.
    var alphaAgnostic: Bool { get }
    /// The stage as a planar kernel (a C loop over planes of red, green and blue made by a
    /// `cyan_planar_*` constructor), which the fused loop runs together with its neighbours'
    /// over opaque rows, a block of pixels at a time held in L1 (`cyan_planar_run`). It must
    /// give, bit for bit, what `run` gives on an opaque row, and is only for stages with no
    /// extra inputs whose result on a pixel depends on that pixel alone and keeps its alpha.
    /// Nil (the default) when the stage has none.
    var planarKernel: cyan_planar_stage? { get }
    /// Transforms `count` pixels of row `y` in place, starting at column `x`.
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int)
    var label: String { get }
}

extension ColorStage {
    var extraInputCount: Int { 0 }
    var matrix: ColorMatrix? { nil }
    var matrixIsStraight: Bool { wantsUnpremultiplied }
    var alphaAgnostic: Bool { false }
    var preservesAlpha: Bool { false }
    var planarKernel: cyan_planar_stage? { nil }
}

/// `out = c0*r + c1*g + c2*b + c3*a + bias`: an affine colour map stored by columns.
struct ColorMatrix: Sendable, Equatable {
    var c0: SIMD4<Float>, c1: SIMD4<Float>, c2: SIMD4<Float>, c3: SIMD4<Float>, bias: SIMD4<Float>

    static let identity = ColorMatrix(c0: [1, 0, 0, 0], c1: [0, 1, 0, 0], c2: [0, 0, 1, 0], c3: [0, 0, 0, 1], bias: .zero)

    /// From Core Image's row vectors (output red = dot(pixel, rVector) + bias.r).
    init(rows r: SIMD4<Float>, _ g: SIMD4<Float>, _ b: SIMD4<Float>, _ a: SIMD4<Float>, bias: SIMD4<Float>) {
        c0 = SIMD4(r.x, g.x, b.x, a.x); c1 = SIMD4(r.y, g.y, b.y, a.y)
        c2 = SIMD4(r.z, g.z, b.z, a.z); c3 = SIMD4(r.w, g.w, b.w, a.w)
        self.bias = bias
    }
    init(c0: SIMD4<Float>, c1: SIMD4<Float>, c2: SIMD4<Float>, c3: SIMD4<Float>, bias: SIMD4<Float>) {
        self.c0 = c0; self.c1 = c1; self.c2 = c2; self.c3 = c3; self.bias = bias
    }
    /// An RGB 3x3 (row-major) leaving alpha alone.
    init(rgb m: [Float], bias: SIMD3<Float> = .zero) {
        self.init(
            rows: SIMD4(m[0], m[1], m[2], 0), SIMD4(m[3], m[4], m[5], 0), SIMD4(m[6], m[7], m[8], 0), SIMD4(0, 0, 0, 1),
            bias: SIMD4(bias, 0))
    }

    @inline(__always) func apply(_ p: SIMD4<Float>) -> SIMD4<Float> {
        c0 * p.x + c1 * p.y + c2 * p.z + c3 * p.w + bias
    }
    /// `then` applied after `self`.
    func followed(by then: ColorMatrix) -> ColorMatrix {
        ColorMatrix(
            c0: then.apply(c0) - then.bias, c1: then.apply(c1) - then.bias, c2: then.apply(c2) - then.bias,
            c3: then.apply(c3) - then.bias, bias: then.apply(bias))
    }
    /// Linear in RGB, alpha kept, colour independent of alpha: commutes with premultiplication.
    var commutesWithPremultiplication: Bool {
        c0.w == 0 && c1.w == 0 && c2.w == 0 && c3 == SIMD4(0, 0, 0, 1) && bias == .zero
    }
}

/// A colour matrix as a stage (the colour-matrix filter and everything that folds into one).
///
/// A matrix defined on straight colour (`straight`, e.g. a colour matrix with a bias) divides
/// and re-multiplies alpha itself, per pixel and only for pixels that are not opaque, instead
/// of asking the fused loop for two extra passes over the row.
struct MatrixStage: ColorStage {
    let m: ColorMatrix
    /// Whether the matrix applies to straight (unpremultiplied) colour.
    let straight: Bool
    var name: String = "matrix"

    init(m: ColorMatrix, wantsUnpremultiplied straight: Bool, name: String = "matrix") {
        self.m = m; self.straight = straight; self.name = name
    }

    var wantsUnpremultiplied: Bool { false }
    var matrixIsStraight: Bool { straight }
    var matrix: ColorMatrix? { m }
    var alphaAgnostic: Bool { m.commutesWithPremultiplication }
    var preservesAlpha: Bool { m.c0.w == 0 && m.c1.w == 0 && m.c2.w == 0 && m.c3.w == 1 && m.bias.w == 0 }
    /// On opaque pixels the product needs no division whether or not it is defined on
    /// straight colour (`cyan_matrix_rgbaf` skips it there too), so one kernel serves both.
    var planarKernel: cyan_planar_stage? {
        guard preservesAlpha else { return nil }
        var packed = (m.c0, m.c1, m.c2, m.c3, m.bias)
        return withUnsafeBytes(of: &packed) { cyan_planar_matrix($0.baseAddress!.assumingMemoryBound(to: Float.self)) }
    }

    /// The matrix on a row of straight colour (left straight).
    func runStraight(_ row: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
        apply(row, count, straightOnPremultiplied: false)
    }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        apply(row, count, straightOnPremultiplied: straight && !m.commutesWithPremultiplication)
    }
    /// The product in C where the CPU has AVX2/FMA (two pixels per vector, fused
    /// multiply-adds; Swift keeps SIMD4 at one pixel per instruction and spills the
    /// columns), else the same product here, one SIMD4 (SSE or NEON) pixel at a time.
    @inline(__always) private func apply(_ row: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int, straightOnPremultiplied: Bool) {
        var packed = (m.c0, m.c1, m.c2, m.c3, m.bias)
        let done = withUnsafeBytes(of: &packed) { columns in
            UnsafeMutableRawPointer(row).withMemoryRebound(to: Float.self, capacity: count * 4) {
                cyan_matrix_rgbaf($0, count, columns.baseAddress!.assumingMemoryBound(to: Float.self), straightOnPremultiplied ? 1 : 0) != 0
            }
        }
        if done { return }
        let c0 = m.c0, c1 = m.c1, c2 = m.c2, c3 = m.c3, b = m.bias
        guard straightOnPremultiplied else {
            for i in 0..<count {
                let p = row[i]
                row[i] = c0 * p.x + c1 * p.y + c2 * p.z + c3 * p.w + b
            }
            return
        }
        // Opaque pixels are their own straight colour; when the matrix keeps alpha at 1 for
        // them, they need no division or re-multiplication.
        let keepsOpaque = c0.w == 0 && c1.w == 0 && c2.w == 0 && c3.w + b.w == 1
        for i in 0..<count {
            let p = row[i]
            if keepsOpaque && p.w == 1 {
                row[i] = c0 * p.x + c1 * p.y + c2 * p.z + c3 + b
                continue
            }
            let inv: Float = p.w > 0 ? 1 / p.w : 0
            let o = c0 * (p.x * inv) + c1 * (p.y * inv) + c2 * (p.z * inv) + c3 * p.w + b
            row[i] = SIMD4(o.x * o.w, o.y * o.w, o.z * o.w, o.w)
        }
    }
    var label: String { name }
}

/// Pixel-wise helpers shared by stages. Scalar `min`/`max` on purpose: SIMD `.clamped` and
/// `pointwiseMin` compile to per-lane library calls (see NOTES-swift-linux.md).
/// NaN goes to 0, so a later `Int(...)` can never trap.
@inline(__always) func clamp01(_ v: Float) -> Float { v > 0 ? (v < 1 ? v : 1) : 0 }

/// Whether every pixel of the row has alpha exactly 1 (in C: eight pixels a step where the
/// CPU has AVX2, stopping at the first group with one that is not).
@inline(__always) func rowIsOpaque(_ row: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int) -> Bool {
    UnsafeMutableRawPointer(row).withMemoryRebound(to: Float.self, capacity: 4 * count) { cyan_alpha_is_one_rgbaf($0, count) != 0 }
}

@inline(__always) func unpremultiplyRow(_ row: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int) {
    if rowIsOpaque(row, count) { return }  // a whole opaque row (photos) in one vector scan
    for i in 0..<count {
        let p = row[i]
        if p.w == 1 { continue }  // opaque (most photos): no divide, no store
        let inv: Float = p.w > 0 ? 1 / p.w : 0
        row[i] = SIMD4(p.x * inv, p.y * inv, p.z * inv, p.w)
    }
}
@inline(__always) func premultiplyRow(_ row: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int) {
    if rowIsOpaque(row, count) { return }
    for i in 0..<count {
        let p = row[i]
        if p.w == 1 { continue }
        row[i] = SIMD4(p.x * p.w, p.y * p.w, p.z * p.w, p.w)
    }
}

/// A colour stage applied to an image, as builders make it (`CIImage.applying`, colour
/// kernels, blends); the optimiser fuses runs of these into `FusedColorNode`s before a render.
final class ColorKernelNode: RecipeNode, ColorKernel, @unchecked Sendable {
    let stage: any ColorStage
    init(stage: any ColorStage, inputs: [RecipeNode], extent: CGRect) {
        self.stage = stage
        super.init(extent: extent, inputs: inputs, traits: NodeTraits(isPointwise: true))
    }
    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        FusedColorNode(head: inputs[0], steps: [.init(stage: stage, extras: Array(inputs.dropFirst()))], extent: extent)
            .evaluate(rect, into: out, ev)
    }
    override var label: String { "color \(stage.label)" }
}

/// A run of colour stages over one head image, done row by row on an L1-resident tile row:
/// the fusion that makes a chain of per-pixel filters cost about one. Only the optimiser makes
/// these (`Optimizer.fuseColorStages`).
final class FusedColorNode: RecipeNode, ColorRun, @unchecked Sendable {
    struct Step: @unchecked Sendable {
        let stage: any ColorStage
        let extras: [RecipeNode]
    }
    let head: RecipeNode
    let steps: [Step]

    init(head: RecipeNode, steps: [Step], extent: CGRect) {
        self.head = head
        self.steps = steps
        super.init(extent: extent, inputs: [head] + steps.flatMap(\.extras), traits: NodeTraits(isPointwise: true))
    }

    /// Sources cheap to produce a row at a time: the head is then read row by row, so each
    /// row is converted and transformed while it sits in L1 (instead of a whole-tile pass).
    private var headByRow: Bool { head.traits.producesRowsCheaply }

    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        // Row by row straight from the source (no per-row bookkeeping) when the tile lies
        // inside it; sources are never materialised, so nothing is bypassed.
        let byRow = headByRow && head.pixelExtent.contains(rect)
        if byRow {
            if head.traits.isPixelSource { ev.count { $0.sourcePixels += rect.area } }
        } else {
            ev.fill(head, rect, out)
        }
        // Extra inputs (blend backgrounds, masks) for every step, each over the same rect.
        var blocks: [PixelBlock] = []
        var extraStart: [Int] = []
        for step in steps {
            extraStart.append(blocks.count)
            for e in step.extras {
                let b = PixelBlock(rect: rect)
                ev.fill(e, rect, b.buffer)
                blocks.append(b)
            }
        }
        let pointers = UnsafeMutablePointer<UnsafeMutablePointer<SIMD4<Float>>>.allocate(capacity: max(1, blocks.count))
        defer { pointers.deallocate() }
        let w = rect.width
        // What each step needs, asked once per tile rather than once per row.
        let asIs = steps.map { $0.stage.alphaAgnostic && $0.extras.isEmpty }
        let straight = steps.map { $0.stage.wantsUnpremultiplied }
        let eitherMatrix: [MatrixStage?] = steps.map { $0.extras.isEmpty ? $0.stage as? MatrixStage : nil }
        let keepsAlpha = steps.map { $0.stage.preservesAlpha }
        // Runs of consecutive stages with planar kernels: over an opaque row such a run goes
        // through `cyan_planar_run` (the row read and written once, a block of pixels at a
        // time through every stage of the run while it sits in L1). runEnd[s] is where the
        // run starting at s ends (s itself when step s has no kernel).
        let kernels = UnsafeMutablePointer<cyan_planar_stage>.allocate(capacity: max(1, steps.count))
        defer { kernels.deallocate() }
        var runEnd = Array(0..<steps.count)
        if cyan_planar_available() != 0 {
            for s in stride(from: steps.count - 1, through: 0, by: -1) {
                guard steps[s].extras.isEmpty, keepsAlpha[s], let k = steps[s].stage.planarKernel else { continue }
                (kernels + s).initialize(to: k)
                runEnd[s] = s + 1 < steps.count ? max(runEnd[s + 1], s + 1) : s + 1
            }
        }
        let block = cyan_planar_block_length()
        for r in 0..<out.height {
            let row = out.row(r)
            if byRow {
                head.evaluate(PixelRect(x: rect.minX, y: rect.minY + r, width: w, height: 1), into: TileBuffer(base: row, width: w, height: 1, rowStride: w), ev)
            }
            for (i, b) in blocks.enumerated() { pointers[i] = b.pixels + r * w }
            var premultiplied = true
            // Whether every pixel of the row is opaque (premultiplied and straight colour
            // then agree and conversions between them are skipped): found at the first
            // conversion, kept while stages leave alpha alone.
            var opaque: Bool? = nil
            @inline(__always) func rowOpaque() -> Bool {
                if let o = opaque { return o }
                let o = rowIsOpaque(row, w)
                opaque = o
                return o
            }
            // Step s over `count` pixels of the row from column `from` (all of it, or one
            // block a planar run left to the stages' own row loops: those have no extras).
            func runStep(_ s: Int, from: Int, count: Int) {
                let step = steps[s]
                let extra = pointers + extraStart[s]
                let matrix = eitherMatrix[s]
                let pixels = row + from
                if asIs[s] {
                    // Runs on the row as it is.
                } else if straight[s] {
                    if premultiplied { if !rowOpaque() { unpremultiplyRow(pixels, count) }; premultiplied = false }
                    for k in 0..<step.extras.count { unpremultiplyRow(extra[k] + from, count) }
                } else if !premultiplied && !(matrix?.straight ?? false) {
                    if !rowOpaque() { premultiplyRow(pixels, count) }
                    premultiplied = true
                }
                if !premultiplied, let m = matrix {
                    // A matrix on straight colour over a straight row: the plain product.
                    m.runStraight(pixels, count: count)
                } else {
                    step.stage.run(pixels, extra: UnsafePointer(extra), count: count, x: rect.minX + from, y: rect.minY + r)
                }
                if !keepsAlpha[s] { opaque = nil }
            }
            var s = 0
            while s < steps.count {
                let end = runEnd[s]
                guard end > s, rowOpaque() else {
                    runStep(s, from: 0, count: w)
                    s += 1
                    continue
                }
                // Opaque: premultiplied and straight colour agree, so the run needs no
                // conversions, and its stages keep the row opaque.
                var from = 0
                while from < w {
                    var declined: Int32 = 0
                    let done =
                        from
                        + UnsafeMutableRawPointer(row + from).withMemoryRebound(to: Float.self, capacity: 4 * (w - from)) {
                            cyan_planar_run($0, w - from, kernels + s, Int32(end - s), &declined)
                        }
                    if done >= w { break }
                    // A stage declined the next block (a value its kernel does not cover):
                    // the rest of the run goes through the stages' row loops there.
                    let count = min(block, w - done)
                    for t in (s + Int(declined))..<end { runStep(t, from: done, count: count) }
                    from = done + count
                }
                s = end
            }
            if !premultiplied && !rowOpaque() { premultiplyRow(row, w) }
        }
    }
    override var label: String { "fused color [" + steps.map(\.stage.label).joined(separator: " -> ") + "]" }
}
