import Cyanotype
import CyanotypeVideo
import Foundation
import Testing

/// Runs an export to the end and returns the session.
@discardableResult
func runExport(
    _ asset: AVAsset, to url: URL, type: AVFileType = .mp4, codec: VideoCodec = .h264,
    composition: AVVideoComposition? = nil, range: CMTimeRange? = nil,
    configure: (AVAssetExportSession) -> Void = { _ in }
) async throws -> AVAssetExportSession {
    let session = try #require(AVAssetExportSession(asset: asset, presetName: AVAssetExportPresetHighestQuality))
    session.outputURL = url
    session.outputFileType = type
    session.videoCodec = codec
    session.encoderSpeed = codec == .h264 || codec == .hevc ? "ultrafast" : nil
    session.videoComposition = composition
    if let range { session.timeRange = range }
    configure(session)
    try await session.export()
    return session
}

@Suite("Export")
struct ExportTests {
    @Test(.enabled(if: FF.available, "ffmpeg/ffprobe missing: scripts/setup.sh --test installs them"))
    func variableFrameRateKeepsEveryFrameAndTimestamp() async throws {
        let s = try Scratch()
        let input = s.url("vfr.mp4"), output = s.url("out.mp4")
        // 15 frames at 10 fps with a 0.4 s gap after the fifth: a variable frame rate.
        try makeTestClip(input, fps: 10, frames: 15, extra: ["-vf", "setpts=if(gte(N\\,5)\\,PTS+4\\,PTS)", "-fps_mode", "passthrough"])
        let source = try FF.frameTimes(input)
        #expect(source.count == 15)
        #expect(source.count > 6 && abs((source[5] - source[4]) - 0.5) < 1e-3, "the source has its gap: \(source)")
        try await runExport(AVURLAsset(url: input), to: output)
        let out = try FF.frameTimes(output)
        #expect(out.count == source.count)
        for (a, b) in zip(source, out) { #expect(abs(a - b) < 1e-3, "\(source) vs \(out)") }
    }

    @Test(.enabled(if: FF.available, "ffmpeg/ffprobe missing: scripts/setup.sh --test installs them"))
    func timeRangeKeepsTheFramesInside() async throws {
        let s = try Scratch()
        let input = s.url("in.mp4"), output = s.url("cut.mp4")
        try makeTestClip(input, fps: 10, frames: 30, audio: true)
        let range = CMTimeRange(start: CMTime(seconds: 1.0, preferredTimescale: 600), duration: CMTime(seconds: 1.0, preferredTimescale: 600))
        try await runExport(AVURLAsset(url: input), to: output, range: range)
        let source = try FF.frameTimes(input).filter { $0 >= 1.0 - 1e-6 && $0 < 2.0 - 1e-6 }
        let out = try FF.frameTimes(output)
        #expect(out.count == source.count && out.count == 10)
        for (a, b) in zip(source, out) { #expect(abs((a - 1.0) - b) < 1e-3) }
        // The audio is cut to the same range (AAC frames are 1024 samples: 23 ms).
        let audio = try FF.stream(output, "a:0")
        let d = Double(audio["duration"] as? String ?? "") ?? 0
        #expect(abs(d - 1.0) < 0.05, "audio duration \(d)")
    }

    @Test(.enabled(if: FF.available, "ffmpeg/ffprobe missing: scripts/setup.sh --test installs them"))
    func ffv1RoundTripEqualsTheDecodedRGB() async throws {
        let s = try Scratch()
        let input = s.url("in.mp4"), output = s.url("out.mkv")
        try makeTestClip(input, width: 64, height: 48, fps: 10, frames: 4)
        try await runExport(AVURLAsset(url: input), to: output, type: .mkv, codec: .ffv1)
        let probe = try FF.stream(output)
        #expect(probe["codec_name"] as? String == "ffv1")
        for (i, t) in [0.0, 0.3].enumerated() {
            let decoded = try libraryFrame(input, at: t)
            // ffmpeg reads our FFV1 file back (RGB stored losslessly: no conversion on its side).
            let theirs = try FF.rgbFrame(output, index: i * 3, width: 64, height: 48)
            var worst = 0
            for p in 0..<(64 * 48) {
                for c in 0..<3 { worst = max(worst, abs(Int(decoded.bytes[p * 4 + c]) - Int(theirs[p * 3 + c]))) }
            }
            #expect(worst <= 1, "frame at \(t) s differs by \(worst) levels")
            let ours = try libraryFrame(output, at: t)
            #expect(ours.bytes == decoded.bytes)
        }
    }

    /// An unfiltered export to 4:2:0 against ffmpeg's own R'G'B' round trip
    /// (`-vf format=rgb24,scale=out_color_matrix=bt709,format=yuv420p`) as the reference: both
    /// read back by ffmpeg, ours may not be further from the source. The source is untagged
    /// SD 4:4:4, so both sides read it as BT.601 and no chroma siting is assumed on the way in
    /// (for 4:2:0 input they differ: H.264's default, which we follow, is left-sited chroma;
    /// swscale centres it whatever the stream says).
    @Test(.enabled(if: FF.available, "ffmpeg/ffprobe missing: scripts/setup.sh --test installs them"))
    func anUnfilteredTranscodeIsAsFaithfulAsFFmpegsRoundTrip() async throws {
        let s = try Scratch()
        let (w, h) = (128, 72)
        let input = s.url("in.mkv"), ours = s.url("ours.mkv"), reference = s.url("ref.mkv")
        try makeTestClip(input, width: w, height: h, fps: 10, frames: 3, codec: ["-c:v", "ffv1", "-pix_fmt", "yuv444p"])
        try await runExport(AVURLAsset(url: input), to: ours, type: .mkv, codec: .rawvideo)
        try FF.ffmpeg(
            "-i", input.path, "-vf", "format=rgb24,scale=out_color_matrix=bt709:out_range=tv,format=yuv420p", "-c:v", "rawvideo",
            "-colorspace", "bt709", "-color_range", "tv", "-color_primaries", "bt709", "-color_trc", "bt709", reference.path)
        #expect(try FF.stream(ours)["pix_fmt"] as? String == "yuv420p")
        for i in 0..<3 {
            let source = try FF.rgbFrame(input, index: i, width: w, height: h)
            func meanError(_ url: URL) throws -> Double {
                let rgb = try FF.rgbFrame(url, index: i, width: w, height: h)
                return Double(zip(rgb, source).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(rgb.count)
            }
            let e = try meanError(ours), r = try meanError(reference)
            #expect(e <= r * 1.05 + 0.05, "frame \(i): ours is \(e) levels from the source on average, ffmpeg's round trip \(r)")
            #expect(e < 4, "frame \(i): \(e)")
        }
    }

    @Test(.enabled(if: FF.available, "ffmpeg/ffprobe missing: scripts/setup.sh --test installs them"))
    func bt601AndBT709TagsDecodeToTheSameColours() throws {
        let s = try Scratch()
        let colors: [(UInt8, UInt8, UInt8)] = [(200, 30, 40), (20, 180, 60), (40, 70, 220), (230, 210, 40), (128, 128, 128), (90, 20, 150)]
        let ppm = s.url("blocks.ppm")
        try writeBlocksPPM(ppm, colors: colors, blockWidth: 8, height: 8)
        var decoded: [Pixels] = []
        for (matrix, tag) in [("bt601", "smpte170m"), ("bt709", "bt709")] {
            let clip = s.url("\(matrix).mkv")
            // swscale converts the RGB blocks with each matrix; the stream is tagged to match.
            try FF.ffmpeg(
                "-i", ppm.path, "-vf", "scale=out_color_matrix=\(matrix):out_range=tv,format=yuv444p",
                "-colorspace", tag, "-color_range", "tv", "-c:v", "ffv1", clip.path)
            let st = try FF.stream(clip)
            #expect(st["color_space"] as? String == tag)
            decoded.append(try libraryFrame(clip, at: 0))
        }
        for (i, c) in colors.enumerated() {
            let x = i * 8 + 4
            let a = decoded[0].rgb(x, 4), b = decoded[1].rgb(x, 4)
            #expect(abs(a.0 - b.0) <= 1 && abs(a.1 - b.1) <= 1 && abs(a.2 - b.2) <= 1, "601 \(a) vs 709 \(b)")
            #expect(abs(a.0 - Int(c.0)) <= 2 && abs(a.1 - Int(c.1)) <= 2 && abs(a.2 - Int(c.2)) <= 2, "\(a) vs the source's \(c)")
        }
    }

    @Test(.enabled(if: FF.available, "ffmpeg/ffprobe missing: scripts/setup.sh --test installs them"))
    func aNinetyDegreeRotationTagComesOutUpright() async throws {
        let s = try Scratch()
        // Stored landscape, 64x32: left half red, right half blue. Shown rotated 90 degrees
        // clockwise, red is on top.
        let ppm = s.url("lr.ppm"), input = s.url("rotated.mp4"), output = s.url("upright.mp4")
        try writeBlocksPPM(ppm, colors: [(220, 20, 20), (20, 20, 220)], blockWidth: 32, height: 32)
        try FF.ffmpeg("-loop", "1", "-i", ppm.path, "-frames:v", "3", "-r", "10", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", input.path)
        try rotateTrackHeader(input)
        let tags = try FF.probe(input, ["-select_streams", "v:0", "-show_streams"])
        let sideData = ((tags["streams"] as? [[String: Any]])?.first?["side_data_list"] as? [[String: Any]]) ?? []
        #expect(sideData.contains { ($0["rotation"] as? Int) == -90 }, "ffprobe reads the tag: \(sideData)")
        let track = try #require(AVURLAsset(url: input).tracks(withMediaType: .video).first)
        #expect(track.rotation == 90)
        try await runExport(AVURLAsset(url: input), to: output)
        let st = try FF.stream(output)
        #expect(st["width"] as? Int == 32 && st["height"] as? Int == 64)
        let theirs = try FF.rgbFrame(output, index: 0, width: 32, height: 64)
        func at(_ x: Int, _ y: Int) -> (Int, Int, Int) { let i = (y * 32 + x) * 3; return (Int(theirs[i]), Int(theirs[i + 1]), Int(theirs[i + 2])) }
        let top = at(16, 8), bottom = at(16, 56)
        #expect(top.0 > 180 && top.2 < 60, "top is red: \(top)")
        #expect(bottom.2 > 180 && bottom.0 < 60, "bottom is blue: \(bottom)")
        // Kept as metadata instead: stored pixels unchanged, the tag carried over.
        let kept = s.url("kept.mp4")
        try await runExport(AVURLAsset(url: input), to: kept) { $0.keepsRotationMetadata = true }
        let k = try FF.probe(kept, ["-select_streams", "v:0", "-show_streams"])
        let ks = (k["streams"] as? [[String: Any]])?.first ?? [:]
        #expect(ks["width"] as? Int == 64)
        #expect(((ks["side_data_list"] as? [[String: Any]]) ?? []).contains { ($0["rotation"] as? Int) == -90 })
    }

    @Test(.enabled(if: FF.available, "ffmpeg/ffprobe missing: scripts/setup.sh --test installs them"))
    func audioPacketsAreCopiedByteForByte() async throws {
        let s = try Scratch()
        let input = s.url("tone.mp4"), output = s.url("out.mov")
        try makeTestClip(input, fps: 10, frames: 12, audio: true)
        let blur = AVVideoComposition(asset: AVURLAsset(url: input)) { r in
            r.finish(with: r.sourceImage.applyingFilter("CIColorInvert"), context: nil)
        }
        try await runExport(AVURLAsset(url: input), to: output, type: .mov, composition: blur)
        let a = try FF.audioPacketHashes(input), b = try FF.audioPacketHashes(output)
        #expect(!a.isEmpty)
        #expect(a == b)
        #expect(try FF.stream(output, "a:0")["codec_name"] as? String == "aac")
    }

    @Test(
        .enabled(if: FF.available, "ffmpeg/ffprobe missing: scripts/setup.sh --test installs them"),
        arguments: [(VideoCodec.h264, AVFileType.mp4), (.hevc, .mp4), (.av1, .mkv), (.vp9, .mkv), (.prores, .mov), (.ffv1, .mkv), (.rawvideo, .mkv)])
    func everyEncoderWritesAReadableFile(codec: VideoCodec, type: AVFileType) async throws {
        guard codec.isAvailable else { return }
        let s = try Scratch()
        let input = s.url("in.mp4"), output = s.url("out")
        try makeTestClip(input, width: 64, height: 64, fps: 10, frames: 5)
        try await runExport(AVURLAsset(url: input), to: output, type: type, codec: codec)
        let st = try FF.stream(output)
        let names: [VideoCodec: String] = [
            .h264: "h264", .hevc: "hevc", .av1: "av1", .vp9: "vp9", .prores: "prores", .ffv1: "ffv1",
            .rawvideo: "rawvideo",
        ]
        #expect(st["codec_name"] as? String == names[codec])
        #expect(try FF.frameTimes(output).count == 5)
        if codec == .prores {
            // ffprobe does not report ProRes colour tags; the QuickTime 'colr' atom says BT.709.
            #expect(try Data(contentsOf: output).range(of: Data("colrnclc".utf8) + Data([0, 1, 0, 1, 0, 1])) != nil)
        } else if codec != .ffv1 && codec != .rawvideo {
            #expect(st["color_space"] as? String == "bt709")
            #expect(st["color_primaries"] as? String == "bt709")
        }
        if codec == .hevc { #expect(st["codec_tag_string"] as? String == "hvc1") }
    }

    @Test(.enabled(if: FF.available, "ffmpeg/ffprobe missing: scripts/setup.sh --test installs them"))
    func tenBitOutput() async throws {
        let s = try Scratch()
        let input = s.url("in.mp4"), output = s.url("out.mp4")
        try makeTestClip(input, width: 64, height: 48, fps: 10, frames: 3)
        try await runExport(AVURLAsset(url: input), to: output, codec: .hevc) { $0.outputBitDepth = 10 }
        #expect(try FF.stream(output)["pix_fmt"] as? String == "yuv420p10le")
    }

    @Test(.enabled(if: FF.available, "ffmpeg/ffprobe missing: scripts/setup.sh --test installs them"))
    func presetsFitTheirBoxAtEvenSizes() async throws {
        let s = try Scratch()
        let input = s.url("in.mp4"), output = s.url("out.mp4")
        try makeTestClip(input, width: 96, height: 54, fps: 10, frames: 2)
        let session = try #require(AVAssetExportSession(asset: AVURLAsset(url: input), presetName: AVAssetExportPreset640x480))
        session.outputURL = output
        session.outputFileType = .mp4
        session.maximumOutputEdge = 50
        try await session.export()
        let st = try FF.stream(output)
        #expect(st["width"] as? Int == 50 && st["height"] as? Int == 28)
    }

    @Test(.enabled(if: FF.available, "ffmpeg/ffprobe missing: scripts/setup.sh --test installs them"))
    func appendingWithATransition() async throws {
        let s = try Scratch()
        let red = s.url("red.mp4"), blue = s.url("blue.mp4"), output = s.url("joined.mp4")
        for (url, color) in [(red, "red"), (blue, "blue")] {
            try FF.ffmpeg(
                "-f", "lavfi", "-i", "color=c=\(color):s=32x32:r=10", "-frames:v", "10", "-c:v", "libx264", "-preset", "ultrafast",
                "-pix_fmt", "yuv420p", url.path)
        }
        let joined = AVURLAsset(url: red).appending(AVURLAsset(url: blue), overlap: CMTime(seconds: 0.5, preferredTimescale: 600))
        let seen = Progresses()
        let composition = AVVideoComposition(asset: joined) { request in
            seen.add(request.overlapProgress, request.overlappingImage != nil)
            var image = request.sourceImage
            if let next = request.overlappingImage {
                image = image.applyingFilter("CIDissolveTransition", parameters: [kCIInputTargetImageKey: next, kCIInputTimeKey: request.overlapProgress])
            }
            request.finish(with: image, context: nil)
        }
        try await runExport(joined, to: output, composition: composition)
        let times = try FF.frameTimes(output)
        #expect(times.count == 15, "\(times)")
        #expect(abs((times.last ?? 0) - 1.4) < 1e-3)
        #expect(seen.overlapping == 5)
        let mid = try libraryFrame(output, at: 0.7)
        let c = mid.rgb(16, 16)
        #expect(c.0 > 60 && c.2 > 60, "a blend of red and blue in the overlap: \(c)")
        let end = try libraryFrame(output, at: 1.4).rgb(16, 16)
        #expect(end.2 > 200 && end.0 < 40)
    }

    @Test(.enabled(if: FF.available, "ffmpeg/ffprobe missing: scripts/setup.sh --test installs them"))
    func cancelLeavesNothing() async throws {
        try await Task { try cancelAfterAFewFrames() }.value
    }

    private func cancelAfterAFewFrames() throws {
        let s = try Scratch()
        let input = s.url("in.mp4")
        try makeTestClip(input, width: 64, height: 48, fps: 30, frames: 300)
        let output = s.url("out.mp4")
        let session = try #require(AVAssetExportSession(asset: AVURLAsset(url: input), presetName: AVAssetExportPresetHighestQuality))
        session.outputURL = output
        session.outputFileType = .mp4
        // The handler tells the test of each frame and holds the fourth until the export is
        // cancelled: the cancellation lands mid-export, whatever the machine's speed.
        final class Gate: @unchecked Sendable {
            let lock = NSLock()
            var calls = 0
            let reached = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        }
        let gate = Gate()
        let held = AVVideoComposition(asset: AVURLAsset(url: input)) { r in
            gate.lock.lock(); gate.calls += 1; let call = gate.calls; gate.lock.unlock()
            gate.reached.signal()
            if call == 4 { _ = gate.release.wait(timeout: .now() + 60) }
            r.finish(with: r.sourceImage, context: nil)
        }
        session.videoComposition = held
        let done = DispatchSemaphore(value: 0)
        session.exportAsynchronously { done.signal() }
        let fourFrames = (0..<4).allSatisfy { _ in gate.reached.wait(timeout: .now() + 60) == .success }
        #expect(fourFrames, "the export did not reach its fourth frame in 60 s: \(session.status) \(String(describing: session.error))")
        session.cancelExport()
        gate.release.signal()
        #expect(done.wait(timeout: .now() + 60) == .success, "the cancelled export did not end in 60 s")
        #expect(session.status == .cancelled)
        #expect(session.error as? VideoError == .cancelled)
        #expect(s.files == ["in.mp4"], "left behind: \(s.files)")
    }

    @Test(.enabled(if: FF.available, "ffmpeg/ffprobe missing: scripts/setup.sh --test installs them"))
    func aFailingHandlerFailsTheExportAndLeavesNothing() async throws {
        let s = try Scratch()
        let input = s.url("in.mp4")
        try makeTestClip(input, fps: 10, frames: 10)
        struct Nope: Error {}
        let failing = AVVideoComposition(asset: AVURLAsset(url: input)) { r in
            if r.compositionTime.seconds > 0.45 { r.finish(with: Nope()) } else { r.finish(with: r.sourceImage, context: nil) }
        }
        await #expect(throws: VideoError.self) {
            try await runExport(AVURLAsset(url: input), to: s.url("out.mp4"), composition: failing)
        }
        #expect(s.files == ["in.mp4"])
    }

    @Test(.enabled(if: FF.available, "ffmpeg/ffprobe missing: scripts/setup.sh --test installs them"))
    func theHandlerRunsOncePerFrameInOrderNeverConcurrently() async throws {
        let s = try Scratch()
        let input = s.url("in.mp4")
        try makeTestClip(input, fps: 10, frames: 25)
        let log = CallLog()
        let composition = AVVideoComposition(asset: AVURLAsset(url: input)) { r in
            log.enter(r.compositionTime.seconds)
            log.leave()
            r.finish(with: r.sourceImage, context: nil)
        }
        try await runExport(AVURLAsset(url: input), to: s.url("out.mp4"), composition: composition)
        #expect(log.times.count == 25)
        #expect(log.times == log.times.sorted())
        #expect(log.maxConcurrent == 1)
    }

    @Test func aMissingOutputIsAnError() async throws {
        let session = try #require(
            AVAssetExportSession(
                asset: AVURLAsset(url: URL(fileURLWithPath: "/nonexistent.mp4")),
                presetName: AVAssetExportPresetMediumQuality))
        await #expect(throws: VideoError.exportNotReady("outputURL is not set")) { try await session.export() }
        #expect(session.status == .failed)
        #expect(AVAssetExportSession(asset: AVURLAsset(url: URL(fileURLWithPath: "/x.mp4")), presetName: "NoSuchPreset") == nil)
    }
}

/// Thread-safe records for handler checks.
final class Progresses: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var overlapping = 0
    func add(_ p: Double, _ over: Bool) { lock.lock(); if over { overlapping += 1 }; lock.unlock() }
}

final class CallLog: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var times: [Double] = []
    private var inside = 0
    private(set) var maxConcurrent = 0
    func enter(_ t: Double) { lock.lock(); times.append(t); inside += 1; maxConcurrent = max(maxConcurrent, inside); lock.unlock() }
    func leave() { lock.lock(); inside -= 1; lock.unlock() }
}
