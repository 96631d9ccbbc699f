import Foundation
import Testing

/// Whether headless Chromium can be driven here: Debian's chromium and chromium-driver, and
/// Selenium for Python (scripts/setup.sh --test installs all three).
enum Browser {
    static let available: Bool = {
        let fm = FileManager.default
        let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].contains { fm.isExecutableFile(atPath: $0) }
        let driver = fm.isExecutableFile(atPath: "/usr/bin/chromedriver")
        guard chromium, driver else { return false }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", "import selenium"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }()
}

/// The Fun House page in a real browser: pick a filter, move its slider, wait for the
/// preview; its pixels must be the CLI's render of the same recipe at that size (within one
/// level), and the command line the page copies must reproduce the full-size render.
@Suite struct FunHouseInABrowser {
    @Test(.enabled(if: Browser.available, "needs chromium, chromium-driver and python3 selenium (scripts/setup.sh --test)"))
    func previewMatchesTheCLIAndTheCopiedCommandReproducesTheImage() throws {
        let f = try Folder()
        try f.card("photo.png", 840, 600)
        let s = try Server(root: f.url)
        defer { s.stop() }
        // Kept for the record: .build/funhouse-browser/ (screenshot.png, result.json).
        let out = Binary.repo.appendingPathComponent(".build/funhouse-browser")
        try? FileManager.default.removeItem(at: out)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [
            "python3", Binary.repo.appendingPathComponent("scripts/funhouse-browser.py").path,
            "--url", "http://127.0.0.1:\(s.port)", "--image", "photo.png", "--out", out.path,
        ]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        try #require(p.terminationStatus == 0, "funhouse-browser.py: \(stderr)\n\(s.log)")

        let result = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("result.json"))) as? [String: Any])
        let width = try #require(result["width"] as? Int), height = try #require(result["height"] as? Int)
        let preview = Pixels(width: width, height: height, rgba: [UInt8](try Data(contentsOf: out.appendingPathComponent("preview.rgba"))))
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("screenshot.png").path))

        // The page asked for the box it shows (w, h) with preview=1; the slider moved.
        let info = try #require(result["preview"] as? [String: Any])
        let query = try #require(info["query"] as? String)
        #expect(info["mode"] as? String == "fast")
        let items = try #require(URLComponents(string: "/render?" + query)?.queryItems)
        let w = try #require(items.first { $0.name == "w" }?.value), h = try #require(items.first { $0.name == "h" }?.value)
        let filters = items.filter { $0.name == "filter" }.compactMap(\.value)
        #expect(filters.count == 1 && filters[0].hasPrefix("sepiaTone intensity="), "\(filters)")
        #expect(filters[0] != "sepiaTone intensity=1", "the slider did not move")
        #expect((result["fragment"] as? String)?.contains("filter=sepiaTone") == true)
        // Stale values were dropped: fewer renders than slider changes, and never more than one
        // at a time (the page waits for the render in flight, then asks for the latest value).
        let requests = result["requestsDuringSlider"] as? Int ?? 0, changes = result["changesDuringSlider"] as? Int ?? 0
        #expect(requests >= 1 && requests < changes, "\(requests) renders for \(changes) slider changes")
        #expect((result["histogramCount"] as? Int ?? 0) == width * height)
        #expect((result["plan"] as? String)?.contains("render") == true)
        // What the page shows a person: the step by its display name, the slider's number (the
        // value that was rendered), the preview's size and the server's time.
        let shown = try #require(result["shown"] as? [String: Any])
        #expect(shown["stepTitles"] as? [String] == ["Sepia Tone"])
        let sliderText = try #require(shown["sliderOutput"] as? String)
        #expect(filters[0] == "sepiaTone intensity=\(sliderText)", "slider shows \(sliderText), rendered \(filters[0])")
        let timing = try #require(shown["timing"] as? String)
        #expect(timing.hasPrefix("\(width)×\(height) · ") && timing.contains("ms on the server"), "\(timing)")

        // The copied command line, as words.
        let words = try #require(result["commandWords"] as? [String])
        #expect(Array(words.prefix(3)) == ["cyanotype", "apply", "photo.png"])
        let oIndex = try #require(words.firstIndex(of: "-o"))
        #expect(words.contains("--filter") && words.contains(filters[0]))

        // The CLI's render of the same recipe at that size: the picture resized to the box,
        // then the copied command line run on it.
        let resize = try Binary.run(["apply", "photo.png", "-o", "small.png", "--resize", "\(w)x\(h)"], in: f.url)
        #expect(resize.status == 0, "\(resize.stderr)")
        var onSmall = Array(words.dropFirst())
        onSmall[1] = "small.png"
        onSmall[oIndex] = "reference.png"
        let reference = try Binary.run(onSmall, in: f.url)
        #expect(reference.status == 0, "\(reference.stderr)")
        let expected = try Pixels(contentsOf: f.url.appendingPathComponent("reference.png"))
        #expect(expected.width == width && expected.height == height)
        let difference = try #require(preview.maxDifference(expected))
        #expect(difference <= 1, "the preview differs from the CLI by up to \(difference) levels")

        // The copied command line, run as is, reproduces the full-size image the page exports.
        let full = try Binary.run(Array(words.dropFirst()), in: f.url)
        #expect(full.status == 0, "\(full.stderr)")
        let written = try Pixels(contentsOf: f.url.appendingPathComponent(words[oIndex + 1]))
        let url = try #require(result["url"] as? String)
        let exported = try s.get(String(url.dropFirst("http://127.0.0.1:\(s.port)".count)))
        #expect(exported.status == 200)
        let served = try Pixels(exported.body)
        #expect(written.width == 840 && written.height == 600)
        #expect(served.maxDifference(written) ?? 99 <= 1)

        // The JSON recipe the page copies is /api/render's body: posted, it renders the same
        // chain; the Instafilter recipe, posted as "recipe", too.
        let recipeText = try #require(result["recipe"] as? String)
        let request = try JSONSerialization.jsonObject(with: Data(recipeText.utf8))
        let byRequest = try s.post("/api/render", json: request)
        #expect(byRequest.status == 200, "\(recipeText)")
        #expect(try Pixels(byRequest.body).maxDifference(written) ?? 99 <= 1)
        // With a look chosen from the LUT list, the copied JSON carries it: posted, it renders
        // what the command line renders with --lut.
        let withLUTText = try #require(result["recipeWithLUT"] as? String)
        let withLUT = try #require(try JSONSerialization.jsonObject(with: Data(withLUTText.utf8)) as? [String: Any])
        #expect(withLUT["lut"] as? String == "warmFilm", "\(withLUTText)")
        let byLUTRequest = try s.post("/api/render", json: withLUT)
        #expect(byLUTRequest.status == 200)
        let lutCLI = try Binary.run(Array(words.dropFirst()).map { $0 == words[oIndex + 1] ? "lut.png" : $0 } + ["--lut", "warmFilm"], in: f.url)
        #expect(lutCLI.status == 0, "\(lutCLI.stderr)")
        let lutWritten = try Pixels(contentsOf: f.url.appendingPathComponent("lut.png"))
        #expect(try Pixels(byLUTRequest.body).maxDifference(lutWritten) ?? 99 <= 1)
        #expect(lutWritten.maxDifference(written) ?? 0 > 3, "the look changes the picture")
        let instafilterText = try #require(result["instafilter"] as? String)
        let recipe = try JSONSerialization.jsonObject(with: Data(instafilterText.utf8))
        let byRecipe = try s.post("/api/render", json: ["image": "photo.png", "recipe": recipe])
        #expect(byRecipe.status == 200)
        #expect(try Pixels(byRecipe.body).maxDifference(written) ?? 99 <= 1)
        #expect((result["swift"] as? String)?.contains("applyingFilter(\"CISepiaTone\"") == true)
    }
}
