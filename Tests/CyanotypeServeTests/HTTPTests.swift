import CyanotypeTestSupport
import Cyanotype
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The server over real HTTP: every route's happy path, then every kind of bad request (the
/// right 4xx with a JSON error, and the server still up).
@Suite struct HTTPEndpoints {
    @Test func happyPaths() throws {
        let f = try Folder()
        try f.card("photo.png", 96, 64)
        try f.card("sub/photo.jpg", 96, 64)
        let s = try Server(root: f.url)
        defer { s.stop() }

        let health = try s.get("/healthz")
        #expect(health.status == 200 && health.json?["status"] as? String == "ok")

        // The catalogue: every filter, as `describe --json` prints it.
        let filters = try s.get("/api/filters")
        #expect(filters.status == 200)
        let list = try #require(try JSONSerialization.jsonObject(with: filters.body) as? [[String: Any]])
        // Counted by the CLI (another process): this test process may hold filters that other
        // suites registered (CIFilter.registerName).
        let cliList = try Binary.run(["filters", "--json"], in: f.url)
        let cliCount = (try JSONSerialization.jsonObject(with: Data(cliList.stdout.utf8)) as? [Any])?.count
        #expect(list.count == cliCount)
        let describe = try Binary.run(["describe", "sepiaTone", "--json"], in: f.url)
        let cliSepia = try #require(try JSONSerialization.jsonObject(with: Data(describe.stdout.utf8)) as? NSDictionary)
        let served = try #require(list.first { $0["shortName"] as? String == "sepiaTone" })
        #expect(NSDictionary(dictionary: served) == cliSepia)
        let one = try s.get("/api/filters/gaussianBlur")
        #expect(one.status == 200 && one.json?["name"] as? String == "CIGaussianBlur")

        let images = try s.get("/api/images")
        #expect(images.json?["images"] as? [String] == ["photo.png", "sub/photo.jpg"])
        #expect((images.json?["presets"] as? [String])?.contains("clarendon") == true)
        let info = try s.get("/api/info?image=sub/photo.jpg")
        #expect(info.json?["width"] as? Int == 96 && info.json?["height"] as? Int == 64)

        let page = try s.get("/")
        #expect(page.status == 200 && page.headers["content-type"]?.hasPrefix("text/html") == true && page.text.contains("Fun House"))
        #expect(try s.get("/page/funhouse.js").status == 200)
        #expect(try s.get("/page/funhouse.css").headers["content-type"]?.hasPrefix("text/css") == true)
        #expect(try s.get("/page/", headers: [:]).status == 404)

        // GET /render says what `cyanotype apply` says: the same pixels.
        let spec = "sepiaTone intensity=0.7"
        let render = try s.get("/render?image=photo.png&filter=\(q(spec))&filter=vignette&w=48&format=png")
        #expect(render.status == 200 && render.headers["content-type"] == "image/png")
        #expect(render.headers["x-image-size"] == "48x32" && render.headers["x-source-size"] == "96x64")
        let cli = try Binary.run(["apply", "photo.png", "-o", "cli.png", "--filter", spec, "--filter", "vignette", "--resize", "48x"], in: f.url)
        #expect(cli.status == 0, "\(cli.stderr)")
        #expect(try Pixels(render.body) == Pixels(contentsOf: f.url.appendingPathComponent("cli.png")))

        // ETag and Cache-Control: a revalidation answers 304; a new version of the file, 200.
        let etag = try #require(render.headers["etag"])
        #expect(render.headers["cache-control"]?.contains("max-age") == true)
        let again = try s.get("/render?image=photo.png&filter=\(q(spec))&filter=vignette&w=48&format=png", headers: ["If-None-Match": etag])
        #expect(again.status == 304 && again.body.isEmpty)
        let other = try s.get("/render?image=photo.png&filter=\(q(spec))&w=48&format=png")
        #expect(other.headers["etag"] != etag)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: f.path("photo.png"))
        let touched = try s.get("/render?image=photo.png&filter=\(q(spec))&filter=vignette&w=48&format=png", headers: ["If-None-Match": etag])
        #expect(touched.status == 200 && touched.headers["etag"] != etag)

        // Every output format decodes at the size asked for.
        for (format, type) in [("jpeg", "image/jpeg"), ("webp", "image/webp"), ("avif", "image/avif"), ("tiff", "image/tiff")] {
            let r = try s.get("/render?image=sub/photo.jpg&filter=colorInvert&h=32&format=\(format)&q=80")
            #expect(r.status == 200 && r.headers["content-type"] == type, "\(format): \(r.text)")
            let p = try Pixels(r.body)
            #expect(p.width == 48 && p.height == 32, "\(format)")
        }

        // LUT looks and presets by name, with intensity, as --lut/--preset/--intensity.
        let look = try s.get("/render?image=photo.png&lut=warmFilm&intensity=0.5&format=png")
        let lookCLI = try Binary.run(["apply", "photo.png", "-o", "look.png", "--lut", "warmFilm", "--intensity", "0.5"], in: f.url)
        #expect(lookCLI.status == 0)
        #expect(try Pixels(look.body) == Pixels(contentsOf: f.url.appendingPathComponent("look.png")))
        let preset = try s.get("/render?image=photo.png&preset=clarendon&intensity=0.6&format=png")
        let presetCLI = try Binary.run(["apply", "photo.png", "-o", "preset.png", "--preset", "clarendon", "--intensity", "0.6"], in: f.url)
        #expect(presetCLI.status == 0)
        #expect(try Pixels(preset.body) == Pixels(contentsOf: f.url.appendingPathComponent("preset.png")))

        // POST /api/render: the same as JSON, and an uploaded picture in place of the name.
        let posted = try s.post(
            "/api/render",
            json: [
                "image": "photo.png", "filters": [spec, "vignette"], "lut": NSNull(), "preset": NSNull(),
                "intensity": NSNull(), "width": 48, "format": "png",
            ])
        #expect(posted.status == 200 && posted.body == render.body)
        let bytes = try Data(contentsOf: f.url.appendingPathComponent("photo.png"))
        let uploaded = try s.post("/api/render", json: ["image": ["data": bytes.base64EncodedString()], "filters": [spec, "vignette"], "width": 48])
        #expect(try uploaded.status == 200 && Pixels(uploaded.body) == Pixels(render.body))
        // An upload named by hash is served from the preview cache, else asked for again.
        let hash = bytes.sha256Hex
        let byHash: [String: Any] = ["image": ["sha256": hash], "filters": [spec], "width": 48, "preview": true]
        let missing = try s.post("/api/render", json: byHash)
        #expect(missing.status == 412 && missing.errorCode == "upload_needed")
        var withData = byHash
        withData["image"] = ["data": bytes.base64EncodedString()]
        #expect(try s.post("/api/render", json: withData).status == 200)
        let cached = try s.post("/api/render", json: byHash)
        #expect(cached.status == 200 && cached.headers["x-preview"] == "fast")

        // An Instafilter recipe renders like the chain it spells.
        let recipe: [String: Any] = ["version": 1, "steps": [["filter": "CISepiaTone", "parameters": ["inputIntensity": 0.7]]]]
        let byRecipe = try s.post("/api/render", json: ["image": "photo.png", "recipe": recipe])
        let byChain = try s.get("/render?image=photo.png&filter=\(q(spec))")
        #expect(try byRecipe.status == 200 && Pixels(byRecipe.body).maxDifference(Pixels(byChain.body)) ?? 99 <= 1)

        // Previews: a per-pixel chain starts from the small cached source; others render exactly.
        let fast = try s.get("/render?image=sub/photo.jpg&filter=\(q(spec))&w=48&h=48&preview=1")
        #expect(fast.status == 200 && fast.headers["x-preview"] == "fast")
        let exact = try s.get("/render?image=sub/photo.jpg&filter=\(q("gaussianBlur radius=2"))&w=48&h=48&preview=1")
        #expect(exact.status == 200 && exact.headers["x-preview"] == "exact")

        // The plan.
        let plan = try s.get("/api/explain?image=photo.png&filter=\(q(spec))&w=48")
        #expect(plan.status == 200 && (plan.json?["plan"] as? String)?.contains("sepia") == true && plan.json?["width"] as? Int == 48)
        let postedPlan = try s.post("/api/explain", json: ["image": "photo.png", "filters": [spec]])
        #expect(postedPlan.status == 200 && postedPlan.json?["width"] as? Int == 96)

        // A clamped value is reported, as the CLI warns.
        let clamped = try s.get("/render?image=photo.png&filter=\(q("colorControls saturation=-3"))")
        #expect(clamped.status == 200 && clamped.headers["x-cyanotype-warnings"]?.contains("outside") == true)

        // HEAD: the headers without the body.
        let head = try HTTP.request(s.port, "HEAD", "/render?image=photo.png&w=10")
        #expect(head.status == 200 && head.body.isEmpty)

        // Each request is logged: method, path, status, milliseconds.
        #expect(s.log.contains("GET /render 200 "))
        #expect(s.log.contains("POST /api/render 412 "))
        #expect(s.log.range(of: #"GET /api/filters 200 [0-9.]+ ms"#, options: .regularExpression) != nil)
        #expect(s.stop() == 0)
        #expect(s.log.contains("stopped"))
    }

    @Test func badRequestsGetTheRightErrorAndTheServerStaysUp() throws {
        let f = try Folder()
        try f.card("photo.png", 32, 24)
        try f.card("sub/inner.png", 8, 8)
        let outside = try Folder()
        try outside.card("secret.png", 8, 8)
        try FileManager.default.createSymbolicLink(atPath: f.path("link.png"), withDestinationPath: outside.path("secret.png"))
        try FileManager.default.createSymbolicLink(atPath: f.path("linkdir"), withDestinationPath: outside.url.path)
        try Data("not an image at all".utf8).write(to: f.url.appendingPathComponent("broken.png"))
        let s = try Server(root: f.url, ["--max-body-mb", "1", "--max-chain", "4", "--max-pixels", "1000000"])
        defer { s.stop() }
        let cases: [(String, String, Any?, Int, String)] = [
            ("POST", "/api/render", Data("{\"image\": ".utf8), 400, "malformed_json"),
            ("POST", "/api/render", Data("[1, 2]".utf8), 400, "malformed_json"),
            ("POST", "/api/render", Data("{\"image\": \"photo.png\", \"intensity\": NaN}".utf8), 400, "malformed_json"),
            ("POST", "/api/render", ["image": "photo.png", "filters": "sepiaTone"], 400, "bad_parameter"),
            ("POST", "/api/render", ["image": "photo.png", "colour": 1], 400, "bad_parameter"),
            ("POST", "/api/render", ["image": "photo.png", "filters": ["gausianBlur radius=2"]], 400, "unknown_filter"),
            ("POST", "/api/render", ["image": "photo.png", "width": 100_000, "height": 100_000], 400, "too_large"),
            ("GET", "/render?image=photo.png&filter=\(q("gausianBlur"))", nil, 400, "unknown_filter"),
            ("GET", "/render?image=photo.png&filter=\(q("gaussianBlur radios=2"))", nil, 400, "bad_value"),
            ("GET", "/render?image=photo.png&filter=\(q("sepiaTone intensity=nan"))", nil, 400, "bad_value"),
            ("GET", "/render?image=photo.png&filter=\(q("sepiaTone intensity=\"a"))", nil, 400, "bad_value"),
            ("GET", "/render?image=photo.png&filter=\(q("vignetteEffect center=[1 nan]"))", nil, 400, "bad_value"),
            ("GET", "/render?image=photo.png&intensity=nan&lut=warmFilm", nil, 400, "bad_parameter"),
            ("GET", "/render?image=photo.png&intensity=0.5", nil, 400, "bad_value"),
            ("GET", "/render?image=photo.png&w=NaN", nil, 400, "bad_parameter"),
            ("GET", "/render?image=photo.png&w=-4", nil, 400, "bad_parameter"),
            ("GET", "/render?image=photo.png&w=100000&h=100000", nil, 400, "too_large"),
            ("GET", "/render?image=photo.png&w=5000", nil, 400, "too_large"),
            ("GET", "/render?image=photo.png&w=99999999999999999999", nil, 400, "bad_parameter"),
            ("GET", "/render?image=photo.png&filter=a&filter=b&filter=c&filter=d&filter=e", nil, 400, "chain_too_long"),
            ("GET", "/render?image=photo.png&lut=noSuchLook", nil, 404, "not_found"),
            ("GET", "/render?image=photo.png&preset=noSuchPreset", nil, 400, "unknown_preset"),
            ("GET", "/render?image=photo.png&format=bmp", nil, 400, "bad_parameter"),
            ("GET", "/render?image=photo.png&colour=red", nil, 400, "bad_parameter"),
            ("GET", "/render?image=photo.png&w=%zz", nil, 400, "bad_request"),
            ("GET", "/render", nil, 400, "bad_parameter"),
            ("GET", "/render?image=../photo.png", nil, 403, "outside_root"),
            ("GET", "/render?image=sub/../../photo.png", nil, 403, "outside_root"),
            ("GET", "/render?image=%2E%2E%2Fphoto.png", nil, 403, "outside_root"),
            ("GET", "/render?image=\(q(outside.path("secret.png")))", nil, 403, "outside_root"),
            ("GET", "/render?image=/etc/passwd", nil, 403, "outside_root"),
            ("GET", "/render?image=link.png", nil, 403, "outside_root"),
            ("GET", "/render?image=linkdir/secret.png", nil, 403, "outside_root"),
            ("GET", "/render?image=photo.png&filter=\(q("blendWithMask backgroundImage=../photo.png"))", nil, 403, "outside_root"),
            ("GET", "/render?image=photo.png&filter=\(q("blendWithMask backgroundImage=link.png"))", nil, 403, "outside_root"),
            ("GET", "/render?image=photo.png&lut=../x.cube", nil, 403, "outside_root"),
            ("GET", "/api/info?image=link.png", nil, 403, "outside_root"),
            ("GET", "/render?image=missing.png", nil, 404, "not_found"),
            ("GET", "/render?image=sub", nil, 400, "bad_parameter"),
            ("GET", "/render?image=broken.png", nil, 422, "unreadable_image"),
            ("GET", "/api/filters/noSuchFilter", nil, 404, "unknown_filter"),
            ("GET", "/no/such/route", nil, 404, "not_found"),
            ("GET", "/page/../Package.swift", nil, 404, "not_found"),
            ("DELETE", "/render?image=photo.png", nil, 405, "method_not_allowed"),
            ("GET", "/api/render", nil, 405, "method_not_allowed"),
            ("POST", "/api/render", Data(count: 2 << 20), 413, "body_too_large"),
        ]
        for (method, target, body, status, code) in cases {
            let data: Data? = body.map { b in (b as? Data) ?? (try? JSONSerialization.data(withJSONObject: b)) ?? Data() }
            let r = try HTTP.request(s.port, method, target, headers: method == "POST" ? ["Content-Type": "application/json"] : [:], body: data)
            #expect(r.status == status && r.errorCode == code, "\(method) \(target): \(r.status) \(r.text)")
            if r.status != 413 {
                #expect(r.headers["content-type"]?.hasPrefix("application/json") == true, "\(target)")
                let message = r.json?["message"] as? String ?? ""
                // No stack traces and none of the server's own paths.
                #expect(
                    !message.isEmpty && !message.contains(f.url.path) && !message.contains("Swift/")
                        && message.range(of: #"\b0x[0-9a-f]{8,}\b"#, options: .regularExpression) == nil, "\(target): \(message)")
            }
        }
        #expect(s.isRunning)
        #expect(try s.get("/healthz").status == 200)
        #expect(try s.get("/render?image=photo.png&filter=sepiaTone").status == 200)
    }

    @Test func signedURLsOnlyWithAKey() throws {
        let f = try Folder()
        try f.card("a.png", 16, 12)
        let secret = "a-long-enough-test-secret-0123456789"
        let s = try Server(root: f.url, ["--key", secret])
        defer { s.stop() }
        let path = "/render?image=a.png&filter=\(q("sepiaTone intensity=0.5"))&w=8"
        let missing = try s.get(path)
        #expect(missing.status == 403 && missing.errorCode == "signature_required")
        let signed = try Binary.run(["sign", "--key", secret, "http://127.0.0.1:\(s.port)\(path)"], in: f.url)
        #expect(signed.status == 0)
        let url = signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(url.hasPrefix("http://127.0.0.1:\(s.port)\(path)&sig="))
        let target = String(url.dropFirst("http://127.0.0.1:\(s.port)".count))
        let ok = try s.get(target)
        #expect(try ok.status == 200 && Pixels(ok.body).width == 8)
        let sig = String(target.split(separator: "=").last!)
        let wrongKey = try Binary.run(["sign", "--key", "another-secret-another-secret", path], in: f.url)
        for bad in [
            target.replacingOccurrences(of: "w=8", with: "w=9"), path + "&sig=" + String(repeating: "0", count: 64), path + "&sig=xyz",
            path + "&sig=" + sig + "&sig=" + sig, wrongKey.stdout.trimmingCharacters(in: .whitespacesAndNewlines),
        ] {
            let r = try s.get(bad)
            #expect(r.status == 403 && r.errorCode == "bad_signature", "\(bad): \(r.text)")
        }
        // With a key, only signed renders, the catalogue and the health check answer.
        #expect(try s.post("/api/render", json: ["image": "a.png"]).errorCode == "signed_only")
        #expect(try s.get("/").errorCode == "signed_only")
        #expect(try s.get("/api/images").errorCode == "signed_only")
        #expect(try s.get("/api/filters").status == 200)
        #expect(try s.get("/healthz").status == 200)
        #expect(s.isRunning)
    }

    @Test func busyAndSlowRendersAnswer503AndStopFinishesWhatIsInFlight() throws {
        let f = try Folder()
        try f.card("big.png", 400, 300)
        try f.card("small.png", 16, 16)
        let slow = "/render?image=big.png&filter=\(q("morphologyMaximum radius=12"))&filter=\(q("morphologyMinimum radius=12"))&format=png"
        // One worker, no queue: a second render while one runs is turned away.
        let s = try Server(root: f.url, ["--workers", "1", "--queue", "0", "--timeout", "900"])
        final class Box: @unchecked Sendable { var reply: Reply?; var error: (any Error)? }
        let first = Box()
        let thread = Thread {
            do { first.reply = try HTTP.get(s.port, slow) } catch { first.error = error }
        }
        thread.start()
        var running = 0
        try waitUntil(seconds: 10, every: 0.005) {
            running = try s.get("/healthz").json?["running"] as? Int ?? 0
            return running > 0
        }
        #expect(running == 1)
        let busy = try s.get("/render?image=small.png")
        #expect(busy.status == 503 && busy.errorCode == "busy" && busy.headers["retry-after"] != nil)
        // SIGTERM while the slow render runs: it still completes, then the server exits.
        kill(s.process.processIdentifier, SIGTERM)
        // The server says it is stopping (no request of ours is in flight to count), then soon
        // no longer accepts (while the slow render still runs): a connection is refused within
        // the deadline.
        let quiesced = Date().addingTimeInterval(30)
        waitUntil(seconds: 30) { s.log.contains("stopping;") }
        let refused = waitUntil(seconds: max(0, quiesced.timeIntervalSinceNow)) {
            do { _ = try HTTP.get(s.port, "/healthz"); return false } catch { return true }
        }
        #expect(refused, "still answering 30 s after SIGTERM")
        s.process.waitUntilExit()
        waitUntil(seconds: 60) { first.reply != nil || first.error != nil }
        #expect(first.reply?.status == 200, "\(String(describing: first.error)) \(s.log)")
        #expect(s.process.terminationStatus == 0)
        #expect(s.log.contains("finishing 1 request(s) in flight") && s.log.contains("stopped"))

        // A render over --timeout is answered 503 render_timeout.
        let t = try Server(root: f.url, ["--timeout", "0.2"])
        defer { t.stop() }
        let late = try t.get(slow)
        #expect(late.status == 503 && late.errorCode == "render_timeout", "\(late.text)")
        #expect(try t.get("/healthz").status == 200)
    }
}

extension Data {
    var sha256Hex: String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        let pipeIn = Pipe(), pipeOut = Pipe()
        p.standardInput = pipeIn
        p.standardOutput = pipeOut
        try? p.run()
        pipeIn.fileHandleForWriting.write(self)
        try? pipeIn.fileHandleForWriting.close()
        let out = pipeOut.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(String(decoding: out, as: UTF8.self).prefix(64))
    }
}
