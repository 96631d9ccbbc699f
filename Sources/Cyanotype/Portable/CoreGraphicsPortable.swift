// The few CoreGraphics names Core Image's API uses, for platforms without CoreGraphics.
// Foundation on Linux already has CGFloat, CGPoint, CGSize and CGRect; it lacks these.
@_exported import Foundation

#if !canImport(CoreGraphics)

/// Core Foundation's string type; plain `String` here (colour space names, option keys).
public typealias CFString = String

/// A 2D affine transform with CoreGraphics' layout: `x' = a*x + c*y + tx`, `y' = b*x + d*y + ty`.
public struct CGAffineTransform: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The matrix entries: `a`, `b`, `c`, `d` scale, rotate and skew; `tx`, `ty` translate
    /// (`x' = a*x + c*y + tx`, `y' = b*x + d*y + ty`).
    public var a: CGFloat, b: CGFloat, c: CGFloat, d: CGFloat, tx: CGFloat, ty: CGFloat

    /// A transform from its six entries.
    public init(a: CGFloat, b: CGFloat, c: CGFloat, d: CGFloat, tx: CGFloat, ty: CGFloat) {
        self.a = a; self.b = b; self.c = c; self.d = d; self.tx = tx; self.ty = ty
    }
    /// A transform from its six entries, unlabelled (CoreGraphics' `CGAffineTransformMake` order).
    public init(_ a: CGFloat, _ b: CGFloat, _ c: CGFloat, _ d: CGFloat, _ tx: CGFloat, _ ty: CGFloat) {
        self.init(a: a, b: b, c: c, d: d, tx: tx, ty: ty)
    }
    /// The identity transform.
    public init() { self.init(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0) }
    /// The transform that leaves every point where it is.
    public static let identity = CGAffineTransform()

    /// A transform that moves points by `tx` and `ty`.
    public init(translationX tx: CGFloat, y ty: CGFloat) { self.init(a: 1, b: 0, c: 0, d: 1, tx: tx, ty: ty) }
    /// A transform that scales x by `sx` and y by `sy` about the origin.
    public init(scaleX sx: CGFloat, y sy: CGFloat) { self.init(a: sx, b: 0, c: 0, d: sy, tx: 0, ty: 0) }
    /// A transform that rotates by `angle` radians about the origin (anticlockwise with y up).
    public init(rotationAngle angle: CGFloat) {
        let s = sin(angle), c = cos(angle)
        self.init(a: c, b: s, c: -s, d: c, tx: 0, ty: 0)
    }

    /// Whether this is the identity transform.
    public var isIdentity: Bool { self == .identity }

    /// `self` followed by `t2` (CoreGraphics order: points go through `self` first).
    public func concatenating(_ t2: CGAffineTransform) -> CGAffineTransform {
        CGAffineTransform(
            a: a * t2.a + b * t2.c, b: a * t2.b + b * t2.d,
            c: c * t2.a + d * t2.c, d: c * t2.b + d * t2.d,
            tx: tx * t2.a + ty * t2.c + t2.tx, ty: tx * t2.b + ty * t2.d + t2.ty)
    }
    /// A translation by `x`, `y` followed by this transform.
    public func translatedBy(x: CGFloat, y: CGFloat) -> CGAffineTransform {
        CGAffineTransform(translationX: x, y: y).concatenating(self)
    }
    /// A scale by `x`, `y` followed by this transform.
    public func scaledBy(x: CGFloat, y: CGFloat) -> CGAffineTransform {
        CGAffineTransform(scaleX: x, y: y).concatenating(self)
    }
    /// A rotation by `angle` radians followed by this transform.
    public func rotated(by angle: CGFloat) -> CGAffineTransform {
        CGAffineTransform(rotationAngle: angle).concatenating(self)
    }
    /// The inverse; a singular transform is returned unchanged, as CoreGraphics does.
    public func inverted() -> CGAffineTransform {
        let det = a * d - b * c
        guard det != 0, det.isFinite else { return self }
        return CGAffineTransform(
            a: d / det, b: -b / det, c: -c / det, d: a / det,
            tx: (c * ty - d * tx) / det, ty: (b * tx - a * ty) / det)
    }
    /// The entries as `[a, b, c, d, tx, ty]`.
    public var description: String { "[\(a), \(b), \(c), \(d), \(tx), \(ty)]" }
}

/// CoreGraphics' device spaces, which Core Image code often passes to contexts and renders:
/// sRGB and grey with gamma 2.2, as on iOS.
public func CGColorSpaceCreateDeviceRGB() -> CGColorSpace { CGColorSpace(name: CGColorSpace.sRGB)! }
/// CoreGraphics' device grey: grey with a 2.2 gamma.
public func CGColorSpaceCreateDeviceGray() -> CGColorSpace { CGColorSpace(name: CGColorSpace.genericGrayGamma2_2)! }

extension CGPoint {
    /// The point through `t`.
    public func applying(_ t: CGAffineTransform) -> CGPoint {
        CGPoint(x: t.a * x + t.c * y + t.tx, y: t.b * x + t.d * y + t.ty)
    }
}

extension CGSize {
    /// The size through `t`'s linear part (translation does not move a size); may be negative.
    public func applying(_ t: CGAffineTransform) -> CGSize {
        CGSize(width: t.a * width + t.c * height, height: t.b * width + t.d * height)
    }
}

extension CGRect {
    /// The smallest rectangle containing the transformed corners (infinite and null stay so).
    public func applying(_ t: CGAffineTransform) -> CGRect {
        if isNull || isInfinite || t.isIdentity { return self }
        let corners = [
            CGPoint(x: minX, y: minY), CGPoint(x: maxX, y: minY),
            CGPoint(x: minX, y: maxY), CGPoint(x: maxX, y: maxY),
        ].map { $0.applying(t) }
        let xs = corners.map(\.x), ys = corners.map(\.y)
        let x0 = xs.min()!, x1 = xs.max()!, y0 = ys.min()!, y1 = ys.max()!
        return CGRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}

#endif
