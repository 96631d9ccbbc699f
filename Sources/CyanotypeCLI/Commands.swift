import CyanotypeTool
import Foundation

/// The command table: every command's options and the function that runs it.
struct Command: Sendable {
    let spec: CommandSpec
    let run: @Sendable (ParsedArguments) throws(CLIError) -> Void
    /// Whether the command takes INT and TERM itself (the server finishes its requests);
    /// the others use `Interrupts`, which removes unfinished outputs.
    var handlesSignals = false
}

enum CLI {
    static let version = "cyanotype 0.1.0"

    /// Every command, in help order. A new command adds one line here (and its own file).
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
        Command(spec: ServeCommand.spec, run: ServeCommand.run, handlesSignals: true),
        Command(spec: SignCommand.spec, run: SignCommand.run),
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
            Exit status: 0 success; 1 failure (a missing, unreadable or damaged file, a failed
            write, some batch inputs failed); 2 usage error (the command line); 141 when the
            reader of standard output went away (| head).

            """
        return s
    }

    /// Runs the command line `args` (without the program name) and returns the exit status.
    static func main(_ args: [String]) -> Int32 {
        guard let first = args.first else {
            Console.err(helpText)
            return 2
        }
        do throws(CLIError) {
            switch first {
            case "--help", "-h":
                try Console.print(helpText, terminator: "")
                return 0
            case "help":
                guard args.count > 1 else { try Console.print(helpText, terminator: ""); return 0 }
                try Console.print(try command(named: args[1]).spec.helpText, terminator: "")
                return 0
            case "--version", "-V", "version":
                try Console.print(version)
                return 0
            default:
                break
            }
        } catch {
            return report(error, command: nil)
        }
        let command: Command
        do { command = try self.command(named: first) } catch { return report(error, command: nil) }
        do {
            let parsed = try command.spec.parse(Array(args.dropFirst()))
            if parsed.has("help") {
                try Console.print(command.spec.helpText, terminator: "")
                return 0
            }
            if !command.handlesSignals { Interrupts.install() }
            try command.run(parsed)
            return 0
        } catch {
            return report(error, command: command.spec.name)
        }
    }

    /// The command called `name`, or a usage error with the nearest names.
    static func command(named name: String) throws(CLIError) -> Command {
        if let c = commands.first(where: { $0.spec.name == name }) { return c }
        let names = commands.map(\.spec.name)
        let hint = Suggest.hint(name, in: names + ["help"])
        throw .usage("unknown command '\(name)'" + (hint.isEmpty ? "; commands are \(names.joined(separator: ", "))" : hint))
    }

    static func report(_ error: CLIError, command: String?) -> Int32 {
        if case .brokenPipe = error { return error.exitCode }
        var text = ""
        if !error.description.isEmpty { text += "cyanotype\(command.map { " " + $0 } ?? ""): error: \(error.description)\n" }
        if case .usage = error {
            text += command.map { "Run 'cyanotype \($0) --help' for usage.\n" } ?? "Run 'cyanotype --help' for usage.\n"
        }
        Console.err(text)
        return error.exitCode
    }
}
