/// A general (non-separable) weighted neighbourhood: `columns x rows` weights, both odd,
/// plus a bias, clamped to [0, 1]. The kernel behind the CIConvolution family
/// (3x3, 5x5, 7x7, 9 horizontal, 9 vertical, and their RGB-only variants).
///
/// Weight order: row-major, the first row is the **top** row as the image is displayed (the
/// largest y in Core Image's y-up coordinates), the first weight of a row its leftmost pixel.
/// It is a correlation (the kernel is not flipped): the weight at (column i, row j) multiplies
/// the input pixel at (x + i - columns/2, y + rows/2 - j).
///
/// The sums run on the premultiplied working-space pixels Core Image kernels see. `.rgba`
/// convolves and biases all four components; `.rgb` convolves and biases red, green and blue
/// and keeps the centre pixel's alpha. Each resulting component is clamped to [0, 1], as
/// Apple's filter reference describes. Pixels outside the input are clear. The output extent is
/// the input's (infinite stays infinite); each tile reads its input with a halo of
/// `columns/2` by `rows/2` pixels.
final class WeightedNeighborhoodNode: RecipeNode, @unchecked Sendable {
    enum Channels: Sendable { case rgba, rgb }

    let columns: Int
    let rows: Int
    /// Row-major, top row first (see the type's comment).
    let weights: [Float]
    let bias: Float
    let channels: Channels
    let name: String
    override var halo: Int { max(columns, rows) / 2 }
    override var isExpensive: Bool { true }

    init(input: RecipeNode, columns: Int, rows: Int, weights: [Float], bias: Float, channels: Channels, name: String) {
        precondition(columns % 2 == 1 && rows % 2 == 1 && weights.count == columns * rows)
        self.columns = columns
        self.rows = rows
        self.weights = weights
        self.bias = bias
        self.channels = channels
        self.name = name
        super.init(extent: input.extent, inputs: [input])
    }

    override func inputRect(_ index: Int, for rect: PixelRect) -> PixelRect {
        rect.insetBy(dx: -(columns / 2), dy: -(rows / 2))
    }

    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        let rx = columns / 2, ry = rows / 2
        let src = rect.insetBy(dx: -rx, dy: -ry)
        let block = PixelBlock(rect: src)
        ev.fill(inputs[0], src, block.buffer)
        let sw = src.width, w = rect.width
        // The non-zero taps as (pointer offset from the centre pixel, weight), once per tile.
        var offsets: [Int] = []
        var taps: [Float] = []
        offsets.reserveCapacity(weights.count)
        taps.reserveCapacity(weights.count)
        for j in 0..<rows {
            for i in 0..<columns where weights[j * columns + i] != 0 {
                offsets.append((ry - j) * sw + (i - rx))
                taps.append(weights[j * columns + i])
            }
        }
        let start = channels == .rgba ? SIMD4<Float>(repeating: bias) : SIMD4<Float>(bias, bias, bias, 0)
        let zero = SIMD4<Float>.zero, one = SIMD4<Float>(repeating: 1)
        let keepAlpha = channels == .rgb
        offsets.withUnsafeBufferPointer { op in
            taps.withUnsafeBufferPointer { tp in
                let n = tp.count
                for oy in 0..<rect.height {
                    let centre = block.pixels + (oy + ry) * sw + rx
                    let d = out.row(oy)
                    d.update(repeating: start, count: w)
                    for t in 0..<n {
                        let s = centre + op[t], wt = tp[t]
                        for x in 0..<w { d[x] += s[x] * wt }
                    }
                    for x in 0..<w {
                        var v = d[x]
                        v = v.replacing(with: zero, where: v .< zero)
                        v = v.replacing(with: one, where: v .> one)
                        if keepAlpha { v.w = centre[x].w }
                        d[x] = v
                    }
                }
            }
        }
    }

    override var label: String { "\(name) (\(columns)x\(rows) weights, bias \(bias))" }
}
