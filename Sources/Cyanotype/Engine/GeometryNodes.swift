/// An affine transform as a warp map: each output point reads the point the inverse matrix
/// gives, bilinearly (Core Image's default) or nearest. Transforms that map pixel centres onto
/// pixel centres (flips, quarter turns, integer shifts: `exact`) move whole pixels, which the
/// warp kind copies run by run; scales and translations sample with weights worked out once
/// per tile (`axisAlignedBilinear`).
struct AffineMap: GridReducibleMap {
    /// The transform, from input to output coordinates.
    let transform: CGAffineTransform
    /// The transform from output to input coordinates.
    let inverse: CGAffineTransform
    /// How it samples between pixel centres.
    let mode: SamplingMode
    /// Whether the transform is an exact pixel permutation.
    let exact: Bool
    /// Whether, besides, each output row reads one input row or column (no shear): then a row
    /// is one run.
    private let permutesRows: Bool

    init(transform: CGAffineTransform, mode: SamplingMode) {
        self.transform = transform
        self.inverse = transform.inverted()
        self.mode = mode
        let t = transform
        let unit: (CGFloat) -> Bool = { $0 == 0 || $0 == 1 || $0 == -1 }
        exact =
            unit(t.a) && unit(t.b) && unit(t.c) && unit(t.d) && abs(t.a * t.d - t.b * t.c) == 1
            && t.tx == t.tx.rounded() && t.ty == t.ty.rounded()
        let i = inverse
        permutesRows = exact && ((i.b == 0 && i.c == 0) || (i.a == 0 && i.d == 0))
    }

    /// The extent of an input of extent `input` through the transform.
    func extent(of input: CGRect) -> CGRect { input.isInfinite ? .infinite : input.applying(transform) }

    /// A whole-pixel permutation (an orientation, a whole-pixel move) whose move falls on the
    /// coarser grid: the same permutation there.
    func reduced(by factor: Int) -> AffineMap? {
        let t = transform, f = CGFloat(factor)
        guard exact, (t.tx / f).rounded() == t.tx / f, (t.ty / f).rounded() == t.ty / f else { return nil }
        return AffineMap(transform: CGAffineTransform(a: t.a, b: t.b, c: t.c, d: t.d, tx: t.tx / f, ty: t.ty / f), mode: mode)
    }

    @inline(__always) func source(_ x: Double, _ y: Double) -> (Double, Double)? {
        let i = inverse
        return (x * Double(i.a) + y * Double(i.c) + Double(i.tx), x * Double(i.b) + y * Double(i.d) + Double(i.ty))
    }

    func sourceBounds(_ box: PointBox) -> PointBox? {
        let corners = [(box.minX, box.minY), (box.maxX, box.minY), (box.minX, box.maxY), (box.maxX, box.maxY)].compactMap { source($0.0, $0.1) }
        var b = PointBox.point(corners[0].0, corners[0].1)
        for c in corners.dropFirst() { b.include(c.0, c.1) }
        return b
    }

    /// The rectangle the tile's corners map to, one pixel larger for the sampler (exactly it
    /// for a permutation).
    func sourceRect(for rect: PixelRect) -> PixelRect {
        let src = rect.cgRect.applying(inverse)
        if exact { return PixelRect(covering: src) }
        return PixelRect(covering: src.insetBy(dx: -1, dy: -1))
    }

    /// A strong downscale would read a huge source rectangle per tile: the tile is split.
    func splitsTile(_ rect: PixelRect, reading source: PixelRect) -> Bool {
        source.area > max(4 * rect.area, 1 << 20) && (rect.width > 16 || rect.height > 16)
    }

    var movesWholePixels: Bool { exact }

    /// A permutation's row is one run of input pixels (a row or a column, either way); under a
    /// whole-pixel shear each pixel is found on its own, as the sampling's rounding says.
    func pixelRun(x: Int, y: Int, count: Int) -> PixelRun? {
        guard exact else { return nil }
        let p = CGPoint(x: CGFloat(x) + 0.5, y: CGFloat(y) + 0.5).applying(inverse)
        let sx = Int((p.x - 0.5).rounded()), sy = Int((p.y - 0.5).rounded())
        if !permutesRows { return PixelRun(x: sx, y: sy, stepX: 0, stepY: 0, count: 1) }
        return PixelRun(x: sx, y: sy, stepX: Int(inverse.a), stepY: Int(inverse.b), count: count)
    }

    func resample(_ rect: PixelRect, into out: TileBuffer, from sb: TileBuffer, sourceRect src: PixelRect) {
        if mode == .linear && inverse.b == 0 && inverse.c == 0 {
            axisAlignedBilinear(rect, out, sb, src)
            return
        }
        // Each pixel's source position from its own absolute coordinates (two multiply-adds
        // in Double), not by stepping along the row: a pixel then samples the same point
        // whatever tile it falls in, so tiled float renders equal whole ones bit for bit.
        let inv = inverse
        let ia = Double(inv.a), ib = Double(inv.b), ic = Double(inv.c), id = Double(inv.d)
        let itx = Double(inv.tx), ity = Double(inv.ty)
        let w = src.width, h = src.height
        for r in 0..<out.height {
            let yc = Double(rect.minY + r) + 0.5
            // Source position minus the half-pixel of sample centres, for the column x + 0.5.
            let u0 = yc * ic + itx - 0.5, v0 = yc * id + ity - 0.5
            let d = out.row(r)
            if mode == .nearest {
                for i in 0..<out.width {
                    let xc = Double(rect.minX + i) + 0.5
                    let u = xc * ia + u0, v = xc * ib + v0
                    let sx = Int((u + 0.5).rounded(.down)) - src.minX, sy = Int((v + 0.5).rounded(.down)) - src.minY
                    d[i] = (sx >= 0 && sy >= 0 && sx < w && sy < h) ? sb.row(sy)[sx] : .zero
                }
                continue
            }
            for i in 0..<out.width {
                let xc = Double(rect.minX + i) + 0.5
                let u = xc * ia + u0, v = xc * ib + v0
                d[i] = sb.bilinearClear(u: u, v: v, originX: src.minX, originY: src.minY)
            }
        }
    }

    /// Bilinear sampling for scales and translations (no rotation or shear): the source
    /// column pair and weights of each output column are the same on every row, and the row
    /// pair on every column, so both are worked out once per tile and the pixel loop is four
    /// loads and a weighted sum. Neighbours outside the source count as clear, as in the
    /// general loop.
    private func axisAlignedBilinear(_ rect: PixelRect, _ out: TileBuffer, _ sb: TileBuffer, _ src: PixelRect) {
        let inv = inverse
        let w = src.width, h = src.height
        let n = out.width
        let columns = UnsafeMutablePointer<(Int, Int, Float, Float)>.allocate(capacity: n)
        defer { columns.deallocate() }
        // The weights of a pair, zero for a neighbour outside 0..<size (indices then clamped).
        @inline(__always) func pair(_ u: Double, _ size: Int) -> (Int, Int, Float, Float) {
            let f = u.rounded(.down)
            let i0 = Int(f), t = Float(u - f)
            let w0: Float = i0 >= 0 && i0 < size ? 1 - t : 0
            let w1: Float = i0 + 1 >= 0 && i0 + 1 < size ? t : 0
            return (min(max(i0, 0), size - 1), min(max(i0 + 1, 0), size - 1), w0, w1)
        }
        let a = Double(inv.a), tx = Double(inv.tx), d = Double(inv.d), ty = Double(inv.ty)
        for i in 0..<n {
            columns[i] = pair((Double(rect.minX + i) + 0.5) * a + tx - 0.5 - Double(src.minX), w)
        }
        for r in 0..<out.height {
            let (j0, j1, v0, v1) = pair((Double(rect.minY + r) + 0.5) * d + ty - 0.5 - Double(src.minY), h)
            let top = sb.row(j0), bottom = sb.row(j1)
            let dst = out.row(r)
            let k0 = SIMD4<Float>(repeating: v0), k1 = SIMD4<Float>(repeating: v1)
            for i in 0..<n {
                let (i0, i1, w0, w1) = columns[i]
                let c0 = SIMD4<Float>(repeating: w0), c1 = SIMD4<Float>(repeating: w1)
                dst[i] = (top[i0] * c0 + top[i1] * c1) * k0 + (bottom[i0] * c0 + bottom[i1] * c1) * k1
            }
        }
    }

    var label: String { "affine \(transform) \(mode)" + (exact ? " (exact)" : "") }
}

/// An affine transform of its input: the warp kind over an `AffineMap`.
typealias AffineNode = WarpNode<AffineMap>

extension WarpNode: Affine where Map == AffineMap {
    /// The transform, from input to output coordinates.
    var transform: CGAffineTransform { warpMap.transform }
    /// How it samples between pixel centres.
    var mode: SamplingMode { warpMap.mode }

    /// `input` through `transform`, sampled by `mode`; its extent is the input's transformed.
    convenience init(input: RecipeNode, transform: CGAffineTransform, mode: SamplingMode) {
        let map = AffineMap(transform: transform, mode: mode)
        self.init(input: input, map: map, extent: map.extent(of: input.extent))
    }
}

/// A warp map that only moves whole pixels the same way on a coarser grid (a permutation
/// whose shift falls on it), so its node follows a reduced decode (`GridReducible`).
protocol GridReducibleMap: WarpMap {
    /// The same map on a grid `factor` times coarser; nil when it does not fall on it.
    func reduced(by factor: Int) -> Self?
    /// The output extent for an input of extent `input`.
    func extent(of input: CGRect) -> CGRect
    /// For a map that only extends its input's whole extent `input` (a clamp to it): the same
    /// map for the input rescaled to `rescaled`; nil otherwise (the default).
    func rescaled(from input: PixelRect, to rescaled: CGRect) -> Self?
}

extension GridReducibleMap {
    func rescaled(from input: PixelRect, to rescaled: CGRect) -> Self? { nil }
}

extension WarpNode: GridReducible where Map: GridReducibleMap {
    /// The same map, on the coarser grid, over `input`.
    func reduced(over input: RecipeNode, by factor: Int) -> RecipeNode? {
        guard Map.auxiliaryCount == 0, let m = warpMap.reduced(by: factor) else { return nil }
        return WarpNode(input: input, map: m, extent: m.extent(of: input.extent))
    }

    /// The same map over `input`, a rescaled copy of this node's input, when the map follows
    /// a rescale (`GridReducibleMap.rescaled(from:to:)`).
    func rescaled(over input: RecipeNode) -> RecipeNode? {
        guard Map.auxiliaryCount == 0, let m = warpMap.rescaled(from: inputs[0].pixelExtent, to: input.extent) else { return nil }
        return WarpNode(input: input, map: m, extent: m.extent(of: input.extent))
    }
}

/// Extends the edge pixels of `clampRect` (a whole-pixel rectangle of its input) out to
/// infinity: output pixel (x, y) is input pixel (clamp(x), clamp(y)), each coordinate clamped
/// into the rectangle. A warp map of whole pixels: inside the rectangle the input is read in
/// place (`inPlaceRegion`), so a tile inside it costs no copy and a tile across its edge
/// copies only the edge pixels outwards; a row outside is a run repeating the edge pixel, a
/// run of the edge row, a run repeating the other edge pixel.
struct ClampMap: GridReducibleMap {
    /// The rectangle whose edge pixels extend outwards.
    let clampRect: PixelRect

    @inline(__always) private func clampX(_ x: Int) -> Int { min(max(x, clampRect.minX), clampRect.maxX - 1) }
    @inline(__always) private func clampY(_ y: Int) -> Int { min(max(y, clampRect.minY), clampRect.maxY - 1) }

    /// The centre of the pixel that the pixel under (x, y) repeats.
    func source(_ x: Double, _ y: Double) -> (Double, Double)? {
        guard !clampRect.isEmpty, abs(x) < 1e15, abs(y) < 1e15 else { return nil }
        return (Double(clampX(Int(x.rounded(.down)))) + 0.5, Double(clampY(Int(y.rounded(.down)))) + 0.5)
    }

    func sourceBounds(_ box: PointBox) -> PointBox? {
        if clampRect.isEmpty { return nil }
        let c = PointBox(centresOf: clampRect)
        func cl(_ v: Double, _ lo: Double, _ hi: Double) -> Double { min(max(v, lo), hi) }
        return PointBox(
            minX: cl(box.minX, c.minX, c.maxX), minY: cl(box.minY, c.minY, c.maxY),
            maxX: cl(box.maxX, c.minX, c.maxX), maxY: cl(box.maxY, c.minY, c.maxY))
    }

    /// The clamped range of the tile's columns and rows.
    func sourceRect(for rect: PixelRect) -> PixelRect {
        if rect.isEmpty || clampRect.isEmpty { return .empty }
        return PixelRect(minX: clampX(rect.minX), minY: clampY(rect.minY), maxX: clampX(rect.maxX - 1) + 1, maxY: clampY(rect.maxY - 1) + 1)
    }

    func splitsTile(_ rect: PixelRect, reading source: PixelRect) -> Bool { false }
    var halo: Int { 0 }
    var movesWholePixels: Bool { true }

    /// Left of the rectangle the left edge pixel repeated (a step-0 run), inside it a row of
    /// the rectangle, right of it the right edge pixel repeated.
    func pixelRun(x: Int, y: Int, count: Int) -> PixelRun? {
        let c = clampRect
        if c.isEmpty { return nil }
        let sy = clampY(y)
        if x < c.minX { return PixelRun(x: c.minX, y: sy, stepX: 0, stepY: 0, count: min(count, c.minX - x)) }
        if x >= c.maxX { return PixelRun(x: c.maxX - 1, y: sy, stepX: 0, stepY: 0, count: count) }
        return PixelRun(x: x, y: sy, stepX: 1, stepY: 0, count: min(count, c.maxX - x))
    }

    /// The tile's part inside the rectangle: every pixel outside it repeats one of that part
    /// (the clamped coordinates of the tile's columns and rows fall inside it).
    func inPlaceRegion(for rect: PixelRect) -> PixelRect? {
        let inner = rect.intersection(clampRect)
        return inner.isEmpty ? nil : inner
    }

    func reduced(by factor: Int) -> ClampMap? { clampRect.reduced(by: factor).map { ClampMap(clampRect: $0) } }

    /// Infinite, or empty for an empty rectangle, whatever the input.
    func extent(of input: CGRect) -> CGRect { clampRect.isEmpty ? .zero : .infinite }

    /// A clamp to the input's whole extent is a clamp to the rescaled input's.
    func rescaled(from input: PixelRect, to rescaled: CGRect) -> ClampMap? {
        clampRect == input ? ClampMap(clampRect: PixelRect(covering: rescaled)) : nil
    }

    var label: String { "clamp to \(clampRect)" }
}

/// An image extended beyond a rectangle by its edge pixels: the warp kind over a `ClampMap`.
typealias ClampNode = WarpNode<ClampMap>

extension WarpNode where Map == ClampMap {
    /// `input`'s edge pixels of the pixels `rect` covers extended to infinity (an empty
    /// rectangle: an empty image).
    convenience init(input: RecipeNode, rect: CGRect) {
        let map = ClampMap(clampRect: PixelRect(covering: rect))
        self.init(input: input, map: map, extent: map.extent(of: input.extent))
    }
}

extension WarpNode: RegionClamp where Map == ClampMap {
    /// The clamp's rectangle.
    var clampedRegion: PixelRect { warpMap.clampRect }
}

/// Repeats the pixels of `period` (a whole-pixel rectangle of its input) over the whole
/// plane (an affine tiling transforms it): a warp map of whole pixels, each row copied as runs
/// up to the period's right edge and again from its left edge.
struct RepeatMap: WarpMap {
    /// The rectangle repeated.
    let period: PixelRect

    @inline(__always) private static func wrap(_ v: Int, _ lo: Int, _ n: Int) -> Int {
        let m = (v - lo) % n
        return lo + (m < 0 ? m + n : m)
    }
    /// The period's columns (or rows) a run of `count` output indices from `start` reads.
    private static func span(_ start: Int, _ count: Int, _ lo: Int, _ n: Int) -> (Int, Int) {
        let s = wrap(start, lo, n)
        return s + count <= lo + n ? (s, s + count) : (lo, lo + n)
    }

    /// The centre of the period's pixel that the pixel under (x, y) repeats.
    func source(_ x: Double, _ y: Double) -> (Double, Double)? {
        guard !period.isEmpty, abs(x) < 1e15, abs(y) < 1e15 else { return nil }
        let p = period
        return (
            Double(Self.wrap(Int(x.rounded(.down)), p.minX, p.width)) + 0.5, Double(Self.wrap(Int(y.rounded(.down)), p.minY, p.height)) + 0.5
        )
    }

    func sourceBounds(_ box: PointBox) -> PointBox? {
        period.isEmpty ? nil : PointBox(centresOf: period)
    }

    func sourceRect(for rect: PixelRect) -> PixelRect {
        if rect.isEmpty || period.isEmpty { return .empty }
        let (x0, x1) = Self.span(rect.minX, rect.width, period.minX, period.width)
        let (y0, y1) = Self.span(rect.minY, rect.height, period.minY, period.height)
        return PixelRect(minX: x0, minY: y0, maxX: x1, maxY: y1)
    }

    func splitsTile(_ rect: PixelRect, reading source: PixelRect) -> Bool { false }
    var halo: Int { 0 }
    var movesWholePixels: Bool { true }

    func pixelRun(x: Int, y: Int, count: Int) -> PixelRun? {
        let p = period
        let sx = Self.wrap(x, p.minX, p.width)
        return PixelRun(x: sx, y: Self.wrap(y, p.minY, p.height), stepX: 1, stepY: 0, count: min(count, p.maxX - sx))
    }

    /// A tile inside the period is its own source.
    func inPlaceRegion(for rect: PixelRect) -> PixelRect? { !rect.isEmpty && sourceRect(for: rect) == rect ? rect : nil }

    var label: String { "repeat \(period)" }
}

/// The repeat of a rectangle of its input over the plane: the warp kind over a `RepeatMap`.
typealias RepeatNode = WarpNode<RepeatMap>

extension WarpNode where Map == RepeatMap {
    /// `input`'s pixels of `period` repeated over the plane (an empty period: an empty image).
    convenience init(input: RecipeNode, period: PixelRect) {
        self.init(input: input, map: RepeatMap(period: period), extent: period.isEmpty ? .zero : .infinite)
    }
}
