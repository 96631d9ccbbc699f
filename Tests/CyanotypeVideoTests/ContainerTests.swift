import Cyanotype
import CyanotypeVideo
import Foundation
import Testing

/// Issue #24, video: a filtered clip whose rotation is kept as metadata, audio a container
/// cannot copy, and WebM output; ffprobe and ffmpeg are the readers.
@Suite("Containers and rotation")
struct ContainerTests {
    static var libopus: Bool {
        guard FF.available, let list = try? FF.run("ffmpeg", ["-v", "error", "-hide_banner", "-encoders"]) else { return false }
        return String(decoding: list, as: UTF8.self).contains("libopus")
    }

    /// Stored 640x360 (left half red, right half blue), tagged to be shown turned 90 degrees
    /// clockwise; filtered with the rotation kept, the stored size and the tag come out as they
    /// went in, and ffmpeg's decode of the stored frame keeps red left and blue right.
    @Test(.enabled(if: FF.available, "ffmpeg/ffprobe missing: scripts/setup.sh --test installs them"))
    func filteredWithTheRotationKeptStaysStoredAndTagged() async throws {
        let s = try Scratch()
        let ppm = s.url("lr.ppm"), input = s.url("rot90.mp4"), output = s.url("kept.mp4")
        try writeBlocksPPM(ppm, colors: [(220, 20, 20), (20, 20, 220)], blockWidth: 320, height: 360)
        try FF.ffmpeg("-loop", "1", "-i", ppm.path, "-frames:v", "3", "-r", "10", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", input.path)
        try rotateTrackHeader(input)
        let asset = AVURLAsset(url: input)
        // As `cyanotype video -f ... --keep-rotation` builds it: a composition for the asset.
        let sepia = AVMutableVideoComposition(asset: asset) { r in
            r.finish(with: r.sourceImage.applyingFilter("CISepiaTone", parameters: [kCIInputIntensityKey: 0.2]), context: nil)
        }
        try await runExport(asset, to: output, composition: sepia) { $0.keepsRotationMetadata = true }
        let st = try FF.probe(output, ["-select_streams", "v:0", "-show_streams"])
        let stream = (st["streams"] as? [[String: Any]])?.first ?? [:]
        #expect(stream["width"] as? Int == 640 && stream["height"] as? Int == 360, "coded \(stream["width"] ?? "?")x\(stream["height"] ?? "?")")
        #expect(((stream["side_data_list"] as? [[String: Any]]) ?? []).contains { ($0["rotation"] as? Int) == -90 }, "the rotation tag is kept")
        // The stored frame as ffmpeg decodes it (-noautorotate: not turned by the tag).
        let rgb = [UInt8](
            try FF.run(
                "ffmpeg",
                [
                    "-v", "error", "-nostdin", "-noautorotate", "-i", output.path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24",
                    "-sws_flags", "accurate_rnd+full_chroma_int+bitexact", "-",
                ]))
        try #require(rgb.count == 640 * 360 * 3)
        func at(_ x: Int, _ y: Int) -> (r: Int, g: Int, b: Int) { let i = (y * 640 + x) * 3; return (Int(rgb[i]), Int(rgb[i + 1]), Int(rgb[i + 2])) }
        // Every corner and both halves filled (no black band): red-ish left, blue-ish right.
        for y in [4, 180, 355] {
            let left = at(8, y), right = at(631, y)
            #expect(left.r > left.b + 40, "row \(y) left is red (sepia-tinted): \(left)")
            #expect(right.b > right.r, "row \(y) right is blue: \(right)")
            #expect(left.r + left.g + left.b > 150 && right.r + right.g + right.b > 150, "no black band at row \(y): \(left) \(right)")
        }
    }

    /// Opus audio cannot go into a QuickTime movie as it is: re-encoded as AAC (with a note),
    /// as long as the source's, and still a tone at 440 Hz by ffmpeg's decode.
    @Test(.enabled(if: ContainerTests.libopus, "needs ffmpeg with libopus to make the source"))
    func opusAudioIsReencodedAsAACForQuickTime() async throws {
        let s = try Scratch()
        let input = s.url("opus.mkv")
        try FF.ffmpeg(
            "-f", "lavfi", "-i", "testsrc2=s=64x48:r=10", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
            "-frames:v", "10", "-t", "1", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "libopus", input.path)
        #expect(try FF.stream(input, "a:0")["codec_name"] as? String == "opus")
        for (type, name) in [(AVFileType.mov, "out.mov"), (.mp4, "out.mp4")] {
            let output = s.url(name)
            let session = try await runExport(AVURLAsset(url: input), to: output, type: type, codec: type == .mov ? .prores : .h264)
            let audio = try FF.stream(output, "a:0")
            if type == .mov {
                #expect(audio["codec_name"] as? String == "aac", "\(audio)")
                #expect(session.notes.contains { $0.contains("opus audio cannot be copied into a QuickTime file") && $0.contains("AAC") }, "\(session.notes)")
                // ffmpeg decodes both: as many samples (within an AAC frame and its priming),
                // and a 440 Hz tone (rising zero crossings over 0.4 s in the middle).
                func pcm(_ url: URL, _ range: [String] = []) throws -> [Int16] {
                    let d = try FF.run("ffmpeg", ["-v", "error", "-nostdin", "-i", url.path, "-vn"] + range + ["-ac", "1", "-ar", "48000", "-f", "s16le", "-"])
                    return d.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
                }
                let (inCount, outCount) = (try pcm(input).count, try pcm(output).count)
                #expect(abs(inCount - outCount) <= 2048, "\(inCount) samples in, \(outCount) out")
                let middle = try pcm(output, ["-ss", "0.2", "-t", "0.4"])
                let crossings = zip(middle, middle.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
                #expect(middle.count == 19200 && abs(crossings - 176) <= 2, "\(crossings) rising zero crossings in 0.4 s")
            } else {
                // MP4 holds Opus: copied as it is.
                #expect(audio["codec_name"] as? String == "opus" && session.notes.isEmpty, "\(audio) \(session.notes)")
            }
        }
    }

    /// WebM: VP9 video with the Opus audio copied; AAC audio, which WebM cannot hold, is
    /// refused naming the codec and the container.
    @Test(.enabled(if: ContainerTests.libopus && VideoCodec.vp9.isAvailable, "needs ffmpeg with libopus and libvpx"))
    func webmHoldsVP9AndOpus() async throws {
        let s = try Scratch()
        let input = s.url("opus.mkv"), output = s.url("out.webm")
        try FF.ffmpeg(
            "-f", "lavfi", "-i", "testsrc2=s=64x48:r=10", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
            "-frames:v", "5", "-t", "0.5", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "libopus", input.path)
        try await runExport(AVURLAsset(url: input), to: output, type: .webm, codec: .vp9)
        let format = try FF.probe(output, ["-show_format"])["format"] as? [String: Any] ?? [:]
        #expect((format["format_name"] as? String)?.contains("webm") == true, "\(format)")
        #expect(try FF.stream(output)["codec_name"] as? String == "vp9")
        #expect(try FF.audioPacketHashes(output) == FF.audioPacketHashes(input), "the Opus packets are copied")
        #expect(try FF.frameTimes(output).count == 5)
        let aac = s.url("aac.mp4")
        try makeTestClip(aac, frames: 5, audio: true)
        await #expect {
            try await runExport(AVURLAsset(url: aac), to: s.url("aac.webm"), type: .webm, codec: .vp9)
        } throws: { e in
            "\(e)".contains("webm") && "\(e)".contains("aac audio")
        }
        #expect(!s.files.contains { $0.contains("aac.webm") }, "nothing left behind: \(s.files)")
    }
}
