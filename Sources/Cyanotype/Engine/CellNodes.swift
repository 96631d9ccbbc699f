// Cell nodes: every output pixel takes the colour its cell samples at one point (CIPixellate,
// CIHexagonalPixellate, CICrystallize). A layout says which cell a point lies in and where
// that cell samples; the node does the sampling, the regions of interest and the tiling.

/// Where the cell holding a point samples its colour. A generic parameter of
/// `CellSampleNode`, so the per-pixel call is specialised and inlined (no existential).
protocol CellLayout: Sendable {
    /// The sample point (Core Image coordinates) of the cell holding the point (px, py).
    func samplePoint(_ px: Double, _ py: Double) -> SIMD2<Double>
    /// The output extent for a finite input extent.
    func extent(for input: CGRect) -> CGRect
    /// The bounding box (lower, upper corner) of the sample points of every pixel centre in
    /// `rect`; may be larger than exact, never smaller.
    func sampleBounds(_ rect: PixelRect) -> (SIMD2<Double>, SIMD2<Double>)
    var label: String { get }
}

/// Sample points beyond ±2^40 are treated as 2^40: still far outside any image, and their
/// integer pixel coordinates cannot overflow.
@inline(__always) func cellCoordinate(_ v: Double) -> Double { min(max(v, -1_099_511_627_776), 1_099_511_627_776) }

/// Exact sample bounds found by visiting every pixel centre of `rect`.
func scannedSampleBounds<L: CellLayout>(_ layout: L, _ rect: PixelRect) -> (SIMD2<Double>, SIMD2<Double>) {
    var lo = SIMD2<Double>(repeating: .infinity), hi = SIMD2<Double>(repeating: -.infinity)
    for y in rect.minY..<rect.maxY {
        for x in rect.minX..<rect.maxX {
            let p = layout.samplePoint(Double(x) + 0.5, Double(y) + 0.5)
            if p.x.isNaN { continue }
            lo.x = min(lo.x, p.x); lo.y = min(lo.y, p.y); hi.x = max(hi.x, p.x); hi.y = max(hi.y, p.y)
        }
    }
    return (lo, hi)
}

/// Each output pixel is its cell's colour: the input sampled bilinearly (as a Core Image
/// sampler does; premultiplied, clear outside the input) at the cell's sample point.
/// A pixel's value depends only on its own coordinates, so any tiling gives the same bytes.
///
/// Region of interest: the 2x2 pixels around each sample point of the requested cells (a
/// one-pixel crop reads at most 4 input pixels). When those points are spread far apart
/// (cells much larger than a tile) the node fetches each cell's 2x2 pixels separately
/// instead of the box around them all.
final class CellSampleNode<Layout: CellLayout>: RecipeNode, @unchecked Sendable {
    let layout: Layout
    override var isExpensive: Bool { true }

    init(input: RecipeNode, layout: Layout) {
        self.layout = layout
        super.init(extent: input.extent.isInfinite ? .infinite : layout.extent(for: input.extent), inputs: [input])
    }

    /// The integer pixel at or below the left of `v - 0.5` (the first of the two taps).
    @inline(__always) private func tap(_ v: Double) -> (Int, Float) {
        let s = cellCoordinate(v) - 0.5
        let f = s.rounded(.down)
        return (Int(f), Float(s - f))
    }

    override func inputRect(_ index: Int, for rect: PixelRect) -> PixelRect {
        if rect.isEmpty { return .empty }
        let (lo, hi) = layout.sampleBounds(rect)
        let x0 = tap(lo.x).0, y0 = tap(lo.y).0, x1 = tap(hi.x).0, y1 = tap(hi.y).0
        return PixelRect(minX: x0, minY: y0, maxX: x1 + 2, maxY: y1 + 2)
    }

    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        let src = inputRect(0, for: rect)
        // Dense: one block around every sample point. Sparse: 2x2 per cell.
        let dense = Double(src.width) * Double(src.height) <= 4 * Double(rect.area) + 4096
        let block = PixelBlock(rect: dense ? src : PixelRect(x: 0, y: 0, width: 2, height: 2))
        if dense { ev.fill(inputs[0], src, block.buffer) }
        let sw = block.rect.width
        let base = block.pixels
        for oy in 0..<rect.height {
            let d = out.row(oy)
            let py = Double(rect.minY + oy) + 0.5
            var lastX = Int.min, lastY = Int.min
            var fxLast: Float = -1, fyLast: Float = -1
            var colour = SIMD4<Float>.zero
            for x in 0..<rect.width {
                let p = layout.samplePoint(Double(rect.minX + x) + 0.5, py)
                // A layout marks pixels outside every cell (between CIPointillize's dots) NaN.
                if p.x.isNaN { d[x] = .zero; continue }
                let (ix, fx) = tap(p.x), (iy, fy) = tap(p.y)
                if ix != lastX || iy != lastY || fx != fxLast || fy != fyLast {
                    lastX = ix; lastY = iy; fxLast = fx; fyLast = fy
                    let p00: UnsafeMutablePointer<SIMD4<Float>>
                    if dense {
                        p00 = base + (iy - src.minY) * sw + (ix - src.minX)
                    } else {
                        ev.fill(inputs[0], PixelRect(x: ix, y: iy, width: 2, height: 2), block.buffer)
                        p00 = base
                    }
                    let p01 = p00 + sw
                    // Bilinear: rows iy (p00, p10) and iy + 1 (p01, p11).
                    let low = p00[0] * (1 - fx) + p00[1] * fx
                    let high = p01[0] * (1 - fx) + p01[1] * fx
                    colour = low * (1 - fy) + high * fy
                }
                d[x] = colour
            }
        }
    }

    override var label: String { "cells: \(layout.label)" }
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
        if r.area <= 4096 { return scannedSampleBounds(self, r) }
        // Centres lie within a corner radius of their pixels.
        return (SIMD2(Double(r.minX) - radius, Double(r.minY) - radius), SIMD2(Double(r.maxX) + radius, Double(r.maxY) + radius))
    }
    var label: String { "hexagons \(scale) at \(center)" }
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
        if r.area <= 4096 { return scannedSampleBounds(self, r) }
        return (SIMD2(Double(r.minX) - reach, Double(r.minY) - reach), SIMD2(Double(r.maxX) + reach, Double(r.maxY) + reach))
    }
    var label: String { "crystals \(sites.spacing) at \(sites.origin)" }
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
        if r.area <= 4096 { return scannedSampleBounds(self, r) }
        return (SIMD2(Double(r.minX) - radius, Double(r.minY) - radius), SIMD2(Double(r.maxX) + radius, Double(r.maxY) + radius))
    }
    var label: String { "dots \(radius) at \(sites.origin)" }
}
