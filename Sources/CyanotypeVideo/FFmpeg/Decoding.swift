import CFFmpeg
import CFFmpegShim
import Cyanotype
import Foundation

/// A decoded video frame: its pixels as a planar buffer (holding the decoder's memory, no
/// copy) and when it is shown.
struct DecodedFrame: @unchecked Sendable {
    let buffer: CIPlanarImageBuffer
    /// Presentation time in the stream's time base.
    let pts: Int64
    /// Display duration in the stream's time base (0 when unknown).
    let duration: Int64
    let timeBase: AVRational
    var seconds: Double { Double(pts) * timeBase.double }
}

/// libavcodec's decoder for one video stream, with frame threading.
final class VideoDecoder: @unchecked Sendable {
    let ctx: UnsafeMutablePointer<AVCodecContext>
    let file: String
    let info: VideoStreamInfo
    private let converter: FrameConverter

    init(demuxer: Demuxer, stream index: Int32, threads: Int = 0) throws(VideoError) {
        file = demuxer.file
        let s = demuxer.stream(index)
        info = demuxer.videoInfo(index)
        let par: UnsafeMutablePointer<AVCodecParameters> = s.pointee.codecpar!
        let w = Int(par.pointee.width), h = Int(par.pointee.height)
        // Before anything is allocated for the frames.
        guard w <= maximumFrameSide, h <= maximumFrameSide, w * h <= maximumFramePixels else {
            throw .dimensionsTooLarge(file: file, width: w, height: h, limit: maximumFramePixels)
        }
        guard w > 0, h > 0 else { throw .unsupportedCodec(file: file, codec: "\(info.codecName) with no frame size in its header") }
        guard par.pointee.codec_id != AV_CODEC_ID_NONE, let codec = avcodec_find_decoder(par.pointee.codec_id) else {
            let tag = par.pointee.codec_tag
            let fourcc =
                tag == 0 ? "" : " (tag '" + String(decoding: withUnsafeBytes(of: tag.littleEndian) { Array($0) }.map { $0 >= 32 && $0 < 127 ? $0 : 63 }, as: UTF8.self) + "')"
            throw .unsupportedCodec(file: file, codec: "no decoder for \(info.codecName)\(fourcc)")
        }
        guard let c = avcodec_alloc_context3(codec) else { throw .decodeFailed(file: file, reason: "out of memory") }
        ctx = c
        var rc = avcodec_parameters_to_context(c, par)
        if rc >= 0 {
            c.pointee.pkt_timebase = s.pointee.time_base
            // Frame threads each hold a frame being decoded and delay output by one: at 4K a
            // frame is 12 MB, so big frames get one thread per core rather than libavcodec's
            // cores + 1 (peak memory, issue 14).
            let big = w * h > VideoDecoder.bigFramePixels
            c.pointee.thread_count = Int32(threads == 0 && big ? ProcessInfo.processInfo.activeProcessorCount : threads)
            c.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE
            rc = avcodec_open2(c, codec, nil)
        }
        if rc < 0 {
            var p: UnsafeMutablePointer<AVCodecContext>? = c
            avcodec_free_context(&p)
            throw .unsupportedCodec(file: file, codec: "\(info.codecName): \(averrorString(rc))")
        }
        converter = FrameConverter(file: file, codecParameters: par.pointee)
    }

    deinit {
        var p: UnsafeMutablePointer<AVCodecContext>? = ctx
        avcodec_free_context(&p)
    }

    /// Frames above this many pixels (a 4:2:0 frame of 4 Mpx is 6 MB) are held as few times as
    /// the pipeline allows: fewer decoder threads, one frame queued, frames handed over.
    static let bigFramePixels = 4_000_000

    /// Sends a packet (nil: end of stream, drain). Errors in one packet are returned, not thrown.
    func send(_ pkt: UnsafeMutablePointer<AVPacket>?) -> Int32 { avcodec_send_packet(ctx, pkt) }

    /// The next decoded frame, nil when the decoder needs input (`drained` tells whether it
    /// has finished for good).
    func receive(drained: inout Bool) throws(VideoError) -> DecodedFrame? {
        let frame = Frame()
        let rc = avcodec_receive_frame(ctx, frame.raw)
        if rc == AVERROR_EAGAIN_CODE { return nil }
        if rc == AVERROR_EOF_CODE { drained = true; return nil }
        if rc < 0 { throw .decodeFailed(file: file, reason: averrorString(rc)) }
        let f = frame.raw.pointee
        guard Int(f.width) <= maximumFrameSide, Int(f.height) <= maximumFrameSide, Int(f.width) * Int(f.height) <= maximumFramePixels else {
            throw .dimensionsTooLarge(file: file, width: Int(f.width), height: Int(f.height), limit: maximumFramePixels)
        }
        var pts = f.best_effort_timestamp
        if pts == AV_NOPTS { pts = f.pts }
        if pts == AV_NOPTS { pts = 0 }
        let buffer = try converter.planarBuffer(frame)
        return DecodedFrame(buffer: buffer, pts: pts, duration: max(0, f.pkt_duration), timeBase: info.timeBase)
    }

    func flush() { avcodec_flush_buffers(ctx) }
}

/// How a pixel format's planes map onto `CIYCbCrFormat`, when they do.
struct PlanarLayout: Equatable {
    var subsampling: CIYCbCrFormat.Subsampling
    var depth: Int
    var identity: Bool

    /// The layout of `pix` when its first three planes can be read as they are (planar, little
    /// endian, 8 to 16 bits in whole bytes, 4:2:0, 4:2:2 or 4:4:4, or planar G/B/R).
    static func native(_ pix: AVPixelFormat) -> PlanarLayout? {
        guard let d = av_pix_fmt_desc_get(pix)?.pointee else { return nil }
        let bad = UInt64(
            AV_PIX_FMT_FLAG_BE | AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_BITSTREAM | AV_PIX_FMT_FLAG_HWACCEL
                | AV_PIX_FMT_FLAG_FLOAT | AV_PIX_FMT_FLAG_BAYER)
        guard d.flags & UInt64(AV_PIX_FMT_FLAG_PLANAR) != 0, d.flags & bad == 0, d.nb_components >= 3 else { return nil }
        let comps = [d.comp.0, d.comp.1, d.comp.2]
        let depth = Int(comps[0].depth)
        guard (8...16).contains(depth) else { return nil }
        let step = depth > 8 ? 2 : 1
        for c in comps where Int(c.depth) != depth || Int(c.step) != step || c.shift != 0 || c.offset != 0 { return nil }
        let rgb = d.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0
        if rgb {
            guard comps.map(\.plane) == [2, 0, 1], d.log2_chroma_w == 0, d.log2_chroma_h == 0 else { return nil }
            return PlanarLayout(subsampling: .yuv444, depth: depth, identity: true)
        }
        guard comps.map(\.plane) == [0, 1, 2] else { return nil }
        switch (d.log2_chroma_w, d.log2_chroma_h) {
        case (1, 1): return PlanarLayout(subsampling: .yuv420, depth: depth, identity: false)
        case (1, 0): return PlanarLayout(subsampling: .yuv422, depth: depth, identity: false)
        case (0, 0): return PlanarLayout(subsampling: .yuv444, depth: depth, identity: false)
        default: return nil
        }
    }

    /// The planar format swscale converts `pix` to when it cannot be read as it is: the same
    /// family (Y'CbCr or RGB), subsampling where it is 4:2:0/4:2:2, 8 or 16 bits.
    static func fallback(for pix: AVPixelFormat) -> AVPixelFormat? {
        guard let d = av_pix_fmt_desc_get(pix)?.pointee else { return nil }
        if d.flags & UInt64(AV_PIX_FMT_FLAG_HWACCEL | AV_PIX_FMT_FLAG_BITSTREAM) != 0 { return nil }
        let deep = d.comp.0.depth > 8
        let rgb = d.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0 || d.flags & UInt64(AV_PIX_FMT_FLAG_PAL) != 0
        if rgb { return deep ? AV_PIX_FMT_GBRP16LE : AV_PIX_FMT_GBRP }
        if d.nb_components < 3 { return deep ? AV_PIX_FMT_YUV444P16LE : AV_PIX_FMT_YUV444P }
        switch (d.log2_chroma_w, d.log2_chroma_h) {
        case (1, 1): return deep ? AV_PIX_FMT_YUV420P16LE : AV_PIX_FMT_YUV420P
        case (1, 0): return deep ? AV_PIX_FMT_YUV422P16LE : AV_PIX_FMT_YUV422P
        default: return deep ? AV_PIX_FMT_YUV444P16LE : AV_PIX_FMT_YUV444P
        }
    }
}

/// Decoded frames -> `CIPlanarImageBuffer`s: the decoder's planes as they are when their
/// layout allows (no copy), else one swscale pass into a planar layout of the same family.
/// Colour comes from the frame's tags, then the stream's, then the guesses players make.
final class FrameConverter: @unchecked Sendable {
    let file: String
    let streamTags: ColorTags
    let codecID: AVCodecID
    private var sws: OpaquePointer?

    init(file: String, codecParameters p: AVCodecParameters) {
        self.file = file
        streamTags = ColorTags(
            matrix: p.color_space, range: p.color_range, transfer: p.color_trc, primaries: p.color_primaries,
            chromaLocation: p.chroma_location)
        codecID = p.codec_id
    }
    deinit { if let sws { sws_freeContext(sws) } }

    func planarBuffer(_ frame: Frame) throws(VideoError) -> CIPlanarImageBuffer {
        let pix = AVPixelFormat(rawValue: frame.raw.pointee.format)
        let pixName = av_get_pix_fmt_name(pix).map { String(cString: $0) } ?? "unknown"
        var source = frame
        var layout = PlanarLayout.native(pix)
        let positive = (0..<3).allSatisfy { cy_frame_linesize(frame.raw, $0) > 0 }
        if layout == nil || !positive {
            guard let target = PlanarLayout.fallback(for: pix), let l = PlanarLayout.native(target) else {
                throw .unsupportedCodec(file: file, codec: "pixel format \(pixName)")
            }
            source = try convert(frame, to: target)
            layout = l
        }
        guard let layout else { throw .unsupportedCodec(file: file, codec: "pixel format \(pixName)") }
        let format = try colorFormat(frame.raw.pointee, layout: layout, jpegRange: [AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P].contains(pix))
        let f = source.raw
        var planes: [(baseAddress: UnsafeMutableRawPointer, bytesPerRow: Int)] = []
        for i in 0..<3 {
            guard let p = cy_frame_data(f, Int32(i)) else { throw .decodeFailed(file: file, reason: "frame plane \(i) is missing") }
            planes.append((UnsafeMutableRawPointer(p), Int(cy_frame_linesize(f, Int32(i)))))
        }
        let keep = source
        do {
            return try CIPlanarImageBuffer(
                width: Int(f.pointee.width), height: Int(f.pointee.height), format: format, planes: planes,
                release: { withExtendedLifetime(keep) {} })
        } catch {
            throw .decodeFailed(file: file, reason: error.description)
        }
    }

    private func convert(_ frame: Frame, to target: AVPixelFormat) throws(VideoError) -> Frame {
        let f = frame.raw.pointee
        sws = sws_getCachedContext(
            sws, f.width, f.height, AVPixelFormat(rawValue: f.format), f.width, f.height, target,
            SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, nil, nil, nil)
        guard let sws else { throw .unsupportedCodec(file: file, codec: "pixel format \(f.format) (no conversion)") }
        let out = Frame()
        out.raw.pointee.width = f.width
        out.raw.pointee.height = f.height
        out.raw.pointee.format = target.rawValue
        guard av_frame_get_buffer(out.raw, 64) >= 0 else { throw .decodeFailed(file: file, reason: "out of memory") }
        let rc = sws_scale_frame(sws, out.raw, frame.raw)
        guard rc >= 0 else { throw .decodeFailed(file: file, reason: "pixel conversion: \(averrorString(rc))") }
        _ = av_frame_copy_props(out.raw, frame.raw)
        return out
    }

    private func colorFormat(_ f: AVFrame, layout: PlanarLayout, jpegRange: Bool) throws(VideoError) -> CIYCbCrFormat {
        func pick<T: Equatable>(_ a: T, _ b: T, unspecified: T) -> T { a != unspecified ? a : b }
        let space = pick(f.colorspace, streamTags.matrix, unspecified: AVCOL_SPC_UNSPECIFIED)
        let range = pick(f.color_range, streamTags.range, unspecified: AVCOL_RANGE_UNSPECIFIED)
        let trc = pick(f.color_trc, streamTags.transfer, unspecified: AVCOL_TRC_UNSPECIFIED)
        let prim = pick(f.color_primaries, streamTags.primaries, unspecified: AVCOL_PRI_UNSPECIFIED)
        let loc = pick(f.chroma_location, streamTags.chromaLocation, unspecified: AVCHROMA_LOC_UNSPECIFIED)
        var out = CIYCbCrFormat(subsampling: layout.subsampling, bitDepth: layout.depth)
        if layout.identity {
            out.matrix = .identity
        } else {
            switch space {
            case AVCOL_SPC_BT709, AVCOL_SPC_SMPTE240M: out.matrix = .itu709
            case AVCOL_SPC_BT470BG, AVCOL_SPC_SMPTE170M, AVCOL_SPC_FCC: out.matrix = .itu601
            case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: out.matrix = .itu2020
            case AVCOL_SPC_RGB: out.matrix = .identity
            case AVCOL_SPC_YCGCO, AVCOL_SPC_ICTCP, AVCOL_SPC_SMPTE2085, AVCOL_SPC_CHROMA_DERIVED_NCL, AVCOL_SPC_CHROMA_DERIVED_CL:
                let name = av_color_space_name(space).map { String(cString: $0) } ?? "\(space.rawValue)"
                throw .unsupportedCodec(file: file, codec: "colour matrix \(name)")
            default:
                // Untagged: HD and larger are BT.709, SD is BT.601 (what players assume).
                out.matrix = (f.width >= 1280 || f.height > 576) ? .itu709 : .itu601
            }
        }
        switch range {
        case AVCOL_RANGE_JPEG: out.range = .full
        case AVCOL_RANGE_MPEG: out.range = .video
        default: out.range = (jpegRange || layout.identity) ? .full : .video
        }
        switch trc {
        case AVCOL_TRC_SMPTE2084: out.transferFunction = .pq
        case AVCOL_TRC_ARIB_STD_B67: out.transferFunction = .hlg
        case AVCOL_TRC_LINEAR, AVCOL_TRC_LOG, AVCOL_TRC_LOG_SQRT, AVCOL_TRC_SMPTE428:
            let name = av_color_transfer_name(trc).map { String(cString: $0) } ?? "\(trc.rawValue)"
            throw .unsupportedCodec(file: file, codec: "transfer function \(name) (only SDR, PQ and HLG are read)")
        default: out.transferFunction = .sdr
        }
        out.primaries = prim == AVCOL_PRI_BT2020 ? .itu2020 : .itu709
        switch loc {
        case AVCHROMA_LOC_LEFT: out.chromaLocation = .left
        case AVCHROMA_LOC_CENTER: out.chromaLocation = .center
        case AVCHROMA_LOC_TOPLEFT: out.chromaLocation = .topLeft
        case AVCHROMA_LOC_TOP: out.chromaLocation = .top
        case AVCHROMA_LOC_BOTTOMLEFT: out.chromaLocation = .bottomLeft
        case AVCHROMA_LOC_BOTTOM: out.chromaLocation = .bottom
        default:
            // MPEG-2 and later put 4:2:0 chroma at the left; JPEG-style streams centre it.
            out.chromaLocation = (jpegRange || codecID == AV_CODEC_ID_MJPEG) ? .center : .left
        }
        return out
    }
}
