import Foundation

// `NSValue(cgAffineTransform:)`, as Apple's platforms give it: the boxed form of a transform
// that older code passes to `CIAffineTransform`'s `inputTransform`.

/// The type encoding of a boxed `CGAffineTransform`: six doubles (swift-corelibs-foundation
/// cannot box Apple's struct encoding, `{CGAffineTransform=dddddd}`).
private let affineTransformEncoding = "[6d]"

extension NSValue {
    /// A value holding `transform` (six doubles: a, b, c, d, tx, ty).
    public convenience init(cgAffineTransform transform: CGAffineTransform) {
        var entries = [Double(transform.a), Double(transform.b), Double(transform.c), Double(transform.d), Double(transform.tx), Double(transform.ty)]
        self.init(bytes: &entries, objCType: affineTransformEncoding)
    }

    /// The transform this value holds; identity when it holds something else.
    public var cgAffineTransformValue: CGAffineTransform {
        guard String(cString: objCType) == affineTransformEncoding else { return .identity }
        var entries = [Double](repeating: 0, count: 6)
        entries.withUnsafeMutableBytes { getValue($0.baseAddress!) }
        return CGAffineTransform(
            a: CGFloat(entries[0]), b: CGFloat(entries[1]), c: CGFloat(entries[2]), d: CGFloat(entries[3]), tx: CGFloat(entries[4]),
            ty: CGFloat(entries[5]))
    }

    /// Whether this value holds a `CGAffineTransform` (made by `init(cgAffineTransform:)`).
    var holdsAffineTransform: Bool { String(cString: objCType) == affineTransformEncoding }
}
