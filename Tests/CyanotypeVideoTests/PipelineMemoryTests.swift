import Cyanotype
@testable import CyanotypeVideo
import Foundation
import Testing

/// The bounds that keep frames in flight (and so memory) flat however long the video: the
/// queue between threads, and an export of frames big enough to take the tighter bounds.
@Suite("Pipeline memory")
struct PipelineMemoryTests {
    /// Counts events from several threads.
    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var events: [String] = []
        func add(_ e: String) { lock.lock(); events.append(e); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return events }
    }

    @Test func handingOffReturnsOnlyOnceTheItemIsTaken() throws {
        let q = BoundedQueue<Int>(capacity: 1, handOff: true)
        let log = Log()
        let done = DispatchSemaphore(value: 0)
        Thread {
            _ = q.push(1, counts: true)
            log.add("pushed 1")
            done.signal()
        }.start()
        // Nothing takes the item yet: the push must still be waiting.
        #expect(done.wait(timeout: .now() + 0.3) == .timedOut)
        #expect(log.all.isEmpty)
        log.add("pop")
        #expect(q.pop() == 1)
        done.wait()
        #expect(log.all == ["pop", "pushed 1"])
        // Uncounted items (audio) never wait.
        #expect(q.push(2, counts: false))
        #expect(q.pop() == 2)
        q.close()
        #expect(q.pop() == nil)
    }

    @Test func waitingForRoomBlocksWhileFullAndEndsOnAbort() throws {
        let q = BoundedQueue<Int>(capacity: 1)
        #expect(q.waitForRoom())
        #expect(q.push(1, counts: true))
        let done = DispatchSemaphore(value: 0)
        let result = Log()
        Thread {
            result.add(q.waitForRoom() ? "room" : "aborted")
            done.signal()
        }.start()
        #expect(done.wait(timeout: .now() + 0.3) == .timedOut)
        #expect(q.pop() == 1)
        done.wait()
        #expect(result.all == ["room"])
        #expect(q.push(2, counts: true))
        Thread {
            result.add(q.waitForRoom() ? "room" : "aborted")
            done.signal()
        }.start()
        q.abort()
        done.wait()
        #expect(result.all == ["room", "aborted"])
    }

    /// Frames over `VideoDecoder.bigFramePixels` take the tight bounds (one queued frame,
    /// frames handed over, a decoder thread per core): every frame still arrives, in order,
    /// with its colours.
    @Test(.enabled(if: FF.available, "ffmpeg/ffprobe missing: scripts/setup.sh --test installs them"))
    func bigFramesExportEveryFrame() async throws {
        let s = try Scratch()
        let input = s.url("big.mkv"), output = s.url("out.mkv")
        let (w, h) = (2560, 1600)
        #expect(w * h > VideoDecoder.bigFramePixels)
        try makeTestClip(
            input, width: w, height: h, fps: 10, frames: 2,
            extra: ["-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv"])
        try await runExport(AVURLAsset(url: input), to: output, type: .mkv, codec: .rawvideo)
        #expect(try FF.frameTimes(output) == (try FF.frameTimes(input)))
        // Within a level or two of ffmpeg's own decoding of the source on average (both
        // 4:2:0 BT.709 Y'CbCr, ours through RGB): the second frame is the right one, whole.
        let a = try FF.rgbFrame(input, index: 1, width: w, height: h)
        let b = try FF.rgbFrame(output, index: 1, width: w, height: h)
        var total = 0
        for (x, y) in zip(a, b) { total += abs(Int(x) - Int(y)) }
        let mean = Double(total) / Double(max(1, a.count))
        #expect(mean < 2, "mean difference \(mean) levels")
    }
}
