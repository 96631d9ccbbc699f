// Pixellation, crystals and dots: every pixel takes the colour of the cell it lies in, sampled
// at one point of the cell (the engine's cell kind, `CellNode`; each filter's file supplies
// its `CellLayout`). Apple publishes no formula; ours, stated per filter, follows its
// documented parameters: `inputCenter` places the grid, `inputScale` or `inputRadius` sizes
// the cells.
//
// A cell's colour is the input sampled bilinearly at the cell's sample point, on
// premultiplied working-space pixels, clear outside the input (as a Core Image kernel's
// sampler reads): a sample point on a pixel corner averages the four pixels around it, one
// on a pixel centre is that pixel. Cells at the border whose sample point falls outside the
// input are clear or partly clear, so clamp the input (`clampedToExtent()`) and crop the
// result for solid edges. An infinite input gives an infinite output.
//
// Parameters: `inputScale` (`inputRadius`) below 1 is 1 (Apple's minimum); it and the centre
// have declared limits (`cellSize`, `cellCentre`); NaN or infinite values are a
// `CIFilterError.nonFinite`.

extension FilterInputLimit {
    /// A cell's size (pixellate, crystallize, pointillize): at most 2^30 pixels.
    static let cellSize = FilterInputLimit(maximum: 1_073_741_824, reason: "the renderer addresses pixels within ±2^30, and a larger cell would cover them all")
    /// A pattern's centre (cell grids, tiles, kaleidoscopes): each coordinate within ±2^40.
    static let cellCentre = FilterInputLimit(
        minimum: -1_099_511_627_776, maximum: 1_099_511_627_776,
        reason: "±2^40 is far outside any image already, and keeps the integer pixel coordinates of sample points from overflowing")
}

extension BuiltinFilters {
    /// CIPixellate: Pixelates into square cells of averaged color.
    static let pixellate = BuiltinFilter(
        FilterDescriptor(
            "CIPixellate", "Pixelate", "Pixelates into square cells of averaged color.",
            categories: [.builtIn, .highDynamicRange, .stillImage, .stylize, .video], macOS: "10.4", iOS: "6", factory: "pixellate",
            doc: """
                Square cells of side `s = scale` on a grid whose lines pass through
                `center` (c). The pixel whose centre is p lies in cell
                `(i, j) = (floor((p.x - c.x) / s), floor((p.y - c.y) / s))` and takes the input sampled
                at that cell's middle, `c + ((i + 0.5) s, (j + 0.5) s)`. The output extent is every
                cell that overlaps the input, whole.
                """,
            inputs: [
                .image(),
                .vector("inputCenter", "Center", .position, default: [150, 150], limit: .cellCentre),
                .number("inputScale", "Scale", .distance, default: 8, min: 1, slider: 1...100, limit: .cellSize),
            ]),
        reach: .halo(kCIInputScaleKey, plus: 1)
    ) {
        args throws(CIFilterError) in
        let image = try args.image()
        let (center, scale) = try cellParameters(args, scaleKey: kCIInputScaleKey)
        return CIImage(node: CellNode(input: image.node, layout: SquareCells(center: center, scale: scale)))
    }
}

/// `inputCenter` and the cell size under `scaleKey`, as declared (`cellCentre`, `cellSize`).
func cellParameters(_ args: FilterArguments, scaleKey: String) throws(CIFilterError) -> (SIMD2<Double>, Double) {
    let c = try args.point(kCIInputCenterKey)
    let scale = try args.number(scaleKey)
    return (SIMD2(Double(c.x), Double(c.y)), scale)
}

/// CIPixellate's squares: side `scale`, grid lines through `center`; a cell samples at its
/// middle.
struct SquareCells: CellLayout {
    let center: SIMD2<Double>
    let scale: Double

    @inline(__always) func cellStart(_ v: Double, _ c: Double) -> Double { ((v - c) / scale).rounded(.down) }
    @inline(__always) func samplePoint(_ px: Double, _ py: Double) -> SIMD2<Double> {
        SIMD2(center.x + (cellStart(px, center.x) + 0.5) * scale, center.y + (cellStart(py, center.y) + 0.5) * scale)
    }
    func extent(for e: CGRect) -> CGRect {
        // Every cell that overlaps the input, whole.
        let x0 = center.x + cellStart(Double(e.minX), center.x) * scale
        let y0 = center.y + cellStart(Double(e.minY), center.y) * scale
        let x1 = center.x + ((Double(e.maxX) - center.x) / scale).rounded(.up) * scale
        let y1 = center.y + ((Double(e.maxY) - center.y) / scale).rounded(.up) * scale
        return CGRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
    func sampleBounds(_ r: PixelRect) -> (SIMD2<Double>, SIMD2<Double>) {
        // Separable and monotonic: the corners' cells bound every cell in between.
        (samplePoint(Double(r.minX) + 0.5, Double(r.minY) + 0.5), samplePoint(Double(r.maxX) - 0.5, Double(r.maxY) - 0.5))
    }
    var label: String { "squares \(scale) at \(center)" }
}
