/// Namespace of the built-in filter declarations; each filter file adds one `static let`,
/// and `scripts/generate-catalog.py` lists them in `BuiltinFilters.all`.
enum BuiltinFilters {}

// Typed property access for the generated `CIFilter.xxx()` classes.
extension CIFilter {
    func typedValue(forKey key: String, as: Float.Type) -> Float {
        value(forKey: key).flatMap(numberValue).map { Float($0) } ?? 0
    }
    func typedValue(forKey key: String, as: Bool.Type) -> Bool {
        (value(forKey: key).flatMap(numberValue) ?? 0) != 0
    }
    func typedValue(forKey key: String, as: CIImage.Type) -> CIImage? { value(forKey: key) as? CIImage }
    func typedValue(forKey key: String, as: CIVector.Type) -> CIVector { asVector(value(forKey: key)) ?? CIVector(values: []) }
    func typedValue(forKey key: String, as: CGPoint.Type) -> CGPoint { asVector(value(forKey: key))?.cgPointValue ?? .zero }
    func typedValue(forKey key: String, as: CGRect.Type) -> CGRect { asVector(value(forKey: key))?.cgRectValue ?? .zero }
    func typedValue(forKey key: String, as: CIColor.Type) -> CIColor { value(forKey: key) as? CIColor ?? .black }
    func typedValue(forKey key: String, as: CGAffineTransform.Type) -> CGAffineTransform {
        value(forKey: key) as? CGAffineTransform ?? asVector(value(forKey: key))?.cgAffineTransformValue ?? .identity
    }
    func typedValue(forKey key: String, as: Data.Type) -> Data { value(forKey: key) as? Data ?? Data() }
    func typedValue(forKey key: String, as: String.Type) -> String { value(forKey: key) as? String ?? "" }
    func typedValue(forKey key: String, as: Any.Type) -> Any? { value(forKey: key) }

    private func asVector(_ v: Any?) -> CIVector? {
        switch v {
        case let x as CIVector: return x
        case let p as CGPoint: return CIVector(cgPoint: p)
        case let r as CGRect: return CIVector(cgRect: r)
        default: return nil
        }
    }
}

/// Luma weights Core Image's colour filters use (Rec. 709, on working-space values).
let lumaWeights = SIMD3<Float>(0.2125, 0.7154, 0.0721)
