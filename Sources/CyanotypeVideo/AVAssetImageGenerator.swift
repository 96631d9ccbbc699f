import CFFmpeg
import Cyanotype
import Foundation

/// Single frames of an asset as images (`AVAssetImageGenerator`), optionally through a video
/// composition, so a filtered poster frame is one call.
public final class AVAssetImageGenerator: @unchecked Sendable {
    /// The asset frames are taken from.
    public let asset: AVAsset
    /// Whether frames are turned upright per the track's rotation (Apple's default: false).
    /// Frames through a `videoComposition` are always upright.
    public var appliesPreferredTrackTransform = false
    /// The largest size of the result (zero: the frame's own size); aspect is kept.
    public var maximumSize: CGSize = .zero
    /// How much earlier than the requested time the frame may be (default: any, which
    /// allows the nearest keyframe; pass `.zero` for the frame shown at exactly that time).
    public var requestedTimeToleranceBefore: CMTime = .positiveInfinity
    /// How much later than the requested time the frame may be.
    public var requestedTimeToleranceAfter: CMTime = .positiveInfinity
    /// Applied to the frame (its handler runs once per image).
    public var videoComposition: AVVideoComposition?
    private let context = CIContext(options: [.cacheIntermediates: false])

    /// A generator for `asset`'s frames with AVFoundation's defaults: frames as stored (no
    /// rotation), at full size, from the nearest keyframe.
    public init(asset: AVAsset) { self.asset = asset }

    /// The frame at `requestedTime` as an RGBA8 sRGB bitmap; `actualTime` receives the time of
    /// the frame used.
    public func copyCGImage(at requestedTime: CMTime, actualTime: UnsafeMutablePointer<CMTime>?) throws -> CGImage {
        let (image, time) = try ciImage(at: requestedTime)
        actualTime?.pointee = time
        guard let cg = context.createCGImage(image, from: image.extent) else {
            throw VideoError.renderFailed("\(asset.displayName) at \(requestedTime.seconds) s")
        }
        return cg
    }

    /// The asynchronous spelling: the image and the time of the frame used.
    public func image(at time: CMTime) async throws -> (image: CGImage, actualTime: CMTime) {
        var actual = CMTime.invalid
        let image = try copyCGImage(at: time, actualTime: &actual)
        return (image, actual)
    }

    /// The frame at `requestedTime` as a `CIImage` (composed, upright and sized as set), still
    /// lazy, for further filtering before it is rendered (Cyanotype).
    public func ciImage(at requestedTime: CMTime) throws(VideoError) -> (image: CIImage, actualTime: CMTime) {
        guard requestedTime.isNumeric else { throw .noFrame(file: asset.displayName, seconds: requestedTime.seconds) }
        let upright = appliesPreferredTrackTransform || videoComposition != nil
        let (frame, time, _) = try decodeFrame(at: requestedTime.seconds, upright: upright)
        var image = frame
        if let composition = videoComposition {
            let tf = TimelineFrame(image: frame, overlap: nil, progress: 0, time: CMTime(seconds: time, preferredTimescale: 90_000), outPTS: 0, duration: 0)
            image = try ExportPipeline.filtered(tf, composition: composition, renderSize: composition.renderSize).0
        }
        if maximumSize.width > 0 || maximumSize.height > 0 {
            let e = image.extent
            var s: CGFloat = 1
            if maximumSize.width > 0 { s = min(s, maximumSize.width / e.width) }
            if maximumSize.height > 0 { s = min(s, maximumSize.height / e.height) }
            if s < 1 {
                let to = CGSize(width: max(1, (e.width * s).rounded()), height: max(1, (e.height * s).rounded()))
                image = ExportPipeline.scaled(image, from: e.size, to: to)
            }
        }
        return (image, CMTime(seconds: time, preferredTimescale: 90_000))
    }

    /// Decodes forward from the keyframe before `t` to the frame the tolerances allow.
    private func decodeFrame(at t: Double, upright: Bool) throws(VideoError) -> (CIImage, Double, (width: Int, height: Int)) {
        let url: URL
        switch asset.source {
        case .file(let u): url = u
        case .appended: throw .invalidSetting("image generation from an appended asset")
        }
        let before = requestedTimeToleranceBefore.isNumeric ? max(0, requestedTimeToleranceBefore.seconds) : .infinity
        let after = requestedTimeToleranceAfter.isNumeric ? max(0, requestedTimeToleranceAfter.seconds) : .infinity
        for attempt in 0..<2 {
            let supply = try FileSupply(url: url, range: nil, audio: false, applyRotation: upright, cancel: nil)
            let start = supply.reader.info.startTime
            if attempt == 0 && t > 0 { supply.reader.seek(toSeconds: start + t) }
            var previous: (DecodedFrame, Double)? = nil
            var chosen: (DecodedFrame, Double)? = nil
            while let item = try supply.reader.next() {
                guard case .video(let f) = item else { continue }
                let ft = f.seconds - start
                if previous == nil && ft > t + 1e-6 && attempt == 0 && t > 0 {
                    // The seek landed after the time: decode from the start instead.
                    break
                }
                if abs(ft - t) < 1e-6 || (previous == nil && before.isInfinite && after.isInfinite && ft <= t + after) {
                    chosen = (f, ft)
                    break
                }
                if ft > t {
                    // The frame on screen at t is the previous one.
                    if let p = previous { chosen = p } else if ft - t <= after { chosen = (f, ft) }
                    break
                }
                previous = (f, ft)
            }
            if chosen == nil, let p = previous {
                // Past the last frame: it counts while it is still shown, or within tolerance.
                let shown = p.1 + Double(max(p.0.duration, 1)) * p.0.timeBase.double
                if t < shown || t - p.1 <= before { chosen = p }
            }
            if let (f, ft) = chosen { return (supply.image(f), ft, supply.size) }
            if previous != nil || attempt == 1 || t <= 0 { break }
        }
        throw .noFrame(file: asset.displayName, seconds: t)
    }
}
