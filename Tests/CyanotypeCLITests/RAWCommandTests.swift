import Cyanotype
import CyanotypeCodecs
import Foundation
import Testing

// RAW files through the tool: DNGs written by ../CyanotypeTests/Fixtures/make_dng.py (Debian's
// python3 with numpy and Pillow), read back by exiftool and developed by LibRaw's dcraw_emu
// (libraw-bin) as the oracles.

private enum RAWCLI {
    static let python: String? = ["/usr/bin/python3", "/usr/local/bin/python3"].first {
        FileManager.default.isExecutableFile(atPath: $0)
            && (try? Tool.run(["-c", "import numpy, PIL"], in: FileManager.default.temporaryDirectory, executable: URL(fileURLWithPath: $0)).status) == 0
    }
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("CyanotypeTests/Fixtures/make_dng.py").path

    /// Writes `name` in `w` with make_dng.py; the script's JSON.
    static func dng(_ w: Workspace, _ name: String, _ arguments: [String] = []) throws -> [String: Any] {
        let r = try Tool.run([script, w.path(name)] + arguments, in: w.dir, executable: URL(fileURLWithPath: python!))
        #expect(r.status == 0, "make_dng.py: \(r.stderr)")
        return try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any] ?? [:]
    }

    static func ready() -> Bool {
        if python == nil { Issue.record("python3 with numpy and Pillow is missing (python3-numpy, python3-pil): RAW CLI tests not run"); return false }
        if !commandExists("dcraw_emu") { Issue.record("dcraw_emu is missing (libraw-bin): RAW CLI tests not run"); return false }
        if !commandExists("exiftool") { Issue.record("exiftool is missing (libimage-exiftool-perl): RAW CLI tests not run"); return false }
        return true
    }

    /// The sRGB-encoded 8-bit value of linear `v` (the standard curve).
    static func encode(_ v: Double) -> Double {
        let x = max(0, min(1, v))
        return (x <= 0.0031308 ? 12.92 * x : 1.055 * pow(x, 1 / 2.4) - 0.055) * 255
    }
}

@Suite("RAW files in the tool")
struct RAWCommandTests {
    @Test func infoShowsCameraLensISOExposureAndWhiteBalance() throws {
        guard RAWCLI.ready() else { return }
        let w = try Workspace()
        _ = try RAWCLI.dng(w, "shot.dng")
        let r = try Tool.run(["info", "--json", "shot.dng"], in: w.dir)
        #expect(r.status == 0, "\(r.stderr)")
        let p = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any] ?? [:]
        let tags = (try JSONSerialization.jsonObject(with: try w.shell("exiftool -j -n shot.dng").stdout) as? [[String: Any]])?.first ?? [:]
        #expect(p["PixelWidth"] as? Int == tags["ImageWidth"] as? Int ?? 384 && p["PixelWidth"] as? Int == 384)
        #expect(p["PixelHeight"] as? Int == 256)
        let exif = p["{Exif}"] as? [String: Any] ?? [:]
        #expect((exif["ISOSpeedRatings"] as? [Int])?.first == tags["ISO"] as? Int)
        #expect(exif["LensModel"] as? String == tags["LensModel"] as? String)
        #expect(abs((exif["ExposureTime"] as? Double ?? 0) - (tags["ExposureTime"] as? Double ?? -1)) < 1e-4)
        let raw = p["{CyanotypeRAW}"] as? [String: Any] ?? [:]
        #expect(raw["Camera"] as? String == "\(tags["Make"] as? String ?? "") \(tags["Model"] as? String ?? "")")
        // As shot: the camera's response to D65 (6504 K).
        #expect(abs((raw["WhiteBalanceTemperature"] as? Double ?? 0) - 6504) < 200)
        let text = try Tool.run(["info", "shot.dng"], in: w.dir)
        #expect(text.status == 0 && text.out.contains("iso:           400") && text.out.contains("native size:   384x256"), "\(text.out)")
    }

    @Test func applyDevelopsWithTheRAWOptions() throws {
        guard RAWCLI.ready() else { return }
        let w = try Workspace()
        let info = try RAWCLI.dng(w, "shot.dng")
        let grey = (info["patches"] as! [[String: Any]]).first { $0["name"] as? String == "grey" }!
        let (gx, gy) = ((grey["x"] as! Int) + 16, (grey["y"] as! Int) + 16)
        for (name, ev) in [("neutral.png", "0"), ("plus1.png", "1")] {
            let r = try Tool.run(["apply", "shot.dng", "-o", name, "--raw-boost", "0", "--raw-exposure", ev], in: w.dir)
            #expect(r.status == 0, "\(r.stderr)")
        }
        let neutral = try w.decoded("neutral.png"), plus1 = try w.decoded("plus1.png")
        #expect(neutral.width == 384 && neutral.height == 256)
        // LibRaw's own develop with the same settings, sRGB-encoded by the formula.
        let ppm = try w.shell("dcraw_emu -w -o 1 -4 -q 3 -H 0 -t 0 -Z - shot.dng | tail -c \(384 * 256 * 6)").stdout
        let i = (gy * 384 + gx) * 6
        let libraw = Double(Int(ppm[i + 2]) << 8 | Int(ppm[i + 3])) / 65535
        let ours = Double(neutral.pixel(gx, gy)[1]) * 255 / Double(neutral.maxValue)
        #expect(abs(ours - RAWCLI.encode(libraw)) <= 2, "green at the grey patch: ours \(ours), LibRaw \(RAWCLI.encode(libraw))")
        let doubled = Double(plus1.pixel(gx, gy)[1]) * 255 / Double(plus1.maxValue)
        #expect(abs(doubled - RAWCLI.encode(2 * libraw)) <= 2, "+1 EV: \(doubled) against \(RAWCLI.encode(2 * libraw))")
        // White balance by temperature: a 3200 K light makes the grey blue.
        let cool = try Tool.run(["apply", "shot.dng", "-o", "cool.png", "--raw-boost", "0", "--raw-wb", "3200"], in: w.dir)
        #expect(cool.status == 0, "\(cool.stderr)")
        let c = try w.decoded("cool.png").pixel(gx, gy)
        #expect(c[2] > c[0] + 20, "3200 K: \(c)")
        // Draft and --max-size develop at half size and still give the asked size.
        let draft = try Tool.run(["apply", "shot.dng", "-o", "draft.jpg", "--raw-draft", "--max-size", "100"], in: w.dir)
        #expect(draft.status == 0, "\(draft.stderr)")
        let d = try w.decoded("draft.jpg")
        #expect(d.width == 100 && d.height == 67 || d.width == 100 && d.height == 66)
        let bad = try Tool.run(["apply", "shot.dng", "-o", "x.png", "--raw-wb", "banana"], in: w.dir)
        #expect(bad.status != 0 && bad.stderr.contains("--raw-wb"), "\(bad.stderr)")
    }

    @Test func batchDevelopsDNGsAndTruncatedOnesFail() throws {
        guard RAWCLI.ready() else { return }
        let w = try Workspace()
        try FileManager.default.createDirectory(at: w.url("in"), withIntermediateDirectories: true)
        _ = try RAWCLI.dng(w, "in/a.dng")
        let r = try Tool.run(["batch", "in", "-o", "out", "--format", "jpeg"], in: w.dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(w.exists("out/a.jpg"), "\(w.files(under: "out"))")
        if w.exists("out/a.jpg") { #expect(try w.decoded("out/a.jpg").width == 384) }
        // A DNG cut in its image data fails with the reason, never exits 0.
        let whole = try w.bytes("in/a.dng")
        try whole.prefix(whole.count / 2).write(to: w.url("cut.dng"))
        let cut = try Tool.run(["apply", "cut.dng", "-o", "cut.png"], in: w.dir)
        #expect(cut.status != 0)
        #expect(cut.stderr.contains("cut.dng") && (cut.stderr.contains("truncated") || cut.stderr.contains("damaged")), "\(cut.stderr)")
        #expect(!w.exists("cut.png"))
    }
}
