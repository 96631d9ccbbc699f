import CyanotypeServe
import CyanotypeTool
import Dispatch
import Foundation

/// `cyanotype serve`: the Fun House page and the render API (see CyanotypeServe).
enum ServeCommand {
    static let spec = CommandSpec(
        "serve", positionals: [],
        summary: "Serve the Fun House page and a render API (GET /render, POST /api/render) for the images under --root.",
        options: [
            OptionSpec("--root", value: "DIR", help: "The folder whose images are served (default: the current folder)."),
            OptionSpec("--port", value: "N", help: "TCP port (default 8080; 0 picks a free one and prints it)."),
            OptionSpec("--host", value: "ADDR", help: "Address to listen on (default 127.0.0.1, loopback only; 0.0.0.0 or :: for every interface)."),
            OptionSpec("--workers", value: "N", help: "Renders at once (default 2); memory grows with it."),
            OptionSpec("--queue", value: "N", help: "Renders that may wait for a worker before '503 busy' (default 8 per worker)."),
            OptionSpec(
                "--key", value: "SECRET",
                help: "Require signed /render URLs (HMAC-SHA256, see 'cyanotype sign'); the page and JSON API are off. Also read from CYANOTYPE_SERVE_KEY."),
            OptionSpec("--timeout", value: "SEC", help: "Longest wait plus render for one request (default 60); then 503, and the render is cancelled."),
            OptionSpec(
                "--max-memory-mb", value: "MB",
                help: "Most memory one render may be estimated to need, else 413 render_too_large (default: half the machine's memory / --workers, at least 256)."),
            OptionSpec("--header-timeout", value: "SEC", help: "Time a client has to send a request's headers, else it is dropped (default 10)."),
            OptionSpec("--body-timeout", value: "SEC", help: "Time a client has to send a request's body after its headers (default 60)."),
            OptionSpec("--max-per-client", value: "N", help: "Connections one client address may hold open (default 64)."),
            OptionSpec("--max-pixels", value: "N", help: "Largest result in pixels (default 100000000)."),
            OptionSpec("--pixel-limit", value: "N", help: "Largest source decoded, in pixels (default about 268 million)."),
            OptionSpec("--max-body-mb", value: "MB", help: "Largest request body, an uploaded image (default 64)."),
            OptionSpec("--max-chain", value: "N", help: "Most filters in one request, recipe steps included (default 16)."),
            OptionSpec("--cache-mb", value: "MB", help: "Memory for decoded preview sources (default 256)."),
            OptionSpec("--page", value: "DIR", help: "Serve the page from this folder instead of the installed copy."),
        ],
        notes: """
            Routes: / (the page), GET /api/filters (the catalogue, as 'describe --json' prints each filter),
            GET /api/images, GET /api/info?image=NAME, GET /render?image=NAME&filter=SPEC...&lut=NAME&preset=NAME
            &intensity=X&w=W&h=H&format=png|jpeg|webp|avif&q=Q (the options of 'cyanotype apply'; add
            &preview=1 to render a per-pixel chain on the source decoded at that size), POST /api/render with the
            same as JSON, GET|POST /api/explain (the render plan and its memory estimate), GET /healthz (renders
            running, waiting and cancelled). POST bodies must be JSON (Content-Type: application/json, else 415).
            Every route meets the same limits: --max-chain counts filters and recipe steps; a render whose plan
            is estimated over --max-memory-mb is refused (413 render_too_large) before it runs; one past
            --timeout is answered 503 and cancelled between tiles. Clients sending their headers or body slower
            than --header-timeout / --body-timeout are dropped. Errors are JSON:
            {"error": CODE, "message": TEXT}. Each request is logged to standard error: method, path, status, ms.
            SIGINT or SIGTERM stops accepting and finishes the requests in flight (a second one stops at once).

            Examples:
              cyanotype serve --root ~/Pictures                   # then open http://127.0.0.1:8080/
              cyanotype serve --root /images --host 0.0.0.0 --workers 4 --key "$SECRET"
            """)

    static func run(_ args: ParsedArguments) throws(CLIError) {
        var options = ServeOptions()
        options.root = args.value("root") ?? "."
        let port = try args.int("port", in: 0...65_535) ?? 8080
        let host = args.value("host") ?? "127.0.0.1"
        options.workers = try args.int("workers", in: 1...256) ?? 2
        options.queue = try args.int("queue", in: 0...100_000) ?? options.workers * 8
        options.key = args.value("key") ?? ProcessInfo.processInfo.environment["CYANOTYPE_SERVE_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        if let key = options.key, key.utf8.count < 16 { Console.warn("--key is short (\(key.utf8.count) bytes): use 32 random bytes or more") }
        options.renderTimeout = try args.double("timeout", in: 0.1...86_400) ?? 60
        options.maxOutputPixels = try args.int("max-pixels", in: 1...(1 << 40)) ?? options.maxOutputPixels
        options.maxSourcePixels = try args.int("pixel-limit", in: 1...(1 << 40)) ?? options.maxSourcePixels
        options.maxBodyBytes = (try args.int("max-body-mb", in: 1...4096)).map { $0 << 20 } ?? options.maxBodyBytes
        options.maxChain = try args.int("max-chain", in: 1...1000) ?? options.maxChain
        options.previewCacheBytes = (try args.int("cache-mb", in: 0...1_000_000)).map { $0 << 20 } ?? options.previewCacheBytes
        options.pageFolder = args.value("page")
        options.maxRenderMemory =
            (try args.int("max-memory-mb", in: 1...(1 << 30))).map { $0 << 20 } ?? ServeOptions.defaultRenderMemory(workers: options.workers)
        options.headerTimeout = try args.double("header-timeout", in: 0.1...3600) ?? options.headerTimeout
        options.bodyTimeout = try args.double("body-timeout", in: 0.1...86_400) ?? options.bodyTimeout
        options.maxConnectionsPerAddress = try args.int("max-per-client", in: 1...100_000) ?? options.maxConnectionsPerAddress

        let service: RenderService
        do { service = try RenderService(options: options) } catch { throw .failure(error.message) }
        let server = HTTPServer(
            host: host, port: UInt16(port), maxBodyBytes: options.maxBodyBytes,
            perAddressLimit: options.maxConnectionsPerAddress, headerTimeout: options.headerTimeout, bodyTimeout: options.bodyTimeout,
            log: { Console.err($0) }, handler: { service.handle($0) })
        // Signals are taken by a dispatch source, so no thread is interrupted mid-request. Its
        // queue is our own serial one: the global queue's threads may all be busy rendering
        // (the executor's loops run there), and a signal must not wait for a render to end.
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let stop = DispatchSemaphore(value: 0)
        let signalQueue = DispatchQueue(label: "cyanotype-serve-signals")
        let signals = [SIGINT, SIGTERM].map { DispatchSource.makeSignalSource(signal: $0, queue: signalQueue) }
        let count = Counter()
        for s in signals {
            s.setEventHandler {
                if count.increment() > 1 {
                    Console.err("cyanotype serve: stopping now\n")
                    // At once: no exit handlers, no waiting for the renders in flight.
                    _exit(130)
                }
                stop.signal()
            }
            s.resume()
        }
        do { try server.start() } catch { throw .failure(error.description) }
        if service.page.folder == nil { Console.warn("the page's files were not found; the API works, / answers 500 (pass --page DIR)") }
        let shown = host.contains(":") ? "[\(host)]" : host
        Console.err(
            "cyanotype serve: listening on http://\(shown):\(server.port)/ (root \(service.root.path.isEmpty ? "/" : service.root.path), "
                + "\(options.workers) worker\(options.workers == 1 ? "" : "s")\(options.key == nil ? "" : ", signed URLs only"))\n")
        // The sources must live until the end: an optimised build would free them after their
        // last use above, and the signals would then do nothing.
        withExtendedLifetime(signals) { stop.wait() }
        Console.err("cyanotype serve: stopping; finishing \(server.requestsInFlight) request(s) in flight (again to stop now)\n")
        server.stop(timeout: options.renderTimeout + 5)
        service.queue.stop()
        Console.err("cyanotype serve: stopped\n")
    }

    /// Signals seen so far.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var n = 0
        func increment() -> Int { lock.lock(); defer { lock.unlock() }; n += 1; return n }
    }
}

/// `cyanotype sign`: a `/render` URL with its signature for a server run with `--key`.
enum SignCommand {
    static let spec = CommandSpec(
        "sign", positionals: ["URL"],
        summary: "Print a /render URL signed for 'cyanotype serve --key SECRET' (HMAC-SHA256 of the path and query).",
        options: [
            OptionSpec("--key", value: "SECRET", help: "The server's secret (or CYANOTYPE_SERVE_KEY).")
        ],
        notes: """
            The signature covers the path and the query exactly as written, without sig; keep the
            parameters' order and encoding when you use the URL.

            Example:
              cyanotype sign --key "$SECRET" 'http://img.example.com/render?image=a.jpg&filter=sepiaTone%20intensity%3D0.8&w=400'
            """)

    static func run(_ args: ParsedArguments) throws(CLIError) {
        guard let key = args.value("key") ?? ProcessInfo.processInfo.environment["CYANOTYPE_SERVE_KEY"], !key.isEmpty else {
            throw .usage("missing --key SECRET for 'sign'")
        }
        let url = args.positionals[0]
        guard url.contains("/") else { throw .usage("'\(url)' is not a URL or path (e.g. /render?image=a.jpg&w=400)") }
        try Console.print(URLSigner(secret: key).sign(url))
    }
}
