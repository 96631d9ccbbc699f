// CIDiscBlur: the mean over a disc, as rows of horizontal spans. A disc is a union of
// horizontal segments, so its sum is one window sum per row of the disc, each window read
// off block prefix sums of that row (`AnchoredSums`): O(radius) per pixel instead of
// O(radius²), and the same bits whichever tile computes it.

extension FilterInputLimit {
    /// The disc blurs' radius (CIDiscBlur, CIBokehBlur, CIMaskedVariableBlur): a tile reads
    /// its input with a halo of the radius, and each pixel sums one span per row of the disc.
    static let discRadius = FilterInputLimit(minimum: 0, maximum: 250, reason: "a tile reads its input with a halo of the radius, and past 250 pixels that halo outgrows memory")
}

extension BuiltinFilters {
    /// CIDiscBlur: Blurs with a circular (disc) kernel.
    static let discBlur = BuiltinFilter(
        FilterDescriptor(
            "CIDiscBlur", "Disc Blur", "Blurs with a circular (disc) kernel.",
            categories: [.blur, .builtIn, .highDynamicRange, .stillImage, .video], macOS: "10.5", iOS: "9", factory: "discBlur",
            doc: """
                The mean of the input over a disc. Apple publishes no formula; ours, for a
                whole radius n, is the plain mean over the integer offsets (dx, dy) with
                dx² + dy² <= n², so an impulse spreads into exactly that disc, evenly; for a radius
                n + f between whole ones, the mean over disc n weighted 1 - f plus the mean over disc
                n + 1 weighted f, so the blur grows smoothly with the radius. Premultiplied pixels,
                clear outside the input (clamp the input first for solid edges, as with Core Image);
                the extent grows by the disc's reach. Radius 0 is the image itself.
                """,
            inputs: [
                .image(),
                .number("inputRadius", "Radius", .distance, default: 8, min: 0, slider: 0...100, limit: .discRadius, "The disc's radius, in pixels."),
            ]),
        reach: .halo(kCIInputRadiusKey, plus: 1)
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let radius = try args.number(kCIInputRadiusKey)
        if radius <= 0 || image.extent.isEmpty { return image }
        return CIImage(node: NeighbourhoodNode(input: image.node, operation: DiscBlur(radius: radius)))
    }
}

/// The disc of integer offsets within a radius, row by row: row `a` (|a| <= reach) covers
/// the columns `-halfWidth[|a|] ... halfWidth[|a|]`.
struct DiscRows: Sendable {
    /// `halfWidth[a]`: the largest h with h² + a² <= r².
    let halfWidth: [Int]
    /// The disc's rows reach this far up and down (the radius, rounded down).
    var reach: Int { halfWidth.count - 1 }
    /// Pixels in the disc.
    let count: Int

    /// The disc of the offsets with dx² + dy² <= radius² (radius >= 0).
    init(radius: Double) {
        let r2 = radius * radius
        let reach = Int(radius.rounded(.down))
        var widths = [Int]()
        widths.reserveCapacity(reach + 1)
        for a in 0...max(0, reach) {
            let rest = r2 - Double(a * a)
            var h = Int(max(0, rest).squareRoot().rounded(.down))
            // Exact in integers, whatever the square root rounded to.
            while Double((h + 1) * (h + 1)) <= rest { h += 1 }
            while h > 0 && Double(h * h) > rest { h -= 1 }
            widths.append(h)
        }
        halfWidth = widths
        count = widths.enumerated().reduce(0) { $0 + ($1.offset == 0 ? 1 : 2) * (2 * $1.element + 1) }
    }
}

/// Block prefix sums of a tile's input rows, kept for a band of rows at a time (a ring), over
/// the columns one chunk of output columns needs: what the span filters (disc, bokeh, masked
/// variable blur) read their windows from.
struct SpanRows {
    let input: NeighbourhoodInput
    /// Rows kept: output row y reads the input rows y - reach ... y + reach (tile offsets).
    let reach: Int
    let slots: Int
    /// Absolute column of each prefix run's first pixel (a multiple of `AnchoredSums.block`).
    private(set) var base = 0
    private(set) var count = 0
    private let eStride: Int, tStride: Int
    private let e: PixelBlock, t: PixelBlock
    /// Which input row each slot holds (-1: none).
    private var held: [Int]

    /// For a tile whose disc reaches `reach` rows and whose output chunks are at most
    /// `chunk` columns wide.
    init(_ input: NeighbourhoodInput, reach: Int, chunk: Int) {
        self.input = input
        self.reach = reach
        slots = 2 * reach + 1
        let capacity = chunk + 2 * reach + AnchoredSums.block
        eStride = AnchoredSums.prefixCapacity(capacity)
        tStride = AnchoredSums.totalsCapacity(capacity)
        e = PixelBlock(rect: PixelRect(x: 0, y: 0, width: eStride, height: slots))
        t = PixelBlock(rect: PixelRect(x: 0, y: 0, width: tStride, height: slots))
        held = [Int](repeating: -1, count: slots)
    }

    /// Starts the chunk of output columns `x0 ..< x0 + width` (tile offsets): its windows
    /// reach `reach` columns either side.
    mutating func startChunk(_ x0: Int, width: Int) {
        let first = input.rect.minX + x0 - reach
        base = AnchoredSums.blockStart(first)
        count = input.rect.minX + x0 + width + reach - base
        for i in 0..<slots { held[i] = -1 }
    }

    /// The prefix run of input row `j` (index into `input.pixels`), computed on first use.
    mutating func row(_ j: Int) -> (e: UnsafePointer<SIMD4<Float>>, t: UnsafePointer<SIMD4<Float>>) {
        let slot = j % slots
        let ep = e.pixels + slot * eStride, tp = t.pixels + slot * tStride
        if held[slot] != j {
            let src = input.pixels.row(j) + (base - input.originX)
            AnchoredSums.prefix(src, count: count, e: ep, t: tp)
            held[slot] = j
        }
        return (UnsafePointer(ep), UnsafePointer(tp))
    }

    /// The index, in a prefix run of this chunk, of the absolute column `x`.
    @inline(__always) func column(_ x: Int) -> Int { x - base }
}

/// CIDiscBlur: the mean over disc n weighted 1 - f plus the mean over disc n + 1 weighted f,
/// for a radius n + f (f = 0: disc n alone), as `blendDiscMeans`. Per output row, one window
/// sum per row of each disc. The extent grows by the reach.
struct DiscBlur: NeighbourhoodOperation {
    let radius: Double
    let inner: DiscRows
    /// Disc n + 1, when the radius is not whole.
    let outer: DiscRows?
    let fraction: Float

    init(radius: Double) {
        self.radius = radius
        let n = radius.rounded(.down)
        inner = DiscRows(radius: n)
        fraction = Float(radius - n)
        outer = fraction > 0 ? DiscRows(radius: n + 1) : nil
    }

    var reachInPixels: Int { (outer ?? inner).reach }
    var reach: NeighbourhoodReach {
        let r = reachInPixels
        return NeighbourhoodReach(left: r + AnchoredSums.slack, right: r, below: r, above: r)
    }

    func extent(of input: CGRect) -> CGRect {
        let r = CGFloat(reachInPixels)
        return input.isInfinite ? .infinite : input.insetBy(dx: -r, dy: -r)
    }

    func apply(_ input: NeighbourhoodInput, into out: TileBuffer) {
        let n0 = Float(inner.count), n1 = Float(outer?.count ?? 1), f = fraction
        sumDiscsByRow(input, into: out, reach: reachInPixels, first: inner, second: outer) { s0, s1, d, count in
            if let s1 {
                for i in 0..<count { d[i] = blendDiscMeans(s0[i] / n0, s1[i] / n1, f) }
            } else {
                for i in 0..<count { d[i] = s0[i] / n0 }
            }
        }
    }

    var label: String { "disc blur (radius \(radius), spans)" }
}

/// The mean over disc n weighted 1 - f plus the mean over disc n + 1 weighted f, written so
/// that equal means give that mean exactly (sums divided by their counts, not multiplied by
/// reciprocals: an opaque image stays exactly opaque, which keeps 8-bit writes on their fast
/// path).
@inline(__always) func blendDiscMeans(_ m0: SIMD4<Float>, _ m1: SIMD4<Float>, _ f: Float) -> SIMD4<Float> {
    m0 + (m1 - m0) * f
}

/// The row loop the disc-shaped blurs share: the output in chunks of at most 256 columns and,
/// for each output row, the sums over `first` (and over `second`, when given) of the input
/// around each pixel, handed to `combine` with the output row's chunk and its width.
@inline(__always)
func sumDiscsByRow(
    _ input: NeighbourhoodInput, into out: TileBuffer, reach r: Int, first: DiscRows, second: DiscRows?,
    _ combine: (
        _ sum0: UnsafeMutablePointer<SIMD4<Float>>, _ sum1: UnsafeMutablePointer<SIMD4<Float>>?, _ out: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int
    ) -> Void
) {
    let w = out.width, chunk = min(w, 256)
    var rows = SpanRows(input, reach: r, chunk: chunk)
    let sums = PixelBlock(rect: PixelRect(x: 0, y: 0, width: chunk, height: 2))
    let acc0 = sums.pixels, acc1 = sums.pixels + chunk
    var x0 = 0
    while x0 < w {
        let cw = min(chunk, w - x0)
        rows.startChunk(x0, width: cw)
        let left = input.rect.minX + x0
        for y in 0..<out.height {
            // Output row y sits on input row y + r (the input starts r rows below).
            acc0.update(repeating: .zero, count: cw)
            addDisc(first, &rows, centreRow: y + r, left: left, count: cw, into: acc0)
            if let second {
                acc1.update(repeating: .zero, count: cw)
                addDisc(second, &rows, centreRow: y + r, left: left, count: cw, into: acc1)
            }
            combine(acc0, second == nil ? nil : acc1, out.row(y) + x0, cw)
        }
        x0 += cw
    }
}

/// Adds the sums over `disc` centred on input row `centreRow` (an index into the tile's
/// input) and on the absolute columns `left ..< left + count`, rows from the bottom of the
/// disc up, into `acc`.
func addDisc(_ disc: DiscRows, _ rows: inout SpanRows, centreRow: Int, left: Int, count: Int, into acc: UnsafeMutablePointer<SIMD4<Float>>) {
    let n = disc.reach
    disc.halfWidth.withUnsafeBufferPointer { hw in
        for a in -n...n {
            let h = hw[abs(a)]
            let (e, t) = rows.row(centreRow + a)
            AnchoredSums.addWindows(e, t, from: rows.column(left - h), length: 2 * h + 1, count: count, into: acc)
        }
    }
}
