import Foundation

/// What went wrong, and so which exit code the process ends with.
package enum CLIError: Error, Equatable, CustomStringConvertible {
    /// The command line is wrong (exit 2).
    case usage(String)
    /// The command line was fine but the work failed (exit 1): a missing, unreadable or
    /// damaged file, a write that failed.
    case failure(String)
    /// Standard output was closed by its reader (`| head`): end quietly (exit 141, as a shell
    /// reports SIGPIPE).
    case brokenPipe

    package var exitCode: Int32 {
        switch self {
        case .usage: return 2
        case .failure: return 1
        case .brokenPipe: return 141
        }
    }
    package var description: String {
        switch self {
        case .usage(let m), .failure(let m): return m
        case .brokenPipe: return ""
        }
    }
}

/// One option of a command: its spelling, the value it takes (nil for a flag) and its help line.
package struct OptionSpec: Sendable {
    package let name: String
    package let short: String?
    /// The placeholder shown in help (`SPEC`, `PX`); nil for a flag.
    package let value: String?
    package let repeatable: Bool
    package let help: String

    package init(_ name: String, short: String? = nil, value: String? = nil, repeatable: Bool = false, help: String) {
        self.name = name; self.short = short; self.value = value; self.repeatable = repeatable; self.help = help
    }

    /// `--name` without its dashes: the key in `ParsedArguments`.
    package var key: String { String(name.drop { $0 == "-" }) }
}

/// A command's table: positionals and options drive both parsing and `--help`.
package struct CommandSpec: Sendable {
    package let name: String
    /// Positional placeholders; a trailing `?` marks one optional (`"NAME?"`), a trailing
    /// `...` any number, zero included, as the last one (`"INPUT..."`).
    package let positionals: [String]
    package let summary: String
    package let options: [OptionSpec]
    /// Extra help text after the option list (examples, notes).
    package let notes: String

    package init(_ name: String, positionals: [String], summary: String, options: [OptionSpec], notes: String = "") {
        self.name = name; self.positionals = positionals; self.summary = summary
        self.options = options + [OptionSpec("--help", short: "-h", help: "Show this help.")]
        self.notes = notes
    }

    package var usageLine: String {
        var parts = ["cyanotype", name]
        parts += positionals.map { $0.hasSuffix("?") ? "[\($0.dropLast())]" : $0.hasSuffix("...") ? "[\($0)]" : $0 }
        for o in options where o.name != "--help" {
            let spelled = (o.short ?? o.name) + (o.value.map { " " + $0 } ?? "")
            parts.append("[\(spelled)]" + (o.repeatable ? "..." : ""))
        }
        return parts.joined(separator: " ")
    }

    package var helpText: String {
        var s = "Usage: \(usageLine)\n\n\(summary)\n\nOptions:\n"
        let rows = options.map { o -> (String, String) in
            let names = [o.short, o.name].compactMap { $0 }.joined(separator: ", ")
            return (names + (o.value.map { " " + $0 } ?? ""), o.help + (o.repeatable ? " (repeatable)" : ""))
        }
        let width = rows.map(\.0.count).max() ?? 0
        for (l, r) in rows { s += "  " + l.padding(toLength: width + 2, withPad: " ", startingAt: 0) + r + "\n" }
        if !notes.isEmpty { s += "\n" + notes + "\n" }
        return s
    }

    package func option(named spelled: String) -> OptionSpec? {
        options.first { $0.name == spelled || $0.short == spelled }
    }

    /// Parses `args` (the words after the command name) against this table.
    package func parse(_ args: [String]) throws(CLIError) -> ParsedArguments {
        var out = ParsedArguments()
        var i = 0
        var onlyPositionals = false
        while i < args.count {
            let a = args[i]
            i += 1
            if onlyPositionals || a == "-" || !a.hasPrefix("-") || Double(a) != nil {
                out.positionals.append(a)
                continue
            }
            if a == "--" { onlyPositionals = true; continue }
            var spelled = a
            var inline: String?
            if a.hasPrefix("--"), let eq = a.firstIndex(of: "=") {
                spelled = String(a[..<eq])
                inline = String(a[a.index(after: eq)...])
            } else if !a.hasPrefix("--"), a.count > 2, let short = option(named: String(a.prefix(2))), short.value != nil {
                // A short option with its value attached, as getopt reads it: -q90, -j4.
                spelled = String(a.prefix(2))
                inline = String(a.dropFirst(2))
            }
            guard let opt = option(named: spelled) else {
                let names = options.map(\.name) + options.compactMap(\.short)
                throw .usage("unknown option '\(spelled)' for '\(name)'" + Suggest.hint(spelled, in: names))
            }
            if opt.value == nil {
                if inline != nil { throw .usage("option '\(opt.name)' takes no value") }
                out.values[opt.key, default: []].append("")
                continue
            }
            let value: String
            if let inline {
                value = inline
            } else {
                guard i < args.count else { throw .usage("option '\(opt.name)' needs a value (\(opt.value ?? "VALUE"))") }
                value = args[i]
                i += 1
            }
            if !opt.repeatable, out.values[opt.key] != nil {
                throw .usage("option '\(opt.name)' given more than once")
            }
            out.values[opt.key, default: []].append(value)
        }
        if out.has("help") { return out }
        let variadic = positionals.last?.hasSuffix("...") == true
        let required = positionals.filter { !$0.hasSuffix("?") && !$0.hasSuffix("...") }.count
        if out.positionals.count < required {
            let missing = positionals[out.positionals.count]
            throw .usage("missing \(missing) for '\(name)'")
        }
        if !variadic, out.positionals.count > positionals.count {
            throw .usage("unexpected argument '\(out.positionals[positionals.count])' for '\(name)'")
        }
        return out
    }
}

/// Positionals and option values, by option key (`filter` for `--filter`).
package struct ParsedArguments: Equatable {
    package var positionals: [String] = []
    package var values: [String: [String]] = [:]

    package func has(_ key: String) -> Bool { values[key] != nil }
    package func value(_ key: String) -> String? { values[key]?.last }
    package func all(_ key: String) -> [String] { values[key] ?? [] }

    /// A number option within `range`, or nil when absent.
    package func double(_ key: String, in range: ClosedRange<Double>) throws(CLIError) -> Double? {
        guard let v = value(key) else { return nil }
        guard let d = Double(v), d.isFinite, range.contains(d) else {
            throw .usage("--\(key) expects a number from \(range.lowerBound) to \(range.upperBound), got '\(v)'")
        }
        return d
    }

    /// One of `choices` (case-insensitive), or nil when absent.
    package func choice(_ key: String, _ choices: [String]) throws(CLIError) -> String? {
        guard let v = value(key) else { return nil }
        if let c = choices.first(where: { $0.lowercased() == v.lowercased() }) { return c }
        throw .usage("--\(key) must be \(choices.joined(separator: ", ")), got '\(v)'" + Suggest.hint(v, in: choices))
    }

    /// An integer option within `range`, or nil when absent.
    package func int(_ key: String, in range: ClosedRange<Int>) throws(CLIError) -> Int? {
        guard let v = value(key) else { return nil }
        guard let n = Int(v), range.contains(n) else {
            throw .usage("--\(key) expects a whole number from \(range.lowerBound) to \(range.upperBound), got '\(v)'")
        }
        return n
    }
}
