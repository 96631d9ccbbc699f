import Cyanotype
import CyanotypeVideo
import Foundation
import Testing

/// ffmpeg and ffprobe: they make the test clips (lavfi sources, never downloads) and read
/// our outputs back as an independent reader.
enum FF {
    static let available: Bool = {
        ["ffmpeg", "ffprobe"].allSatisfy { tool in
            ["/usr/bin", "/usr/local/bin"].contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }
        }
    }()
    static let missing = "ffmpeg/ffprobe missing: scripts/setup.sh --test installs them"

    static func path(_ tool: String) -> String {
        ["/usr/bin", "/usr/local/bin"].map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) } ?? tool
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    /// Runs a tool; its stdout (stderr in the error when it fails).
    @discardableResult
    static func run(_ tool: String, _ args: [String]) throws -> Data {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path(tool))
        p.arguments = args
        let dir = FileManager.default.temporaryDirectory
        let id = UUID().uuidString
        let outURL = dir.appendingPathComponent("ff-\(id).out"), errURL = dir.appendingPathComponent("ff-\(id).err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outURL); try? FileManager.default.removeItem(at: errURL) }
        p.standardOutput = try FileHandle(forWritingTo: outURL)
        p.standardError = try FileHandle(forWritingTo: errURL)
        p.standardInput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            let err = String(decoding: try Data(contentsOf: errURL), as: UTF8.self)
            throw Failure(description: "\(tool) \(args.joined(separator: " ")) failed: \(err.suffix(600))")
        }
        return try Data(contentsOf: outURL)
    }

    static func ffmpeg(_ args: String...) throws { try run("ffmpeg", ["-v", "error", "-y", "-nostdin"] + args) }

    /// ffprobe's JSON for `entries` of the selected stream.
    static func probe(_ url: URL, _ args: [String]) throws -> [String: Any] {
        let data = try run("ffprobe", ["-v", "error", "-of", "json"] + args + [url.path])
        return (try JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }

    /// Presentation times (seconds) of the video frames, as ffprobe decodes them.
    static func frameTimes(_ url: URL) throws -> [Double] {
        let j = try probe(url, ["-select_streams", "v:0", "-show_entries", "frame=best_effort_timestamp_time"])
        let frames = j["frames"] as? [[String: Any]] ?? []
        return frames.compactMap { ($0["best_effort_timestamp_time"] as? String).flatMap(Double.init) }
    }

    /// SHA-256 of every packet of the first audio stream, in order.
    static func audioPacketHashes(_ url: URL) throws -> [String] {
        let j = try probe(url, ["-select_streams", "a:0", "-show_entries", "packet=data_hash", "-show_data_hash", "sha256", "-show_packets"])
        let packets = j["packets"] as? [[String: Any]] ?? []
        return packets.compactMap { $0["data_hash"] as? String }
    }

    /// One stream's fields (`width`, `height`, `codec_name`, `pix_fmt`, colour tags ...).
    static func stream(_ url: URL, _ selector: String = "v:0") throws -> [String: Any] {
        let j = try probe(url, ["-select_streams", selector, "-show_streams"])
        return (j["streams"] as? [[String: Any]])?.first ?? [:]
    }

    /// Frame `index` decoded by ffmpeg to packed RGB24 (swscale, full chroma interpolation).
    static func rgbFrame(_ url: URL, index: Int, width: Int, height: Int) throws -> [UInt8] {
        let data = try run(
            "ffmpeg",
            [
                "-v", "error", "-nostdin", "-i", url.path, "-vf", "select=eq(n\\,\(index))",
                "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-sws_flags", "accurate_rnd+full_chroma_int+bitexact", "-",
            ])
        let bytes = [UInt8](data)
        guard bytes.count == width * height * 3 else { throw Failure(description: "ffmpeg gave \(bytes.count) bytes for frame \(index)") }
        return bytes
    }
}

/// A fresh temporary folder, removed at the end.
final class Scratch {
    let dir: URL
    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-video-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: dir) }
    func url(_ name: String) -> URL { dir.appendingPathComponent(name) }
    /// Every file in the folder (hidden ones too: temporary outputs must not linger).
    var files: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted() }
}

/// RGBA8 (straight sRGB) pixels of a frame, top row first.
struct Pixels {
    let width: Int, height: Int
    let bytes: [UInt8]
    func rgb(_ x: Int, _ y: Int) -> (Int, Int, Int) {
        let i = (y * width + x) * 4
        return (Int(bytes[i]), Int(bytes[i + 1]), Int(bytes[i + 2]))
    }
}

/// The frame at `seconds` of a movie, decoded by the library (frame shown at that time).
func libraryFrame(_ url: URL, at seconds: Double, upright: Bool = true) throws -> Pixels {
    let gen = AVAssetImageGenerator(asset: AVURLAsset(url: url))
    gen.appliesPreferredTrackTransform = upright
    gen.requestedTimeToleranceBefore = .zero
    gen.requestedTimeToleranceAfter = .zero
    let (image, _) = try gen.ciImage(at: CMTime(seconds: seconds, preferredTimescale: 600))
    let r = try CIContext().renderToData(
        image, from: image.extent, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB),
        premultiplied: false)
    return Pixels(width: r.width, height: r.height, bytes: [UInt8](r.data))
}

/// A small clip from lavfi's testsrc2 (moving colour bars, text), `frames` frames at `fps`,
/// optionally with an AAC tone, made by ffmpeg.
func makeTestClip(
    _ url: URL, width: Int = 64, height: Int = 48, fps: Int = 10, frames: Int = 10, audio: Bool = false,
    codec: [String] = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"], extra: [String] = []
) throws {
    var args = ["-v", "error", "-y", "-nostdin", "-f", "lavfi", "-i", "testsrc2=s=\(width)x\(height):r=\(fps)"]
    if audio { args += ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100"] }
    args += ["-frames:v", "\(frames)"] + codec
    if audio { args += ["-c:a", "aac", "-b:a", "64k", "-shortest"] }
    args += extra + [url.path]
    try FF.run("ffmpeg", args)
}

/// Sets the rotation of the first `tkhd` box with a non-zero size (the video track) to 90
/// degrees clockwise, as a phone recording in portrait does: an independent writer of the
/// tag (ffmpeg 5.1's command line cannot write it).
func rotateTrackHeader(_ url: URL) throws {
    var d = try Data(contentsOf: url)
    let tag = Data("tkhd".utf8)
    var search = d.startIndex
    while let r = d.range(of: tag, in: search..<d.endIndex) {
        let box = r.lowerBound - 4
        let version = d[r.upperBound]
        // version(1) flags(3) times(8|16) track id(4) reserved(4) duration(4|8) reserved(8)
        // layer(2) group(2) volume(2) reserved(2), then the 3x3 matrix, then width, height.
        let times = version == 1 ? 16 : 8, dur = version == 1 ? 8 : 4
        let matrixAt = r.upperBound + 4 + times + 4 + 4 + dur + 8 + 8
        let sizeAt = matrixAt + 36
        func be32(_ i: Int) -> UInt32 { d[i..<i + 4].reduce(0) { $0 << 8 | UInt32($1) } }
        func put(_ i: Int, _ v: Int32) { let u = UInt32(bitPattern: v); for k in 0..<4 { d[i + k] = UInt8((u >> (24 - 8 * k)) & 0xff) } }
        let width = be32(sizeAt) >> 16, height = be32(sizeAt + 4) >> 16
        if width > 0 && height > 0 {
            // [a b u; c d v; x y w] = [0 1 0; -1 0 0; height 0 1] (16.16, w in 2.30): 90 degrees clockwise.
            let one: Int32 = 0x10000
            put(matrixAt, 0); put(matrixAt + 4, one); put(matrixAt + 8, 0)
            put(matrixAt + 12, -one); put(matrixAt + 16, 0); put(matrixAt + 20, 0)
            put(matrixAt + 24, Int32(height) << 16); put(matrixAt + 28, 0); put(matrixAt + 32, 0x4000_0000)
            try d.write(to: url)
            _ = box
            return
        }
        search = r.upperBound
    }
    throw FF.Failure(description: "no video tkhd box in \(url.lastPathComponent)")
}

/// A binary PPM (P6) with blocks of the given colours side by side.
func writeBlocksPPM(_ url: URL, colors: [(UInt8, UInt8, UInt8)], blockWidth: Int, height: Int) throws {
    let width = colors.count * blockWidth
    var d = Data("P6\n\(width) \(height)\n255\n".utf8)
    for _ in 0..<height {
        for c in colors { for _ in 0..<blockWidth { d.append(contentsOf: [c.0, c.1, c.2]) } }
    }
    try d.write(to: url)
}

/// Sum of absolute differences between horizontal neighbours: falls as a picture blurs.
func sharpness(_ p: Pixels) -> Double {
    var s = 0
    for y in 0..<p.height {
        for x in 1..<p.width {
            let a = p.rgb(x, y), b = p.rgb(x - 1, y)
            s += abs(a.0 - b.0) + abs(a.1 - b.1) + abs(a.2 - b.2)
        }
    }
    return Double(s) / Double(p.width * p.height)
}

/// A seeded generator (SplitMix64): tests that draw numbers draw the same ones every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(_ seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
