import Cyanotype
import CyanotypeCodecs
import Foundation
import Testing

// End-to-end tests for the defects of issue #13 ("the CLI in real use"), one suite per class
// of problem. Inputs are made here; the built `cyanotype` binary is run on them.

/// The output formats this build writes, with their `--format` names.
let writableFormats: [(format: CyanotypeCodecs.ImageFileFormat, name: String)] =
    [(.png, "png"), (.jpeg, "jpeg"), (.webp, "webp"), (.tiff, "tiff"), (.heif, "heic"), (.avif, "avif"), (.jxl, "jxl")]
    .filter { ImageCodecs.canEncode($0.0) }

/// Defect 1: a reader that goes away (`| head`) ends the tool quietly, whatever it writes.
@Suite struct ClosedPipes {
    @Test func everyOutputFormatEndsQuietly() throws {
        let w = try Workspace()
        // Incompressible, so every format's file is larger than a pipe's 64 KiB buffer.
        try w.noise("noise.png", 256, 256)
        for (format, name) in writableFormats {
            let extra = [.webp, .avif, .jxl].contains(format) ? "--lossless" : format == .png || format == .tiff ? "" : "-q 100"
            let r = try w.shell("'\(Tool.executable.path)' apply noise.png -o - --format \(name) \(extra) | head -c 10 > /dev/null; echo \"rc=${PIPESTATUS[0]}\"")
            #expect(r.out == "rc=141\n", "\(name): \(r.out) \(r.stderr)")
            #expect(r.stderr.isEmpty, "\(name): \(r.stderr)")
        }
        // generate writes through the same path.
        let g = try w.shell("'\(Tool.executable.path)' generate randomGenerator -o - --size 256 | head -c 10 > /dev/null; echo \"rc=${PIPESTATUS[0]}\"")
        #expect(g.out == "rc=141\n" && g.stderr.isEmpty, "\(g.out) \(g.stderr)")
    }

    @Test func textOutputsNeverTrap() throws {
        let w = try Workspace()
        try w.solid("in.png")
        for command in ["filters", "filters --json", "describe gaussianBlur --json", "preset list", "info in.png --json", "lut info warmFilm", "--help", "apply --help"] {
            let r = try w.shell("'\(Tool.executable.path)' \(command) | head -c 1 > /dev/null; echo \"rc=${PIPESTATUS[0]}\"")
            #expect(r.out == "rc=0\n" || r.out == "rc=141\n", "\(command): \(r.out)")
            #expect(!r.stderr.contains("Fatal") && !r.stderr.contains("rash"), "\(command): \(r.stderr)")
        }
    }
}

/// Defect 2: two inputs that would write one output are found before any work.
@Suite struct BatchCollisions {
    static let extensions =
        ["jpg", "png", "webp", "tif"] + (ImageCodecs.canEncode(.heif) ? ["heic"] : [])
        + (ImageCodecs.canEncode(.avif) ? ["avif"] : [])

    /// in/A-B/x.A and in/A-B/x.B for every pair of extensions.
    func pairs(_ w: Workspace) throws -> [(folder: String, a: String, b: String)] {
        var out: [(String, String, String)] = []
        let exts = Self.extensions
        for i in exts.indices {
            for j in exts.indices where j > i {
                let folder = "\(exts[i])-\(exts[j])"
                try w.solid("in/\(folder)/x.\(exts[i])", 8, 6)
                try w.solid("in/\(folder)/x.\(exts[j])", 8, 6)
                out.append((folder, exts[i], exts[j]))
            }
        }
        return out
    }

    @Test func everyPairOfExtensions() throws {
        let w = try Workspace()
        let pairs = try pairs(w)
        let refused = try w.run("batch", "in", "-o", "out", "--format", "png")
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("\(pairs.count) outputs would be written by more than one input"), "\(refused.stderr)")
        for p in pairs.prefix(20) {
            let (first, second) = p.a < p.b ? (p.a, p.b) : (p.b, p.a)
            #expect(refused.stderr.contains("out/\(p.folder)/x.png <- in/\(p.folder)/x.\(first), in/\(p.folder)/x.\(second)"), "\(p)")
        }
        #expect(!w.exists("out"), "nothing is written, no folder made")

        let renamed = try w.run("batch", "in", "-o", "out", "--format", "png", "--on-collision", "rename")
        #expect(renamed.status == 0, "\(renamed.stderr)")
        let expected = pairs.flatMap { ["\($0.folder)/x-\($0.a).png", "\($0.folder)/x-\($0.b).png"] }.sorted()
        #expect(w.files(under: "out") == expected)
        #expect(renamed.stderr.contains("\(expected.count) images, \(expected.count) written"), "\(renamed.stderr)")

        let skipped = try w.run("batch", "in", "-o", "kept", "--format", "png", "--on-collision", "skip")
        #expect(skipped.status == 0, "\(skipped.stderr)")
        #expect(w.files(under: "kept") == pairs.map { "\($0.folder)/x.png" }.sorted())
        #expect(skipped.stderr.contains("\(pairs.count) written, \(pairs.count) skipped"), "\(skipped.stderr)")
        // The kept one is the first by name, and the summary counts files really written.
        let first = try w.decoded("kept/jpg-png/x.png")
        #expect(first.width == 8)
    }

    @Test func templatesCollideToo() throws {
        let w = try Workspace()
        try w.solid("in/a.png", 4, 4)
        try w.solid("in/sub/b.png", 4, 4)
        let r = try w.run("batch", "in", "-o", "out", "--name", "flat/all.{ext}")
        #expect(r.status == 2 && r.stderr.contains("out/flat/all.png <- in/a.png, in/sub/b.png"), "\(r.stderr)")
        #expect(!w.exists("out"))
        let bad = try w.run("batch", "in", "-o", "out", "--on-collision", "merge")
        #expect(bad.status == 2 && bad.stderr.contains("--on-collision must be error, rename, skip"))
    }
}

/// Defect 3 (and the "opacity after every geometry and blur path" sweep): an opaque input
/// stays opaque, and its borders keep their colour.
@Suite struct Opacity {
    static let color: SIMD4<Double> = [0.75, 0.25, 0.125, 1]

    /// Every path: the tool's geometry and resizing, the geometry filters that keep a rectangle,
    /// and every blur and sharpening filter at its defaults.
    static func paths() throws -> [[String]] {
        var paths: [[String]] = [
            ["--resize", "50%"], ["--resize", "7x7"], ["--resize", "30x10^"], ["--resize", "200%"], ["--resize", "13x11!"],
            ["--thumbnail", "8"], ["--max-size", "10"], ["--crop", "10x8+3+2"], ["--rotate", "90"], ["--rotate", "180"],
            ["--rotate", "270"], ["--flip"], ["--flop"],
            ["-f", "lanczosScaleTransform scale=0.4"], ["-f", "bicubicScaleTransform scale=0.6"],
            ["-f", "affineTransform transform=[0.5 0 0 0.5 0 0]"], ["-f", "straightenFilter angle=0.1"],
            ["--edges", "mirror", "-f", "gaussianBlur radius=4"], ["--edges", "mirror", "--resize", "40%"],
            ["-f", "gaussianBlur radius=6", "--resize", "50%", "--rotate", "90"],
        ]
        for category in ["blur", "sharpen"] {
            let w = try Workspace()
            let r = try w.run("filters", "--category", category, "--json")
            let list = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [[String: Any]])
            // CIDepthBlurEffect needs Apple's depth data: it is listed (as Apple lists it) but
            // cannot run here, and says so.
            // CIMaskedVariableBlur needs a mask: the flat picture itself (one radius everywhere).
            paths += list.compactMap { $0["shortName"] as? String }.filter { $0 != "depthBlurEffect" }.map {
                $0 == "maskedVariableBlur" ? ["-f", "maskedVariableBlur mask=in/rgb.png"] : ["-f", $0]
            }
        }
        return paths
    }

    @Test func everyGeometryAndBlurPath() throws {
        let w = try Workspace()
        try w.solid("in/rgb.png", 24, 16, layout: .rgb, color: Self.color)
        try w.solid("in/rgba.png", 24, 16, layout: .rgba, color: Self.color)
        let expected = [191, 64, 32]
        for (i, path) in try Self.paths().enumerated() {
            for format in ["png", "webp"] where format == "png" || i < 3 || path.contains("gaussianBlur") {
                let out = "out\(i)-\(format)"
                let r = try Tool.run(["batch", "in", "-o", out, "--format", format] + path, in: w.dir)
                #expect(r.status == 0, "\(path): \(r.stderr)")
                let tolerance = format == "png" ? 1 : 4
                // An edge finder on a flat picture finds nothing, to its borders.
                let colour = path.contains("morphologyGradient") ? [0, 0, 0] : expected
                for (name, alpha) in [("rgb", false), ("rgba", true)] {
                    let d = try w.decoded("\(out)/\(name).\(format)")
                    // (libwebp itself leaves out an alpha channel that is all opaque.)
                    if format == "png" || !alpha {
                        #expect(d.header.hasAlpha == alpha, "\(path) \(name).\(format): alpha channel \(d.header.hasAlpha)")
                    }
                    #expect(d.range(3) == 255...255, "\(path) \(name).\(format): alpha \(d.range(3))")
                    for c in 0..<3 {
                        let range = d.range(c)
                        #expect(
                            abs(range.lowerBound - colour[c]) <= tolerance && abs(range.upperBound - colour[c]) <= tolerance,
                            "\(path) \(name).\(format): channel \(c) spans \(range), not \(colour[c])")
                    }
                }
            }
        }
    }

    /// A turn by an odd angle uncovers corners: the background for an opaque input, clear
    /// with --alpha keep or for an input with alpha.
    @Test func oddRotationCorners() throws {
        let w = try Workspace()
        try w.solid("rgb.png", 40, 20, layout: .rgb, color: Self.color)
        try w.solid("rgba.png", 40, 20, layout: .rgba, color: Self.color)
        #expect(try w.run("apply", "rgb.png", "-o", "white.png", "--rotate", "30").status == 0)
        #expect(try w.run("apply", "rgb.png", "-o", "black.jpg", "--rotate", "30", "--background", "black").status == 0)
        #expect(try w.run("apply", "rgb.png", "-o", "clear.png", "--rotate", "30", "--alpha", "keep").status == 0)
        #expect(try w.run("apply", "rgba.png", "-o", "rgba-out.png", "--rotate", "30").status == 0)
        let white = try w.decoded("white.png")
        #expect(!white.header.hasAlpha && white.pixel(0, 0) == [255, 255, 255, 255])
        let mid = white.pixel(white.width / 2, white.height / 2)
        #expect(abs(mid[0] - 191) <= 1 && abs(mid[1] - 64) <= 1)
        let black = try w.decoded("black.jpg")
        #expect(black.pixel(0, 0).prefix(3).allSatisfy { $0 <= 8 })
        for name in ["clear.png", "rgba-out.png"] {
            let d = try w.decoded(name)
            #expect(d.header.hasAlpha && d.pixel(0, 0)[3] == 0, "\(name)")
        }
    }

    /// --edges transparent is Core Image's own behaviour: the borders fade.
    @Test func transparentEdgesOnRequest() throws {
        let w = try Workspace()
        try w.solid("rgb.png", 24, 16, layout: .rgb, color: Self.color)
        #expect(try w.run("apply", "rgb.png", "-o", "fade.png", "-f", "gaussianBlur radius=2", "--edges", "transparent").status == 0)
        let d = try w.decoded("fade.png")
        #expect(d.header.hasAlpha && d.pixel(0, 0)[3] < 200 && d.pixel(12, 8)[3] == 255)
    }
}

/// Defect 4: channels and bit depth are the input's where the output format holds them.
@Suite struct DepthAndChannels {
    struct Input: Sendable {
        let name: String
        let layout: Layout
        let depth: Int
    }
    static let inputs: [Input] = [
        Input(name: "gray8.png", layout: .gray, depth: 8), Input(name: "graya8.png", layout: .grayAlpha, depth: 8),
        Input(name: "rgb8.png", layout: .rgb, depth: 8), Input(name: "rgba8.png", layout: .rgba, depth: 8),
        Input(name: "gray16.png", layout: .gray, depth: 16), Input(name: "graya16.png", layout: .grayAlpha, depth: 16),
        Input(name: "rgb16.png", layout: .rgb, depth: 16), Input(name: "rgba16.png", layout: .rgba, depth: 16),
        Input(name: "rgb16t.tif", layout: .rgb, depth: 16), Input(name: "gray8t.tif", layout: .gray, depth: 8),
        Input(name: "grayj.jpg", layout: .gray, depth: 8),
    ]

    /// A gradient with a half-transparent band, grey when the layout is.
    static func pixel(_ layout: Layout) -> (Int, Int) -> SIMD4<Double> {
        { x, y in
            let v = Double(x) / 31, u = Double(y) / 15
            let a = layout.hasAlpha && y < 4 ? 0.5 : 1
            return layout.isGray ? [v, v, v, a] : [v, u, 1 - v, a]
        }
    }

    func make(_ w: Workspace) throws {
        for i in Self.inputs { try w.picture("in/\(i.name)", 32, 16, layout: i.layout, depth: i.depth, pixel: Self.pixel(i.layout)) }
    }

    /// What a format holds: grey (PNG, TIFF, JPEG, JPEG XL), alpha (all but JPEG), 16 bits
    /// (PNG, TIFF, JPEG XL).
    static func expected(_ i: Input, in format: CyanotypeCodecs.ImageFileFormat) -> (channels: Int, depth: Int) {
        let grey = i.layout.isGray && [.png, .tiff, .jpeg, .jxl].contains(format)
        let alpha = i.layout.hasAlpha && format != .jpeg
        return ((grey ? 1 : 3) + (alpha ? 1 : 0), i.depth == 16 && [.png, .tiff, .jxl].contains(format) ? 16 : 8)
    }

    @Test func keptForEveryFormatThatHoldsThem() throws {
        let w = try Workspace()
        try make(w)
        for (format, name) in writableFormats {
            let r = try w.run("batch", "in", "-o", name, "--format", name)
            #expect(r.status == 0, "\(name): \(r.stderr)")
            for i in Self.inputs {
                let out =
                    "\(name)/" + ((i.name as NSString).deletingPathExtension as NSString).appendingPathExtension(
                        ImageCodecs.format(forPathExtension: (i.name as NSString).pathExtension) == format
                            ? (i.name as NSString).pathExtension
                            : ["png": "png", "jpeg": "jpg", "webp": "webp", "tiff": "tif", "heic": "heic", "avif": "avif", "jxl": "jxl"][name]!)!
                let h = try ImageCodecs.readHeader(w.bytes(out))
                let e = Self.expected(i, in: format)
                #expect(h.channels == e.channels && h.bitDepth == e.depth, "\(i.name) -> \(name): \(h.channels) channels, \(h.bitDepth) bits; expected \(e)")
            }
        }
    }

    @Test func sixteenBitRoundTripsAndExplicitDepth() throws {
        let w = try Workspace()
        try make(w)
        #expect(try w.run("apply", "in/rgb16.png", "-o", "same.png").status == 0)
        let a = try w.decoded("in/rgb16.png"), b = try w.decoded("same.png")
        #expect(b.maxValue == 65535)
        #expect(zip(a.samples, b.samples).map { abs($0 - $1) }.max() ?? 99 <= 2)
        #expect(try w.run("apply", "in/rgb16.png", "-o", "eight.png", "--depth", "8").status == 0)
        #expect(try w.decoded("eight.png").header.bitDepth == 8)
        #expect(try w.run("apply", "in/rgb8.png", "-o", "deep.png", "--depth", "16").status == 0)
        #expect(try w.decoded("deep.png").header.bitDepth == 16)
        // Grey stays grey only while the result is grey: a sepia tone is colour.
        #expect(try w.run("apply", "in/gray8.png", "-o", "sepia.png", "-f", "sepiaTone").status == 0)
        #expect(try w.decoded("sepia.png").header.channels == 3)
        #expect(try w.run("apply", "in/gray8.png", "-o", "blur.png", "-f", "gaussianBlur radius=2").status == 0)
        #expect(try w.decoded("blur.png").header.channels == 1)
        // --alpha drop flattens onto the background and writes no alpha channel.
        #expect(try w.run("apply", "in/rgba8.png", "-o", "flat.png", "--alpha", "drop", "--background", "#000000").status == 0)
        let flat = try w.decoded("flat.png")
        #expect(!flat.header.hasAlpha)
        // Red at alpha 128/255 over black, blended in sRGB-encoded values as ImageMagick's
        // -flatten and browsers do (issue #24): 255 * 128/255 = 128.
        let p = flat.pixel(31, 0)
        #expect(abs(p[0] - 128) <= 1 && p[1] <= 1 && p[2] <= 1, "\(p)")
    }
}

/// Defect 8: barcodes are scaled to --size with whole-pixel modules and a quiet zone.
@Suite struct Barcodes {
    @Test func scaledToTheRequestedSize() throws {
        let w = try Workspace()
        let qr = try w.run("generate", "qrCodeGenerator message=\"hello cyanotype\"", "-o", "qr.png", "--size", "300x300")
        #expect(qr.status == 0, "\(qr.stderr)")
        let d = try w.decoded("qr.png")
        #expect(d.width == 300 && d.height == 300 && d.header.channels == 1)
        // Whole-pixel modules: only black and white, no grey edges.
        #expect(Set(d.samples.enumerated().filter { $0.offset % 4 == 0 }.map(\.element)).isSubset(of: [0, 255]))
        #expect(d.pixel(0, 0)[0] == 255 && d.pixel(299, 299)[0] == 255)
        #expect(try w.run("generate", "qrCodeGenerator message=\"x\"", "-o", "square.png", "--size", "64").status == 0)
        #expect(try w.decoded("square.png").width == 64)
        // Without --size: the largest whole scale inside 512.
        #expect(try w.run("generate", "qrCodeGenerator message=\"hello cyanotype\"", "-o", "auto.png").status == 0)
        let auto = try w.decoded("auto.png")
        #expect(auto.width == auto.height && auto.width > 256 && auto.width <= 512)
        let small = try w.run("generate", "qrCodeGenerator message=\"hello cyanotype\"", "-o", "tiny.png", "--size", "20x20")
        #expect(small.status == 2 && small.stderr.contains("needs at least") && !w.exists("tiny.png"), "\(small.stderr)")
        let aztec = try w.run("generate", "aztecCodeGenerator message=\"hi\"", "-o", "aztec.png", "--size", "100x100")
        #expect(aztec.status == 0)
        let az = try w.decoded("aztec.png")
        #expect(az.width == 100 && az.pixel(0, 0)[0] == 255)
    }

    @Test(.enabled(if: commandExists("zbarimg"), "zbarimg (zbar-tools) reads the codes back"))
    func zbarReadsThem() throws {
        let w = try Workspace()
        #expect(try w.run("generate", "qrCodeGenerator message=\"hello cyanotype\"", "-o", "qr.png", "--size", "200").status == 0)
        #expect(try w.run("generate", "code128BarcodeGenerator message=\"CY-128\"", "-o", "c128.png", "--size", "400x120").status == 0)
        let r = try w.shell("zbarimg -q --raw qr.png c128.png")
        #expect(r.out.contains("hello cyanotype") && r.out.contains("CY-128"), "\(r.out) \(r.stderr)")
    }
}

/// Defect 10: every message names the file or argument at fault, in the tool's own terms.
@Suite struct ToolMessages {
    static let libraryWords = ["CIFilter.", "filterNames(", "DecodeLimits", "CIContextOption", "strict:", "maximumRenderPixels", "Fatal"]

    func clean(_ r: Tool.Result, _ context: String) {
        for word in Self.libraryWords { #expect(!r.stderr.contains(word), "\(context): '\(word)' in \(r.stderr)") }
    }

    @Test func truncatedInputsAreNamed() throws {
        let w = try Workspace()
        try w.noise("full.jpg", 64, 64)
        try w.noise("full.png", 64, 64)
        for (name, ext) in [("cut.jpg", "jpg"), ("cut.png", "png")] {
            let full = try w.bytes("full.\(ext)")
            try full.prefix(full.count * 6 / 10).write(to: w.url(name))
            for out in ["out.png", "out.jpg"] {
                let r = try w.run("apply", name, "-o", out)
                #expect(r.status == 1 && r.stderr.contains("error: \(name): the file is truncated"), "\(name) -> \(out): \(r.stderr)")
                #expect(!r.stderr.contains(out), "\(name) -> \(out): blamed the output: \(r.stderr)")
                clean(r, name)
                #expect(!w.exists(out))
            }
        }
    }

    @Test func limitsInTheToolsTerms() throws {
        let w = try Workspace()
        // 16 bits: decoded whole, so refused when read (an 8-bit PNG streams, and the limit then
        // bounds the rows held at once).
        try w.solid("in.png", 24, 16, depth: 16)
        let read = try w.run("apply", "in.png", "-o", "o.png", "--pixel-limit", "100")
        #expect(read.status == 1 && read.stderr.contains("in.png: the image is 24x16 pixels, above the limit of 100 pixels; raise it with --pixel-limit"), "\(read.stderr)")
        clean(read, "read limit")
        let render = try w.run("apply", "in.png", "-o", "o.png", "--pixel-limit", "1000", "--resize", "400%")
        #expect(
            render.status == 1 && render.stderr.contains("o.png: the result would be 96x64 pixels, above the limit of 1000 pixels; raise it with --pixel-limit"), "\(render.stderr)"
        )
        clean(render, "render limit")
        // --limit is the same option under ImageMagick's name; both at once is a usage error.
        let alias = try w.run("apply", "in.png", "-o", "o.png", "--limit", "100")
        #expect(alias.status == 1 && alias.stderr.contains("above the limit of 100 pixels"), "\(alias.stderr)")
        let both = try w.run("apply", "in.png", "-o", "o.png", "--limit", "100", "--pixel-limit", "100")
        #expect(both.status == 2 && both.stderr.contains("give --limit or --pixel-limit, not both"), "\(both.stderr)")
    }

    @Test(arguments: [
        (["apply", "in.png", "-o", "o.png", "-f", "gausianBlur"], "did you mean 'gaussianBlur'?"),
        (["apply", "in.png", "-o", "o.png", "-f", "gaussianBlur radus=2"], "did you mean 'radius'?"),
        (["apply", "in.png", "-o", "o.png", "--preset", "clarendn"], "did you mean 'clarendon'?"),
        (["apply", "in.png", "-o", "o.png", "--fliter", "sepiaTone"], "did you mean '--filter'?"),
        (["aply", "in.png"], "did you mean 'apply'?"),
        (["lut", "convrt", "a.cube", "b.cube"], "did you mean 'convert'?"),
        (["apply", "in.png", "-o", "o.png", "--format", "pgn"], "did you mean 'png'?"),
        (["apply", "in.png", "-o", "o.png", "--crop", "4x4", "--gravity", "nort"], "did you mean 'north'?"),
        (["apply", "in.png", "-o", "o.png", "--lut", "warmFlim"], "did you mean 'warmFilm'?"),
        (["describe", "qrCodeGenertor"], "did you mean 'qrCodeGenerator'?"),
        (["filters", "--category", "blr"], "did you mean 'blur'?"),
        (["generate", "qrCodeGenerator", "-o", "q.png"], "qrCodeGenerator needs message=\"TEXT\""),
        (["generate", "gaussianBlur", "-o", "q.png"], "gaussianBlur needs an input image"),
    ])
    func namesAndSuggestions(args: [String], message: String) throws {
        let w = try Workspace()
        try w.solid("in.png")
        let r = try Tool.run(args, in: w.dir)
        #expect(r.status != 0 && r.stderr.contains(message), "\(args): \(r.stderr)")
        clean(r, "\(args)")
    }
}

/// Defect 11: help and names tell the whole truth.
@Suite struct HelpAndNames {
    @Test func helpListsEveryFormat() throws {
        let w = try Workspace()
        let help = try w.run("batch", "--help")
        for ext in [".jpg", ".jpeg", ".png", ".webp", ".tif", ".tiff", ".gif", ".heic", ".heif", ".avif"] {
            #expect(help.out.contains(ext), "batch help lacks \(ext)")
        }
        try w.solid("in.png")
        let bmp = try w.run("apply", "in.png", "-o", "out.bmp")
        #expect(bmp.status == 2 && bmp.stderr.contains(".jpg, .png, .webp, .tif, .gif, .heic, .avif, .jxl"), "\(bmp.stderr)")
        #expect(bmp.stderr.contains("--format jpeg|png|webp|tiff|gif|heic|avif|jxl"))
    }

    @Test func shortNamesAndAliases() throws {
        let w = try Workspace()
        let d = try w.run("describe", "CIQRCodeGenerator")
        #expect(d.out.contains("(qrCodeGenerator)") && !d.out.contains("qRCode"))
        let list = try w.run("filters", "--json")
        let json = try #require(try JSONSerialization.jsonObject(with: list.stdout) as? [[String: Any]])
        let shorts = Dictionary(uniqueKeysWithValues: json.compactMap { o in (o["name"] as? String).map { ($0, o["shortName"] as? String ?? "") } })
        #expect(shorts["CICMYKHalftone"] == "cmykHalftone" && shorts["CIPDF417BarcodeGenerator"] == "pdf417BarcodeGenerator")
        #expect(try w.run("generate", "qRCodeGenerator message=\"old spelling\"", "-o", "q.png", "--size", "64").status == 0)
    }

    @Test func formatAgainstExtensionIsSaid() throws {
        let w = try Workspace()
        try w.solid("in.png")
        let r = try w.run("apply", "in.png", "-o", "a.jpeg", "--format", "png")
        #expect(r.status == 0 && r.stderr.contains("warning: writing PNG into 'a.jpeg', whose extension says JPEG"), "\(r.stderr)")
        #expect(try w.decoded("a.jpeg").header.format == .png)
    }
}

/// Defect 12: a missing or unreadable file is exit 1 everywhere; usage is 2; a batch cleans
/// up the folders it made and left empty.
@Suite struct ExitCodesAndLeftovers {
    @Test(arguments: [
        ["apply", "missing.png", "-o", "o.png"],
        ["apply", "in.png", "-o", "o.png", "--lut", "missing.cube"],
        ["apply", "in.png", "-o", "o.png", "-f", "multiplyBlendMode backgroundImage=missing.png"],
        ["apply", "folder", "-o", "o.png"],
        ["info", "missing.png"],
        ["lut", "info", "missing.cube"],
        ["lut", "convert", "missing.cube", "out.cube"],
        ["batch", "missing", "-o", "out"],
        ["batch", "--files-from", "missing.txt", "-o", "out"],
    ])
    func missingFilesExitOne(args: [String]) throws {
        let w = try Workspace()
        try w.solid("in.png")
        try FileManager.default.createDirectory(at: w.url("folder"), withIntermediateDirectories: true)
        let r = try Tool.run(args, in: w.dir)
        #expect(r.status == 1, "\(args): \(r.status) \(r.stderr)")
        #expect(r.stderr.contains("missing") || r.stderr.contains("folder"), "\(args): \(r.stderr)")
    }

    @Test func batchRemovesTheFoldersItLeftEmpty() throws {
        let w = try Workspace()
        try FileManager.default.createDirectory(at: w.url("in/sub"), withIntermediateDirectories: true)
        try w.garbage("in/a.png")
        try w.garbage("in/sub/b.png")
        let r = try w.run("batch", "in", "-o", "out/deep")
        #expect(r.status == 1 && r.stderr.contains("2 failed"), "\(r.stderr)")
        #expect(!w.exists("out"), "empty folders left behind")
        // A folder that was there before is the user's: kept.
        try FileManager.default.createDirectory(at: w.url("mine"), withIntermediateDirectories: true)
        #expect(try w.run("batch", "in", "-o", "mine").status == 1)
        #expect(w.exists("mine"))
        // Folders that hold an output stay.
        try w.solid("in/sub/good.png", 4, 4)
        #expect(try w.run("batch", "in", "-o", "out").status == 1)
        #expect(w.files(under: "out") == ["sub/good.png"])
    }
}
