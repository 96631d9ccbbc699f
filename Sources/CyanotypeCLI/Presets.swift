import Cyanotype
import Foundation
import Instafilter

/// Named looks from Instafilter, by forgiving name: "Clarendon", "lo-fi", "X-Pro II", "1977".
enum Presets {
    /// Names as people write them -> Instafilter's recipe names.
    private static let aliases = ["xproii": "xpro2", "xpro": "xpro2", "trix": "trix", "trix400": "trix"]

    static func key(_ name: String) -> String {
        let k = name.lowercased().filter { $0.isLetter || $0.isNumber }
        let bare = k.hasPrefix("insta") && k.count > 5 ? String(k.dropFirst(5)) : k
        return aliases[bare] ?? bare
    }

    static func make(_ name: String) throws(CLIError) -> BaseFilter {
        do {
            return try FilterRegistry.make(key(name))
        } catch {
            let hint = Suggest.hint(name, in: FilterRegistry.names)
            throw .usage("unknown preset '\(name)'" + (hint.isEmpty ? "; presets are \(FilterRegistry.names.joined(separator: ", "))" : hint)
                + " (see 'cyanotype preset list')")
        }
    }
}

enum PresetCommand {
    static let spec = CommandSpec(
        "preset", positionals: ["list"],
        summary: "List the named looks --preset accepts (the 26 CSSgram looks and our own).",
        options: [OptionSpec("--json", help: "Print the names as a JSON array.")])

    static func run(_ args: ParsedArguments) throws(CLIError) {
        guard args.positionals.first == "list" else {
            throw .usage("unknown preset action '\(args.positionals.first ?? "")'\(Suggest.hint(args.positionals.first ?? "", in: ["list"])); use 'cyanotype preset list'")
        }
        let names = FilterRegistry.names
        if args.has("json") {
            try Console.print(try JSONText.encode(names))
        } else {
            try Console.print(names.joined(separator: "\n"))
        }
    }
}
