// Pixellation, crystals and dots: every pixel takes the colour of the cell it lies in, sampled
// at one point of the cell (CellSampleNode). Apple publishes no formula; ours, stated per
// filter, follows its documented parameters: `inputCenter` places the grid, `inputScale` or
// `inputRadius` sizes the cells.
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
    static let cellCentre = FilterInputLimit(minimum: -1_099_511_627_776, maximum: 1_099_511_627_776, reason: "±2^40 is far outside any image already, and keeps the integer pixel coordinates of sample points from overflowing")
}

extension BuiltinFilters {
    /// CIPixellate: square cells of side `s = scale` on a grid whose lines pass through
    /// `center` (c). The pixel whose centre is p lies in cell
    /// `(i, j) = (floor((p.x - c.x) / s), floor((p.y - c.y) / s))` and takes the input sampled
    /// at that cell's middle, `c + ((i + 0.5) s, (j + 0.5) s)`. The output extent is every
    /// cell that overlaps the input, whole.
    static let pixellate = BuiltinFilter(Catalog.CIPixellate, limits: [kCIInputScaleKey: .cellSize, kCIInputCenterKey: .cellCentre]) { args throws(CIFilterError) in
        let image = try args.image()
        let (center, scale) = try cellParameters(args, scaleKey: kCIInputScaleKey)
        return CIImage(node: CellSampleNode(input: image.node, layout: SquareCells(center: center, scale: scale)))
    }

    /// CIHexagonalPixellate: hexagonal cells, the Voronoi cells of a hexagonal lattice with a
    /// centre at `center` and neighbouring centres `scale` apart (pointy-top hexagons `scale`
    /// across the flats, rows of centres `scale * sqrt(3) / 2` apart, odd rows shifted by half a
    /// cell). Each pixel takes the input sampled at the centre of its nearest lattice point's
    /// cell. The output extent is the input's grown by a hexagon's diameter
    /// (`2 * scale / sqrt(3)`) on every side, which holds every hexagon that overlaps the input.
    static let hexagonalPixellate = BuiltinFilter(Catalog.CIHexagonalPixellate, limits: [kCIInputScaleKey: .cellSize, kCIInputCenterKey: .cellCentre]) { args throws(CIFilterError) in
        let image = try args.image()
        let (center, scale) = try cellParameters(args, scaleKey: kCIInputScaleKey)
        return CIImage(node: CellSampleNode(input: image.node, layout: HexagonalCells(center: center, scale: scale)))
    }

    /// CICrystallize: flat polygons, the Voronoi cells of a jittered grid. Grid cells of side
    /// `radius` with a corner at `center`; cell (i, j) holds one site at
    /// `center + (i + 0.2 + 0.6 u, j + 0.2 + 0.6 v) * radius`, with (u, v) a fixed hash of
    /// (i, j) (`jitterHash`: SplitMix64's finaliser), so the pattern is the same on every
    /// render and tile. Each pixel takes the input sampled at its nearest site. The output
    /// extent is the input's grown by `ceil(1.132 * radius + 1)` (the farthest a pixel lies
    /// from its site, plus the sampler's pixel).
    static let crystallize = BuiltinFilter(Catalog.CICrystallize, limits: [kCIInputRadiusKey: .cellSize, kCIInputCenterKey: .cellCentre]) { args throws(CIFilterError) in
        let image = try args.image()
        let (center, radius) = try cellParameters(args, scaleKey: kCIInputRadiusKey)
        return CIImage(node: CellSampleNode(input: image.node, layout: CrystalCells(sites: JitteredSites(origin: center, spacing: radius))))
    }

    /// CIPointillize: round dots of radius `radius` on clear. The dots sit at the sites of
    /// CICrystallize's jittered grid with grid cells of side `1.6 * radius`; a pixel within
    /// `radius` of its nearest site takes the input sampled at that site (overlapping dots meet
    /// along the Voronoi edge between their sites), any other pixel is clear. The output extent
    /// is the input's grown by `ceil(radius + 1)`.
    static let pointillize = BuiltinFilter(Catalog.CIPointillize, limits: [kCIInputRadiusKey: .cellSize, kCIInputCenterKey: .cellCentre]) { args throws(CIFilterError) in
        let image = try args.image()
        let (center, radius) = try cellParameters(args, scaleKey: kCIInputRadiusKey)
        let sites = JitteredSites(origin: center, spacing: 1.6 * radius)
        return CIImage(node: CellSampleNode(input: image.node, layout: DotCells(sites: sites, radius: radius)))
    }
}

/// `inputCenter` and the cell size under `scaleKey`, as declared (`cellCentre`, `cellSize`).
func cellParameters(_ args: FilterArguments, scaleKey: String) throws(CIFilterError) -> (SIMD2<Double>, Double) {
    let c = try args.point(kCIInputCenterKey)
    let scale = try args.number(scaleKey)
    return (SIMD2(Double(c.x), Double(c.y)), scale)
}
