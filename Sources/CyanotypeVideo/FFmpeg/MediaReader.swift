import CFFmpeg
import CFFmpegShim
import Cyanotype
import Foundation

/// What a reader hands on: a decoded video frame, or an audio packet to copy.
enum ReaderItem: @unchecked Sendable {
    case video(DecodedFrame)
    case audio(Packet, stream: Int32)
}

/// Demuxes one file and decodes its video stream: frames in presentation order, with the
/// audio packets of the streams asked for in between. At the end of a read from the start, it
/// checks the frames against what the container declared, so a truncated file or a lying
/// header is an error rather than a short video.
final class MediaReader: @unchecked Sendable {
    let demuxer: Demuxer
    let decoder: VideoDecoder
    let videoIndex: Int32
    let audioIndices: Set<Int32>
    let cancel: CancelFlag?
    private let packet = Packet()
    private var pending: Packet?
    private var sentEnd = false
    private var drained = false
    private var readError: Int32?
    private var sendErrors = 0
    private var seeked = false
    /// Video packets are dropped unread (the caller wants only the audio that is left).
    var skipsVideo = false {
        didSet { if skipsVideo { seeked = true } }
    }
    private(set) var framesDecoded = 0
    private(set) var lastFrameEnd: Double = 0
    var file: String { demuxer.file }
    var info: VideoStreamInfo { decoder.info }

    init(url: URL, audio: Bool, cancel: CancelFlag?, threads: Int = 0) throws(VideoError) {
        demuxer = try Demuxer(url: url, cancel: cancel)
        guard let v = demuxer.videoStreamIndex else { throw .noVideoStream(file: url.path) }
        videoIndex = v
        decoder = try VideoDecoder(demuxer: demuxer, stream: v, threads: threads)
        audioIndices = audio ? Set(demuxer.audioStreamIndices) : []
        self.cancel = cancel
        // Only the streams we use are read from the file.
        for i in 0..<Int32(demuxer.streamCount) where i != v && !audioIndices.contains(i) {
            demuxer.stream(i).pointee.discard = AVDISCARD_ALL
        }
    }

    /// Seeks to the keyframe at or before `seconds` (frames before it must then be skipped by
    /// the caller).
    func seek(toSeconds seconds: Double) {
        let tb = decoder.info.timeBase
        guard seconds > 0, tb.num > 0 else { return }
        let ts = Int64((seconds / tb.double).rounded(.down))
        if demuxer.seek(stream: videoIndex, to: ts) {
            decoder.flush()
            pending = nil
            sentEnd = false
            drained = false
            seeked = true
        }
    }

    /// The next frame or audio packet; nil at the end of the file.
    func next() throws(VideoError) -> ReaderItem? {
        while true {
            if cancel?.isSet == true { throw .cancelled }
            let received: DecodedFrame?
            do {
                received = try decoder.receive(drained: &drained)
            } catch .decodeFailed {
                // A frame that would not decode (damaged data): skipped, as players do; the
                // end-of-file check reports a file that lost frames.
                sendErrors += 1
                continue
            }
            if let f = received {
                framesDecoded += 1
                let end = Double(f.pts + max(f.duration, 1)) * f.timeBase.double
                lastFrameEnd = max(lastFrameEnd, end)
                return .video(f)
            }
            if drained {
                try checkComplete()
                return nil
            }
            if let p = pending {
                let r = decoder.send(p.raw)
                if r == AVERROR_EAGAIN_CODE { continue }
                pending = nil
                if r < 0 { sendErrors += 1 }
                continue
            }
            if sentEnd { continue }
            let rc = demuxer.read(packet.raw)
            if rc < 0 {
                if cancel?.isSet == true { throw .cancelled }
                if rc != AVERROR_EOF_CODE { readError = rc }
                _ = decoder.send(nil)
                sentEnd = true
                continue
            }
            defer { av_packet_unref(packet.raw) }
            let index = packet.raw.pointee.stream_index
            if index == videoIndex {
                if skipsVideo { continue }
                let r = decoder.send(packet.raw)
                if r == AVERROR_EAGAIN_CODE {
                    pending = Packet(referencing: packet.raw)
                } else if r < 0 {
                    // A damaged packet: skipped, as players do; the end-of-file check below
                    // reports a file that lost frames.
                    sendErrors += 1
                }
            } else if audioIndices.contains(index), let copy = Packet(referencing: packet.raw) {
                return .audio(copy, stream: index)
            }
        }
    }

    /// After the last frame of a read from the start: the frames must add up to what the
    /// container declared.
    private func checkComplete() throws(VideoError) {
        if framesDecoded == 0 {
            if let e = readError { throw .truncated(file: file, reason: "no frame could be read (\(averrorString(e)))") }
            throw .decodeFailed(file: file, reason: "no frame could be decoded" + (sendErrors > 0 ? " (\(sendErrors) damaged packets)" : ""))
        }
        guard !seeked else { return }
        let i = decoder.info
        if i.declaredFrameCount > 0, framesDecoded < i.declaredFrameCount - max(2, i.declaredFrameCount / 50) {
            throw .truncated(file: file, reason: "the container declares \(i.declaredFrameCount) frames but only \(framesDecoded) could be read")
        }
        let got = lastFrameEnd - i.startTime
        if let d = i.declaredDuration, got < d - max(1, 0.05 * d) {
            throw .truncated(file: file, reason: String(format: "the container declares %.2f s of video but the frames end at %.2f s", d, got))
        }
        // The container's own duration: the longest stream's, so some stream must reach it.
        // (Checked only when every audio stream states its length: Matroska's do not.)
        let whole = demuxer.info()
        let longest = max(got, whole.audio.compactMap(\.duration).max() ?? 0)
        if whole.audio.allSatisfy({ $0.duration != nil }), whole.duration > longest + max(1, 0.05 * longest) {
            throw .truncated(file: file, reason: String(format: "the container declares %.2f s but its streams end at %.2f s", whole.duration, longest))
        }
    }
}
