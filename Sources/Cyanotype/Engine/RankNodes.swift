// Rank neighbourhoods: the per-component maximum, minimum or median over a structuring
// element (CIMorphology*, CIMedianFilter). They run on premultiplied pixels, which stay valid:
// a maximum, minimum or median of premultiplied colours never exceeds the same statistic of
// the alphas. Pixels outside the input read as clear.

/// Which extreme a morphology pass keeps; a generic parameter, so the loops specialise
/// (no closure or existential per pixel).
protocol RankExtreme {
    /// The identity of `pick` (the value every accumulator starts at).
    static var start: SIMD4<Float> { get }
    /// The per-component extreme of two pixels.
    static func pick(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float>
}

enum RankMaximum: RankExtreme {
    static var start: SIMD4<Float> { SIMD4(repeating: -.infinity) }
    // `replacing(with:where:)` compiles to compare + blend; `pointwiseMax` calls out per lane.
    @inline(__always) static func pick(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> { a.replacing(with: b, where: b .> a) }
}

enum RankMinimum: RankExtreme {
    static var start: SIMD4<Float> { SIMD4(repeating: .infinity) }
    @inline(__always) static func pick(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> { a.replacing(with: b, where: b .< a) }
}

/// What a morphology node outputs.
enum MorphologyOperation: Sendable {
    case maximum, minimum
    /// Maximum minus minimum on red, green and blue; alpha is the maximum's alpha.
    case gradient
}

/// Morphology with a disc: the structuring element is every offset (dx, dy) with
/// dx² + dy² <= radius², so radius 1 is a plus sign, 1.5 a 3x3 square.
///
/// Cost O(radius) per pixel: for each source row the horizontal extremes over half-widths
/// 0, 1, 2, ... are built incrementally (two comparisons per step), and each half-width is
/// folded into the output rows whose disc chord at that row has that half-width.
final class DiskMorphologyNode: RecipeNode, @unchecked Sendable {
    let radius: Double
    let operation: MorphologyOperation
    /// `halfWidths[a]`: half the chord of the disc `a` rows from its centre.
    let halfWidths: [Int]
    var reach: Int { halfWidths.count - 1 }
    override var halo: Int { reach }
    override var isExpensive: Bool { true }

    init(input: RecipeNode, radius: Double, operation: MorphologyOperation) {
        let reach = Int(radius.rounded(.down))
        self.radius = radius
        self.operation = operation
        self.halfWidths = (0...reach).map { a in Int((radius * radius - Double(a * a)).squareRoot().rounded(.down)) }
        // A minimum is clear wherever the disc reaches outside the input, so it stays inside it.
        let r = CGFloat(reach)
        let grows = operation != .minimum && !input.extent.isInfinite
        super.init(extent: grows ? input.extent.insetBy(dx: -r, dy: -r) : input.extent, inputs: [input])
    }

    override func inputRect(_ index: Int, for rect: PixelRect) -> PixelRect { rect.insetBy(dx: -reach, dy: -reach) }

    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        let r = reach
        let src = rect.insetBy(dx: -r, dy: -r)
        let block = PixelBlock(rect: src)
        ev.fill(inputs[0], src, block.buffer)
        switch operation {
        case .maximum: accumulate(RankMaximum.self, block, rect, out)
        case .minimum: accumulate(RankMinimum.self, block, rect, out)
        case .gradient:
            accumulate(RankMaximum.self, block, rect, out)
            let low = PixelBlock(rect: rect)
            accumulate(RankMinimum.self, block, rect, low.buffer)
            for oy in 0..<rect.height {
                let d = out.row(oy), m = low.buffer.row(oy)
                for x in 0..<rect.width {
                    var v = d[x] - m[x]
                    v.w = d[x].w
                    d[x] = v
                }
            }
        }
    }

    private func accumulate<E: RankExtreme>(_: E.Type, _ block: PixelBlock, _ rect: PixelRect, _ out: TileBuffer) {
        let r = reach, w = rect.width, h = rect.height, sw = block.rect.width
        for oy in 0..<h { out.row(oy).update(repeating: E.start, count: w) }
        let level = PixelBlock(rect: PixelRect(x: 0, y: 0, width: w, height: 1))
        let lv = level.pixels
        halfWidths.withUnsafeBufferPointer { hwp in
            for s in 0..<block.rect.height {
                // Pixel of output column x in this source row: c[x].
                let c = block.pixels + s * sw + r
                lv.update(from: c, count: w)
                var hw = 0
                var a = r
                while a >= 0 {
                    let target = hwp[a]
                    while hw < target {
                        hw += 1
                        let left = c - hw, right = c + hw
                        for x in 0..<w { lv[x] = E.pick(E.pick(lv[x], left[x]), right[x]) }
                    }
                    // Source row s is `a` rows above output row s - r - a and below s - r + a.
                    let above = s - r - a, below = s - r + a
                    if above >= 0 && above < h {
                        let d = out.row(above)
                        for x in 0..<w { d[x] = E.pick(d[x], lv[x]) }
                    }
                    if a != 0 && below >= 0 && below < h {
                        let d = out.row(below)
                        for x in 0..<w { d[x] = E.pick(d[x], lv[x]) }
                    }
                    a -= 1
                }
            }
        }
    }

    override var label: String { "morphology \(operation) (disc radius \(radius))" }
}

/// Morphology with a `width x height` rectangle, separably (a row pass, then a column pass).
/// The rectangle covers offsets `-left...right` across and `-down...up` in Core Image's y-up
/// coordinates, with `left = (width - 1) / 2`, `right = width / 2` (an even width reaches one
/// pixel further right) and likewise `down = (height - 1) / 2`, `up = height / 2`.
final class RectangleMorphologyNode: RecipeNode, @unchecked Sendable {
    let width: Int, height: Int
    let isMaximum: Bool
    var left: Int { (width - 1) / 2 }
    var right: Int { width / 2 }
    var down: Int { (height - 1) / 2 }
    var up: Int { height / 2 }
    override var halo: Int { max(right, up) }
    override var isExpensive: Bool { true }

    init(input: RecipeNode, width: Int, height: Int, isMaximum: Bool) {
        self.width = width
        self.height = height
        self.isMaximum = isMaximum
        // A maximum spreads each input pixel over the reflected rectangle; a minimum is clear
        // wherever the rectangle reaches outside the input, so it stays inside it.
        var e = input.extent
        if isMaximum && !e.isInfinite {
            let l = CGFloat(width / 2), rt = CGFloat((width - 1) / 2), d = CGFloat(height / 2), u = CGFloat((height - 1) / 2)
            e = CGRect(x: e.minX - l, y: e.minY - d, width: e.width + l + rt, height: e.height + d + u)
        }
        super.init(extent: e, inputs: [input])
    }

    override func inputRect(_ index: Int, for rect: PixelRect) -> PixelRect {
        PixelRect(minX: rect.minX - left, minY: rect.minY - down, maxX: rect.maxX + right, maxY: rect.maxY + up)
    }

    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        if isMaximum { run(RankMaximum.self, rect, out, ev) } else { run(RankMinimum.self, rect, out, ev) }
    }

    private func run<E: RankExtreme>(_: E.Type, _ rect: PixelRect, _ out: TileBuffer, _ ev: Evaluator) {
        let src = inputRect(0, for: rect)
        let block = PixelBlock(rect: src)
        ev.fill(inputs[0], src, block.buffer)
        let w = rect.width, sw = src.width, l = left, rt = right
        // Row pass into `across` (all source rows, output columns).
        let across = PixelBlock(rect: PixelRect(x: rect.minX, y: src.minY, width: w, height: src.height))
        for s in 0..<src.height {
            let c = block.pixels + s * sw + l, d = across.buffer.row(s)
            d.update(from: c, count: w)
            var k = 1
            while k <= l { let p = c - k; for x in 0..<w { d[x] = E.pick(d[x], p[x]) }; k += 1 }
            k = 1
            while k <= rt { let p = c + k; for x in 0..<w { d[x] = E.pick(d[x], p[x]) }; k += 1 }
        }
        // Column pass: output row oy reads `across` rows oy ... oy + down + up.
        for oy in 0..<rect.height {
            let d = out.row(oy)
            d.update(from: across.buffer.row(oy), count: w)
            var k = 1
            while k < height { let p = across.buffer.row(oy + k); for x in 0..<w { d[x] = E.pick(d[x], p[x]) }; k += 1 }
        }
    }

    override var label: String { "morphology \(isMaximum ? "maximum" : "minimum") (rectangle \(width)x\(height))" }
}

/// CIMedianFilter: the per-component median of the 3x3 neighbourhood, by Paeth's 19-exchange
/// network (each exchange a compare-and-blend on all four components at once).
final class Median3x3Node: RecipeNode, @unchecked Sendable {
    override var halo: Int { 1 }
    override var isExpensive: Bool { true }

    init(input: RecipeNode) { super.init(extent: input.extent, inputs: [input]) }

    override func inputRect(_ index: Int, for rect: PixelRect) -> PixelRect { rect.insetBy(dx: -1, dy: -1) }

    @inline(__always) private func order(_ a: inout SIMD4<Float>, _ b: inout SIMD4<Float>) {
        let swap = b .< a
        let lo = a.replacing(with: b, where: swap)
        b = b.replacing(with: a, where: swap)
        a = lo
    }

    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        let src = rect.insetBy(dx: -1, dy: -1)
        let block = PixelBlock(rect: src)
        ev.fill(inputs[0], src, block.buffer)
        let sw = src.width
        for oy in 0..<rect.height {
            let m = block.pixels + (oy + 1) * sw + 1, lo = m - sw, hi = m + sw
            let d = out.row(oy)
            for x in 0..<rect.width {
                var p0 = lo[x - 1], p1 = lo[x], p2 = lo[x + 1]
                var p3 = m[x - 1], p4 = m[x], p5 = m[x + 1]
                var p6 = hi[x - 1], p7 = hi[x], p8 = hi[x + 1]
                order(&p1, &p2); order(&p4, &p5); order(&p7, &p8)
                order(&p0, &p1); order(&p3, &p4); order(&p6, &p7)
                order(&p1, &p2); order(&p4, &p5); order(&p7, &p8)
                order(&p0, &p3); order(&p5, &p8); order(&p4, &p7)
                order(&p3, &p6); order(&p1, &p4); order(&p2, &p5)
                order(&p4, &p7); order(&p4, &p2); order(&p6, &p4)
                order(&p4, &p2)
                d[x] = p4
            }
        }
    }

    override var label: String { "median 3x3" }
}
