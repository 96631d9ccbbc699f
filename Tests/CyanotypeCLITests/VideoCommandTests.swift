import Cyanotype
import Foundation
import Testing
@testable import CyanotypeCLI

/// `cyanotype video` and `cyanotype info` on movies, through the built binary.
enum VideoCLI {
    static let ffmpeg: String? = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static var available: Bool { ffmpeg != nil }

    static let executable: URL = {
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        for dir in [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(), repo.appendingPathComponent(".build/debug")] {
            let exe = dir.appendingPathComponent("cyanotype")
            if FileManager.default.isExecutableFile(atPath: exe.path) { return exe }
        }
        return repo.appendingPathComponent(".build/debug/cyanotype")
    }()

    struct Result {
        let status: Int32
        let out: String
        let err: String
    }

    static func run(_ exe: URL, _ args: [String], in dir: URL) throws -> Result {
        let p = Process()
        p.executableURL = exe
        p.arguments = args
        p.currentDirectoryURL = dir
        let id = UUID().uuidString
        let o = dir.appendingPathComponent(".out-\(id)"), e = dir.appendingPathComponent(".err-\(id)")
        _ = FileManager.default.createFile(atPath: o.path, contents: nil)
        _ = FileManager.default.createFile(atPath: e.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: o); try? FileManager.default.removeItem(at: e) }
        p.standardOutput = try FileHandle(forWritingTo: o)
        p.standardError = try FileHandle(forWritingTo: e)
        p.standardInput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, out: String(decoding: try Data(contentsOf: o), as: UTF8.self),
                      err: String(decoding: try Data(contentsOf: e), as: UTF8.self))
    }

    static func cyanotype(_ args: String..., in dir: URL) throws -> Result { try run(executable, args, in: dir) }

    static func makeClip(_ name: String, in dir: URL, extra: [String] = []) throws {
        let r = try run(URL(fileURLWithPath: ffmpeg!), ["-v", "error", "-y", "-nostdin", "-f", "lavfi", "-i", "testsrc2=s=64x48:r=10",
                                                        "-f", "lavfi", "-i", "sine=frequency=440", "-frames:v", "10", "-c:v", "libx264",
                                                        "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"] + extra + [name], in: dir)
        guard r.status == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: ["ffmpeg": r.err]) }
    }
}

final class VideoFolder {
    let dir: URL
    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-video-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: dir) }
    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: dir.appendingPathComponent(name).path) }
    var visibleFiles: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { !$0.hasPrefix(".out-") && !$0.hasPrefix(".err-") }.sorted() }
}

@Suite struct KeyframeParsing {
    @Test func valuesInterpolateAndHold() throws {
        let k = try #require(try Keyframes.parse("0@0,20@5,10@6", what: "x"))
        #expect(k.value(at: -1) == 0)
        #expect(k.value(at: 2.5) == 10)
        #expect(k.value(at: 5.5) == 15)
        #expect(k.value(at: 9) == 10)
        #expect(try Keyframes.parse("4", what: "x") == nil)
    }

    @Test func badKeyframesAreUsageErrors() {
        #expect(throws: CLIError.self) { try Keyframes.parse("0@0,1@x", what: "r") }
        #expect(throws: CLIError.self) { try Keyframes.parse("0@2,1@1", what: "r") }
        #expect(throws: CLIError.self) { try Keyframes.parse("0@0,", what: "r") }
    }

    @Test func specsWithKeyframesAreCheckedAgainstTheFilter() throws {
        let f = try AnimatedFilter(parsing: "gaussianBlur radius=0@0,50@5", loadImage: { _ in CIImage.empty() })
        #expect(f.isAnimated)
        let v = try AnimatedFilter(parsing: "vignetteEffect center=[100@0,300@4 200] radius=10", loadImage: { _ in CIImage.empty() })
        #expect(v.tracks.count == 1)
        #expect(throws: CLIError.self) { try AnimatedFilter(parsing: "gaussianBlur nope=0@0,1@1", loadImage: { _ in CIImage.empty() }) }
        // The filter at a moment: radius 25 at 2.5 s.
        let img = CIImage(color: CIColor(red: 1, green: 0, blue: 0)).cropped(to: CGRect(x: 0, y: 0, width: 8, height: 8))
        let out = try f.apply(to: img, at: 2.5)
        #expect(out.extent == img.extent)
    }
}

@Suite struct VideoCommandTests {
    @Test(.enabled(if: VideoCLI.available, "ffmpeg missing: scripts/setup.sh --test installs it"))
    func filtersEveryFrameAndSummarises() throws {
        let f = try VideoFolder()
        try VideoCLI.makeClip("in.mp4", in: f.dir)
        let r = try VideoCLI.cyanotype("video", "in.mp4", "-o", "out.mp4", "--filter", "gaussianBlur radius=0@0,5@1",
                                       "--filter", "sepiaTone intensity=0.8", "--speed", "ultrafast", in: f.dir)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("out.mp4: 10 frames, h264"))
        #expect(f.visibleFiles == ["in.mp4", "out.mp4"])
        let info = try VideoCLI.cyanotype("info", "out.mp4", in: f.dir)
        #expect(info.status == 0)
        #expect(info.out.contains("h264, 64x48"))
        #expect(info.out.contains("bt709 tv bt709 bt709"))
        #expect(info.out.contains("aac, 44100 Hz"))
        let json = try VideoCLI.cyanotype("info", "out.mp4", "--json", in: f.dir)
        let o = try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any]
        #expect((o?["video"] as? [String: Any])?["width"] as? Int == 64)
    }

    @Test(.enabled(if: VideoCLI.available, "ffmpeg missing: scripts/setup.sh --test installs it"))
    func aFrameAsAnImage() throws {
        let f = try VideoFolder()
        try VideoCLI.makeClip("in.mp4", in: f.dir)
        let r = try VideoCLI.cyanotype("video", "in.mp4", "--frame", "0.5", "-o", "poster.png", "--filter", "colorInvert", in: f.dir)
        #expect(r.status == 0, "\(r.err)")
        let img = try CIImage.read(contentsOf: f.dir.appendingPathComponent("poster.png"))
        #expect(img.extent.size == CGSize(width: 64, height: 48))
    }

    @Test(.enabled(if: VideoCLI.available, "ffmpeg missing: scripts/setup.sh --test installs it"))
    func rangeCodecAndTransition() throws {
        let f = try VideoFolder()
        try VideoCLI.makeClip("a.mp4", in: f.dir)
        try VideoCLI.makeClip("b.mp4", in: f.dir)
        let cut = try VideoCLI.cyanotype("video", "a.mp4", "-o", "cut.mkv", "--codec", "ffv1", "--start", "0.3", "--duration", "0.5", in: f.dir)
        #expect(cut.status == 0, "\(cut.err)")
        #expect(cut.out.contains("5 frames, ffv1"))
        let joined = try VideoCLI.cyanotype("video", "a.mp4", "b.mp4", "-o", "joined.mp4", "--transition", "dissolveTransition",
                                            "--transition-duration", "0.5", "--speed", "ultrafast", in: f.dir)
        #expect(joined.status == 0, "\(joined.err)")
        #expect(joined.out.contains("15 frames"))
    }

    @Test(.enabled(if: VideoCLI.available, "ffmpeg missing: scripts/setup.sh --test installs it"))
    func badInputExitsOneAndLeavesNothing() throws {
        let f = try VideoFolder()
        try Data("not a movie".utf8).write(to: f.dir.appendingPathComponent("junk.mp4"))
        let r = try VideoCLI.cyanotype("video", "junk.mp4", "-o", "out.mp4", in: f.dir)
        #expect(r.status == 1)
        #expect(r.err.contains("junk.mp4"))
        #expect(f.visibleFiles == ["junk.mp4"])
        let missing = try VideoCLI.cyanotype("video", "nope.mp4", "-o", "out.mp4", in: f.dir)
        #expect(missing.status == 1)
        let usage = try VideoCLI.cyanotype("video", "junk.mp4", "-o", "out.txt", in: f.dir)
        #expect(usage.status == 2)
        let badKeys = try VideoCLI.cyanotype("video", "junk.mp4", "-o", "o.mp4", "--filter", "gaussianBlur radius=1@2,0@1", in: f.dir)
        #expect(badKeys.status == 2)
        #expect(f.visibleFiles == ["junk.mp4"])
    }
}
