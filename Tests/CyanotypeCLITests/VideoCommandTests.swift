import CyanotypeTestSupport
import Cyanotype
import Foundation
import Testing
@testable import CyanotypeCLI
import CyanotypeTool

/// `cyanotype video` and `cyanotype info` on movies, through the built binary (`Tool`).
enum VideoCLI {
    static let ffmpeg: String? = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static var available: Bool { ffmpeg != nil }

    /// A 10-frame 64x48 H.264 clip with AAC audio, made by the `ffmpeg` tool in `w`.
    static func makeClip(_ name: String, in w: Workspace, extra: [String] = []) throws {
        let r = try Tool.run(
            [
                "-v", "error", "-y", "-nostdin", "-f", "lavfi", "-i", "testsrc2=s=64x48:r=10",
                "-f", "lavfi", "-i", "sine=frequency=440", "-frames:v", "10", "-c:v", "libx264",
                "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest",
            ] + extra + [name],
            in: w.dir, executable: URL(fileURLWithPath: ffmpeg!))
        guard r.status == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: ["ffmpeg": r.stderr]) }
    }
}

extension Workspace {
    /// The files in the folder, sorted (dot files left out).
    var visibleFiles: [String] { files(under: ".").sorted() }
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
        let f = try Workspace()
        try VideoCLI.makeClip("in.mp4", in: f)
        let r = try f.run(
            "video", "in.mp4", "-o", "out.mp4", "--filter", "gaussianBlur radius=0@0,5@1",
            "--filter", "sepiaTone intensity=0.8", "--speed", "ultrafast")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.out.contains("out.mp4: 10 frames, h264"))
        #expect(f.visibleFiles == ["in.mp4", "out.mp4"])
        let info = try f.run("info", "out.mp4")
        #expect(info.status == 0)
        #expect(info.out.contains("h264, 64x48"))
        #expect(info.out.contains("bt709 tv bt709 bt709"))
        #expect(info.out.contains("aac, 44100 Hz"))
        #expect(info.out.contains("container:   QuickTime / MOV"), "\(info.out)")
        #expect(info.out.contains("duration:    1.0"), "\(info.out)")
        #expect(info.out.contains("10.000 fps, 10 frames"), "\(info.out)")
        #expect(info.out.contains("rotation:    none"), "\(info.out)")
        let json = try f.run("info", "out.mp4", "--json")
        let o = try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any]
        #expect((o?["video"] as? [String: Any])?["width"] as? Int == 64)
    }

    /// apply's look options on every frame: --lut (with --interp), --preset with --intensity,
    /// --max-size; ffmpeg reads the frames back.
    @Test(.enabled(if: VideoCLI.available, "ffmpeg missing: scripts/setup.sh --test installs it"))
    func looksAndSizeOptions() throws {
        let f = try Workspace()
        try VideoCLI.makeClip("in.mp4", in: f)
        // A 2-point LUT that swaps red and blue (red index fastest, entries are R G B).
        let swap = ["0 0 0", "0 0 1", "0 1 0", "0 1 1", "1 0 0", "1 0 1", "1 1 0", "1 1 1"]
        try Data(("LUT_3D_SIZE 2\n" + swap.joined(separator: "\n") + "\n").utf8).write(to: f.url("swap.cube"))
        // --intensity applies to the preset when there is one: at 0 the preset does nothing.
        let r = try f.run(
            "video", "in.mp4", "-o", "out.mkv", "--codec", "ffv1", "--lut", "swap.cube", "--interp", "trilinear",
            "--preset", "clarendon", "--intensity", "0", "--max-size", "32", "--quiet")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.out.contains("out.mkv: 10 frames, ffv1"), "\(r.out)")
        // Frame 5 of each, decoded by ffmpeg.
        for (movie, png) in [("in.mp4", "a.png"), ("out.mkv", "b.png")] {
            let x = try f.shell("\(VideoCLI.ffmpeg!) -v error -y -i \(movie) -vf 'select=eq(n\\,5)' -frames:v 1 \(png)")
            #expect(x.status == 0, "\(x.stderr)")
        }
        let a = try f.decoded("a.png"), b = try f.decoded("b.png")
        #expect(a.width == 64 && a.height == 48)
        #expect(b.width == 32 && b.height == 24)
        func mean(_ d: Decoded, _ c: Int) -> Double {
            Double(stride(from: c, to: d.samples.count, by: 4).reduce(0) { $0 + d.samples[$1] }) / Double(d.width * d.height)
        }
        // Scaling keeps the means (within a few levels); the LUT swapped red and blue.
        #expect(abs(mean(b, 0) - mean(a, 2)) < 6 && abs(mean(b, 2) - mean(a, 0)) < 6, "\((0..<3).map { mean(a, $0) }) -> \((0..<3).map { mean(b, $0) })")
        #expect(abs(mean(a, 0) - mean(a, 2)) > 15, "the clip's red and blue differ, so the swap shows")
        // A device as the LUT: said to be no regular file, nothing written.
        let device = try f.run("video", "in.mp4", "-o", "dev.mp4", "--lut", "/dev/null")
        #expect(device.status == 1 && device.stderr.contains("/dev/null: not a regular file"), "\(device.stderr)")
        #expect(!f.exists("dev.mp4"))
    }

    @Test(.enabled(if: VideoCLI.available, "ffmpeg missing: scripts/setup.sh --test installs it"))
    func aFrameAsAnImage() throws {
        let f = try Workspace()
        try VideoCLI.makeClip("in.mp4", in: f)
        let r = try f.run("video", "in.mp4", "--frame", "0.5", "-o", "poster.png", "--filter", "colorInvert")
        #expect(r.status == 0, "\(r.stderr)")
        let img = try CIImage.read(contentsOf: f.url("poster.png"))
        #expect(img.extent.size == CGSize(width: 64, height: 48))
    }

    @Test(.enabled(if: VideoCLI.available, "ffmpeg missing: scripts/setup.sh --test installs it"))
    func rangeCodecAndTransition() throws {
        let f = try Workspace()
        try VideoCLI.makeClip("a.mp4", in: f)
        try VideoCLI.makeClip("b.mp4", in: f)
        let cut = try f.run("video", "a.mp4", "-o", "cut.mkv", "--codec", "ffv1", "--start", "0.3", "--duration", "0.5")
        #expect(cut.status == 0, "\(cut.stderr)")
        #expect(cut.out.contains("5 frames, ffv1"))
        let joined = try f.run(
            "video", "a.mp4", "b.mp4", "-o", "joined.mp4", "--transition", "dissolveTransition",
            "--transition-duration", "0.5", "--speed", "ultrafast")
        #expect(joined.status == 0, "\(joined.stderr)")
        #expect(joined.out.contains("15 frames"))
    }

    /// A TERM (or Ctrl-C) during an export cancels it: exit 1, and no temporary file is left
    /// beside the output (the default action killed the process with it still there).
    @Test(.enabled(if: VideoCLI.available, "ffmpeg missing: scripts/setup.sh --test installs it"))
    func anInterruptedExportLeavesNothing() throws {
        let f = try Workspace()
        let r = try Tool.run(
            [
                "-v", "error", "-y", "-nostdin", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30", "-frames:v", "900", "-c:v", "libx264",
                "-preset", "ultrafast", "long.mp4",
            ],
            in: f.dir, executable: URL(fileURLWithPath: VideoCLI.ffmpeg!))
        #expect(r.status == 0, "\(r.stderr)")
        let p = Process()
        p.executableURL = Tool.executable
        p.arguments = ["video", "long.mp4", "-o", "out.mp4", "--speed", "veryslow", "--filter", "gaussianBlur radius=8", "--quiet"]
        p.currentDirectoryURL = f.dir
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        // Until the temporary output exists (the export is under way), then TERM.
        waitUntil(seconds: 60, every: 0.02) {
            !p.isRunning || ((try? FileManager.default.contentsOfDirectory(atPath: f.dir.path)) ?? []).contains { $0.hasSuffix(".tmp") }
        }
        let wasRunning = p.isRunning
        p.terminate()
        p.waitUntilExit()
        #expect(wasRunning, "the export ended before it could be interrupted")
        if wasRunning {
            #expect(p.terminationReason == .exit && p.terminationStatus == 1, "\(p.terminationReason) \(p.terminationStatus)")
            let left = ((try? FileManager.default.contentsOfDirectory(atPath: f.dir.path)) ?? []).sorted()
            #expect(left == ["long.mp4"], "left behind: \(left)")
        }
    }

    @Test(.enabled(if: VideoCLI.available, "ffmpeg missing: scripts/setup.sh --test installs it"))
    func badInputExitsOneAndLeavesNothing() throws {
        let f = try Workspace()
        try Data("not a movie".utf8).write(to: f.url("junk.mp4"))
        let r = try f.run("video", "junk.mp4", "-o", "out.mp4")
        #expect(r.status == 1)
        #expect(r.stderr.contains("junk.mp4"))
        #expect(f.visibleFiles == ["junk.mp4"])
        let missing = try f.run("video", "nope.mp4", "-o", "out.mp4")
        #expect(missing.status == 1)
        let usage = try f.run("video", "junk.mp4", "-o", "out.txt")
        #expect(usage.status == 2)
        let badKeys = try f.run("video", "junk.mp4", "-o", "o.mp4", "--filter", "gaussianBlur radius=1@2,0@1")
        #expect(badKeys.status == 2)
        #expect(f.visibleFiles == ["junk.mp4"])
    }

    /// An overlap longer than a clip is refused with both numbers (the clip lasts 1 s by
    /// ffprobe), not shortened.
    @Test(.enabled(if: VideoCLI.available, "ffmpeg missing: scripts/setup.sh --test installs it"))
    func transitionLongerThanAClipIsRefused() throws {
        let f = try Workspace()
        try VideoCLI.makeClip("a.mp4", in: f)
        try VideoCLI.makeClip("b.mp4", in: f)
        let probe = try f.shell("ffprobe -v error -show_entries format=duration -of csv=p=0 a.mp4")
        let length = try #require(Double(probe.out.trimmingCharacters(in: .whitespacesAndNewlines)))
        let r = try f.run("video", "a.mp4", "b.mp4", "-o", "joined.mp4", "--transition", "dissolveTransition", "--transition-duration", "2.5")
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("--transition-duration 2.5 s is longer than a.mp4, which lasts \(String(format: "%.3f", length)) s"), "\(r.stderr)")
        #expect(f.visibleFiles == ["a.mp4", "b.mp4"])
    }

    /// `.webm` is written with VP9 by default, the Opus audio copied (ffprobe reads it back).
    @Test(.enabled(if: VideoCLI.available, "ffmpeg missing: scripts/setup.sh --test installs it"))
    func webmOutputDefaultsToVP9() throws {
        let f = try Workspace()
        try VideoCLI.makeClip("in.mkv", in: f, extra: ["-c:a", "libopus"])
        let r = try f.run("video", "in.mkv", "-o", "out.webm", "--filter", "sepiaTone", "--quiet")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.out.contains("out.webm: 10 frames, vp9"), "\(r.out)")
        let streams = try f.shell("ffprobe -v error -show_entries stream=codec_name:format=format_name -of csv=p=0 out.webm")
        #expect(streams.out.contains("vp9") && streams.out.contains("opus") && streams.out.contains("webm"), "\(streams.out)")
        // H.264 cannot go into WebM: refused with the codec and the container named.
        let h264 = try f.run("video", "in.mkv", "-o", "h.webm", "--codec", "h264")
        #expect(h264.status == 1 && h264.stderr.contains("webm") && h264.stderr.contains("h264"), "\(h264.stderr)")
    }
}
