/// A separable, symmetric convolution: `weights[0]` is the centre tap, `weights[k]` the taps
/// at ±k. Used by CIGaussianBlur (a true Gaussian to 3 sigma, renormalised) and friends.
/// Each tile reads its input with a halo of `radius` pixels, then runs a horizontal and a
/// vertical pass on cache-resident rows.
final class SeparableConvolutionNode: RecipeNode, @unchecked Sendable {
    let weights: [Float]
    let name: String
    var radius: Int { weights.count - 1 }
    override var halo: Int { radius }
    override var isExpensive: Bool { true }

    init(input: RecipeNode, weights: [Float], name: String) {
        self.weights = weights
        self.name = name
        let r = CGFloat(weights.count - 1)
        super.init(extent: input.extent.isInfinite ? .infinite : input.extent.insetBy(dx: -r, dy: -r), inputs: [input])
    }

    /// Normalised Gaussian taps for `sigma`, out to ceil(3 sigma).
    static func gaussianWeights(sigma: Double) -> [Float] {
        let r = max(1, Int((3 * sigma).rounded(.up)))
        var w = (0...r).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = w[0] + 2 * w.dropFirst().reduce(0, +)
        w = w.map { $0 / total }
        return w.map { Float($0) }
    }

    override func inputRect(_ index: Int, for rect: PixelRect) -> PixelRect {
        rect.insetBy(dx: -radius, dy: -radius)
    }

    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        let r = radius
        let src = rect.insetBy(dx: -r, dy: -r)
        let block = PixelBlock(rect: src)
        ev.fill(inputs[0], src, block.buffer)
        let w = rect.width
        // Horizontal pass: (h + 2r) rows of width w.
        // The row stride is padded so the 2r+1 rows read for one output pixel do not all land
        // in the same L1 cache sets (rows 4 KiB apart alias; that made this pass 4x slower).
        let tmp = PixelBlock(rect: PixelRect(x: rect.minX, y: src.minY, width: w + 16, height: src.height))
        weights.withUnsafeBufferPointer { wp in
            let wt = wp.baseAddress!
            for row in 0..<src.height {
                convolveRow(block.buffer.row(row) + r, tmp.buffer.row(row), w, wt, r)
            }
            for row in 0..<rect.height {
                convolveColumns(tmp.buffer.row(row + r), tmp.rect.width, out.row(row), w, wt, r)
            }
        }
    }

    // Two pixels per SIMD8 (one AVX register in tuned builds, two SSE registers otherwise),
    // read unaligned straight from the SIMD4 rows; the symmetric taps are paired.

    @inline(__always) private func load8(_ p: UnsafeMutablePointer<SIMD4<Float>>) -> SIMD8<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
    }
    @inline(__always) private func store8(_ v: SIMD8<Float>, _ p: UnsafeMutablePointer<SIMD4<Float>>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD8<Float>.self)
    }

    /// d[x] = sum_k w[|k|] * s[x + k], k in -r...r (`s` points at the centre of pixel 0).
    private func convolveRow(_ s: UnsafeMutablePointer<SIMD4<Float>>, _ d: UnsafeMutablePointer<SIMD4<Float>>, _ w: Int,
                             _ wt: UnsafePointer<Float>, _ r: Int) {
        var x = 0
        while x + 2 <= w {
            var acc = load8(s + x) * wt[0]
            var k = 1
            while k <= r {
                acc += (load8(s + x - k) + load8(s + x + k)) * wt[k]
                k += 1
            }
            store8(acc, d + x)
            x += 2
        }
        if x < w {
            var acc = s[x] * wt[0]
            for k in 1...r { acc += (s[x - k] + s[x + k]) * wt[k] }
            d[x] = acc
        }
    }

    /// Output row from the 2r+1 rows of `tmp` centred on `c` (stride `stride` pixels), four
    /// pixels per step so the accumulators stay in registers across all taps.
    private func convolveColumns(_ c: UnsafeMutablePointer<SIMD4<Float>>, _ stride: Int, _ d: UnsafeMutablePointer<SIMD4<Float>>,
                                 _ w: Int, _ wt: UnsafePointer<Float>, _ r: Int) {
        var x = 0
        while x + 4 <= w {
            var a0 = load8(c + x) * wt[0], a1 = load8(c + x + 2) * wt[0]
            var k = 1
            while k <= r {
                let up = c + x - k * stride, down = c + x + k * stride
                a0 += (load8(up) + load8(down)) * wt[k]
                a1 += (load8(up + 2) + load8(down + 2)) * wt[k]
                k += 1
            }
            store8(a0, d + x); store8(a1, d + x + 2)
            x += 4
        }
        while x < w {
            var acc = c[x] * wt[0]
            for k in 1...r { acc += (c[x - k * stride] + c[x + k * stride]) * wt[k] }
            d[x] = acc
            x += 1
        }
    }

    override var label: String { "\(name) (separable, radius \(radius))" }
}

/// CIBoxBlur: a square box of side 2r+1, by running sums (cost independent of r).
final class BoxBlurNode: RecipeNode, @unchecked Sendable {
    let radius: Int
    override var halo: Int { radius }
    override var isExpensive: Bool { true }

    init(input: RecipeNode, radius: Int) {
        self.radius = radius
        let r = CGFloat(radius)
        super.init(extent: input.extent.isInfinite ? .infinite : input.extent.insetBy(dx: -r, dy: -r), inputs: [input])
    }
    override func inputRect(_ index: Int, for rect: PixelRect) -> PixelRect { rect.insetBy(dx: -radius, dy: -radius) }

    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        let r = radius
        let src = rect.insetBy(dx: -r, dy: -r)
        let block = PixelBlock(rect: src)
        ev.fill(inputs[0], src, block.buffer)
        let w = rect.width
        let n = Float(2 * r + 1)
        let inv = 1 / n
        let tmp = PixelBlock(rect: PixelRect(x: rect.minX, y: src.minY, width: w, height: src.height))
        // Running sums in Double-free float are fine at these sizes; restart per row.
        for row in 0..<src.height {
            let s = block.buffer.row(row), d = tmp.buffer.row(row)
            var acc = SIMD4<Float>.zero
            for k in 0..<(2 * r + 1) { acc += s[k] }
            d[0] = acc * inv
            if w > 1 {
                for x in 1..<w {
                    acc += s[x + 2 * r] - s[x - 1]
                    d[x] = acc * inv
                }
            }
        }
        let sums = PixelBlock(rect: PixelRect(x: 0, y: 0, width: w, height: 1), zeroed: true)
        let acc = sums.pixels
        for k in 0..<(2 * r + 1) { let s = tmp.buffer.row(k); for x in 0..<w { acc[x] += s[x] } }
        for row in 0..<rect.height {
            if row > 0 {
                let add = tmp.buffer.row(row + 2 * r), sub = tmp.buffer.row(row - 1)
                for x in 0..<w { acc[x] += add[x] - sub[x] }
            }
            let d = out.row(row)
            for x in 0..<w { d[x] = acc[x] * inv }
        }
    }
    override var label: String { "box blur (radius \(radius))" }
}
