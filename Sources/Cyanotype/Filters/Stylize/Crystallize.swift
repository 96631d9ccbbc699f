extension BuiltinFilters {
    /// CICrystallize: Breaks the image into flat-colored polygon (Voronoi) cells.
    static let crystallize = BuiltinFilter(
        FilterDescriptor(
            "CICrystallize", "Crystallize", "Breaks the image into flat-colored polygon (Voronoi) cells.",
            categories: [.builtIn, .highDynamicRange, .stillImage, .stylize, .video], macOS: "10.4", iOS: "9", factory: "crystallize",
            doc: """
                Flat polygons, the Voronoi cells of a jittered grid. Grid cells of side
                `radius` with a corner at `center`; cell (i, j) holds one site at
                `center + (i + 0.2 + 0.6 u, j + 0.2 + 0.6 v) * radius`, with (u, v) a fixed hash of
                (i, j) (`jitterHash`: SplitMix64's finaliser), so the pattern is the same on every
                render and tile. Each pixel takes the input sampled at its nearest site. The output
                extent is the input's grown by `ceil(1.132 * radius + 1)` (the farthest a pixel lies
                from its site, plus the sampler's pixel).
                """,
            inputs: [
                .image(),
                .number("inputRadius", "Radius", .distance, default: 20, identity: 1, min: 1, slider: 1...100, limit: .cellSize),
                .vector("inputCenter", "Center", .position, default: [150, 150], limit: .cellCentre),
            ]),
        reach: .halo(kCIInputRadiusKey, times: 1.132, plus: 2)
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let (center, radius) = try cellParameters(args, scaleKey: kCIInputRadiusKey)
        return CIImage(node: CellNode(input: image.node, layout: CrystalCells(sites: JitteredSites(origin: center, spacing: radius))))
    }
}

/// CICrystallize's cells: the Voronoi cells of a jittered grid (`JitteredSites`, spacing
/// `radius`, grid corner at `center`); a cell samples at its site.
struct CrystalCells: CellLayout {
    let sites: JitteredSites

    @inline(__always) func samplePoint(_ px: Double, _ py: Double) -> SIMD2<Double> { sites.nearest(px, py).0 }
    /// The farthest a pixel is from its nearest site.
    var reach: Double { 1.132 * sites.spacing }
    func extent(for e: CGRect) -> CGRect {
        // Pixels whose site reads the input: within a reach (plus the sampler's pixel) of it.
        e.insetBy(dx: -(reach + 1).rounded(.up), dy: -(reach + 1).rounded(.up))
    }
    func sampleBounds(_ r: PixelRect) -> (SIMD2<Double>, SIMD2<Double>) {
        sampleBounds(r, within: reach)
    }
    var label: String { "crystals \(sites.spacing) at \(sites.origin)" }
}

/// Sites of a jittered grid: grid cell (i, j) (side `spacing`, corner `origin + (i, j) * spacing`)
/// holds one site at `origin + (i + 0.2 + 0.6 u, j + 0.2 + 0.6 v) * spacing`, with u, v in
/// [0, 1) from `jitterHash(i, j)`. Keeping each site in the middle 60% of its cell makes the
/// nearest site of any point lie in the point's own grid cell or one of its 8 neighbours
/// (own site at most 0.8√2 ≈ 1.13 cells away, any site two cells over at least 1.2).
struct JitteredSites: Sendable {
    let origin: SIMD2<Double>
    let spacing: Double

    @inline(__always) func site(_ i: Double, _ j: Double) -> SIMD2<Double> {
        let (u, v) = jitterHash(Int64(i), Int64(j))
        return SIMD2(origin.x + (i + 0.2 + 0.6 * u) * spacing, origin.y + (j + 0.2 + 0.6 * v) * spacing)
    }

    /// The nearest site to (px, py) and its squared distance (the lower row, then the left
    /// column, wins ties).
    @inline(__always) func nearest(_ px: Double, _ py: Double) -> (SIMD2<Double>, Double) {
        let ci = ((px - origin.x) / spacing).rounded(.down), cj = ((py - origin.y) / spacing).rounded(.down)
        var best = SIMD2<Double>(0, 0), bestD = Double.infinity
        var dj = -1.0
        while dj <= 1 {
            var di = -1.0
            while di <= 1 {
                let s = site(ci + di, cj + dj)
                let d = (s.x - px) * (s.x - px) + (s.y - py) * (s.y - py)
                if d < bestD { bestD = d; best = s }
                di += 1
            }
            dj += 1
        }
        return (best, bestD)
    }
}

/// Two numbers in [0, 1) from a grid cell: SplitMix64's finaliser of
/// `i * 0x9E3779B97F4A7C15 + j * 0xC2B2AE3D27D4EB4F` (wrapping), its top 26 bits for u and the
/// next 26 for v.
@inline(__always) func jitterHash(_ i: Int64, _ j: Int64) -> (Double, Double) {
    var z = UInt64(bitPattern: i) &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(bitPattern: j) &* 0xC2B2_AE3D_27D4_EB4F
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    z ^= z >> 31
    let scale = 1.0 / Double(1 << 26)
    return (Double(z >> 38) * scale, Double((z >> 12) & ((1 << 26) - 1)) * scale)
}
