/// Resamples its input through an affine transform: bilinear (Core Image's default) or
/// nearest. Transforms that map pixel centres onto pixel centres (flips, quarter turns,
/// integer shifts) copy pixels exactly.
final class AffineNode: RecipeNode, Affine, GridReducible, @unchecked Sendable {
    let transform: CGAffineTransform
    let inverse: CGAffineTransform
    let mode: SamplingMode
    /// Set when the transform is an exact pixel permutation.
    private let exact: Bool

    init(input: RecipeNode, transform: CGAffineTransform, mode: SamplingMode) {
        self.transform = transform
        self.inverse = transform.inverted()
        self.mode = mode
        let t = transform
        let unit: (CGFloat) -> Bool = { $0 == 0 || $0 == 1 || $0 == -1 }
        exact =
            unit(t.a) && unit(t.b) && unit(t.c) && unit(t.d) && abs(t.a * t.d - t.b * t.c) == 1
            && t.tx == t.tx.rounded() && t.ty == t.ty.rounded()
        let e = input.extent.isInfinite ? CGRect.infinite : input.extent.applying(transform)
        super.init(extent: e, inputs: [input], traits: NodeTraits(halo: 1))
    }

    /// A whole-pixel permutation (an orientation, a whole-pixel move) whose move falls on the
    /// coarser grid: the same permutation there.
    func reduced(over input: RecipeNode, by factor: Int) -> RecipeNode? {
        let t = transform, f = CGFloat(factor)
        guard exact, (t.tx / f).rounded() == t.tx / f, (t.ty / f).rounded() == t.ty / f else { return nil }
        return AffineNode(input: input, transform: CGAffineTransform(a: t.a, b: t.b, c: t.c, d: t.d, tx: t.tx / f, ty: t.ty / f), mode: mode)
    }

    override func inputRect(_ index: Int, for rect: PixelRect) -> PixelRect {
        let src = rect.cgRect.applying(inverse)
        if exact { return PixelRect(covering: src) }
        return PixelRect(covering: src.insetBy(dx: -1, dy: -1))
    }

    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        let input = inputs[0]
        let src = inputRect(0, for: rect).intersection(input.pixelExtent)
        if src.isEmpty { out.zero(); return }
        // A strong downscale would read a huge source rectangle per tile: split the tile.
        if src.area > max(4 * rect.area, 1 << 20), rect.width > 16 || rect.height > 16 {
            evaluateInQuarters(rect, into: out, ev)
            return
        }
        let block = PixelBlock(rect: src)
        ev.fill(input, src, block.buffer)
        let sb = block.buffer
        let inv = inverse
        if exact {
            for r in 0..<out.height {
                let d = out.row(r)
                for i in 0..<out.width {
                    let p = CGPoint(x: CGFloat(rect.minX + i) + 0.5, y: CGFloat(rect.minY + r) + 0.5).applying(inv)
                    let sx = Int((p.x - 0.5).rounded()) - src.minX, sy = Int((p.y - 0.5).rounded()) - src.minY
                    d[i] = (sx >= 0 && sy >= 0 && sx < src.width && sy < src.height) ? sb.row(sy)[sx] : .zero
                }
            }
            return
        }
        if mode == .linear && inv.b == 0 && inv.c == 0 {
            axisAlignedBilinear(rect, out, sb, src)
            return
        }
        // Each pixel's source position from its own absolute coordinates (two multiply-adds
        // in Double), not by stepping along the row: a pixel then samples the same point
        // whatever tile it falls in, so tiled float renders equal whole ones bit for bit.
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

    override var label: String { "affine \(transform) \(mode)" + (exact ? " (exact)" : "") }
}

/// Repeats the pixels of `period` (a whole-pixel rectangle of its input) over the whole
/// plane (an affine tiling transforms it).
final class RepeatNode: RecipeNode, @unchecked Sendable {
    let period: PixelRect

    init(input: RecipeNode, period: PixelRect) {
        self.period = period
        super.init(extent: period.isEmpty ? .zero : .infinite, inputs: [input])
    }

    @inline(__always) private func wrap(_ v: Int, _ lo: Int, _ n: Int) -> Int {
        let m = (v - lo) % n
        return lo + (m < 0 ? m + n : m)
    }
    /// The period's columns (or rows) a run of `count` output indices from `start` reads.
    private func span(_ start: Int, _ count: Int, _ lo: Int, _ n: Int) -> (Int, Int) {
        let s = wrap(start, lo, n)
        return s + count <= lo + n ? (s, s + count) : (lo, lo + n)
    }

    override func inputRect(_ index: Int, for rect: PixelRect) -> PixelRect {
        if rect.isEmpty || period.isEmpty { return .empty }
        let (x0, x1) = span(rect.minX, rect.width, period.minX, period.width)
        let (y0, y1) = span(rect.minY, rect.height, period.minY, period.height)
        return PixelRect(minX: x0, minY: y0, maxX: x1, maxY: y1)
    }

    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        let src = inputRect(0, for: rect)
        if src.isEmpty { out.zero(); return }
        if src == rect { ev.fill(inputs[0], rect, out); return }
        let block = PixelBlock(rect: src)
        ev.fill(inputs[0], src, block.buffer)
        let p = period
        for r in 0..<out.height {
            let s = block.buffer.row(wrap(rect.minY + r, p.minY, p.height) - src.minY)
            let d = out.row(r)
            // Copy runs up to the period's right edge, then start again at its left edge.
            var i = 0
            while i < out.width {
                let sx = wrap(rect.minX + i, p.minX, p.width)
                let run = min(out.width - i, p.maxX - sx)
                (d + i).update(from: s + (sx - src.minX), count: run)
                i += run
            }
        }
    }

    override var label: String { "repeat \(period)" }
}
