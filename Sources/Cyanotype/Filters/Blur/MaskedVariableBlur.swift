// CIMaskedVariableBlur: a disc blur whose radius each pixel reads from a mask. The discs are
// rows of spans over block prefix sums (`SpanRows`), so a pixel costs one window per row of
// its own disc, and neighbours with the same whole radius share each row's pass.

extension BuiltinFilters {
    /// CIMaskedVariableBlur: Blurs with a per-pixel radius taken from a mask image.
    static let maskedVariableBlur = BuiltinFilter(
        FilterDescriptor(
            "CIMaskedVariableBlur", "Masked Variable Blur", "Blurs with a per-pixel radius taken from a mask image.",
            categories: [.blur, .builtIn, .highDynamicRange, .stillImage, .video], macOS: "10.10", iOS: "8", factory: "maskedVariableBlur",
            doc: """
                Each pixel blurred by CIDiscBlur of its own radius,
                `radius * m`, m the mask's Rec. 709 luma at that pixel clamped to 0...1 (black: not
                blurred; white: the full radius; outside the mask's extent, clear, so 0). Apple
                publishes no formula; ours is exactly CIDiscBlur's disc at every pixel: for a radius
                n + f, the mean over the integer offsets within n weighted 1 - f plus the mean over
                those within n + 1 weighted f, so a constant mask gives CIDiscBlur of `radius * m`,
                and the blur grows smoothly with the mask. Premultiplied pixels, clear outside the
                input; the extent is the input's.
                """,
            inputs: [
                .image(),
                .image(
                    "inputMask", "Mask",
                    """
                    The mask: its luma, from black (sharp) to white (the full radius),
                    sets each pixel's radius.
                    """),
                .number(
                    "inputRadius", "Radius", .scalar, default: 5, identity: 0, min: 0, slider: 0...10, limit: .discRadius,
                    "The disc's radius where the mask is white, in pixels."),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let mask = try args.image("inputMask")
        let radius = try args.number(kCIInputRadiusKey)
        if radius <= 0 || image.extent.isEmpty { return image }
        return CIImage(node: NeighbourhoodNode(input: image.node, auxiliary: [mask.node], operation: MaskedDiscBlur(radius: radius)))
    }
}

/// CIMaskedVariableBlur's operation: per pixel, CIDiscBlur's blend of discs n and n + 1 for
/// the radius `radius * clamp(luma(mask), 0, 1) = n + f`.
struct MaskedDiscBlur: NeighbourhoodOperation {
    let radius: Double
    /// The discs of every whole radius 0 ... floor(radius) + 1.
    let discs: [DiscRows]

    init(radius: Double) {
        self.radius = radius
        discs = (0...(Int(radius.rounded(.down)) + 1)).map { DiscRows(radius: Double($0)) }
    }

    /// The largest disc read: floor(radius) + 1 when the radius is not whole.
    private var reachInPixels: Int { radius.rounded(.down) == radius ? Int(radius) : Int(radius.rounded(.down)) + 1 }
    var reach: NeighbourhoodReach {
        let r = reachInPixels
        return NeighbourhoodReach(left: r + AnchoredSums.slack, right: r, below: r, above: r)
    }
    static var auxiliaryCount: Int { 1 }
    /// The mask is read at the output pixels only.
    func auxiliaryRect(_ index: Int, for rect: PixelRect) -> PixelRect { rect }

    func apply(_ input: NeighbourhoodInput, into out: TileBuffer) {
        let r = reachInPixels, w = out.width, chunk = min(w, 256)
        var rows = SpanRows(input, reach: r, chunk: chunk)
        let mask = input.auxiliary[0].buffer
        let scratch = PixelBlock(rect: PixelRect(x: 0, y: 0, width: chunk, height: 2))
        let acc0 = scratch.pixels, acc1 = scratch.pixels + chunk
        let whole = UnsafeMutablePointer<Int>.allocate(capacity: chunk)
        let fraction = UnsafeMutablePointer<Float>.allocate(capacity: chunk)
        defer { whole.deallocate(); fraction.deallocate() }
        let luma = lumaWeights, R = radius, top = Int(radius.rounded(.down))
        let counts = discs.map { Float($0.count) }
        var x0 = 0
        while x0 < w {
            let cw = min(chunk, w - x0)
            rows.startChunk(x0, width: cw)
            for y in 0..<out.height {
                // Each pixel's radius n + f.
                let m = mask.row(y) + x0
                for i in 0..<cw {
                    let v = m[i].x * luma.x + m[i].y * luma.y + m[i].z * luma.z
                    let t = v > 0 ? min(Double(v), 1) : 0  // NaN reads as 0
                    let rho = R * t
                    let n = min(Int(rho.rounded(.down)), top)
                    whole[i] = n
                    fraction[i] = Float(rho - Double(n))
                }
                // Runs of pixels of the same whole radius share each row's window pass.
                var i = 0
                while i < cw {
                    let n = whole[i]
                    var j = i + 1, blends = fraction[i] > 0
                    while j < cw && whole[j] == n { blends = blends || fraction[j] > 0; j += 1 }
                    let left = input.rect.minX + x0 + i
                    (acc0 + i).update(repeating: .zero, count: j - i)
                    addDisc(discs[n], &rows, centreRow: y + r, left: left, count: j - i, into: acc0 + i)
                    if blends {
                        (acc1 + i).update(repeating: .zero, count: j - i)
                        addDisc(discs[n + 1], &rows, centreRow: y + r, left: left, count: j - i, into: acc1 + i)
                    }
                    let d = out.row(y) + x0
                    for k in i..<j {
                        let f = fraction[k]
                        d[k] = f > 0 ? blendDiscMeans(acc0[k] / counts[n], acc1[k] / counts[n + 1], f) : acc0[k] / counts[n]
                    }
                    i = j
                }
            }
            x0 += cw
        }
    }

    var label: String { "masked variable disc blur (radius \(radius), spans)" }
}
