import CFFmpeg
import CFFmpegShim
import Cyanotype
import Foundation

/// FFmpeg's message for an error code.
func averrorString(_ code: Int32) -> String {
    var buf = [CChar](repeating: 0, count: 256)
    if av_strerror(code, &buf, buf.count) < 0 { return "error \(code)" }
    return buf.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
}

let AVERROR_EAGAIN_CODE = cy_averror_eagain()
let AVERROR_EOF_CODE = cy_averror_eof()
let AV_NOPTS = cy_nopts_value()

/// The most pixels a frame may have (checked on the header, before anything is allocated):
/// 8192 x 8192, a little above 8K UHD; each side at most 16384.
let maximumFramePixels = 8192 * 8192
let maximumFrameSide = 16384

/// A cancel flag the C interrupt hook reads from FFmpeg's threads.
final class CancelFlag: @unchecked Sendable {
    let raw: OpaquePointer
    init() {
        raw = cy_cancel_flag_new()
    }
    deinit { cy_cancel_flag_free(raw) }
    func set() { cy_cancel_flag_set(raw) }
    var isSet: Bool { cy_cancel_flag_get(raw) != 0 }
}

/// What one stream's colour tags say, with the guesses players make for untagged streams.
struct ColorTags: Sendable, Equatable {
    var matrix: AVColorSpace
    var range: AVColorRange
    var transfer: AVColorTransferCharacteristic
    var primaries: AVColorPrimaries
    var chromaLocation: AVChromaLocation

    static func names(_ t: ColorTags) -> (String, String, String, String) {
        func n(_ p: UnsafePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "unknown" }
        return (
            n(av_color_space_name(t.matrix)), n(av_color_range_name(t.range)), n(av_color_transfer_name(t.transfer)),
            n(av_color_primaries_name(t.primaries))
        )
    }
}

/// Facts about a video stream, read from the container and codec headers.
struct VideoStreamInfo: Sendable {
    var index: Int32
    var codecName: String
    var codecLongName: String
    var width: Int
    var height: Int
    /// Average frame rate (frames per second), 0 when unknown.
    var frameRate: Double
    var timeBase: AVRational
    /// Degrees to turn the decoded picture clockwise for display (0, 90, 180 or 270).
    var rotation: Int
    var mirrored: Bool
    var pixelFormat: String
    var bitDepth: Int
    var tags: ColorTags
    /// Frames the container declares (0 when it does not say).
    var declaredFrameCount: Int
    /// The stream's own duration in seconds, when the container gives one.
    var declaredDuration: Double?
    /// First timestamp in seconds (0 when unknown).
    var startTime: Double
    var bitRate: Int
    var profile: String?
}

/// Facts about an audio stream.
struct AudioStreamInfo: Sendable {
    var index: Int32
    var codecName: String
    var sampleRate: Int
    var channels: Int
    var channelLayout: String
    var timeBase: AVRational
    var duration: Double?
    var bitRate: Int
}

/// Everything `AVAsset` and `cyanotype info` report about a file.
struct MediaInfo: Sendable {
    var file: String
    var container: String
    var containerLongName: String
    /// Seconds; 0 when unknown.
    var duration: Double
    var bitRate: Int
    var fileSize: Int
    var video: VideoStreamInfo?
    var audio: [AudioStreamInfo]
}

// FFmpeg's rational (two Int32s) crosses the decode queue; the C header cannot say it is Sendable.
// swift-format-ignore: AvoidRetroactiveConformances
extension AVRational: @retroactive @unchecked Sendable {
    var double: Double { den == 0 ? 0 : Double(num) / Double(den) }
}

/// An open container: the format context, its streams, reading packets.
final class Demuxer: @unchecked Sendable {
    let fmt: UnsafeMutablePointer<AVFormatContext>
    let file: String
    let cancel: CancelFlag?

    init(url: URL, cancel: CancelFlag?) throws(VideoError) {
        try FFmpegLibraries.load()
        let path = url.path
        file = path
        self.cancel = cancel
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue else {
            throw .cannotOpen(file: path, reason: isDir.boolValue ? "it is a directory" : "no such file")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        if size == 0 { throw .emptyFile(file: path) }
        var ctx: UnsafeMutablePointer<AVFormatContext>? = avformat_alloc_context()
        guard ctx != nil else { throw .cannotOpen(file: path, reason: "out of memory") }
        if let cancel { cy_install_interrupt(ctx, cancel.raw) }
        let rc = avformat_open_input(&ctx, path, nil, nil)
        guard rc >= 0, let opened = ctx else {
            // avformat_open_input frees the context on failure.
            if cancel?.isSet == true { throw .cancelled }
            if rc == -EACCES { throw .cannotOpen(file: path, reason: averrorString(rc)) }
            throw .unrecognizedFormat(file: path, reason: averrorString(rc))
        }
        // (`fmt` is set last: a throwing init with every property set would run deinit, and
        // close the context twice.)
        // Sizes the header already states are checked before any frame is probed (and
        // allocated) by avformat_find_stream_info.
        for i in 0..<Int(opened.pointee.nb_streams) {
            guard let p = opened.pointee.streams[i]?.pointee.codecpar?.pointee, p.codec_type == AVMEDIA_TYPE_VIDEO else { continue }
            let w = Int(p.width), h = Int(p.height)
            if w > maximumFrameSide || h > maximumFrameSide || w * h > maximumFramePixels {
                var c: UnsafeMutablePointer<AVFormatContext>? = opened
                avformat_close_input(&c)
                throw .dimensionsTooLarge(file: path, width: w, height: h, limit: maximumFramePixels)
            }
        }
        let info = avformat_find_stream_info(opened, nil)
        if info < 0 {
            var c: UnsafeMutablePointer<AVFormatContext>? = opened
            avformat_close_input(&c)
            if cancel?.isSet == true { throw .cancelled }
            throw .unrecognizedFormat(file: path, reason: averrorString(info))
        }
        fmt = opened
    }

    deinit {
        var c: UnsafeMutablePointer<AVFormatContext>? = fmt
        avformat_close_input(&c)
    }

    var streamCount: Int { Int(fmt.pointee.nb_streams) }
    func stream(_ i: Int32) -> UnsafeMutablePointer<AVStream> { fmt.pointee.streams[Int(i)]! }

    /// The main video stream (FFmpeg's "best" choice, skipping cover art), or nil.
    var videoStreamIndex: Int32? {
        for i in 0..<Int32(streamCount) {
            let s = stream(i)
            guard s.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO else { continue }
            if s.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 { continue }
            let best = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
            return best >= 0 && stream(best).pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0 ? best : i
        }
        return nil
    }

    var audioStreamIndices: [Int32] {
        (0..<Int32(streamCount)).filter { stream($0).pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO }
    }

    /// The facts of the file (no decoding beyond what `avformat_find_stream_info` did).
    func info() -> MediaInfo {
        let f = fmt.pointee
        let name = f.iformat.map { String(cString: $0.pointee.name) } ?? "unknown"
        let long = f.iformat.flatMap { $0.pointee.long_name.map { String(cString: $0) } } ?? name
        let duration = f.duration > 0 && f.duration != AV_NOPTS ? Double(f.duration) / Double(AV_TIME_BASE) : 0
        let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        var info = MediaInfo(
            file: file, container: name, containerLongName: long, duration: duration.isFinite ? duration : 0,
            bitRate: Int(f.bit_rate), fileSize: size, video: nil, audio: [])
        if let v = videoStreamIndex { info.video = videoInfo(v) }
        for a in audioStreamIndices {
            let s = stream(a), p = s.pointee.codecpar!.pointee
            var layout = [CChar](repeating: 0, count: 64)
            var ch = p.ch_layout
            _ = av_channel_layout_describe(&ch, &layout, layout.count)
            info.audio.append(
                AudioStreamInfo(
                    index: a, codecName: String(cString: avcodec_get_name(p.codec_id)), sampleRate: Int(p.sample_rate),
                    channels: Int(p.ch_layout.nb_channels), channelLayout: layout.withUnsafeBufferPointer { String(cString: $0.baseAddress!) },
                    timeBase: s.pointee.time_base, duration: seconds(s.pointee.duration, s.pointee.time_base), bitRate: Int(p.bit_rate)))
        }
        return info
    }

    private func seconds(_ ts: Int64, _ tb: AVRational) -> Double? {
        guard ts != AV_NOPTS, ts > 0, tb.den != 0 else { return nil }
        let s = Double(ts) * tb.double
        return s.isFinite ? s : nil
    }

    func videoInfo(_ index: Int32) -> VideoStreamInfo {
        let s = stream(index), p = s.pointee.codecpar!.pointee
        var rate = s.pointee.avg_frame_rate.double
        if !(rate > 0 && rate < 10_000) { rate = s.pointee.r_frame_rate.double }
        if !(rate > 0 && rate < 10_000) { rate = 0 }
        var flipped: Int32 = 0
        let r = cy_stream_rotation(s, &flipped)
        // FFmpeg's angle is anticlockwise; display needs the picture turned clockwise by -r.
        var clockwise = Int((-r).rounded()) % 360
        if clockwise < 0 { clockwise += 360 }
        clockwise = (clockwise + 45) / 90 * 90 % 360
        let pix = AVPixelFormat(rawValue: p.format)
        let desc = av_pix_fmt_desc_get(pix)
        let depth = desc.map { Int($0.pointee.comp.0.depth) } ?? 8
        let tags = ColorTags(
            matrix: p.color_space, range: p.color_range, transfer: p.color_trc, primaries: p.color_primaries,
            chromaLocation: p.chroma_location)
        let codec = avcodec_descriptor_get(p.codec_id)
        let profileName = avcodec_profile_name(p.codec_id, p.profile).map { String(cString: $0) }
        let start = s.pointee.start_time != AV_NOPTS ? Double(s.pointee.start_time) * s.pointee.time_base.double : 0
        return VideoStreamInfo(
            index: index, codecName: String(cString: avcodec_get_name(p.codec_id)),
            codecLongName: codec.flatMap { $0.pointee.long_name.map { String(cString: $0) } } ?? "",
            width: Int(p.width), height: Int(p.height), frameRate: rate, timeBase: s.pointee.time_base,
            rotation: clockwise, mirrored: flipped != 0,
            pixelFormat: av_get_pix_fmt_name(pix).map { String(cString: $0) } ?? "unknown", bitDepth: depth, tags: tags,
            declaredFrameCount: Int(max(0, s.pointee.nb_frames)), declaredDuration: seconds(s.pointee.duration, s.pointee.time_base),
            startTime: start.isFinite ? start : 0, bitRate: Int(p.bit_rate), profile: profileName)
    }

    /// Reads the next packet into `pkt`: 0, AVERROR_EOF, or another negative error.
    func read(_ pkt: UnsafeMutablePointer<AVPacket>) -> Int32 { av_read_frame(fmt, pkt) }

    /// Seeks so that the next packets of `stream` start at the keyframe at or before `ts`.
    func seek(stream index: Int32, to ts: Int64) -> Bool {
        av_seek_frame(fmt, index, ts, AVSEEK_FLAG_BACKWARD) >= 0
    }
}

/// An owned packet (freed on deinit).
final class Packet: @unchecked Sendable {
    let raw: UnsafeMutablePointer<AVPacket>
    init() { raw = av_packet_alloc() }
    /// A new reference to `other`'s data.
    init?(referencing other: UnsafeMutablePointer<AVPacket>) {
        guard let p = av_packet_clone(other) else { return nil }
        raw = p
    }
    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = raw
        av_packet_free(&p)
    }
}

/// An owned frame (freed on deinit).
final class Frame: @unchecked Sendable {
    let raw: UnsafeMutablePointer<AVFrame>
    init() { raw = av_frame_alloc() }
    deinit {
        var f: UnsafeMutablePointer<AVFrame>? = raw
        av_frame_free(&f)
    }
}
