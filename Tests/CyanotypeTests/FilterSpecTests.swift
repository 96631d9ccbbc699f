import Foundation
import Testing
@testable import Cyanotype

// Apple's attributes are a test oracle, not a source: every built-in's table (written in Swift
// beside its maths) against spec/coreimage-filters.json, Apple's attributes as Core Image lists
// them on macOS and iOS: name, display name, summary, categories, availability, typed API,
// output keys, and per input its key (in order), display name, class, type, default, identity,
// hard range and slider range.

private let specURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("spec/coreimage-filters.json")

/// Where a table deliberately differs from Apple's attributes: "CIName.field" or
/// "CIName.inputKey.field", and why. Empty: every table holds Apple's values.
private let deliberateDifferences: [String: String] = [:]

/// A JSON value, booleans kept apart from numbers (a boolean input's default is `false`, not 0).
private enum JSONValue: Decodable, Equatable, CustomStringConvertible {
    case bool(Bool), number(Double), string(String), array([JSONValue]), object([String: JSONValue]), null

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let d = try? c.decode(Double.self) {
            self = .number(d)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }

    subscript(_ key: String) -> JSONValue {
        if case .object(let o) = self { return o[key] ?? .null }
        return .null
    }

    var string: String? { if case .string(let s) = self { s } else { nil } }
    var array: [JSONValue] { if case .array(let a) = self { a } else { [] } }

    /// A hard or slider bound: Apple gives a boolean input's as `false`/`true`, Core Image's
    /// attributes hold them as the numbers 0 and 1.
    var bound: Double? {
        switch self {
        case .number(let d): return d
        case .bool(let b): return b ? 1 : 0
        default: return nil
        }
    }

    var description: String {
        switch self {
        case .bool(let b): return "\(b)"
        case .number(let d): return "\(d)"
        case .string(let s): return "\"\(s)\""
        case .array(let a): return "[\(a.map(\.description).joined(separator: ", "))]"
        case .object(let o): return "{\(o.keys.sorted().map { "\($0): \(o[$0]!)" }.joined(separator: ", "))}"
        case .null: return "nil"
        }
    }
}

/// A table's value in the JSON's terms.
private func json(_ value: FilterValue?) -> JSONValue {
    switch value {
    case nil: return .null
    case .number(let d): return .number(d)
    case .bool(let b): return .bool(b)
    case .vector(let v), .color(let v), .transform(let v): return .array(v.map { .number($0) })
    case .string(let s): return .string(s)
    case .data(let n): return .object(["byteLength": .number(Double(n))])
    case .colorSpace(let s): return .object(["colorSpace": .string(s)])
    }
}

private func json(_ string: String?) -> JSONValue { string.map { .string($0) } ?? .null }

/// Every difference between the tables and Apple's attributes, as "CIName.field: ours vs Apple's".
private func differences(_ spec: [JSONValue], _ tables: [String: FilterDescriptor]) -> [String: String] {
    var out: [String: String] = [:]
    func compare(_ place: String, _ ours: JSONValue, _ apple: JSONValue) {
        if ours != apple { out[place] = "ours \(ours), Apple's \(apple)" }
    }
    for entry in spec {
        let name = entry["name"].string ?? "?"
        guard let table = tables[name] else {
            out[name] = "Apple's filter has no table"
            continue
        }
        compare("\(name).displayName", json(table.displayName), entry["displayName"])
        compare("\(name).summary", json(table.summary), entry["summary"])
        compare("\(name).categories", .array(table.categories.map { .string($0) }), entry["categories"])
        compare("\(name).macOS", json(table.availableMacOS), entry["availability"]["macOS"])
        compare("\(name).iOS", json(table.availableIOS), entry["availability"]["iOS"])
        compare("\(name).outputKeys", .array(table.outputKeys.map { .string($0) }), entry["outputKeys"])
        // Apple's Objective-C factory `gaussianBlurFilter` is `gaussianBlur()` in Swift.
        let factory = entry["builtins"]["objcFactory"].string.map { $0.hasSuffix("Filter") ? String($0.dropLast(6)) : $0 }
        compare("\(name).factory", json(table.typedAPI?.factory.lowercased()), json(factory?.lowercased()))
        compare("\(name).protocol", json(table.typedAPI?.protocol), factory == nil ? .null : entry["builtins"]["protocol"])
        let appleInputs = entry["inputs"].array
        compare("\(name).inputs", .array(table.inputs.map { .string($0.key) }), .array(appleInputs.map { $0["key"] }))
        for apple in appleInputs {
            guard let key = apple["key"].string, let input = table.input(key) else { continue }
            let place = "\(name).\(key)"
            compare("\(place).displayName", json(input.displayName), apple["displayName"])
            compare("\(place).class", json(input.className), apple["class"])
            compare("\(place).attributeType", json(input.attributeType), apple["attributeType"])
            compare("\(place).default", json(input.defaultValue), apple["default"])
            compare("\(place).identity", json(input.identity), apple["identity"])
            for (field, ours) in [
                ("min", input.minimum), ("max", input.maximum), ("sliderMin", input.sliderMinimum), ("sliderMax", input.sliderMaximum),
            ] {
                let theirs = apple[field]
                compare("\(place).\(field)", ours.map { .number($0) } ?? .null, theirs.bound.map { .number($0) } ?? theirs)
            }
        }
    }
    for name in tables.keys where !spec.contains(where: { $0["name"].string == name }) {
        out[name] = "a table for a filter Apple does not list"
    }
    return out
}

@Suite struct FilterSpecTests {
    @Test("every built-in's table holds Apple's attributes from spec/coreimage-filters.json")
    func tablesMatchApplesAttributes() throws {
        let spec = try JSONDecoder().decode([JSONValue].self, from: Data(contentsOf: specURL))
        let tables = Dictionary(BuiltinFilters.all.map { ($0.descriptor.name, $0.descriptor) }, uniquingKeysWith: { a, _ in a })
        #expect(spec.count == 247 && tables.count == 247, "Apple lists \(spec.count) filters, we have \(tables.count) tables")
        #expect(spec.reduce(0) { $0 + $1["inputs"].array.count } == 858)
        let found = differences(spec, tables)
        for (place, what) in found.sorted(by: { $0.key < $1.key }) where deliberateDifferences[place] == nil {
            Issue.record("\(place): \(what)")
        }
        for place in deliberateDifferences.keys where found[place] == nil {
            Issue.record("\(place) is listed as a deliberate difference but the table now agrees with Apple: remove it from the list")
        }
    }

    @Test("the comparison notices a table that strays from Apple's attributes")
    func comparisonNoticesADifference() throws {
        let spec = try JSONDecoder().decode([JSONValue].self, from: Data(contentsOf: specURL))
        let blur = try #require(CIFilter.descriptor(forFilterName: "CIGaussianBlur"))
        let strayed = FilterDescriptor(
            "CIGaussianBlur", blur.displayName, blur.summary, categories: [.blur], macOS: blur.availableMacOS, iOS: blur.availableIOS,
            factory: "gaussianBlur", inputs: [.image(), .number(kCIInputRadiusKey, "Radius", .scalar, default: 11, identity: 0, min: 0, slider: 0...100)])
        let found = differences(spec.filter { $0["name"].string == "CIGaussianBlur" }, ["CIGaussianBlur": strayed])
        #expect(Set(found.keys) == ["CIGaussianBlur.categories", "CIGaussianBlur.inputRadius.default"], "\(found)")
    }
}
