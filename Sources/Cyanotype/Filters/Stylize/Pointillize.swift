extension BuiltinFilters {
    /// CIPointillize: Pointillist look made of colored dots.
    static let pointillize = BuiltinFilter(
        FilterDescriptor(
            "CIPointillize", "Pointillize", "Pointillist look made of colored dots.",
            categories: [.builtIn, .highDynamicRange, .stillImage, .stylize, .video], macOS: "10.4", iOS: "9", factory: "pointillize",
            doc: """
                Round dots of radius `radius` on clear. The dots sit at the sites of
                CICrystallize's jittered grid with grid cells of side `1.6 * radius`; a pixel within
                `radius` of its nearest site takes the input sampled at that site (overlapping dots meet
                along the Voronoi edge between their sites), any other pixel is clear. The output extent
                is the input's grown by `ceil(radius + 1)`.
                """,
            inputs: [
                .image(),
                .number("inputRadius", "Radius", .distance, default: 20, identity: 1, min: 1, slider: 1...100, limit: .cellSize),
                .vector("inputCenter", "Center", .position, default: [150, 150], limit: .cellCentre),
            ]),
        reach: .halo(kCIInputRadiusKey, plus: 2)
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let (center, radius) = try cellParameters(args, scaleKey: kCIInputRadiusKey)
        let sites = JitteredSites(origin: center, spacing: 1.6 * radius)
        return CIImage(node: CellNode(input: image.node, layout: DotCells(sites: sites, radius: radius)))
    }
}

/// CIPointillize's dots: discs of radius `radius` around the sites of a jittered grid
/// (`JitteredSites`, spacing `1.6 * radius`, grid corner at `center`). A pixel within
/// `radius` of its nearest site samples at that site; any other pixel is clear (NaN here).
struct DotCells: CellLayout {
    let sites: JitteredSites
    let radius: Double

    @inline(__always) func samplePoint(_ px: Double, _ py: Double) -> SIMD2<Double> {
        let (s, d) = sites.nearest(px, py)
        return d <= radius * radius ? s : SIMD2(repeating: .nan)
    }
    func extent(for e: CGRect) -> CGRect {
        e.insetBy(dx: -(radius + 1).rounded(.up), dy: -(radius + 1).rounded(.up))
    }
    func sampleBounds(_ r: PixelRect) -> (SIMD2<Double>, SIMD2<Double>) {
        sampleBounds(r, within: radius)
    }
    var label: String { "dots \(radius) at \(sites.origin)" }
}
