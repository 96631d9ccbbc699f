import Foundation

/// One timed run: wall-clock seconds, and the CPU seconds (user + system, all threads) spent
/// meanwhile by this process or by its waited-for children. CPU / wall shows how many cores
/// the work used, and CPU time is the figure least disturbed by other load on the machine.
struct Timing {
    var wall: Double
    var cpu: Double
}

enum CPUClock {
    case ownProcess, children

    var seconds: Double {
        var u = rusage()
        getrusage(self == .ownProcess ? RUSAGE_SELF.rawValue : RUSAGE_CHILDREN.rawValue, &u)
        func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return s(u.ru_utime) + s(u.ru_stime)
    }
}

/// The fastest of `runs` calls of `body` (best-of-N: on a shared machine the minimum is the
/// least noisy estimate of the work itself), with that run's CPU time.
func bestOf(_ runs: Int, cpu clock: CPUClock = .ownProcess, _ body: () throws -> Void) rethrows -> Timing {
    var best = Timing(wall: .infinity, cpu: 0)
    for _ in 0..<max(1, runs) {
        let c0 = clock.seconds
        let t0 = DispatchTime.now().uptimeNanoseconds
        try body()
        let t = Timing(wall: Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9, cpu: clock.seconds - c0)
        if t.wall < best.wall { best = t }
    }
    return best
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// Runs external reference tools through `/bin/sh -c`, timing only the process.
enum Shell {
    /// Runs `command` once; throws with its stderr when it fails. Returns wall seconds.
    @discardableResult
    static func run(_ command: String, in dir: URL) throws -> Double {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", command]
        p.currentDirectoryURL = dir
        let errURL = dir.appendingPathComponent("stderr.txt")
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let err = try FileHandle(forWritingTo: errURL)
        defer { try? err.close() }
        p.standardOutput = FileHandle.nullDevice
        p.standardError = err
        let t0 = DispatchTime.now().uptimeNanoseconds
        try p.run()
        p.waitUntilExit()
        let t = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
        guard p.terminationStatus == 0 else {
            let msg = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
            throw BenchError("`\(command)` exited \(p.terminationStatus): \(msg.prefix(300))")
        }
        return t
    }

    /// Best of `runs` timed runs of `command`.
    static func time(_ command: String, runs: Int, in dir: URL) throws -> Timing {
        try bestOf(runs, cpu: .children) { try run(command, in: dir) }
    }

    /// stdout of a quick command, or nil (used for tool versions).
    static func output(_ command: String) -> String? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", command]
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// stdout of `executable args`, throwing when it fails (the memory child).
    static func outputOrThrow(_ executable: String, _ args: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = args
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw BenchError("\(executable) \(args.joined(separator: " ")) exited \(p.terminationStatus)") }
        return String(decoding: data, as: UTF8.self)
    }

    static func available(_ tool: String) -> Bool { output("command -v \(tool)") != nil }
}
