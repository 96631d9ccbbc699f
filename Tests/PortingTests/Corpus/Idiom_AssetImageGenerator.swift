// Poster frames from a video with AVAssetImageGenerator, as media browsers make them.
import AVFoundation
import CoreImage
import Foundation
import Testing

private func posterFrame(of url: URL, at seconds: Double, maximumSize: CGSize) throws -> CGImage {
    let generator = AVAssetImageGenerator(asset: AVAsset(url: url))
    generator.appliesPreferredTrackTransform = true
    generator.maximumSize = maximumSize
    generator.requestedTimeToleranceBefore = .zero
    generator.requestedTimeToleranceAfter = .zero
    var actual = CMTime.zero
    return try generator.copyCGImage(at: CMTime(seconds: seconds, preferredTimescale: 600), actualTime: &actual)
}

@Suite struct AssetImageGeneratorIdiom {
    @Test(.enabled(if: Tools.path("ffmpeg") != nil, "ffmpeg missing"))
    func thePosterFrameFitsTheBoxAndShowsTheFrame() throws {
        let dir = try Tools.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("clip.mp4")
        try Tools.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-nostdin", "-f", "lavfi", "-i", "color=c=0x2255EE:s=64x32:r=10", "-frames:v", "10", "-c:v", "libx264", "-pix_fmt", "yuv444p", "-qp", "0",
                url.path,
            ])
        let frame = try posterFrame(of: url, at: 0.5, maximumSize: CGSize(width: 32, height: 32))
        // Oracle: 64 x 32 fitted in 32 x 32 keeps its aspect: 32 x 16.
        #expect(frame.width == 32 && frame.height == 16)
        var px = [UInt8](repeating: 0, count: 4)
        CIContext().render(
            CIImage(cgImage: frame), toBitmap: &px, rowBytes: 4, bounds: CGRect(x: 16, y: 8, width: 1, height: 1), format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)
        )
        for (i, v) in [0x22, 0x55, 0xEE].enumerated() { #expect(abs(Int(px[i]) - v) <= 4, "\(px)") }
    }
}
