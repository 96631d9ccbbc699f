// Video code as it is written for Apple's platforms, plus a file that imports both Apple's
// module names and Cyanotype's: no name may be ambiguous between them.
import AVFoundation
import CoreImage
import CoreMedia
import Cyanotype
import CyanotypeVideo
import Foundation
import Testing

/// A colour-negative video filter, the way AVFoundation examples write one.
private func invertVideo(at input: URL, to output: URL) async throws -> AVAssetExportSession.Status {
    let asset = AVURLAsset(url: input)
    let composition = try await AVVideoComposition.videoComposition(
        with: asset,
        applyingCIFiltersWithHandler: { request in
            let filter = CIFilter.colorInvert()
            filter.inputImage = request.sourceImage
            request.finish(with: filter.outputImage ?? request.sourceImage, context: nil)
        })
    guard let session = AVAssetExportSession(asset: asset, presetName: AVAssetExportPresetHighestQuality) else { return .failed }
    session.videoComposition = composition
    try await session.export(to: output, as: .mp4)
    return session.status
}

@Suite struct AVFoundationIdiomTests {
    @Test(.enabled(if: Tools.path("ffmpeg") != nil && Tools.path("ffprobe") != nil, "ffmpeg/ffprobe missing: scripts/setup.sh --test installs them"))
    func aVideoCompositionInvertsEveryFrame() async throws {
        let dir = try Tools.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("flat.mp4"), output = dir.appendingPathComponent("negative.mp4")
        // A flat sRGB colour (0x336699), 8 frames at 10 fps, made and read back by ffmpeg.
        try Tools.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-nostdin", "-f", "lavfi", "-i", "color=c=0x336699:s=32x16:r=10", "-frames:v", "8", "-c:v", "libx264",
                "-preset", "ultrafast", "-pix_fmt", "yuv444p", "-qp", "0", input.path,
            ])
        let status = try await invertVideo(at: input, to: output)
        #expect(status == .completed)

        let probe = try Tools.run(
            "ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries", "stream=width,height,nb_read_frames", "-of", "csv=p=0", output.path])
        #expect(String(decoding: probe, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "32,16,8")

        let rgb = [UInt8](try Tools.run("ffmpeg", ["-v", "error", "-nostdin", "-i", output.path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]))
        #expect(rgb.count == 32 * 16 * 3)
        let centre = (8 * 32 + 16) * 3
        // Core Image inverts in linear light: 1 - linear, encoded back to sRGB.
        for (i, v) in [0x33, 0x66, 0x99].enumerated() {
            let expected = SRGB.fromLinear(1 - SRGB.toLinear(Double(v) / 255)) * 255
            #expect(abs(Double(rgb[centre + i]) - expected) <= 6, "channel \(i): \(rgb[centre + i]) vs \(expected)")
        }
    }

    @Test func namesFromBothSpellingsAreTheSameDeclarations() {
        // CMTime from CoreMedia and CyanotypeVideo, CIImage from CoreImage and Cyanotype: one type each.
        let time: CMTime = CMTime(value: 3, timescale: 2)
        let sameTime: CyanotypeVideo.CMTime = time
        #expect(CMTimeGetSeconds(sameTime) == 1.5)
        let image: CoreImage.CIImage = CIImage(color: .red).cropped(to: CGRect(x: 0, y: 0, width: 2, height: 2))
        let sameImage: Cyanotype.CIImage = image
        #expect(sameImage.extent.size == CGSize(width: 2, height: 2))
    }
}
