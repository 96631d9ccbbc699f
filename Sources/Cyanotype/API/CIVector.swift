/// An immutable vector of `CGFloat`s: positions, rectangles, colour-matrix rows, coefficients.
public final class CIVector: @unchecked Sendable, Hashable, CustomStringConvertible {
    private let storage: [CGFloat]

    public init(values: UnsafePointer<CGFloat>, count: Int) {
        storage = Array(UnsafeBufferPointer(start: values, count: max(0, count)))
    }
    public init(values: [CGFloat]) { storage = values }
    public convenience init(x: CGFloat) { self.init(values: [x]) }
    public convenience init(x: CGFloat, y: CGFloat) { self.init(values: [x, y]) }
    public convenience init(x: CGFloat, y: CGFloat, z: CGFloat) { self.init(values: [x, y, z]) }
    public convenience init(x: CGFloat, y: CGFloat, z: CGFloat, w: CGFloat) { self.init(values: [x, y, z, w]) }
    public convenience init(cgPoint p: CGPoint) { self.init(values: [p.x, p.y]) }
    /// A rectangle as `[x y width height]`, Core Image's encoding.
    public convenience init(cgRect r: CGRect) { self.init(values: [r.origin.x, r.origin.y, r.size.width, r.size.height]) }
    /// A transform as `[a b c d tx ty]`.
    public convenience init(cgAffineTransform t: CGAffineTransform) { self.init(values: [t.a, t.b, t.c, t.d, t.tx, t.ty]) }
    /// Parses Core Image's string form, e.g. `"[1.0 0.5 0]"` (commas are accepted too).
    public convenience init(string: String) {
        let body = string.trimmingCharacters(in: CharacterSet(charactersIn: "[] \t\n"))
        let parts = body.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" })
        self.init(values: parts.compactMap { Double($0).map { CGFloat($0) } })
    }

    public var count: Int { storage.count }
    /// The value at `index`, or 0 past the end (Core Image's behaviour).
    public func value(at index: Int) -> CGFloat { index >= 0 && index < storage.count ? storage[index] : 0 }
    public var x: CGFloat { value(at: 0) }
    public var y: CGFloat { value(at: 1) }
    public var z: CGFloat { value(at: 2) }
    public var w: CGFloat { value(at: 3) }
    public var cgPointValue: CGPoint { CGPoint(x: x, y: y) }
    public var cgRectValue: CGRect { CGRect(x: x, y: y, width: z, height: w) }
    public var cgAffineTransformValue: CGAffineTransform {
        CGAffineTransform(a: value(at: 0), b: value(at: 1), c: value(at: 2), d: value(at: 3), tx: value(at: 4), ty: value(at: 5))
    }
    public var values: [CGFloat] { storage }
    public var stringRepresentation: String { "[" + storage.map { formatNumber($0) }.joined(separator: " ") + "]" }
    public var description: String { stringRepresentation }

    public static func == (l: CIVector, r: CIVector) -> Bool { l.storage == r.storage }
    public func hash(into h: inout Hasher) { h.combine(storage) }
}

func formatNumber(_ v: CGFloat) -> String {
    if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
    return String(Double(v))
}
