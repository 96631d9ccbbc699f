/// The Mitchell-Netravali cubic with parameters B and C (B = 0, C = 0.5 is Catmull-Rom;
/// B = C = 1/3 is Mitchell's recommendation); support [-2, 2].
@inline(__always) func mitchellNetravali(_ x: Double, b: Double, c: Double) -> Double {
    let t = abs(x)
    if t < 1 { return ((12 - 9 * b - 6 * c) * t * t * t + (-18 + 12 * b + 6 * c) * t * t + (6 - 2 * b)) / 6 }
    if t < 2 { return ((-b - 6 * c) * t * t * t + (6 * b + 30 * c) * t * t + (-12 * b - 48 * c) * t + (8 * b + 24 * c)) / 6 }
    return 0
}

/// One axis of a separable cubic resampling: for each output index, its first source index,
/// how many taps it has and their weights (normalised to sum 1), in flat buffers.
final class CubicAxisWeights {
    let count: Int
    /// Largest tap count: the stride of `taps`.
    let stride: Int
    let first: UnsafeMutablePointer<Int>
    let taps: UnsafeMutablePointer<Int>
    let weights: UnsafeMutablePointer<Float>

    /// Source index range [lo, hi] output `o` reads; the kernel is widened by 1/scale when
    /// shrinking, so it low-passes.
    static func range(_ o: Int, scale: Double) -> (Int, Int, Double, Double) {
        let stretch = max(1, 1 / scale), support = 2 * stretch
        let center = (Double(o) + 0.5) / scale
        let lo = Int((center - support - 0.5).rounded(.down)) + 1
        let hi = Int((center + support - 0.5).rounded(.up)) - 1
        return (lo, hi, center, stretch)
    }

    init(outStart: Int, outCount: Int, scale: Double, b: Double, c: Double) {
        count = outCount
        stride = Int((4 * max(1, 1 / scale)).rounded(.up)) + 2
        first = .allocate(capacity: max(1, outCount))
        taps = .allocate(capacity: max(1, outCount))
        weights = .allocate(capacity: max(1, outCount * stride))
        for i in 0..<outCount {
            let (lo, hi, center, stretch) = CubicAxisWeights.range(outStart + i, scale: scale)
            let n = min(stride, max(0, hi - lo + 1))
            var sum = 0.0
            for k in 0..<n { sum += mitchellNetravali((Double(lo + k) + 0.5 - center) / stretch, b: b, c: c) }
            for k in 0..<n {
                let v = mitchellNetravali((Double(lo + k) + 0.5 - center) / stretch, b: b, c: c)
                weights[i * stride + k] = Float(sum != 0 ? v / sum : 0)
            }
            first[i] = lo
            taps[i] = n
        }
    }
    deinit { first.deallocate(); taps.deallocate(); weights.deallocate() }
}

/// CIBicubicScaleTransform: separable Mitchell-Netravali resampling by (sx, sy).
final class BicubicScaleNode: RecipeNode, @unchecked Sendable {
    let sx: Double, sy: Double, b: Double, c: Double
    init(input: RecipeNode, scaleX: Double, scaleY: Double, b: Double, c: Double) {
        sx = scaleX; sy = scaleY; self.b = b; self.c = c
        let e = input.extent
        let out = e.isInfiniteOrHuge ? CGRect.infinite
            : CGRect(x: e.minX * sx, y: e.minY * sy, width: e.width * sx, height: e.height * sy)
        super.init(extent: out, inputs: [input])
    }
    override var halo: Int { Int(2 * max(1, 1 / min(sx, sy))) + 1 }
    override var isExpensive: Bool { true }

    override func inputRect(_ index: Int, for rect: PixelRect) -> PixelRect {
        if rect.isEmpty { return .empty }
        let x0 = CubicAxisWeights.range(rect.minX, scale: sx).0, x1 = CubicAxisWeights.range(rect.maxX - 1, scale: sx).1
        let y0 = CubicAxisWeights.range(rect.minY, scale: sy).0, y1 = CubicAxisWeights.range(rect.maxY - 1, scale: sy).1
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
        let hw = CubicAxisWeights(outStart: rect.minX, outCount: rect.width, scale: sx, b: b, c: c)
        let vw = CubicAxisWeights(outStart: rect.minY, outCount: rect.height, scale: sy, b: b, c: c)
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
    override var label: String { "bicubic scale \(sx)x\(sy) B=\(b) C=\(c)" }
}

/// Strong reductions run in stages of at most 16x per axis, as for Lanczos, so one output
/// pixel never reads more than about 64x64 source pixels.
func bicubicScaled(_ node: RecipeNode, sx: Double, sy: Double, b: Double, c: Double) -> RecipeNode {
    let limit = 1.0 / 16
    if sx >= limit && sy >= limit { return BicubicScaleNode(input: node, scaleX: sx, scaleY: sy, b: b, c: c) }
    let stepX = sx < limit ? sx.squareRoot() : sx, stepY = sy < limit ? sy.squareRoot() : sy
    let first = bicubicScaled(node, sx: stepX, sy: stepY, b: b, c: c)
    return bicubicScaled(first, sx: sx / stepX, sy: sy / stepY, b: b, c: c)
}
