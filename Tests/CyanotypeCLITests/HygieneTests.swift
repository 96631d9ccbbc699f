import CyanotypeTestSupport
import CyanotypeCodecs
import CyanotypeTool
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue #24, the CLI's data hygiene: interrupted writes, header bombs, batch's layout and
/// reports, messages in the user's terms, and the habits people bring from vips/ImageMagick.
@Suite struct HygieneTests {
    // MARK: Interrupts

    /// Starts `args` in `w`, waits (60 s at most) until a temporary file appears under
    /// `folder`, sends `sig`, and returns whether it was still running, its status, stderr and
    /// every file left under `folder` (dot files included).
    func interrupt(_ w: Workspace, _ args: [String], folder: String, signal sig: Int32) throws -> (
        running: Bool, status: Int32, stderr: String, left: [String]
    ) {
        let p = Process()
        p.executableURL = Tool.executable
        p.arguments = args
        p.currentDirectoryURL = w.dir
        let errURL = w.url("stderr.txt")
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        p.standardOutput = FileHandle.nullDevice
        p.standardError = try FileHandle(forWritingTo: errURL)
        p.standardInput = FileHandle.nullDevice
        try p.run()
        func everything() -> [String] {
            (FileManager.default.enumerator(atPath: w.path(folder))?.allObjects as? [String] ?? []).filter {
                var isDir: ObjCBool = false
                return FileManager.default.fileExists(atPath: w.path(folder + "/" + $0), isDirectory: &isDir) && !isDir.boolValue
            }.sorted()
        }
        waitUntil(seconds: 60, every: 0.02) { !p.isRunning || everything().contains { $0.hasSuffix(".tmp") } }
        let running = p.isRunning
        kill(p.processIdentifier, sig)
        p.waitUntilExit()
        let stderr = String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self)
        return (running, p.terminationStatus, stderr, everything())
    }

    @Test func aSignalDuringAWriteLeavesNoTemporaryFile() throws {
        let w = try Workspace()
        try FileManager.default.createDirectory(at: w.url("out"), withIntermediateDirectories: true)
        // generate, TERM: a 400 MP PNG takes far longer than the wait for its .tmp file.
        let g = try interrupt(
            w, ["generate", "CICheckerboardGenerator", "-o", "out/big.png", "--size", "20000x20000"], folder: "out", signal: SIGTERM)
        #expect(g.running, "generate ended before it could be interrupted")
        #expect(g.status == 1 && g.stderr.contains("interrupted (SIGTERM)"), "\(g.status) \(g.stderr)")
        #expect(g.left.isEmpty, "left behind: \(g.left)")
        // apply, HUP: an enlargement to 400 MP.
        try w.solid("in/small.png", 2000, 2000)
        let a = try interrupt(w, ["apply", "in/small.png", "-o", "out/big.png", "--resize", "1000%"], folder: "out", signal: SIGHUP)
        #expect(a.running, "apply ended before it could be interrupted")
        #expect(a.status == 1 && a.stderr.contains("interrupted (SIGHUP)"), "\(a.status) \(a.stderr)")
        #expect(a.left.isEmpty, "left behind: \(a.left)")
        // batch, TERM: the same enlargement, two files at once.
        try w.solid("in/second.png", 2000, 2000)
        let b = try interrupt(w, ["batch", "in", "-o", "out/b", "--resize", "1000%", "-j", "2"], folder: "out", signal: SIGTERM)
        #expect(b.running, "batch ended before it could be interrupted")
        #expect(b.status == 1 && b.stderr.contains("interrupted (SIGTERM)"), "\(b.status) \(b.stderr)")
        #expect(b.left.isEmpty, "left behind: \(b.left)")
        // The inputs are untouched.
        #expect(w.files(under: "in") == ["second.png", "small.png"])
    }

    // MARK: Header bombs

    /// CRC-32 (ISO-HDLC, the PNG chunk checksum), bit by bit: the test's own.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0xEDB8_8320 : c >> 1 }
        }
        return ~c
    }

    static func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8((v >> $0) & 0xFF) } }
    static func be16(_ v: Int) -> [UInt8] { [UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    /// A PNG declaring `w` x `h` (8-bit RGB) with a tiny IDAT (a stored zlib block of zeros).
    static func pngBomb(_ w: Int, _ h: Int) -> Data {
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            return be32(body.count) + typed + be32(Int(crc32(typed)))
        }
        let ihdr = be32(w) + be32(h) + [8, 2, 0, 0, 0]
        // zlib: header 78 01, one final stored block of 10 zero bytes, Adler-32 of those (1).
        let idat: [UInt8] = [0x78, 0x01, 0x01, 0x0A, 0x00, 0xF5, 0xFF] + [UInt8](repeating: 0, count: 10) + [0x00, 0x0A, 0x00, 0x01]
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr) + chunk("IDAT", idat) + chunk("IEND", []))
    }

    /// A baseline JPEG declaring `w` x `h` (three components) with a few bytes of scan data.
    static func jpegBomb(_ w: Int, _ h: Int) -> Data {
        func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] { [0xFF, marker] + be16(body.count + 2) + body }
        let dqt = segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
        let sof = segment(0xC0, [8] + be16(h) + be16(w) + [3, 1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0])
        let sos = segment(0xDA, [3, 1, 0, 2, 0, 3, 0, 0, 0x3F, 0])
        return Data([0xFF, 0xD8] + dqt + sof + sos + [UInt8](repeating: 0, count: 16) + [0xFF, 0xD9])
    }

    @Test func headerBombsAreRefusedFromTheirDeclaredSize() throws {
        let w = try Workspace()
        let png = Self.pngBomb(100_000, 100_000)
        #expect(png.count < 100)  // a header, a few bytes of data and IEND
        try png.write(to: w.url("bomb.png"))
        try Self.jpegBomb(65000, 65000).write(to: w.url("bomb.jpg"))
        if commandExists("identify") {
            // ImageMagick reads the JPEG's header as we wrote it.
            let id = try Tool.run(["-ping", "-format", "%wx%h", "bomb.jpg"], in: w.dir, executable: URL(fileURLWithPath: "/usr/bin/identify"))
            #expect(id.out == "65000x65000", "\(id.stderr)")
        }
        for (file, size) in [("bomb.png", "100000x100000"), ("bomb.jpg", "65000x65000")] {
            // Shrink-on-load or not, the default limit and an explicit one.
            for extra in [["--max-size", "100"], ["--thumbnail", "64"], [], ["--max-size", "100", "--pixel-limit", "1000000"]] {
                let r = try Tool.run(["apply", file, "-o", "out.png"] + extra, in: w.dir)
                let limit = extra.contains("--pixel-limit") ? "1000000" : "1073741824"
                #expect(r.status == 1, "\(file) \(extra): \(r.stderr)")
                #expect(r.stderr.contains("\(file): the image is \(size) pixels, above the limit of \(limit) pixels"), "\(r.stderr)")
                #expect(!w.exists("out.png"))
            }
        }
        // batch: a per-file failure with the same message.
        let b = try w.run("batch", "bomb.png", "-o", "b", "--max-size", "100")
        #expect(b.status == 1 && b.stderr.contains("bomb.png: the image is 100000x100000 pixels, above the limit"), "\(b.stderr)")
    }

    /// A little-endian TIFF declaring `w` x `h` (8-bit RGB, deflate, one strip whose 16 bytes
    /// are the header's own: no valid image data).
    static func tiffBomb(_ w: Int, _ h: Int) -> Data {
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
        func le32(_ v: Int) -> [UInt8] { [0, 8, 16, 24].map { UInt8((v >> $0) & 0xFF) } }
        let entries: [(Int, Int, Int)] = [(256, 4, w), (257, 4, h), (258, 3, 8), (259, 3, 8), (262, 3, 2), (273, 4, 8), (277, 3, 3), (278, 4, h), (279, 4, 16)]
        var b: [UInt8] = [0x49, 0x49, 42, 0] + le32(8) + le16(entries.count)
        for (tag, type, value) in entries { b += le16(tag) + le16(type) + le32(1) + le32(value) }
        return Data(b + le32(0))
    }

    /// TIFFs stream by strips (#26): one declaring more than the limit is refused from its
    /// header; one under the limit whose first strip is garbage fails with the decoder's
    /// reason as soon as that strip does (the thumbnail's downscale stops there).
    @Test func tiffBombsAreRefusedOrFailAtTheirFirstStrip() throws {
        let w = try Workspace()
        try Self.tiffBomb(100_000, 100_000).write(to: w.url("bomb.tif"))
        try Self.tiffBomb(30000, 30000).write(to: w.url("mid.tif"))
        for extra in [["--max-size", "100"], []] {
            let r = try Tool.run(["apply", "bomb.tif", "-o", "out.png"] + extra, in: w.dir)
            #expect(r.status == 1 && r.stderr.contains("bomb.tif: the image is 100000x100000 pixels, above the limit"), "\(r.stderr)")
            let m = try Tool.run(["apply", "mid.tif", "-o", "out.jpg"] + extra, in: w.dir)
            #expect(m.status == 1 && m.stderr.contains("mid.tif"), "\(m.stderr)")
            #expect(!w.exists("out.png") && !w.exists("out.jpg"))
        }
    }

    /// WebP, GIF and JPEG XL files of a few dozen bytes declaring far more pixels than the
    /// limit (#26): refused from their header with the limit's message, downscale or not,
    /// before any pixel is decoded (the same files as the library's EveryFormatBombTests).
    @Test func headerBombsOfEveryFormatAreRefused() throws {
        let w = try Workspace()
        func le32(_ v: Int) -> [UInt8] { [0, 8, 16, 24].map { UInt8((v >> $0) & 0xFF) } }
        // VP8L: signature, then 14-bit width-1 and height-1 (16384 each), no alpha, version 0.
        let vp8l: [UInt8] = [0x2F, 0xFF, 0xFF, 0xFF, 0x0F] + [UInt8](repeating: 0, count: 11)
        let chunk = Array("VP8L".utf8) + le32(vp8l.count) + vp8l
        try Data(Array("RIFF".utf8) + le32(4 + chunk.count) + Array("WEBP".utf8) + chunk).write(to: w.url("bomb.webp"))
        // GIF: a 65535 x 65535 screen and frame, two-colour table, one tiny LZW block.
        let gif: [UInt8] =
            Array("GIF89a".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0x80, 0, 0] + [UInt8](repeating: 0, count: 6)
            + [0x2C, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 2, 2, 0x44, 0x01, 0, 0x3B]
        try Data(gif).write(to: w.url("bomb.gif"))
        // JPEG XL codestream: size header 100000 x 100000 (18-bit fields), default metadata.
        var bits: [Int] = []
        func put(_ v: Int, _ n: Int) { for i in 0..<n { bits.append((v >> i) & 1) } }
        put(0, 1); put(2, 2); put(99_999, 18); put(0, 3); put(2, 2); put(99_999, 18); put(1, 1)
        while bits.count % 8 != 0 { bits.append(0) }
        let jxl = stride(from: 0, to: bits.count, by: 8).map { i in UInt8((0..<8).reduce(0) { $0 | bits[i + $1] << $1 }) }
        try Data([0xFF, 0x0A] + jxl + [UInt8](repeating: 0, count: 64)).write(to: w.url("bomb.jxl"))
        for (file, size) in [("bomb.webp", "16384x16384"), ("bomb.gif", "65535x65535"), ("bomb.jxl", "100000x100000")] {
            if commandExists("exiftool") {
                // exiftool reads the size we declared.
                let e = try Tool.run(["-s3", "-ImageSize", file], in: w.dir, executable: URL(fileURLWithPath: "/usr/bin/exiftool"))
                #expect(e.out.trimmingCharacters(in: .whitespacesAndNewlines) == size, "\(file): \(e.stderr)")
            }
            for extra in [["--max-size", "100"], ["--thumbnail", "64"], []] {
                let r = try Tool.run(["apply", file, "-o", "out.png"] + extra, in: w.dir)
                #expect(r.status == 1, "\(file) \(extra): \(r.stderr)")
                #expect(r.stderr.contains("\(file): the image is \(size) pixels, above the limit of 268402689 pixels"), "\(file) \(extra): \(r.stderr)")
                #expect(!w.exists("out.png"))
            }
        }
    }

    // MARK: batch

    @Test func batchRefusesStandardOutput() throws {
        let w = try Workspace()
        try w.solid("a.png", 8, 6)
        let r = try w.run("batch", "a.png", "-o", "-")
        #expect(r.status == 2 && r.stderr.contains("batch writes files into a folder, not to standard output"), "\(r.stderr)")
        #expect(!w.exists("-"))
    }

    @Test func batchLaysOutNamedFilesAndListsAlike() throws {
        let w = try Workspace()
        try w.solid("in/sub/a.png", 8, 6)
        try w.solid("top.png", 10, 4)
        let named = try w.run("batch", "in/sub/a.png", "top.png", "-o", "p")
        #expect(named.status == 0, "\(named.stderr)")
        try Data("in/sub/a.png\ntop.png\n".utf8).write(to: w.url("list.txt"))
        let listed = try w.run("batch", "--files-from", "list.txt", "-o", "l")
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(w.files(under: "p") == ["in/sub/a.png", "top.png"])
        #expect(w.files(under: "l") == w.files(under: "p"))
        // {dir} for a file at the top: no folder, no leading '/'.
        let dir = try w.run("batch", "top.png", "in/sub/a.png", "-o", "d", "--name", "{dir}/{stem}-web.{ext}")
        #expect(dir.status == 0, "\(dir.stderr)")
        #expect(w.files(under: "d") == ["in/sub/a-web.png", "top-web.png"])
        if commandExists("identify") {
            let id = try Tool.run(["-format", "%wx%h", "d/top-web.png"], in: w.dir, executable: URL(fileURLWithPath: "/usr/bin/identify"))
            #expect(id.out == "10x4", "\(id.stderr)")
        }
    }

    @Test func batchReportsEveryFileAndGoesOnPastMissingOnes() throws {
        let w = try Workspace()
        try w.solid("a.png", 8, 6)
        try w.solid("b.png", 4, 4)
        try w.garbage("bad.png")
        #expect(mkfifo(w.path("pipe.png"), 0o644) == 0)
        let r = try w.run("batch", "a.png", "missing.png", "bad.png", "pipe.png", "b.png", "-o", "out", "--json")
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("missing.png: no such file"), "\(r.stderr)")
        #expect(w.files(under: "out") == ["a.png", "b.png"])
        let doc = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        #expect(doc["written"] as? Int == 2 && doc["failed"] as? Int == 3)
        let files = try #require(doc["files"] as? [[String: Any]])
        #expect(files.count == 5)
        var byInput: [String: [String: Any]] = [:]
        for f in files { byInput[f["input"] as? String ?? "?"] = f }
        #expect(Set(byInput.keys) == ["a.png", "missing.png", "bad.png", "pipe.png", "b.png"])
        #expect((byInput["pipe.png"]?["error"] as? String)?.contains("not a regular file") == true, "\(byInput["pipe.png"] ?? [:])")
        #expect(byInput["a.png"]?["status"] as? String == "written" && byInput["a.png"]?["output"] as? String == "out/a.png")
        #expect(byInput["a.png"]?["error"] is NSNull)
        #expect(byInput["missing.png"]?["status"] as? String == "failed")
        #expect((byInput["missing.png"]?["error"] as? String)?.contains("no such file") == true)
        #expect(byInput["bad.png"]?["status"] as? String == "failed")
        for f in files { #expect((f["milliseconds"] as? Double).map { $0 >= 0 } == true, "\(f)") }
        // --jsonl: one JSON object per line, one line per file.
        let l = try w.run("batch", "a.png", "missing.png", "b.png", "-o", "lines", "--jsonl")
        #expect(l.status == 1)
        let lines = l.out.split(separator: "\n")
        #expect(lines.count == 3, "\(l.out)")
        var statuses: [String: String] = [:]
        for line in lines {
            let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            statuses[o["input"] as? String ?? "?"] = o["status"] as? String
        }
        #expect(statuses == ["a.png": "written", "missing.png": "failed", "b.png": "written"])
        let both = try w.run("batch", "a.png", "-o", "x", "--json", "--jsonl")
        #expect(both.status == 2)
    }

    // MARK: Messages

    @Test func messagesInTheUsersTerms() throws {
        let w = try Workspace()
        try w.solid("a.png", 8, 6)
        let exe = Tool.executable.path
        for command in ["info -", "apply - -o o.png"] {
            for redirect in ["<&-", "</dev/null"] {
                let r = try w.shell("'\(exe)' \(command) \(redirect)")
                #expect(r.status == 1, "\(command) \(redirect): \(r.stderr)")
                #expect(r.stderr.contains("standard input is closed or empty"), "\(command) \(redirect): \(r.stderr)")
                #expect(!r.stderr.contains("NSCocoaErrorDomain"))
            }
        }
        try FileManager.default.createDirectory(at: w.url("folder"), withIntermediateDirectories: true)
        let folder = try w.run("info", "folder")
        #expect(folder.status == 1 && folder.stderr.contains("folder: is a folder, not an image file"), "\(folder.stderr)")
        for bad in ["0", "0x10", "50%"] {
            let t = try w.run("apply", "a.png", "-o", "t.png", "--thumbnail", bad)
            #expect(t.status == 2, "\(t.stderr)")
            #expect(t.stderr.contains("--thumbnail expects a size in pixels") && t.stderr.contains("got '\(bad)'"), "\(t.stderr)")
            #expect(!t.stderr.contains("800x600^"), "the --resize grammar: \(t.stderr)")
        }
    }

    // MARK: Habits from vips and ImageMagick

    @Test func infoOnManyFiles() throws {
        let w = try Workspace()
        try w.solid("a.png", 8, 6)
        try w.solid("b.jpg", 5, 3)
        let text = try w.run("info", "a.png", "b.jpg")
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.out.contains("file:        a.png") && text.out.contains("file:        b.jpg") && text.out.contains("size:        5x3"))
        let json = try w.run("info", "a.png", "b.jpg", "missing.png", "--json")
        #expect(json.status == 1 && json.stderr.contains("missing.png: no such file"), "\(json.stderr)")
        let array = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [[String: Any]])
        #expect(array.count == 3)
        #expect(array.map { $0["File"] as? String } == ["a.png", "b.jpg", "missing.png"])
        if commandExists("identify") {
            for (i, name) in ["a.png", "b.jpg"].enumerated() {
                let id = try Tool.run(["-format", "%w %h", name], in: w.dir, executable: URL(fileURLWithPath: "/usr/bin/identify"))
                #expect(id.out == "\(array[i]["PixelWidth"] as? Int ?? -1) \(array[i]["PixelHeight"] as? Int ?? -1)", "\(id.out)")
            }
        }
        #expect(array[2]["Error"] is String)
        // One file stays one object.
        let one = try w.run("info", "a.png", "--json")
        #expect(try JSONSerialization.jsonObject(with: one.stdout) is [String: Any])
    }

    @Test func attachedOptionValues() throws {
        let w = try Workspace()
        try w.noise("n.png", 64, 64)
        for (args, quality) in [(["-q30"], 30), (["--quality=70"], 70), (["-q", "55"], 55)] {
            let r = try Tool.run(["apply", "n.png", "-o", "q.jpg"] + args, in: w.dir)
            #expect(r.status == 0, "\(args): \(r.stderr)")
            if commandExists("identify") {
                // ImageMagick estimates the quality from the quantisation tables.
                let id = try Tool.run(["-format", "%Q", "q.jpg"], in: w.dir, executable: URL(fileURLWithPath: "/usr/bin/identify"))
                #expect(id.out == "\(quality)", "\(args): identify says \(id.out)")
            }
        }
        let j = try w.run("batch", "n.png", "-o", "out", "-j1")
        #expect(j.status == 0 && w.files(under: "out") == ["n.png"], "\(j.stderr)")
        let bad = try w.run("apply", "n.png", "-o", "q.jpg", "-qx")
        #expect(bad.status == 2 && bad.stderr.contains("got 'x'"), "\(bad.stderr)")
    }

    /// ImageMagick's SVG colour table (`convert -list color`), name -> 0xRRGGBB.
    static func imageMagickSVGColors() throws -> [String: UInt32] {
        let r = try Tool.run(["-list", "color"], in: FileManager.default.temporaryDirectory, executable: URL(fileURLWithPath: "/usr/local/bin/convert"))
        var out: [String: UInt32] = [:]
        for line in r.out.split(separator: "\n") {
            let f = line.split(separator: " ", omittingEmptySubsequences: true)
            guard f.count >= 3, f.dropFirst(2).contains("SVG"), f[1].hasPrefix("srgb(") else { continue }
            let v = f[1].dropFirst(5).dropLast().split(separator: ",").compactMap { UInt32($0) }
            guard v.count == 3 else { continue }
            out[f[0].lowercased()] = v[0] << 16 | v[1] << 8 | v[2]
        }
        return out
    }

    @Test func everyCSSColourName() throws {
        #expect(CSSColors.table.count == 148)
        // CSS Color 4 values where ImageMagick 6's table differs from CSS or lacks the name.
        let spec: [String: UInt32] = ["gray": 0x808080, "grey": 0x808080, "greenyellow": 0xADFF2F, "rebeccapurple": 0x663399]
        for (name, value) in spec { #expect(CSSColors.table[name] == value, "\(name)") }
        if commandExists("convert") {
            let magick = try Self.imageMagickSVGColors()
            for (name, value) in CSSColors.table where spec[name] == nil {
                #expect(magick[name] == value, "\(name): ours \(String(value, radix: 16)), ImageMagick's \(magick[name].map { String($0, radix: 16) } ?? "none")")
            }
        } else {
            Issue.record("ImageMagick's convert is missing: scripts/setup.sh --test installs it")
        }
        // End to end: --background and a filter's colour by name, read back by identify.
        let w = try Workspace()
        try w.solid("clear.png", 4, 4, layout: .rgba, color: [0, 0, 0, 0])
        let bg = try w.run("apply", "clear.png", "-o", "bg.png", "--background", "RebeccaPurple", "--alpha", "drop")
        #expect(bg.status == 0, "\(bg.stderr)")
        let gen = try w.run("generate", "constantColorGenerator color=tomato", "--size", "4", "-o", "tomato.png")
        #expect(gen.status == 0, "\(gen.stderr)")
        if commandExists("identify") {
            for (file, rgb) in [("bg.png", "(102,51,153)"), ("tomato.png", "(255,99,71)")] {
                let id = try Tool.run(["-format", "%[pixel:p{1,1}]", file], in: w.dir, executable: URL(fileURLWithPath: "/usr/bin/identify"))
                #expect(id.out.hasSuffix(rgb) || id.out.contains(rgb.dropLast() + ",1)"), "\(file): \(id.out)")
            }
        }
        let bad = try w.run("apply", "clear.png", "-o", "x.png", "--background", "tomatoe")
        #expect(bad.status == 2 && bad.stderr.contains("CSS colour name") && bad.stderr.contains("tomato"), "\(bad.stderr)")
    }

    @Test func presetListDescribesEachLook() throws {
        let w = try Workspace()
        let text = try w.run("preset", "list")
        #expect(text.status == 0)
        let lines = text.out.split(separator: "\n")
        #expect(lines.count == 33, "the 26 CSSgram looks and our 7")
        #expect(lines.filter { $0.contains("(CSSgram)") }.count == 26 && lines.filter { $0.contains("(our own)") }.count == 7)
        // CSSgram's .clarendon is `filter: contrast(1.2) saturate(1.35)` over a blue overlay.
        #expect(lines.contains { $0.hasPrefix("clarendon ") && $0.contains("contrast(1.2) saturate(1.35)") }, "\(text.out)")
        for line in lines {
            let parts = line.split(separator: " ", maxSplits: 1)
            #expect(parts.count == 2 && parts[1].trimmingCharacters(in: .whitespaces).count > 10, "\(line)")
        }
        let json = try w.run("preset", "list", "--json")
        let array = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [[String: Any]])
        #expect(array.count == lines.count)
        #expect(array.allSatisfy { ($0["name"] as? String)?.isEmpty == false && ($0["description"] as? String)?.isEmpty == false })
    }

    @Test func inPlaceRewritesEachFileAtomically() throws {
        let w = try Workspace()
        var o = EncodeOptions()
        o.exif = EXIFFixture.block(width: 32, height: 20)
        try w.picture("a.jpg", 32, 20, options: o) { _, _ in [0.2, 0.4, 0.8, 1] }
        try w.solid("b.png", 10, 6, color: [0.25, 0.5, 0.75, 1])
        // A PNG named .jpg stays a PNG.
        try w.picture("c.jpg", 8, 8, format: .png) { _, _ in [0.5, 0.5, 0.5, 1] }
        chmod(w.path("b.png"), 0o600)
        try w.garbage("bad.jpg")
        let badBefore = try w.bytes("bad.jpg")
        let r = try w.run("apply", "--in-place", "a.jpg", "b.png", "bad.jpg", "c.jpg", "missing.jpg", "--filter", "colorInvert", "--max-size", "16")
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("bad.jpg") && r.stderr.contains("missing.jpg: no such file") && r.stderr.contains("2 of 5 files were not rewritten"), "\(r.stderr)")
        #expect(try w.bytes("bad.jpg") == badBefore, "a file that failed is left as it was")
        #expect(!w.exists("missing.jpg"))
        let left = (try FileManager.default.contentsOfDirectory(atPath: w.dir.path)).filter { $0.hasSuffix(".tmp") }
        #expect(left.isEmpty, "left behind: \(left)")
        if commandExists("identify") {
            for (file, expected) in [("a.jpg", "JPEG 16x10"), ("b.png", "PNG 10x6"), ("c.jpg", "PNG 8x8")] {
                let id = try Tool.run(["-format", "%m %wx%h", file], in: w.dir, executable: URL(fileURLWithPath: "/usr/bin/identify"))
                #expect(id.out == expected, "\(file): \(id.out) \(id.stderr)")
            }
            // colorInvert works on linear values, as Core Image's does: 1 - linear, re-encoded (sRGB curve).
            func lin(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
            func enc(_ v: Double) -> Double { v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055 }
            let want = [64.0, 128, 191].map { Int((enc(1 - lin($0 / 255)) * 255).rounded()) }
            let px = try Tool.run(
                ["-format", "%[fx:int(255*p{2,2}.r+0.5)] %[fx:int(255*p{2,2}.g+0.5)] %[fx:int(255*p{2,2}.b+0.5)]", "b.png"], in: w.dir,
                executable: URL(fileURLWithPath: "/usr/bin/identify"))
            let v = px.out.split(separator: " ").compactMap { Int($0) }
            #expect(v.count == 3 && zip(v, want).allSatisfy { abs($0 - $1) <= 2 }, "\(px.out) against \(want)")
        }
        if commandExists("exiftool") {
            // The EXIF block survives the rewrite (its camera make), with the new size.
            let e = try Tool.run(["-s3", "-Make", "-ExifImageWidth", "a.jpg"], in: w.dir, executable: URL(fileURLWithPath: "/usr/bin/exiftool"))
            #expect(e.out.split(separator: "\n") == ["TestCam", "16"], "\(e.out)")
        }
        var st = stat()
        #expect(stat(w.path("b.png"), &st) == 0 && st.st_mode & 0o777 == 0o600, "permissions kept")
        for (args, message) in [
            (["apply", "--in-place", "a.jpg", "-o", "x.jpg"], "takes no -o"), (["apply", "--in-place", "a.jpg", "--format", "png"], "keeps each file's format"),
            (["apply", "--in-place", "-"], "standard input"),
        ] {
            let bad = try Tool.run(args, in: w.dir)
            #expect(bad.status == 2 && bad.stderr.contains(message), "\(args): \(bad.stderr)")
        }
    }

    @Test func failOnSalvagesATruncatedJPEG() throws {
        let w = try Workspace()
        try w.noise("full.jpg", 64, 48)
        let full = try w.bytes("full.jpg")
        try full.prefix(full.count * 6 / 10).write(to: w.url("cut.jpg"))
        // The default stays strict, and so does truncated.
        for level in [[], ["--fail-on", "error"], ["--fail-on", "truncated"]] {
            let r = try Tool.run(["apply", "cut.jpg", "-o", "strict.png"] + level, in: w.dir)
            #expect(r.status == 1 && r.stderr.contains("cut.jpg: the file is truncated"), "\(level): \(r.stderr)")
            #expect(!w.exists("strict.png"))
        }
        let none = try w.run("apply", "cut.jpg", "-o", "kept.png", "--fail-on", "none")
        #expect(none.status == 0, "\(none.stderr)")
        #expect(none.stderr.contains("warning: cut.jpg: the file is truncated; keeping what could be read (--fail-on none)"), "\(none.stderr)")
        let batch = try w.run("batch", "cut.jpg", "-o", "b", "--fail-on", "none")
        #expect(batch.status == 0 && w.files(under: "b") == ["cut.jpg"] && batch.stderr.contains("the file is truncated; keeping"), "\(batch.stderr)")
        let bad = try w.run("apply", "cut.jpg", "-o", "x.png", "--fail-on", "warning")
        #expect(bad.status == 2 && bad.stderr.contains("--fail-on must be none, truncated, error"), "\(bad.stderr)")
        guard commandExists("identify") && commandExists("compare") && commandExists("convert") else {
            Issue.record("ImageMagick missing: scripts/setup.sh --test installs it")
            return
        }
        let id = try Tool.run(["-format", "%m %wx%h", "kept.png"], in: w.dir, executable: URL(fileURLWithPath: "/usr/bin/identify"))
        #expect(id.out == "PNG 64x48", "\(id.out)")
        // The top rows (surely before the cut) match ImageMagick's decode of the whole file.
        for (input, output) in [("full.jpg", "top-full.png"), ("kept.png", "top-kept.png")] {
            let c = try Tool.run([input, "-crop", "64x8+0+0", "+repage", output], in: w.dir, executable: URL(fileURLWithPath: "/usr/local/bin/convert"))
            #expect(c.status == 0, "\(c.stderr)")
        }
        let cmp = try Tool.run(
            ["-metric", "AE", "-fuzz", "2%", "top-full.png", "top-kept.png", "null:"], in: w.dir, executable: URL(fileURLWithPath: "/usr/bin/compare"))
        #expect(cmp.stderr.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "differing pixels: \(cmp.stderr)")
    }
}
