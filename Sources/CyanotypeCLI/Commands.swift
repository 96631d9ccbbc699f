import Foundation

/// The command table: every command's options and the function that runs it.
struct Command: Sendable {
    let spec: CommandSpec
    let run: @Sendable (ParsedArguments) throws(CLIError) -> Void
}

enum CLI {
    static let version = "cyanotype 0.1.0"

    static let commands: [Command] = [
        Command(spec: ApplyCommand.spec, run: ApplyCommand.run),
        Command(spec: BatchCommand.spec, run: BatchCommand.run),
        Command(spec: GenerateCommand.spec, run: GenerateCommand.run),
        Command(spec: FiltersCommand.spec, run: FiltersCommand.run),
        Command(spec: DescribeCommand.spec, run: DescribeCommand.run),
        Command(spec: InfoCommand.spec, run: InfoCommand.run),
        Command(spec: LUTCommand.spec, run: LUTCommand.run),
        Command(spec: PresetCommand.spec, run: PresetCommand.run),
        Command(spec: DemoCommand.spec, run: DemoCommand.run),
        Command(spec: VideoCommand.spec, run: VideoCommand.run),
    ]

    static var helpText: String {
        var s = """
            cyanotype: Core Image filters on the command line (Cyanotype, portable Core Image for Swift).

            Usage: cyanotype COMMAND [ARGUMENTS] [OPTIONS]

            Commands:

            """
        let width = commands.map(\.spec.name.count).max() ?? 0
        for c in commands {
            s += "  " + c.spec.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + c.spec.summary + "\n"
        }
        s += "  " + "help".padding(toLength: width + 2, withPad: " ", startingAt: 0) + "Show help for a command: cyanotype help apply\n"
        s += """

            Run 'cyanotype demo' to see what it does on a sample photo.
            'cyanotype COMMAND --help' describes a command; '--version' prints the version.
            Exit status: 0 success, 1 failure (some inputs failed), 2 usage error.

            """
        return s
    }

    /// Runs the command line `args` (without the program name) and returns the exit status.
    static func main(_ args: [String]) -> Int32 {
        guard let first = args.first else {
            FileHandle.standardError.write(Data(helpText.utf8))
            return 2
        }
        switch first {
        case "--help", "-h":
            print(helpText, terminator: "")
            return 0
        case "help":
            guard args.count > 1 else { print(helpText, terminator: ""); return 0 }
            guard let c = commands.first(where: { $0.spec.name == args[1] }) else {
                return report(.usage("unknown command '\(args[1])'"), command: nil)
            }
            print(c.spec.helpText, terminator: "")
            return 0
        case "--version", "-V", "version":
            print(version)
            return 0
        default:
            break
        }
        guard let command = commands.first(where: { $0.spec.name == first }) else {
            return report(.usage("unknown command '\(first)'; commands are \(commands.map(\.spec.name).joined(separator: ", "))"), command: nil)
        }
        do {
            let parsed = try command.spec.parse(Array(args.dropFirst()))
            if parsed.has("help") {
                print(command.spec.helpText, terminator: "")
                return 0
            }
            try command.run(parsed)
            return 0
        } catch {
            return report(error, command: command.spec.name)
        }
    }

    static func report(_ error: CLIError, command: String?) -> Int32 {
        var text = ""
        if !error.description.isEmpty { text += "cyanotype\(command.map { " " + $0 } ?? ""): error: \(error.description)\n" }
        if case .usage = error {
            text += command.map { "Run 'cyanotype \($0) --help' for usage.\n" } ?? "Run 'cyanotype --help' for usage.\n"
        }
        FileHandle.standardError.write(Data(text.utf8))
        return error.exitCode
    }
}
