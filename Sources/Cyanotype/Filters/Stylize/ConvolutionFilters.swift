// The CIConvolution family: one weighted-neighbourhood kernel (WeightedNeighborhoodNode) for
// all ten filters, declared as one table below.

/// The shape of a convolution: `columns` x `rows` weights, applied to RGBA or to RGB only.
struct ConvolutionShape: Sendable {
    let columns: Int, rows: Int
    let channels: WeightedNeighborhoodNode.Channels
}

extension BuiltinFilters {
    /// The convolutions. What each output pixel is (Apple documents the sum, the bias and the
    /// clamp; the weight order and the alpha handling of the RGB variants are our reading,
    /// stated here):
    ///
    ///     out = clamp(bias + sum_{j,i} weights[j * n + i] * in(x + i - n/2, y + m/2 - j), 0, 1)
    ///
    /// for an n-column, m-row kernel, on premultiplied working-space pixels. Weights are
    /// row-major with the **top** row (as displayed) first, the leftmost weight of each row
    /// first; the kernel is applied as written, not flipped (a correlation).
    /// CIConvolution9Vertical's first weight is therefore the pixel 4 rows above. The RGBA
    /// filters apply weights and bias to all four components; the RGB filters to red, green
    /// and blue only and keep the input pixel's alpha. The output extent is the input's;
    /// pixels outside the input read as clear, so clamp the input (`clampedToExtent()`) first
    /// for solid edges, as with Core Image.
    ///
    /// - inputWeights: The kernel's weights, row by row from the top, leftmost first. A vector
    ///   shorter than the kernel reads missing weights as 0 (as `CIVector.value(at:)` does);
    ///   extra values are ignored; a non-finite weight is a `CIFilterError.nonFinite`.
    /// - inputBias: Added to every weighted sum before the clamp.
    static let convolutions = BuiltinFilter.family([
        /// CIConvolution3X3: a 3x3 weighted sum of RGBA plus bias.
        (Catalog.CIConvolution3X3, ConvolutionShape(columns: 3, rows: 3, channels: .rgba)),
        /// CIConvolution5X5: a 5x5 weighted sum of RGBA plus bias.
        (Catalog.CIConvolution5X5, ConvolutionShape(columns: 5, rows: 5, channels: .rgba)),
        /// CIConvolution7X7: a 7x7 weighted sum of RGBA plus bias.
        (Catalog.CIConvolution7X7, ConvolutionShape(columns: 7, rows: 7, channels: .rgba)),
        /// CIConvolution9Horizontal: 9 taps along the row (leftmost weight first) on RGBA, plus bias.
        (Catalog.CIConvolution9Horizontal, ConvolutionShape(columns: 9, rows: 1, channels: .rgba)),
        /// CIConvolution9Vertical: 9 taps along the column (topmost weight first) on RGBA, plus bias.
        (Catalog.CIConvolution9Vertical, ConvolutionShape(columns: 1, rows: 9, channels: .rgba)),
        /// CIConvolutionRGB3X3: CIConvolution3X3 on red, green and blue; alpha is left alone.
        (Catalog.CIConvolutionRGB3X3, ConvolutionShape(columns: 3, rows: 3, channels: .rgb)),
        /// CIConvolutionRGB5X5: CIConvolution5X5 on red, green and blue; alpha is left alone.
        (Catalog.CIConvolutionRGB5X5, ConvolutionShape(columns: 5, rows: 5, channels: .rgb)),
        /// CIConvolutionRGB7X7: CIConvolution7X7 on red, green and blue; alpha is left alone.
        (Catalog.CIConvolutionRGB7X7, ConvolutionShape(columns: 7, rows: 7, channels: .rgb)),
        /// CIConvolutionRGB9Horizontal: CIConvolution9Horizontal on red, green and blue.
        (Catalog.CIConvolutionRGB9Horizontal, ConvolutionShape(columns: 9, rows: 1, channels: .rgb)),
        /// CIConvolutionRGB9Vertical: CIConvolution9Vertical on red, green and blue.
        (Catalog.CIConvolutionRGB9Vertical, ConvolutionShape(columns: 1, rows: 9, channels: .rgb)),
    ]) { args, shape throws(CIFilterError) in
        try convolved(args, columns: shape.columns, rows: shape.rows, channels: shape.channels)
    }
}

/// The recipe shared by the convolution filters: reads `inputWeights` (`columns * rows`
/// values, top row first) and `inputBias`, and builds one weighted-neighbourhood node.
private func convolved(_ args: FilterArguments, columns: Int, rows: Int,
                       channels: WeightedNeighborhoodNode.Channels) throws(CIFilterError) -> CIImage {
    let image = try args.image()
    let vector = try args.vector("inputWeights")
    let bias = try args.float("inputBias")
    let weights = (0..<(columns * rows)).map { Float(vector.value(at: $0)) }
    guard weights.allSatisfy(\.isFinite) else { throw .nonFinite(filter: args.descriptor.name, key: "inputWeights") }
    guard bias.isFinite else { throw .nonFinite(filter: args.descriptor.name, key: "inputBias") }
    let name = args.descriptor.name.dropFirst(2).lowercased()
    return CIImage(node: WeightedNeighborhoodNode(input: image.node, columns: columns, rows: rows, weights: weights,
                                                  bias: bias, channels: channels, name: String(name)))
}
