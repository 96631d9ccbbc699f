import Foundation
import Testing
@testable import Cyanotype

// Independent scalar references for the tests: written from the published formulas, not
// from the code under test.

func srgbToLinear(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
func linearToSrgb(_ v: Double) -> Double { v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055 }

/// What an independent program said: its exit status and standard output.
struct ToolRun {
    let status: Int32
    let data: Data
    /// The output as UTF-8 text.
    var out: String { String(decoding: data, as: UTF8.self) }
}

/// Runs `executable` with no input and its standard error discarded; nil when it cannot start.
func runTool(_ executable: String, _ arguments: [String]) -> ToolRun? {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = arguments
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = FileHandle.nullDevice
    p.standardInput = FileHandle.nullDevice
    do { try p.run() } catch { return nil }
    let out = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return ToolRun(status: p.terminationStatus, data: out)
}

/// A tool that did not start or ended with a status other than 0: the command and what it
/// wrote on its standard error.
struct ToolFailure: Error, CustomStringConvertible {
    let command: String
    let status: Int32?
    let stderr: String
    var description: String {
        "\(command) " + (status.map { "exited with status \($0)" } ?? "did not start") + (stderr.isEmpty ? "" : ": \(stderr)")
    }
}

/// `runTool`'s throwing twin: runs `executable` with no input (in `directory` when given) and
/// returns its standard output, or throws a `ToolFailure` carrying its standard error when it
/// cannot start or exits with a status other than 0. Standard error goes to a scratch file, so
/// a chatty tool cannot block on a full pipe.
@discardableResult
func runToolOrThrow(_ executable: String, _ arguments: [String], in directory: URL? = nil) throws -> Data {
    let command = ([executable] + arguments).joined(separator: " ")
    let errorsURL = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-tool-stderr-\(UUID().uuidString)")
    guard FileManager.default.createFile(atPath: errorsURL.path, contents: nil), let errors = try? FileHandle(forWritingTo: errorsURL) else {
        throw ToolFailure(command: command, status: nil, stderr: "no scratch file for its standard error")
    }
    defer { try? FileManager.default.removeItem(at: errorsURL) }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = arguments
    if let directory { p.currentDirectoryURL = directory }
    let out = Pipe()
    p.standardOutput = out
    p.standardError = errors
    p.standardInput = FileHandle.nullDevice
    do { try p.run() } catch {
        try? errors.close()
        throw ToolFailure(command: command, status: nil, stderr: "\(error)")
    }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    try? errors.close()
    guard p.terminationStatus == 0 else {
        let message = (try? String(contentsOf: errorsURL, encoding: .utf8)) ?? ""
        throw ToolFailure(command: command, status: p.terminationStatus, stderr: message.trimmingCharacters(in: .whitespacesAndNewlines))
    }
    return data
}

/// The first `tool` on the PATH (/usr/bin:/bin when it is unset), or nil.
func which(_ tool: String) -> String? {
    for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
        let path = "\(dir)/\(tool)"
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
}

/// A deterministic test photo: smooth gradients plus a little structure, opaque, sRGB 8-bit.
func testPixels(width: Int, height: Int, alpha: Bool = false) -> [UInt8] {
    var p = [UInt8](repeating: 0, count: width * height * 4)
    for y in 0..<height {
        for x in 0..<width {
            let i = (y * width + x) * 4
            p[i] = UInt8((x * 255) / max(1, width - 1))
            p[i + 1] = UInt8((y * 255) / max(1, height - 1))
            p[i + 2] = UInt8(((x * 7 + y * 13) % 64) * 4)
            p[i + 3] = alpha ? UInt8(64 + (x * 3 + y) % 192) : 255
        }
    }
    return p
}

/// An image from straight-alpha sRGB RGBA8 pixels (top row first).
func image(_ pixels: [UInt8], _ width: Int, _ height: Int) -> CIImage {
    CIImage(
        unpremultipliedBitmapData: Data(pixels), bytesPerRow: width * 4, size: CGSize(width: width, height: height), format: .RGBA8,
        colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
}

/// The linear, straight-alpha value of the test pixel at (x, yTop) (row 0 at the top).
func linearPixel(_ pixels: [UInt8], _ width: Int, _ x: Int, _ yTop: Int) -> [Double] {
    let i = (yTop * width + x) * 4
    return [srgbToLinear(Double(pixels[i]) / 255), srgbToLinear(Double(pixels[i + 1]) / 255), srgbToLinear(Double(pixels[i + 2]) / 255), Double(pixels[i + 3]) / 255]
}

let floatContext = CIContext(options: [.outputColorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!, .outputPremultiplied: false, .cacheIntermediates: false])

/// Renders `rect` as straight linear float RGBA, rows top-down.
func renderFloat(_ img: CIImage, _ rect: CGRect, context: CIContext = floatContext) throws -> [SIMD4<Float>] {
    let r = try context.renderToData(img, from: rect, format: .RGBAf)
    return r.data.withUnsafeBytes { Array($0.bindMemory(to: SIMD4<Float>.self)) }
}

/// Renders `rect` as straight sRGB RGBA8, rows top-down.
func render8(_ img: CIImage, _ rect: CGRect, context: CIContext = CIContext(options: [.outputPremultiplied: false])) throws -> [UInt8] {
    Array(try context.renderToData(img, from: rect, format: .RGBA8).data)
}

func close(_ a: SIMD4<Float>, _ b: [Double], tol: Double = 1e-4, _ what: @autoclosure () -> String = "") -> Bool {
    for k in 0..<4 where abs(Double(a[k]) - b[k]) > tol {
        Issue.record("channel \(k): got \(a[k]) expected \(b[k]) \(what())")
        return false
    }
    return true
}

/// Renders `rows.count` pixels of `out` (a `linearRow` of samples) and compares each with
/// `formula` applied to the sample (rounded to Float first, as the pixels are).
func checkSamples(_ out: CIImage, _ rows: [[Double]], tol: Double = 2e-4, _ formula: ([Double]) -> [Double]) throws {
    let got = try renderFloat(out, CGRect(x: 0, y: 0, width: rows.count, height: 1))
    for (k, p) in rows.enumerated() {
        var e = formula(p.map { Double(Float($0)) })
        if e[3] <= 0 { e = [0, 0, 0, 0] }
        #expect(close(got[k], e, tol: tol, "sample \(p)"))
    }
}

/// `n` seeded floats in 0..<1 (a linear congruential generator's top 24 bits), every
/// `largeEvery`-th one scaled by `largeScale` (premultiplied HDR pixels can exceed 1).
func seededFloats(_ n: Int, seed: UInt64, largeEvery: Int, largeScale: Float) -> [Float] {
    var s = seed
    return (0..<n).map { i in
        s = s &* 6364136223846793005 &+ 1442695040888963407
        let v = Float(s >> 40) / Float(1 << 24)
        return i % largeEvery == 0 ? v * largeScale : v
    }
}

/// A context rendering premultiplied extended linear sRGB, without cached intermediates,
/// whole or in square tiles of `side`.
func linearContext(tile side: Int? = nil) -> CIContext {
    var options: [CIContextOption: Any] = [
        .outputColorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!,
        .outputPremultiplied: true, .cacheIntermediates: false,
    ]
    if let side { options[.tileSize] = side }
    return CIContext(options: options)
}
