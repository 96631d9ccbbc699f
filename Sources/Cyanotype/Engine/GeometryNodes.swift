/// Resamples its input through an affine transform: bilinear (Core Image's default) or
/// nearest. Transforms that map pixel centres onto pixel centres (flips, quarter turns,
/// integer shifts) copy pixels exactly.
final class AffineNode: RecipeNode, @unchecked Sendable {
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
        exact = unit(t.a) && unit(t.b) && unit(t.c) && unit(t.d) && abs(t.a * t.d - t.b * t.c) == 1
            && t.tx == t.tx.rounded() && t.ty == t.ty.rounded()
        let e = input.extent.isInfinite ? CGRect.infinite : input.extent.applying(transform)
        super.init(extent: e, inputs: [input])
    }

    override var halo: Int { 1 }

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

/// Separable resampling weights: for each output index, the first source index and its taps.
struct ResampleWeights {
    var first: [Int] = []
    var taps: [[Float]] = []

    /// Lanczos-3 from source to output along one axis, `scale` = output/source; the kernel is
    /// widened by 1/scale when shrinking so it low-passes (no aliasing).
    init(outStart: Int, outCount: Int, scale: Double) {
        let support = 3.0 * max(1, 1 / scale)
        let stretch = max(1, 1 / scale)
        for o in outStart..<(outStart + outCount) {
            let center = (Double(o) + 0.5) / scale          // source coordinate of the output centre
            let lo = Int((center - support - 0.5).rounded(.down)), hi = Int((center + support - 0.5).rounded(.up))
            var w: [Float] = []
            var sum = 0.0
            var ws: [Double] = []
            for s in lo...hi {
                let x = (Double(s) + 0.5 - center) / stretch
                let v = lanczos3(x)
                ws.append(v); sum += v
            }
            for v in ws { w.append(Float(sum != 0 ? v / sum : 0)) }
            first.append(lo)
            taps.append(w)
        }
    }
    var sourceRange: (Int, Int) {
        let lo = first.min() ?? 0
        let hi = zip(first, taps).map { $0 + $1.count }.max() ?? 0
        return (lo, hi)
    }
}

@inline(__always) func lanczos3(_ x: Double) -> Double {
    if x == 0 { return 1 }
    if abs(x) >= 3 { return 0 }
    let px = Double.pi * x
    return 3 * sin(px) * sin(px / 3) / (px * px)
}

/// CILanczosScaleTransform: a separable Lanczos-3 resampler (scale and aspect ratio).
final class LanczosScaleNode: RecipeNode, @unchecked Sendable {
    let sx: Double, sy: Double
    init(input: RecipeNode, scaleX: Double, scaleY: Double) {
        sx = scaleX; sy = scaleY
        let e = input.extent
        let out = e.isInfinite ? CGRect.infinite
            : CGRect(x: e.minX * sx, y: e.minY * sy, width: e.width * sx, height: e.height * sy)
        super.init(extent: out, inputs: [input])
    }
    override var halo: Int { Int(3 * max(1, 1 / min(sx, sy))) + 1 }
    override var isExpensive: Bool { true }

    override func inputRect(_ index: Int, for rect: PixelRect) -> PixelRect {
        let h = ResampleWeights(outStart: rect.minX, outCount: 1, scale: sx).first[0]
        let h2 = ResampleWeights(outStart: rect.maxX - 1, outCount: 1, scale: sx)
        let v = ResampleWeights(outStart: rect.minY, outCount: 1, scale: sy).first[0]
        let v2 = ResampleWeights(outStart: rect.maxY - 1, outCount: 1, scale: sy)
        return PixelRect(minX: h, minY: v, maxX: h2.first[0] + h2.taps[0].count, maxY: v2.first[0] + v2.taps[0].count)
    }

    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        let src = inputRect(0, for: rect)
        if src.area > max(8 * rect.area, 1 << 21), rect.width > 8, rect.height > 8 {
            evaluateInQuarters(rect, into: out, ev)
            return
        }
        let block = PixelBlock(rect: src)
        ev.fill(inputs[0], src, block.buffer)
        let hw = ResampleWeights(outStart: rect.minX, outCount: rect.width, scale: sx)
        let vw = ResampleWeights(outStart: rect.minY, outCount: rect.height, scale: sy)
        // Horizontal pass: every source row of the region -> rect.width columns.
        let tmp = PixelBlock(rect: PixelRect(x: rect.minX, y: src.minY, width: rect.width, height: src.height))
        for r in 0..<src.height {
            let s = block.buffer.row(r), d = tmp.buffer.row(r)
            for o in 0..<rect.width {
                let taps = hw.taps[o]
                let base = s + (hw.first[o] - src.minX)
                var acc = SIMD4<Float>.zero
                taps.withUnsafeBufferPointer { t in
                    for k in 0..<t.count { acc += base[k] * t[k] }
                }
                d[o] = acc
            }
        }
        // Vertical pass.
        for r in 0..<rect.height {
            let d = out.row(r)
            d.update(repeating: .zero, count: rect.width)
            let taps = vw.taps[r]
            let firstRow = vw.first[r] - src.minY
            for (k, w) in taps.enumerated() {
                let s = tmp.buffer.row(firstRow + k)
                for o in 0..<rect.width { d[o] += s[o] * w }
            }
        }
    }
    override var label: String { "lanczos scale \(sx)x\(sy)" }
}
