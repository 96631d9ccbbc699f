import Cyanotype
import CyanotypeTool
import Foundation
import Instafilter

enum PresetCommand {
    static let spec = CommandSpec(
        "preset", positionals: ["list"],
        summary: "List the named looks --preset accepts (the 26 CSSgram looks and our own), one line each: what the look does.",
        options: [OptionSpec("--json", help: "Print an array of {name, displayName, origin, description}.")])

    static func run(_ args: ParsedArguments) throws(CLIError) {
        guard args.positionals.first == "list" else {
            throw .usage("unknown preset action '\(args.positionals.first ?? "")'\(Suggest.hint(args.positionals.first ?? "", in: ["list"])); use 'cyanotype preset list'")
        }
        let looks = FilterRegistry.names.map { describe($0) }
        if args.has("json") {
            try Console.print(
                try JSONText.encode(
                    looks.map { ["name": $0.name, "displayName": $0.displayName, "origin": $0.origin, "description": $0.description] }))
        } else {
            let width = (looks.map(\.name.count).max() ?? 0) + 2
            try Console.print(looks.map { $0.name.padding(toLength: width, withPad: " ", startingAt: 0) + $0.description }.joined(separator: "\n"))
        }
    }

    /// One line on a look, from its own definition: its name, where it comes from, the CSS
    /// filter functions and overlays it applies, and grain.
    static func describe(_ name: String) -> (name: String, displayName: String, origin: String, description: String) {
        guard let look = try? FilterRegistry.make(name) else { return (name, name, "unknown", "") }
        guard let css = look as? CSSLook else {
            return (name, name.capitalized, "instafilter", "\(name.capitalized) (our own): film grain, seeded noise strongest in the midtones")
        }
        let d = css.definition
        let origin = d.origin == .cssgram ? "CSSgram" : "our own"
        var parts: [String] = []
        if !d.filters.isEmpty { parts.append(d.cssFilter) }
        let overlays = [d.before, d.after].compactMap { $0 }
        if !overlays.isEmpty {
            parts.append(overlays.map { "a \(fillWord($0.fill)) overlay (\($0.blendMode.rawValue))" }.joined(separator: " and "))
        }
        if css is FilmLook { parts.append("film grain") }
        return (name, d.displayName, d.origin.rawValue, "\(d.displayName) (\(origin)): " + parts.joined(separator: ", "))
    }

    static func fillWord(_ fill: CSSFill) -> String {
        switch fill {
        case .color: return "colour"
        case .linearGradient: return "linear gradient"
        case .radialGradient: return "radial gradient"
        }
    }
}
