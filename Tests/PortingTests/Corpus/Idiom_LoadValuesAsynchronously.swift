// Pre-async AVFoundation: loadValuesAsynchronously(forKeys:) then statusOfValue(forKey:error:).
import AVFoundation
import Foundation
import Testing

private final class Flag: @unchecked Sendable { var called = false }

@Suite struct LoadValuesAsynchronouslyIdiom {
    @Test(.enabled(if: Tools.path("ffmpeg") != nil && Tools.path("ffprobe") != nil, "ffmpeg/ffprobe missing"))
    func durationLoadsAndMatchesFfprobe() throws {
        let dir = try Tools.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("clip.mov")
        try Tools.run("ffmpeg", ["-v", "error", "-y", "-nostdin", "-f", "lavfi", "-i", "testsrc=s=32x32:r=25", "-frames:v", "50", "-c:v", "libx264", url.path])
        let asset = AVURLAsset(url: url)
        let done = DispatchSemaphore(value: 0)
        let flag = Flag()
        asset.loadValuesAsynchronously(forKeys: ["duration", "tracks"]) {
            flag.called = true
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(flag.called)
        var error: NSError?
        #expect(asset.statusOfValue(forKey: "duration", error: &error) == .loaded)
        #expect(error == nil)
        let probed = String(decoding: try Tools.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", url.path]), as: UTF8.self)
        let seconds = try #require(Double(probed.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(abs(CMTimeGetSeconds(asset.duration) - seconds) < 0.05, "\(CMTimeGetSeconds(asset.duration)) vs \(seconds)")

        let missing = AVURLAsset(url: dir.appendingPathComponent("nothing.mov"))
        var why: NSError?
        #expect(missing.statusOfValue(forKey: "duration", error: &why) == .failed)
        #expect(why != nil)
    }
}
