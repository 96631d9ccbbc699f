import Foundation

/// What the numbers were measured on: cores, CPU, load, and how the engine was compiled.
struct Machine {
    let cores: Int
    let cpuModel: String
    let loadAverage: String
    let buildFlags: String
    let tools: String

    static func describe() -> Machine {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model =
            cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "?" } ?? "unknown"
        let load = ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?")
            .split(separator: " ").prefix(3).joined(separator: " ")
        let versions = [
            ("vips", "vips --version"), ("ffmpeg", "ffmpeg -version | head -1 | cut -d' ' -f3"),
            ("libjpeg-turbo", "dpkg-query -W -f='${Version}' libjpeg-turbo-progs"),
        ]
        .map { name, cmd in "\(name) \(Shell.output(cmd).map { $0.replacingOccurrences(of: "vips-", with: "") } ?? "missing")" }
        return Machine(
            cores: ProcessInfo.processInfo.activeProcessorCount, cpuModel: model, loadAverage: load,
            buildFlags: compiledFlags(), tools: versions.joined(separator: ", "))
    }

    /// Swift has no `#if` for target features, so read the compile command SwiftPM recorded
    /// for the Cyanotype module in `.build/<config>.yaml` (two folders above this binary).
    static func compiledFlags() -> String {
        #if DEBUG
        let config = "debug"
        #else
        let config = "release"
        #endif
        let exe = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let yaml = exe.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("\(config).yaml")
        guard let text = try? String(contentsOf: yaml, encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.contains("\"-module-name\",\"Cyanotype\",") })
        else { return "\(config) (compile flags unknown)" }
        let wanted = ["-Onone", "-O", "-Osize", "-Ounchecked", "-whole-module-optimization", "-march=", "-enforce-exclusivity=unchecked", "-cross-module-optimization"]
        let args = line.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"[] ")) }
        let flags = args.filter { a in wanted.contains { w in w.hasSuffix("=") ? a.hasPrefix(w) : a == w } }
        var seen = Set<String>()
        return "\(config): " + flags.filter { seen.insert($0).inserted }.joined(separator: " ")
    }

    var lines: [String] {
        [
            "machine: \(cores) cores, \(cpuModel), load average \(loadAverage)",
            "build:   \(buildFlags)",
            "tools:   \(tools)",
        ]
    }
}

/// Peak and current resident set of this process, from /proc/self/status (bytes).
enum Memory {
    static func status(_ key: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix(key + ":") })
        else { return 0 }
        let kb = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
        return kb * 1024
    }
    static var peakRSS: Int { status("VmHWM") }
    static var currentRSS: Int { status("VmRSS") }
}
