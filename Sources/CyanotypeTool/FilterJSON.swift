import Cyanotype
import Foundation

/// The catalogue as `cyanotype filters --json` and `describe --json` print it (and the
/// server's `/api/filters` serves it), and values written as the tool writes them.
package enum FilterJSON {
    package static func text(_ v: FilterValue) -> String {
        switch v {
        case .number(let d): return number(d)
        case .bool(let b): return b ? "true" : "false"
        case .vector(let a), .color(let a), .transform(let a): return "[" + a.map(number).joined(separator: " ") + "]"
        case .string(let s): return "\"\(s)\""
        case .data(let n): return "<\(n) bytes>"
        case .colorSpace(let s): return s
        }
    }
    package static func json(_ v: FilterValue) -> Any {
        switch v {
        case .number(let d): return d
        case .bool(let b): return b
        case .vector(let a), .color(let a), .transform(let a): return a
        case .string(let s): return s
        case .data(let n): return ["bytes": n]
        case .colorSpace(let s): return s
        }
    }
    package static func number(_ d: Double) -> String {
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        if abs(d) >= 1e15 { return String(format: "%g", d) }
        return String(d)
    }
    /// What to type for an input of this class.
    package static func syntax(_ i: FilterInputDescriptor) -> String {
        switch i.className {
        case "NSNumber": return i.attributeType == kCIAttributeTypeBoolean ? "true|false" : "number"
        case "CIVector": return i.attributeType == kCIAttributeTypeRectangle ? "[x y w h]" : (i.attributeType == kCIAttributeTypePosition ? "[x y]" : "vector")
        case "CIColor": return "[r g b a] | #rrggbb | name"
        case "CIImage": return "image path"
        case "NSAffineTransform", "CGAffineTransform": return "[a b c d tx ty]"
        case "NSString": return "\"text\""
        case "NSData": return "\"text\""
        default: return i.className
        }
    }

    /// One row of `filters --json`.
    package static func summary(_ d: FilterDescriptor) -> [String: Any] {
        [
            "name": d.name, "shortName": Names.shortFilter(d.name), "displayName": d.displayName,
            "categories": d.categories, "summary": d.summary,
        ]
    }

    /// `describe --json`: the filter and every input's key, class, type, default and ranges.
    package static func description(_ d: FilterDescriptor) -> [String: Any] {
        let inputs: [[String: Any]] = d.inputs.map { i in
            var o: [String: Any] = ["key": i.key, "shortKey": Names.shortKey(i.key), "class": i.className]
            if let t = i.attributeType { o["type"] = t }
            if let n = i.displayName { o["displayName"] = n }
            if let v = i.defaultValue { o["default"] = json(v) }
            if let v = i.identity { o["identity"] = json(v) }
            let limits = InputLimits.range(of: i)
            if let v = limits.min { o["min"] = v }
            if let v = limits.max { o["max"] = v }
            if let v = i.sliderMinimum { o["sliderMin"] = v }
            if let v = i.sliderMaximum { o["sliderMax"] = v }
            return o
        }
        return [
            "name": d.name, "shortName": Names.shortFilter(d.name), "displayName": d.displayName,
            "summary": d.summary, "categories": d.categories, "inputs": inputs, "outputs": d.outputKeys,
        ]
    }
}

/// Pretty, key-sorted JSON for `--json` outputs.
package enum JSONText {
    /// `object` as JSON text with sorted keys; `pretty: false` keeps it on one line (JSON Lines).
    package static func encode(_ object: Any, pretty: Bool = true) throws(CLIError) -> String {
        do {
            let data = try JSONSerialization.data(withJSONObject: object, options: pretty ? [.prettyPrinted, .sortedKeys] : [.sortedKeys])
            return String(decoding: data, as: UTF8.self)
        } catch {
            throw .failure("could not encode JSON: \(error)")
        }
    }
}
