/// Extends its input beyond a rectangle by mirroring: the pixels past an edge repeat those
/// inside it in reverse order (edge pixel included once: ..., 2, 1, 0 | 0, 1, 2, ...), and the
/// reflection repeats with period twice the rectangle, out to infinity. Like `ClampNode`, it
/// gives neighbourhood filters real pixels to read past the edges; mirroring keeps texture
/// instead of smearing the edge row.
final class MirrorNode: RecipeNode, @unchecked Sendable {
    let mirrorRect: PixelRect
    init(input: RecipeNode, rect: CGRect) {
        mirrorRect = PixelRect(covering: rect)
        super.init(extent: mirrorRect.isEmpty ? .zero : .infinite, inputs: [input])
    }

    /// The coordinate inside `lo..<hi` that `v` reflects to.
    @inline(__always) static func reflect(_ v: Int, _ lo: Int, _ hi: Int) -> Int {
        let n = hi - lo
        var m = (v - lo) % (2 * n)
        if m < 0 { m += 2 * n }
        return lo + (m < n ? m : 2 * n - 1 - m)
    }

    /// Reflected coordinates of `lo..<hi` and their range.
    private static func map(_ lo: Int, _ hi: Int, into rLo: Int, _ rHi: Int) -> (coords: [Int], min: Int, max: Int) {
        var coords = [Int](repeating: 0, count: hi - lo)
        var mn = Int.max, mx = Int.min
        for i in 0..<(hi - lo) {
            let c = reflect(lo + i, rLo, rHi)
            coords[i] = c
            mn = Swift.min(mn, c); mx = Swift.max(mx, c)
        }
        return (coords, mn, mx)
    }

    override func inputRect(_ index: Int, for rect: PixelRect) -> PixelRect {
        let m = mirrorRect
        if m.contains(rect) { return rect }
        // A span of a full period or more reads the whole rectangle.
        func range(_ lo: Int, _ hi: Int, _ rLo: Int, _ rHi: Int) -> (Int, Int) {
            if hi - lo >= 2 * (rHi - rLo) { return (rLo, rHi) }
            let r = MirrorNode.map(lo, hi, into: rLo, rHi)
            return (r.min, r.max + 1)
        }
        let (x0, x1) = range(rect.minX, rect.maxX, m.minX, m.maxX)
        let (y0, y1) = range(rect.minY, rect.maxY, m.minY, m.maxY)
        return PixelRect(minX: x0, minY: y0, maxX: x1, maxY: y1)
    }

    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        let m = mirrorRect
        if m.contains(rect) { ev.fill(inputs[0], rect, out); return }
        let xs = MirrorNode.map(rect.minX, rect.maxX, into: m.minX, m.maxX)
        let ys = MirrorNode.map(rect.minY, rect.maxY, into: m.minY, m.maxY)
        let src = PixelRect(minX: xs.min, minY: ys.min, maxX: xs.max + 1, maxY: ys.max + 1)
        let block = PixelBlock(rect: src)
        ev.fill(inputs[0], src, block.buffer)
        xs.coords.withUnsafeBufferPointer { cx in
            for r in 0..<out.height {
                let s = block.buffer.row(ys.coords[r] - src.minY), d = out.row(r)
                for i in 0..<out.width { d[i] = s[cx[i] - src.minX] }
            }
        }
    }
    override var label: String { "mirror beyond \(mirrorRect)" }
}

extension CIImage {
    /// Cyanotype: the image extended to infinity by mirroring it at its edges (a pixel `k`
    /// steps past an edge repeats the pixel `k - 1` steps inside it), with an infinite extent.
    /// Like `clampedToExtent()`, for filters that read past the edges (blurs, resampling), but
    /// texture continues instead of the edge row being smeared. Core Image has no equivalent.
    public func mirroredToExtent() -> CIImage {
        if extent.isInfinite || extent.isEmpty { return self }
        return CIImage(node: MirrorNode(input: node, rect: extent), properties: properties, url: url)
    }
}
