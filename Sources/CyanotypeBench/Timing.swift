import Foundation

/// One timed run: wall-clock seconds, and the CPU seconds (user + system, all threads) spent
/// meanwhile by this process or by its waited-for children. CPU / wall shows how many cores
/// the work used, and CPU time is the figure least disturbed by other load on the machine.
struct Timing {
    var wall: Double
    var cpu: Double
}

/// CPU seconds (user + system, all threads) this process has used so far.
func processCPUSeconds() -> Double {
    var u = rusage()
    getrusage(RUSAGE_SELF.rawValue, &u)
    return u.ru_utime.seconds + u.ru_stime.seconds
}

extension timeval {
    var seconds: Double { Double(tv_sec) + Double(tv_usec) / 1e6 }
}

/// The fastest of `runs` calls of `body` (best-of-N: on a shared machine the minimum is the
/// least noisy estimate of the work itself), with that run's CPU time.
func bestTiming(_ runs: Int, _ body: () throws -> Timing) rethrows -> Timing {
    var best = Timing(wall: .infinity, cpu: 0)
    for _ in 0..<max(1, runs) {
        let t = try body()
        if t.wall < best.wall { best = t }
    }
    return best
}

func bestOf(_ runs: Int, _ body: () throws -> Void) rethrows -> Timing {
    try bestTiming(runs) {
        let c0 = processCPUSeconds()
        let t0 = DispatchTime.now().uptimeNanoseconds
        try body()
        return Timing(wall: Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9, cpu: processCPUSeconds() - c0)
    }
}

/// The fastest of `runs` calls of each body, the bodies taking turns (a, b, c, a, b, c, ...),
/// so that load on the shared machine falls on all of them alike and ratios between them
/// hold up better than from separate best-of-N blocks.
func bestOfInterleaved(_ runs: Int, _ bodies: [() throws -> Void]) throws -> [Timing] {
    var best = [Timing](repeating: Timing(wall: .infinity, cpu: 0), count: bodies.count)
    for _ in 0..<max(1, runs) {
        for (i, body) in bodies.enumerated() {
            let t = try bestOf(1, body)
            if t.wall < best[i].wall { best[i] = t }
        }
    }
    return best
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// Runs external reference tools through `/bin/sh -c`, timing only the process.
enum Shell {
    /// Runs `command` once in `dir`; throws with its stderr when it fails. Uses posix_spawn
    /// and wait4 rather than Foundation's `Process`, whose `waitUntilExit` on Linux polls
    /// every 50 ms (measured: `sh -c true` "took" 2-52 ms); wait4 also gives the exact CPU
    /// time of the command and everything it waited for (both ends of a pipe).
    @discardableResult
    static func run(_ command: String, in dir: URL) throws -> Timing {
        let errPath = dir.appendingPathComponent("stderr.txt").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let args: [UnsafeMutablePointer<CChar>?] = ["/bin/sh", "-c", "cd '\(dir.path)' && \(command)"].map { s in s.withCString { strdup($0) } }
        defer { args.forEach { free($0) } }
        var argv = args + [nil]
        var pid = pid_t()
        var status: Int32 = 0
        var usage = rusage()
        let t0 = DispatchTime.now().uptimeNanoseconds
        let rc = posix_spawn(&pid, "/bin/sh", &actions, nil, &argv, environ)
        guard rc == 0 else { throw BenchError("posix_spawn /bin/sh failed: \(rc)") }
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let t = Timing(wall: Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9, cpu: usage.ru_utime.seconds + usage.ru_stime.seconds)
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            let msg = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
            throw BenchError("`\(command)` failed (wait status \(status)): \(msg.prefix(300))")
        }
        return t
    }

    /// Best of `runs` timed runs of `command`.
    static func time(_ command: String, runs: Int, in dir: URL) throws -> Timing {
        try bestTiming(runs) { try run(command, in: dir) }
    }

    /// Best of `runs` timed runs of each command, the commands taking turns (as
    /// `bestOfInterleaved`), so load on a shared machine falls on all of them alike.
    static func timeInterleaved(_ commands: [String], runs: Int, in dir: URL) throws -> [Timing] {
        var best = [Timing](repeating: Timing(wall: .infinity, cpu: 0), count: commands.count)
        for _ in 0..<max(1, runs) {
            for (i, c) in commands.enumerated() {
                let t = try run(c, in: dir)
                if t.wall < best[i].wall { best[i] = t }
            }
        }
        return best
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
