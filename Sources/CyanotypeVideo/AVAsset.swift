import CFFmpeg
import Cyanotype
import Foundation

/// A media type (`AVMediaType`).
public struct AVMediaType: RawRepresentable, Hashable, Sendable {
    /// The media type's four-character code, e.g. `vide`.
    public let rawValue: String
    /// The media type with code `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The media type with code `rawValue` (AVFoundation's unlabelled spelling).
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// Video tracks (`vide`).
    public static let video = AVMediaType(rawValue: "vide")
    /// Audio tracks (`soun`).
    public static let audio = AVMediaType(rawValue: "soun")
}

/// Core Media's track identifier.
public typealias CMPersistentTrackID = Int32
/// Core Media's "no track" identifier.
public let kCMPersistentTrackID_Invalid: CMPersistentTrackID = 0

/// A property that can be loaded asynchronously (`AVAsyncProperty`): `try await asset.load(.duration)`.
public final class AVAsyncProperty<Root, Value>: @unchecked Sendable, CustomStringConvertible {
    let name: String
    let get: (Root) throws -> Value
    init(_ name: String, _ get: @escaping (Root) throws -> Value) {
        self.name = name
        self.get = get
    }
    /// The property's name, e.g. `duration`.
    public var description: String { name }
}

extension AVAsyncProperty where Root == AVAsset, Value == CMTime {
    /// The asset's duration.
    public static var duration: AVAsyncProperty<AVAsset, CMTime> { .init("duration") { try $0.mediaInfo().durationTime } }
}
extension AVAsyncProperty where Root == AVAsset, Value == [AVAssetTrack] {
    /// The asset's tracks.
    public static var tracks: AVAsyncProperty<AVAsset, [AVAssetTrack]> { .init("tracks") { try $0.loadedTracks() } }
}
extension AVAsyncProperty where Root == AVAsset, Value == CGAffineTransform {
    /// The asset's preferred transform (identity: rotation lives on the video track).
    public static var preferredTransform: AVAsyncProperty<AVAsset, CGAffineTransform> { .init("preferredTransform") { _ in .identity } }
}
extension AVAsyncProperty where Root == AVAsset, Value == Bool {
    /// Whether the asset can be read (it has a decodable video track).
    public static var isReadable: AVAsyncProperty<AVAsset, Bool> { .init("isReadable") { (try? $0.mediaInfo()) != nil } }
    /// Whether the asset can be exported.
    public static var isExportable: AVAsyncProperty<AVAsset, Bool> { .init("isExportable") { (try? $0.mediaInfo()) != nil } }
    /// Whether the asset can be played.
    public static var isPlayable: AVAsyncProperty<AVAsset, Bool> { .init("isPlayable") { (try? $0.mediaInfo()) != nil } }
}
extension AVAsyncProperty where Root == AVAssetTrack, Value == CGSize {
    /// The track's stored frame size (before its preferred transform).
    public static var naturalSize: AVAsyncProperty<AVAssetTrack, CGSize> { .init("naturalSize") { $0.naturalSize } }
}
extension AVAsyncProperty where Root == AVAssetTrack, Value == Float {
    /// Frames per second.
    public static var nominalFrameRate: AVAsyncProperty<AVAssetTrack, Float> { .init("nominalFrameRate") { $0.nominalFrameRate } }
    /// Bits per second.
    public static var estimatedDataRate: AVAsyncProperty<AVAssetTrack, Float> { .init("estimatedDataRate") { $0.estimatedDataRate } }
}
extension AVAsyncProperty where Root == AVAssetTrack, Value == CGAffineTransform {
    /// The transform that displays the track upright.
    public static var preferredTransform: AVAsyncProperty<AVAssetTrack, CGAffineTransform> { .init("preferredTransform") { $0.preferredTransform } }
}
extension AVAsyncProperty where Root == AVAssetTrack, Value == CMTimeRange {
    /// The span of the track.
    public static var timeRange: AVAsyncProperty<AVAssetTrack, CMTimeRange> { .init("timeRange") { $0.timeRange } }
}
extension AVAsyncProperty where Root == AVAssetTrack, Value == CMTime {
    /// The shortest frame duration.
    public static var minFrameDuration: AVAsyncProperty<AVAssetTrack, CMTime> { .init("minFrameDuration") { $0.minFrameDuration } }
}

/// A timed audiovisual resource (`AVAsset`): duration and tracks, read from the file's
/// headers on first use (`load(_:)` is the asynchronous spelling).
open class AVAsset: @unchecked Sendable {
    enum Source {
        case file(URL)
        case appended(AVAsset, AVAsset, overlap: CMTime)
    }
    let source: Source
    private let lock = NSLock()
    private var cached: Result<MediaInfo, VideoError>?
    private var cachedTracks: [AVAssetTrack]?

    init(source: Source) { self.source = source }

    /// An asset for the file at `url` (`AVAsset(url:)`).
    public convenience init(url: URL) { self.init(source: .file(url)) }

    /// The file's facts, read once (the header only).
    func mediaInfo() throws(VideoError) -> MediaInfo {
        lock.lock(); defer { lock.unlock() }
        if let cached { return try cached.get() }
        let r: Result<MediaInfo, VideoError>
        switch source {
        case .file(let url):
            r = Result { () throws(VideoError) -> MediaInfo in
                let d = try Demuxer(url: url, cancel: nil)
                let info = d.info()
                guard let v = info.video else { throw .noVideoStream(file: url.path) }
                guard v.width <= maximumFrameSide, v.height <= maximumFrameSide, v.width * v.height <= maximumFramePixels else {
                    throw .dimensionsTooLarge(file: url.path, width: v.width, height: v.height, limit: maximumFramePixels)
                }
                return info
            }
        case let .appended(a, b, overlap):
            r = Result { () throws(VideoError) -> MediaInfo in
                var first = try a.mediaInfo()
                let second = try b.mediaInfo()
                let d = first.videoDuration + second.videoDuration - max(0, overlap.seconds)
                first.duration = max(0, d)
                first.video?.declaredDuration = max(0, d)
                first.video?.declaredFrameCount = 0
                first.file = "\(first.file) + \(second.file)"
                return first
            }
        }
        cached = r
        return try r.get()
    }

    func loadedTracks() throws(VideoError) -> [AVAssetTrack] {
        let info = try mediaInfo()
        lock.lock(); defer { lock.unlock() }
        if let cachedTracks { return cachedTracks }
        var t: [AVAssetTrack] = []
        if let v = info.video { t.append(AVAssetTrack(asset: self, video: v, info: info)) }
        for a in info.audio { t.append(AVAssetTrack(asset: self, audio: a, info: info)) }
        cachedTracks = t
        return t
    }

    /// The duration (`.invalid` when the file cannot be read; `load(.duration)` says why).
    open var duration: CMTime { (try? mediaInfo().durationTime) ?? .invalid }
    /// The tracks (empty when the file cannot be read).
    open var tracks: [AVAssetTrack] { (try? loadedTracks()) ?? [] }
    /// The tracks of one media type.
    open func tracks(withMediaType mediaType: AVMediaType) -> [AVAssetTrack] { tracks.filter { $0.mediaType == mediaType } }
    /// The track with `trackID`, if any.
    open func track(withTrackID trackID: CMPersistentTrackID) -> AVAssetTrack? { tracks.first { $0.trackID == trackID } }
    /// Always identity: a video track's rotation is its own `preferredTransform`.
    open var preferredTransform: CGAffineTransform { .identity }
    /// The container, FFmpeg's name and description, e.g. ("mov,mp4,m4a,3gp,3g2,mj2", "QuickTime / MOV")
    /// (Cyanotype; nil when the file cannot be read).
    public var containerFormat: (name: String, description: String)? {
        (try? mediaInfo()).map { ($0.container, $0.containerLongName) }
    }
    /// The file's size in bytes (Cyanotype; 0 when unknown).
    public var fileSize: Int { (try? mediaInfo().fileSize) ?? 0 }
    /// Reads the header now, throwing the `VideoError` that makes the asset unreadable (Cyanotype).
    public func validate() throws { _ = try mediaInfo() }
    /// Whether the asset has a video track that can be decoded.
    open var isReadable: Bool { (try? mediaInfo()) != nil }
    /// Whether the asset can be exported: here, whenever it `isReadable`.
    open var isExportable: Bool { isReadable }
    /// Whether the asset can be played: here, whenever it `isReadable`.
    open var isPlayable: Bool { isReadable }

    /// Loads one property (`try await asset.load(.duration)`).
    public func load<T>(_ property: AVAsyncProperty<AVAsset, T>) async throws -> T { try property.get(self) }
    /// Loads several properties at once (`try await asset.load(.duration, .tracks)`).
    public func load<each T>(_ properties: repeat AVAsyncProperty<AVAsset, each T>) async throws -> (repeat each T) {
        (repeat try (each properties).get(self))
    }
    /// The tracks of one media type, loaded.
    public func loadTracks(withMediaType mediaType: AVMediaType) async throws -> [AVAssetTrack] {
        try loadedTracks().filter { $0.mediaType == mediaType }
    }
    /// The track with `trackID`, loaded.
    public func loadTrack(withTrackID trackID: CMPersistentTrackID) async throws -> AVAssetTrack? {
        try loadedTracks().first { $0.trackID == trackID }
    }

    /// This asset followed by `next`, the two overlapping by `overlap` (Cyanotype: AVFoundation
    /// builds this with `AVMutableComposition`). In a video composition over the result, each
    /// frame of the overlap carries the next clip's frame as
    /// `AVAsynchronousCIImageFilteringRequest.overlappingImage` and the overlap's progress
    /// (0 to 1) as `overlapProgress`, so any Core Image transition can join them. Audio is
    /// copied from the first clip up to the middle of the overlap and from the second after
    /// it, when both are in the same format (otherwise the result has no audio).
    public func appending(_ next: AVAsset, overlap: CMTime) -> AVAsset {
        AVAsset(source: .appended(self, next, overlap: overlap))
    }

    /// The file behind the asset (the first clip's for an appended one).
    var fileURL: URL {
        switch source {
        case .file(let u): return u
        case .appended(let a, _, _): return a.fileURL
        }
    }
    var displayName: String {
        switch source {
        case .file(let u): return u.path
        case let .appended(a, b, _): return "\(a.displayName) + \(b.displayName)"
        }
    }
}

/// An asset at a URL (`AVURLAsset`).
public final class AVURLAsset: AVAsset, @unchecked Sendable {
    /// Where the file is.
    public let url: URL
    /// An asset for the file at `url`; options are accepted and ignored (no network access).
    public init(url: URL, options: [String: Any]? = nil) {
        self.url = url
        super.init(source: .file(url))
    }
    /// The container types FFmpeg can read here (UTIs of the common ones).
    public static func audiovisualTypes() -> [AVFileType] { [.mp4, .mov, .m4v, .mkv, .webm] }
}

extension MediaInfo {
    /// The video's duration: the stream's own, else the container's.
    var videoDuration: Double { video?.declaredDuration ?? duration }
    var durationTime: CMTime {
        let d = duration > 0 ? duration : videoDuration
        return CMTime(seconds: d, preferredTimescale: 600)
    }
}

/// One track of an asset (`AVAssetTrack`).
public final class AVAssetTrack: @unchecked Sendable {
    /// The track's identifier (the stream index plus one).
    public let trackID: CMPersistentTrackID
    /// `.video` or `.audio`.
    public let mediaType: AVMediaType
    /// The stored frame size, before `preferredTransform` (zero for audio).
    public let naturalSize: CGSize
    /// Frames per second (0 for audio).
    public let nominalFrameRate: Float
    /// The transform that shows the frames upright (a rotation for phone clips), in Apple's
    /// convention (y down).
    public let preferredTransform: CGAffineTransform
    /// Where the track lies on the asset's timeline: its start and duration (timescale 600).
    public let timeRange: CMTimeRange
    /// Bits per second (0 when the container does not say).
    public let estimatedDataRate: Float
    /// The shortest frame duration (from the frame rate).
    public let minFrameDuration: CMTime
    /// The asset the track belongs to (held weakly, as in AVFoundation).
    public weak private(set) var asset: AVAsset?
    /// The codec's FFmpeg name, e.g. `h264`, `aac` (Cyanotype: Apple keeps it in format descriptions).
    public let codecName: String
    /// The video's colour tags as `CIYCbCrFormat` reads them, e.g. "bt709 tv bt709 bt709"
    /// (matrix, range, transfer, primaries; Cyanotype).
    public let colorDescription: String?
    /// Degrees the frames are turned clockwise for display (Cyanotype: 0, 90, 180 or 270).
    public let rotation: Int
    /// The decoded pixel layout's FFmpeg name, e.g. `yuv420p`, `yuv420p10le` (Cyanotype).
    public let pixelFormatName: String?
    /// Bits per sample of the video (Cyanotype; 0 for audio).
    public let bitDepth: Int
    /// Frames the container declares (Cyanotype; 0 when it does not say).
    public let declaredFrameCount: Int
    /// The audio channel layout, e.g. `stereo` (Cyanotype).
    public let channelLayout: String?
    /// Audio sample rate in Hz (Cyanotype; 0 for video).
    public let sampleRate: Double
    /// Audio channels (Cyanotype; 0 for video).
    public let channelCount: Int

    init(asset: AVAsset, video v: VideoStreamInfo, info: MediaInfo) {
        trackID = v.index + 1
        mediaType = .video
        naturalSize = CGSize(width: v.width, height: v.height)
        nominalFrameRate = Float(v.frameRate)
        let w = CGFloat(v.width), h = CGFloat(v.height)
        switch v.rotation {
        case 90: preferredTransform = CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: h, ty: 0)
        case 180: preferredTransform = CGAffineTransform(a: -1, b: 0, c: 0, d: -1, tx: w, ty: h)
        case 270: preferredTransform = CGAffineTransform(a: 0, b: -1, c: 1, d: 0, tx: 0, ty: w)
        default: preferredTransform = .identity
        }
        let d = v.declaredDuration ?? info.duration
        timeRange = CMTimeRange(start: CMTime(seconds: v.startTime, preferredTimescale: 600), duration: CMTime(seconds: d, preferredTimescale: 600))
        estimatedDataRate = Float(v.bitRate)
        minFrameDuration = v.frameRate > 0 ? CMTime(seconds: 1 / v.frameRate, preferredTimescale: 600) : .invalid
        self.asset = asset
        codecName = v.codecName
        let n = ColorTags.names(v.tags)
        colorDescription = "\(n.0) \(n.1) \(n.2) \(n.3)"
        rotation = v.rotation
        pixelFormatName = v.pixelFormat
        bitDepth = v.bitDepth
        declaredFrameCount = v.declaredFrameCount
        channelLayout = nil
        sampleRate = 0
        channelCount = 0
    }

    init(asset: AVAsset, audio a: AudioStreamInfo, info: MediaInfo) {
        trackID = a.index + 1
        mediaType = .audio
        naturalSize = .zero
        nominalFrameRate = 0
        preferredTransform = .identity
        timeRange = CMTimeRange(start: .zero, duration: CMTime(seconds: a.duration ?? info.duration, preferredTimescale: 600))
        estimatedDataRate = Float(a.bitRate)
        minFrameDuration = .invalid
        self.asset = asset
        codecName = a.codecName
        colorDescription = nil
        rotation = 0
        pixelFormatName = nil
        bitDepth = 0
        declaredFrameCount = 0
        channelLayout = a.channelLayout
        sampleRate = Double(a.sampleRate)
        channelCount = a.channels
    }

    /// Loads one property (`try await track.load(.naturalSize)`).
    public func load<T>(_ property: AVAsyncProperty<AVAssetTrack, T>) async throws -> T { try property.get(self) }
    /// Loads several properties at once.
    public func load<each T>(_ properties: repeat AVAsyncProperty<AVAssetTrack, each T>) async throws -> (repeat each T) {
        (repeat try (each properties).get(self))
    }
}

/// A container file type (`AVFileType`), by Apple's UTI.
public struct AVFileType: RawRepresentable, Hashable, Sendable {
    /// The file type's uniform type identifier, e.g. `public.mpeg-4`.
    public let rawValue: String
    /// The file type with identifier `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The file type with identifier `rawValue` (AVFoundation's unlabelled spelling).
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// MPEG-4 (`.mp4`).
    public static let mp4 = AVFileType(rawValue: "public.mpeg-4")
    /// QuickTime (`.mov`).
    public static let mov = AVFileType(rawValue: "com.apple.quicktime-movie")
    /// iTunes video (`.m4v`, an MPEG-4 file).
    public static let m4v = AVFileType(rawValue: "com.apple.m4v-video")
    /// Matroska (`.mkv`; Cyanotype: Apple has no Matroska writer). Holds every codec here,
    /// FFV1 included.
    public static let mkv = AVFileType(rawValue: "org.matroska.mkv")
    /// WebM (`.webm`; Cyanotype: Apple has no WebM writer): VP9 or AV1 video, Opus or Vorbis
    /// audio.
    public static let webm = AVFileType(rawValue: "org.webmproject.webm")
    /// HEIC still images (`public.heic`): AVFoundation's name for photo captures; no video
    /// is written to it here (an export to it fails with a typed error).
    public static let heic = AVFileType(rawValue: "public.heic")
    /// HEIF still images (`public.heif`), as `heic`.
    public static let heif = AVFileType(rawValue: "public.heif")
    /// JPEG still images (`public.jpeg`), as `heic`.
    public static let jpg = AVFileType(rawValue: "public.jpeg")

    /// The container's name for people ("QuickTime", "MP4", "Matroska", "WebM").
    var displayName: String {
        switch self {
        case .mp4, .m4v: return "MP4"
        case .mov: return "QuickTime"
        case .mkv: return "Matroska"
        case .webm: return "WebM"
        default: return rawValue
        }
    }

    /// The FFmpeg muxer that writes this type.
    var muxerName: String? {
        switch self {
        case .mp4, .m4v: return "mp4"
        case .mov: return "mov"
        case .mkv: return "matroska"
        case .webm: return "webm"
        default: return nil
        }
    }
    /// The type of a file name's extension (`.mp4`, `.mov`, `.m4v`, `.mkv`, `.webm`), or nil.
    public init?(pathExtension ext: String) {
        switch ext.lowercased() {
        case "mp4": self = .mp4
        case "mov", "qt": self = .mov
        case "m4v": self = .m4v
        case "mkv": self = .mkv
        case "webm": self = .webm
        default: return nil
        }
    }
}
