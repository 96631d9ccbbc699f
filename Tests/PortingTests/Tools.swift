import Foundation
import Testing

/// The independent programs the porting tests check against (ImageMagick, ffmpeg, ffprobe),
/// and a scratch folder per test.
enum Tools {
    /// The executable's path, or nil when it is not installed.
    static func path(_ tool: String) -> String? {
        ["/usr/bin", "/usr/local/bin"].map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
    struct Failure: Error, CustomStringConvertible { let description: String }

    /// Runs `tool`; its standard output. Throws when it is missing or fails.
    @discardableResult
    static func run(_ tool: String, _ args: [String]) throws -> Data {
        guard let exe = path(tool) else { throw Failure(description: "\(tool) missing: scripts/setup.sh --test installs it") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw Failure(description: "\(tool) \(args.joined(separator: " ")) failed: \(String(decoding: errors, as: UTF8.self).suffix(500))")
        }
        return data
    }

    /// A fresh scratch folder (removed by the caller's `defer`).
    static func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-porting-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }
}

/// The sRGB transfer curve (IEC 61966-2-1), written out here as the tests' oracle.
enum SRGB {
    static func toLinear(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
    static func fromLinear(_ v: Double) -> Double { v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055 }
}
