// The vocabulary of the filter tables: each built-in's facts are one `FilterDescriptor(...)`
// literal in the filter's own file, beside its maths (see BuiltinFilters.swift):
//
//     FilterDescriptor(
//         "CIGaussianBlur", "Gaussian Blur", "Spreads the image with a Gaussian kernel.",
//         categories: [.blur, .builtIn, .stillImage, .video], macOS: "10.4", iOS: "6", factory: "gaussianBlur",
//         doc: "A true Gaussian of standard deviation `radius`.",
//         inputs: [
//             .image(),
//             .number("inputRadius", "Radius", .distance, default: 10, identity: 0, min: 0, slider: 0...100, limit: .gaussianSigma, "The sigma, in pixels."),
//         ])
//
// scripts/generate-catalog.py reads these literals (and nothing else) to write the typed API,
// so they stay literals: strings, numbers, ranges, arrays and the builders below.

/// Core Image's filter categories, as a filter's table names them (`.blur` is `kCICategoryBlur`).
enum FilterCategory: String, Sendable {
    case blur = "CICategoryBlur", builtIn = "CICategoryBuiltIn", colorAdjustment = "CICategoryColorAdjustment"
    case colorEffect = "CICategoryColorEffect", compositeOperation = "CICategoryCompositeOperation"
    case distortionEffect = "CICategoryDistortionEffect", generator = "CICategoryGenerator"
    case geometryAdjustment = "CICategoryGeometryAdjustment", gradient = "CICategoryGradient"
    case halftoneEffect = "CICategoryHalftoneEffect", highDynamicRange = "CICategoryHighDynamicRange"
    case interlaced = "CICategoryInterlaced", nonSquarePixels = "CICategoryNonSquarePixels", reduction = "CICategoryReduction"
    case sharpen = "CICategorySharpen", stillImage = "CICategoryStillImage", stylize = "CICategoryStylize"
    case tileEffect = "CICategoryTileEffect", transition = "CICategoryTransition", video = "CICategoryVideo"
    case xmpSerializable = "CICategoryXMPSerializable"
}

/// Core Image's input attribute types, as a filter's table names them (`.distance` is
/// `kCIAttributeTypeDistance`).
enum FilterAttributeType: String, Sendable {
    case angle = "CIAttributeTypeAngle", boolean = "CIAttributeTypeBoolean", color = "CIAttributeTypeColor"
    case count = "CIAttributeTypeCount", distance = "CIAttributeTypeDistance", gradient = "CIAttributeTypeGradient"
    case image = "CIAttributeTypeImage", integer = "CIAttributeTypeInteger", offset = "CIAttributeTypeOffset"
    case opaqueColor = "CIAttributeTypeOpaqueColor", position = "CIAttributeTypePosition", position3 = "CIAttributeTypePosition3"
    case rectangle = "CIAttributeTypeRectangle", scalar = "CIAttributeTypeScalar", time = "CIAttributeTypeTime"
    case transform = "CIAttributeTypeTransform"
}

extension FilterDescriptor {
    /// A built-in's table: Apple's name, display name, summary, categories and availability;
    /// `factory` (and `protocol`, where Apple shares one) of its typed API (`CIFilter.gaussianBlur()`),
    /// nil where Core Image has none; our documentation `doc` (written hard-wrapped: each
    /// paragraph is joined into one line here); and its inputs, in Apple's order. A family's
    /// row may leave out the categories, availability, protocol and trailing inputs its family
    /// declares once, or take all its inputs from an earlier row of the family (`inputsLike`,
    /// that row's name) where they are the same.
    init(
        _ name: String, _ displayName: String, _ summary: String, categories: [FilterCategory] = [], macOS: String? = nil,
        iOS: String? = nil, factory: String? = nil, `protocol`: String? = nil, outputKeys: [String] = [kCIOutputImageKey],
        doc: String = "", inputs: [FilterInputDescriptor] = [], inputsLike: String? = nil
    ) {
        precondition(inputsLike == nil || inputs.isEmpty, "\(name) lists inputs and takes those of \(inputsLike ?? "")")
        self.init(
            name: name, displayName: displayName, summary: summary, categories: categories.map(\.rawValue), inputs: inputs,
            outputKeys: outputKeys, availableMacOS: macOS, availableIOS: iOS, documentation: Self.unwrapped(doc))
        typedAPI = factory.map { (factory: $0, protocol: `protocol` ?? name) }
        self.inputsLike = inputsLike
    }

    /// A family row's table with what its family declares once (`shared`): its categories where
    /// the row lists none, its availability where the row gives none, its protocol where the
    /// row names none of its own, its inputs after the row's own; or, for a row that takes
    /// the inputs of an earlier one, that row's inputs (in `earlier`, by name).
    func completed(_ shared: FilterDescriptor, earlier: [String: FilterDescriptor]) -> FilterDescriptor {
        let own: [FilterInputDescriptor]
        if let inputsLike {
            guard let model = earlier[inputsLike] else { preconditionFailure("\(name): no earlier row of its family is \(inputsLike)") }
            own = model.inputs
        } else {
            own = inputs + shared.inputs
        }
        var table = FilterDescriptor(
            name: name, displayName: displayName, summary: summary, categories: categories.isEmpty ? shared.categories : categories,
            inputs: own, outputKeys: outputKeys, availableMacOS: availableMacOS ?? shared.availableMacOS,
            availableIOS: availableIOS ?? shared.availableIOS, documentation: documentation)
        table.typedAPI = typedAPI.map { api in (api.factory, api.protocol == name ? shared.typedAPI?.protocol ?? name : api.protocol) }
        return table
    }

    /// Documentation as a table writes it (hard-wrapped) as a descriptor gives it: the lines of
    /// each paragraph joined by spaces; list items ("- ") and indented lines keep their own lines.
    static func unwrapped(_ text: String) -> String {
        text.components(separatedBy: "\n\n").map { paragraph in
            var lines: [String] = []
            for line in paragraph.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
                if let last = lines.last, !line.hasPrefix("- "), !line.hasPrefix("  ") {
                    lines[lines.count - 1] = last + " " + line.trimmingCharacters(in: .whitespaces)
                } else {
                    lines.append(String(line.reversed().drop { $0 == " " || $0 == "\t" }.reversed()))
                }
            }
            return lines.joined(separator: "\n")
        }.joined(separator: "\n\n")
    }
}

extension FilterInputDescriptor {
    /// An image input (`inputImage`, "Image" unless named otherwise).
    static func image(_ key: String = kCIInputImageKey, _ displayName: String? = "Image", type: FilterAttributeType? = .image, _ doc: String? = nil) -> Self {
        input("CIImage", key, displayName, type, doc: doc)
    }

    /// A number (`NSNumber`): Apple's default, identity, hard range and slider range, and our `limit`.
    static func number(
        _ key: String, _ displayName: String?, _ type: FilterAttributeType?, default value: Double? = nil, identity: Double? = nil,
        min: Double? = nil, max: Double? = nil, slider: ClosedRange<Double>? = nil, limit: FilterInputLimit? = nil, _ doc: String? = nil
    ) -> Self {
        input(
            "NSNumber", key, displayName, type, default: value.map(FilterValue.number), identity: identity.map(FilterValue.number),
            min: min, max: max, slider: slider, limit: limit, doc: doc)
    }

    /// A boolean `NSNumber` (`CIAttributeTypeBoolean`).
    static func bool(
        _ key: String, _ displayName: String?, default value: Bool? = nil, min: Double? = nil, max: Double? = nil,
        slider: ClosedRange<Double>? = nil, _ doc: String? = nil
    ) -> Self {
        input("NSNumber", key, displayName, .boolean, default: value.map(FilterValue.bool), min: min, max: max, slider: slider, doc: doc)
    }

    /// A `CIVector` (a position, an offset, a rectangle...); a `limit` applies to each component.
    static func vector(
        _ key: String, _ displayName: String?, _ type: FilterAttributeType?, default value: [Double]? = nil, identity: [Double]? = nil,
        limit: FilterInputLimit? = nil, _ doc: String? = nil
    ) -> Self {
        input(
            "CIVector", key, displayName, type, default: value.map(FilterValue.vector), identity: identity.map(FilterValue.vector), limit: limit,
            doc: doc)
    }

    /// A `CIColor`: red, green, blue and (optionally) alpha.
    static func color(
        _ key: String, _ displayName: String?, _ type: FilterAttributeType?, default value: [Double]? = nil, identity: [Double]? = nil,
        _ doc: String? = nil
    ) -> Self {
        input("CIColor", key, displayName, type, default: value.map(FilterValue.color), identity: identity.map(FilterValue.color), doc: doc)
    }

    /// An input of any other class (`NSData`, `NSString`, `NSAffineTransform`, ...), its values as `FilterValue`s.
    static func other(
        _ className: String, _ key: String, _ displayName: String?, _ type: FilterAttributeType?, default value: FilterValue? = nil,
        identity: FilterValue? = nil, _ doc: String? = nil
    ) -> Self {
        input(className, key, displayName, type, default: value, identity: identity, doc: doc)
    }

    private static func input(
        _ className: String, _ key: String, _ displayName: String?, _ type: FilterAttributeType?, default value: FilterValue? = nil,
        identity: FilterValue? = nil, min: Double? = nil, max: Double? = nil, slider: ClosedRange<Double>? = nil,
        limit: FilterInputLimit? = nil, doc: String?
    ) -> Self {
        FilterInputDescriptor(
            key: key, displayName: displayName, className: className, attributeType: type?.rawValue, defaultValue: value,
            identity: identity, minimum: min, maximum: max, sliderMinimum: slider?.lowerBound, sliderMaximum: slider?.upperBound,
            limit: limit, documentation: doc.map(FilterDescriptor.unwrapped))
    }
}
