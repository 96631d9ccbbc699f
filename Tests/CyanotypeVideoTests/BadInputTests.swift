import Cyanotype
import CyanotypeVideo
import Foundation
import Testing

/// Exports `input` and returns the error, checking that nothing was left beside the output.
func failedExport(_ input: URL, in s: Scratch) async -> VideoError? {
    let before = Set(s.files)
    let output = s.url("out.mp4")
    guard let session = AVAssetExportSession(asset: AVURLAsset(url: input), presetName: AVAssetExportPresetHighestQuality) else { return nil }
    session.outputURL = output
    session.outputFileType = .mp4
    do {
        try await session.export()
        return nil
    } catch {
        #expect(Set(s.files) == before, "left behind: \(Set(s.files).subtracting(before))")
        #expect(session.status == .failed)
        return error as? VideoError
    }
}

@Suite("Bad input")
struct BadInputTests {
    @Test func emptyAndMissingFiles() async throws {
        let s = try Scratch()
        let empty = s.url("empty.mp4")
        try Data().write(to: empty)
        #expect(await failedExport(empty, in: s) == .emptyFile(file: empty.path))
        await #expect(throws: VideoError.emptyFile(file: empty.path)) { _ = try await AVURLAsset(url: empty).load(.duration) }
        let missing = s.url("missing.mp4")
        let e = await failedExport(missing, in: s)
        #expect(e == .cannotOpen(file: missing.path, reason: "no such file"))
        #expect(e?.description.contains(missing.path) == true)
    }

    @Test func randomBytesAreNotAVideo() async throws {
        let s = try Scratch()
        let junk = s.url("junk.mp4")
        var g = SeededGenerator(0xB4D)
        try Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &g) }).write(to: junk)
        let e = await failedExport(junk, in: s)
        guard case .unrecognizedFormat(let f, _) = e else { Issue.record("got \(String(describing: e))"); return }
        #expect(f == junk.path)
    }

    @Test(.enabled(if: FF.available, "ffmpeg/ffprobe missing: scripts/setup.sh --test installs them"))
    func truncatedFiles() async throws {
        let s = try Scratch()
        // Index first, so the cut loses frames rather than the index.
        let full = s.url("full.mp4")
        try makeTestClip(full, width: 64, height: 48, fps: 10, frames: 40, extra: ["-movflags", "+faststart"])
        let data = try Data(contentsOf: full)
        let cut = s.url("cut.mp4")
        try data.prefix(data.count / 2).write(to: cut)
        let e = await failedExport(cut, in: s)
        guard case .truncated(let f, _) = e else { Issue.record("got \(String(describing: e))"); return }
        #expect(f == cut.path)
        // Index last (ffmpeg's default): half the file has no index at all.
        let plain = s.url("plain.mp4")
        try makeTestClip(plain, width: 64, height: 48, fps: 10, frames: 40)
        let p = try Data(contentsOf: plain)
        let cut2 = s.url("cut2.mp4")
        try p.prefix(p.count / 2).write(to: cut2)
        let e2 = await failedExport(cut2, in: s)
        guard case .unrecognizedFormat = e2 else { Issue.record("got \(String(describing: e2))"); return }
        // 20 bytes.
        let tiny = s.url("tiny.mp4")
        try p.prefix(20).write(to: tiny)
        #expect(await failedExport(tiny, in: s) != nil)
    }

    @Test(.enabled(if: FF.available, "ffmpeg/ffprobe missing: scripts/setup.sh --test installs them"))
    func noVideoStream() async throws {
        let s = try Scratch()
        let audio = s.url("tone.m4a")
        try FF.ffmpeg("-f", "lavfi", "-i", "sine=frequency=440", "-t", "0.5", "-c:a", "aac", audio.path)
        #expect(await failedExport(audio, in: s) == .noVideoStream(file: audio.path))
        #expect(AVURLAsset(url: audio).tracks(withMediaType: .video).isEmpty)
        #expect(AVURLAsset(url: audio).duration == .invalid)
    }

    @Test(.enabled(if: FF.available, "ffmpeg/ffprobe missing: scripts/setup.sh --test installs them"))
    func unsupportedCodec() async throws {
        let s = try Scratch()
        let clip = s.url("odd.mov")
        try makeTestClip(clip, width: 64, height: 48, fps: 10, frames: 3)
        // Rename the codec in the sample description: no decoder knows 'zzzz'.
        var d = try Data(contentsOf: clip)
        let r = try #require(d.range(of: Data("avc1".utf8)))
        d.replaceSubrange(r, with: Data("zzzz".utf8))
        try d.write(to: clip)
        let e = await failedExport(clip, in: s)
        guard case .unsupportedCodec(let f, let c) = e else { Issue.record("got \(String(describing: e))"); return }
        #expect(f == clip.path)
        #expect(c.contains("zzzz"), "\(c)")
    }

    /// A transfer function other than SDR, PQ or HLG fails by name instead of being read as
    /// SDR (never silently wrong).
    @Test(.enabled(if: FF.available, "ffmpeg/ffprobe missing: scripts/setup.sh --test installs them"))
    func anUnreadableTransferFunctionIsNamed() async throws {
        let s = try Scratch()
        let clip = s.url("linear.mkv")
        try makeTestClip(clip, fps: 10, frames: 2, codec: ["-c:v", "ffv1", "-pix_fmt", "yuv420p", "-color_trc", "linear"])
        #expect(try FF.stream(clip)["color_transfer"] as? String == "linear")
        let e = await failedExport(clip, in: s)
        #expect(e == .unsupportedCodec(file: clip.path, codec: "transfer function linear (only SDR, PQ and HLG are read)"))
    }

    @Test func absurdDimensionsAreRefusedBeforeAllocation() async throws {
        let s = try Scratch()
        // A YUV4MPEG2 header claiming 16000x16000 (256 Mpx, 384 MB a frame), then one short frame.
        let y4m = s.url("huge.y4m")
        var d = Data("YUV4MPEG2 W16000 H16000 F30:1 Ip A1:1 C420jpeg\nFRAME\n".utf8)
        d.append(Data(count: 1000))
        try d.write(to: y4m)
        let e = await failedExport(y4m, in: s)
        #expect(e == .dimensionsTooLarge(file: y4m.path, width: 16000, height: 16000, limit: 8192 * 8192))
        await #expect(throws: VideoError.dimensionsTooLarge(file: y4m.path, width: 16000, height: 16000, limit: 8192 * 8192)) {
            _ = try await AVURLAsset(url: y4m).load(.tracks)
        }
    }

    @Test(.enabled(if: FF.available, "ffmpeg/ffprobe missing: scripts/setup.sh --test installs them"))
    func aContainerLyingAboutItsLength() async throws {
        let s = try Scratch()
        let clip = s.url("liar.mp4")
        try makeTestClip(clip, width: 64, height: 48, fps: 10, frames: 10, extra: ["-movflags", "+faststart"])
        // Claim ten times the duration in the movie and track headers (mvhd, tkhd, mdhd).
        var d = try Data(contentsOf: clip)
        for box in ["mvhd", "tkhd", "mdhd"] {
            guard let r = d.range(of: Data(box.utf8)) else { continue }
            let v0 = d[r.upperBound] == 0
            guard v0 else { continue }
            // version 0: flags(3) creation(4) modification(4) then [timescale(4) duration(4)] or
            // for tkhd: track id(4) reserved(4) duration(4).
            let at = r.upperBound + 4 + 8 + (box == "tkhd" ? 8 : 4)
            let old = d[at..<at + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let new = old &* 10
            for k in 0..<4 { d[at + k] = UInt8((new >> (24 - 8 * k)) & 0xff) }
        }
        try d.write(to: clip)
        let e = await failedExport(clip, in: s)
        guard case .truncated(let f, let why) = e else { Issue.record("got \(String(describing: e))"); return }
        #expect(f == clip.path)
        #expect(why.contains("declares"))
    }

    @Test(.enabled(if: FF.available, "ffmpeg/ffprobe missing: scripts/setup.sh --test installs them"))
    func theOutputIsNeverAnInput() async throws {
        let s = try Scratch()
        let clip = s.url("in.mp4")
        try makeTestClip(clip, fps: 10, frames: 2)
        let before = try Data(contentsOf: clip)
        await #expect(throws: VideoError.self) { try await runExport(AVURLAsset(url: clip), to: clip) }
        #expect(try Data(contentsOf: clip) == before)
    }

    @Test(.enabled(if: FF.available, "ffmpeg/ffprobe missing: scripts/setup.sh --test installs them"))
    func ffv1IsNotAllowedInMP4() async throws {
        let s = try Scratch()
        let clip = s.url("in.mp4")
        try makeTestClip(clip, fps: 10, frames: 2)
        await #expect(throws: VideoError.codecNotAllowedInContainer(file: s.url("o.mp4").path, codec: "ffv1", container: "mp4")) {
            try await runExport(AVURLAsset(url: clip), to: s.url("o.mp4"), codec: .ffv1)
        }
        #expect(s.files == ["in.mp4"])
    }

    @Test(.enabled(if: FF.available, "ffmpeg/ffprobe missing: scripts/setup.sh --test installs them"))
    func unwritableOutputsAndEncodersThatWillNotOpen() async throws {
        let s = try Scratch()
        let clip = s.url("in.mp4")
        try makeTestClip(clip, fps: 10, frames: 2)
        await #expect(throws: VideoError.self) {
            try await runExport(AVURLAsset(url: clip), to: s.url("no/such/folder/out.mp4"))
        }
        await #expect(throws: VideoError.self) {
            try await runExport(AVURLAsset(url: clip), to: s.url("o.mkv"), type: .mkv, codec: .av1) { $0.encoderSpeed = "fastest please" }
        }
        await #expect(throws: VideoError.invalidSetting("speed 'warp' for h264: one of ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow, placebo")) {
            try await runExport(AVURLAsset(url: clip), to: s.url("o.mp4")) { $0.encoderSpeed = "warp" }
        }
        #expect(s.files == ["in.mp4"])
    }
}
