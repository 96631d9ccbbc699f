import Cyanotype
import Foundation

/// One frame handed to a video composition's Core Image handler
/// (`AVAsynchronousCIImageFilteringRequest`): the source frame, upright, with its extent at
/// the origin, and the time it is shown. Call `finish(with:context:)` (or `finish(with:)` an
/// error) exactly once, from the handler or later from any thread; the next frame's handler
/// call waits for it.
public final class AVAsynchronousCIImageFilteringRequest: @unchecked Sendable {
    /// The frame, turned upright per the track's rotation, extent `(0, 0, width, height)`.
    public let sourceImage: CIImage
    /// When this frame is shown, on the composition's timeline.
    public let compositionTime: CMTime
    /// The size the composition renders at.
    public let renderSize: CGSize
    /// During the overlap of an `AVAsset.appending(_:overlap:)` asset: the next clip's frame,
    /// upright and scaled to `renderSize` (Cyanotype). Nil elsewhere.
    public let overlappingImage: CIImage?
    /// How far through the overlap this frame is, 0 to 1 (Cyanotype; 0 outside an overlap).
    public let overlapProgress: Double

    private let done: @Sendable (Result<(CIImage, CIContext?), any Error>) -> Void
    private let lock = NSLock()
    private var finished = false

    init(
        sourceImage: CIImage, compositionTime: CMTime, renderSize: CGSize, overlappingImage: CIImage?, overlapProgress: Double,
        done: @escaping @Sendable (Result<(CIImage, CIContext?), any Error>) -> Void
    ) {
        self.sourceImage = sourceImage
        self.compositionTime = compositionTime
        self.renderSize = renderSize
        self.overlappingImage = overlappingImage
        self.overlapProgress = overlapProgress
        self.done = done
    }

    private func complete(_ r: Result<(CIImage, CIContext?), any Error>) {
        lock.lock()
        let first = !finished
        finished = true
        lock.unlock()
        if first { done(r) }
    }

    /// The filtered frame; `context` renders it (nil: the export's own). Only the first
    /// `finish` of a request counts.
    public func finish(with filteredImage: CIImage, context: CIContext?) { complete(.success((filteredImage, context))) }
    /// Fails the frame, and with it the export or image request.
    public func finish(with error: any Error) { complete(.failure(error)) }
}

/// How an asset's frames are composed: here, a Core Image handler run on every frame
/// (`AVVideoComposition(asset:applyingCIFiltersWithHandler:)`).
///
/// The handler is called once per frame, in presentation order, never concurrently (it may
/// share one `CIFilter` across calls, as Apple's sample does), while decoding, rendering and
/// encoding of other frames run around it.
open class AVVideoComposition: @unchecked Sendable {
    typealias Handler = (AVAsynchronousCIImageFilteringRequest) -> Void
    /// The handler, called from one pipeline thread at a time (see the class comment).
    final class HandlerBox: @unchecked Sendable {
        let call: Handler
        init(_ call: @escaping Handler) { self.call = call }
    }
    let handler: HandlerBox?
    var storedRenderSize: CGSize
    var storedFrameDuration: CMTime
    var storedRenderScale: Float = 1

    init(handler: HandlerBox?, renderSize: CGSize, frameDuration: CMTime) {
        self.handler = handler
        storedRenderSize = renderSize
        storedFrameDuration = frameDuration
    }

    /// A composition that passes every frame of `asset` through `applier`. The render size is
    /// the video track's upright size; the frame duration its nominal frame rate's.
    public convenience init(asset: AVAsset, applyingCIFiltersWithHandler applier: @escaping (AVAsynchronousCIImageFilteringRequest) -> Void) {
        let (size, duration) = AVVideoComposition.defaults(for: asset)
        self.init(handler: HandlerBox(applier), renderSize: size, frameDuration: duration)
    }

    /// The asynchronous spelling (`AVVideoComposition.videoComposition(with:applyingCIFiltersWithHandler:)`):
    /// throws when the asset cannot be read.
    public static func videoComposition(with asset: AVAsset, applyingCIFiltersWithHandler applier: @escaping (AVAsynchronousCIImageFilteringRequest) -> Void) async throws
        -> AVVideoComposition
    {
        _ = try asset.mediaInfo()
        return AVVideoComposition(asset: asset, applyingCIFiltersWithHandler: applier)
    }

    static func defaults(for asset: AVAsset) -> (CGSize, CMTime) {
        guard let v = try? asset.mediaInfo().video else { return (.zero, .invalid) }
        let upright = v.rotation == 90 || v.rotation == 270 ? CGSize(width: v.height, height: v.width) : CGSize(width: v.width, height: v.height)
        let fd = v.frameRate > 0 ? CMTime(value: 1000, timescale: Int32(max(1, (v.frameRate * 1000).rounded()))) : CMTime(value: 1, timescale: 30)
        return (upright, fd)
    }

    /// The size frames are rendered at (the handler's output is cropped to it).
    open var renderSize: CGSize { storedRenderSize }
    /// The nominal duration of a frame (frames keep their own timestamps here).
    open var frameDuration: CMTime { storedFrameDuration }
    /// Accepted for compatibility (always 1 here).
    open var renderScale: Float { storedRenderScale }
    /// The track whose frames time the composition (the video track).
    open var sourceTrackIDForFrameTiming: CMPersistentTrackID { kCMPersistentTrackID_Invalid }
}

/// A video composition whose settings can change (`AVMutableVideoComposition`).
public final class AVMutableVideoComposition: AVVideoComposition, @unchecked Sendable {
    /// A composition that passes every frame of `asset` through `applier`.
    public convenience init(asset: AVAsset, applyingCIFiltersWithHandler applier: @escaping (AVAsynchronousCIImageFilteringRequest) -> Void) {
        let (size, duration) = AVVideoComposition.defaults(for: asset)
        self.init(handler: HandlerBox(applier), renderSize: size, frameDuration: duration)
    }
    /// The size frames are rendered at.
    public override var renderSize: CGSize {
        get { storedRenderSize }
        set { storedRenderSize = newValue }
    }
    /// The nominal duration of a frame.
    public override var frameDuration: CMTime {
        get { storedFrameDuration }
        set { storedFrameDuration = newValue }
    }
    /// Accepted for compatibility.
    public override var renderScale: Float {
        get { storedRenderScale }
        set { storedRenderScale = newValue }
    }
}
