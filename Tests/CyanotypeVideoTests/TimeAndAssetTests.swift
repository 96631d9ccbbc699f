import Cyanotype
import CyanotypeVideo
import Foundation
import Testing

@Suite("CMTime")
struct CMTimeTests {
    @Test func arithmeticIsExact() {
        let a = CMTime(value: 1, timescale: 30), b = CMTime(value: 1, timescale: 25)
        let sum = a + b
        #expect(sum == CMTime(value: 11, timescale: 150))
        #expect(CMTimeGetSeconds(sum) == 11.0 / 150)
        #expect(a - a == .zero)
        #expect(CMTimeMultiply(a, multiplier: 30) == CMTime(value: 1, timescale: 1))
        #expect(CMTime(seconds: 2.5, preferredTimescale: 600).value == 1500)
        #expect(CMTimeCompare(CMTime(value: 1, timescale: 3), CMTime(value: 333, timescale: 1000)) == 1)
        #expect(CMTimeMakeWithSeconds(1.5, preferredTimescale: 10) == CMTimeMake(value: 15, timescale: 10))
    }

    @Test func specialTimes() {
        #expect(!CMTime.invalid.isValid)
        #expect(CMTime(value: 3, timescale: 0) == .invalid)
        #expect(CMTime.positiveInfinity > CMTime(value: Int64.max, timescale: 1))
        #expect(CMTime.negativeInfinity < .zero)
        #expect((CMTime.positiveInfinity + CMTime(value: 1, timescale: 1)).isPositiveInfinity)
        #expect(CMTime.invalid.seconds.isNaN)
        #expect(CMTime(seconds: .nan, preferredTimescale: 600) == .invalid)
        #expect([CMTime.positiveInfinity, .zero, .negativeInfinity].sorted() == [.negativeInfinity, .zero, .positiveInfinity])
    }

    /// Core Media's documented rules: equal times hash alike (Hashable's contract), epochs
    /// order before values, QuickTime rounding goes away from zero into a finer timescale.
    @Test func hashingEpochsAndQuickTimeRounding() {
        let half = CMTime(value: 1, timescale: 2), same = CMTime(value: 300, timescale: 600)
        #expect(half == same)
        #expect(Set([half, same]).count == 1)
        var rounded = CMTime.positiveInfinity
        rounded.flags.insert(.hasBeenRounded)
        #expect(rounded == .positiveInfinity)
        #expect(Set([rounded, CMTime.positiveInfinity]).count == 1)
        let later = CMTime(value: 1, timescale: 1, flags: [.valid], epoch: 1)
        #expect(CMTime(value: 5, timescale: 1) < later)
        #expect(later != CMTime(value: 1, timescale: 1))
        // 1/3 s into 1/1000: 333.33 -> 334 (finer: away from zero); 1000/3000 into 1/7 -> 2.33 -> 2.
        #expect(CMTime(value: 1, timescale: 3).convertScale(1000, method: .quickTime).value == 334)
        #expect(CMTime(value: -1, timescale: 3).convertScale(1000, method: .quickTime).value == -334)
        #expect(CMTime(value: 1000, timescale: 3000).convertScale(7, method: .quickTime).value == 2)
    }

    @Test func ranges() {
        let r = CMTimeRange(start: CMTime(value: 1, timescale: 1), duration: CMTime(value: 2, timescale: 1))
        #expect(r.end == CMTime(value: 3, timescale: 1))
        #expect(r.containsTime(CMTime(value: 1, timescale: 1)) && !r.containsTime(CMTime(value: 3, timescale: 1)))
        #expect(CMTimeRange(start: .zero, end: CMTime(value: 5, timescale: 2)).duration.seconds == 2.5)
        let i = r.intersection(CMTimeRange(start: CMTime(value: 2, timescale: 1), duration: CMTime(value: 5, timescale: 1)))
        #expect(i.start.seconds == 2 && i.duration.seconds == 1)
    }
}

@Suite("Asset and image generator")
struct AssetTests {
    @Test(.enabled(if: FF.available, "ffmpeg/ffprobe missing: scripts/setup.sh --test installs them"))
    func assetFacts() async throws {
        let s = try Scratch()
        let clip = s.url("in.mp4")
        try makeTestClip(clip, width: 64, height: 48, fps: 10, frames: 20, audio: true)
        let asset = AVURLAsset(url: clip)
        let (duration, tracks) = try await asset.load(.duration, .tracks)
        #expect(abs(duration.seconds - 2.0) < 0.05)
        let video = try #require(tracks.first { $0.mediaType == .video })
        #expect(try await video.load(.naturalSize) == CGSize(width: 64, height: 48))
        #expect(video.nominalFrameRate == 10)
        #expect(video.codecName == "h264")
        #expect(video.preferredTransform == .identity)
        let audio = try await asset.loadTracks(withMediaType: .audio)
        #expect(audio.count == 1 && audio[0].sampleRate == 44100 && audio[0].codecName == "aac")
    }

    @Test(.enabled(if: FF.available, "ffmpeg/ffprobe missing: scripts/setup.sh --test installs them"))
    func generatorGivesTheFrameShownAtATime() async throws {
        let s = try Scratch()
        let clip = s.url("in.mp4")
        // 4:4:4, so the comparison with ffmpeg's decode is not about chroma upsampling filters.
        try makeTestClip(
            clip, width: 64, height: 48, fps: 10, frames: 20,
            codec: ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv444p"])
        let gen = AVAssetImageGenerator(asset: AVURLAsset(url: clip))
        gen.requestedTimeToleranceBefore = .zero
        gen.requestedTimeToleranceAfter = .zero
        var actual = CMTime.invalid
        let image = try gen.copyCGImage(at: CMTime(seconds: 1.25, preferredTimescale: 600), actualTime: &actual)
        #expect(image.width == 64 && image.height == 48)
        #expect(abs(actual.seconds - 1.2) < 1e-6)
        // The same frame as ffmpeg decodes (frame 12), within rounding.
        let ours = try libraryFrame(clip, at: 1.2)
        let theirs = try FF.rgbFrame(clip, index: 12, width: 64, height: 48)
        var worst = 0
        for p in 0..<(64 * 48) { for c in 0..<3 { worst = max(worst, abs(Int(ours.bytes[p * 4 + c]) - Int(theirs[p * 3 + c]))) } }
        #expect(worst <= 2, "difference to ffmpeg's decode of frame 12")
        // Through a composition, scaled down.
        gen.videoComposition = AVVideoComposition(asset: AVURLAsset(url: clip)) { r in
            r.finish(with: r.sourceImage.applyingFilter("CIPhotoEffectMono"), context: nil)
        }
        gen.maximumSize = CGSize(width: 32, height: 32)
        let (small, _) = try await gen.image(at: CMTime(seconds: 0.5, preferredTimescale: 600))
        #expect(small.width == 32 && small.height == 24)
        #expect(throws: VideoError.self) { try gen.copyCGImage(at: CMTime(seconds: 9, preferredTimescale: 600), actualTime: nil) }
    }
}
