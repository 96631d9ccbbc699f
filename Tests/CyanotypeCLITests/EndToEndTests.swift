import Cyanotype
import CyanotypeCodecs
import CyanotypeTool
import Foundation
import Testing

/// Runs the built `cyanotype` executable and looks at its exit status, output and files.
enum Tool {
    /// `.build/<config>/cyanotype`, next to the test bundle, else from this file's path.
    static let executable: URL = {
        var candidates = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(repo.appendingPathComponent(".build/debug"))
        for dir in candidates {
            let exe = dir.appendingPathComponent("cyanotype")
            if FileManager.default.isExecutableFile(atPath: exe.path) { return exe }
        }
        return repo.appendingPathComponent(".build/debug/cyanotype")
    }()

    struct Result {
        let status: Int32
        let stdout: Data
        let stderr: String
        var out: String { String(decoding: stdout, as: UTF8.self) }
    }

    static func run(_ args: [String], in dir: URL, stdin: Data? = nil, env: [String: String] = [:], executable: URL? = nil) throws -> Result {
        let p = Process()
        p.executableURL = executable ?? Tool.executable
        p.arguments = args
        p.currentDirectoryURL = dir
        var environment = ProcessInfo.processInfo.environment
        for (k, v) in env { environment[k] = v }
        p.environment = environment
        let id = UUID().uuidString
        let outURL = dir.appendingPathComponent(".stdout-\(id)"), errURL = dir.appendingPathComponent(".stderr-\(id)")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        p.standardOutput = try FileHandle(forWritingTo: outURL)
        p.standardError = try FileHandle(forWritingTo: errURL)
        if let stdin {
            let inURL = dir.appendingPathComponent(".stdin-\(id)")
            try stdin.write(to: inURL)
            p.standardInput = try FileHandle(forReadingFrom: inURL)
        } else {
            p.standardInput = FileHandle.nullDevice
        }
        try p.run()
        p.waitUntilExit()
        return Result(
            status: p.terminationStatus, stdout: try Data(contentsOf: outURL),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }
}

/// A fresh folder with a few tiny images written by the library.
final class Workspace {
    let dir: URL

    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: dir) }

    func url(_ name: String) -> URL { dir.appendingPathComponent(name) }
    func path(_ name: String) -> String { url(name).path }
    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path(name)) }

    /// A small two-colour image, `w`x`h`, in `format` by extension.
    @discardableResult
    func image(_ name: String, _ w: Int = 12, _ h: Int = 8, color: CIColor = CIColor(red: 0.8, green: 0.3, blue: 0.1)) throws -> URL {
        let base = CIImage(color: color).cropped(to: CGRect(x: 0, y: 0, width: w, height: h))
        let half = CIImage(color: .blue).cropped(to: CGRect(x: 0, y: 0, width: w / 2, height: h))
        let url = url(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let format = Cyanotype.ImageFileFormat(pathExtension: url.pathExtension) ?? .png
        try CIContext().encode(half.composited(over: base), as: format).write(to: url)
        return url
    }

    func garbage(_ name: String) throws {
        let bytes = (0..<256).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }
        try Data(bytes).write(to: url(name))
    }

    func run(_ args: String..., stdin: Data? = nil, env: [String: String] = [:]) throws -> Tool.Result {
        try Tool.run(args, in: dir, stdin: stdin, env: env)
    }

    func header(_ name: String) throws -> ImageHeader {
        try ImageCodecs.readHeader(Data(contentsOf: url(name)))
    }
}

@Suite struct GeneralCommands {
    @Test func versionAndHelp() throws {
        let w = try Workspace()
        let v = try w.run("--version")
        #expect(v.status == 0 && v.out == "cyanotype 0.1.0\n")
        let h = try w.run("--help")
        #expect(h.status == 0)
        for c in ["apply", "batch", "generate", "filters", "describe", "info", "demo", "lut", "preset", "video"] {
            #expect(h.out.contains(c))
            let ch = try w.run(c, "--help")
            #expect(ch.status == 0 && ch.out.contains("Usage: cyanotype \(c)"), "\(c) --help")
            let hc = try w.run("help", c)
            #expect(hc.status == 0 && hc.out == ch.out)
        }
    }

    @Test func usageErrorsExitTwo() throws {
        let w = try Workspace()
        let r = try w.run("frobnicate")
        #expect(r.status == 2 && r.stderr.contains("unknown command 'frobnicate'"))
        #expect(try w.run().status == 2)
        #expect(try w.run("apply").status == 2)
        #expect(try w.run("apply", "x.png", "--nope").status == 2)
    }

    @Test func filtersAndDescribe() throws {
        let w = try Workspace()
        let all = try w.run("filters")
        #expect(all.status == 0 && all.out.contains("CIGaussianBlur") && all.out.contains("CISepiaTone"))
        let blur = try w.run("filters", "--category", "blur", "--json")
        #expect(blur.status == 0)
        let list = try #require(try JSONSerialization.jsonObject(with: blur.stdout) as? [[String: Any]])
        let names = list.compactMap { $0["name"] as? String }
        #expect(names.contains("CIGaussianBlur") && !names.contains("CISepiaTone"))
        #expect(try w.run("filters", "--category", "CICategoryBlur").out.contains("CIGaussianBlur"))
        #expect(try w.run("filters", "--category", "nonsense").status == 2)

        let d = try w.run("describe", "gaussianBlur")
        #expect(d.status == 0 && d.out.contains("inputRadius") && d.out.contains("default 10"))
        let dj = try w.run("describe", "CIVignette", "--json")
        let obj = try #require(try JSONSerialization.jsonObject(with: dj.stdout) as? [String: Any])
        #expect(obj["name"] as? String == "CIVignette")
        #expect((obj["inputs"] as? [[String: Any]])?.contains { $0["key"] as? String == "inputIntensity" } == true)
        let unknown = try w.run("describe", "noSuchFilter")
        #expect(unknown.status == 2 && unknown.stderr.contains("unknown filter 'noSuchFilter'"))
    }

    @Test func info() throws {
        let w = try Workspace()
        try w.image("a.png", 12, 8)
        let r = try w.run("info", "a.png")
        #expect(r.status == 0 && r.out.contains("12x8") && r.out.contains("png") && r.out.contains("orientation: 1"))
        let j = try w.run("info", "a.png", "--json")
        let obj = try #require(try JSONSerialization.jsonObject(with: j.stdout) as? [String: Any])
        #expect(obj["PixelWidth"] as? Int == 12 && obj["PixelHeight"] as? Int == 8 && obj["Depth"] as? Int == 8)
        #expect(obj["ColorModel"] as? String == "RGB" && obj["Orientation"] as? Int == 1 && obj["FileSize"] as? Int != nil)
        try w.garbage("bad.png")
        let bad = try w.run("info", "bad.png")
        #expect(bad.status == 1 && bad.stderr.contains("bad.png"))
        let missing = try w.run("info", "missing.png")
        #expect(missing.status == 1 && missing.stderr.contains("missing.png"))
    }
}

@Suite struct ApplyAndGenerate {
    @Test func applyChainResizesAndWrites() throws {
        let w = try Workspace()
        try w.image("in.png", 40, 20)
        let r = try w.run(
            "apply", "in.png", "-o", "out.jpg", "--filter", "gaussianBlur radius=1",
            "--filter", "CISepiaTone inputIntensity=0.5", "--max-size", "10", "-q", "80")
        #expect(r.status == 0, "\(r.stderr)")
        let h = try w.header("out.jpg")
        #expect(h.format == .jpeg && h.width == 10 && h.height == 5)
        // Writing again replaces the output (atomically, through a temporary file).
        #expect(try w.run("apply", "in.png", "-o", "out.jpg", "--max-size", "20").status == 0)
        #expect(try w.header("out.jpg").width == 20)
        #expect(try FileManager.default.contentsOfDirectory(atPath: w.dir.path).allSatisfy { !$0.hasSuffix(".tmp") })
        // Never upscales.
        #expect(try w.run("apply", "in.png", "-o", "same.png", "--max-size", "400").status == 0)
        #expect(try w.header("same.png").width == 40)
    }

    @Test func formatsAndDepth() throws {
        let w = try Workspace()
        try w.image("in.png")
        #expect(try w.run("apply", "in.png", "-o", "deep.png", "--depth", "16").status == 0)
        #expect(try w.header("deep.png").bitDepth == 16)
        #expect(try w.run("apply", "in.png", "-o", "out.bin", "--format", "webp").status == 0)
        #expect(try w.header("out.bin").format == .webp)
        #expect(try w.run("apply", "in.png", "-o", "deep.jpg", "--depth", "16").status == 2)
        #expect(try w.run("apply", "in.png", "-o", "out.tiff").status == 0)
        #expect(try w.header("out.tiff").format == .tiff)
        #expect(try w.run("apply", "in.png", "-o", "deep.tif", "--depth", "16").status == 0)
        #expect(try w.header("deep.tif").bitDepth == 16)
        #expect(try w.run("apply", "in.png", "-o", "out.gif").status == 0)
        #expect(try w.header("out.gif").format == .gif)
        #expect(try w.run("apply", "in.png", "-o", "out.bmp").status == 2)
        #expect(try w.run("apply", "in.png", "-o", "out.png", "--quality", "150").status == 2)
    }

    @Test func imageParameterByPath() throws {
        let w = try Workspace()
        try w.image("in.png")
        try w.image("bg.png", color: .white)
        let r = try w.run("apply", "in.png", "-o", "out.png", "--filter", "multiplyBlendMode backgroundImage=bg.png")
        #expect(r.status == 0, "\(r.stderr)")
        // An image named in a spec is an input too: never overwritten.
        let o = try w.run("apply", "in.png", "-o", "bg.png", "--filter", "multiplyBlendMode backgroundImage=bg.png")
        #expect(o.status == 2 && o.stderr.contains("refusing to overwrite"))
    }

    @Test func explainPrintsThePlanAndWritesNothing() throws {
        let w = try Workspace()
        try w.image("in.png")
        let r = try w.run("apply", "in.png", "-o", "out.png", "--explain", "--filter", "gaussianBlur radius=2")
        #expect(r.status == 0 && r.out.contains("render") && r.out.contains("gaussian"))
        #expect(!w.exists("out.png"))
    }

    @Test func badFiltersKeysAndValues() throws {
        let w = try Workspace()
        try w.image("in.png")
        let name = try w.run("apply", "in.png", "-o", "o.png", "--filter", "gaussianBlurr radius=2")
        #expect(name.status == 2 && name.stderr.contains("unknown filter 'gaussianBlurr'; did you mean 'gaussianBlur'?"))
        let key = try w.run("apply", "in.png", "-o", "o.png", "--filter", "gaussianBlur sigma=2")
        #expect(key.status == 2 && key.stderr.contains("gaussianBlur has no input 'sigma'; its inputs are image, radius"))
        let value = try w.run("apply", "in.png", "-o", "o.png", "--filter", "gaussianBlur radius=big")
        #expect(value.status == 2 && value.stderr.contains("gaussianBlur radius: expected a number, got 'big'"))
        let quote = try w.run("apply", "in.png", "-o", "o.png", "--filter", "gaussianBlur radius=\"2")
        #expect(quote.status == 2 && quote.stderr.contains("unterminated quote"))
        #expect(!w.exists("o.png"))
    }

    @Test func missingAndCorruptInputs() throws {
        let w = try Workspace()
        let missing = try w.run("apply", "nope.png", "-o", "o.png")
        #expect(missing.status == 1 && missing.stderr.contains("nope.png"))
        try w.garbage("random.png")
        let corrupt = try w.run("apply", "random.png", "-o", "o.png")
        #expect(corrupt.status == 1 && corrupt.stderr.contains("random.png"))
        #expect(!corrupt.stderr.contains("Fatal error"))
        try Data().write(to: w.url("empty.png"))
        #expect(try w.run("apply", "empty.png", "-o", "o.png").status == 1)
        let pngHead = try Data(contentsOf: try w.image("ok.png")).prefix(40)
        try pngHead.write(to: w.url("truncated.png"))
        #expect(try w.run("apply", "truncated.png", "-o", "o.png").status == 1)
    }

    @Test func refusesToOverwriteItsInput() throws {
        let w = try Workspace()
        let input = try w.image("in.png")
        let before = try Data(contentsOf: input)
        for out in ["in.png", "./in.png", w.path("in.png"), "sub/../in.png"] {
            let r = try w.run("apply", "in.png", "-o", out, "--filter", "colorInvert")
            #expect(r.status == 2 && r.stderr.contains("refusing to overwrite"), "\(out)")
        }
        #expect(try Data(contentsOf: input) == before)
    }

    @Test func presetsApplyAfterTheFilters() throws {
        let w = try Workspace()
        try w.image("in.png", 16, 12)
        let list = try w.run("preset", "list")
        let names = String(decoding: list.stdout, as: UTF8.self)
        #expect(list.status == 0 && names.contains("clarendon") && names.contains("xpro2"))
        for name in ["Clarendon", "X-Pro II", "lo-fi", "1977"] {
            let r = try w.run("apply", "in.png", "-o", "p.png", "--preset", name, "--intensity", "0.5")
            #expect(r.status == 0, "\(name): \(r.stderr)")
        }
        // Intensity 0 leaves the image as it was.
        let zero = try w.run("apply", "in.png", "-o", "zero.png", "--preset", "clarendon", "--intensity", "0")
        let plain = try w.run("apply", "in.png", "-o", "plain.png")
        #expect(zero.status == 0 && plain.status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: w.path("zero.png"))) == Data(contentsOf: URL(fileURLWithPath: w.path("plain.png"))))
        let bad = try w.run("apply", "in.png", "-o", "o.png", "--preset", "nosuchlook")
        #expect(bad.status == 2 && bad.stderr.contains("unknown preset 'nosuchlook'"))
        let lonely = try w.run("apply", "in.png", "-o", "o.png", "--intensity", "0.5")
        #expect(lonely.status == 2 && lonely.stderr.contains("--intensity needs --preset"))
        let range = try w.run("apply", "in.png", "-o", "o.png", "--preset", "lark", "--intensity", "7")
        #expect(range.status == 2 && range.stderr.contains("from 0 to 1"))
    }

    @Test func stdinAndStdout() throws {
        let w = try Workspace()
        let png = try Data(contentsOf: try w.image("in.png", 12, 8))
        let r = try w.run("apply", "-", "-o", "-", "--filter", "colorInvert", stdin: png)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try ImageCodecs.readHeader(r.stdout).format == .png)
        let j = try w.run("apply", "-", "-o", "-", "--format", "jpeg", stdin: png)
        #expect(try ImageCodecs.readHeader(j.stdout).format == .jpeg)
        let bad = try w.run("apply", "-", "-o", "-", stdin: Data("not an image".utf8))
        #expect(bad.status == 1 && bad.stderr.contains("<stdin>") && bad.stdout.isEmpty)
    }

    @Test func generate() throws {
        let w = try Workspace()
        let r = try w.run("generate", "CICheckerboardGenerator", "-o", "board.png", "--size", "16x8")
        #expect(r.status == 0, "\(r.stderr)")
        let h = try w.header("board.png")
        #expect(h.width == 16 && h.height == 8)
        let g = try w.run("generate", "linearGradient point1=[16 0] color0=#ff0000 color1=[0 0 1 1]", "-o", "grad.webp", "--size", "16x4")
        #expect(g.status == 0, "\(g.stderr)")
        #expect(try w.header("grad.webp").format == .webp)
        #expect(try w.run("generate", "gaussianBlur", "-o", "x.png").status == 2)
        #expect(try w.run("generate", "checkerboardGenerator", "-o", "x.png", "--size", "big").status == 2)
    }

    /// A spec split into words by the shell renders as the same spec in one argument; a word
    /// quoted for the shell keeps its spaces; a stray word is refused with the spec in the message.
    @Test func generateJoinsASpecSplitIntoWords() throws {
        let w = try Workspace()
        let one = try w.run("generate", "qrCodeGenerator message=\"hello world\" correctionLevel=H", "-o", "one.png")
        let split = try w.run("generate", "qrCodeGenerator", "message=hello world", "correctionLevel=H", "-o", "split.png")
        #expect(one.status == 0 && split.status == 0, "\(one.stderr) \(split.stderr)")
        #expect(try Data(contentsOf: w.url("one.png")) == Data(contentsOf: w.url("split.png")))
        let other = try w.run("generate", "qrCodeGenerator", "message=hello", "-o", "other.png")
        #expect(other.status == 0)
        #expect(try Data(contentsOf: w.url("one.png")) != Data(contentsOf: w.url("other.png")))
        let stray = try w.run("generate", "qrCodeGenerator", "message=hello", "world", "-o", "x.png")
        #expect(stray.status == 2 && stray.stderr.contains("expected key=value, got 'world'"), "\(stray.stderr)")
        #expect(FilterSpec.joining(["a", "k=[1 2]", "m=x \"y\""]) == "a k=[1 2] m=\"x \\\"y\\\"\"")
    }
}

@Suite struct Batch {
    /// in/a.png, in/b.jpg, in/sub/c.webp, in/sub/deep/d.png, in/e.PNG, in/notes.txt
    func collection(_ w: Workspace) throws -> [String] {
        for n in ["in/a.png", "in/b.jpg", "in/sub/c.webp", "in/sub/deep/d.png", "in/e.PNG", "in/f.png", "in/sub/g.png"] {
            try w.image(n)
        }
        try Data("hello".utf8).write(to: w.url("in/notes.txt"))
        return ["a.png", "b.jpg", "e.PNG", "f.png", "sub/c.webp", "sub/deep/d.png", "sub/g.png"]
    }

    func files(under dir: URL) -> Set<String> {
        guard let e = FileManager.default.enumerator(atPath: dir.path) else { return [] }
        var out: Set<String> = []
        for case let p as String in e where !p.hasPrefix(".") {
            var isDir: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: dir.appendingPathComponent(p).path, isDirectory: &isDir)
            if !isDir.boolValue { out.insert(p) }
        }
        return out
    }

    @Test func mirrorsFoldersAndSkipsExisting() throws {
        let w = try Workspace()
        let expected = try collection(w)
        let r = try w.run("batch", "in", "-o", "out/nested", "--filter", "sepiaTone", "-j", "2")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(files(under: w.url("out/nested")) == Set(expected))
        #expect(r.stderr.contains("7 written") && r.stderr.contains("0 failed"))
        let replace = try w.run("batch", "in", "-o", "out/nested", "--filter", "colorInvert")
        #expect(replace.status == 0 && replace.stderr.contains("7 written"), "\(replace.stderr)")
        let again = try w.run("batch", "in", "-o", "out/nested", "--skip-existing")
        #expect(again.status == 0 && again.stderr.contains("7 skipped"))
        let jpeg = try w.run("batch", "in", "-o", "jpg", "--format", "jpeg", "--max-size", "4")
        #expect(jpeg.status == 0)
        #expect(files(under: w.url("jpg")).contains("sub/c.jpg"))
        #expect(try w.header("jpg/sub/c.jpg").width == 4)
    }

    @Test func continuesPastBadFiles() throws {
        let w = try Workspace()
        let expected = try collection(w)
        try w.garbage("in/sub/broken.png")
        let r = try w.run("batch", "in", "-o", "out")
        #expect(r.status == 1)
        #expect(r.stderr.contains("broken.png") && r.stderr.contains("1 failed") && r.stderr.contains("7 written"))
        #expect(files(under: w.url("out")) == Set(expected))
    }

    @Test func shardsCoverEveryFileExactlyOnce() throws {
        let w = try Workspace()
        let expected = try collection(w)
        var seen: [String] = []
        for i in 0..<3 {
            let r = try w.run("batch", "in", "-o", "shard\(i)", "--shard", "\(i)/3")
            #expect(r.status == 0, "\(r.stderr)")
            seen += files(under: w.url("shard\(i)"))
        }
        #expect(seen.sorted() == expected.sorted())
        #expect(try w.run("batch", "in", "-o", "x", "--shard", "3/3").status == 2)
    }

    @Test func refusesUnsafeFolders() throws {
        let w = try Workspace()
        _ = try collection(w)
        #expect(try w.run("batch", "in", "-o", "in").status == 2)
        #expect(try w.run("batch", "missing", "-o", "out").status == 1)
        #expect(try w.run("batch", "in", "-o", "out", "--filter", "nope").status == 2)
        // An output folder inside the input folder is not read back as input.
        #expect(try w.run("batch", "in", "-o", "in/out").status == 0)
        #expect(try w.run("batch", "in", "-o", "in/out", "--skip-existing").stderr.contains("7 images"))
    }
}

@Suite struct Demo {
    @Test func writesEveryImageAndASheet() throws {
        let w = try Workspace()
        try w.image("photo.png", 24, 16)
        let r = try w.run("demo", "-o", "demo", "--input", "photo.png", "--max-size", "16")
        #expect(r.status == 0, "\(r.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: w.path("demo"))
        #expect(written.contains("contact-sheet.png") && written.contains("00-original.jpg"))
        // The built-in LUT looks are steps too.
        #expect(written.contains { $0.contains("-lut-") && $0.hasSuffix(".jpg") })
        #expect(written.filter { $0.hasSuffix(".jpg") }.count >= 14)
        #expect(r.out.contains("contact-sheet.png"))
        #expect(try w.header("demo/contact-sheet.png").width > 4 * 16)
    }

    @Test func findsTheShippedSample() throws {
        let w = try Workspace()
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        guard FileManager.default.fileExists(atPath: repo.appendingPathComponent("Samples/astronaut.png").path) else { return }
        let r = try w.run("demo", "-o", "d", "--max-size", "16")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.out.contains("astronaut.png"))
    }
}
