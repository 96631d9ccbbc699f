/// A default, identity or limit value of a filter input, as Core Image's attributes hold them.
public enum FilterValue: Sendable, Equatable {
    case number(Double)
    case bool(Bool)
    case vector([Double])
    case color([Double])
    case transform([Double])
    case string(String)
    case data(byteLength: Int)
    case colorSpace(String)

    /// The value as Core Image hands it out (`NSNumber`, `CIVector`, `CIColor`, ...).
    public var objectValue: Any {
        switch self {
        case .number(let d): return NSNumber(value: d)
        case .bool(let b): return NSNumber(value: b)
        case .vector(let v): return CIVector(values: v.map { CGFloat($0) })
        case .color(let c): return CIColor(red: CGFloat(c[0]), green: CGFloat(c[1]), blue: CGFloat(c[2]), alpha: CGFloat(c.count > 3 ? c[3] : 1))
        case .transform(let t): return CGAffineTransform(a: t[0], b: t[1], c: t[2], d: t[3], tx: t[4], ty: t[5])
        case .string(let s): return s
        case .data(let n): return Data(count: n)
        case .colorSpace(let name): return CGColorSpace(name: name == "sRGB" ? CGColorSpace.sRGB : name) as Any
        }
    }
}

/// One input of a filter: key, type, default and ranges, from Apple's attributes.
public struct FilterInputDescriptor: Sendable {
    public let key: String
    public let displayName: String?
    /// Core Image's `CIAttributeClass`: "CIImage", "NSNumber", "CIVector", "CIColor", ...
    public let className: String
    /// Core Image's `CIAttributeType`, e.g. "CIAttributeTypeScalar"; nil where Apple has none.
    public let attributeType: String?
    public let defaultValue: FilterValue?
    public let identity: FilterValue?
    public let minimum: Double?
    public let maximum: Double?
    public let sliderMinimum: Double?
    public let sliderMaximum: Double?

    public init(key: String, displayName: String?, className: String, attributeType: String?, defaultValue: FilterValue? = nil,
                identity: FilterValue? = nil, minimum: Double? = nil, maximum: Double? = nil, sliderMinimum: Double? = nil, sliderMaximum: Double? = nil) {
        self.key = key; self.displayName = displayName; self.className = className; self.attributeType = attributeType
        self.defaultValue = defaultValue; self.identity = identity; self.minimum = minimum; self.maximum = maximum
        self.sliderMinimum = sliderMinimum; self.sliderMaximum = sliderMaximum
    }

    var isImage: Bool { className == "CIImage" }

    /// Core Image's attribute dictionary for this input.
    public var attributes: [String: Any] {
        var a: [String: Any] = [kCIAttributeClass: className]
        if let displayName { a[kCIAttributeDisplayName] = displayName }
        if let attributeType { a[kCIAttributeType] = attributeType }
        if let d = defaultValue { a[kCIAttributeDefault] = d.objectValue }
        if let i = identity { a[kCIAttributeIdentity] = i.objectValue }
        if let v = minimum { a[kCIAttributeMin] = NSNumber(value: v) }
        if let v = maximum { a[kCIAttributeMax] = NSNumber(value: v) }
        if let v = sliderMinimum { a[kCIAttributeSliderMin] = NSNumber(value: v) }
        if let v = sliderMaximum { a[kCIAttributeSliderMax] = NSNumber(value: v) }
        return a
    }
}

/// The one declaration of a filter: its Core Image name, display name, categories and inputs.
/// Attributes, key-value access, typed properties and range checks all derive from it.
public struct FilterDescriptor: Sendable {
    public let name: String
    public let displayName: String
    public let summary: String
    public let categories: [String]
    public let inputs: [FilterInputDescriptor]
    public let outputKeys: [String]
    public let availableMacOS: String?
    public let availableIOS: String?

    public init(name: String, displayName: String, summary: String, categories: [String], inputs: [FilterInputDescriptor],
                outputKeys: [String] = ["outputImage"], availableMacOS: String? = nil, availableIOS: String? = nil) {
        self.name = name; self.displayName = displayName; self.summary = summary; self.categories = categories
        self.inputs = inputs; self.outputKeys = outputKeys; self.availableMacOS = availableMacOS; self.availableIOS = availableIOS
    }

    public func input(_ key: String) -> FilterInputDescriptor? { inputs.first { $0.key == key } }

    /// Core Image's `attributes` dictionary.
    public var attributes: [String: Any] {
        var a: [String: Any] = [
            kCIAttributeFilterName: name,
            kCIAttributeFilterDisplayName: displayName,
            kCIAttributeFilterCategories: categories,
            kCIAttributeDescription: summary,
        ]
        if let m = availableMacOS { a[kCIAttributeFilterAvailable_Mac] = m }
        if let i = availableIOS { a[kCIAttributeFilterAvailable_iOS] = i }
        for i in inputs { a[i.key] = i.attributes }
        return a
    }
}
