import Foundation
import Testing

/// The page's "Copy JSON recipe" (Page/copies.js, run under Node as the page runs it in the
/// browser): posted to `/api/render`, it renders the chain with its LUT, a .cube file or a
/// built-in look (issue #24: the LUT used to be dropped).
@Suite struct CopiedJSONRecipe {
    static let node = ["/usr/bin/node", "/usr/bin/nodejs"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The JSON the page copies for `state` and `specs`, from copies.js itself.
    func copied(state: [String: Any], specs: [String]) throws -> [String: Any] {
        let script = Binary.repo.appendingPathComponent("Sources/CyanotypeServe/Page/copies.js").path
        let input = String(decoding: try JSONSerialization.data(withJSONObject: ["state": state, "specs": specs]), as: UTF8.self)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try #require(Self.node))
        p.arguments = [
            "-e", "const c = require(process.argv[1]); const i = JSON.parse(process.argv[2]); process.stdout.write(JSON.stringify(c.renderRequest(i.state, i.specs)))",
            script, input,
        ]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        try #require(p.terminationStatus == 0)
        let o = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(o["request"] as? [String: Any])
    }

    @Test(.enabled(if: CopiedJSONRecipe.node != nil, "needs Node.js to run the page's copies.js"))
    func postedBackItRendersWithTheLUT() throws {
        let f = try Folder()
        try f.card("photo.png", 48, 32, stripes: false)
        // A 2-point .cube that inverts: the oracle is 255 - the source, per sample.
        let cube = "LUT_3D_SIZE 2\n" + (0..<8).map { i in "\(1 - i & 1) \(1 - (i >> 1) & 1) \(1 - (i >> 2) & 1)" }.joined(separator: "\n") + "\n"
        try Data(cube.utf8).write(to: f.url.appendingPathComponent("invert.cube"))
        let s = try Server(root: f.url)
        defer { s.stop() }
        let source = try Pixels(contentsOf: f.url.appendingPathComponent("photo.png"))

        let request = try copied(state: ["image": "photo.png", "lut": "invert.cube", "preset": "", "intensity": NSNull(), "format": "png"], specs: [])
        #expect(request["lut"] as? String == "invert.cube" && request["image"] as? String == "photo.png")
        let inverted = try s.post("/api/render", json: request)
        try #require(inverted.status == 200, "\(String(decoding: inverted.body, as: UTF8.self))")
        let got = try Pixels(inverted.body)
        let expected = Pixels(width: source.width, height: source.height, rgba: source.rgba.enumerated().map { $0.offset % 4 == 3 ? $0.element : 255 - $0.element })
        #expect(got.maxDifference(expected) ?? 99 <= 1, "the LUT was not applied as the .cube says")

        // A built-in look at half strength, after a filter: what the command line renders.
        let look = try copied(
            state: ["image": "photo.png", "lut": "warmFilm", "preset": "", "intensity": 0.5, "format": "png", "quality": 80],
            specs: ["sepiaTone intensity=0.3"])
        #expect(look["intensity"] as? Double == 0.5 && look["quality"] == nil, "PNG takes no quality: \(look)")
        let byJSON = try s.post("/api/render", json: look)
        try #require(byJSON.status == 200)
        let cli = try Binary.run(
            ["apply", "photo.png", "-o", "cli.png", "--filter", "sepiaTone intensity=0.3", "--lut", "warmFilm", "--intensity", "0.5"], in: f.url)
        #expect(cli.status == 0, "\(cli.stderr)")
        let reference = try Pixels(contentsOf: f.url.appendingPathComponent("cli.png"))
        #expect(try Pixels(byJSON.body).maxDifference(reference) ?? 99 <= 1)
        let plain = try s.post("/api/render", json: ["image": "photo.png", "filters": ["sepiaTone intensity=0.3"]])
        #expect(try Pixels(plain.body).maxDifference(reference) ?? 0 > 3, "without the look the picture differs")
    }
}
