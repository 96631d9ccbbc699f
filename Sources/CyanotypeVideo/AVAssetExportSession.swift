import CFFmpeg
import Cyanotype
import Foundation

/// Apple's export preset names. What each does here (sizes fit inside the box, aspect kept,
/// never upscaled; quality is the encoder's CRF):
/// low: H.264 fitting 640x360, CRF 28; medium: H.264 fitting 1280x720, CRF 23; highest:
/// H.264 at the source size, CRF 18; `640x480` ... `3840x2160`: H.264 fitting that box, CRF 20;
/// HEVC presets: libx265, CRF 22; ProRes 422: prores_ks (the "LPCM" of Apple's name is not
/// applied: audio is copied as it is, like every preset here).
public let AVAssetExportPresetLowQuality = "AVAssetExportPresetLowQuality"
/// See `AVAssetExportPresetLowQuality`.
public let AVAssetExportPresetMediumQuality = "AVAssetExportPresetMediumQuality"
/// See `AVAssetExportPresetLowQuality`.
public let AVAssetExportPresetHighestQuality = "AVAssetExportPresetHighestQuality"
/// H.264 fitting 640x480.
public let AVAssetExportPreset640x480 = "AVAssetExportPreset640x480"
/// H.264 fitting 960x540.
public let AVAssetExportPreset960x540 = "AVAssetExportPreset960x540"
/// H.264 fitting 1280x720.
public let AVAssetExportPreset1280x720 = "AVAssetExportPreset1280x720"
/// H.264 fitting 1920x1080.
public let AVAssetExportPreset1920x1080 = "AVAssetExportPreset1920x1080"
/// H.264 fitting 3840x2160.
public let AVAssetExportPreset3840x2160 = "AVAssetExportPreset3840x2160"
/// HEVC at the source size.
public let AVAssetExportPresetHEVCHighestQuality = "AVAssetExportPresetHEVCHighestQuality"
/// HEVC fitting 1920x1080.
public let AVAssetExportPresetHEVC1920x1080 = "AVAssetExportPresetHEVC1920x1080"
/// HEVC fitting 3840x2160.
public let AVAssetExportPresetHEVC3840x2160 = "AVAssetExportPresetHEVC3840x2160"
/// ProRes 422 at the source size (QuickTime output only).
public let AVAssetExportPresetAppleProRes422LPCM = "AVAssetExportPresetAppleProRes422LPCM"

/// What a preset means here.
struct ExportPreset {
    var codec: VideoCodec
    var crf: Int?
    /// Long and short edge of the box the output fits in (nil: the source size).
    var box: (Int, Int)?

    static func named(_ name: String) -> ExportPreset? {
        switch name {
        case AVAssetExportPresetLowQuality: return ExportPreset(codec: .h264, crf: 28, box: (640, 360))
        case AVAssetExportPresetMediumQuality: return ExportPreset(codec: .h264, crf: 23, box: (1280, 720))
        case AVAssetExportPresetHighestQuality: return ExportPreset(codec: .h264, crf: 18, box: nil)
        case AVAssetExportPreset640x480: return ExportPreset(codec: .h264, crf: 20, box: (640, 480))
        case AVAssetExportPreset960x540: return ExportPreset(codec: .h264, crf: 20, box: (960, 540))
        case AVAssetExportPreset1280x720: return ExportPreset(codec: .h264, crf: 20, box: (1280, 720))
        case AVAssetExportPreset1920x1080: return ExportPreset(codec: .h264, crf: 20, box: (1920, 1080))
        case AVAssetExportPreset3840x2160: return ExportPreset(codec: .h264, crf: 20, box: (3840, 2160))
        case AVAssetExportPresetHEVCHighestQuality: return ExportPreset(codec: .hevc, crf: 22, box: nil)
        case AVAssetExportPresetHEVC1920x1080: return ExportPreset(codec: .hevc, crf: 22, box: (1920, 1080))
        case AVAssetExportPresetHEVC3840x2160: return ExportPreset(codec: .hevc, crf: 22, box: (3840, 2160))
        case AVAssetExportPresetAppleProRes422LPCM: return ExportPreset(codec: .prores, crf: nil, box: nil)
        default: return nil
        }
    }
    static let all = [
        AVAssetExportPresetLowQuality, AVAssetExportPresetMediumQuality, AVAssetExportPresetHighestQuality,
        AVAssetExportPreset640x480, AVAssetExportPreset960x540, AVAssetExportPreset1280x720, AVAssetExportPreset1920x1080,
        AVAssetExportPreset3840x2160, AVAssetExportPresetHEVCHighestQuality, AVAssetExportPresetHEVC1920x1080,
        AVAssetExportPresetHEVC3840x2160, AVAssetExportPresetAppleProRes422LPCM,
    ]
}

/// The size `w` x `h` fits at inside `box` (long edge, short edge), aspect kept, never larger,
/// even sides (4:2:0 video needs them).
func fittedSize(_ w: Int, _ h: Int, box: (Int, Int)?, maximumLongEdge: Int?) -> (Int, Int) {
    var s = 1.0
    if let box {
        let long = Double(max(w, h)), short = Double(min(w, h))
        s = min(s, Double(box.0) / long, Double(box.1) / short)
    }
    if let m = maximumLongEdge, m > 0 { s = min(s, Double(m) / Double(max(w, h))) }
    func even(_ v: Double) -> Int { max(2, Int(v.rounded()) / 2 * 2) }
    return s >= 1 ? (max(2, w / 2 * 2), max(2, h / 2 * 2)) : (even(Double(w) * s), even(Double(h) * s))
}

/// Exports an asset, through an optional video composition, to a movie file
/// (`AVAssetExportSession`). The video is re-encoded (frames decoded, composed, rendered and
/// encoded on overlapping threads), the audio copied packet for packet, cut to `timeRange`.
/// Timestamps are kept, so a variable-frame-rate source stays variable and every source frame
/// in the range is written once. The file appears at `outputURL` only when complete: it is
/// written beside it under a temporary name and renamed, and removed on failure or cancel.
public final class AVAssetExportSession: @unchecked Sendable {
    /// Export states (`AVAssetExportSession.Status`).
    public enum Status: Int, Sendable {
        /// No export has started.
        case unknown
        /// An export was asked for and its thread is starting.
        case waiting
        /// Frames are being written.
        case exporting
        /// The movie was written to `outputURL`.
        case completed
        /// The export stopped with an error (see `error`).
        case failed
        /// `cancelExport()` stopped the export, or cancelled it before it began.
        case cancelled
    }

    /// The asset being exported.
    public let asset: AVAsset
    /// The preset the session was created with (one of the `AVAssetExportPreset...` names).
    public let presetName: String
    /// Where the movie is written (an existing file there is replaced on success).
    public var outputURL: URL?
    /// `.mp4`, `.mov`, `.m4v` (and Cyanotype's `.mkv`).
    public var outputFileType: AVFileType?
    /// Applied to every frame; nil passes frames through (scaled to the preset's size).
    public var videoComposition: AVVideoComposition?
    /// The part of the asset to export (default: all of it).
    public var timeRange = CMTimeRange(start: .zero, duration: .positiveInfinity)
    /// Puts the MP4/QuickTime index at the front of the file.
    public var shouldOptimizeForNetworkUse = false

    // MARK: Cyanotype options (AVFoundation has no portable spelling for these)

    /// The encoder (default: the preset's, H.264 for most; `.rawvideo` writes frames uncompressed).
    public var videoCodec: VideoCodec
    /// Constant rate factor of x264, x265, SVT-AV1 and VP9 (lower is better; default: the
    /// preset's, else the encoder's usual). Ignored by ProRes and FFV1.
    public var quality: Int?
    /// The encoder's speed preset: x264/x265 `ultrafast` ... `placebo` (default `medium`),
    /// SVT-AV1 `0` ... `13` (default 8), VP9 `cpu-used` `-8` ... `8` or `realtime`/`good`/`best`,
    /// ProRes `proxy`/`lt`/`standard`/`hq`.
    public var encoderSpeed: String?
    /// 8 (default) or 10 bits per sample (H.264, HEVC, AV1, VP9: 4:2:0 10-bit; FFV1: 16-bit RGB).
    public var outputBitDepth = 8
    /// The longest output edge, in pixels (on top of the preset's box).
    public var maximumOutputEdge: Int?
    /// Keep the track's rotation as metadata instead of turning the pixels upright; frames are
    /// then composed as stored (default false: pixels upright, no rotation tag).
    public var keepsRotationMetadata = false
    /// Copy the audio streams (default true).
    public var includesAudio = true
    /// Encoder threads (0: the encoder's choice).
    public var encoderThreads = 0

    private let lock = NSLock()
    private var storedStatus = Status.unknown
    private var storedProgress: Float = 0
    private var storedError: (any Error)?
    private var cancel = CancelFlag()
    private var storedFrames = 0
    private var running: ExportPipeline?
    private var storedNotes: [String] = []

    /// A session for `asset` with one of the presets (nil for a preset this build does not
    /// have, or an encoder missing from FFmpeg).
    public init?(asset: AVAsset, presetName: String) {
        guard let p = ExportPreset.named(presetName), p.codec.isAvailable else { return nil }
        self.asset = asset
        self.presetName = presetName
        videoCodec = p.codec
    }

    /// Every preset name this build knows.
    public static func allExportPresets() -> [String] { ExportPreset.all.filter { ExportPreset.named($0)?.codec.isAvailable ?? false } }
    /// The presets that can export `asset` (all of them, when it has a readable video track).
    public static func exportPresets(compatibleWith asset: AVAsset) -> [String] { asset.isReadable ? allExportPresets() : [] }

    /// The file types this session can write.
    public var supportedFileTypes: [AVFileType] {
        switch videoCodec {
        case .prores, .ffv1: return [.mov, .mkv]
        case .rawvideo: return [.mkv]
        case .vp9, .av1: return [.mp4, .mov, .m4v, .mkv, .webm]
        default: return [.mp4, .mov, .m4v, .mkv]
        }
    }

    /// Where the export stands (safe to read from any thread).
    public var status: Status { lock.lock(); defer { lock.unlock() }; return storedStatus }
    /// 0 to 1 while exporting.
    public var progress: Float { lock.lock(); defer { lock.unlock() }; return storedProgress }
    /// Why the export failed (a `VideoError`), or nil.
    public var error: (any Error)? { lock.lock(); defer { lock.unlock() }; return storedError }
    /// Frames written by the last export (Cyanotype).
    public var framesWritten: Int {
        lock.lock(); defer { lock.unlock() }
        return running?.framesWritten ?? storedFrames
    }
    /// Remarks from the last export, e.g. audio that could not be kept (Cyanotype).
    public var notes: [String] { lock.lock(); defer { lock.unlock() }; return storedNotes }

    /// Starts the export on a thread of its own; `handler` runs once it has completed, failed
    /// or been cancelled (check `status` and `error`).
    public func exportAsynchronously(completionHandler handler: @escaping @Sendable () -> Void) {
        lock.lock()
        if storedStatus == .exporting || storedStatus == .waiting {
            // One export at a time: a second request completes at once, changing nothing.
            lock.unlock()
            Executor.startThread(name: "cyanotype-export-done", handler)
            return
        }
        storedStatus = .waiting
        storedProgress = 0
        storedError = nil
        if cancel.isSet { cancel = CancelFlag() }
        lock.unlock()
        Executor.startThread(name: "cyanotype-export", stackSize: 8 << 20) { [self] in
            let result = Result { () throws(VideoError) in try runExport() }
            lock.lock()
            switch result {
            case .success:
                storedStatus = .completed
                storedProgress = 1
            case .failure(let e):
                if case .cancelled = e { storedStatus = .cancelled } else { storedStatus = .failed }
                storedError = e
            }
            lock.unlock()
            handler()
        }
    }

    /// Exports and returns when done; throws `VideoError` (`.cancelled` after `cancelExport()`).
    public func export() async throws {
        if status == .exporting || status == .waiting { throw VideoError.exportNotReady("an export is already running") }
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
            exportAsynchronously {
                if let e = self.error { c.resume(throwing: e) } else { c.resume() }
            }
        }
    }

    /// Sets `outputURL` and `outputFileType`, then exports (the newer spelling, `export(to:as:)`).
    public func export(to url: URL, as fileType: AVFileType) async throws {
        outputURL = url
        outputFileType = fileType
        try await export()
    }

    /// Stops the export; the partial file is removed and `status` becomes `.cancelled`.
    public func cancelExport() {
        lock.lock(); defer { lock.unlock() }
        cancel.set()
        if storedStatus == .unknown { storedStatus = .cancelled; storedError = VideoError.cancelled }
    }

    private func runExport() throws(VideoError) {
        guard let url = outputURL else { throw .exportNotReady("outputURL is not set") }
        guard let type = outputFileType else { throw .exportNotReady("outputFileType is not set") }
        guard type.muxerName != nil else { throw .invalidSetting("output file type \(type.rawValue) (use .mp4, .mov, .m4v, .mkv or .webm)") }
        guard outputBitDepth == 8 || outputBitDepth == 10 else { throw .invalidSetting("outputBitDepth must be 8 or 10, not \(outputBitDepth)") }
        if let q = quality, !(0...63).contains(q) { throw .invalidSetting("quality (CRF) must be 0...63, not \(q)") }
        lock.lock()
        let cancel = self.cancel
        storedStatus = .exporting
        storedFrames = 0
        storedNotes = []
        lock.unlock()
        if cancel.isSet { throw .cancelled }
        let info = try asset.mediaInfo()
        guard let video = info.video else { throw .noVideoStream(file: asset.displayName) }
        for input in inputFiles where input.standardizedFileURL.resolvingSymlinksInPath() == url.standardizedFileURL.resolvingSymlinksInPath() {
            throw .invalidSetting("the output \(url.path) is also an input")
        }
        let supply: any FrameSupply
        switch asset.source {
        case .file(let u):
            var range: (Double, Double)? = nil
            if timeRange.isValid, timeRange.start.isNumeric, timeRange.start.seconds > 0 || timeRange.duration.isNumeric {
                let s = max(0, timeRange.start.seconds)
                let e = timeRange.duration.isNumeric ? s + max(0, timeRange.duration.seconds) : .infinity
                range = (s, e)
            }
            supply = try FileSupply(url: u, range: range, audio: includesAudio, applyRotation: !keepsRotationMetadata, cancel: cancel)
        case let .appended(a, b, overlap):
            guard timeRange.start == .zero && !timeRange.duration.isNumeric else {
                throw .invalidSetting("timeRange is not supported on an appended asset; cut the clips first")
            }
            supply = try AppendedSupply(
                first: a.fileURL, second: b.fileURL, overlap: overlap.isNumeric ? overlap.seconds : 0,
                audio: includesAudio, cancel: cancel)
        }
        _ = video
        let preset = ExportPreset.named(presetName)
        var source = videoComposition?.renderSize ?? CGSize(width: supply.size.width, height: supply.size.height)
        // A composition made for the asset is sized upright (its natural size turned by the
        // preferred transform); with the rotation kept as metadata the frames stay as stored, so
        // they are filtered and encoded at the stored size and the tag turns them on playback.
        if supply.keptRotation % 180 != 0, source == CGSize(width: supply.size.height, height: supply.size.width) {
            source = CGSize(width: supply.size.width, height: supply.size.height)
        }
        guard source.width >= 1, source.height >= 1, source.width <= CGFloat(maximumFrameSide), source.height <= CGFloat(maximumFrameSide) else {
            throw .invalidSetting("render size \(source)")
        }
        let (w, h) = fittedSize(Int(source.width), Int(source.height), box: preset?.box, maximumLongEdge: maximumOutputEdge)
        let settings = ExportSettings(
            codec: videoCodec, crf: quality ?? (videoCodec == preset?.codec ? preset?.crf : nil), speed: encoderSpeed,
            bitDepth: outputBitDepth, renderSize: source, outputWidth: w, outputHeight: h, fileType: type,
            fastStart: shouldOptimizeForNetworkUse, threads: encoderThreads)
        let pipeline = ExportPipeline(supply: supply, composition: videoComposition, settings: settings, target: url, cancel: cancel) { [self] p in
            lock.lock(); storedProgress = Float(p); lock.unlock()
        }
        lock.lock(); running = pipeline; lock.unlock()
        defer {
            lock.lock(); storedFrames = pipeline.framesWritten; storedNotes = supply.notes + pipeline.notes; running = nil; lock.unlock()
        }
        try pipeline.run()
    }

    private var inputFiles: [URL] {
        switch asset.source {
        case .file(let u): return [u]
        case let .appended(a, b, _): return [a.fileURL, b.fileURL]
        }
    }
}
