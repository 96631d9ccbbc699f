import Cyanotype
import Foundation

/// One `--filter` word as written: a filter name and `key=value` pairs, not yet checked
/// against the filter's declaration.
package struct FilterSpec: Equatable {
    package struct Argument: Equatable {
        package let key: String
        package let value: String
        /// True when the value was written in double quotes: always a string or a path.
        package let quoted: Bool

        /// An argument as parsed or as built by a command (keyframes at one moment).
        package init(key: String, value: String, quoted: Bool) {
            self.key = key
            self.value = value
            self.quoted = quoted
        }
    }
    package let name: String
    package let arguments: [Argument]

    /// A spec as parsed or as built by a command.
    package init(name: String, arguments: [Argument]) {
        self.name = name
        self.arguments = arguments
    }

    /// Splits `"gaussianBlur radius=4 inputMessage=\"a b\" center=[1 2]"` into its parts.
    /// A spec the shell split into words, as ImageMagick users type it
    /// (`generate qrCodeGenerator message=hello`), joined back into one: words are joined with
    /// spaces, and a `key=value` word whose value holds white space (it was quoted for the
    /// shell: `'message=hello world'`) gets the value quoted again, so it stays one value.
    /// One word is returned as it is.
    package static func joining(_ words: [String]) -> String {
        guard words.count > 1 else { return words.first ?? "" }
        return words.enumerated().map { index, word in
            guard index > 0, let eq = word.firstIndex(of: "=") else { return word }
            let value = word[word.index(after: eq)...]
            guard value.contains(where: \.isWhitespace), let first = value.first, first != "\"", first != "[" else { return word }
            let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            return String(word[...eq]) + "\"" + escaped + "\""
        }.joined(separator: " ")
    }

    package static func parse(_ text: String) throws(CLIError) -> FilterSpec {
        let chars = Array(text)
        var i = 0
        func skipSpaces() { while i < chars.count, chars[i].isWhitespace { i += 1 } }
        skipSpaces()
        var name = ""
        while i < chars.count, !chars[i].isWhitespace { name.append(chars[i]); i += 1 }
        guard !name.isEmpty else { throw .usage("empty filter spec: expected a filter name, e.g. 'gaussianBlur radius=4'") }
        if name.contains("=") { throw .usage("filter spec '\(text)' must start with a filter name, not '\(name)'") }
        var args: [Argument] = []
        while true {
            skipSpaces()
            if i >= chars.count { break }
            var key = ""
            while i < chars.count, chars[i] != "=", !chars[i].isWhitespace { key.append(chars[i]); i += 1 }
            guard i < chars.count, chars[i] == "=", !key.isEmpty else {
                throw .usage("in filter spec '\(text)': expected key=value, got '\(key)'")
            }
            i += 1
            var value = ""
            var quoted = false
            if i < chars.count, chars[i] == "\"" {
                quoted = true
                i += 1
                var closed = false
                while i < chars.count {
                    let c = chars[i]
                    if c == "\\", i + 1 < chars.count, chars[i + 1] == "\"" || chars[i + 1] == "\\" {
                        value.append(chars[i + 1]); i += 2; continue
                    }
                    if c == "\"" { closed = true; i += 1; break }
                    value.append(c); i += 1
                }
                guard closed else { throw .usage("in filter spec '\(text)': unterminated quote in the value of '\(key)'") }
            } else if i < chars.count, chars[i] == "[" {
                var closed = false
                while i < chars.count {
                    value.append(chars[i])
                    i += 1
                    if value.last == "]" { closed = true; break }
                }
                guard closed else { throw .usage("in filter spec '\(text)': missing ']' in the value of '\(key)'") }
            } else {
                while i < chars.count, !chars[i].isWhitespace { value.append(chars[i]); i += 1 }
            }
            if i < chars.count, !chars[i].isWhitespace {
                throw .usage("in filter spec '\(text)': unexpected '\(chars[i])' after the value of '\(key)'")
            }
            if value.isEmpty && !quoted { throw .usage("in filter spec '\(text)': '\(key)=' has no value") }
            args.append(Argument(key: key, value: value, quoted: quoted))
        }
        return FilterSpec(name: name, arguments: args)
    }
}

/// Core Image names, as typed on the command line: `CIGaussianBlur` or `gaussianBlur`,
/// `inputRadius` or `radius`, `CICategoryBlur` or `blur`. Matching ignores case, so older
/// short spellings (`qRCodeGenerator`) keep working.
package enum Names {
    /// The built-in filter `name` stands for, or a usage error with the nearest names.
    package static func filter(_ name: String) throws(CLIError) -> FilterDescriptor {
        if let d = CIFilter.descriptor(forFilterName: name) { return d }
        let wanted = name.lowercased()
        let all = CIFilter.filterNames(inCategory: nil)
        if let match = all.first(where: { $0.lowercased() == wanted || $0.lowercased() == "ci" + wanted }),
            let d = CIFilter.descriptor(forFilterName: match)
        {
            return d
        }
        throw .usage(unknownFilterMessage(name))
    }

    /// "unknown filter 'gausianBlur'; did you mean 'gaussianBlur'? (see 'cyanotype filters')"
    package static func unknownFilterMessage(_ name: String) -> String {
        let shorts = CIFilter.filterNames(inCategory: nil).map(shortFilter)
        let typed = name.hasPrefix("CI") ? shortFilter(name) : name
        return "unknown filter '\(name)'" + Suggest.hint(typed, in: shorts) + " (see 'cyanotype filters')"
    }

    /// The input of `filter` that `key` stands for, or a usage error with the nearest keys.
    package static func key(_ key: String, of filter: FilterDescriptor) throws(CLIError) -> FilterInputDescriptor {
        if let i = filter.input(key) { return i }
        let wanted = key.lowercased()
        if let i = filter.inputs.first(where: { $0.key.lowercased() == wanted || $0.key.lowercased() == "input" + wanted }) {
            return i
        }
        throw Messages.filter(.unknownKey(filter: filter.name, key: key, validKeys: filter.inputs.map(\.key)))
    }

    /// The short spelling of an input key: `inputRadius` -> `radius`, `inputEV` -> `ev`.
    package static func shortKey(_ key: String) -> String {
        guard key.hasPrefix("input"), key.count > 5 else { return key }
        return lowerLeadingWord(key.dropFirst(5))
    }
    /// The short spelling of a filter name: `CIGaussianBlur` -> `gaussianBlur`,
    /// `CIQRCodeGenerator` -> `qrCodeGenerator`, `CIPDF417BarcodeGenerator` -> `pdf417BarcodeGenerator`.
    package static func shortFilter(_ name: String) -> String {
        guard name.hasPrefix("CI"), name.count > 2 else { return name }
        return lowerLeadingWord(name.dropFirst(2))
    }

    /// Lower-cases the first word, a leading acronym included (Swift's API naming rule): the
    /// run of capitals, except its last letter when a lower-case letter follows (it starts the
    /// next word): `QRCode` -> `qrCode`, `KMeans` -> `kMeans`, `PDF417` -> `pdf417`, `EV` -> `ev`.
    package static func lowerLeadingWord(_ s: Substring) -> String {
        let chars = Array(s)
        var run = 0
        while run < chars.count, chars[run].isUppercase { run += 1 }
        guard run > 0 else { return String(s) }
        var cut = run
        if run > 1, run < chars.count, chars[run].isLowercase { cut = run - 1 }
        return String(chars[..<cut]).lowercased() + String(chars[cut...])
    }

    package static var allCategories: [String] {
        let names = CIFilter.filterNames(inCategory: nil)
        return Array(Set(names.compactMap { CIFilter.descriptor(forFilterName: $0) }.flatMap(\.categories))).sorted()
    }
    /// `blur`, `Blur` or `CICategoryBlur` -> `CICategoryBlur`, checked against the filters' categories.
    package static func category(_ text: String) throws(CLIError) -> String {
        let known = allCategories
        let wanted = text.lowercased()
        if let c = known.first(where: { $0.lowercased() == wanted || $0.lowercased() == "cicategory" + wanted }) { return c }
        let short = known.map { $0.hasPrefix("CICategory") ? String($0.dropFirst(10)).lowercased() : $0 }
        let hint = Suggest.hint(text.lowercased().replacingOccurrences(of: "cicategory", with: ""), in: short)
        throw .usage("unknown category '\(text)'" + (hint.isEmpty ? "; categories are: " + short.joined(separator: ", ") : hint))
    }
}

/// Turns a written value into what the input's declared class expects.
package enum ValueParser {
    /// Loads an image named in a spec (`inputBackgroundImage=bg.png`).
    package typealias ImageLoader = (String) throws(CLIError) -> CIImage

    package static func value(
        _ arg: FilterSpec.Argument, for input: FilterInputDescriptor, filter: String,
        loadImage: ImageLoader
    ) throws(CLIError) -> Any {
        let text = arg.value
        func bad(_ expected: String) -> CLIError {
            .usage("\(Names.shortFilter(filter)) \(Names.shortKey(input.key)): expected \(expected), got '\(text)'")
        }
        switch input.className {
        case "CIImage":
            return try loadImage(text)
        case "NSString":
            return text
        case "NSData":
            return Data(text.utf8)
        case "CIColor":
            guard let c = color(text) else { throw bad("a colour as [r g b a] (0...1), #rrggbb[aa] or a CSS colour name (tomato)") }
            return c
        case "NSAffineTransform", "CGAffineTransform":
            guard let v = numbers(text), v.count == 6 else { throw bad("a transform [a b c d tx ty]") }
            return CGAffineTransform(a: v[0], b: v[1], c: v[2], d: v[3], tx: v[4], ty: v[5])
        case "CIVector":
            guard let v = numbers(text), !v.isEmpty else { throw bad("a vector such as [x y] or [x y z w]") }
            // The library reads missing components as 0 (as Core Image does); the tool refuses a
            // vector shorter than the input's default rather than pad what was typed.
            if case .vector(let d)? = input.defaultValue, v.count < d.count {
                let example = d.map { $0.rounded() == $0 && abs($0) < 1e9 ? String(Int($0)) : String($0) }.joined(separator: " ")
                throw bad("\(d.count) numbers, e.g. [\(example)], not \(v.count)")
            }
            return CIVector(values: v.map { CGFloat($0) })
        case "NSNumber":
            switch text.lowercased() {
            case "true", "yes": return NSNumber(value: true)
            case "false", "no": return NSNumber(value: false)
            default: break
            }
            guard let d = Double(text.trimmingCharacters(in: .whitespaces)), d.isFinite else {
                throw bad(input.attributeType == kCIAttributeTypeBoolean ? "true or false" : "a number")
            }
            // Warn here; the value goes on as written and the filter clamps it (once).
            if let warning = InputLimits.check(d, for: input, filter: Names.shortFilter(filter)).warning { Console.warn(warning) }
            return NSNumber(value: d)
        default:
            if text.hasPrefix("["), let v = numbers(text) { return CIVector(values: v.map { CGFloat($0) }) }
            if let d = Double(text) { return NSNumber(value: d) }
            return text
        }
    }

    /// `[1 2.5 -3]` (commas allowed) -> numbers; nil unless bracketed and all finite numbers.
    package static func numbers(_ text: String) -> [Double]? {
        let t = text.trimmingCharacters(in: .whitespaces)
        guard t.hasPrefix("["), t.hasSuffix("]"), t.count >= 2 else { return nil }
        let body = t.dropFirst().dropLast()
        let parts = body.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" })
        var out: [Double] = []
        for p in parts {
            guard let d = Double(p), d.isFinite else { return nil }
            out.append(d)
        }
        return out
    }

    /// `#rrggbb`, `#rrggbbaa`, `[r g b]` / `[r g b a]` (0-1), or a CSS colour name
    /// (`tomato`; `transparent` is clear).
    package static func color(_ text: String) -> CIColor? {
        if let named = CSSColors.color(named: text) { return named }
        if text.lowercased() == "transparent" { return CIColor(red: 0, green: 0, blue: 0, alpha: 0) }
        if text.hasPrefix("#") {
            let hex = text.dropFirst()
            guard hex.count == 6 || hex.count == 8, let n = UInt64(hex, radix: 16) else { return nil }
            let c = hex.count == 6 ? (n << 8) | 0xFF : n
            func byte(_ shift: UInt64) -> CGFloat { CGFloat((c >> shift) & 0xFF) / 255 }
            return CIColor(red: byte(24), green: byte(16), blue: byte(8), alpha: byte(0))
        }
        guard let v = numbers(text), v.count == 3 || v.count == 4 else { return nil }
        return CIColor(red: v[0], green: v[1], blue: v[2], alpha: v.count == 4 ? v[3] : 1)
    }
}

/// A spec checked against its filter: the declaration and typed values, ready to build
/// a `CIFilter` for each image (filters are mutable, so one per use).
package struct ResolvedFilter: @unchecked Sendable {
    package let descriptor: FilterDescriptor
    package let values: [String: Any]

    package init(_ spec: FilterSpec, loadImage: ValueParser.ImageLoader) throws(CLIError) {
        descriptor = try Names.filter(spec.name)
        var values: [String: Any] = [:]
        for arg in spec.arguments {
            let input = try Names.key(arg.key, of: descriptor)
            values[input.key] = try ValueParser.value(arg, for: input, filter: descriptor.name, loadImage: loadImage)
        }
        self.values = values
    }

    package init(parsing text: String, loadImage: ValueParser.ImageLoader) throws(CLIError) {
        try self.init(FilterSpec.parse(text), loadImage: loadImage)
    }

    /// A filter whose values are set already (checked elsewhere), e.g. keyframes at one moment.
    package init(descriptor: FilterDescriptor, values: [String: Any]) {
        self.descriptor = descriptor
        self.values = values
    }

    /// Whether the filter reads an input image (false for generators).
    package var takesImage: Bool { descriptor.takesImage }

    /// The filter applied to `image` (nil for generators), or the library's reason why not.
    package func apply(to image: CIImage?) throws(CLIError) -> CIImage {
        guard let filter = CIFilter(name: descriptor.name) else {
            throw .usage(Names.unknownFilterMessage(descriptor.name))
        }
        for (k, v) in values { filter.setValue(v, forKey: k) }
        if let image, takesImage, values[kCIInputImageKey] == nil { filter.setValue(image, forKey: kCIInputImageKey) }
        do {
            return try filter.makeOutputImage()
        } catch {
            throw Messages.filter(error)
        }
    }

    /// The name as the tool shows it (`gaussianBlur`).
    package var shortName: String { Names.shortFilter(descriptor.name) }
}
