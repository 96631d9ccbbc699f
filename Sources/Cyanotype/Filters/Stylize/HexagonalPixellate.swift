extension BuiltinFilters {
    /// CIHexagonalPixellate: Pixelates into hexagonal cells of averaged color.
    static let hexagonalPixellate = BuiltinFilter(
        FilterDescriptor(
            "CIHexagonalPixellate", "Hexagonal Pixelate", "Pixelates into hexagonal cells of averaged color.",
            categories: [.builtIn, .highDynamicRange, .stillImage, .stylize, .video], macOS: "10.5", iOS: "9", factory: "hexagonalPixellate",
            doc: """
                Hexagonal cells, the Voronoi cells of a hexagonal lattice with a
                centre at `center` and neighbouring centres `scale` apart (pointy-top hexagons `scale`
                across the flats, rows of centres `scale * sqrt(3) / 2` apart, odd rows shifted by half a
                cell). Each pixel takes the input sampled at the centre of its nearest lattice point's
                cell. The output extent is the input's grown by a hexagon's diameter
                (`2 * scale / sqrt(3)`) on every side, which holds every hexagon that overlaps the input.
                """,
            inputs: [
                .image(),
                .vector("inputCenter", "Center", .position, default: [150, 150], limit: .cellCentre),
                .number("inputScale", "Scale", .distance, default: 8, identity: 1, min: 1, slider: 1...100, limit: .cellSize),
            ]),
        reach: .halo(kCIInputScaleKey, times: 0.6, plus: 2)
    ) {
        args throws(CIFilterError) in
        let image = try args.image()
        let (center, scale) = try cellParameters(args, scaleKey: kCIInputScaleKey)
        return CIImage(node: CellNode(input: image.node, layout: HexagonalCells(center: center, scale: scale)))
    }
}

/// CIHexagonalPixellate's hexagons: the Voronoi cells of a hexagonal lattice through
/// `center` with neighbouring centres `scale` apart; rows of centres are horizontal,
/// `scale * sqrt(3) / 2` apart, odd rows shifted by half a cell (pointy-top hexagons,
/// `scale` across the flats). A cell samples at its centre.
struct HexagonalCells: CellLayout {
    let center: SIMD2<Double>
    let scale: Double
    var rowStep: Double { scale * 0.8660254037844386 }
    /// Corner radius: the farthest a pixel is from its cell's centre.
    var radius: Double { scale * 0.5773502691896258 }

    @inline(__always) func samplePoint(_ px: Double, _ py: Double) -> SIMD2<Double> {
        let dx = px - center.x, dy = py - center.y
        let h = rowStep
        let j0 = (dy / h).rounded(.down)
        // The nearest centre lies in one of the two rows around the point.
        let odd0 = j0.truncatingRemainder(dividingBy: 2) == 0 ? 0.0 : 0.5
        let odd1 = 0.5 - odd0
        let i0 = (dx / scale - odd0).rounded(.toNearestOrEven), i1 = (dx / scale - odd1).rounded(.toNearestOrEven)
        let ax = (i0 + odd0) * scale, ay = j0 * h
        let bx = (i1 + odd1) * scale, by = (j0 + 1) * h
        let da = (dx - ax) * (dx - ax) + (dy - ay) * (dy - ay)
        let db = (dx - bx) * (dx - bx) + (dy - by) * (dy - by)
        return db < da ? SIMD2(center.x + bx, center.y + by) : SIMD2(center.x + ax, center.y + ay)
    }
    func extent(for e: CGRect) -> CGRect {
        // Every hexagon that overlaps the input lies within a hexagon's diameter of it.
        e.insetBy(dx: -2 * radius, dy: -2 * radius)
    }
    func sampleBounds(_ r: PixelRect) -> (SIMD2<Double>, SIMD2<Double>) {
        // Centres lie within a corner radius of their pixels.
        sampleBounds(r, within: radius)
    }
    var label: String { "hexagons \(scale) at \(center)" }
}
