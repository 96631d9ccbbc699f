import CFFmpeg
import CFFmpegShim
import Cyanotype
import Foundation

/// A FIFO between two pipeline threads. Only items that `count` (video frames) are capped,
/// so frames in flight, and with them memory, stay bounded however long the video is; the
/// small audio packets ride along between them.
final class BoundedQueue<T>: @unchecked Sendable {
    /// With `handOff`, a push of a counted item returns once a consumer has taken it, so the
    /// producer never holds a finished item and a new one at once.
    private let handOff: Bool
    private let capacity: Int
    private struct State {
        var pushed = 0
        var taken = 0
        /// Popped slots are emptied at once, so a frame is released as soon as it is taken.
        var items: [(T, Bool)?] = []
        var head = 0
        var counted = 0
        var closed = false
        var aborted = false
    }
    /// The queue's state, waited on through the engine's hand-off primitive.
    private let state = Handoff(State())

    init(capacity: Int, handOff: Bool = false) { self.capacity = max(1, capacity); self.handOff = handOff }

    /// Blocks while full (and, handing off, until the item is taken); false once the queue
    /// was aborted.
    func push(_ item: T, counts: Bool) -> Bool {
        let capacity = self.capacity
        // The item's number among counted ones (0 for the others); nil when aborted.
        let number = state.wait(
            until: { !counts || $0.counted < capacity || $0.aborted },
            thenChange: { (s: inout State) -> Int? in
                if s.aborted { return nil }
                s.items.append((item, counts))
                guard counts else { return 0 }
                s.counted += 1
                s.pushed += 1
                return s.pushed
            })
        guard let mine = number else { return false }
        guard counts && handOff else { return true }
        return state.wait(until: { $0.taken >= mine || $0.aborted }, then: { !$0.aborted || $0.taken >= mine })
    }
    /// Blocks until a counted item would be accepted without waiting (so a producer makes the
    /// next item only when it has somewhere to go); false once aborted.
    func waitForRoom() -> Bool {
        let capacity = self.capacity
        return state.wait(until: { $0.counted < capacity || $0.aborted }, then: { !$0.aborted })
    }
    /// The next item; nil once closed and empty, or aborted.
    func pop() -> T? {
        state.wait(
            until: { $0.head < $0.items.count || $0.closed || $0.aborted },
            thenChange: { (s: inout State) -> T? in
                if s.aborted || s.head == s.items.count { return nil }
                guard let (item, counts) = s.items[s.head] else { return nil }
                s.items[s.head] = nil
                s.head += 1
                if s.head == s.items.count {
                    s.items.removeAll(keepingCapacity: true)
                    s.head = 0
                } else if s.head > 64 && s.head * 2 > s.items.count {
                    s.items.removeFirst(s.head)
                    s.head = 0
                }
                if counts {
                    s.counted -= 1
                    s.taken += 1
                }
                return item
            })
    }
    /// No more items will come.
    func close() { state.update { $0.closed = true } }
    /// Stop: pending and future items are dropped, waiters wake.
    func abort() {
        state.update {
            $0.aborted = true
            $0.items.removeAll()
            $0.head = 0
        }
    }
}

/// What the pipeline does with the frames: the output file and how it is encoded.
struct ExportSettings {
    var codec: VideoCodec
    var crf: Int?
    var speed: String?
    var bitDepth: Int
    /// The size the composition's output is taken at (its render size, or the stored frame
    /// size when the rotation is kept as metadata), before scaling to the encoded size.
    var renderSize: CGSize
    /// The encoded frame size (the composition's output is scaled to it).
    var outputWidth: Int
    var outputHeight: Int
    var fileType: AVFileType
    var fastStart: Bool
    var threads: Int
    /// Frames in flight between decoding and filtering.
    var queueDepth: Int = 2
    /// Frames so big (4K) that each one held counts: one frame queued after decoding, and the
    /// rendered frame handed straight to the encoder, so the pipeline holds two decoded and
    /// two encoder frames at most (issue 14's 400 MB at 4K).
    var bigFrames: Bool {
        outputWidth * outputHeight > VideoDecoder.bigFramePixels
    }
}

/// Decode -> compose (the handler, then a render into the encoder's frame) -> encode + mux,
/// on three threads joined by bounded queues, so the three overlap; the handler runs on one
/// thread, one frame at a time, in presentation order.
final class ExportPipeline: @unchecked Sendable {
    let supply: any FrameSupply
    let composition: AVVideoComposition?
    let settings: ExportSettings
    let target: URL
    let cancel: CancelFlag
    let progress: @Sendable (Double) -> Void
    private let lock = NSLock()
    private var failure: VideoError?
    private var written = 0
    /// Frames encoded so far (read from any thread).
    var framesWritten: Int { lock.lock(); defer { lock.unlock() }; return written }
    let context = CIContext(options: [.cacheIntermediates: false])

    init(
        supply: any FrameSupply, composition: AVVideoComposition?, settings: ExportSettings, target: URL, cancel: CancelFlag,
        progress: @escaping @Sendable (Double) -> Void
    ) {
        self.supply = supply; self.composition = composition; self.settings = settings; self.target = target
        self.cancel = cancel; self.progress = progress
    }

    private var storedNotes: [String] = []
    /// What the export changed on its own (audio re-encoded), for the user.
    var notes: [String] { lock.lock(); defer { lock.unlock() }; return storedNotes }
    private func addNote(_ note: String) { lock.lock(); storedNotes.append(note); lock.unlock() }

    private func fail(_ e: VideoError) {
        lock.lock()
        if failure == nil { failure = e }
        lock.unlock()
    }
    private var failed: Bool { lock.lock(); defer { lock.unlock() }; return failure != nil }

    func run() throws(VideoError) {
        guard let muxerName = settings.fileType.muxerName else {
            throw .invalidSetting("output file type \(settings.fileType.rawValue) (use .mp4, .mov, .m4v, .mkv or .webm)")
        }
        let muxer = try Muxer(target: target, formatName: muxerName, cancel: cancel)
        do {
            try runStages(muxer)
        } catch {
            muxer.abort()
            throw error
        }
    }

    private func runStages(_ muxer: Muxer) throws(VideoError) {
        let enc = try VideoEncoder(
            EncoderConfiguration(
                codec: settings.codec, width: settings.outputWidth, height: settings.outputHeight,
                timeBase: supply.timeBase, frameRate: supply.frameRate, crf: settings.crf,
                speed: settings.speed, bitDepth: settings.bitDepth, threads: settings.threads),
            file: target.path, globalHeader: muxer.globalHeader)
        let kept = supply.keptRotation
        try muxer.addVideo(enc, rotationDegrees: kept == 0 ? nil : Double(kept))
        for a in supply.audioStreams {
            if let codec = try muxer.addAudio(a.stream, sourceIndex: a.index) {
                addNote("the \(codec) audio cannot be copied into a \(settings.fileType.displayName) file: it was re-encoded as AAC")
            }
        }
        try muxer.writeHeader(fastStart: settings.fastStart)

        let big = settings.bigFrames || supply.size.width * supply.size.height > VideoDecoder.bigFramePixels
        let decoded = BoundedQueue<SupplyItem>(capacity: big ? 1 : settings.queueDepth)
        let rendered = BoundedQueue<EncodeItem>(capacity: 1, handOff: big)
        let stop: @Sendable () -> Void = {
            decoded.abort(); rendered.abort()
        }
        let group = DispatchGroup()
        let supply = self.supply
        // Decoding (libavcodec adds its own frame threads).
        group.enter()
        let reader = Thread { [self] in
            defer { group.leave() }
            do throws(VideoError) {
                // The next frame is decoded once it has somewhere to go (not held while
                // waiting); audio packets, small and uncounted, may arrive meanwhile.
                while decoded.waitForRoom(), let item = try supply.next() {
                    if !decoded.push(item, counts: item.isFrame) { return }
                }
                decoded.close()
            } catch {
                fail(error)
                stop()
            }
        }
        // Encoding and muxing (the encoders add their own threads).
        let encTimeBase = enc.ctx.pointee.time_base
        let total = max(supply.duration, 1e-3)
        let tb = supply.timeBase.double
        group.enter()
        let writer = Thread { [self] in
            defer { group.leave() }
            do throws(VideoError) {
                var firstTime: Double? = nil
                while let item = rendered.pop() {
                    switch item {
                    case let .video(frame, pts):
                        try enc.encode(frame) { (p) throws(VideoError) in try muxer.writeVideo(p, from: encTimeBase) }
                        enc.recycle(frame)
                        lock.lock(); written += 1; lock.unlock()
                        let t = Double(pts) * tb
                        if firstTime == nil { firstTime = t }
                        progress(min(1, max(0, (t - (firstTime ?? 0)) / total)))
                    case let .audio(p, s, offset):
                        try muxer.writeAudio(p.raw, source: s, offset: offset)
                    }
                }
                if failed || cancel.isSet { return }
                try enc.encode(nil) { (p) throws(VideoError) in try muxer.writeVideo(p, from: encTimeBase) }
            } catch {
                fail(error)
                stop()
            }
        }
        reader.stackSize = 8 << 20
        writer.stackSize = 8 << 20
        reader.start()
        writer.start()
        // Composing, on this thread: the handler, then the render into the encoder's frame.
        while let item = decoded.pop() {
            if cancel.isSet { fail(.cancelled); stop(); break }
            switch item {
            case .frame(let f):
                do {
                    let frame = try compose(f, enc)
                    if !rendered.push(.video(frame, f.outPTS), counts: true) { break }
                } catch {
                    fail(error)
                    stop()
                }
            case let .audio(p, s, offset):
                _ = rendered.push(.audio(p, s, offset), counts: false)
            }
        }
        rendered.close()
        group.wait()
        if cancel.isSet { throw .cancelled }
        if let failure { throw failure }
        if framesWritten == 0 { throw .encodeFailed(file: target.path, reason: "no video frames in the time range") }
        try muxer.finish()
        progress(1)
    }

    enum EncodeItem: @unchecked Sendable {
        case video(Frame, Int64)
        case audio(Packet, Int32, Int64)
    }

    /// The handler's image for one frame, rendered into a fresh encoder frame.
    private func compose(_ f: TimelineFrame, _ enc: VideoEncoder) throws(VideoError) -> Frame {
        let (image, ctx) = try ExportPipeline.filtered(f, composition: composition, renderSize: settings.renderSize)
        let out = try enc.makeFrame()
        let w = settings.outputWidth, h = settings.outputHeight
        let rect = CGRect(x: 0, y: 0, width: w, height: h)
        let final = ExportPipeline.scaled(image, from: settings.renderSize, to: CGSize(width: w, height: h))
        let renderer = ctx ?? context
        do {
            switch enc.storage {
            case .planar:
                try renderer.render(final, to: enc.planarBuffer(out), bounds: rect)
            case .packedBGRX:
                guard let base = cy_frame_data(out.raw, 0) else { throw VideoError.renderFailed("frame has no memory") }
                try renderer.renderChecked(
                    final, toBitmap: base, rowBytes: Int(cy_frame_linesize(out.raw, 0)), bounds: rect, format: .BGRA8,
                    colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
            }
        } catch let e as VideoError {
            throw e
        } catch {
            throw .renderFailed("\(error)")
        }
        out.raw.pointee.pts = f.outPTS
        out.raw.pointee.pkt_duration = f.duration
        out.raw.pointee.pict_type = AV_PICTURE_TYPE_NONE
        return out
    }

    /// The composition's image for one frame (its handler's, waited for, cropped to
    /// `renderSize`), or the frame itself (dissolved into the next clip's during an overlap)
    /// without a handler; with the context the handler asked for.
    static func filtered(_ f: TimelineFrame, composition: AVVideoComposition?, renderSize: CGSize) throws(VideoError) -> (CIImage, CIContext?) {
        guard let handler = composition?.handler else {
            if let over = f.overlap {
                let d = CIFilter(name: "CIDissolveTransition")
                d?.setValue(f.image, forKey: kCIInputImageKey)
                d?.setValue(over, forKey: kCIInputTargetImageKey)
                d?.setValue(f.progress, forKey: kCIInputTimeKey)
                return (d?.outputImage ?? f.image, nil)
            }
            return (f.image, nil)
        }
        let box = ResultBox()
        let request = AVAsynchronousCIImageFilteringRequest(
            sourceImage: f.image, compositionTime: f.time, renderSize: renderSize, overlappingImage: f.overlap, overlapProgress: f.progress,
            done: { r in box.set(r) })
        handler.call(request)
        switch box.wait() {
        case .success(let (image, ctx)):
            return (image.cropped(to: CGRect(origin: .zero, size: renderSize)), ctx)
        case .failure(let e):
            if let v = e as? VideoError { throw v }
            throw .compositionFailed("\(e)")
        }
    }

    /// `image` (covering `from` at the origin) scaled to `to` with Lanczos when they differ.
    static func scaled(_ image: CIImage, from: CGSize, to: CGSize) -> CIImage {
        let rect = CGRect(origin: .zero, size: to)
        guard from != to, from.width > 0, from.height > 0 else { return image.cropped(to: rect) }
        let sx = to.width / from.width, sy = to.height / from.height
        guard let l = CIFilter(name: "CILanczosScaleTransform") else {
            return image.transformed(by: CGAffineTransform(scaleX: sx, y: sy)).cropped(to: rect)
        }
        l.setValue(image.clampedToExtent().cropped(to: CGRect(origin: .zero, size: from)), forKey: kCIInputImageKey)
        l.setValue(sy, forKey: kCIInputScaleKey)
        l.setValue(sx / sy, forKey: kCIInputAspectRatioKey)
        return (l.outputImage ?? image).cropped(to: rect)
    }
}

/// The handler's answer, which may come from another thread.
final class ResultBox: @unchecked Sendable {
    private let sem = DispatchSemaphore(value: 0)
    private var result: Result<(CIImage, CIContext?), any Error>?
    func set(_ r: Result<(CIImage, CIContext?), any Error>) { result = r; sem.signal() }
    func wait() -> Result<(CIImage, CIContext?), any Error> {
        sem.wait()
        return result ?? .failure(VideoError.compositionFailed("the handler finished without a result"))
    }
}
