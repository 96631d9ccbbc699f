import Foundation

/// `--fail-on`, as vips spells it: which damage to an input stops the work. `error` (the
/// default) stops on a truncated or damaged file; `truncated` stops on a truncated one and
/// salvages a damaged one; `none` salvages both. A salvaged file is read again leniently (what
/// it holds, the missing part grey) with a warning naming it.
package enum FailOn: String, CaseIterable, Sendable {
    case none, truncated, error

    /// The option's table entry (apply and batch).
    package static let option = OptionSpec(
        "--fail-on", value: "LEVEL",
        help:
            "What stops a read: error (default: a truncated or damaged file fails), truncated (only a truncated file fails; a damaged one is salvaged) or none (both salvaged, the missing part grey, with a warning), as vips's --fail-on."
    )

    /// The level `--fail-on` names (error when absent).
    package static func parse(_ args: ParsedArguments) throws(CLIError) -> FailOn {
        try args.choice("fail-on", allCases.map(\.rawValue)).flatMap(FailOn.init(rawValue:)) ?? .error
    }

    /// What the reader's failure `e` was ("truncated" or "damaged") when this level salvages
    /// it; nil when it stops the work (or is not damage at all: a missing file, a limit).
    package func salvages(_ e: CLIError) -> String? {
        guard case .failure(let text) = e, self != .error else { return nil }
        if text.contains("the file is truncated") { return self == .none ? "truncated" : nil }
        if text.contains("the file is damaged") { return "damaged" }
        return nil
    }

    /// Runs `body` strictly; when it fails on damage this level salvages, warns (naming
    /// `input`) and runs it again with lenient decoding.
    package func reading<T>(_ input: String, _ body: (_ lenient: Bool) throws(CLIError) -> T) throws(CLIError) -> T {
        do {
            return try body(false)
        } catch {
            guard let what = salvages(error) else { throw error }
            Console.warn("\(input == "-" ? "<stdin>" : input): the file is \(what); keeping what could be read (--fail-on \(rawValue))")
            return try body(true)
        }
    }
}
