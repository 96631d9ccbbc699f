#if canImport(AVFoundation)
import AVFoundation
import CoreImage
#else
import CyanotypeVideo
import Cyanotype
#endif
import Foundation
import Testing

/// Apple's guide, "Processing video with Core Image" (Listing 1-4's shape): blur every frame
/// with a radius that grows with time, then export. The code between the markers is Apple's,
/// unchanged; only the imports above differ.
func applesListing(input: URL, output: URL, completion: @escaping @Sendable () -> Void) -> AVAssetExportSession {
    // --- Apple's code ---
    let asset = AVURLAsset(url: input)
    let filter = CIFilter(name: "CIGaussianBlur")!
    let composition = AVVideoComposition(
        asset: asset,
        applyingCIFiltersWithHandler: { request in
            let source = request.sourceImage.clampedToExtent()
            filter.setValue(source, forKey: kCIInputImageKey)
            filter.setValue(CMTimeGetSeconds(request.compositionTime) * 10.0, forKey: kCIInputRadiusKey)
            request.finish(with: filter.outputImage!.cropped(to: request.sourceImage.extent), context: nil)
        })
    let export = AVAssetExportSession(asset: asset, presetName: AVAssetExportPresetHighestQuality)!
    export.outputURL = output; export.outputFileType = .mp4; export.videoComposition = composition
    export.exportAsynchronously { /* export.status, export.error */ completion() }
    // --- end of Apple's code ---
    return export
}

@Suite("Apple's listing")
struct AppleListingTests {
    @Test(.enabled(if: FF.available, "ffmpeg/ffprobe missing: scripts/setup.sh --test installs them"))
    func listingRunsAndTheBlurGrows() throws {
        let s = try Scratch()
        let input = s.url("in.mp4"), output = s.url("out.mp4")
        try makeTestClip(input, width: 64, height: 48, fps: 10, frames: 20)
        let done = DispatchSemaphore(value: 0)
        let export = applesListing(input: input, output: output) { done.signal() }
        done.wait()
        #expect(export.status == .completed, "\(String(describing: export.error))")
        #expect(FileManager.default.fileExists(atPath: output.path))
        #expect(try FF.frameTimes(output).count == 20)
        // Radius 0 at the start, 19 at the end: the pictures get smoother.
        let first = sharpness(try libraryFrame(output, at: 0))
        let middle = sharpness(try libraryFrame(output, at: 0.5))
        let last = sharpness(try libraryFrame(output, at: 1.9))
        #expect(first > middle * 1.5 && middle > last, "sharpness \(first) \(middle) \(last)")
    }
}
