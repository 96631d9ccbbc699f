import CFFmpeg
import Foundation

/// Audio a container cannot hold as it is (Opus or FLAC in a QuickTime movie, FLAC in MP4),
/// decoded and encoded again with libavcodec's native AAC encoder: the one case where audio is
/// not copied packet for packet. Samples are gathered into the encoder's frame size (1024);
/// timestamps follow the first decoded frame and then the sample count, in 1/sample-rate.
final class AudioTranscoder: @unchecked Sendable {
    /// The rates AAC can be written at.
    static let aacRates: Set<Int32> = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000]

    let decoder: UnsafeMutablePointer<AVCodecContext>
    let encoder: UnsafeMutablePointer<AVCodecContext>
    let file: String
    /// What was re-encoded, for the user ("opus").
    let sourceCodec: String
    private let decoded = Frame()
    private let packet = Packet()
    /// Samples waiting for a whole encoder frame, one array per channel.
    private var pending: [[Float]]
    private var nextPTS: Int64? = nil

    /// A decoder for `source` and an AAC encoder at its rate and channels; throws when the
    /// audio cannot be decoded or AAC cannot hold it (naming the codec and the container).
    init(source: UnsafeMutablePointer<AVStream>, globalHeader: Bool, file: String, container: String) throws(VideoError) {
        self.file = file
        let par: UnsafeMutablePointer<AVCodecParameters> = source.pointee.codecpar!
        sourceCodec = String(cString: avcodec_get_name(par.pointee.codec_id))
        let refused = VideoError.codecNotAllowedInContainer(file: file, codec: "\(sourceCodec) audio", container: container)
        guard AudioTranscoder.aacRates.contains(par.pointee.sample_rate) else { throw refused }
        guard let dcodec = avcodec_find_decoder(par.pointee.codec_id), let d = avcodec_alloc_context3(dcodec) else { throw refused }
        decoder = d
        guard let ecodec = avcodec_find_encoder_by_name("aac"), let e = avcodec_alloc_context3(ecodec) else {
            var p: UnsafeMutablePointer<AVCodecContext>? = d
            avcodec_free_context(&p)
            throw refused
        }
        encoder = e
        pending = []
        var rc = avcodec_parameters_to_context(d, par)
        if rc >= 0 {
            d.pointee.pkt_timebase = source.pointee.time_base
            rc = avcodec_open2(d, dcodec, nil)
        }
        guard rc >= 0 else { throw .decodeFailed(file: file, reason: "\(sourceCodec) audio: \(averrorString(rc))") }
        let channels = d.pointee.ch_layout.nb_channels
        guard channels >= 1, channels <= 8 else { throw refused }
        e.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        e.pointee.sample_rate = d.pointee.sample_rate
        if d.pointee.ch_layout.order == AV_CHANNEL_ORDER_NATIVE {
            _ = av_channel_layout_copy(&e.pointee.ch_layout, &d.pointee.ch_layout)
        } else {
            av_channel_layout_default(&e.pointee.ch_layout, channels)
        }
        e.pointee.bit_rate = Int64(min(channels, 6)) * 64_000
        e.pointee.time_base = AVRational(num: 1, den: d.pointee.sample_rate)
        if globalHeader { e.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        rc = avcodec_open2(e, ecodec, nil)
        guard rc >= 0 else { throw .encodeFailed(file: file, reason: "AAC for the \(sourceCodec) audio: \(averrorString(rc))") }
        pending = Array(repeating: [], count: Int(channels))
    }

    deinit {
        var d: UnsafeMutablePointer<AVCodecContext>? = decoder
        avcodec_free_context(&d)
        var e: UnsafeMutablePointer<AVCodecContext>? = encoder
        avcodec_free_context(&e)
    }

    /// The encoder's time base (1/sample rate): the packets handed to `write` are in it.
    var timeBase: AVRational { encoder.pointee.time_base }

    /// Decodes `pkt` (nil: the end) and encodes every whole frame gathered, handing each
    /// packet to `write`; at the end the rest is encoded and the encoder drained.
    func feed(_ pkt: UnsafeMutablePointer<AVPacket>?, write: (UnsafeMutablePointer<AVPacket>) throws(VideoError) -> Void) throws(VideoError) {
        var sent = avcodec_send_packet(decoder, pkt)
        // A damaged packet is skipped, as a player would; the end is always drained.
        if sent < 0 && pkt != nil && sent != AVERROR_EAGAIN_CODE { return }
        while true {
            let rc = avcodec_receive_frame(decoder, decoded.raw)
            if rc < 0 {
                // A decoder that was full takes the packet once its frames are out.
                guard sent == AVERROR_EAGAIN_CODE else { break }
                sent = avcodec_send_packet(decoder, pkt)
                if sent < 0 { break }
                continue
            }
            try gather(decoded.raw)
            av_frame_unref(decoded.raw)
            try encodeWholeFrames(final: false, write: write)
        }
        if pkt == nil {
            try encodeWholeFrames(final: true, write: write)
            try drain(nil, write: write)
        }
    }

    /// The frame's samples appended to `pending` as floats.
    private func gather(_ f: UnsafeMutablePointer<AVFrame>) throws(VideoError) {
        let n = Int(f.pointee.nb_samples), channels = pending.count
        guard n > 0, Int(f.pointee.ch_layout.nb_channels) == channels, let planes = f.pointee.extended_data else { return }
        if nextPTS == nil {
            let pts = f.pointee.best_effort_timestamp != AV_NOPTS ? f.pointee.best_effort_timestamp : f.pointee.pts
            let tb = decoder.pointee.pkt_timebase
            nextPTS = pts == AV_NOPTS || tb.den == 0 ? 0 : Int64((Double(pts) * Double(tb.num) / Double(tb.den) * Double(encoder.pointee.sample_rate)).rounded())
        }
        let format = AVSampleFormat(rawValue: f.pointee.format)
        for c in 0..<channels {
            switch format {
            case AV_SAMPLE_FMT_FLTP:
                guard let p = planes[c] else { continue }
                p.withMemoryRebound(to: Float.self, capacity: n) { pending[c].append(contentsOf: UnsafeBufferPointer(start: $0, count: n)) }
            case AV_SAMPLE_FMT_FLT:
                guard let p = planes[0] else { continue }
                p.withMemoryRebound(to: Float.self, capacity: n * channels) { s in for i in 0..<n { pending[c].append(s[i * channels + c]) } }
            case AV_SAMPLE_FMT_S16P:
                guard let p = planes[c] else { continue }
                p.withMemoryRebound(to: Int16.self, capacity: n) { s in for i in 0..<n { pending[c].append(Float(s[i]) / 32768) } }
            case AV_SAMPLE_FMT_S16:
                guard let p = planes[0] else { continue }
                p.withMemoryRebound(to: Int16.self, capacity: n * channels) { s in for i in 0..<n { pending[c].append(Float(s[i * channels + c]) / 32768) } }
            case AV_SAMPLE_FMT_S32P:
                guard let p = planes[c] else { continue }
                p.withMemoryRebound(to: Int32.self, capacity: n) { s in for i in 0..<n { pending[c].append(Float(s[i]) / 2_147_483_648) } }
            case AV_SAMPLE_FMT_S32:
                guard let p = planes[0] else { continue }
                p.withMemoryRebound(to: Int32.self, capacity: n * channels) { s in
                    for i in 0..<n { pending[c].append(Float(s[i * channels + c]) / 2_147_483_648) }
                }
            default:
                throw .encodeFailed(file: file, reason: "the \(sourceCodec) audio decodes to a sample format the AAC conversion does not read")
            }
        }
    }

    /// Encodes `pending` in encoder-sized frames (and, when `final`, the short rest).
    private func encodeWholeFrames(final: Bool, write: (UnsafeMutablePointer<AVPacket>) throws(VideoError) -> Void) throws(VideoError) {
        let size = Int(encoder.pointee.frame_size > 0 ? encoder.pointee.frame_size : 1024)
        while let available = pending.first?.count, available >= size || (final && available > 0) {
            let n = min(size, available)
            let frame = Frame()
            frame.raw.pointee.nb_samples = Int32(n)
            frame.raw.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
            frame.raw.pointee.sample_rate = encoder.pointee.sample_rate
            _ = av_channel_layout_copy(&frame.raw.pointee.ch_layout, &encoder.pointee.ch_layout)
            let rc = av_frame_get_buffer(frame.raw, 0)
            guard rc >= 0, let planes = frame.raw.pointee.extended_data else { throw .encodeFailed(file: file, reason: "audio: out of memory") }
            for c in 0..<pending.count {
                guard let p = planes[c] else { continue }
                p.withMemoryRebound(to: Float.self, capacity: n) { d in pending[c].withUnsafeBufferPointer { d.update(from: $0.baseAddress!, count: n) } }
                pending[c].removeFirst(n)
            }
            frame.raw.pointee.pts = nextPTS ?? 0
            nextPTS = (nextPTS ?? 0) + Int64(n)
            try drain(frame.raw, write: write)
        }
    }

    /// Sends `frame` (nil: the end) to the encoder and writes every packet it has ready.
    private func drain(_ frame: UnsafeMutablePointer<AVFrame>?, write: (UnsafeMutablePointer<AVPacket>) throws(VideoError) -> Void) throws(VideoError) {
        let sent = avcodec_send_frame(encoder, frame)
        guard sent >= 0 || sent == AVERROR_EOF_CODE else { throw .encodeFailed(file: file, reason: "AAC: \(averrorString(sent))") }
        while true {
            let rc = avcodec_receive_packet(encoder, packet.raw)
            if rc == AVERROR_EAGAIN_CODE || rc == AVERROR_EOF_CODE { return }
            guard rc >= 0 else { throw .encodeFailed(file: file, reason: "AAC: \(averrorString(rc))") }
            defer { av_packet_unref(packet.raw) }
            try write(packet.raw)
        }
    }
}
