// How a built-in filter is declared (see also the README's "Filters" section): one table, the
// `FilterDescriptor(...)` literal, beside the function that builds its recipe:
//
//     /// CIGaussianBlur: Spreads the image with a Gaussian kernel.
//     static let gaussianBlur = BuiltinFilter(
//         FilterDescriptor(
//             "CIGaussianBlur", "Gaussian Blur", "Spreads the image with a Gaussian kernel.",
//             categories: [.blur, .builtIn, .stillImage, .video], macOS: "10.4", iOS: "6", factory: "gaussianBlur",
//             doc: "What ours does, where Apple publishes no formula.",
//             inputs: [
//                 .image(),
//                 .number("inputRadius", "Radius", .distance, default: 10, identity: 0, min: 0, slider: 0...100, limit: .gaussianSigma, "What it means here."),
//             ]),
//         reach: .gaussian
//     ) { args throws(CIFilterError) in
//         ... builds the recipe from `args` ...
//     }
//
// - Apple's attributes (name, display name, summary, categories, availability, and per input:
//   key, display name, class, type, default, identity, hard and slider ranges) are written in
//   the table (FilterTable.swift has the builders); a test (FilterSpecTests) checks them against
//   Apple's `spec/coreimage-filters.json`, listing the deliberate differences.
// - Our documentation is the table's `doc:` and each input's last string (hard-wrapped as
//   written; the descriptor joins each paragraph's lines); the `///` above the static is a short
//   line for DocC.
// - Our limits are `FilterInputLimit` values (named `static let`s in an `extension
//   FilterInputLimit`, next to the maths that needs them) given by an input's `limit:`. The
//   argument reader applies them (`FilterArguments`); the descriptor shows them
//   (`FilterInputDescriptor.limit`); the typed API's documentation quotes them.
// - What the tools ask is declared here too, beside the maths that decides it: `reach:` (how
//   far an output pixel reads its input: `.pointwise`, `.halo(key, times:, plus:)`, `.pixels(n)`,
//   `.unbounded`), `geometry:` (`.uprightRectangle`, `.affine(key:)`, `.reshapes`),
//   `barcode:` (a code generator) and `pictureRelative:` (inputs Apple measures on its 300 x 300
//   example picture). Left out, reach and geometry are what the categories imply
//   (`FilterReach.implied`); FilterReachTests measures every filter's impulse response against
//   its reach.
// - A family (filters differing only in a parameter of one implementation) is one list of rows,
//   each a table and the variant that sets it apart:
//   `static let xs = BuiltinFilter.family(doc: "what they share", [(FilterDescriptor(...), variantA), ...]) { args, variant in ... }`.
//
// `python3 scripts/generate-catalog.py` writes the typed API (`CIFilter.gaussianBlur()`) and
// the registry from the tables; a test fails while the committed files are stale.

/// Namespace of the built-in filter declarations; each filter file adds `static let`s (one
/// filter or one family), and `scripts/generate-catalog.py` lists them in `BuiltinFilters.all`.
enum BuiltinFilters {}

extension BuiltinFilter {
    /// A built-in: its table (`descriptor`, limits included), what the tools ask of it (`reach`,
    /// `geometry`, `barcode`; nil: what its categories imply; `pictureRelative`: the inputs
    /// whose Apple default is measured on Apple's 300 x 300 example picture), and the function
    /// that builds its recipe.
    init(
        _ descriptor: FilterDescriptor, reach: FilterReach? = nil, geometry: FilterGeometry? = nil, barcode: BarcodeOutput? = nil,
        pictureRelative: [String] = [], build: @escaping @Sendable (FilterArguments) throws(CIFilterError) -> CIImage
    ) {
        for input in descriptor.inputs where input.limit != nil {
            precondition(!input.isImage, "\(descriptor.name) limits its image input \(input.key)")
        }
        if case .halo(let key?, _, _)? = reach {
            precondition(descriptor.input(key).map { !$0.isImage } ?? false, "\(descriptor.name) has no numeric input \(key) for its reach")
        }
        var declared = descriptor
        if let reach { declared.reach = reach }
        if let geometry { declared.geometry = geometry }
        if let barcode { declared.barcode = barcode }
        for key in pictureRelative {
            precondition(descriptor.input(key).map { !$0.isImage } ?? false, "\(descriptor.name) has no input \(key) to scale")
        }
        declared.pictureRelativeKeys = pictureRelative
        self.init(declared, build: build)
    }

    /// A family of built-ins sharing one implementation: one row per filter (its table and the
    /// variant that sets it apart), one build function. `doc` (what the family shares) follows
    /// each row's own documentation; `categories`, `macOS`, `iOS` and `protocol` stand for a
    /// row's where it gives none, and `inputs` follow each row's own (a row may also take an
    /// earlier row's inputs: `FilterDescriptor(..., inputsLike:)`); `reach`, `geometry`,
    /// `barcode` and `pictureRelative` apply to every row.
    static func family<Variant: Sendable>(
        doc: String = "", categories: [FilterCategory] = [], macOS: String? = nil, iOS: String? = nil, `protocol`: String? = nil,
        inputs: [FilterInputDescriptor] = [], _ rows: [(FilterDescriptor, Variant)],
        reach: FilterReach? = nil, geometry: FilterGeometry? = nil, barcode: BarcodeOutput? = nil, pictureRelative: [String] = [],
        build: @escaping @Sendable (FilterArguments, Variant) throws(CIFilterError) -> CIImage
    ) -> [BuiltinFilter] {
        let sharedDoc = FilterDescriptor.unwrapped(doc)
        let shared = FilterDescriptor(
            "", "", "", categories: categories, macOS: macOS, iOS: iOS, factory: `protocol` == nil ? nil : "", protocol: `protocol`,
            inputs: inputs)
        var earlier: [String: FilterDescriptor] = [:]
        return rows.map { row, variant in
            var descriptor = row.completed(shared, earlier: earlier)
            earlier[descriptor.name] = descriptor
            descriptor.documentation = [row.documentation, sharedDoc].filter { !$0.isEmpty }.joined(separator: "\n\n")
            return BuiltinFilter(descriptor, reach: reach, geometry: geometry, barcode: barcode, pictureRelative: pictureRelative) {
                args throws(CIFilterError) in
                try build(args, variant)
            }
        }
    }
}

// Typed property access for the generated `CIFilter.xxx()` classes.
extension CIFilter {
    func typedValue(forKey key: String, as: Float.Type) -> Float {
        value(forKey: key).flatMap(numberValue).map { Float($0) } ?? 0
    }
    func typedValue(forKey key: String, as: Bool.Type) -> Bool {
        (value(forKey: key).flatMap(numberValue) ?? 0) != 0
    }
    func typedValue(forKey key: String, as: Int.Type) -> Int {
        value(forKey: key).flatMap(numberValue).map { $0.isFinite ? Int(max(-1e15, min(1e15, $0)).rounded()) : 0 } ?? 0
    }
    func typedValue(forKey key: String, as: NSAttributedString.Type) -> NSAttributedString {
        switch value(forKey: key) {
        case let a as NSAttributedString: return a
        case let s as String: return NSAttributedString(string: s)
        default: return NSAttributedString(string: "")
        }
    }
    func typedValue(forKey key: String, as: CIImage.Type) -> CIImage? { value(forKey: key) as? CIImage }
    func typedValue(forKey key: String, as: CIVector.Type) -> CIVector { asVector(value(forKey: key)) ?? CIVector(values: []) }
    func typedValue(forKey key: String, as: CGPoint.Type) -> CGPoint { asVector(value(forKey: key))?.cgPointValue ?? .zero }
    func typedValue(forKey key: String, as: CGRect.Type) -> CGRect { asVector(value(forKey: key))?.cgRectValue ?? .zero }
    func typedValue(forKey key: String, as: CIColor.Type) -> CIColor { value(forKey: key) as? CIColor ?? .black }
    func typedValue(forKey key: String, as: CGAffineTransform.Type) -> CGAffineTransform {
        if let value = value(forKey: key) as? NSValue, value.holdsAffineTransform { return value.cgAffineTransformValue }
        return value(forKey: key) as? CGAffineTransform ?? asVector(value(forKey: key))?.cgAffineTransformValue ?? .identity
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
