import Cyanotype
import CyanotypeTool
import Foundation
import Instafilter

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
