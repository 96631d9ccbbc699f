import Cyanotype
import Foundation

/// How the tools develop RAW camera files (`--raw-exposure`, `--raw-wb`, `--raw-boost`,
/// `--raw-draft`): parsed into the library's `RAWDevelopOptions`, which travel inside
/// `FileReading`'s read options.
package enum RAWReading {
    /// The options `apply` and `batch` take for RAW inputs.
    package static let options: [OptionSpec] = [
        OptionSpec("--raw-exposure", value: "EV", help: "RAW files: exposure in EV on the linear data (-10 to 10; default 0; +1 doubles)."),
        OptionSpec(
            "--raw-wb", value: "WB",
            help: "RAW files: white balance: camera (as shot, the default), auto (grey world), or KELVIN[,TINT] (e.g. 5200 or 5200,10)."),
        OptionSpec(
            "--raw-boost", value: "X",
            help: "RAW files: tone curve strength 0 to 1 (default 1, as Core Image); 0 is the neutral develop (LibRaw's own output)."),
        OptionSpec("--raw-draft", help: "RAW files: develop at half size (no demosaicking), at least twice as fast."),
    ]

    /// The RAW options given on the command line (Core Image's defaults for the others).
    package static func parse(_ args: ParsedArguments) throws(CLIError) -> RAWDevelopOptions {
        var o = RAWDevelopOptions()
        if let ev = try args.double("raw-exposure", in: -10...10) { o.exposure = Float(ev) }
        if let boost = try args.double("raw-boost", in: 0...1) { o.boostAmount = Float(boost) }
        o.draft = args.has("raw-draft")
        if let wb = args.value("raw-wb") {
            o.whiteBalance = try whiteBalance(wb)
        }
        return o
    }

    /// `camera`, `auto` or `KELVIN[,TINT]`.
    static func whiteBalance(_ text: String) throws(CLIError) -> RAWDevelopOptions.WhiteBalance {
        switch text.lowercased() {
        case "camera", "as-shot", "asshot": return .camera
        case "auto": return .automatic
        default: break
        }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count <= 2, let kelvin = Float(parts[0]), (2000...50000).contains(kelvin) else {
            throw .usage("--raw-wb: expected camera, auto or KELVIN[,TINT] with KELVIN from 2000 to 50000 (e.g. 5200,10), got '\(text)'")
        }
        var tint: Float = 0
        if parts.count == 2 {
            guard let t = Float(parts[1]), (-150...150).contains(t) else {
                throw .usage("--raw-wb: the tint after the comma must be a number from -150 to 150, got '\(parts[1])'")
            }
            tint = t
        }
        return .temperature(kelvin, tint: tint)
    }
}
