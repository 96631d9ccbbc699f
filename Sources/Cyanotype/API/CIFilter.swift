/// A filter: a name, parameters set by key, and an `outputImage` recipe. Built-in filters are
/// created by name (`CIFilter(name: "CISepiaTone")`) or typed (`CIFilter.sepiaTone()`);
/// users subclass and override `outputImage`, as with Core Image.
///
/// Like Core Image's, a filter is a mutable parameter set: use one per thread. The images it
/// produces are immutable and may be rendered anywhere.
open class CIFilter: CustomStringConvertible {
    /// The Core Image name ("CISepiaTone"), or the subclass's name.
    open var name: String
    let builtin: BuiltinFilter?
    private var values: [String: Any] = [:]
    private var unknownKeys: [String] = []

    /// For subclasses: a filter with no built-in behaviour.
    public init() {
        name = String(describing: type(of: self))
        builtin = nil
    }

    init(builtin: BuiltinFilter) {
        name = builtin.descriptor.name
        self.builtin = builtin
    }

    // MARK: Key-value access

    /// Sets the input `key` to `value` (nil or `NSNull()` unsets it, so its default applies).
    /// An unknown key is remembered, and `makeOutputImage()` reports it. Subclasses whose inputs
    /// are their own properties override this (Linux has no key-value coding).
    open func setValue(_ value: Any?, forKey key: String) {
        if let b = builtin, b.descriptor.input(key) == nil {
            if !unknownKeys.contains(key) { unknownKeys.append(key) }
            return
        }
        if let value, !(value is NSNull) { values[key] = value } else { values.removeValue(forKey: key) }
    }

    /// The value set for `key`, else its default (an `NSNumber`, `CIVector`, `CIColor`,
    /// `CGAffineTransform`, ...); nil for an unknown key or an unset image.
    open func value(forKey key: String) -> Any? {
        if key == kCIOutputImageKey { return outputImage }
        if let v = values[key] { return v }
        return builtin?.descriptor.input(key)?.defaultValue?.objectValue
    }

    /// Sets several inputs at once, as `setValue(_:forKey:)` for each pair.
    public func setValuesForKeys(_ keyedValues: [String: Any]) {
        for (k, v) in keyedValues { setValue(v, forKey: k) }
    }

    /// Resets every input to its default (images are unset).
    open func setDefaults() {
        let images = values.filter { $0.value is CIImage }
        values = images
        unknownKeys.removeAll()
    }

    /// The keys of the filter's inputs (`inputImage`, `inputRadius`, ...), in declaration order.
    open var inputKeys: [String] {
        return builtin?.descriptor.inputs.map(\.key) ?? []
    }
    /// The keys of the filter's outputs (`outputImage`).
    open var outputKeys: [String] {
        return builtin?.descriptor.outputKeys ?? [kCIOutputImageKey]
    }
    /// Core Image's attributes: name, display name, categories, and per input its class,
    /// type, default, identity and ranges.
    open var attributes: [String: Any] {
        return builtin?.descriptor.attributes ?? [kCIAttributeFilterName: name, kCIAttributeFilterDisplayName: name]
    }

    // MARK: Output

    /// The filter's result, or nil when an input is missing or invalid (`makeOutputImage()`
    /// says why). Subclasses override this.
    open var outputImage: CIImage? {
        return try? makeOutputImage()
    }

    /// The result, or the reason there is none.
    public func makeOutputImage() throws(CIFilterError) -> CIImage {
        guard let b = builtin else {
            guard let img = outputImage else { throw .invalidValue(filter: name, key: kCIOutputImageKey, reason: "the filter produced no image") }
            return img
        }
        if let k = unknownKeys.first {
            throw .unknownKey(filter: name, key: k, validKeys: b.descriptor.inputs.map(\.key))
        }
        return try b.build(FilterArguments(descriptor: b.descriptor, values: values))
    }

    /// A short description naming the filter: `CIFilter(CISepiaTone)`.
    public var description: String { "CIFilter(\(name))" }

    // MARK: Catalogue

    /// Names of built-in filters in `category` (all of them for nil), sorted.
    public class func filterNames(inCategory category: String?) -> [String] {
        BuiltinRegistry.shared.names { category == nil || $0.categories.contains(category!) }
    }
    /// Names of built-in filters in every one of `categories` (all for nil or empty).
    public class func filterNames(inCategories categories: [String]?) -> [String] {
        let wanted = categories ?? []
        return BuiltinRegistry.shared.names { d in wanted.allSatisfy { d.categories.contains($0) } }
    }
    /// The display name of a built-in filter, or of a registered one (its class attributes'
    /// `kCIAttributeFilterDisplayName`, else its name); nil for an unknown name.
    public class func localizedName(forFilterName name: String) -> String? {
        BuiltinRegistry.shared.builtin(name)?.descriptor.displayName ?? BuiltinRegistry.shared.registeredDisplayName(name)
    }
    /// A category's display name: its words without the `CICategory` prefix (`"Color Effect"`).
    public class func localizedName(forCategory category: String) -> String {
        var s = category
        if s.hasPrefix("CICategory") { s.removeFirst("CICategory".count) }
        return s.reduce(into: "") { acc, ch in
            if ch.isUppercase, !acc.isEmpty { acc.append(" ") }
            acc.append(ch)
        }
    }
    /// The declaration behind a built-in filter name.
    public class func descriptor(forFilterName name: String) -> FilterDescriptor? {
        BuiltinRegistry.shared.builtin(name)?.descriptor
    }

    /// Registers a user filter under `name` so `CIFilter(name:)` finds it.
    public class func registerName(_ name: String, constructor: any CIFilterConstructor, classAttributes: [String: Any] = [:]) {
        BuiltinRegistry.shared.register(
            name, constructor: constructor, categories: classAttributes[kCIAttributeFilterCategories] as? [String] ?? [],
            displayName: classAttributes[kCIAttributeFilterDisplayName] as? String)
    }
}

/// What lets `CIFilter(name:)` hand out the filter object itself, as Core Image's does: the
/// typed class of a built-in (so `as? CIFilter & CISepiaTone` holds) or whatever a registered
/// constructor made (so `as? MyFilter` holds). A class initializer cannot return another
/// object; one from a protocol extension can.
/// (Not class-bound: Swift lets `self` be replaced only there.)
public protocol CIFilterByName {}
extension CIFilter: CIFilterByName {}

extension CIFilterByName {
    /// The built-in or registered filter of this name, with its inputs at their defaults;
    /// nil for an unknown name (or one whose filter is not a `Self`).
    public init?(name: String) {
        self.init(name: name, parameters: nil)
    }

    /// As `init?(name:)`, then sets `parameters`.
    public init?(name: String, parameters: [String: Any]?) {
        guard let filter = CIFilter.make(name: name) else { return nil }
        for (k, v) in parameters ?? [:] { filter.setValue(v, forKey: k) }
        guard let typed = filter as? Self else { return nil }
        self = typed
    }

    /// Apple's older spelling.
    @available(*, deprecated, renamed: "init(name:parameters:)")
    public init?(name: String, withInputParameters params: [String: Any]?) {
        self.init(name: name, parameters: params)
    }
}

extension CIFilter {
    static func make(name: String) -> CIFilter? {
        if let typed = BuiltinFilters.typed[name] { return typed() }
        if let b = BuiltinRegistry.shared.builtin(name) { return CIFilter(builtin: b) }
        // The constructor's own object, answering to the name it was asked for.
        let made = BuiltinRegistry.shared.makeRegistered(name)
        made?.name = name
        return made
    }
}

/// Makes filters for names registered with `CIFilter.registerName`. Not `Sendable`, as in
/// Core Image (a plain `class Vendor: NSObject, CIFilterConstructor` conforms): the registry
/// keeps it behind a lock and calls it on the thread that calls `CIFilter(name:)`.
public protocol CIFilterConstructor {
    /// The filter for `name`, or nil when this constructor does not make one of that name.
    func filter(withName name: String) -> CIFilter?
}

/// Typed builtins (`CIFilter.sepiaTone()`) conform to a protocol refining this one.
public protocol CIFilterProtocol: AnyObject {
    /// The filter's result, or nil when an input is missing or invalid.
    var outputImage: CIImage? { get }
}

/// A built-in filter: its declaration and the function that builds its recipe.
struct BuiltinFilter: Sendable {
    let descriptor: FilterDescriptor
    let build: @Sendable (FilterArguments) throws(CIFilterError) -> CIImage

    init(_ descriptor: FilterDescriptor, build: @escaping @Sendable (FilterArguments) throws(CIFilterError) -> CIImage) {
        self.descriptor = descriptor
        self.build = build
    }
}

/// The registry of built-in and user-registered filters.
final class BuiltinRegistry: @unchecked Sendable {
    static let shared = BuiltinRegistry()
    private let lock = NSLock()
    private var builtins: [String: BuiltinFilter] = [:]
    private var constructors: [String: (any CIFilterConstructor, [String])] = [:]
    private var displayNames: [String: String] = [:]

    private init() {
        for b in BuiltinFilters.all { builtins[b.descriptor.name] = b }
    }
    func builtin(_ name: String) -> BuiltinFilter? {
        lock.lock(); defer { lock.unlock() }
        return builtins[name]
    }
    func names(where include: (FilterDescriptor) -> Bool) -> [String] {
        lock.lock(); defer { lock.unlock() }
        var out = builtins.values.map(\.descriptor).filter(include).map(\.name)
        out += constructors.filter { entry in
            include(FilterDescriptor(name: entry.key, displayName: entry.key, summary: "", categories: entry.value.1, inputs: []))
        }.map(\.key)
        return out.sorted()
    }
    func register(_ name: String, constructor: any CIFilterConstructor, categories: [String], displayName: String?) {
        lock.lock(); constructors[name] = (constructor, categories); displayNames[name] = displayName; lock.unlock()
    }
    func registeredDisplayName(_ name: String) -> String? {
        lock.lock(); defer { lock.unlock() }
        return constructors[name] == nil ? nil : displayNames[name] ?? name
    }
    func makeRegistered(_ name: String) -> CIFilter? {
        lock.lock(); let c = constructors[name]; lock.unlock()
        return c?.0.filter(withName: name)
    }
}
