import Cyanotype
import Foundation

/// Why a recipe (or a parameter change) was refused.
public enum RecipeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A look name that is not registered; `known` lists those that are.
    case unknownLook(String, known: [String])
    /// A parameter the look does not have; `valid` lists those it has.
    case unknownParameter(filter: String, key: String, valid: [String])
    /// A Core Image step naming a filter that does not exist.
    case unknownCoreImageFilter(String)
    /// A Core Image step setting an input the filter does not have (or its image).
    case unknownCoreImageKey(filter: String, key: String, valid: [String])
    /// A parameter value out of range or of the wrong kind; `reason` says why.
    case invalidValue(filter: String, key: String, reason: String)
    /// A CSS filter list that does not parse.
    case invalidCSS(String, reason: String)
    /// JSON that is not a recipe (or a recipe version this library does not read).
    case malformed(String)
    /// An input a recipe cannot hold (only numbers, vectors and colours can).
    case unencodable(filter: String, key: String)

    /// What was refused and what is accepted, in words a user can act on.
    public var description: String {
        switch self {
        case let .unknownLook(n, known):
            return "unknown look '\(n)'; known looks: \(known.joined(separator: ", "))"
        case let .unknownParameter(f, k, valid):
            return "look '\(f)' has no parameter '\(k)'; valid: \(valid.joined(separator: ", "))"
        case let .unknownCoreImageFilter(n):
            return "no Core Image filter named '\(n)' (see CIFilter.filterNames(inCategory: nil))"
        case let .unknownCoreImageKey(f, k, valid):
            return "filter \(f) has no input '\(k)'; valid: \(valid.joined(separator: ", "))"
        case let .invalidValue(f, k, why):
            return "invalid value for '\(k)' of '\(f)': \(why)"
        case let .invalidCSS(css, why):
            return "invalid CSS filter list '\(css)': \(why)"
        case let .malformed(why):
            return "malformed recipe: \(why)"
        case let .unencodable(f, k):
            return "input '\(k)' of \(f) cannot be written to a recipe (only numbers, vectors and colours can)"
        }
    }
}

/// Makes looks by recipe name.
public enum FilterRegistry {
    private static let factories: [String: @Sendable () -> BaseFilter] = {
        var f: [String: @Sendable () -> BaseFilter] = [:]
        let classes: [(String, @Sendable () -> BaseFilter)] = [
            ("1977", { Insta1977() }), ("aden", { InstaAden() }), ("brannan", { InstaBrannan() }),
            ("brooklyn", { InstaBrooklyn() }), ("clarendon", { InstaClarendon() }), ("earlybird", { InstaEarlybird() }),
            ("gingham", { InstaGingham() }), ("hudson", { InstaHudson() }), ("inkwell", { InstaInkwell() }),
            ("kelvin", { InstaKelvin() }), ("lark", { InstaLark() }), ("lofi", { InstaLoFi() }),
            ("maven", { InstaMaven() }), ("mayfair", { InstaMayfair() }), ("moon", { InstaMoon() }),
            ("nashville", { InstaNashville() }), ("perpetua", { InstaPerpetua() }), ("reyes", { InstaReyes() }),
            ("rise", { InstaRise() }), ("slumber", { InstaSlumber() }), ("stinson", { InstaStinson() }),
            ("toaster", { InstaToaster() }), ("valencia", { InstaValencia() }), ("walden", { InstaWalden() }),
            ("willow", { InstaWillow() }), ("xpro2", { InstaXPro2() }),
            ("juno", { InstaJuno() }), ("ludwig", { InstaLudwig() }), ("crema", { InstaCrema() }),
            ("sierra", { InstaSierra() }), ("portra", { InstaPortra() }), ("trix", { InstaTriX() }),
            ("grain", { InstaGrain() }),
        ]
        for (n, make) in classes { f[n] = make }
        return f
    }()

    /// Every look name a recipe may use, sorted.
    public static var names: [String] { factories.keys.sorted() }

    /// A new look by recipe name.
    public static func make(_ name: String) throws(RecipeError) -> BaseFilter {
        guard let make = factories[name] else { throw .unknownLook(name, known: names) }
        return make()
    }
}

/// Any built-in (or registered) Core Image filter as a chain step, by name and input keys.
/// Only numbers, vectors and colours can be parameters (images cannot be in a recipe).
public final class CoreImageStep: BaseFilter, @unchecked Sendable {
    /// The Core Image filter's name (`CISepiaTone`).
    public let filterName: String
    private let values: [String: RecipeValue]

    /// Checks the name and keys now, so a bad step fails where it is made.
    public init(filterName: String, parameters: [String: RecipeValue] = [:]) throws(RecipeError) {
        guard let probe = CIFilter(name: filterName) else { throw .unknownCoreImageFilter(filterName) }
        let valid = CIFilter.descriptor(forFilterName: filterName)?.inputs.map(\.key) ?? probe.inputKeys
        for k in parameters.keys.sorted() where !valid.contains(k) || k == kCIInputImageKey {
            throw .unknownCoreImageKey(filter: filterName, key: k, valid: valid.filter { $0 != kCIInputImageKey })
        }
        self.filterName = filterName
        self.values = parameters
        super.init(name: filterName)
    }

    /// The step's inputs as set.
    public var inputValues: [String: RecipeValue] { values }

    /// The Core Image filter's output over `image`, with the step's inputs set.
    override public func fullLook(for image: CIImage) -> CIImage {
        guard let f = CIFilter(name: filterName) else { return image }
        for (k, v) in values { f.setValue(v.objectValue, forKey: k) }
        f.setValue(image, forKey: kCIInputImageKey)
        return f.outputImage ?? image
    }
    /// An independent copy with the same inputs and intensity.
    override public func copy() -> BaseFilter {
        // The name and keys were checked at creation, so this cannot fail.
        let c = (try? CoreImageStep(filterName: filterName, parameters: values)) ?? BaseFilter(name: filterName)
        c.intensity = intensity
        return c
    }
}

/// A parameter value in a recipe: a number, a vector (`[x, y, ...]`) or a colour
/// (`{"red": r, "green": g, "blue": b, "alpha": a}`, sRGB 0...1).
public enum RecipeValue: Sendable, Equatable, Codable {
    /// A number.
    case number(Double)
    /// A vector, `[x, y, ...]`.
    case vector([Double])
    /// A colour: sRGB components and alpha, 0...1.
    case color(red: Double, green: Double, blue: Double, alpha: Double)

    var objectValue: Any {
        switch self {
        case .number(let d): return d
        case .vector(let v): return CIVector(values: v.map { CGFloat($0) })
        case let .color(r, g, b, a): return CIColor(red: r, green: g, blue: b, alpha: a)
        }
    }

    /// The recipe form of a Core Image input value, or nil for one a recipe cannot hold.
    public init?(_ value: Any) {
        if let d = numberValue(value) {
            self = .number(d)
        } else if let v = value as? CIVector {
            self = .vector((0..<v.count).map { Double(v.value(at: $0)) })
        } else if let c = value as? CIColor {
            self = .color(red: c.red, green: c.green, blue: c.blue, alpha: c.alpha)
        } else {
            return nil
        }
    }

    private struct ColorBox: Codable { var red, green, blue: Double; var alpha: Double? }

    /// Reads a number, an array of numbers or a `{red, green, blue, alpha}` object (alpha
    /// optional); throws `RecipeError.malformed` otherwise.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let d = try? c.decode(Double.self) { self = .number(d); return }
        if let v = try? c.decode([Double].self) { self = .vector(v); return }
        if let b = try? c.decode(ColorBox.self) { self = .color(red: b.red, green: b.green, blue: b.blue, alpha: b.alpha ?? 1); return }
        throw RecipeError.malformed("a parameter value must be a number, an array of numbers or {red, green, blue, alpha}")
    }
    /// Writes the value in the form `init(from:)` reads.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .number(let d): try c.encode(d)
        case .vector(let v): try c.encode(v)
        case let .color(r, g, b, a): try c.encode(ColorBox(red: r, green: g, blue: b, alpha: a))
        }
    }
}

/// One step of a recipe as JSON: exactly one of `look`, `css` or `filter`.
///
///     {"look": "clarendon", "intensity": 0.7}
///     {"look": "grain", "parameters": {"grainAmount": 0.3, "grainScale": 2, "seed": 7}}
///     {"css": "contrast(1.1) saturate(1.3)"}
///     {"filter": "CISepiaTone", "parameters": {"inputIntensity": 0.5}}
struct RecipeStep: Codable {
    var look: String?
    var css: String?
    var filter: String?
    var intensity: Double?
    var parameters: [String: RecipeValue]?

    init(_ f: BaseFilter) throws(RecipeError) {
        intensity = f.intensity
        if let s = f as? CoreImageStep {
            filter = s.filterName
            parameters = s.inputValues.isEmpty ? nil : s.inputValues
        } else if let c = f as? CSSFilterList {
            css = c.css
        } else if f is CSSOverlayFilter {
            throw .unencodable(filter: f.name, key: "overlay")
        } else {
            look = f.name
            let p = f.parameters
            parameters = p.isEmpty ? nil : p.mapValues { .number($0) }
        }
    }

    func makeFilter() throws(RecipeError) -> BaseFilter {
        let kinds = [look, css, filter].compactMap { $0 }
        guard kinds.count == 1 else { throw .malformed("each step needs exactly one of \"look\", \"css\" or \"filter\"") }
        let f: BaseFilter
        if let look {
            f = try FilterRegistry.make(look)
            for (k, v) in (parameters ?? [:]).sorted(by: { $0.key < $1.key }) {
                guard f.parameters[k] != nil else {
                    throw .unknownParameter(filter: look, key: k, valid: ["intensity"] + f.parameters.keys.sorted())
                }
                guard case .number(let d) = v else { throw .invalidValue(filter: look, key: k, reason: "expected a number") }
                try f.setParameter(k, to: d)
            }
        } else if let css {
            if parameters != nil { throw .malformed("a css step takes no parameters") }
            f = try CSSFilterList(css: css)
        } else {
            f = try CoreImageStep(filterName: filter!, parameters: parameters ?? [:])
        }
        if let t = intensity {
            guard t.isFinite, t >= 0, t <= 1 else { throw .invalidValue(filter: f.name, key: "intensity", reason: "must be 0...1") }
            f.intensity = t
        }
        return f
    }
}
