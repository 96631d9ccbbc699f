import Cyanotype
import Foundation

/// Anything that turns an image into an image: looks, grain, CSS filter lists, chains.
public protocol Filter: AnyObject, Sendable {
    /// The look's recipe name ("clarendon", "grain", ...).
    var name: String { get }
    /// The filtered image (lazy: nothing is computed until rendered), cropped to the input's
    /// extent.
    func apply(to image: CIImage) -> CIImage
}

/// The base of every look: an `intensity` (0...1) that mixes the full look with the original
/// in the working space (linear light), named parameters for recipes, and a `ciFilter` for
/// places that expect a `CIFilter`.
///
/// Subclasses override `fullLook(for:)` (and may override `look(for:intensity:)` to fold the
/// mix into their own kernel). Parameters are guarded by a lock, so a filter may be shared
/// across threads; changing one never rebuilds tables or compiled state.
open class BaseFilter: Filter, @unchecked Sendable, CustomStringConvertible {
    /// The recipe name.
    public let name: String
    private let lock = NSLock()
    private var storedIntensity: Double = 1

    /// A look called `name` (its recipe name), at full intensity.
    public init(name: String) { self.name = name }

    /// How much of the look to apply: 0 is the original, 1 the full look.
    public var intensity: Double {
        get { lock.lock(); defer { lock.unlock() }; return storedIntensity }
        set { lock.lock(); storedIntensity = newValue.isFinite ? min(max(newValue, 0), 1) : 1; lock.unlock() }
    }

    /// Runs `body` holding this filter's parameter lock (for subclasses' own parameters).
    public func withParameterLock<T>(_ body: () -> T) -> T {
        lock.lock(); defer { lock.unlock() }
        return body()
    }

    /// The filtered image, cropped to the input's extent. An empty or infinite input is
    /// returned unchanged (there is no element box to size overlays or grain by).
    public final func apply(to image: CIImage) -> CIImage {
        let e = image.extent
        guard !e.isEmpty, !e.isInfinite else { return image }
        let t = intensity
        if t <= 0 { return image }
        return look(for: image, intensity: t).cropped(to: e)
    }

    /// The full-strength look. Subclasses override.
    open func fullLook(for image: CIImage) -> CIImage { image }

    /// The look at `intensity` (in (0, 1]); by default `fullLook` mixed with the original.
    open func look(for image: CIImage, intensity: Double) -> CIImage {
        let full = fullLook(for: image)
        return intensity >= 1 ? full : mix(full, over: image, amount: intensity)
    }

    /// Named numeric parameters other than intensity (for recipes and the `ciFilter`).
    open var parameters: [String: Double] { [:] }
    /// Sets a named parameter; throws `RecipeError.unknownParameter` for a name it lacks.
    open func setParameter(_ key: String, to value: Double) throws(RecipeError) {
        throw .unknownParameter(filter: name, key: key, valid: ["intensity"] + parameters.keys.sorted())
    }

    /// An independent copy with the same parameters (used by `FilterChain.snapshot`). The
    /// default re-creates registered looks by name; a subclass with state of its own should
    /// override it (otherwise the snapshot shares this instance).
    open func copy() -> BaseFilter {
        guard let c = try? FilterRegistry.make(name), type(of: c) == type(of: self) else { return self }
        c.intensity = intensity
        for (k, v) in parameters { try? c.setParameter(k, to: v) }
        return c
    }

    /// A `CIFilter` wrapping this look: `inputImage`, `inputIntensity` and each parameter
    /// (as `input` + capitalised name) by key, `outputImage` as usual. It shares this
    /// filter's parameters.
    public var ciFilter: CIFilter { InstafilterCIFilter(self) }

    /// The class, name, intensity and parameters, for logs.
    public var description: String {
        let p = parameters.sorted { $0.key < $1.key }.map { "\($0.key): \(fmt($0.value))" }
        return "\(type(of: self))(\(name), intensity: \(fmt(intensity))\(p.isEmpty ? "" : ", " + p.joined(separator: ", ")))"
    }
}

/// `look` mixed with `original`: `original + amount * (look - original)`, premultiplied,
/// in the working space.
func mix(_ look: CIImage, over original: CIImage, amount: Double) -> CIImage {
    let t = Float(min(max(amount, 0), 1))
    let k = CIColorKernel(name: "intensity mix") { row in
        let out = row.output
        let orig = row.input(0)
        for i in 0..<out.count {
            let o = orig[i]
            out[i] = o + (out[i] - o) * t
        }
    }
    return k.apply(extent: original.extent, arguments: [look, original]) ?? look
}

/// The `CIFilter` face of a `BaseFilter`.
final class InstafilterCIFilter: CIFilter {
    let filter: BaseFilter
    private var input: CIImage?

    init(_ filter: BaseFilter) {
        self.filter = filter
        super.init()
        name = "Insta." + filter.name
    }

    private static func key(for parameter: String) -> String {
        "input" + parameter.prefix(1).uppercased() + parameter.dropFirst()
    }

    override var inputKeys: [String] {
        [kCIInputImageKey, kCIInputIntensityKey] + filter.parameters.keys.sorted().map(InstafilterCIFilter.key)
    }

    override func setValue(_ value: Any?, forKey key: String) {
        if key == kCIInputImageKey { input = value as? CIImage; return }
        guard let v = numberValue(value) else { return }
        if key == kCIInputIntensityKey { filter.intensity = v; return }
        for p in filter.parameters.keys where InstafilterCIFilter.key(for: p) == key {
            try? filter.setParameter(p, to: v)
        }
    }

    override func value(forKey key: String) -> Any? {
        if key == kCIInputImageKey { return input }
        if key == kCIOutputImageKey { return outputImage }
        if key == kCIInputIntensityKey { return filter.intensity }
        for (p, v) in filter.parameters where InstafilterCIFilter.key(for: p) == key { return v }
        return nil
    }

    override var outputImage: CIImage? {
        guard let input else { return nil }
        return filter.apply(to: input)
    }
}

func numberValue(_ value: Any?) -> Double? {
    switch value {
    case let d as Double: return d
    case let f as Float: return Double(f)
    case let i as Int: return Double(i)
    case let c as CGFloat: return Double(c)
    case let n as NSNumber: return n.doubleValue
    default: return nil
    }
}
