// The resampling kind: scaling by a separable filter kernel (a horizontal pass, then a
// vertical one), the kernel widened by 1/scale when shrinking so it low-passes. The filter
// supplies the kernel's profile; the node does the weights, the passes and the tiling.

/// A separable resampling kernel's profile: all a scaling filter supplies.
///
/// To add one, write a struct conforming to this in the filter's file and build
/// `ResamplingNode.staged(image.node, kernel: MyKernel(), sx: ..., sy: ...)`. Weights are
/// worked out once per tile and axis, so `weight` may be as costly as it likes.
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
final class ResamplingAxis {
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
        for i in 0..<outCount {
            let (lo, hi, center, stretch) = ResamplingAxis.range(outStart + i, scale: scale, support: kernel.support)
            let n = min(stride, max(0, hi - lo + 1))
            var sum = 0.0
            for k in 0..<n { sum += kernel.weight((Double(lo + k) + 0.5 - center) / stretch) }
            for k in 0..<n {
                let v = kernel.weight((Double(lo + k) + 0.5 - center) / stretch)
                weights[i * stride + k] = Float(sum != 0 ? v / sum : 0)
            }
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
final class ResamplingNode<Kernel: ResamplingKernel>: RecipeNode, @unchecked Sendable {
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
        super.init(extent: out, inputs: [input])
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

    override var halo: Int { Int(kernel.support * max(1, 1 / min(sx, sy))) + 1 }
    override var isExpensive: Bool { true }

    override var resamplingScale: (x: Double, y: Double)? { kernel.combination == .weightedSum ? (sx, sy) : nil }
    override func resampled(_ input: RecipeNode, scaleX: Double, scaleY: Double) -> RecipeNode? {
        Self.staged(input, kernel: kernel, sx: scaleX, sy: scaleY)
    }
    override func resamplesAlike(_ other: RecipeNode) -> Bool { (other as? ResamplingNode<Kernel>)?.kernel == kernel }

    override func inputRect(_ index: Int, for rect: PixelRect) -> PixelRect {
        if rect.isEmpty { return .empty }
        let s = kernel.support
        let x0 = ResamplingAxis.range(rect.minX, scale: sx, support: s).0, x1 = ResamplingAxis.range(rect.maxX - 1, scale: sx, support: s).1
        let y0 = ResamplingAxis.range(rect.minY, scale: sy, support: s).0, y1 = ResamplingAxis.range(rect.maxY - 1, scale: sy, support: s).1
        return PixelRect(minX: x0, minY: y0, maxX: x1 + 1, maxY: y1 + 1)
    }

    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        let src = inputRect(0, for: rect)
        if src.area > max(8 * rect.area, 1 << 21), rect.width > 8, rect.height > 8 {
            evaluateInQuarters(rect, into: out, ev)
            return
        }
        let block = PixelBlock(rect: src)
        ev.fill(inputs[0], src, block.buffer)
        let hw = ResamplingAxis(kernel, outStart: rect.minX, outCount: rect.width, scale: sx)
        let vw = ResamplingAxis(kernel, outStart: rect.minY, outCount: rect.height, scale: sy)
        if kernel.combination == .maximum {
            maximumPasses(rect, into: out, block: block, src: src, hw, vw)
            return
        }
        // Horizontal pass: every source row of the region -> rect.width columns.
        let tmp = PixelBlock(rect: PixelRect(x: rect.minX, y: src.minY, width: rect.width, height: src.height))
        let hFirst = hw.first, hTaps = hw.taps, hWeights = hw.weights, hStride = hw.stride
        for r in 0..<src.height {
            let s = block.buffer.row(r), d = tmp.buffer.row(r)
            for o in 0..<rect.width {
                let base = s + (hFirst[o] - src.minX), wt = hWeights + o * hStride
                var acc = SIMD4<Float>.zero
                for k in 0..<hTaps[o] { acc += base[k] * wt[k] }
                d[o] = acc
            }
        }
        // Vertical pass.
        for r in 0..<rect.height {
            let d = out.row(r)
            d.update(repeating: .zero, count: rect.width)
            let firstRow = vw.first[r] - src.minY, wt = vw.weights + r * vw.stride
            for k in 0..<vw.taps[r] {
                let s = tmp.buffer.row(firstRow + k), w = wt[k]
                for o in 0..<rect.width { d[o] += s[o] * w }
            }
        }
        withExtendedLifetime(hw) {}
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
