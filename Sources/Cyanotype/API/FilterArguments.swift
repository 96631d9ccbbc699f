/// A filter's inputs as its build function reads them: typed, defaulted, validated and
/// clamped to the declared range (Apple's hard minimum and maximum narrowed by our declared
/// limit: `FilterInputDescriptor.effectiveValue`), with a `CIFilterError` for anything
/// unusable. Each read looks the input's declaration up once and clamps once. A filter does
/// not clamp an input by hand: it declares a limit (`FilterInputLimit`) and reads the value here.
struct FilterArguments {
    let descriptor: FilterDescriptor
    let values: [String: Any]

    private var filter: String { descriptor.name }

    /// The value given for `key` (else its declared default) and its declaration, found once.
    private func lookUp(_ key: String) -> (value: Any?, input: FilterInputDescriptor?) {
        let input = descriptor.input(key)
        return (values[key] ?? input?.defaultValue?.objectValue, input)
    }
    private func raw(_ key: String) -> Any? { lookUp(key).value }

    func image(_ key: String = kCIInputImageKey) throws(CIFilterError) -> CIImage {
        guard let v = values[key] else { throw .missingInput(filter: filter, key: key) }
        guard let img = v as? CIImage else { throw .wrongType(filter: filter, key: key, expected: "a CIImage", got: typeName(v)) }
        return img
    }
    func optionalImage(_ key: String) throws(CIFilterError) -> CIImage? {
        guard let v = values[key] else { return nil }
        guard let img = v as? CIImage else { throw .wrongType(filter: filter, key: key, expected: "a CIImage", got: typeName(v)) }
        return img
    }

    /// A number, clamped once to Apple's hard range narrowed by our declared limit.
    func number(_ key: String) throws(CIFilterError) -> Double {
        let (value, input) = lookUp(key)
        guard let v = value else { throw .missingInput(filter: filter, key: key) }
        guard let d = numberValue(v) else { throw .wrongType(filter: filter, key: key, expected: "a number", got: typeName(v)) }
        guard d.isFinite else { throw .nonFinite(filter: filter, key: key) }
        return input?.effectiveValue(d) ?? d
    }
    func float(_ key: String) throws(CIFilterError) -> Float { Float(try number(key)) }
    func bool(_ key: String) throws(CIFilterError) -> Bool { try number(key) != 0 }

    /// A vector, each component limited to the input's declared limit (if any).
    func vector(_ key: String) throws(CIFilterError) -> CIVector {
        let (vec, input) = try unlimitedVector(key)
        guard let limit = input?.limit else { return vec }
        return CIVector(values: vec.values.map { CGFloat(limit.clamped(Double($0))) })
    }
    /// The vector given for `key` (else its default), unclamped, and the input's declaration.
    private func unlimitedVector(_ key: String) throws(CIFilterError) -> (CIVector, FilterInputDescriptor?) {
        let (value, input) = lookUp(key)
        guard let v = value else { throw .missingInput(filter: filter, key: key) }
        let vec: CIVector
        switch v {
        case let x as CIVector: vec = x
        case let p as CGPoint: vec = CIVector(cgPoint: p)
        case let r as CGRect: vec = CIVector(cgRect: r)
        case let a as [CGFloat]: vec = CIVector(values: a)
        case let a as [Double]: vec = CIVector(values: a.map { CGFloat($0) })
        case let a as [Float]: vec = CIVector(values: a.map { CGFloat($0) })
        case let a as [Int]: vec = CIVector(values: a.map { CGFloat($0) })
        case let s as String: vec = CIVector(string: s)
        default: throw .wrongType(filter: filter, key: key, expected: "a CIVector", got: typeName(v))
        }
        // Huge finite values are legitimate (CICrop's default is an infinite rectangle).
        guard vec.values.allSatisfy({ !$0.isNaN }) else { throw .nonFinite(filter: filter, key: key) }
        return (vec, input)
    }
    /// A finite point (infinite components are a `nonFinite` error), each coordinate limited
    /// to the input's declared limit (if any).
    func point(_ key: String) throws(CIFilterError) -> CGPoint {
        let (v, input) = try unlimitedVector(key)
        guard v.x.isFinite, v.y.isFinite else { throw .nonFinite(filter: filter, key: key) }
        guard let limit = input?.limit else { return v.cgPointValue }
        return CGPoint(x: limit.clamped(Double(v.x)), y: limit.clamped(Double(v.y)))
    }
    func rect(_ key: String) throws(CIFilterError) -> CGRect { try vector(key).cgRectValue }

    func color(_ key: String) throws(CIFilterError) -> CIColor {
        guard let v = raw(key) else { throw .missingInput(filter: filter, key: key) }
        switch v {
        case let c as CIColor:
            guard c.components.allSatisfy(\.isFinite) else { throw .nonFinite(filter: filter, key: key) }
            return c
        case let vec as CIVector:
            return CIColor(red: vec.x, green: vec.y, blue: vec.z, alpha: vec.count > 3 ? vec.w : 1)
        default: throw .wrongType(filter: filter, key: key, expected: "a CIColor", got: typeName(v))
        }
    }

    func transform(_ key: String) throws(CIFilterError) -> CGAffineTransform {
        guard let v = raw(key) else { throw .missingInput(filter: filter, key: key) }
        let t: CGAffineTransform
        switch v {
        case let x as CGAffineTransform: t = x
        case let x as AffineTransform: t = CGAffineTransform(a: x.m11, b: x.m12, c: x.m21, d: x.m22, tx: x.tX, ty: x.tY)
        case let vec as CIVector where vec.count == 6: t = vec.cgAffineTransformValue
        case let value as NSValue where value.holdsAffineTransform: t = value.cgAffineTransformValue
        default: throw .wrongType(filter: filter, key: key, expected: "a CGAffineTransform", got: typeName(v))
        }
        guard [t.a, t.b, t.c, t.d, t.tx, t.ty].allSatisfy(\.isFinite) else { throw .nonFinite(filter: filter, key: key) }
        return t
    }

    func string(_ key: String) throws(CIFilterError) -> String {
        guard let v = raw(key) else { throw .missingInput(filter: filter, key: key) }
        if let s = v as? String { return s }
        if let s = v as? NSString { return String(describing: s) }
        throw .wrongType(filter: filter, key: key, expected: "a String", got: typeName(v))
    }
    func data(_ key: String) throws(CIFilterError) -> Data {
        guard let v = raw(key) else { throw .missingInput(filter: filter, key: key) }
        if let d = v as? Data { return d }
        if let s = v as? String { return Data(s.utf8) }
        throw .wrongType(filter: filter, key: key, expected: "Data", got: typeName(v))
    }
}

/// Any numeric value Swift or Foundation might hand us, as a Double.
func numberValue(_ v: Any) -> Double? {
    switch v {
    case let x as Double: return x
    case let x as Float: return Double(x)
    case let x as CGFloat: return Double(x)
    case let x as Int: return Double(x)
    case let x as Int32: return Double(x)
    case let x as Int64: return Double(x)
    case let x as UInt: return Double(x)
    case let x as UInt32: return Double(x)
    case let x as UInt64: return Double(x)
    case let x as Int16: return Double(x)
    case let x as UInt16: return Double(x)
    case let x as Int8: return Double(x)
    case let x as UInt8: return Double(x)
    case let x as Bool: return x ? 1 : 0
    case let x as NSNumber: return x.doubleValue
    case let x as String: return Double(x.trimmingCharacters(in: .whitespaces))
    default: return nil
    }
}

func typeName(_ v: Any) -> String { String(describing: type(of: v)) }
