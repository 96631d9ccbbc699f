import CyanotypeTestSupport
import Cyanotype
@testable import CyanotypeServe
import CyanotypeTool
import Foundation
import Testing

@Suite struct Queries {
    @Test func formDecodingAndEncoding() {
        #expect(QueryString.decode("%41+b%20c", plusIsSpace: true) == "A b c")
        #expect(QueryString.decode("a+b", plusIsSpace: false) == "a+b")
        #expect(QueryString.decode("%4", plusIsSpace: true) == nil)
        #expect(QueryString.decode("%zz", plusIsSpace: true) == nil)
        #expect(QueryString.decode("%ff", plusIsSpace: true) == nil)  // not UTF-8
        let text = "sepiaTone intensity=0.8 message=\"a&b\" ü"
        #expect(QueryString.decode(QueryString.encode(text), plusIsSpace: true) == text)
        let items = QueryString.parse("image=a.jpg&filter=x%20y=1&filter=z&&flag") ?? []
        #expect(items.map(\.name) == ["image", "filter", "filter", "flag"])
        #expect(items.map(\.value) == ["a.jpg", "x y=1", "z", ""])
    }

    @Test func requestTargetsSplitIntoPathAndQuery() {
        let r = HTTPRequest(method: "GET", target: "/render?image=a%20b.jpg&w=4")
        #expect(r.rawPath == "/render" && r.rawQuery == "image=a%20b.jpg&w=4")
        #expect(r.query?.first?.value == "a b.jpg")
        let absolute = HTTPRequest(method: "GET", target: "http://h:1/x/y?z=1")
        #expect(absolute.rawPath == "/x/y" && absolute.rawQuery == "z=1")
        #expect(HTTPRequest(method: "GET", target: "/a%2").path == nil)
    }

    @Test func renderParametersFromAQuery() throws {
        let p = try RenderParameters.fromQuery([
            ("image", "a.jpg"), ("filter", "sepiaTone intensity=0.8"), ("filter", "vignette"),
            ("lut", "warmFilm"), ("intensity", "0.5"), ("w", "400"), ("h", "300"),
            ("format", "jpg"), ("q", "80"), ("preview", "1"),
        ])
        #expect(p.source == .file("a.jpg"))
        #expect(p.filters == ["sepiaTone intensity=0.8", "vignette"])
        #expect(p.lut == "warmFilm" && p.intensity == 0.5 && p.width == 400 && p.height == 300)
        #expect(p.format == .jpeg && p.quality == 80 && p.preview)
        func code(_ items: [(String, String)]) -> String? {
            do { _ = try RenderParameters.fromQuery(items.map { (name: $0.0, value: $0.1) }); return nil } catch { return error.code + ": " + error.message }
        }
        #expect(code([("imag", "a.jpg")])?.contains("did you mean 'image'") == true)
        #expect(code([("w", "1"), ("w", "2")])?.hasPrefix("bad_parameter") == true)
        #expect(code([("intensity", "nan")])?.hasPrefix("bad_parameter") == true)
        #expect(code([("intensity", "inf")])?.hasPrefix("bad_parameter") == true)
        #expect(code([("w", "0")])?.hasPrefix("bad_parameter") == true)
        #expect(code([("w", "1.5")])?.hasPrefix("bad_parameter") == true)
        #expect(code([("format", "bmp")])?.hasPrefix("bad_parameter") == true)
        #expect(code([("q", "101")])?.hasPrefix("bad_parameter") == true)
    }

    @Test func renderParametersFromJSON() throws {
        let body = #"{"image": "photo.jpg", "filters": ["sepiaTone intensity=0.8"], "lut": null, "preset": null, "intensity": null, "width": 800, "format": "png"}"#
        let p = try RenderParameters.fromJSON(Data(body.utf8))
        #expect(p.source == .file("photo.jpg") && p.filters == ["sepiaTone intensity=0.8"] && p.width == 800 && p.format == .png)
        let upload = try RenderParameters.fromJSON(Data(#"{"image": {"data": "AAEC"}}"#.utf8))
        #expect(upload.source == .upload(Data([0, 1, 2])))
        func code(_ text: String) -> String? {
            do { _ = try RenderParameters.fromJSON(Data(text.utf8)); return nil } catch { return error.code }
        }
        #expect(code("") == "malformed_json")
        #expect(code("{") == "malformed_json")
        #expect(code("[1]") == "malformed_json")
        #expect(code(#"{"image": "a", "filters": "sepiaTone"}"#) == "bad_parameter")
        #expect(code(#"{"image": "a", "filters": [1]}"#) == "bad_parameter")
        #expect(code(#"{"image": "a", "width": true}"#) == "bad_parameter")
        #expect(code(#"{"image": "a", "width": 1.5}"#) == "bad_parameter")
        #expect(code(#"{"image": "a", "intensity": "0.5"}"#) == "bad_parameter")
        #expect(code(#"{"image": "a", "preview": 1}"#) == "bad_parameter")
        #expect(code(#"{"image": "a", "widht": 4}"#) == "bad_parameter")
        #expect(code(#"{"image": {"data": 5}}"#) == "bad_parameter")
        #expect(code(#"{"image": "a", "intensity": NaN}"#) == "malformed_json")
    }
}

@Suite struct Root {
    @Test func namesStayInsideTheRoot() throws {
        let f = try Folder()
        try f.card("a.png", 4, 4)
        try f.card("sub/b.png", 4, 4)
        let outside = try Folder()
        try outside.card("secret.png", 4, 4)
        try FileManager.default.createSymbolicLink(atPath: f.path("escape.png"), withDestinationPath: outside.path("secret.png"))
        try FileManager.default.createSymbolicLink(atPath: f.path("escape-dir"), withDestinationPath: outside.url.path)
        try FileManager.default.createSymbolicLink(atPath: f.path("inside.png"), withDestinationPath: f.path("sub/b.png"))
        let root = try RootFolder(f.url.path)
        #expect(try root.resolve("a.png").name == "a.png")
        #expect(try root.resolve("./sub//b.png").path.hasSuffix("/sub/b.png"))
        #expect(try root.resolve("inside.png").path.hasSuffix("/sub/b.png"))
        func code(_ name: String) -> String? {
            do { _ = try root.resolve(name); return nil } catch { return error.code }
        }
        #expect(code("../a.png") == "outside_root")
        #expect(code("sub/../../x.png") == "outside_root")
        #expect(code("sub/../a.png") == "outside_root")
        #expect(code(outside.path("secret.png")) == "outside_root")
        #expect(code("/etc/passwd") == "outside_root")
        #expect(code("escape.png") == "outside_root")
        #expect(code("escape-dir/secret.png") == "outside_root")
        #expect(code("missing.png") == "not_found")
        #expect(code("sub") == "bad_parameter")
        #expect(code("") == "bad_parameter")
        #expect(code("a\0.png") == "bad_parameter")
        let listed = root.files(extensions: ["png"])
        #expect(listed == ["a.png", "inside.png", "sub/b.png"])
        #expect(root.redact("\(root.path)/sub/b.png: damaged") == "sub/b.png: damaged")
    }
}

@Suite struct Workers {
    @Test func aFullQueueTurnsRequestsAwayAndALateRenderTimesOut() throws {
        let queue = RenderQueue(workers: 1, capacity: 1)
        defer { queue.stop() }
        let gate = DispatchSemaphore(value: 0)
        final class Box: @unchecked Sendable { var status = 0 }
        let first = Box(), second = Box()
        let done = DispatchGroup()
        // Plain threads: the queue blocks its callers, as the server's connection threads do.
        for (box, status) in [(first, 200), (second, 201)] {
            done.enter()
            Thread {
                box.status =
                    queue.run(timeout: 60) { _ in
                        if status == 200 { gate.wait() }
                        return HTTPResponse(status: status)
                    }.status
                done.leave()
            }.start()
            waitUntil(seconds: 30, every: 0.001) { (status == 200 ? queue.load.running : queue.load.waiting) > 0 }
        }
        // One rendering, one waiting: the next is turned away with Retry-After.
        let third = queue.run(timeout: 60) { _ in HTTPResponse(status: 202) }
        #expect(third.status == 503)
        #expect(third.headers.contains { $0.name == "Retry-After" })
        #expect(String(decoding: third.body, as: UTF8.self).contains("\"busy\""))
        gate.signal()
        done.wait()
        #expect(first.status == 200 && second.status == 201)
        // The late render's job is cancelled at the deadline: the work sees it (within a
        // bounded wait) and the worker is free again.
        final class Seen: @unchecked Sendable { var cancelled = false }
        let seen = Seen()
        let late = queue.run(timeout: 0.05) { job in
            waitUntil(seconds: 30, every: 0.001) { job.isCancelled }
            seen.cancelled = job.isCancelled
            return HTTPResponse(status: 200)
        }
        #expect(late.status == 503)
        #expect(String(decoding: late.body, as: UTF8.self).contains("render_timeout"))
        waitUntil(seconds: 30, every: 0.001) { queue.load.running == 0 }
        #expect(seen.cancelled && queue.load.running == 0)
        #expect(queue.run(timeout: 60) { _ in HTTPResponse(status: 204) }.status == 204)
    }

    @Test func thePreviewCacheKeepsToItsBudget() {
        let cache = PreviewCache(budget: 100)
        func source(_ bytes: Int) -> PreviewSource {
            PreviewSource(image: CIImage.empty(), properties: [:], sourceWidth: 1, sourceHeight: 1, bytes: bytes, scaledByDecoder: false)
        }
        cache.put("a", source(40))
        cache.put("b", source(40))
        _ = cache.get("a")
        cache.put("c", source(40))  // over budget: "b" (least recently used) goes
        #expect(cache.get("a") != nil && cache.get("c") != nil && cache.get("b") == nil)
        cache.put("huge", source(101))
        #expect(cache.get("huge") == nil)
        #expect(cache.statistics.bytes <= 100)
    }
}

@Suite struct Previews {
    @Test func perPixelFiltersAreScaleInvariantAndTheRestAreNot() throws {
        func invariant(_ spec: String) throws -> Bool {
            try RenderService.isScaleInvariant(ResolvedFilter(parsing: spec) { (_: String) throws(CLIError) -> CIImage in CIImage.empty() })
        }
        #expect(try invariant("sepiaTone intensity=0.5"))
        #expect(try invariant("colorControls saturation=2"))
        #expect(try invariant("vignette intensity=1"))  // measured from the extent
        #expect(try !invariant("gaussianBlur radius=3"))
        #expect(try !invariant("vignetteEffect"))  // a centre in pixels
        #expect(try !invariant("twirlDistortion"))
        #expect(try !invariant("dotScreen"))
    }

    /// A JPEG decoded at 1/4 scale by TurboJPEG, then resized, is close to the full decode
    /// resized (the preview's shortcut), and much smaller to hold.
    @Test func dctScaledJPEGPreviewsAreCloseToFullDecodes() throws {
        let f = try Folder()
        // Smooth content: TurboJPEG scales in gamma-encoded YCbCr while the tool's resampling
        // works in linear light, so fine high-contrast detail (stripes) differs more.
        try f.card("big.jpg", 1600, 1200, quality: 0.95, stripes: false)
        try f.card("big.png", 1600, 1200)
        let data = try Data(contentsOf: URL(fileURLWithPath: f.path("big.jpg")))
        let scaled = try #require(ScaledJPEG.decode(data, atLeast: 300, 200))
        #expect(scaled.width == 400 && scaled.height == 300)
        #expect(ScaledJPEG.decode(data, atLeast: 1600, 1200) == nil)
        let context = CIContext()
        let fast = try PreviewMaker.make(data, name: "big.jpg", width: 300, height: 300, context: context)
        #expect(fast.scaledByDecoder && fast.sourceWidth == 1600 && fast.sourceHeight == 1200)
        #expect(fast.image.extent == CGRect(x: 0, y: 0, width: 300, height: 225))
        // The reference: the CLI's own resize of the same JPEG.
        let cli = try Binary.run(["apply", "big.jpg", "-o", "ref.png", "--resize", "300x300"], in: f.url)
        #expect(cli.status == 0, "\(cli.stderr)")
        let ref = try Pixels(contentsOf: URL(fileURLWithPath: f.path("ref.png")))
        let png = try context.encode(fast.image, as: .png)
        let mine = try Pixels(png)
        let mean = try #require(mine.meanDifference(ref))
        #expect(mean < 2.0, "mean difference \(mean)")
        // A PNG source takes the tool's own path: the same pixels as the CLI's resize.
        let exact = try PreviewMaker.make(try Data(contentsOf: URL(fileURLWithPath: f.path("big.png"))), name: "big.png", width: 300, height: 300, context: context)
        #expect(!exact.scaledByDecoder)
        let cli2 = try Binary.run(["apply", "big.png", "-o", "ref2.png", "--resize", "300x300"], in: f.url)
        #expect(cli2.status == 0)
        #expect(try Pixels(context.encode(exact.image, as: .png)).maxDifference(Pixels(contentsOf: URL(fileURLWithPath: f.path("ref2.png")))) == 0)
    }
}
