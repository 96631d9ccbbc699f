/// An integer pixel rectangle in Core Image coordinates (origin bottom-left, y up).
/// Infinite extents are clamped to ±2^30, far beyond any image that can be allocated.
struct PixelRect: Hashable, Sendable, CustomStringConvertible {
    var x: Int, y: Int, width: Int, height: Int

    static let limit = 1 << 30
    static let empty = PixelRect(x: 0, y: 0, width: 0, height: 0)
    static let huge = PixelRect(x: -limit, y: -limit, width: 2 * limit, height: 2 * limit)

    init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = max(0, width); self.height = max(0, height)
    }
    init(minX: Int, minY: Int, maxX: Int, maxY: Int) {
        self.init(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }
    /// The smallest pixel rectangle covering `r` (outward rounding); infinite becomes `huge`.
    init(covering r: CGRect) {
        if r.isNull || r.isEmpty { self = .empty; return }
        let lim = Double(PixelRect.limit)
        func c(_ v: CGFloat) -> Double { min(max(Double(v), -lim), lim) }
        let x0 = floor(c(r.minX) + 1e-9), y0 = floor(c(r.minY) + 1e-9)
        let x1 = ceil(c(r.maxX) - 1e-9), y1 = ceil(c(r.maxY) - 1e-9)
        self.init(minX: Int(x0), minY: Int(y0), maxX: Int(x1), maxY: Int(y1))
    }

    var minX: Int { x }
    var minY: Int { y }
    var maxX: Int { x + width }
    var maxY: Int { y + height }
    var isEmpty: Bool { width <= 0 || height <= 0 }
    var area: Int { width * height }
    var cgRect: CGRect { CGRect(x: x, y: y, width: width, height: height) }

    func intersection(_ o: PixelRect) -> PixelRect {
        let r = PixelRect(minX: max(minX, o.minX), minY: max(minY, o.minY), maxX: min(maxX, o.maxX), maxY: min(maxY, o.maxY))
        return r.isEmpty ? .empty : r
    }
    func union(_ o: PixelRect) -> PixelRect {
        if isEmpty { return o }
        if o.isEmpty { return self }
        return PixelRect(minX: min(minX, o.minX), minY: min(minY, o.minY), maxX: max(maxX, o.maxX), maxY: max(maxY, o.maxY))
    }
    func insetBy(dx: Int, dy: Int) -> PixelRect {
        PixelRect(minX: minX + dx, minY: minY + dy, maxX: maxX - dx, maxY: maxY - dy)
    }
    func contains(_ o: PixelRect) -> Bool {
        o.isEmpty || (o.minX >= minX && o.minY >= minY && o.maxX <= maxX && o.maxY <= maxY)
    }
    var description: String { "[\(x), \(y), \(width)x\(height)]" }
}

extension CGRect {
    var isInfiniteOrHuge: Bool { isInfinite || width > CGFloat(PixelRect.limit) || height > CGFloat(PixelRect.limit) }
}
