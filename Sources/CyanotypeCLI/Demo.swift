import Cyanotype
import Foundation

enum DemoCommand {
    static let spec = CommandSpec("demo", positionals: [], summary: "Filter a sample photo and write a contact sheet.", options: [])
    static func run(_ args: ParsedArguments) throws(CLIError) {}
}
