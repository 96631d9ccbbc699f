import Foundation
import Testing
@testable import Cyanotype

// The tools' view of a file through Cyanotype (header peek, "may it hold several frames",
// GPS edits), checked against Pillow (Debian `python3-pil`, in scripts/setup.sh --test):
// Pillow writes the files and says what they hold.

/// A python3 that imports Pillow (Debian's first, then the one on PATH); nil when none does.
private let pillowPython: String? = {
    var candidates = ["/usr/bin/python3"]
    for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") { candidates.append("\(dir)/python3") }
    return candidates.first { path in
        FileManager.default.isExecutableFile(atPath: path) && (try? runPython(path, ["-c", "import PIL"])) != nil
    }
}()

/// Runs `python` with `arguments`; its standard output, or a thrown description (with its
/// standard error) when it fails.
private func runPython(_ python: String, _ arguments: [String]) throws -> Data { try runToolOrThrow(python, arguments) }

/// Writes the sample files into `dir` and prints what Pillow reads back from each, as JSON.
private let pillowScript = #"""
    import json, os, sys
    from PIL import Image
    d = sys.argv[1]
    rgba = Image.new("RGBA", (16, 8), (200, 30, 60, 128))
    rgba.save(os.path.join(d, "still.png"))
    frames = [Image.new("RGB", (12, 10), c) for c in [(255, 0, 0), (0, 0, 255)]]
    frames[0].save(os.path.join(d, "anim.png"), save_all=True, append_images=frames[1:], duration=100, loop=0)
    frames[0].save(os.path.join(d, "anim.webp"), save_all=True, append_images=frames[1:], duration=100, loop=0, lossless=True)
    Image.new("RGB", (9, 7), (10, 200, 30)).save(os.path.join(d, "still.webp"), lossless=True)
    Image.new("I;16", (5, 3), 40000).save(os.path.join(d, "grey16.png"))
    ex = Image.Exif()
    ex[0x0112] = 6
    ex[0x8825] = {1: "N", 2: (48.0, 51.0, 30.0), 3: "E", 4: (2.0, 17.0, 40.0)}
    Image.new("RGB", (20, 10), (90, 90, 90)).save(os.path.join(d, "gps.jpg"), exif=ex.tobytes())
    out = {}
    for name in ["still.png", "anim.png", "anim.webp", "still.webp", "grey16.png", "gps.jpg"]:
        im = Image.open(os.path.join(d, name))
        exif = im.getexif()
        out[name] = {"width": im.width, "height": im.height, "alpha": "A" in im.mode,
                     "bits": 16 if im.mode.startswith("I") else 8, "animated": bool(getattr(im, "is_animated", False)),
                     "orientation": exif.get(0x0112, 1), "gps": len(exif.get_ifd(0x8825)) > 0}
    json.dump(out, sys.stdout)
    """#

/// Reads a raw EXIF block (TIFF-structured) and prints its orientation and GPS entry count.
private let pillowEXIFScript = #"""
    import json, sys
    from PIL import Image
    e = Image.Exif()
    e.load(open(sys.argv[1], "rb").read())
    json.dump({"orientation": e.get(0x0112, 1), "gps": len(e.get_ifd(0x8825))}, sys.stdout)
    """#

@Suite(.enabled(if: pillowPython != nil, "needs Pillow: apt-get install python3-pil (scripts/setup.sh --test)"))
struct ImageFileHeaderTests {
    let dir: URL = {
        let u = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-header-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: u, withIntermediateDirectories: true)
        return u
    }()

    struct Seen: Decodable { var width, height, bits, orientation: Int; var alpha, animated, gps: Bool }

    /// The header peek and the frame hint agree with what Pillow reads from files it wrote.
    @Test func headerAndFrameHintMatchPillow() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let python = try #require(pillowPython)
        let seen = try JSONDecoder().decode([String: Seen].self, from: runPython(python, ["-c", pillowScript, dir.path]))
        #expect(seen.count == 6)
        for (name, want) in seen.sorted(by: { $0.key < $1.key }) {
            let data = try Data(contentsOf: dir.appendingPathComponent(name))
            let h = try ImageFileHeader(reading: data)
            #expect(h.format == ImageFileFormat(pathExtension: (name as NSString).pathExtension), "\(name)")
            #expect(h.width == want.width && h.height == want.height, "\(name): \(h.width)x\(h.height)")
            #expect(h.hasAlpha == want.alpha, "\(name)")
            #expect(h.bitDepth == want.bits, "\(name)")
            #expect(h.orientation == want.orientation, "\(name)")
            #expect(h.exifHasGPS == want.gps, "\(name)")
            #expect(!h.xmpHasGPS, "\(name)")
            #expect(h.isSRGB, "\(name): no profile reads as sRGB")
            let hint = ImageFileHeader.mayHoldSeveralFrames(h.format) { at, count in
                at >= data.count ? [] : [UInt8](data[at..<min(data.count, at + count)])
            }
            #expect(hint == want.animated, "\(name)")
        }
    }

    /// GPS removal leaves a block Pillow reads with no GPS entry and the orientation kept.
    @Test func gpsRemovalAsPillowSeesIt() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let python = try #require(pillowPython)
        _ = try runPython(python, ["-c", pillowScript, dir.path])
        let exif = try #require(try ImageFileHeader(reading: Data(contentsOf: dir.appendingPathComponent("gps.jpg"))).exif)
        #expect(ImageMetadata.exifContainsGPS(exif))
        let stripped = try #require(ImageMetadata.exifRemovingGPS(exif))
        #expect(!ImageMetadata.exifContainsGPS(stripped))
        struct EXIFSeen: Decodable { var orientation, gps: Int }
        func pillow(_ block: Data) throws -> EXIFSeen {
            let file = dir.appendingPathComponent("block-\(block.count).exif")
            try block.write(to: file)
            return try JSONDecoder().decode(EXIFSeen.self, from: runPython(python, ["-c", pillowEXIFScript, file.path]))
        }
        let before = try pillow(exif), after = try pillow(stripped)
        #expect(before.gps == 4 && before.orientation == 6)
        #expect(after.gps == 0 && after.orientation == 6)
    }
}
