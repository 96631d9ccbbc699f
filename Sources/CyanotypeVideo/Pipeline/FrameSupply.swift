import CFFmpeg
import Cyanotype
import Foundation

/// A frame of the composition's timeline, ready for the handler.
struct TimelineFrame: @unchecked Sendable {
    /// Upright, extent at the origin, at the timeline's frame size.
    let image: CIImage
    /// The next clip's frame during an overlap.
    let overlap: CIImage?
    let progress: Double
    /// When it is shown on the composition's timeline.
    let time: CMTime
    /// Its timestamp in the output's time base.
    let outPTS: Int64
    let duration: Int64
}

/// What a supply hands the pipeline.
enum SupplyItem: @unchecked Sendable {
    case frame(TimelineFrame)
    /// An audio packet to copy, with the amount (in its own time base) to take off its timestamps.
    case audio(Packet, stream: Int32, offset: Int64)
    var isFrame: Bool { if case .frame = self { return true }; return false }
}

/// The source side of an export: frames in presentation order and the audio to copy.
protocol FrameSupply: AnyObject, Sendable {
    func next() throws(VideoError) -> SupplyItem?
    /// The output video's time base and nominal frame rate.
    var timeBase: AVRational { get }
    var frameRate: AVRational { get }
    /// The upright frame size (before any scaling for the output).
    var size: (width: Int, height: Int) { get }
    /// Audio streams to copy (the source stream and the index its packets carry).
    var audioStreams: [(stream: UnsafeMutablePointer<AVStream>, index: Int32)] { get }
    /// Seconds of output, for progress.
    var duration: Double { get }
    /// Degrees clockwise the output must be shown at (kept rotation), else 0.
    var keptRotation: Int { get }
    /// Remarks for the user (audio dropped, ...).
    var notes: [String] { get }
}

/// The picture turned upright for a display rotation (degrees clockwise).
func upright(_ image: CIImage, rotation: Int, mirrored: Bool) -> CIImage {
    var out = image
    switch rotation {
    case 90: out = out.oriented(.right)
    case 180: out = out.oriented(.down)
    case 270: out = out.oriented(.left)
    default: break
    }
    if mirrored { out = out.oriented(.upMirrored) }
    return out
}

/// `image` scaled to fill `width` x `height` when its size differs (a stream that changes
/// size part way), at the origin.
func fitted(_ image: CIImage, width: Int, height: Int) -> CIImage {
    let e = image.extent
    guard e.width != CGFloat(width) || e.height != CGFloat(height), e.width > 0, e.height > 0 else { return image }
    let t = CGAffineTransform(translationX: -e.minX, y: -e.minY)
        .concatenating(CGAffineTransform(scaleX: CGFloat(width) / e.width, y: CGFloat(height) / e.height))
    return image.transformed(by: t).cropped(to: CGRect(x: 0, y: 0, width: width, height: height))
}

/// One file's frames, optionally cut to a time range (seconds on its own timeline).
final class FileSupply: FrameSupply, @unchecked Sendable {
    let reader: MediaReader
    let range: (start: Double, end: Double)?
    let applyRotation: Bool
    private let info: VideoStreamInfo
    private let startPTS: Int64
    private var lastPTS = Int64.min
    private var videoDone = false
    private var audioDone: Set<Int32> = []
    let notes: [String] = []

    init(url: URL, range: (start: Double, end: Double)?, audio: Bool, applyRotation: Bool, cancel: CancelFlag?) throws(VideoError) {
        reader = try MediaReader(url: url, audio: audio, cancel: cancel)
        info = reader.info
        self.range = range
        self.applyRotation = applyRotation
        let tb = info.timeBase
        if let r = range {
            startPTS = Int64(((info.startTime + r.start) / tb.double).rounded())
            if r.start > 0 { reader.seek(toSeconds: info.startTime + r.start) }
        } else {
            startPTS = 0
        }
    }

    var timeBase: AVRational { info.timeBase }
    var frameRate: AVRational {
        let s = reader.demuxer.stream(info.index).pointee
        if s.avg_frame_rate.num > 0 && s.avg_frame_rate.den > 0 { return s.avg_frame_rate }
        if s.r_frame_rate.num > 0 && s.r_frame_rate.den > 0 { return s.r_frame_rate }
        return AVRational(num: 30, den: 1)
    }
    var size: (width: Int, height: Int) {
        applyRotation && (info.rotation == 90 || info.rotation == 270) ? (info.height, info.width) : (info.width, info.height)
    }
    var keptRotation: Int { applyRotation ? 0 : info.rotation }
    var audioStreams: [(stream: UnsafeMutablePointer<AVStream>, index: Int32)] {
        reader.audioIndices.sorted().map { (reader.demuxer.stream($0), $0) }
    }
    var duration: Double {
        let total = info.declaredDuration ?? reader.demuxer.info().duration
        guard let r = range else { return total }
        return max(0, min(r.end, total) - r.start)
    }

    /// The image of a decoded frame, upright and at the track's size.
    func image(_ f: DecodedFrame) -> CIImage {
        var img = CIImage(planarBuffer: f.buffer)
        img = fitted(img, width: info.width, height: info.height)
        return applyRotation ? upright(img, rotation: info.rotation, mirrored: info.mirrored) : img
    }

    func next() throws(VideoError) -> SupplyItem? {
        while true {
            if videoDone && audioDone.count >= reader.audioIndices.count { return nil }
            guard let item = try reader.next() else { return nil }
            switch item {
            case .video(let f):
                if videoDone { continue }
                let t = f.seconds - info.startTime
                if let r = range {
                    if t < r.start - 1e-6 { continue }
                    if t >= r.end - 1e-6 {
                        videoDone = true
                        reader.skipsVideo = true
                        continue
                    }
                }
                var pts = f.pts - startPTS
                if pts <= lastPTS { pts = lastPTS + 1 }
                lastPTS = pts
                return .frame(
                    TimelineFrame(
                        image: image(f), overlap: nil, progress: 0, time: CMTime(seconds: t, preferredTimescale: 90_000),
                        outPTS: pts, duration: f.duration))
            case let .audio(p, s):
                guard let r = range else { return .audio(p, stream: s, offset: 0) }
                let st = reader.demuxer.stream(s).pointee
                let tb = st.time_base
                let pts = p.raw.pointee.pts
                guard pts != AV_NOPTS else { continue }
                let t = Double(pts) * tb.double - info.startTime
                if t < r.start - 1e-6 { continue }
                if t >= r.end - 1e-6 { audioDone.insert(s); continue }
                let offset = Int64(((info.startTime + r.start) / tb.double).rounded())
                return .audio(p, stream: s, offset: offset)
            }
        }
    }
}

/// Two files one after the other, overlapping by `overlap` seconds: during the overlap each
/// frame of the first carries the second's frame shown at the same moment.
final class AppendedSupply: FrameSupply, @unchecked Sendable {
    let first: FileSupply
    let second: FileSupply
    let overlap: Double
    private let overlapStart: Double
    private var phaseB = false
    private var current: DecodedFrame?
    private var peeked: DecodedFrame?
    private var secondEnded = false
    private var heldAudio: [SupplyItem] = []
    private let audioPaired: (first: Int32, second: Int32)?
    private var lastPTS = Int64.min
    private(set) var notes: [String] = []

    init(first a: URL, second b: URL, overlap: Double, audio: Bool, cancel: CancelFlag?) throws(VideoError) {
        first = try FileSupply(url: a, range: nil, audio: audio, applyRotation: true, cancel: cancel)
        second = try FileSupply(url: b, range: nil, audio: audio, applyRotation: true, cancel: cancel)
        let d1 = first.duration
        self.overlap = min(max(0, overlap), d1, second.duration)
        overlapStart = d1 - self.overlap
        var pair: (Int32, Int32)? = nil
        if audio, let sa = first.reader.audioIndices.min(), let sb = second.reader.audioIndices.min() {
            let pa = first.reader.demuxer.stream(sa).pointee, pb = second.reader.demuxer.stream(sb).pointee
            let ca = pa.codecpar!.pointee, cb = pb.codecpar!.pointee
            let sameExtra =
                ca.extradata_size == cb.extradata_size
                && (ca.extradata_size == 0 || memcmp(ca.extradata, cb.extradata, Int(ca.extradata_size)) == 0)
            if ca.codec_id == cb.codec_id, ca.sample_rate == cb.sample_rate, ca.ch_layout.nb_channels == cb.ch_layout.nb_channels,
                pa.time_base.num == pb.time_base.num, pa.time_base.den == pb.time_base.den, sameExtra
            {
                pair = (sa, sb)
            } else {
                notes.append("the two clips' audio differs in format, so the result has no audio (audio is copied, never re-encoded)")
            }
        } else if audio && (!first.reader.audioIndices.isEmpty || !second.reader.audioIndices.isEmpty) {
            notes.append("only one clip has audio, so the result has none")
        }
        audioPaired = pair
    }

    var timeBase: AVRational { first.timeBase }
    var frameRate: AVRational { first.frameRate }
    var size: (width: Int, height: Int) { first.size }
    var keptRotation: Int { 0 }
    var duration: Double { overlapStart + second.duration }
    var audioStreams: [(stream: UnsafeMutablePointer<AVStream>, index: Int32)] {
        guard let p = audioPaired else { return [] }
        return [(first.reader.demuxer.stream(p.first), p.first)]
    }

    /// The second clip's next frame, holding its audio for later.
    private func pullSecond() throws(VideoError) -> DecodedFrame? {
        while true {
            guard let item = try second.reader.next() else { secondEnded = true; return nil }
            switch item {
            case .video(let f): return f
            case let .audio(p, s): if let a = secondAudio(p, s) { heldAudio.append(a) }
            }
        }
    }

    private func secondAudio(_ p: Packet, _ s: Int32) -> SupplyItem? {
        guard let pair = audioPaired, s == pair.second, p.raw.pointee.pts != AV_NOPTS else { return nil }
        let tb = second.reader.demuxer.stream(s).pointee.time_base
        let t = Double(p.raw.pointee.pts) * tb.double - second.reader.info.startTime
        guard t >= overlap / 2 else { return nil }
        // Shown at overlapStart + t: the offset is negative (a shift later).
        return .audio(p, stream: pair.first, offset: -Int64((overlapStart / tb.double).rounded()))
    }

    private func secondTime(_ f: DecodedFrame) -> Double { f.seconds - second.reader.info.startTime }

    private func sized(_ img: CIImage) -> CIImage {
        let (w, h) = first.size
        let e = img.extent
        guard e.width > 0, e.height > 0 else { return img }
        if e.width == CGFloat(w) && e.height == CGFloat(h) { return img }
        // Fit inside, centred, over black.
        let s = min(CGFloat(w) / e.width, CGFloat(h) / e.height)
        let dx = (CGFloat(w) - e.width * s) / 2, dy = (CGFloat(h) - e.height * s) / 2
        let t = CGAffineTransform(scaleX: s, y: s).concatenating(CGAffineTransform(translationX: dx, y: dy))
        let rect = CGRect(x: 0, y: 0, width: w, height: h)
        return img.transformed(by: t).composited(over: CIImage(color: .black).cropped(to: rect)).cropped(to: rect)
    }

    private func stamp(_ seconds: Double) -> Int64 {
        var pts = Int64((seconds / timeBase.double).rounded())
        if pts <= lastPTS { pts = lastPTS + 1 }
        lastPTS = pts
        return pts
    }

    func next() throws(VideoError) -> SupplyItem? {
        while !phaseB {
            guard let item = try first.reader.next() else { phaseB = true; break }
            switch item {
            case let .audio(p, s):
                guard let pair = audioPaired, s == pair.first, p.raw.pointee.pts != AV_NOPTS else { continue }
                let tb = first.reader.demuxer.stream(s).pointee.time_base
                let t = Double(p.raw.pointee.pts) * tb.double - first.reader.info.startTime
                if t < overlapStart + overlap / 2 { return .audio(p, stream: s, offset: 0) }
            case .video(let f):
                let t = f.seconds - first.reader.info.startTime
                var over: CIImage? = nil
                var progress = 0.0
                if t >= overlapStart - 1e-6 && overlap > 0 {
                    let u = t - overlapStart
                    if current == nil {
                        if let p = peeked { current = p } else { current = try pullSecond() }
                        peeked = nil
                    }
                    while !secondEnded {
                        if peeked == nil { peeked = try pullSecond() }
                        guard let p = peeked, secondTime(p) <= u + 1e-6 else { break }
                        current = p
                        peeked = nil
                    }
                    over = current.map { sized(second.image($0)) }
                    progress = min(1, max(0, u / overlap))
                }
                return .frame(
                    TimelineFrame(
                        image: first.image(f), overlap: over, progress: progress,
                        time: CMTime(seconds: t, preferredTimescale: 90_000), outPTS: stamp(t), duration: 0))
            }
        }
        if !heldAudio.isEmpty { return heldAudio.removeFirst() }
        while true {
            let f: DecodedFrame
            if let p = peeked {
                f = p
                peeked = nil
            } else {
                guard !secondEnded else { return nil }
                guard let item = try second.reader.next() else { secondEnded = true; return nil }
                switch item {
                case let .audio(p, s):
                    if let a = secondAudio(p, s) { return a }
                    continue
                case .video(let v): f = v
                }
            }
            let u = secondTime(f)
            guard u >= overlap - 1e-6 else { continue }
            if !heldAudio.isEmpty { peeked = f; return heldAudio.removeFirst() }
            let t = overlapStart + u
            return .frame(
                TimelineFrame(
                    image: sized(second.image(f)), overlap: nil, progress: 0,
                    time: CMTime(seconds: t, preferredTimescale: 90_000), outPTS: stamp(t), duration: 0))
        }
    }
}
