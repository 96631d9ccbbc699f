import CyanotypeTestSupport
import Cyanotype
import CyanotypeCodecs
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The built `cyanotype` executable (next to the test bundle, else in .build/debug).
enum Binary {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let cyanotype: URL = {
        for dir in [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(), repo.appendingPathComponent(".build/debug")] {
            let exe = dir.appendingPathComponent("cyanotype")
            if FileManager.default.isExecutableFile(atPath: exe.path) { return exe }
        }
        return repo.appendingPathComponent(".build/debug/cyanotype")
    }()

    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// Runs the tool in `dir` and waits for it.
    static func run(_ args: [String], in dir: URL) throws -> Result {
        let p = Process()
        p.executableURL = cyanotype
        p.arguments = args
        p.currentDirectoryURL = dir
        let id = UUID().uuidString
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("cy-out-\(id)")
        let err = FileManager.default.temporaryDirectory.appendingPathComponent("cy-err-\(id)")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: out); try? FileManager.default.removeItem(at: err) }
        p.standardOutput = try FileHandle(forWritingTo: out)
        p.standardError = try FileHandle(forWritingTo: err)
        p.standardInput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        return Result(
            status: p.terminationStatus, stdout: String(decoding: try Data(contentsOf: out), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self))
    }
}

/// A temporary folder served by the tests, with pictures written by the codecs from formulas.
final class Folder: @unchecked Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// A colourful test card, `w` x `h`: smooth ramps, a hard-edged disc and fine stripes, so
    /// resampling and filters both show. Opaque RGB.
    @discardableResult
    func card(_ name: String, _ w: Int, _ h: Int, quality: Double = 0.92, stripes withStripes: Bool = true) throws -> URL {
        var px = [UInt8](repeating: 255, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                let u = Double(x) / Double(max(1, w - 1)), v = Double(y) / Double(max(1, h - 1))
                let dx = u - 0.6, dy = v - 0.4
                let disc = dx * dx + dy * dy < 0.04
                let stripes = withStripes && (x / 3) % 2 == 0 && v > 0.8
                let r = disc ? 0.95 : u
                let g = stripes ? 0.1 : v
                let b = disc ? 0.2 : 0.5 + 0.5 * sin(u * 9 + v * 4)
                let i = 4 * (y * w + x)
                px[i] = UInt8((r * 255).rounded()); px[i + 1] = UInt8((g * 255).rounded()); px[i + 2] = UInt8((min(max(b, 0), 1) * 255).rounded())
            }
        }
        let out = url.appendingPathComponent(name)
        let format = CyanotypeCodecs.ImageCodecs.format(forPathExtension: out.pathExtension) ?? .png
        var options = EncodeOptions()
        options.quality = quality
        let data = try px.withUnsafeBufferPointer { try ImageCodecs.encode(rgba8: $0, width: w, height: h, hasAlpha: false, format: format, options: options) }
        try FileManager.default.createDirectory(at: out.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: out)
        return out
    }
}

/// Decoded pixels as RGBA8 (alpha 255 where the file has none).
struct Pixels: Equatable {
    let width: Int, height: Int
    let rgba: [UInt8]

    init(width: Int, height: Int, rgba: [UInt8]) { self.width = width; self.height = height; self.rgba = rgba }
    init(_ data: Data) throws {
        let b = try ImageCodecs.decode(data)
        width = b.width; height = b.height
        rgba = b.bitDepth == 16 ? b.pixels16.map { UInt8((UInt32($0) + 128) / 257) } : b.pixels
    }
    init(contentsOf url: URL) throws { try self.init(Data(contentsOf: url)) }

    /// The largest difference of one colour sample (alpha ignored); nil when the sizes differ.
    func maxDifference(_ o: Pixels) -> Int? {
        guard width == o.width, height == o.height, rgba.count == o.rgba.count else { return nil }
        var m = 0
        for i in 0..<rgba.count where i % 4 != 3 { m = max(m, abs(Int(rgba[i]) - Int(o.rgba[i]))) }
        return m
    }

    func meanDifference(_ o: Pixels) -> Double? {
        guard width == o.width, height == o.height else { return nil }
        var s = 0
        for i in 0..<rgba.count where i % 4 != 3 { s += abs(Int(rgba[i]) - Int(o.rgba[i])) }
        return Double(s) / Double(width * height * 3)
    }
}

/// A reply read off the wire.
struct Reply {
    let status: Int
    let headers: [String: String]
    let body: Data

    var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }
    var errorCode: String? { json?["error"] as? String }
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A minimal HTTP/1.1 client on a blocking socket: the request goes out exactly as written
/// (so `..` and odd escapes reach the server unchanged), `Connection: close`, and the reply
/// is read to the end.
enum HTTP {
    struct Failure: Error, CustomStringConvertible { let description: String }

    static func request(
        _ port: UInt16, _ method: String = "GET", _ target: String, headers: [String: String] = [:],
        body: Data? = nil, timeout: Int = 300
    ) throws -> Reply {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        defer { close(fd) }
        var tv = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard connected == 0 else { throw Failure(description: "connect to port \(port): errno \(errno)") }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        var out = Data(head.utf8)
        if let body { out.append(body) }
        try out.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let n = send(fd, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                if n <= 0 {
                    // The server may answer early (413) and close while we still send.
                    if errno == EPIPE || errno == ECONNRESET { break }
                    throw Failure(description: "send: errno \(errno)")
                }
                sent += n
            }
        }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n < 0 {
                if errno == EINTR { continue }
                if errno == ECONNRESET && !received.isEmpty { break }
                throw Failure(description: "recv: errno \(errno) after \(received.count) bytes")
            }
            if n == 0 { break }
            received.append(buffer, count: n)
        }
        guard let split = received.range(of: Data("\r\n\r\n".utf8)) else { throw Failure(description: "no HTTP head in \(received.count) bytes") }
        let lines = String(decoding: received[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw Failure(description: "bad status line '\(lines[0])'") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Data(received[split.upperBound...])
        if let length = headers["content-length"].flatMap(Int.init), body.count > length { body = body.prefix(length) }
        return Reply(status: status, headers: headers, body: body)
    }

    static func get(_ port: UInt16, _ target: String, headers: [String: String] = [:]) throws -> Reply {
        try request(port, "GET", target, headers: headers)
    }

    static func post(_ port: UInt16, _ target: String, json: Any) throws -> Reply {
        try request(
            port, "POST", target, headers: ["Content-Type": "application/json"],
            body: try JSONSerialization.data(withJSONObject: json))
    }
}

/// `cyanotype serve` on a free loopback port, its log in a file; stopped with SIGTERM.
final class Server: @unchecked Sendable {
    let process = Process()
    let logURL: URL
    private(set) var port: UInt16 = 0

    init(root: URL, _ extra: [String] = []) throws {
        logURL = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-serve-log-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        process.executableURL = Binary.cyanotype
        process.arguments = ["serve", "--root", root.path, "--port", "0"] + extra
        process.standardError = try FileHandle(forWritingTo: logURL)
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var exited = false
        let listening = waitUntil(seconds: 120, every: 0.02) {
            if let range = log.range(of: #"listening on http://127\.0\.0\.1:(\d+)/"#, options: .regularExpression) {
                port = UInt16(log[range].split(separator: ":").last!.dropLast()) ?? 0
                return true
            }
            exited = !process.isRunning
            return exited
        }
        if listening && !exited { return }
        if exited { throw HTTP.Failure(description: "the server exited: \(log)") }
        process.terminate()
        throw HTTP.Failure(description: "the server did not start: \(log)")
    }

    deinit {
        if process.isRunning { process.terminate(); process.waitUntilExit() }
        try? FileManager.default.removeItem(at: logURL)
    }

    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }
    var isRunning: Bool { process.isRunning }

    /// Peak resident memory so far (VmHWM), in KiB.
    var peakMemoryKiB: Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }

    /// SIGTERM, then waits for the exit status.
    @discardableResult
    func stop() -> Int32 {
        guard process.isRunning else { return process.terminationStatus }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        return process.terminationStatus
    }

    func get(_ target: String, headers: [String: String] = [:]) throws -> Reply { try HTTP.get(port, target, headers: headers) }
    func post(_ target: String, json: Any) throws -> Reply { try HTTP.post(port, target, json: json) }
}

/// Percent-encodes a query value.
func q(_ s: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
}
