import CCyanotypeKernels

// The resampling kind: scaling by a separable filter kernel (a horizontal pass, then a
// vertical one), the kernel widened by 1/scale when shrinking so it low-passes. The filter
// supplies the kernel's profile; the node does the weights, the passes and the tiling.

/// A separable resampling kernel's profile: all a scaling filter supplies.
///
/// To add one, write a struct conforming to this in the filter's file and build
/// `ResamplingNode.staged(image.node, kernel: MyKernel(), sx: ..., sy: ...)`. Weights are
/// worked out once per column and row of tiles, so `weight` may be as costly as it likes.
protocol ResamplingKernel: Sendable, Equatable {
    /// The kernel is zero at and beyond ±support (source pixels, at scale 1).
    var support: Double { get }
    /// The kernel at offset x (source pixels at scale 1).
    func weight(_ x: Double) -> Double
    /// How an output pixel combines its taps: their weighted sum (the default), or the
    /// per-channel maximum of the taps the kernel gives a weight above zero.
    var combination: ResamplingCombination { get }
    /// One line for `CIContext.explain`.
    var label: String { get }
}

/// How a resampling kernel combines the source pixels under an output pixel.
enum ResamplingCombination: Sendable {
    /// The normalised weighted sum (filtering).
    case weightedSum
    /// The per-channel maximum of the pixels with a positive weight (a bright detail
    /// survives any reduction).
    case maximum
}

extension ResamplingKernel {
    var combination: ResamplingCombination { .weightedSum }
}

/// One axis of a separable resampling: for each output index, its first source index, how
/// many taps it has and their weights (normalised to sum 1), in flat buffers.
final class ResamplingAxis: @unchecked Sendable {
    let count: Int
    /// Largest tap count: the stride of `weights`.
    let stride: Int
    let first: UnsafeMutablePointer<Int>
    let taps: UnsafeMutablePointer<Int>
    let weights: UnsafeMutablePointer<Float>

    /// The source indices [lo, hi] output `o` reads (the pixels whose centres lie strictly
    /// within the widened support of the output's centre, or the one just above when none
    /// does), the centre in source coordinates and the widening.
    static func range(_ o: Int, scale: Double, support: Double) -> (Int, Int, Double, Double) {
        let stretch = max(1, 1 / scale), reach = support * stretch
        let center = (Double(o) + 0.5) / scale
        let lo = Int((center - reach - 0.5).rounded(.down)) + 1
        // At least one index: a kernel narrower than the pixel spacing (support below 0.5)
        // may hold no pixel centre strictly inside; it then reads the pixel just above.
        let hi = max(lo, Int((center + reach - 0.5).rounded(.up)) - 1)
        return (lo, hi, center, stretch)
    }

    init<Kernel: ResamplingKernel>(_ kernel: Kernel, outStart: Int, outCount: Int, scale: Double) {
        count = outCount
        stride = Int((2 * kernel.support * max(1, 1 / scale)).rounded(.up)) + 2
        first = .allocate(capacity: max(1, outCount))
        taps = .allocate(capacity: max(1, outCount))
        weights = .allocate(capacity: max(1, outCount * stride))
        // Each tap's kernel value, worked out once (a kernel may be costly: sines, say), then
        // normalised by their sum.
        let raw = UnsafeMutablePointer<Double>.allocate(capacity: stride)
        defer { raw.deallocate() }
        for i in 0..<outCount {
            let (lo, hi, center, stretch) = ResamplingAxis.range(outStart + i, scale: scale, support: kernel.support)
            let n = min(stride, max(0, hi - lo + 1))
            var sum = 0.0
            for k in 0..<n {
                raw[k] = kernel.weight((Double(lo + k) + 0.5 - center) / stretch)
                sum += raw[k]
            }
            for k in 0..<n { weights[i * stride + k] = Float(sum != 0 ? raw[k] / sum : 0) }
            // A kernel narrower than the pixel spacing may weigh nothing here: its one tap
            // (`range` always gives one) then takes the whole weight.
            if sum == 0 && n > 0 { weights[i * stride] = 1 }
            first[i] = lo
            taps[i] = n
        }
    }
    deinit { first.deallocate(); taps.deallocate(); weights.deallocate() }
}

/// The resampling kind: scales its input by (sx, sy) through a separable `ResamplingKernel`.
/// Output pixel o's centre sits at source coordinate (o + 0.5) / scale; its weights depend on
/// its own index only, so tiled and whole renders agree bit for bit.
final class ResamplingNode<Kernel: ResamplingKernel>: RecipeNode, DownscaleResampler, @unchecked Sendable {
    let kernel: Kernel
    let sx: Double, sy: Double

    init(input: RecipeNode, kernel: Kernel, scaleX: Double, scaleY: Double) {
        self.kernel = kernel
        sx = scaleX; sy = scaleY
        let e = input.extent
        let out =
            e.isInfiniteOrHuge
            ? CGRect.infinite
            : CGRect(x: e.minX * sx, y: e.minY * sy, width: e.width * sx, height: e.height * sy)
        let halo = Int(kernel.support * max(1, 1 / min(scaleX, scaleY))) + 1
        super.init(extent: out, inputs: [input], traits: NodeTraits(halo: halo, isExpensive: true))
    }

    /// Strong reductions run in stages of at most 16x per axis, so one output pixel never
    /// reads more than about 100x100 source pixels (a 1000x shrink in one step would read
    /// 6000x6000).
    static func staged(_ node: RecipeNode, kernel: Kernel, sx: Double, sy: Double) -> RecipeNode {
        let limit = 1.0 / 16
        if sx >= limit && sy >= limit { return ResamplingNode(input: node, kernel: kernel, scaleX: sx, scaleY: sy) }
        let stepX = sx < limit ? sx.squareRoot() : sx, stepY = sy < limit ? sy.squareRoot() : sy
        let first = staged(node, kernel: kernel, sx: stepX, sy: stepY)
        return staged(first, kernel: kernel, sx: sx / stepX, sy: sy / stepY)
    }

    var resamplingScale: (x: Double, y: Double)? { kernel.combination == .weightedSum ? (sx, sy) : nil }
    func resampled(_ input: RecipeNode, scaleX: Double, scaleY: Double) -> RecipeNode? {
        Self.staged(input, kernel: kernel, sx: scaleX, sy: scaleY)
    }
    var resamplingKernel: any ResamplingKernel { kernel }

    override func inputRect(_ index: Int, for rect: PixelRect) -> PixelRect {
        if rect.isEmpty { return .empty }
        let s = kernel.support
        let x0 = ResamplingAxis.range(rect.minX, scale: sx, support: s).0, x1 = ResamplingAxis.range(rect.maxX - 1, scale: sx, support: s).1
        let y0 = ResamplingAxis.range(rect.minY, scale: sy, support: s).0, y1 = ResamplingAxis.range(rect.maxY - 1, scale: sy, support: s).1
        return PixelRect(minX: x0, minY: y0, maxX: x1 + 1, maxY: y1 + 1)
    }

    /// The axes of recent tiles: the tiles of one column share their horizontal axis, those
    /// of one row their vertical one, so each is worked out once per render, not per tile.
    private let recentAxes = RecentTables<AxisKey, ResamplingAxis>(capacity: 64)
    private struct AxisKey: Equatable {
        let start: Int, count: Int, vertical: Bool
    }
    private func axis(_ start: Int, _ count: Int, vertical: Bool) -> ResamplingAxis {
        recentAxes.value(for: AxisKey(start: start, count: count, vertical: vertical)) {
            ResamplingAxis(kernel, outStart: start, outCount: count, scale: vertical ? sy : sx)
        }
    }

    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        // An input file whose decode failed fails the render (it reports the error): its
        // zeros are not worth resampling, a tile at a time, over what may be millions of rows.
        if ev.sourceFailed {
            out.zero()
            return
        }
        let src = inputRect(0, for: rect)
        // An input that makes single rows cheaply (a bitmap, through an edge clamp) is read
        // row by row, top first, through a ring of filtered rows: no block of the input per
        // tile, and a file still decoding is followed as its rows arrive.
        if kernel.combination == .weightedSum, let reader = ResamplingRowReader(inputs[0], ev) {
            let hw = axis(rect.minX, rect.width, vertical: false), vw = axis(rect.minY, rect.height, vertical: true)
            streamedPasses(rect, into: out, src: src, reader, hw, vw, ev)
            return
        }
        if src.area > max(8 * rect.area, 1 << 21), rect.width > 8, rect.height > 8 {
            evaluateInQuarters(rect, into: out, ev)
            return
        }
        let block = PixelBlock(rect: src)
        ev.fill(inputs[0], src, block.buffer)
        let hw = axis(rect.minX, rect.width, vertical: false), vw = axis(rect.minY, rect.height, vertical: true)
        if kernel.combination == .maximum {
            maximumPasses(rect, into: out, block: block, src: src, hw, vw)
            return
        }
        // Horizontal pass: every source row of the region -> rect.width columns.
        let tmp = PixelBlock(rect: PixelRect(x: rect.minX, y: src.minY, width: rect.width, height: src.height))
        for r in 0..<src.height { Self.horizontalPass(block.buffer.row(r), from: src.minX, width: src.width, into: tmp.buffer.row(r), hw) }
        // Vertical pass.
        let taps = UnsafeMutablePointer<UnsafeMutablePointer<SIMD4<Float>>>.allocate(capacity: max(1, vw.stride))
        defer { taps.deallocate() }
        for r in 0..<rect.height {
            let firstRow = vw.first[r] - src.minY
            for k in 0..<vw.taps[r] { taps[k] = tmp.buffer.row(firstRow + k) }
            Self.verticalPass(taps, vw.weights + r * vw.stride, vw.taps[r], into: out.row(r), rect.width)
        }
        // The axes may leave `recentAxes` while this tile still reads their weights.
        withExtendedLifetime((hw, vw)) {}
    }

    /// The weighted sums of one source row (`line`: `lineWidth` pixels from column `lineMinX`)
    /// for every output column of `hw`: C vector loops where the CPU has them, else Swift;
    /// the same bits either way (products rounded, added from zero in tap order).
    private static func horizontalPass(
        _ line: UnsafeMutablePointer<SIMD4<Float>>, from lineMinX: Int, width lineWidth: Int, into d: UnsafeMutablePointer<SIMD4<Float>>,
        _ hw: ResamplingAxis
    ) {
        let width = hw.count, first = hw.first, taps = hw.taps, weights = hw.weights, stride = hw.stride
        let done = UnsafeMutableRawPointer(d).withMemoryRebound(to: Float.self, capacity: 4 * width) { dst in
            UnsafeMutableRawPointer(line).withMemoryRebound(to: Float.self, capacity: 4 * lineWidth) { s in
                cyan_resample_row_rgbaf(dst, s, lineMinX, width, first, taps, weights, stride, 512)
            }
        }
        if done != 0 { return }
        for o in 0..<width {
            let p = line + (first[o] - lineMinX), wt = weights + o * stride
            var acc = SIMD4<Float>.zero
            for k in 0..<taps[o] { acc += p[k] * wt[k] }
            d[o] = acc
        }
    }

    /// One output row of the vertical pass: the sum over k < `count` of rows[k] * w[k], under
    /// the same contract as `horizontalPass`.
    private static func verticalPass(
        _ rows: UnsafeMutablePointer<UnsafeMutablePointer<SIMD4<Float>>>, _ w: UnsafeMutablePointer<Float>, _ count: Int,
        into d: UnsafeMutablePointer<SIMD4<Float>>, _ width: Int
    ) {
        let done = UnsafeMutableRawPointer(d).withMemoryRebound(to: Float.self, capacity: 4 * width) { dst in
            UnsafeMutableRawPointer(rows).withMemoryRebound(to: UnsafePointer<Float>?.self, capacity: max(1, count)) { r in
                cyan_resample_column_rgbaf(dst, r, w, count, width, 512)
            }
        }
        if done != 0 { return }
        d.update(repeating: .zero, count: width)
        for k in 0..<count {
            let s = rows[k], wk = w[k]
            for o in 0..<width { d[o] += s[o] * wk }
        }
    }

    /// The two passes over an input read one row at a time (`ResamplingRowReader`): output rows
    /// from the top down (files decode top first), each source row filtered horizontally
    /// once into a ring that holds the rows the next output row can still need. Same sums,
    /// in the same order, as the block passes: the same bits.
    private func streamedPasses(
        _ rect: PixelRect, into out: TileBuffer, src: PixelRect, _ reader: ResamplingRowReader,
        _ hw: ResamplingAxis, _ vw: ResamplingAxis, _ ev: Evaluator
    ) {
        // Output rows read runs of at most `stride` source rows, and those runs only move
        // down as the output row does.
        let capacity = max(1, vw.stride)
        let ring = PixelBlock(rect: PixelRect(x: 0, y: 0, width: rect.width, height: capacity))
        let line = PixelBlock(rect: PixelRect(x: src.minX, y: 0, width: src.width, height: 1))
        let taps = UnsafeMutablePointer<UnsafeMutablePointer<SIMD4<Float>>>.allocate(capacity: capacity)
        defer { taps.deallocate() }
        @inline(__always) func slot(_ y: Int) -> UnsafeMutablePointer<SIMD4<Float>> {
            let i = y % capacity
            return ring.buffer.row(i < 0 ? i + capacity : i)
        }
        var lowest = Int.max  // source rows lowest..<lowest + capacity are in the ring
        for r in stride(from: rect.height - 1, through: 0, by: -1) {
            // A source whose decode failed reads as zeros and fails the render: the rest of a
            // tile that may read millions of its rows is not worth computing.
            if ev.sourceFailed {
                out.zero()
                return
            }
            let first = vw.first[r], count = vw.taps[r]
            var y = min(lowest - 1, first + count - 1)
            while y >= first {
                reader.read(row: y, x: src.minX, width: src.width, into: line.pixels, ev)
                Self.horizontalPass(line.pixels, from: src.minX, width: src.width, into: slot(y), hw)
                y -= 1
            }
            lowest = min(lowest, first)
            for k in 0..<count { taps[k] = slot(first + k) }
            Self.verticalPass(taps, vw.weights + r * vw.stride, count, into: out.row(r), rect.width)
        }
    }

    /// The two passes taking the per-channel maximum of the taps with a positive weight
    /// (`ResamplingCombination.maximum`); every pixel has one (see `ResamplingAxis`). Comparisons
    /// written as blends (no per-lane library calls); NaN never wins.
    private func maximumPasses(
        _ rect: PixelRect, into out: TileBuffer, block: PixelBlock, src: PixelRect,
        _ hw: ResamplingAxis, _ vw: ResamplingAxis
    ) {
        @inline(__always) func larger(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> { a.replacing(with: b, where: b .> a) }
        let lowest = SIMD4<Float>(repeating: -.infinity)
        let tmp = PixelBlock(rect: PixelRect(x: rect.minX, y: src.minY, width: rect.width, height: src.height))
        for r in 0..<src.height {
            let s = block.buffer.row(r), d = tmp.buffer.row(r)
            for o in 0..<rect.width {
                let base = s + (hw.first[o] - src.minX), wt = hw.weights + o * hw.stride
                var acc = lowest
                for k in 0..<hw.taps[o] where wt[k] > 0 { acc = larger(acc, base[k]) }
                d[o] = acc
            }
        }
        for r in 0..<rect.height {
            let d = out.row(r)
            d.update(repeating: lowest, count: rect.width)
            let firstRow = vw.first[r] - src.minY, wt = vw.weights + r * vw.stride
            for k in 0..<vw.taps[r] where wt[k] > 0 {
                let s = tmp.buffer.row(firstRow + k)
                for o in 0..<rect.width { d[o] = larger(d[o], s[o]) }
            }
            for o in 0..<rect.width { d[o] = d[o].replacing(with: 0, where: d[o] .== lowest) }
        }
        withExtendedLifetime(hw) {}
        withExtendedLifetime(vw) {}
    }

    override var label: String { "\(kernel.label) scale \(sx)x\(sy)" }
}

/// Single rows of a resampling's input, read straight from a node that makes rows cheaply
/// (a bitmap, a generator), or from the one under an edge clamp with the clamp's coordinates
/// applied here: what `ClampNode` would give, without a block of the input per tile.
struct ResamplingRowReader {
    let node: RecipeNode
    /// The rectangle whose edge pixels extend outward, when reading through a clamp.
    let clamp: PixelRect?

    /// nil when the input (as this render resolves it) makes no cheap rows.
    init?(_ input: RecipeNode, _ ev: Evaluator) {
        let n = ev.recipe.resolve(input)
        if n.traits.producesRowsCheaply {
            node = n
            clamp = nil
            return
        }
        guard let c = (n as? any RegionClamp)?.clampedRegion, !c.isEmpty, n.inputs.count == 1 else { return nil }
        let inner = ev.recipe.resolve(n.inputs[0])
        guard inner.traits.producesRowsCheaply else { return nil }
        node = inner
        clamp = c
    }

    /// Row `y` over columns x..<x + width into `row`.
    func read(row y: Int, x: Int, width: Int, into row: UnsafeMutablePointer<SIMD4<Float>>, _ ev: Evaluator) {
        guard let c = clamp else {
            ev.fill(node, PixelRect(x: x, y: y, width: width, height: 1), TileBuffer(base: row, width: width, height: 1, rowStride: width))
            return
        }
        let cy = min(max(y, c.minY), c.maxY - 1)
        let lo = min(max(x, c.minX), c.maxX - 1), hi = min(max(x + width - 1, c.minX), c.maxX - 1)
        if lo > x + width - 1 || hi < x {
            // The whole run lies beyond one side: every pixel is that edge's.
            ev.fill(node, PixelRect(x: lo, y: cy, width: 1, height: 1), TileBuffer(base: row, width: 1, height: 1, rowStride: 1))
            row.update(repeating: row[0], count: width)
            return
        }
        let n = hi - lo + 1, at = lo - x
        ev.fill(node, PixelRect(x: lo, y: cy, width: n, height: 1), TileBuffer(base: row + at, width: n, height: 1, rowStride: n))
        if at > 0 { row.update(repeating: row[at], count: at) }
        let end = at + n
        if end < width { (row + end).update(repeating: row[end - 1], count: width - end) }
    }
}
