import CFFmpeg
import CFFmpegShim
import Cyanotype
import Foundation

/// The video encoders Cyanotype drives (a Cyanotype option: AVFoundation picks the codec
/// from the preset). Each is one of Debian's libavcodec encoders.
public enum VideoCodec: String, Sendable, CaseIterable, CustomStringConvertible {
    /// H.264 / AVC through libx264.
    case h264
    /// H.265 / HEVC through libx265 (tagged `hvc1` in MP4 and QuickTime, as Apple plays it).
    case hevc
    /// AV1 through libsvtav1.
    case av1
    /// VP9 through libvpx.
    case vp9
    /// Apple ProRes 422 through FFmpeg's prores_ks (10-bit 4:2:2).
    case prores
    /// FFV1, lossless (version 3, sliced, so it encodes on every core); RGB by default, so
    /// rendered pixels are kept exactly.
    case ffv1
    /// Uncompressed 4:2:0 Y'CbCr (Matroska only): for piping into other tools, and for timing
    /// the pipeline without an encoder.
    case rawvideo

    /// The libavcodec encoder's name.
    public var encoderName: String {
        switch self {
        case .h264: return "libx264"
        case .hevc: return "libx265"
        case .av1: return "libsvtav1"
        case .vp9: return "libvpx-vp9"
        case .prores: return "prores_ks"
        case .ffv1: return "ffv1"
        case .rawvideo: return "rawvideo"
        }
    }
    /// The codec's name, its `rawValue` (e.g. `h264`), as the command line spells it.
    public var description: String { rawValue }

    /// The default quality (CRF) where the encoder has one.
    var defaultCRF: Int? {
        switch self {
        case .h264: return 20
        case .hevc: return 24
        case .av1: return 32
        case .vp9: return 32
        case .prores, .ffv1, .rawvideo: return nil
        }
    }
    /// Whether the encoder is present in this build of FFmpeg.
    public var isAvailable: Bool {
        (try? FFmpegLibraries.load()) != nil && avcodec_find_encoder_by_name(encoderName) != nil
    }
}

/// How frames are stored for the encoder: planar Y'CbCr (rendered through
/// `CIContext.render(_:to:)` into a planar buffer) or packed 8-bit RGB (`bgr0`, rendered as BGRA8).
enum FrameStorage: Equatable {
    case planar(CIYCbCrFormat, AVPixelFormat)
    case packedBGRX

    var pixelFormat: AVPixelFormat {
        switch self {
        case .planar(_, let p): return p
        case .packedBGRX: return AV_PIX_FMT_BGR0
        }
    }

    /// What `codec` stores at `bitDepth` (8, or 10 and above for more).
    static func forCodec(_ codec: VideoCodec, bitDepth: Int) -> FrameStorage {
        let deep = bitDepth > 8
        let f420 = CIYCbCrFormat(subsampling: .yuv420, bitDepth: deep ? 10 : 8, matrix: .itu709, range: .video, chromaLocation: .center)
        switch codec {
        case .h264, .hevc, .av1, .vp9, .rawvideo:
            return .planar(f420, deep ? AV_PIX_FMT_YUV420P10LE : AV_PIX_FMT_YUV420P)
        case .prores:
            return .planar(
                CIYCbCrFormat(subsampling: .yuv422, bitDepth: 10, matrix: .itu709, range: .video, chromaLocation: .center),
                AV_PIX_FMT_YUV422P10LE)
        case .ffv1:
            if deep {
                return .planar(CIYCbCrFormat(subsampling: .yuv444, bitDepth: 16, matrix: .identity, range: .full), AV_PIX_FMT_GBRP16LE)
            }
            return .packedBGRX
        }
    }
}

/// Everything the encoder needs besides the frames.
struct EncoderConfiguration {
    var codec: VideoCodec
    var width: Int
    var height: Int
    /// The source stream's time base: frame timestamps pass through unchanged.
    var timeBase: AVRational
    var frameRate: AVRational
    var crf: Int?
    /// The encoder's own speed preset name (x264/x265: ultrafast...placebo; SVT-AV1: 0-13;
    /// VP9: cpu-used -8...8, or realtime/good/best).
    var speed: String?
    var bitDepth: Int
    var threads: Int
}

/// One libavcodec video encoder; packets go to `sink` as they come out.
final class VideoEncoder: @unchecked Sendable {
    let ctx: UnsafeMutablePointer<AVCodecContext>
    let storage: FrameStorage
    let configuration: EncoderConfiguration
    let file: String
    private let packet = Packet()
    private var pool: [Frame] = []
    private let poolLock = NSLock()

    init(_ c: EncoderConfiguration, file: String, globalHeader: Bool) throws(VideoError) {
        self.file = file
        configuration = c
        if c.codec == .av1 && getenv("SVT_LOG") == nil { setenv("SVT_LOG", "1", 0) }  // SVT-AV1 banners off
        try FFmpegLibraries.load()
        guard let codec = avcodec_find_encoder_by_name(c.codec.encoderName) else { throw .encoderUnavailable(c.codec.encoderName) }
        guard c.width > 0, c.height > 0, c.width <= maximumFrameSide, c.height <= maximumFrameSide else {
            throw .invalidSetting("output size \(c.width)x\(c.height)")
        }
        storage = FrameStorage.forCodec(c.codec, bitDepth: c.bitDepth)
        if case .planar(let f, _) = storage, f.subsampling != .yuv444, c.width % 2 != 0 || c.height % 2 != 0 {
            if f.subsampling == .yuv420 || c.width % 2 != 0 {
                throw .invalidSetting("\(c.codec) needs an even frame size, not \(c.width)x\(c.height)")
            }
        }
        guard let ctx = avcodec_alloc_context3(codec) else { throw .encodeFailed(file: file, reason: "out of memory") }
        self.ctx = ctx
        ctx.pointee.width = Int32(c.width)
        ctx.pointee.height = Int32(c.height)
        ctx.pointee.pix_fmt = storage.pixelFormat
        ctx.pointee.time_base = c.timeBase
        ctx.pointee.framerate = c.frameRate
        ctx.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        ctx.pointee.thread_count = Int32(c.threads)
        if globalHeader { ctx.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        switch storage {
        case .packedBGRX:
            ctx.pointee.colorspace = AVCOL_SPC_RGB
            ctx.pointee.color_range = AVCOL_RANGE_JPEG
        case .planar(let f, _):
            ctx.pointee.colorspace = f.matrix == .identity ? AVCOL_SPC_RGB : AVCOL_SPC_BT709
            ctx.pointee.color_range = f.range == .full ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
            if f.matrix != .identity {
                ctx.pointee.chroma_sample_location = f.chromaLocation == .center ? AVCHROMA_LOC_CENTER : AVCHROMA_LOC_LEFT
            }
        }
        ctx.pointee.color_primaries = AVCOL_PRI_BT709
        ctx.pointee.color_trc = AVCOL_TRC_BT709
        var opts: OpaquePointer? = nil
        defer { av_dict_free(&opts) }
        func set(_ k: String, _ v: String) { av_dict_set(&opts, k, v, 0) }
        let crf = c.crf ?? c.codec.defaultCRF
        switch c.codec {
        case .h264:
            if let crf { set("crf", "\(crf)") }
            set("preset", c.speed ?? "medium")
        case .hevc:
            if let crf { set("crf", "\(crf)") }
            set("preset", c.speed ?? "medium")
            set("x265-params", "log-level=error")
        // Apple plays HEVC tagged hvc1.
        case .av1:
            if let crf { set("crf", "\(crf)") }
            if let s = c.speed { set("preset", s) } else { set("preset", "8") }
        case .vp9:
            if let crf { set("crf", "\(crf)"); ctx.pointee.bit_rate = 0 }
            set("row-mt", "1")
            if let s = c.speed {
                if ["realtime", "good", "best"].contains(s) { set("deadline", s) } else { set("cpu-used", s) }
            } else {
                set("deadline", "good"); set("cpu-used", "4")
            }
        case .prores:
            set("profile", c.speed.flatMap { ["proxy": "0", "lt": "1", "standard": "2", "hq": "3"][$0] } ?? "2")
            ctx.pointee.codec_tag = 0
        case .rawvideo:
            break
        case .ffv1:
            ctx.pointee.level = 3
            ctx.pointee.slices = 16
            ctx.pointee.thread_type = FF_THREAD_SLICE
        }
        if c.codec == .h264 || c.codec == .hevc, let s = c.speed {
            let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]
            guard presets.contains(s) else {
                throw .invalidSetting("speed '\(s)' for \(c.codec): one of \(presets.joined(separator: ", "))")
            }
        }
        let rc = avcodec_open2(ctx, codec, &opts)
        if rc < 0 {
            // Every property is set, so deinit frees the context.
            throw .encodeFailed(file: file, reason: "\(c.codec.encoderName) would not open: \(averrorString(rc))")
        }
    }

    deinit {
        var p: UnsafeMutablePointer<AVCodecContext>? = ctx
        avcodec_free_context(&p)
    }

    /// A writable frame of the output size and format, reused once the encoder has let go of it.
    func makeFrame() throws(VideoError) -> Frame {
        poolLock.lock()
        if let i = pool.firstIndex(where: { av_frame_is_writable($0.raw) != 0 }) {
            defer { poolLock.unlock() }
            return pool.remove(at: i)
        }
        poolLock.unlock()
        let f = Frame()
        f.raw.pointee.width = ctx.pointee.width
        f.raw.pointee.height = ctx.pointee.height
        f.raw.pointee.format = storage.pixelFormat.rawValue
        guard av_frame_get_buffer(f.raw, 64) >= 0 else { throw .encodeFailed(file: file, reason: "out of memory for a frame") }
        return f
    }
    /// Hands a frame back for reuse after `encode`.
    func recycle(_ f: Frame) {
        poolLock.lock(); defer { poolLock.unlock() }
        if pool.count < 2 { pool.append(f) }
    }

    /// The frame's planes as a buffer Cyanotype can render into (planar storage only).
    func planarBuffer(_ frame: Frame) throws(VideoError) -> CIPlanarImageBuffer {
        guard case .planar(let format, _) = storage else { throw .encodeFailed(file: file, reason: "not a planar frame") }
        var planes: [(baseAddress: UnsafeMutableRawPointer, bytesPerRow: Int)] = []
        for i in 0..<3 {
            guard let p = cy_frame_data(frame.raw, Int32(i)) else { throw .encodeFailed(file: file, reason: "missing plane") }
            planes.append((UnsafeMutableRawPointer(p), Int(cy_frame_linesize(frame.raw, Int32(i)))))
        }
        do {
            return try CIPlanarImageBuffer(
                width: Int(ctx.pointee.width), height: Int(ctx.pointee.height), format: format, planes: planes,
                release: nil)
        } catch {
            throw .encodeFailed(file: file, reason: error.description)
        }
    }

    /// Encodes one frame (nil: flush), passing every packet that comes out to `sink`.
    func encode(_ frame: Frame?, _ sink: (UnsafeMutablePointer<AVPacket>) throws(VideoError) -> Void) throws(VideoError) {
        let rc = avcodec_send_frame(ctx, frame?.raw)
        if rc < 0 && rc != AVERROR_EOF_CODE { throw .encodeFailed(file: file, reason: averrorString(rc)) }
        while true {
            let r = avcodec_receive_packet(ctx, packet.raw)
            if r == AVERROR_EAGAIN_CODE || r == AVERROR_EOF_CODE { return }
            if r < 0 { throw .encodeFailed(file: file, reason: averrorString(r)) }
            defer { av_packet_unref(packet.raw) }
            try sink(packet.raw)
        }
    }
}

/// A container being written to a temporary file beside the target, renamed into place by
/// `finish()`; any failure (or `abort()`) removes it, so a failed export leaves nothing.
final class Muxer: @unchecked Sendable {
    let oc: UnsafeMutablePointer<AVFormatContext>
    let target: URL
    let temporary: URL
    let containerName: String
    private var headerWritten = false
    private var finished = false
    private(set) var audioMap: [Int32: (out: Int32, sourceTimeBase: AVRational)] = [:]
    /// Audio streams re-encoded as AAC (by source index): those the container cannot copy.
    private var transcoders: [Int32: AudioTranscoder] = [:]
    var videoStream: Int32 = -1
    var videoTimeBase = AVRational(num: 1, den: 1)

    init(target: URL, formatName: String, cancel: CancelFlag?) throws(VideoError) {
        self.target = target
        containerName = formatName
        let dir = target.deletingLastPathComponent()
        temporary = dir.appendingPathComponent(".\(target.lastPathComponent).cyanotype-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp")
        try FFmpegLibraries.load()
        var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
        let rc = avformat_alloc_output_context2(&ctx, nil, formatName, temporary.path)
        guard rc >= 0, let ctx else { throw .encodeFailed(file: target.path, reason: "no \(formatName) muxer: \(averrorString(rc))") }
        oc = ctx
        if let cancel { cy_install_interrupt(ctx, cancel.raw) }
        var pb: UnsafeMutablePointer<AVIOContext>? = nil
        var cb = ctx.pointee.interrupt_callback
        // Recorded while it exists, so an interrupted command can remove it.
        TemporaryFiles.add(temporary.path)
        let o = avio_open2(&pb, temporary.path, AVIO_FLAG_WRITE, &cb, nil)
        guard o >= 0 else {
            // Every property is set, so deinit (abort) frees the context.
            throw .encodeFailed(file: target.path, reason: "cannot write in \(dir.path): \(averrorString(o))")
        }
        ctx.pointee.pb = pb
    }

    deinit {
        if !finished { abort() }
    }

    /// Whether this container can hold `codec`.
    func accepts(_ codec: AVCodecID) -> Bool {
        avformat_query_codec(oc.pointee.oformat, codec, FF_COMPLIANCE_NORMAL) == 1
    }

    var globalHeader: Bool { oc.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 }

    /// The video stream, with the encoder's parameters (and a display matrix, if kept).
    func addVideo(_ enc: VideoEncoder, rotationDegrees: Double?) throws(VideoError) {
        guard accepts(enc.ctx.pointee.codec_id) else {
            throw .codecNotAllowedInContainer(file: target.path, codec: enc.configuration.codec.rawValue, container: containerName)
        }
        guard let st = avformat_new_stream(oc, nil) else { throw .encodeFailed(file: target.path, reason: "out of memory") }
        _ = avcodec_parameters_from_context(st.pointee.codecpar, enc.ctx)
        st.pointee.time_base = enc.ctx.pointee.time_base
        st.pointee.avg_frame_rate = enc.ctx.pointee.framerate
        if enc.configuration.codec == .hevc, containerName == "mp4" || containerName == "mov" {
            st.pointee.codecpar.pointee.codec_tag = fourCC("hvc1")
        }
        if let r = rotationDegrees, r != 0 { _ = cy_stream_set_rotation(st, r) }  // degrees clockwise
        videoStream = st.pointee.index
    }

    /// Whether the audio codec `codec` can be copied into this container as it is: the muxer
    /// accepts it and its header can be written (FFmpeg's QuickTime writer takes Opus and FLAC
    /// only in MP4, its MP4 writer FLAC only as an experiment).
    func canCopyAudio(_ codec: AVCodecID) -> Bool {
        guard accepts(codec) else { return false }
        switch containerName {
        case "mov": return codec != AV_CODEC_ID_OPUS && codec != AV_CODEC_ID_FLAC
        case "mp4": return codec != AV_CODEC_ID_FLAC
        default: return true
        }
    }

    /// Whether audio this container cannot copy is re-encoded as AAC (MP4 and QuickTime; a
    /// WebM file holds Opus or Vorbis only, Matroska copies everything).
    var transcodesAudioToAAC: Bool { containerName == "mp4" || containerName == "mov" }

    /// The audio stream `source`, copied when the container can hold it, else re-encoded as
    /// AAC where the container takes AAC; returns the codec re-encoded (nil: copied). Throws
    /// `codecNotAllowedInContainer` when it can be neither.
    func addAudio(_ source: UnsafeMutablePointer<AVStream>, sourceIndex: Int32) throws(VideoError) -> String? {
        let codec = source.pointee.codecpar.pointee.codec_id
        if canCopyAudio(codec) {
            try addAudio(copying: source, sourceIndex: sourceIndex)
            return nil
        }
        guard transcodesAudioToAAC else {
            throw .codecNotAllowedInContainer(file: target.path, codec: "\(String(cString: avcodec_get_name(codec))) audio", container: containerName)
        }
        let t = try AudioTranscoder(source: source, globalHeader: globalHeader, file: target.path, container: containerName)
        guard let st = avformat_new_stream(oc, nil) else { throw .encodeFailed(file: target.path, reason: "out of memory") }
        _ = avcodec_parameters_from_context(st.pointee.codecpar, t.encoder)
        st.pointee.time_base = t.timeBase
        _ = av_dict_copy(&st.pointee.metadata, source.pointee.metadata, 0)
        st.pointee.disposition = source.pointee.disposition
        audioMap[sourceIndex] = (st.pointee.index, source.pointee.time_base)
        transcoders[sourceIndex] = t
        return t.sourceCodec
    }

    /// An audio stream copied from `source` (packets pass through unchanged).
    func addAudio(copying source: UnsafeMutablePointer<AVStream>, sourceIndex: Int32) throws(VideoError) {
        let par: UnsafeMutablePointer<AVCodecParameters> = source.pointee.codecpar!
        guard canCopyAudio(par.pointee.codec_id) else {
            let name = String(cString: avcodec_get_name(par.pointee.codec_id))
            throw .codecNotAllowedInContainer(file: target.path, codec: "\(name) audio", container: containerName)
        }
        guard let st = avformat_new_stream(oc, nil) else { throw .encodeFailed(file: target.path, reason: "out of memory") }
        _ = avcodec_parameters_copy(st.pointee.codecpar, par)
        st.pointee.codecpar.pointee.codec_tag = 0
        st.pointee.time_base = source.pointee.time_base
        _ = av_dict_copy(&st.pointee.metadata, source.pointee.metadata, 0)
        st.pointee.disposition = source.pointee.disposition
        audioMap[sourceIndex] = (st.pointee.index, source.pointee.time_base)
    }

    func writeHeader(fastStart: Bool) throws(VideoError) {
        var opts: OpaquePointer? = nil
        defer { av_dict_free(&opts) }
        if fastStart && (containerName == "mp4" || containerName == "mov") { av_dict_set(&opts, "movflags", "+faststart", 0) }
        let rc = avformat_write_header(oc, &opts)
        guard rc >= 0 else { throw .encodeFailed(file: target.path, reason: "header: \(averrorString(rc))") }
        headerWritten = true
        if videoStream >= 0 { videoTimeBase = oc.pointee.streams[Int(videoStream)]!.pointee.time_base }
    }

    /// A video packet from the encoder (timestamps in `from`).
    func writeVideo(_ pkt: UnsafeMutablePointer<AVPacket>, from tb: AVRational) throws(VideoError) {
        pkt.pointee.stream_index = videoStream
        av_packet_rescale_ts(pkt, tb, videoTimeBase)
        let rc = av_interleaved_write_frame(oc, pkt)
        guard rc >= 0 else { throw .encodeFailed(file: target.path, reason: averrorString(rc)) }
    }

    /// A copied audio packet, its timestamps shifted back by `offset` (in its own time base).
    func writeAudio(_ pkt: UnsafeMutablePointer<AVPacket>, source: Int32, offset: Int64) throws(VideoError) {
        guard let m = audioMap[source] else { return }
        if pkt.pointee.pts != AV_NOPTS { pkt.pointee.pts -= offset }
        if pkt.pointee.dts != AV_NOPTS { pkt.pointee.dts -= offset }
        if let t = transcoders[source] {
            try t.feed(pkt) { (out) throws(VideoError) in try writeTranscoded(out, stream: m.out, from: t.timeBase) }
            return
        }
        pkt.pointee.stream_index = m.out
        pkt.pointee.pos = -1
        let tb = oc.pointee.streams[Int(m.out)]!.pointee.time_base
        av_packet_rescale_ts(pkt, m.sourceTimeBase, tb)
        let rc = av_interleaved_write_frame(oc, pkt)
        guard rc >= 0 else { throw .encodeFailed(file: target.path, reason: "audio: \(averrorString(rc))") }
    }

    /// A packet of re-encoded audio (timestamps in `from`) into output stream `stream`.
    private func writeTranscoded(_ pkt: UnsafeMutablePointer<AVPacket>, stream: Int32, from tb: AVRational) throws(VideoError) {
        pkt.pointee.stream_index = stream
        av_packet_rescale_ts(pkt, tb, oc.pointee.streams[Int(stream)]!.pointee.time_base)
        let rc = av_interleaved_write_frame(oc, pkt)
        guard rc >= 0 else { throw .encodeFailed(file: target.path, reason: "audio: \(averrorString(rc))") }
    }

    /// Writes the trailer, closes the file and renames it over the target.
    func finish() throws(VideoError) {
        guard headerWritten else { throw .encodeFailed(file: target.path, reason: "nothing was written") }
        // The re-encoded audio's last samples, before the index is written.
        for (source, t) in transcoders.sorted(by: { $0.key < $1.key }) {
            guard let out = audioMap[source]?.out else { continue }
            try t.feed(nil) { (p) throws(VideoError) in try writeTranscoded(p, stream: out, from: t.timeBase) }
        }
        let rc = av_write_trailer(oc)
        var pb: UnsafeMutablePointer<AVIOContext>? = oc.pointee.pb
        let c = avio_closep(&pb)
        oc.pointee.pb = nil
        avformat_free_context(oc)
        finished = true
        guard rc >= 0, c >= 0 else {
            TemporaryFiles.discard(temporary.path)
            throw .encodeFailed(file: target.path, reason: "trailer: \(averrorString(rc < 0 ? rc : c))")
        }
        if TemporaryFiles.commit(temporary.path, to: target.path) != 0 {
            let why = String(cString: strerror(errno))
            TemporaryFiles.discard(temporary.path)
            throw .encodeFailed(file: target.path, reason: "cannot move the finished file into place: \(why)")
        }
    }

    /// Closes and deletes the temporary file.
    func abort() {
        guard !finished else { return }
        finished = true
        var pb: UnsafeMutablePointer<AVIOContext>? = oc.pointee.pb
        if pb != nil { avio_closep(&pb) }
        oc.pointee.pb = nil
        avformat_free_context(oc)
        TemporaryFiles.discard(temporary.path)
    }
}

func fourCC(_ s: String) -> UInt32 {
    let b = Array(s.utf8)
    return UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
}
