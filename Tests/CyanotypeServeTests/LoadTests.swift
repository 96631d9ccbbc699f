import Foundation
import Testing

/// 500 renders from 32 concurrent clients on loopback: every one answered 200, the server
/// alive afterwards, its peak memory within what its workers and caches may hold. Latencies
/// are printed (p50, p99); the benchmark (scripts/bench-serve.sh) reports them on a release
/// build. Bounded by count (and each request by its socket timeout), never by a clock.
@Suite struct Load {
    @Test func fiveHundredRendersFromThirtyTwoClients() throws {
        let f = try Folder()
        // Small pictures: the test is about the server under many clients, not about pixels.
        try f.card("a.png", 64, 48)
        try f.card("b.jpg", 64, 48)
        let workers = 2
        let s = try Server(root: f.url, ["--workers", String(workers), "--queue", "64", "--cache-mb", "16"])
        defer { s.stop() }
        _ = try s.get("/healthz")
        let baseline = s.peakMemoryKiB
        let targets = [
            "/render?image=a.png&filter=\(q("sepiaTone intensity=0.8"))&w=48&h=48&preview=1",
            "/render?image=b.jpg&filter=\(q("colorControls saturation=1.4"))&filter=vignette&w=40&h=40&preview=1",
            "/render?image=a.png&filter=\(q("exposureAdjust ev=0.5"))&format=jpeg&q=80",
            "/render?image=b.jpg&lut=warmFilm&intensity=0.7&w=56&format=webp",
            "/render?image=a.png&filter=\(q("boxBlur radius=2"))&w=32",
        ]
        let total = 500, clients = 32
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var statuses: [Int: Int] = [:]
            var failures: [String] = []
            var latencies: [Double] = []
            var next = 0
        }
        let results = Results()
        let group = DispatchGroup()
        for _ in 0..<clients {
            group.enter()
            let t = Thread {
                defer { group.leave() }
                while true {
                    results.lock.lock()
                    let i = results.next
                    results.next += 1
                    results.lock.unlock()
                    if i >= total { return }
                    // No If-None-Match is sent: every request renders.
                    let target = targets[i % targets.count]
                    let start = DispatchTime.now()
                    let reply: Reply
                    do { reply = try HTTP.get(s.port, target) } catch {
                        results.lock.lock(); results.failures.append("\(error)"); results.lock.unlock()
                        continue
                    }
                    let ms = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6
                    results.lock.lock()
                    results.statuses[reply.status, default: 0] += 1
                    results.latencies.append(ms)
                    if reply.status != 200 { results.failures.append("\(reply.status) \(reply.text)") }
                    results.lock.unlock()
                }
            }
            t.stackSize = 1 << 20
            t.start()
        }
        group.wait()
        #expect(results.failures.isEmpty, "\(results.failures.prefix(5))")
        #expect(results.statuses[200] == total)
        #expect(s.isRunning)
        #expect(try s.get("/healthz").status == 200)
        let peak = s.peakMemoryKiB
        let sorted = results.latencies.sorted()
        let p50 = sorted.isEmpty ? 0 : sorted[sorted.count / 2]
        let p99 = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
        print(
            "serve load: \(total) requests, \(clients) clients, \(workers) workers: p50 \(String(format: "%.0f", p50)) ms, "
                + "p99 \(String(format: "%.0f", p99)) ms, peak RSS \(peak / 1024) MiB (at start \(baseline / 1024) MiB)")
        // What the server may hold: its start-up size, the preview cache (16 MiB), and per
        // worker a render of these small pictures (sources, tiles, encoders: well under
        // 64 MiB each) plus the executor's own buffers. 32 waiting clients add nothing but
        // their requests.
        let bound = baseline + 16 * 1024 + workers * 64 * 1024 + 128 * 1024
        #expect(peak < bound, "peak \(peak) KiB over \(bound) KiB")
    }
}
