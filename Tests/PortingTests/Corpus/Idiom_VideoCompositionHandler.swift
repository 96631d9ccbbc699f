// A video filter written with completion handlers: videoComposition(with:applying...:completionHandler:),
// then exportAsynchronously, waited for with a semaphore as command-line tools do.
import AVFoundation
import CoreImage
import Foundation
import Testing

private final class Box<T>: @unchecked Sendable { var value: T?; init() {} }

private func grayscale(_ input: URL, to output: URL) -> (AVAssetExportSession.Status, Error?) {
    let asset = AVAsset(url: input)
    let done = DispatchSemaphore(value: 0)
    let made = Box<AVVideoComposition>()
    AVVideoComposition.videoComposition(
        with: asset,
        applyingCIFiltersWithHandler: { request in
            let mono = request.sourceImage.clampedToExtent().applyingFilter("CIPhotoEffectMono").cropped(to: request.sourceImage.extent)
            request.finish(with: mono, context: nil)
        },
        completionHandler: { composition, _ in
            made.value = composition
            done.signal()
        })
    guard done.wait(timeout: .now() + 60) == .success, let composition = made.value,
        let export = AVAssetExportSession(asset: asset, presetName: AVAssetExportPresetHighestQuality)
    else { return (.failed, nil) }
    export.outputURL = output
    export.outputFileType = .mp4
    export.videoComposition = composition
    let finished = DispatchSemaphore(value: 0)
    export.exportAsynchronously { finished.signal() }
    guard finished.wait(timeout: .now() + 120) == .success else { return (.failed, nil) }
    return (export.status, export.error)
}

@Suite struct VideoCompositionHandlerIdiom {
    @Test(.enabled(if: Tools.path("ffmpeg") != nil && Tools.path("ffprobe") != nil, "ffmpeg/ffprobe missing"))
    func everyFrameComesOutGrey() throws {
        let dir = try Tools.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.mp4"), output = dir.appendingPathComponent("out.mp4")
        try Tools.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-nostdin", "-f", "lavfi", "-i", "color=c=0xCC3322:s=32x16:r=10", "-frames:v", "6", "-c:v", "libx264", "-pix_fmt", "yuv444p", "-qp", "0",
                input.path,
            ])
        let (status, error) = grayscale(input, to: output)
        #expect(status == .completed, "\(String(describing: error))")
        let frames = String(
            decoding: try Tools.run(
                "ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", output.path]), as: UTF8.self)
        #expect(frames.trimmingCharacters(in: .whitespacesAndNewlines) == "6")
        let rgb = [UInt8](try Tools.run("ffmpeg", ["-v", "error", "-nostdin", "-i", output.path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]))
        let centre = (8 * 32 + 16) * 3
        // Grey: the three channels agree (within the encoder's rounding).
        #expect(abs(Int(rgb[centre]) - Int(rgb[centre + 1])) <= 3 && abs(Int(rgb[centre + 1]) - Int(rgb[centre + 2])) <= 3, "\(rgb[centre..<centre + 3])")
    }
}
