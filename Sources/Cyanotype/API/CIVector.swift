/// An immutable vector of `CGFloat`s: positions, rectangles, colour-matrix rows, coefficients.
public final class CIVector: @unchecked Sendable, Hashable, CustomStringConvertible {
    private let storage: [CGFloat]

    /// A vector of the `count` values at `values` (copied).
    public init(values: UnsafePointer<CGFloat>, count: Int) {
        storage = Array(UnsafeBufferPointer(start: values, count: max(0, count)))
    }
    /// A vector of `values`.
    public init(values: [CGFloat]) { storage = values }
    /// A one-element vector.
    public convenience init(x: CGFloat) { self.init(values: [x]) }
    /// A two-element vector, such as a position or an offset.
    public convenience init(x: CGFloat, y: CGFloat) { self.init(values: [x, y]) }
    /// A three-element vector.
    public convenience init(x: CGFloat, y: CGFloat, z: CGFloat) { self.init(values: [x, y, z]) }
    /// A four-element vector, such as a colour-matrix row or a rectangle.
    public convenience init(x: CGFloat, y: CGFloat, z: CGFloat, w: CGFloat) { self.init(values: [x, y, z, w]) }
    /// A point as `[x y]`.
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

    /// The number of elements.
    public var count: Int { storage.count }
    /// The value at `index`, or 0 past the end (Core Image's behaviour).
    public func value(at index: Int) -> CGFloat { index >= 0 && index < storage.count ? storage[index] : 0 }
    /// The first element (0 when there is none).
    public var x: CGFloat { value(at: 0) }
    /// The second element (0 when there is none).
    public var y: CGFloat { value(at: 1) }
    /// The third element (0 when there is none).
    public var z: CGFloat { value(at: 2) }
    /// The fourth element (0 when there is none).
    public var w: CGFloat { value(at: 3) }
    /// The first two elements as a point.
    public var cgPointValue: CGPoint { CGPoint(x: x, y: y) }
    /// The first four elements as a rectangle, `[x y width height]`.
    public var cgRectValue: CGRect { CGRect(x: x, y: y, width: z, height: w) }
    /// The first six elements as a transform, `[a b c d tx ty]`.
    public var cgAffineTransformValue: CGAffineTransform {
        CGAffineTransform(a: value(at: 0), b: value(at: 1), c: value(at: 2), d: value(at: 3), tx: value(at: 4), ty: value(at: 5))
    }
    /// All the elements.
    public var values: [CGFloat] { storage }
    /// The elements as Core Image writes them, `"[1 0.5 0]"`; `init(string:)` reads it back.
    public var stringRepresentation: String { "[" + storage.map { formatNumber($0) }.joined(separator: " ") + "]" }
    /// The elements as `stringRepresentation` writes them.
    public var description: String { stringRepresentation }

    /// Two vectors are equal when they have the same elements.
    public static func == (l: CIVector, r: CIVector) -> Bool { l.storage == r.storage }
    /// Hashes the elements.
    public func hash(into h: inout Hasher) { h.combine(storage) }
}

func formatNumber(_ v: CGFloat) -> String {
    if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
    return String(Double(v))
}
