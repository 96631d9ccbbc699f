// CILUTFilter: a LUT image, a parsed LUT or a LUT file applied to an image, with intensity.

/// Applies a LUT to `inputImage`. The LUT comes from `lutImage` (a tile grid, strip or Hald
/// image; see `imageLayout`), `lut`, or `lutURL` (`.cube`, `.3dl` or an image), whichever was
/// set last; it is parsed once and cached until the source changes (a file through the LUT
/// file cache, by file identity: an edited file is read again). `intensity` mixes the
/// result with the original (in the LUT's encoding). Named looks: `CILUTFilter.warmFilm`,
/// `CILUTFilter.look(named:)`.
///
/// `outputImage` is nil when something is wrong; `makeFilteredImage()` says what.
@dynamicMemberLookup
open class CILUTFilter: CIFilter {
    enum Source { case none, image(CIImage), lut(LUT), url(URL) }
    private var source: Source = .none
    private var cached: Result<LUT, LUTError>?

    /// The image to filter.
    public var inputImage: CIImage?
    /// A LUT image (512x512 tiles of 64 etc.). Setting it replaces any other LUT source.
    public var lutImage: CIImage? {
        get { if case .image(let i) = source { return i }; return nil }
        set { setSource(newValue.map(Source.image) ?? .none) }
    }
    /// A parsed LUT. Reading it parses the current source (nil when that fails).
    public var lut: LUT? {
        get { try? makeLUT() }
        set { setSource(newValue.map(Source.lut) ?? .none) }
    }
    /// A LUT file: `.cube`, `.3dl`, or a LUT image file.
    public var lutURL: URL? {
        get { if case .url(let u) = source { return u }; return nil }
        set { setSource(newValue.map(Source.url) ?? .none) }
    }
    /// How LUT images are laid out; nil: `LUTImageLayout.assumed` (tiles for square images).
    public var imageLayout: LUTImageLayout? { didSet { cached = nil } }
    /// 0 leaves the image alone, 1 (default) applies the LUT fully.
    public var intensity: Float = 1
    /// Tetrahedral by default.
    public var interpolation: LUTInterpolation = .tetrahedral

    /// An empty filter: set a LUT (`lut`, `lutImage` or `lutURL`) and an input image.
    public override init() {
        super.init()
        name = "CILUTFilter"
    }
    /// A filter for a LUT image.
    public init(image: CIImage) {
        super.init()
        name = "CILUTFilter"
        source = .image(image)
    }
    /// A filter for a parsed LUT.
    public convenience init(_ lut: LUT) {
        self.init()
        source = .lut(lut)
        cached = .success(lut)
    }
    /// A filter for a LUT file (read when first needed).
    public convenience init(url: URL) {
        self.init()
        source = .url(url)
    }

    private func setSource(_ s: Source) {
        source = s
        cached = nil
        if case .lut(let l) = s { cached = .success(l) }
    }

    /// The LUT, parsed from its source once and cached.
    public func makeLUT() throws(LUTError) -> LUT {
        if let cached { return try cached.get() }
        let r: Result<LUT, LUTError>
        switch source {
        case .none: throw .noLUT
        case .lut(let l): r = .success(l)
        case .image(let i): r = Result { () throws(LUTError) -> LUT in try LUT(image: i, layout: imageLayout, maximumSize: LUT.sizeRange.upperBound) }
        case .url(let u):
            // Through the LUT file cache: a file read by another filter is not parsed again.
            r = Result { () throws(LUTError) -> LUT in
                try LUTFileCache.sharedForFilters.lut(contentsOf: u, layout: imageLayout, maximumSize: LUT.sizeRange.upperBound)
            }
        }
        cached = r
        return try r.get()
    }

    /// The filtered image, or why there is none.
    public func makeFilteredImage() throws(LUTError) -> CIImage {
        guard let inputImage else { throw .missingInputImage }
        let lut = try makeLUT()
        return inputImage.applyingLUT(lut, interpolation: interpolation, intensity: intensity)
    }

    /// The input image through the LUT; nil when there is no input or the LUT cannot be read
    /// (`makeFilteredImage()` says why).
    open override var outputImage: CIImage? { try? makeFilteredImage() }

    /// The keys `setValue(_:forKey:)` accepts: `inputImage`, `lutImage`, `lut`, `lutURL`, `intensity`
    /// and `interpolation`.
    open override var inputKeys: [String] { [kCIInputImageKey, "lutImage", "lut", "lutURL", "intensity", "interpolation"] }
    /// The filter's one output, `outputImage`.
    open override var outputKeys: [String] { [kCIOutputImageKey] }
    /// The filter's name, display name ("LUT"), categories and description.
    open override var attributes: [String: Any] {
        [
            kCIAttributeFilterName: name, kCIAttributeFilterDisplayName: "LUT",
            kCIAttributeFilterCategories: ["CICategoryColorEffect", "CICategoryStillImage", "CICategoryVideo"],
            kCIAttributeDescription: "Applies a 3D LUT from a LUT image, a .cube/.3dl file or a LUT value, mixed with the original by intensity.",
        ]
    }

    /// Sets an input by key (the keys of `inputKeys`; `inputLUTImage` and `inputIntensity` are
    /// accepted too); other keys go to `CIFilter`.
    open override func setValue(_ value: Any?, forKey key: String) {
        switch key {
        case kCIInputImageKey: inputImage = value as? CIImage
        case "lutImage", "inputLUTImage": lutImage = value as? CIImage
        case "lut": lut = value as? LUT
        case "lutURL": lutURL = value as? URL ?? (value as? String).map { URL(fileURLWithPath: $0) }
        case "intensity", kCIInputIntensityKey: intensity = value.flatMap(numberValue).map { Float($0) } ?? 1
        case "interpolation": interpolation = (value as? LUTInterpolation) ?? (value as? String).flatMap(LUTInterpolation.init(rawValue:)) ?? .tetrahedral
        default: super.setValue(value, forKey: key)
        }
    }
    /// The value of an input by key, as `setValue(_:forKey:)` names them.
    open override func value(forKey key: String) -> Any? {
        switch key {
        case kCIInputImageKey: return inputImage
        case "lutImage", "inputLUTImage": return lutImage
        case "lut": return lut
        case "lutURL": return lutURL
        case "intensity", kCIInputIntensityKey: return NSNumber(value: intensity)
        case "interpolation": return interpolation.rawValue
        case kCIOutputImageKey: return outputImage
        default: return super.value(forKey: key)
        }
    }
    /// Resets `intensity` to 1 and `interpolation` to tetrahedral; the LUT and image stay.
    open override func setDefaults() {
        intensity = 1
        interpolation = .tetrahedral
    }

    // MARK: Named looks

    /// A filter for a look of the shared configuration: `CILUTFilter.warmFilm`.
    public static subscript(dynamicMember keyPath: KeyPath<LUTConfiguration, LUT>) -> CILUTFilter {
        CILUTFilter(LUTConfiguration.shared[keyPath: keyPath])
    }
    /// A filter for a look by name (built in or registered).
    public static func look(named name: String) throws(LUTError) -> CILUTFilter {
        CILUTFilter(try LUTConfiguration.shared.requireLook(named: name))
    }
}

extension CIFilter {
    /// A LUT filter for a LUT image (tile grid by default).
    public static func lutFilter(_ lutImage: CIImage) -> CILUTFilter { CILUTFilter(image: lutImage) }
    /// A LUT filter for a parsed LUT.
    public static func lutFilter(_ lut: LUT) -> CILUTFilter { CILUTFilter(lut) }
    /// A LUT filter for a LUT file.
    public static func lutFilter(url: URL) -> CILUTFilter { CILUTFilter(url: url) }
}
