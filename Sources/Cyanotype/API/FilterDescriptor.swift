/// A default, identity or limit value of a filter input, as Core Image's attributes hold them.
public enum FilterValue: Sendable, Equatable {
    /// An `NSNumber`.
    case number(Double)
    /// A boolean `NSNumber`.
    case bool(Bool)
    /// A `CIVector` of these components.
    case vector([Double])
    /// A `CIColor`: red, green, blue and (optionally) alpha.
    case color([Double])
    /// A `CGAffineTransform`: a, b, c, d, tx, ty.
    case transform([Double])
    /// A string.
    case string(String)
    /// `Data` of this many zero bytes.
    case data(byteLength: Int)
    /// A `CGColorSpace` by name ("sRGB").
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

/// A limit Cyanotype puts on a numeric input beyond Apple's attributes, with its reason.
///
/// Apple's hard range stays as Apple publishes it (`FilterInputDescriptor.minimum` and
/// `maximum`, `kCIAttributeMin`/`kCIAttributeMax` in `attributes`). A limit is ours: where a
/// value Apple allows would break the implementation (a blur whose halo outgrows memory, a cell
/// too large for pixel coordinates), the filter reads a value outside the limit as the nearest
/// end of it, exactly as it reads a value outside Apple's hard range. For a vector input (a
/// position) the limit applies to each component.
///
/// Read it through `FilterInputDescriptor.limit`, or use `effectiveMinimum`,
/// `effectiveMaximum` and `effectiveValue(_:)` there, which combine it with Apple's range.
public struct FilterInputLimit: Sendable, Equatable, CustomStringConvertible {
    /// The smallest value the filter uses; nil when we set no lower limit.
    public let minimum: Double?
    /// The largest value the filter uses; nil when we set no upper limit.
    public let maximum: Double?
    /// Why the limit exists, as a clause a user can act on ("a tile reads its input with a
    /// 3-sigma halo, and past 250 that halo outgrows memory").
    public let reason: String

    /// A limit of `minimum...maximum` (either end may be open) for `reason`.
    public init(minimum: Double? = nil, maximum: Double? = nil, reason: String) {
        self.minimum = minimum; self.maximum = maximum; self.reason = reason
    }

    /// Whether the filter uses `value` as it is.
    public func contains(_ value: Double) -> Bool {
        !(minimum.map { value < $0 } ?? false) && !(maximum.map { value > $0 } ?? false)
    }

    /// The value the filter uses for `value`: the nearest end of the limit when outside it.
    public func clamped(_ value: Double) -> Double {
        var x = value
        if let lo = minimum { x = max(x, lo) }
        if let hi = maximum { x = min(x, hi) }
        return x
    }

    /// The range in words: "1...4096", "at least 0.001" or "at most 250".
    public var rangeDescription: String {
        switch (minimum, maximum) {
        case let (lo?, hi?): return "\(Self.format(lo))...\(Self.format(hi))"
        case let (lo?, nil): return "at least \(Self.format(lo))"
        case let (nil, hi?): return "at most \(Self.format(hi))"
        case (nil, nil): return "any value"
        }
    }

    /// The range and the reason: "at most 250: a tile reads its input with ...".
    public var description: String { "\(rangeDescription): \(reason)" }

    /// Whole numbers without a fraction ("250", not "250.0").
    static func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
    }
}

/// How far past an output pixel a filter reads its input image: what a tool asks before it
/// extends the picture's edges (`--edges`) under a filter and crops the result back.
///
/// Declared beside the filter's maths (`BuiltinFilter(..., reach:)`); a test renders an impulse
/// through every filter and checks the spread against it.
public enum FilterReach: Sendable, Equatable {
    /// Each output pixel reads only the input pixels at the same place (a colour filter, a blend).
    case pointwise
    /// Each output pixel reads input pixels at most `factor * |value of key| + pixels` away in
    /// either direction (`key` nil: `pixels` alone); the value is the one the filter uses
    /// (default, clamped to its range and limit).
    case halo(key: String?, factor: Double, pixels: Double)
    /// Reads input pixels at any distance (a distortion, a tiling, a page curl).
    case unbounded
    /// Every output pixel may depend on every pixel of the input's extent, and only on those (a
    /// histogram, a reduction, a distance field): the filter needs a finite input, so a tool
    /// leaves its edges as they are.
    case wholeImage

    /// Whether an output pixel may read input pixels around its own, past the picture's edges
    /// near them: a tool extends the edges under such a filter. False for pointwise filters and
    /// for filters that read the whole (finite) image.
    public var readsPastEdges: Bool {
        switch self {
        case .pointwise, .wholeImage: return false
        case .halo, .unbounded: return true
        }
    }

    /// A halo of `factor` times the value of `key` plus `pixels` (a Gaussian's 3 sigma: `3, 1`).
    public static func halo(_ key: String, times factor: Double = 1, plus pixels: Double = 0) -> FilterReach {
        .halo(key: key, factor: factor, pixels: pixels)
    }

    /// A fixed halo of `n` pixels (a 3x3 kernel: 1), whatever the input values.
    public static func pixels(_ n: Double) -> FilterReach { .halo(key: nil, factor: 0, pixels: n) }

    /// The reach Core Image's categories imply, for a filter that declares none: a reduction
    /// reads the whole image; blurs, sharpening, stylize, distortion, geometry and tiling read
    /// past their edges by an unknown amount; the others (colour, composite, generator...) read
    /// in place. A test measures every filter left pointwise (FilterReachTests).
    static func implied(by categories: [String]) -> FilterReach {
        if categories.contains(kCICategoryReduction) { return .wholeImage }
        let reaching = [
            kCICategoryBlur, kCICategorySharpen, kCICategoryStylize, kCICategoryDistortionEffect,
            kCICategoryGeometryAdjustment, kCICategoryTileEffect,
        ]
        return categories.contains(where: reaching.contains) ? .unbounded : .pointwise
    }
}

/// How a filter moves the picture, for a tool that keeps or crops its extent.
public enum FilterGeometry: Sendable, Equatable {
    /// Not a geometry adjustment: the output sits where the input does (a tool keeps the
    /// picture's extent, cropping away a blur's growth).
    case inPlace
    /// Resamples into an upright rectangle (a scale, a crop, straightening, perspective correction).
    case uprightRectangle
    /// Applies the affine transform given in input `key`: upright when the matrix neither
    /// rotates nor shears (or swaps the axes).
    case affine(key: String)
    /// Turns or bends the picture (a rotation, a perspective): its corners may be left clear.
    case reshapes

    /// The geometry Core Image's categories imply, for a filter that declares none: a geometry
    /// adjustment reshapes, anything else stays in place.
    static func implied(by categories: [String]) -> FilterGeometry {
        categories.contains(kCICategoryGeometryAdjustment) ? .reshapes : .inPlace
    }
}

/// What a code generator draws (QR, Aztec, PDF417, Code 128): one pixel per module, to be
/// scaled by whole pixels (never resampled or cropped) so that scanners read it.
public struct BarcodeOutput: Sendable, Equatable {
    /// Whether the output already carries its quiet zone (QR's four modules, Code 128's
    /// `inputQuietSpace`); where not, a tool adds white around it.
    public let includesQuietZone: Bool

    /// A code generator's output, with or without its quiet zone.
    public init(includesQuietZone: Bool) { self.includesQuietZone = includesQuietZone }
}

/// One input of a filter: key, type, default and ranges from Apple's attributes, plus our own
/// documentation and limit from the filter's declaration.
public struct FilterInputDescriptor: Sendable {
    /// The input's key, e.g. "inputRadius".
    public let key: String
    /// Apple's display name ("Radius"); nil where Apple gives none.
    public let displayName: String?
    /// Core Image's `CIAttributeClass`: "CIImage", "NSNumber", "CIVector", "CIColor", ...
    public let className: String
    /// Core Image's `CIAttributeType`, e.g. "CIAttributeTypeScalar"; nil where Apple has none.
    public let attributeType: String?
    /// Apple's default value; nil for images and inputs without one.
    public let defaultValue: FilterValue?
    /// Apple's identity value (the one that leaves the image unchanged); nil when there is none.
    public let identity: FilterValue?
    /// Apple's hard minimum (`kCIAttributeMin`): smaller numbers are read as it.
    public let minimum: Double?
    /// Apple's hard maximum (`kCIAttributeMax`): larger numbers are read as it.
    public let maximum: Double?
    /// The low end of Apple's suggested slider range (`kCIAttributeSliderMin`).
    public let sliderMinimum: Double?
    /// The high end of Apple's suggested slider range (`kCIAttributeSliderMax`).
    public let sliderMaximum: Double?
    /// Cyanotype's own limit on this input, beyond Apple's hard range; nil when the filter uses
    /// every value Apple's range allows.
    public let limit: FilterInputLimit?
    /// What the input means in Cyanotype's implementation, from the filter's declaration; nil
    /// where the declaration adds nothing to Apple's attributes.
    public let documentation: String?

    /// An input declaration; `limit` and `documentation` are Cyanotype's, the rest Apple's.
    public init(
        key: String, displayName: String?, className: String, attributeType: String?, defaultValue: FilterValue? = nil,
        identity: FilterValue? = nil, minimum: Double? = nil, maximum: Double? = nil, sliderMinimum: Double? = nil, sliderMaximum: Double? = nil,
        limit: FilterInputLimit? = nil, documentation: String? = nil
    ) {
        self.key = key; self.displayName = displayName; self.className = className; self.attributeType = attributeType
        self.defaultValue = defaultValue; self.identity = identity; self.minimum = minimum; self.maximum = maximum
        self.sliderMinimum = sliderMinimum; self.sliderMaximum = sliderMaximum
        self.limit = limit; self.documentation = documentation
    }

    var isImage: Bool { className == "CIImage" }

    /// The smallest value the filter uses: Apple's `minimum` brought inside the limit; nil when
    /// neither sets one. (For a vector input: of each component.)
    public var effectiveMinimum: Double? { usableRange.lowerBound.isFinite ? usableRange.lowerBound : nil }

    /// The largest value the filter uses: Apple's `maximum` brought inside the limit; nil when
    /// neither sets one. (For a vector input: of each component.)
    public var effectiveMaximum: Double? { usableRange.upperBound.isFinite ? usableRange.upperBound : nil }

    /// The values the filter uses: Apple's hard range, then our limit, as one range (clamping to
    /// it is clamping to Apple's range and then to the limit).
    var usableRange: ClosedRange<Double> {
        let lo = limit?.clamped(minimum ?? -.infinity) ?? minimum ?? -.infinity
        let hi = limit?.clamped(maximum ?? .infinity) ?? maximum ?? .infinity
        return lo...max(lo, hi)
    }

    /// The value the filter uses when given `value` (a number, or one component of a
    /// position): clamped once, to Apple's hard range narrowed by the limit. A caller that gets
    /// back something other than `value` may tell its user that the value was limited, and why
    /// (`limit?.reason`, or Apple's range).
    public func effectiveValue(_ value: Double) -> Double {
        let r = usableRange
        return min(max(value, r.lowerBound), r.upperBound)
    }

    /// Core Image's attribute dictionary for this input (Apple's attributes only).
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

/// The one declaration of a filter: its Core Image name, display name, categories and inputs
/// (Apple's attributes, which a test checks against `spec/coreimage-filters.json`), with our
/// documentation and input limits, all written in the table beside the filter's maths. Attributes, key-value access, typed
/// properties, range checks and `cyanotype describe` all derive from it.
public struct FilterDescriptor: Sendable {
    /// The Core Image name, e.g. "CIGaussianBlur".
    public let name: String
    /// Apple's display name, e.g. "Gaussian Blur".
    public let displayName: String
    /// One line on what the filter does.
    public let summary: String
    /// Core Image's categories (`kCICategoryBlur`, ...).
    public let categories: [String]
    /// The inputs, in Apple's order.
    public let inputs: [FilterInputDescriptor]
    /// The output keys Apple lists (`outputImage` first).
    public let outputKeys: [String]
    /// The macOS version that introduced the filter, as Apple lists it.
    public let availableMacOS: String?
    /// The iOS version that introduced the filter, as Apple lists it.
    public let availableIOS: String?
    /// What Cyanotype's implementation does, from the filter's declaration (the formula where
    /// Apple publishes none); empty when the declaration has no documentation.
    public internal(set) var documentation: String
    /// How far past an output pixel the filter reads its input image (declared beside its
    /// maths; where a filter declares none, what its categories imply: `FilterReach.implied`).
    public internal(set) var reach: FilterReach
    /// How the filter moves the picture (declared beside its maths; where a filter declares
    /// none, what its categories imply: `FilterGeometry.implied`).
    public internal(set) var geometry: FilterGeometry
    /// What a code generator draws; nil for every other filter.
    public internal(set) var barcode: BarcodeOutput?
    /// The inputs whose Apple default is measured on Apple's 300 x 300 example picture (the
    /// radius of a vignette or a twirl: 150, half its side), which a tool applying the filter
    /// to a picture of its own scales to that picture's shorter side.
    public internal(set) var pictureRelativeKeys: [String] = []
    /// The factory of Core Image's typed API (`CIFilter.gaussianBlur()`) and the protocol it
    /// returns, from a built-in's table; nil where Core Image has none.
    var typedAPI: (factory: String, `protocol`: String)?
    /// The family row whose inputs this built-in's table takes (`FilterDescriptor(..., inputsLike:)`),
    /// until its family completes it; nil otherwise.
    var inputsLike: String?
    /// Index of each input in `inputs`, by key.
    private let index: [String: Int]

    /// A filter declaration; `documentation`, `reach`, `geometry` and `barcode` are ours, the
    /// rest Apple's attributes. A nil `reach` or `geometry` is the one `categories` imply.
    public init(
        name: String, displayName: String, summary: String, categories: [String], inputs: [FilterInputDescriptor],
        outputKeys: [String] = ["outputImage"], availableMacOS: String? = nil, availableIOS: String? = nil,
        documentation: String = "", reach: FilterReach? = nil, geometry: FilterGeometry? = nil, barcode: BarcodeOutput? = nil
    ) {
        self.name = name; self.displayName = displayName; self.summary = summary; self.categories = categories
        self.inputs = inputs; self.outputKeys = outputKeys; self.availableMacOS = availableMacOS; self.availableIOS = availableIOS
        self.documentation = documentation
        self.reach = reach ?? .implied(by: categories)
        self.geometry = geometry ?? .implied(by: categories)
        self.barcode = barcode
        self.index = Dictionary(inputs.enumerated().map { ($0.element.key, $0.offset) }, uniquingKeysWith: { first, _ in first })
    }

    /// The input with `key`, or nil.
    public func input(_ key: String) -> FilterInputDescriptor? { index[key].map { inputs[$0] } }

    /// Whether the filter reads an input image (false for generators).
    public var takesImage: Bool { index[kCIInputImageKey] != nil }

    /// How many pixels past an output pixel the filter reads its input image with these input
    /// values (missing ones at their defaults; each as the filter uses it, within its range
    /// and limit): 0 for a pointwise filter, nil when the reach has no bound (or is the
    /// whole image).
    public func reachInPixels(values: [String: Any] = [:]) -> Double? {
        switch reach {
        case .pointwise: return 0
        case .unbounded, .wholeImage: return nil
        case .halo(let key, let factor, let pixels):
            guard let key else { return pixels }
            guard let input = input(key) else { return nil }
            let given = values[key].flatMap(numberValue)
            guard let v = given ?? input.defaultValue.flatMap({ if case .number(let d) = $0 { d } else { nil } }), v.isFinite
            else { return nil }
            return factor * abs(input.effectiveValue(v)) + pixels
        }
    }

    /// Whether the output is an upright rectangle for these input values (a scale, a crop, an
    /// affine transform that neither rotates nor shears): a tool may then extend the picture's
    /// edges under it. False for a filter that is not a geometry adjustment.
    public func keepsRectangle(values: [String: Any] = [:]) -> Bool {
        switch geometry {
        case .inPlace, .reshapes: return false
        case .uprightRectangle: return true
        case .affine(let key):
            guard let t = values[key] as? CGAffineTransform else { return true }
            return (t.b == 0 && t.c == 0) || (t.a == 0 && t.d == 0)
        }
    }

    /// Core Image's `attributes` dictionary (Apple's attributes only: our limits and
    /// documentation are not in it).
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
