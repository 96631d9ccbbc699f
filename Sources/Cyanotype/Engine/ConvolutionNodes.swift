/// A separable, symmetric convolution: `weights[0]` is the centre tap, `weights[k]` the taps
/// at ±k. Used by CIGaussianBlur (a true Gaussian to 3 sigma, renormalised) and friends.
/// Each tile reads its input with a halo of `radius` pixels, then runs a horizontal and a
/// vertical pass on cache-resident rows.
final class SeparableConvolutionNode: RecipeNode, NeighborhoodNode, @unchecked Sendable {
    let weights: [Float]
    let name: String
    var radius: Int { weights.count - 1 }
    var halo: Int { radius }
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
        let tmp = PixelBlock(rect: PixelRect(x: rect.minX, y: src.minY, width: w, height: src.height))
        weights.withUnsafeBufferPointer { wp in
            let wt = wp.baseAddress!
            let w0 = wt[0]
            for row in 0..<src.height {
                let s = block.buffer.row(row) + r
                let d = tmp.buffer.row(row)
                for x in 0..<w {
                    var acc = s[x] * w0
                    var k = 1
                    while k <= r {
                        acc += (s[x - k] + s[x + k]) * wt[k]
                        k += 1
                    }
                    d[x] = acc
                }
            }
            // Vertical pass, row by row so the inner loop runs along x.
            for row in 0..<rect.height {
                let d = out.row(row)
                let c = tmp.buffer.row(row + r)
                for x in 0..<w { d[x] = c[x] * w0 }
                var k = 1
                while k <= r {
                    let up = tmp.buffer.row(row + r - k), down = tmp.buffer.row(row + r + k)
                    let wk = wt[k]
                    for x in 0..<w { d[x] += (up[x] + down[x]) * wk }
                    k += 1
                }
            }
        }
    }
    override var label: String { "\(name) (separable, radius \(radius))" }
}

/// CIBoxBlur: a square box of side 2r+1, by running sums (cost independent of r).
final class BoxBlurNode: RecipeNode, NeighborhoodNode, @unchecked Sendable {
    let radius: Int
    var halo: Int { radius }
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
