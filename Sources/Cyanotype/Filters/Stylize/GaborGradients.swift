// CIGaborGradients: horizontal and vertical derivatives from a 5x5 odd Gabor kernel (a
// sine wave under a Gaussian), in CISobelGradients' output layout.

extension BuiltinFilters {
    /// CIGaborGradients: Multichannel 5x5 Gabor gradient (horizontal/vertical derivative) filter.
    static let gaborGradients = BuiltinFilter(
        FilterDescriptor(
            "CIGaborGradients", "Gabor Gradients", "Multichannel 5x5 Gabor gradient (horizontal/vertical derivative) filter.",
            categories: [.builtIn, .highDynamicRange, .stillImage, .stylize, .video], macOS: "10.15", iOS: "13", factory: "gaborGradients",
            doc: """
                Apple's "multichannel 5x5 Gabor gradient", with the horizontal
                gradient in red and the vertical one in green, signed. Apple publishes the size, not
                the kernel; ours is the odd Gabor kernel
                `g(x, y) = exp(-(x² + y²) / (2 * 1.5²)) * sin(pi * x / 4)`, x, y in -2...2 (a
                quarter-wave over one pixel, under a Gaussian of sigma 1.5), scaled so that a ramp of
                slope s per pixel gives s, applied along x for the horizontal gradient gx and along y
                (upwards, y up) for the vertical one gy, to the premultiplied pixels of the input
                read clamped to its extent. As CISobelGradients does: red is the gx of largest
                magnitude among red, green and blue (the first on ties), green the same for gy, blue
                0, alpha 1. Values may be negative: render to a float format to keep them. The extent
                is the input's.
                """,
            inputs: [
                .image()
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        if image.extent.isEmpty { return image }
        let clamped = image.extent.isInfinite ? image : image.clampedToExtent()
        return CIImage(node: NeighbourhoodNode(input: clamped.node, operation: GaborGradients(outputExtent: image.extent)))
    }
}

/// CIGaborGradients' 5x5 kernel along x (see the declaration); along y it is the transpose.
struct GaborGradients: NeighbourhoodRowOperation {
    let outputExtent: CGRect
    /// weights[(dy + 2) * 5 + (dx + 2)] for the horizontal derivative.
    static let weights: [Float] = {
        let sigma = 1.5
        func g(_ x: Int, _ y: Int) -> Double { exp(-Double(x * x + y * y) / (2 * sigma * sigma)) * sin(Double.pi * Double(x) / 4) }
        // A ramp of slope 1 (value x) must give 1: divide by the sum of x * g.
        var norm = 0.0
        for y in -2...2 { for x in -2...2 { norm += Double(x) * g(x, y) } }
        return (-2...2).flatMap { y in (-2...2).map { x in Float(g(x, y) / norm) } }
    }()

    var reach: NeighbourhoodReach { NeighbourhoodReach(2) }
    func extent(of input: CGRect) -> CGRect { outputExtent }

    func run(_ c: UnsafeMutablePointer<SIMD4<Float>>, stride: Int, into d: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
        Self.weights.withUnsafeBufferPointer { wp in
            let w = wp.baseAddress!
            for x in 0..<count {
                var gx = SIMD4<Float>.zero, gy = SIMD4<Float>.zero
                for dy in -2...2 {
                    let row = c + dy * stride + x
                    for dx in -2...2 {
                        let p = row[dx]
                        // Horizontal: weight at (dx, dy); vertical: the transpose, (dy, dx).
                        gx += p * w[(dy + 2) * 5 + dx + 2]
                        gy += p * w[(dx + 2) * 5 + dy + 2]
                    }
                }
                d[x] = SIMD4(largest(gx), largest(gy), 0, 1)
            }
        }
    }

    /// The component of red, green, blue with the largest magnitude (the first on ties).
    @inline(__always) private func largest(_ g: SIMD4<Float>) -> Float {
        var v = g.x
        if abs(g.y) > abs(v) { v = g.y }
        if abs(g.z) > abs(v) { v = g.z }
        return v
    }

    var label: String { "gabor gradients (5x5)" }
}
