/// Extends its input beyond a rectangle by mirroring: the pixels past an edge repeat those
/// inside it in reverse order (edge pixel included once: ..., 2, 1, 0 | 0, 1, 2, ...), and the
/// reflection repeats with period twice the rectangle, out to infinity. Like a clamp, it gives
/// neighbourhood filters real pixels to read past the edges; mirroring keeps texture instead
/// of smearing the edge row. A warp map of whole pixels: each row is copied as runs, forwards
/// and backwards in turn.
struct MirrorMap: WarpMap {
    /// The rectangle mirrored.
    let mirrorRect: PixelRect

    /// The coordinate inside `lo..<hi` that `v` reflects to.
    @inline(__always) static func reflect(_ v: Int, _ lo: Int, _ hi: Int) -> Int {
        let n = hi - lo
        var m = (v - lo) % (2 * n)
        if m < 0 { m += 2 * n }
        return lo + (m < n ? m : 2 * n - 1 - m)
    }

    /// The range of the coordinates of `lo..<hi` reflected into `rLo..<rHi` (a span of a full
    /// period or more reads all of it).
    private static func range(_ lo: Int, _ hi: Int, _ rLo: Int, _ rHi: Int) -> (Int, Int) {
        if hi - lo >= 2 * (rHi - rLo) { return (rLo, rHi) }
        var mn = Int.max, mx = Int.min
        for v in lo..<hi {
            let c = reflect(v, rLo, rHi)
            mn = Swift.min(mn, c)
            mx = Swift.max(mx, c)
        }
        return (mn, mx + 1)
    }

    /// The centre of the pixel that the pixel under (x, y) reflects to.
    func source(_ x: Double, _ y: Double) -> (Double, Double)? {
        let m = mirrorRect
        guard !m.isEmpty, abs(x) < 1e15, abs(y) < 1e15 else { return nil }
        return (
            Double(Self.reflect(Int(x.rounded(.down)), m.minX, m.maxX)) + 0.5, Double(Self.reflect(Int(y.rounded(.down)), m.minY, m.maxY)) + 0.5
        )
    }

    func sourceBounds(_ box: PointBox) -> PointBox? {
        mirrorRect.isEmpty ? nil : PointBox(centresOf: mirrorRect)
    }

    func sourceRect(for rect: PixelRect) -> PixelRect {
        let m = mirrorRect
        if rect.isEmpty || m.isEmpty { return .empty }
        if m.contains(rect) { return rect }
        let (x0, x1) = Self.range(rect.minX, rect.maxX, m.minX, m.maxX)
        let (y0, y1) = Self.range(rect.minY, rect.maxY, m.minY, m.maxY)
        return PixelRect(minX: x0, minY: y0, maxX: x1, maxY: y1)
    }

    func splitsTile(_ rect: PixelRect, reading source: PixelRect) -> Bool { false }
    var halo: Int { 0 }
    var movesWholePixels: Bool { true }

    /// Up to the next edge of the rectangle or of its reflection: forwards inside an even
    /// period, backwards inside an odd one.
    func pixelRun(x: Int, y: Int, count: Int) -> PixelRun? {
        let m = mirrorRect
        let n = m.width
        var k = (x - m.minX) % (2 * n)
        if k < 0 { k += 2 * n }
        let sy = Self.reflect(y, m.minY, m.maxY)
        if k < n { return PixelRun(x: m.minX + k, y: sy, stepX: 1, stepY: 0, count: min(count, n - k)) }
        return PixelRun(x: m.minX + 2 * n - 1 - k, y: sy, stepX: -1, stepY: 0, count: min(count, 2 * n - k))
    }

    /// A tile inside the rectangle is its own source.
    func inPlaceRegion(for rect: PixelRect) -> PixelRect? { !rect.isEmpty && mirrorRect.contains(rect) ? rect : nil }

    var label: String { "mirror beyond \(mirrorRect)" }
}

/// An image mirrored beyond a rectangle: the warp kind over a `MirrorMap`.
typealias MirrorNode = WarpNode<MirrorMap>

extension WarpNode where Map == MirrorMap {
    /// `input` mirrored beyond the pixels `rect` covers (an empty one: an empty image).
    convenience init(input: RecipeNode, rect: CGRect) {
        let m = PixelRect(covering: rect)
        self.init(input: input, map: MirrorMap(mirrorRect: m), extent: m.isEmpty ? .zero : .infinite)
    }
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
