// The cell kind: every output pixel takes the colour its cell samples at one point. A layout
// says which cell a point lies in and where that cell samples; the node does the sampling,
// the regions of interest and the tiling.

/// Where the cell holding a point samples its colour: all a cell filter supplies.
///
/// To add a cell filter, write a struct conforming to this in the filter's own file and build
/// `CellNode(input: image.node, layout: MyCells(...))`. The pixel loop is the `sample`
/// requirement's default implementation, specialised for each conforming type, so
/// `samplePoint` is inlined into it: make layouts concrete structs, not generic ones.
protocol CellLayout: Sendable {
    /// The sample point (Core Image coordinates) of the cell holding the point (px, py); NaN
    /// for points outside every cell (they are clear).
    func samplePoint(_ px: Double, _ py: Double) -> SIMD2<Double>
    /// The output extent for a finite input extent.
    func extent(for input: CGRect) -> CGRect
    /// The bounding box (lower, upper corner) of the sample points of every pixel centre in
    /// `rect`; may be larger than exact, never smaller (`scannedSampleBounds` finds it exactly).
    func sampleBounds(_ rect: PixelRect) -> (SIMD2<Double>, SIMD2<Double>)
    /// Fills `out` (the pixels of `rect`) with each pixel's cell colour, read from `block`
    /// (the input over `src`) when `dense`, or else fetched 2x2 pixels at a time from `input`.
    /// Do not implement it: the default is the pixel loop, specialised for each layout.
    func sample(
        _ rect: PixelRect, into out: TileBuffer, block: PixelBlock, src: PixelRect, dense: Bool,
        input: RecipeNode, _ ev: Evaluator)
    /// One line for `CIContext.explain`.
    var label: String { get }
}

extension CellLayout {
    /// Sample bounds for layouts whose sample points lie within `reach` of their pixels:
    /// exact (every pixel centre visited) for rectangles up to 4096 pixels, else the
    /// rectangle grown by the reach.
    func sampleBounds(_ r: PixelRect, within reach: Double) -> (SIMD2<Double>, SIMD2<Double>) {
        if r.area <= 4096 { return scannedSampleBounds(self, r) }
        return (SIMD2(Double(r.minX) - reach, Double(r.minY) - reach), SIMD2(Double(r.maxX) + reach, Double(r.maxY) + reach))
    }
}

/// The integer pixel at or below the left of `v - 0.5` (the first of a bilinear sample's two
/// taps), and the weight of the second.
@inline(__always) func cellTap(_ v: Double) -> (Int, Float) {
    let s = cellCoordinate(v) - 0.5
    let f = s.rounded(.down)
    return (Int(f), Float(s - f))
}

extension CellLayout {
    /// The pixel loop: a run of pixels sampling the same point reuses its colour.
    func sample(
        _ rect: PixelRect, into out: TileBuffer, block: PixelBlock, src: PixelRect, dense: Bool,
        input: RecipeNode, _ ev: Evaluator
    ) {
        let sw = block.rect.width
        let base = block.pixels
        let layout = self  // a local copy: output stores cannot alias it
        for oy in 0..<rect.height {
            let d = out.row(oy)
            let py = Double(rect.minY + oy) + 0.5
            var lastX = Int.min, lastY = Int.min
            var fxLast: Float = -1, fyLast: Float = -1
            var colour = SIMD4<Float>.zero
            for x in 0..<rect.width {
                let p = layout.samplePoint(Double(rect.minX + x) + 0.5, py)
                // A layout marks pixels outside every cell (between dots, say) NaN.
                if p.x.isNaN { d[x] = .zero; continue }
                let (ix, fx) = cellTap(p.x), (iy, fy) = cellTap(p.y)
                if ix != lastX || iy != lastY || fx != fxLast || fy != fyLast {
                    lastX = ix; lastY = iy; fxLast = fx; fyLast = fy
                    let p00: UnsafeMutablePointer<SIMD4<Float>>
                    if dense {
                        p00 = base + (iy - src.minY) * sw + (ix - src.minX)
                    } else {
                        ev.fill(input, PixelRect(x: ix, y: iy, width: 2, height: 2), block.buffer)
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
}

/// Coordinates beyond ±2^40 are treated as 2^40: still far outside any image, and their
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

/// The cell kind: each output pixel is its cell's colour, the input sampled bilinearly (as a
/// Core Image sampler does; premultiplied, clear outside the input) at the cell's sample
/// point. A pixel's value depends only on its own coordinates, so any tiling gives the same
/// bytes.
///
/// Region of interest: the 2x2 pixels around each sample point of the requested cells (a
/// one-pixel crop reads at most 4 input pixels). When those points are spread far apart
/// (cells much larger than a tile) the node fetches each cell's 2x2 pixels separately
/// instead of the box around them all.
final class CellNode<Layout: CellLayout>: RecipeNode, @unchecked Sendable {
    let layout: Layout

    init(input: RecipeNode, layout: Layout) {
        self.layout = layout
        super.init(
            extent: input.extent.isInfinite ? .infinite : layout.extent(for: input.extent), inputs: [input],
            traits: NodeTraits(isExpensive: true))
    }

    override func inputRect(_ index: Int, for rect: PixelRect) -> PixelRect {
        if rect.isEmpty { return .empty }
        let (lo, hi) = layout.sampleBounds(rect)
        let x0 = cellTap(lo.x).0, y0 = cellTap(lo.y).0, x1 = cellTap(hi.x).0, y1 = cellTap(hi.y).0
        return PixelRect(minX: x0, minY: y0, maxX: x1 + 2, maxY: y1 + 2)
    }

    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        let src = inputRect(0, for: rect)
        // Dense: one block around every sample point. Sparse: 2x2 per cell.
        let dense = Double(src.width) * Double(src.height) <= 4 * Double(rect.area) + 4096
        let block = PixelBlock(rect: dense ? src : PixelRect(x: 0, y: 0, width: 2, height: 2))
        if dense { ev.fill(inputs[0], src, block.buffer) }
        // One dynamic call per tile; the loop inside is specialised for the layout.
        layout.sample(rect, into: out, block: block, src: src, dense: dense, input: inputs[0], ev)
    }

    override var label: String { "cells: \(layout.label)" }
}
