// CIBokehBlur: a lens's out-of-focus disc, with a brighter rim: the disc and the disc inside
// the rim are both rows of spans (`DiscRows`, `SpanRows`), so the ring costs one more window
// per row.

extension BuiltinFilters {
    /// CIBokehBlur: Lens-style disc blur with optional bright ring emphasis.
    static let bokehBlur = BuiltinFilter(
        FilterDescriptor(
            "CIBokehBlur", "Bokeh Blur", "Lens-style disc blur with optional bright ring emphasis.",
            categories: [.blur, .builtIn, .highDynamicRange, .stillImage, .video], macOS: "10.13", iOS: "11", factory: "bokehBlur",
            doc: """
                A lens-like disc blur with an optional bright ring. Apple publishes no
                formula; ours is a kernel over the integer offsets within `radius` (dx² + dy² <= r²):
                the disc, and its ring, the offsets beyond r * (1 - ringSize) (the rim), mixed as
                `(1 - ringAmount) * disc / |disc| + ringAmount * ring / |ring|` (each normalised, so
                the kernel sums to 1: ringAmount 1 is a hollow, all-rim bokeh; a ring with no pixels
                leaves the plain disc), convolved with a Gaussian of standard deviation `softness`
                pixels (out to 3 sigma) that softens the rim (none at 0). Premultiplied pixels, clear
                outside the input; the extent grows by the radius and the softness's 3-sigma reach.
                Radius 0 is the image softened alone.
                """,
            inputs: [
                .image(),
                .number("inputRadius", "Radius", .distance, default: 20, min: 0, max: 500, slider: 0...100, limit: .discRadius, "The disc's radius, in pixels."),
                .number("inputRingAmount", "Ring Amount", .scalar, default: 0, min: 0, max: 1, slider: 0...1, "The share of the kernel's weight on the ring (0: none, 1: all)."),
                .number("inputRingSize", "Ring Size", .scalar, default: 0.1, min: 0, max: 0.2, slider: 0...0.2, "The ring's width, as a fraction of the radius."),
                .number(
                    "inputSoftness", "Softness", .scalar, default: 1, min: 0, max: 10, slider: 0.25...0.4,
                    """
                    The standard deviation, in pixels, of the Gaussian that softens the
                    disc's edge.
                    """),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let radius = try args.number(kCIInputRadiusKey)
        let amount = try args.number("inputRingAmount"), size = try args.number("inputRingSize")
        let softness = try args.number("inputSoftness")
        if image.extent.isEmpty { return image }
        var out = image
        if radius >= 1 {
            out = CIImage(node: NeighbourhoodNode(input: image.node, operation: BokehKernel(radius: radius, ringAmount: amount, ringSize: size)))
        }
        return softness > 0 ? CIImage(node: NeighbourhoodNode(input: out.node, operation: Softening(sigma: softness))) : out
    }
}

/// CIBokehBlur's softness: a separable Gaussian of standard deviation `sigma`, out to
/// ceil(3 sigma), each pass divided by the sum of its weights (added in the same order as
/// the pixels), so an opaque image stays exactly opaque. The extent grows by the reach.
struct Softening: NeighbourhoodOperation {
    let sigma: Double
    /// exp(-k² / 2 sigma²) for k = -r ... r, and their sum, added in that order.
    let weights: [Float]
    let total: Float

    init(sigma: Double) {
        self.sigma = sigma
        let r = max(1, Int((3 * sigma).rounded(.up)))
        weights = (-r...r).map { Float(exp(-Double($0 * $0) / (2 * sigma * sigma))) }
        total = weights.reduce(0, +)
    }

    var radius: Int { weights.count / 2 }
    var reach: NeighbourhoodReach { NeighbourhoodReach(radius) }

    func extent(of input: CGRect) -> CGRect {
        let r = CGFloat(radius)
        return input.isInfinite ? .infinite : input.insetBy(dx: -r, dy: -r)
    }

    func apply(_ input: NeighbourhoodInput, into out: TileBuffer) {
        let r = radius, w = out.width, src = input.pixels, n = 2 * r + 1, sum = total
        let across = PixelBlock(rect: PixelRect(x: 0, y: 0, width: w, height: src.height))
        weights.withUnsafeBufferPointer { wp in
            let k = wp.baseAddress!
            for row in 0..<src.height {
                let s = src.row(row), d = across.buffer.row(row)
                for x in 0..<w {
                    var acc = s[x] * k[0]
                    for j in 1..<n { acc += s[x + j] * k[j] }
                    d[x] = acc / sum
                }
            }
            for row in 0..<out.height {
                let d = out.row(row)
                for x in 0..<w { d[x] = across.buffer.row(row)[x] * k[0] }
                for j in 1..<n {
                    let s = across.buffer.row(row + j)
                    for x in 0..<w { d[x] += s[x] * k[j] }
                }
                for x in 0..<w { d[x] /= sum }
            }
        }
    }

    var label: String { "bokeh softness (gaussian sigma \(sigma), radius \(radius))" }
}

/// CIBokehBlur's disc and ring (before the softening Gaussian): per output pixel,
/// `D + amount * (R - D)`, D the mean over the disc (its sum S(disc) over |disc|) and R the
/// mean over the ring ((S(disc) - S(inner)) / |ring|), so an opaque image stays exactly
/// opaque.
struct BokehKernel: NeighbourhoodOperation {
    let radius: Double
    let disc: DiscRows
    /// The disc inside the ring (nil without a ring).
    let inner: DiscRows?
    /// The ring's share, and the pixel counts of the disc and the ring.
    let share: Float, discCount: Float, ringCount: Float
    let ringAmount: Double, ringSize: Double

    init(radius: Double, ringAmount: Double, ringSize: Double) {
        self.radius = radius
        self.ringAmount = ringAmount
        self.ringSize = ringSize
        disc = DiscRows(radius: radius)
        let inside = DiscRows(radius: radius * (1 - ringSize))
        let ring = disc.count - inside.count
        inner = ringAmount > 0 && ring > 0 ? inside : nil
        share = Float(ringAmount)
        discCount = Float(disc.count)
        ringCount = Float(max(ring, 1))
    }

    var reach: NeighbourhoodReach {
        let r = disc.reach
        return NeighbourhoodReach(left: r + AnchoredSums.slack, right: r, below: r, above: r)
    }

    func extent(of input: CGRect) -> CGRect {
        let r = CGFloat(disc.reach)
        return input.isInfinite ? .infinite : input.insetBy(dx: -r, dy: -r)
    }

    func apply(_ input: NeighbourhoodInput, into out: TileBuffer) {
        let a = share, nd = discCount, nr = ringCount
        sumDiscsByRow(input, into: out, reach: disc.reach, first: disc, second: inner) { s0, s1, d, count in
            if let s1 {
                for i in 0..<count {
                    let m = s0[i] / nd
                    d[i] = m + ((s0[i] - s1[i]) / nr - m) * a
                }
            } else {
                for i in 0..<count { d[i] = s0[i] / nd }
            }
        }
    }

    var label: String { "bokeh (radius \(radius), ring \(ringAmount) of width \(ringSize), spans)" }
}
