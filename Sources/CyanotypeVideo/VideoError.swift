import Foundation

/// Why a video could not be read or written. Every case names the file; none is ever a crash.
/// (AVFoundation reports these as `AVError` codes; here they are one typed enum.)
public enum VideoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file does not exist or cannot be opened.
    case cannotOpen(file: String, reason: String)
    /// The file has no bytes.
    case emptyFile(file: String)
    /// The file is not a container FFmpeg recognises, or its header is damaged or missing.
    case unrecognizedFormat(file: String, reason: String)
    /// The file holds no video stream.
    case noVideoStream(file: String)
    /// The video is in a codec (or pixel layout, or colour encoding) this build cannot decode.
    case unsupportedCodec(file: String, codec: String)
    /// The video claims a frame size beyond the limit (checked before anything is allocated).
    case dimensionsTooLarge(file: String, width: Int, height: Int, limit: Int)
    /// The data ends before the container says it should (truncated, or a lying header).
    case truncated(file: String, reason: String)
    /// Decoding failed part way.
    case decodeFailed(file: String, reason: String)
    /// The output could not be encoded or written.
    case encodeFailed(file: String, reason: String)
    /// The chosen encoder is not in this build of FFmpeg.
    case encoderUnavailable(String)
    /// The container cannot hold a stream of this codec (FFV1 in MP4, say).
    case codecNotAllowedInContainer(file: String, codec: String, container: String)
    /// A setting is out of range or inconsistent.
    case invalidSetting(String)
    /// The export session is missing its output URL or file type, or was started twice.
    case exportNotReady(String)
    /// The export was cancelled (`cancelExport()`).
    case cancelled
    /// No frame lies at or near the requested time.
    case noFrame(file: String, seconds: Double)
    /// The composition handler reported an error (`finish(with: Error)`).
    case compositionFailed(String)
    /// A frame could not be rendered.
    case renderFailed(String)
    /// FFmpeg's libraries (opened on first use) are not installed or cannot be loaded; the
    /// message names the library file and the loader's reason.
    case libraryUnavailable(String)

    /// A message a user can act on, naming the file when there is one.
    public var description: String {
        switch self {
        case let .cannotOpen(f, r): return "\(f): cannot open: \(r)"
        case let .emptyFile(f): return "\(f): the file is empty"
        case let .unrecognizedFormat(f, r): return "\(f): not a video file FFmpeg recognises (\(r))"
        case let .noVideoStream(f): return "\(f): the file has no video stream"
        case let .unsupportedCodec(f, c): return "\(f): unsupported video: \(c)"
        case let .dimensionsTooLarge(f, w, h, limit):
            return "\(f): frame size \(w)x\(h) is above the limit of \(limit) pixels per frame"
        case let .truncated(f, r): return "\(f): the file is truncated or damaged: \(r)"
        case let .decodeFailed(f, r): return "\(f): decoding failed: \(r)"
        case let .encodeFailed(f, r): return "\(f): encoding failed: \(r)"
        case let .encoderUnavailable(name): return "the encoder \(name) is not available in this build of FFmpeg"
        case let .codecNotAllowedInContainer(f, c, k): return "\(f): a \(k) file cannot hold \(c); choose another container (.mov or .mkv) or codec"
        case let .invalidSetting(s): return "invalid setting: \(s)"
        case let .exportNotReady(s): return "export not ready: \(s)"
        case .cancelled: return "the export was cancelled"
        case let .noFrame(f, s): return "\(f): no video frame at \(String(format: "%.3f", s)) s"
        case let .compositionFailed(s): return "the video composition failed: \(s)"
        case let .renderFailed(s): return "a frame could not be rendered: \(s)"
        case let .libraryUnavailable(s): return "\(s); install FFmpeg's libraries"
        }
    }
}
