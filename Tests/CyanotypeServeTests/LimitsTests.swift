import CyanotypeTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What one request may cost a public server: the chain limit on every route, renders
/// cancelled at their deadline, a memory budget per render, deadlines for slow clients, a
/// connection cap per address, a second signal, and JSON bodies only. The clients are raw
/// sockets (`HTTP`, `SlowClient`); every wait has a deadline.
@Suite struct ServeLimits {
    /// A recipe of `n` Gaussian blurs (Instafilter's recipe format, written out here).
    static func blurRecipe(_ n: Int) -> [String: Any] {
        ["version": 1, "steps": Array(repeating: ["filter": "CIGaussianBlur", "parameters": ["inputRadius": 10]] as [String: Any], count: n)]
    }

    /// Polls `/healthz` until `done` holds for its JSON (at most `seconds`); the last answer.
    static func waitForHealth(_ s: Server, seconds: Double, until done: ([String: Any]) -> Bool) throws -> [String: Any] {
        var last: [String: Any] = [:]
        try waitUntil(seconds: seconds, every: 0.05) {
            last = try s.get("/healthz").json ?? [:]
            return done(last)
        }
        return last
    }

    @Test func longChainsAndRecipesAreRefusedOnEveryRoute() throws {
        let f = try Folder()
        try f.card("photo.png", 32, 24)
        let s = try Server(root: f.url)  // --max-chain 16 by default
        defer { s.stop() }
        let upload = try Data(contentsOf: f.url.appendingPathComponent("photo.png")).base64EncodedString()
        let seventeen = Array(repeating: "sepiaTone", count: 17)
        let query = seventeen.map { "filter=" + q($0) }.joined(separator: "&")
        // The same limit, however the chain arrives: 17 filters, a 17- or 300-step recipe,
        // filters and recipe steps together, a file or an upload, a render or an explain.
        let requests: [(String, String, [String: Any]?)] = [
            ("GET", "/render?image=photo.png&" + query, nil),
            ("GET", "/api/explain?image=photo.png&" + query, nil),
            ("POST", "/api/render", ["image": "photo.png", "filters": seventeen]),
            ("POST", "/api/render", ["image": "photo.png", "recipe": Self.blurRecipe(17)]),
            ("POST", "/api/render", ["image": "photo.png", "recipe": Self.blurRecipe(300)]),
            ("POST", "/api/render", ["image": "photo.png", "filters": Array(seventeen.prefix(10)), "recipe": Self.blurRecipe(7)]),
            ("POST", "/api/render", ["image": ["data": upload], "recipe": Self.blurRecipe(300)]),
            ("POST", "/api/explain", ["image": "photo.png", "recipe": Self.blurRecipe(300)]),
            ("POST", "/api/explain", ["image": ["data": upload], "filters": seventeen]),
        ]
        for (method, target, json) in requests {
            let r = try json.map { try s.post(target, json: $0) } ?? s.get(target)
            #expect(r.status == 400 && r.errorCode == "chain_too_long", "\(method) \(target): \(r.status) \(r.text)")
            #expect((r.json?["message"] as? String)?.contains("at most 16 filters") == true)
        }
        // At the limit, both forms render.
        #expect(try s.post("/api/render", json: ["image": "photo.png", "recipe": Self.blurRecipe(16)]).status == 200)
        #expect(try s.post("/api/render", json: ["image": "photo.png", "filters": Array(seventeen.prefix(8)), "recipe": Self.blurRecipe(8)]).status == 200)
    }

    @Test func aRenderPastItsTimeoutIsCancelledAndItsWorkerFreed() throws {
        let f = try Folder()
        try f.card("big.png", 1500, 1500, stripes: false)
        try f.card("small.png", 16, 16)
        // One worker: the quick request after the slow one can only run once the slow one
        // has really stopped. Uncancelled, this render runs for a minute or more (debug build).
        let s = try Server(root: f.url, ["--workers", "1", "--timeout", "1"])
        defer { s.stop() }
        let slow = try s.get("/render?image=big.png&filter=\(q("morphologyMaximum radius=30"))")
        #expect(slow.status == 503 && slow.errorCode == "render_timeout", "\(slow.text)")
        // The engine saw the cancellation (the queue counts renders its job stopped) and the
        // worker is free again.
        let health = try Self.waitForHealth(s, seconds: 60) { ($0["running"] as? Int) == 0 && ($0["cancelled"] as? Int) == 1 }
        #expect(health["running"] as? Int == 0 && health["waiting"] as? Int == 0, "\(health)")
        #expect(health["cancelled"] as? Int == 1, "\(health)")
        let quick = try s.get("/render?image=small.png&filter=sepiaTone")
        #expect(quick.status == 200, "\(quick.text)")
        #expect(try Pixels(quick.body).width == 16)
    }

    @Test func aRenderOverTheMemoryBudgetIsRefusedBeforeItRuns() throws {
        let f = try Folder()
        try f.card("big.png", 1500, 1500, stripes: false)
        try f.card("small.png", 64, 48)
        let s = try Server(root: f.url, ["--max-memory-mb", "64", "--max-chain", "1000"])
        defer { s.stop() }
        let refused: [(String, [String: Any])] = [
            ("a large blur", ["image": "big.png", "filters": ["gaussianBlur radius=100"]]),
            ("300 blurs", ["image": "big.png", "recipe": Self.blurRecipe(300)]),
        ]
        for (what, json) in refused {
            let r = try s.post("/api/render", json: json)
            #expect(r.status == 413 && r.errorCode == "render_too_large", "\(what): \(r.status) \(r.text)")
            let message = r.json?["message"] as? String ?? ""
            #expect(message.contains("limit of 64 MB"), "\(message)")
            // The estimate it names is over the limit it names.
            let estimate = message.firstMatch(of: /about (\d+) MB/).flatMap { Int($0.1) } ?? 0
            #expect(estimate > 64, "\(message)")
            // Refused before it ran: the server never held what the render would have needed
            // (its peak resident memory, from /proc, stays below the estimate).
            #expect(s.peakMemoryKiB > 0 && s.peakMemoryKiB < estimate * 1024, "peak \(s.peakMemoryKiB) KiB, estimate \(estimate) MB")
        }
        // The explain route shows the estimate and the limit instead of refusing.
        let plan = try s.post("/api/explain", json: ["image": "big.png", "recipe": Self.blurRecipe(300)])
        #expect(plan.status == 200)
        #expect((plan.json?["estimatedMemoryBytes"] as? Int ?? 0) > 64 << 20 && plan.json?["maxRenderMemoryBytes"] as? Int == 64 << 20)
        // A render within the budget still runs.
        #expect(try s.post("/api/render", json: ["image": "small.png", "filters": ["gaussianBlur radius=2"]]).status == 200)
        #expect(try s.get("/healthz").json?["running"] as? Int == 0)
    }

    @Test func slowClientsAreDroppedAndOneAddressHasACap() throws {
        let f = try Folder()
        let s = try Server(root: f.url, ["--header-timeout", "1", "--body-timeout", "1"])
        defer { s.stop() }
        // Headers trickled a byte every 0.3 s: never idle long enough for an idle timeout,
        // dropped at the header deadline.
        let headers = try SlowClient.trickle(s.port, Data("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ".utf8) + Data(count: 100).map { _ in UInt8(ascii: "a") })
        #expect(headers.dropped, "the server kept a client trickling its headers for \(headers.seconds) s")
        // A body trickled after complete headers: dropped at the body deadline.
        let head = "POST /api/render HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n"
        let body = try SlowClient.trickle(s.port, Data(repeating: UInt8(ascii: " "), count: 100), first: Data(head.utf8))
        #expect(body.dropped, "the server kept a client trickling its body for \(body.seconds) s")
        // The watchdog logs just after it shuts the socket.
        waitUntil(seconds: 10, every: 0.02) { s.log.contains("request body took") }
        #expect(s.log.contains("dropped a connection whose request headers took over 1 s"), "\(s.log)")
        #expect(s.log.contains("dropped a connection whose request body took over 1 s"), "\(s.log)")
        #expect(try s.get("/healthz").status == 200)

        // Two connections per address: a third is closed without an answer.
        let c = try Server(root: f.url, ["--max-per-client", "2", "--header-timeout", "60"])
        defer { c.stop() }
        var held = try (0..<2).map { _ in try SlowClient.connect(c.port) }
        // Closed once: a second close could shut a descriptor another test has opened since
        // (the suites run in parallel in one process).
        defer { held.forEach { close($0) } }
        #expect(throws: (any Error).self) { try HTTP.get(c.port, "/healthz") }
        held.forEach { close($0) }
        held = []
        // Once they close, the address may connect again (the server notices within a moment).
        var answered = 0
        waitUntil(seconds: 5, every: 0.05) {
            answered = (try? HTTP.get(c.port, "/healthz").status) ?? 0
            return answered != 0
        }
        #expect(answered == 200)
    }

    @Test func aSecondSignalStopsTheServerAtOnceWhileARenderRuns() throws {
        let f = try Folder()
        try f.card("big.png", 1500, 1500, stripes: false)
        // Two workers, both rendering: every thread of the shared pool is busy with tiles.
        let s = try Server(root: f.url, ["--workers", "2", "--timeout", "600"])
        final class Box: @unchecked Sendable { var reply: Reply?; var error: (any Error)? }
        let first = Box(), second = Box()
        for (box, radius) in [(first, 40), (second, 41)] {
            Thread {
                do { box.reply = try HTTP.get(s.port, "/render?image=big.png&filter=\(q("morphologyMaximum radius=\(radius)"))") } catch { box.error = error }
            }.start()
        }
        let health = try Self.waitForHealth(s, seconds: 60) { ($0["running"] as? Int) == 2 }
        #expect(health["running"] as? Int == 2)
        kill(s.process.processIdentifier, SIGTERM)
        // The first signal is heard (the log says so) while the render goes on.
        waitUntil(seconds: 30, every: 0.02) { s.log.contains("again to stop now") }
        #expect(s.isRunning && s.log.contains("again to stop now"))
        kill(s.process.processIdentifier, SIGTERM)
        // The render would take a minute or more; the second signal ends the process now.
        waitUntil(seconds: 20, every: 0.02) { !s.isRunning }
        #expect(!s.isRunning, "the server still runs after a second SIGTERM")
        if s.isRunning { kill(s.process.processIdentifier, SIGKILL) }
        s.process.waitUntilExit()
        #expect(s.process.terminationStatus == 130)
        #expect(s.log.contains("stopping now"))
        waitUntil(seconds: 20) { (first.reply != nil || first.error != nil) && (second.reply != nil || second.error != nil) }
        #expect(first.reply?.status != 200 && second.reply?.status != 200, "an interrupted render was answered")
    }

    @Test func postBodiesThatAreNotJSONGet415() throws {
        let f = try Folder()
        try f.card("photo.png", 32, 24)
        let s = try Server(root: f.url)
        defer { s.stop() }
        let json = Data(#"{"image": "photo.png", "filters": ["sepiaTone"]}"#.utf8)
        for route in ["/api/render", "/api/explain"] {
            for type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", nil] {
                let r = try HTTP.request(s.port, "POST", route, headers: type.map { ["Content-Type": $0] } ?? [:], body: json)
                #expect(r.status == 415 && r.errorCode == "unsupported_media_type", "\(route) \(type ?? "no type"): \(r.status) \(r.text)")
                #expect(r.headers["content-type"]?.hasPrefix("application/json") == true)
                #expect((r.json?["message"] as? String)?.contains("Content-Type: application/json") == true)
            }
            // JSON with parameters, or a +json type, is JSON.
            for type in ["application/json; charset=utf-8", "Application/JSON", "application/vnd.cyanotype+json"] {
                let r = try HTTP.request(s.port, "POST", route, headers: ["Content-Type": type], body: json)
                #expect(r.status == 200, "\(route) \(type): \(r.status) \(r.text)")
            }
        }
    }
}

/// A client that sends slowly, on a raw socket.
enum SlowClient {
    /// A connected socket to the server (the caller closes it).
    static func connect(_ port: UInt16) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HTTP.Failure(description: "socket: \(errno)") }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard connected == 0 else {
            close(fd)
            throw HTTP.Failure(description: "connect: \(errno)")
        }
        return fd
    }

    /// Sends `first` at once, then `bytes` one every 0.3 s, until the server closes the
    /// connection (dropped) or every byte is sent (not dropped); the seconds it took.
    static func trickle(_ port: UInt16, _ bytes: Data, first: Data = Data()) throws -> (dropped: Bool, seconds: Double) {
        let fd = try connect(port)
        defer { close(fd) }
        let start = Date()
        func closedByServer() -> Bool {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 300) > 0 else { return false }
            var b: UInt8 = 0
            return recv(fd, &b, 1, Int32(MSG_DONTWAIT)) <= 0  // EOF or reset: closed
        }
        if !first.isEmpty { _ = first.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } }
        for byte in bytes {
            var b = byte
            if send(fd, &b, 1, Int32(MSG_NOSIGNAL)) <= 0 { return (true, Date().timeIntervalSince(start)) }
            if closedByServer() { return (true, Date().timeIntervalSince(start)) }
        }
        return (false, Date().timeIntervalSince(start))
    }
}
