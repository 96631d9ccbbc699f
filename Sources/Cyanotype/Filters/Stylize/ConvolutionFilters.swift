// The CIConvolution family: one weighted-neighbourhood operation (`WeightedNeighbourhood`,
// run by the engine's `NeighbourhoodNode`) for all ten filters, declared as one table below.

/// The shape of a convolution: `columns` x `rows` weights, applied to RGBA or to RGB only.
struct ConvolutionShape: Sendable {
    let columns: Int, rows: Int
    let channels: WeightedNeighbourhood.Channels
}

extension BuiltinFilters {
    /// The family of CIConvolution3X3, CIConvolution5X5, CIConvolution7X7 and 7 more: one implementation, a table per filter.
    static let convolutions = BuiltinFilter.family(
        doc: """
            The convolutions. What each output pixel is (Apple documents the sum, the bias and the
            clamp; the weight order and the alpha handling of the RGB variants are our reading,
            stated here):

                out = clamp(bias + sum_{j,i} weights[j * n + i] * in(x + i - n/2, y + m/2 - j), 0, 1)

            for an n-column, m-row kernel, on premultiplied working-space pixels. Weights are
            row-major with the **top** row (as displayed) first, the leftmost weight of each row
            first; the kernel is applied as written, not flipped (a correlation).
            CIConvolution9Vertical's first weight is therefore the pixel 4 rows above. The RGBA
            filters apply weights and bias to all four components; the RGB filters to red, green
            and blue only and keep the input pixel's alpha. The output extent is the input's;
            pixels outside the input read as clear, so clamp the input (`clampedToExtent()`) first
            for solid edges, as with Core Image.
            """,
        categories: [.builtIn, .highDynamicRange, .stillImage, .stylize, .video], protocol: "CIConvolution",
        inputs: [
            .number("inputBias", "Bias", .scalar, default: 0, identity: 0, "Added to every weighted sum before the clamp.")
        ],
        [
            (
                FilterDescriptor(
                    "CIConvolution3X3", "3 by 3 Convolution", "Convolves RGBA with a 3x3 weight matrix plus bias.",
                    macOS: "10.9", iOS: "7", factory: "convolution3X3",
                    doc: "A 3x3 weighted sum of RGBA plus bias.",
                    inputs: [
                        .image(),
                        .vector(
                            "inputWeights", "Weights", nil, default: [0, 0, 0, 0, 1, 0, 0, 0, 0], identity: [0, 0, 0, 0, 1, 0, 0, 0, 0],
                            """
                            The kernel's weights, row by row from the top, leftmost first. A vector
                            shorter than the kernel reads missing weights as 0 (as `CIVector.value(at:)` does);
                            extra values are ignored; a non-finite weight is a `CIFilterError.nonFinite`.
                            """),
                    ]),
                ConvolutionShape(columns: 3, rows: 3, channels: .rgba)
            ),
            (
                FilterDescriptor(
                    "CIConvolution5X5", "5 by 5 Convolution", "Convolves RGBA with a 5x5 weight matrix plus bias.",
                    macOS: "10.9", iOS: "7", factory: "convolution5X5",
                    doc: "A 5x5 weighted sum of RGBA plus bias.",
                    inputs: [
                        .image(),
                        .vector(
                            "inputWeights", "Weights", nil, default: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                            identity: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                            """
                            The kernel's weights, row by row from the top, leftmost first. A vector
                            shorter than the kernel reads missing weights as 0 (as `CIVector.value(at:)` does);
                            extra values are ignored; a non-finite weight is a `CIFilterError.nonFinite`.
                            """),
                    ]),
                ConvolutionShape(columns: 5, rows: 5, channels: .rgba)
            ),
            (
                FilterDescriptor(
                    "CIConvolution7X7", "7 by 7 Convolution", "Convolves RGBA with a 7x7 weight matrix plus bias.",
                    macOS: "10.9", iOS: "9", factory: "convolution7X7",
                    doc: "A 7x7 weighted sum of RGBA plus bias.",
                    inputs: [
                        .image(),
                        .vector(
                            "inputWeights", "Weights", nil,
                            default: [
                                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                            ],
                            identity: [
                                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                            ],
                            """
                            The kernel's weights, row by row from the top, leftmost first. A vector
                            shorter than the kernel reads missing weights as 0 (as `CIVector.value(at:)` does);
                            extra values are ignored; a non-finite weight is a `CIFilterError.nonFinite`.
                            """),
                    ]),
                ConvolutionShape(columns: 7, rows: 7, channels: .rgba)
            ),
            (
                FilterDescriptor(
                    "CIConvolution9Horizontal", "Horizontal 9 Convolution", "Convolves RGBA with a 9-tap horizontal kernel plus bias.",
                    macOS: "10.9", iOS: "7", factory: "convolution9Horizontal",
                    doc: "9 taps along the row (leftmost weight first) on RGBA, plus bias.",
                    inputsLike: "CIConvolution3X3"),
                ConvolutionShape(columns: 9, rows: 1, channels: .rgba)
            ),
            (
                FilterDescriptor(
                    "CIConvolution9Vertical", "Vertical 9 Convolution", "Convolves RGBA with a 9-tap vertical kernel plus bias.",
                    macOS: "10.9", iOS: "7", factory: "convolution9Vertical",
                    doc: "9 taps along the column (topmost weight first) on RGBA, plus bias.",
                    inputsLike: "CIConvolution3X3"),
                ConvolutionShape(columns: 1, rows: 9, channels: .rgba)
            ),
            (
                FilterDescriptor(
                    "CIConvolutionRGB3X3", "3 by 3 RGB Convolution", "3x3 convolution applied to RGB only (alpha preserved).",
                    macOS: "12.0", iOS: "15", factory: "convolutionRGB3X3",
                    doc: "CIConvolution3X3 on red, green and blue; alpha is left alone.",
                    inputsLike: "CIConvolution3X3"),
                ConvolutionShape(columns: 3, rows: 3, channels: .rgb)
            ),
            (
                FilterDescriptor(
                    "CIConvolutionRGB5X5", "5 by 5 RGB Convolution", "5x5 convolution applied to RGB only (alpha preserved).",
                    macOS: "12.0", iOS: "15", factory: "convolutionRGB5X5",
                    doc: "CIConvolution5X5 on red, green and blue; alpha is left alone.",
                    inputsLike: "CIConvolution5X5"),
                ConvolutionShape(columns: 5, rows: 5, channels: .rgb)
            ),
            (
                FilterDescriptor(
                    "CIConvolutionRGB7X7", "7 by 7 RGB Convolution", "7x7 convolution applied to RGB only (alpha preserved).",
                    macOS: "12.0", iOS: "15", factory: "convolutionRGB7X7",
                    doc: "CIConvolution7X7 on red, green and blue; alpha is left alone.",
                    inputsLike: "CIConvolution7X7"),
                ConvolutionShape(columns: 7, rows: 7, channels: .rgb)
            ),
            (
                FilterDescriptor(
                    "CIConvolutionRGB9Horizontal", "Horizontal 9 RGB Convolution", "9-tap horizontal convolution applied to RGB only.",
                    macOS: "12.0", iOS: "15", factory: "convolutionRGB9Horizontal",
                    doc: "CIConvolution9Horizontal on red, green and blue.",
                    inputsLike: "CIConvolution3X3"),
                ConvolutionShape(columns: 9, rows: 1, channels: .rgb)
            ),
            (
                FilterDescriptor(
                    "CIConvolutionRGB9Vertical", "Vertical 9 RGB Convolution", "9-tap vertical convolution applied to RGB only.",
                    macOS: "12.0", iOS: "15", factory: "convolutionRGB9Vertical",
                    doc: "CIConvolution9Vertical on red, green and blue.",
                    inputsLike: "CIConvolution3X3"),
                ConvolutionShape(columns: 1, rows: 9, channels: .rgb)
            ),
        ],
        reach: .pixels(4)
    ) { args, shape throws(CIFilterError) in
        try convolved(args, columns: shape.columns, rows: shape.rows, channels: shape.channels)
    }
}

/// The recipe shared by the convolution filters: reads `inputWeights` (`columns * rows`
/// values, top row first) and `inputBias`, and builds one weighted-neighbourhood node.
private func convolved(
    _ args: FilterArguments, columns: Int, rows: Int,
    channels: WeightedNeighbourhood.Channels
) throws(CIFilterError) -> CIImage {
    let image = try args.image()
    let vector = try args.vector("inputWeights")
    let bias = try args.float("inputBias")
    let weights = (0..<(columns * rows)).map { Float(vector.value(at: $0)) }
    guard weights.allSatisfy(\.isFinite) else { throw .nonFinite(filter: args.descriptor.name, key: "inputWeights") }
    guard bias.isFinite else { throw .nonFinite(filter: args.descriptor.name, key: "inputBias") }
    let name = args.descriptor.name.dropFirst(2).lowercased()
    let operation = WeightedNeighbourhood(columns: columns, rows: rows, weights: weights, bias: bias, channels: channels, name: String(name))
    return CIImage(node: NeighbourhoodNode(input: image.node, operation: operation))
}

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
/// the input's (infinite stays infinite); each output pixel reads `columns/2` by `rows/2`
/// pixels around it.
struct WeightedNeighbourhood: NeighbourhoodOperation {
    enum Channels: Sendable { case rgba, rgb }

    let columns: Int
    let rows: Int
    /// Row-major, top row first (see the type's comment).
    let weights: [Float]
    let bias: Float
    let channels: Channels
    let name: String
    var reach: NeighbourhoodReach { NeighbourhoodReach(left: columns / 2, right: columns / 2, below: rows / 2, above: rows / 2) }

    init(columns: Int, rows: Int, weights: [Float], bias: Float, channels: Channels, name: String) {
        precondition(columns % 2 == 1 && rows % 2 == 1 && weights.count == columns * rows)
        self.columns = columns
        self.rows = rows
        self.weights = weights
        self.bias = bias
        self.channels = channels
        self.name = name
    }

    func apply(_ input: NeighbourhoodInput, into out: TileBuffer) {
        let rx = columns / 2, ry = rows / 2
        let rect = input.rect
        let sw = input.rowStride, w = rect.width
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
                    let centre = input.centre(oy)
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

    var label: String { "\(name) (\(columns)x\(rows) weights, bias \(bias))" }
}
