import Foundation
import Testing

/// RAW camera files through the server: an uploaded DNG (written by the RAW tests' make_dng.py
/// from a known scene) previews from the draft develop and exports from the full one, the
/// export the same pixels as `cyanotype apply` gives for the file.
@Suite struct RAWUploads {
    @Test func anUploadedDNGPreviewsDraftAndExportsFull() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else {
            Issue.record("python3 (with numpy) is missing: the DNG cannot be written")
            return
        }
        let f = try Folder()
        let script = Binary.repo.appendingPathComponent("Tests/CyanotypeTests/Fixtures/make_dng.py").path
        let dng = f.url.appendingPathComponent("shot.dng")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = [script, dng.path, "--no-preview", "--orientation", "6"]
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            Issue.record("make_dng.py failed (python3-numpy missing?)")
            return
        }
        let s = try Server(root: f.url)
        defer { s.stop() }
        // The folder lists the DNG, and its info is the developed, upright size.
        #expect(try s.get("/api/images").json?["images"] as? [String] == ["shot.dng"])
        let info = try s.get("/api/info?image=shot.dng")
        #expect(info.json?["width"] as? Int == 256 && info.json?["height"] as? Int == 384 && info.json?["format"] as? String == "raw")
        let bytes = try Data(contentsOf: dng)
        // Preview: the draft develop, its size the developed image's, turned upright (384x256
        // stored, orientation 6), not the 96x64 TIFF thumbnail the DNG starts with.
        let preview = try s.post("/api/render", json: ["image": ["data": bytes.base64EncodedString()], "width": 64, "preview": true, "format": "png"])
        #expect(preview.status == 200, "\(preview.text)")
        #expect(preview.headers["x-preview"] == "fast")
        #expect(preview.headers["x-source-size"] == "256x384")
        #expect(preview.headers["x-image-size"] == "64x96")
        // Export: the full develop, as the CLI develops the same file.
        let export = try s.post("/api/render", json: ["image": ["data": bytes.base64EncodedString()], "width": 64, "format": "png"])
        #expect(export.status == 200, "\(export.text)")
        #expect(export.headers["x-image-size"] == "64x96")
        let cli = try Binary.run(["apply", "shot.dng", "-o", "cli.png", "--resize", "64x"], in: f.url)
        #expect(cli.status == 0, "\(cli.stderr)")
        let cliPixels = try Pixels(contentsOf: f.url.appendingPathComponent("cli.png"))
        #expect(try Pixels(export.body).maxDifference(cliPixels) ?? 255 <= 1)
        // The draft preview is close to the full develop (half-size develop, same colours).
        let mean = try Pixels(preview.body).meanDifference(cliPixels)
        #expect(mean != nil && mean! < 6, "preview against export: mean difference \(String(describing: mean))")
    }
}
