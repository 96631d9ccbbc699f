import Cyanotype
import CyanotypeCodecs
import Foundation
import Testing

/// 8-bit RGBA samples of a PNG in the workspace.
struct Pixels: Equatable {
    let width: Int
    let height: Int
    let samples: [Int]

    init(_ w: Workspace, _ name: String) throws {
        let b = try ImageCodecs.decode(Data(contentsOf: w.url(name)))
        width = b.width; height = b.height
        samples = b.bitDepth == 16 ? b.pixels16.map { (Int($0) + 128) / 257 } : b.pixels.map(Int.init)
    }

    /// The largest difference of any colour sample (alpha left out) after `map` on this one.
    func maxDifference(from other: Pixels, _ map: (Int, Int) -> Int = { v, _ in v }) -> Int {
        precondition(samples.count == other.samples.count)
        var m = 0
        for i in samples.indices where i % 4 != 3 { m = max(m, abs(map(samples[i], i % 4) - other.samples[i])) }
        return m
    }
}

extension Workspace {
    func writeLUT(_ name: String, _ lut: LUT, layout: LUTImageLayout = .tiles, bitDepth: Int = 8) throws {
        switch (name as NSString).pathExtension {
        case "cube": try lut.cubeData().write(to: url(name))
        case "3dl": try lut.threeDLData().write(to: url(name))
        default: try lut.pngData(layout: layout, bitDepth: bitDepth).write(to: url(name))
        }
    }

    func readLUT(_ name: String, layout: LUTImageLayout? = nil) throws -> LUT {
        try LUT(contentsOf: url(name), layout: layout, maximumSize: 256)
    }
}

enum SampleLUTs {
    static func invert(_ n: Int) throws -> LUT { try LUT.make(size: n) { 1 - $0 } }
    /// Keeps red and green, drops blue: linear, so every interpolation is exact.
    static func zeroBlue() throws -> LUT { try LUT.make(size: 2) { SIMD3($0.x, $0.y, 0) } }
    /// A curved, cross-channel LUT with values spread over 0...1.
    static func graded(_ n: Int = 16) throws -> LUT {
        try LUT.make(size: n, title: "graded") { v in
            SIMD3(pow(v.x, 0.8), 0.6 * v.y + 0.3 * v.x * v.x, 1 - 0.9 * v.z)
        }
    }
}

@Suite struct ApplyWithLUT {
    @Test func cubeIdentityAndInvert() throws {
        let w = try Workspace()
        try w.image("in.png", 16, 12)
        let input = try Pixels(w, "in.png")
        try w.writeLUT("id.cube", LUT.identity(size: 17))
        let id = try w.run("apply", "in.png", "-o", "id.png", "--lut", "id.cube")
        #expect(id.status == 0, "\(id.stderr)")
        #expect(try Pixels(w, "id.png").maxDifference(from: input) <= 1)

        try w.writeLUT("inv.cube", SampleLUTs.invert(2))
        for interp in ["tetrahedral", "trilinear"] {
            let r = try w.run("apply", "in.png", "-o", "inv-\(interp).png", "--lut", "inv.cube", "--interp", interp)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try input.maxDifference(from: Pixels(w, "inv-\(interp).png")) { v, _ in 255 - v } <= 1, "\(interp)")
        }
        // --intensity without a preset is the LUT's: 0 leaves the image, 0.5 of an invert is mid grey.
        #expect(try w.run("apply", "in.png", "-o", "zero.png", "--lut", "inv.cube", "--intensity", "0").status == 0)
        #expect(try Pixels(w, "zero.png").maxDifference(from: input) <= 1)
        #expect(try w.run("apply", "in.png", "-o", "half.png", "--lut", "inv.cube", "--intensity", "0.5").status == 0)
        #expect(try input.maxDifference(from: Pixels(w, "half.png")) { _, _ in 128 } <= 1)
    }

    @Test func tileStripAndHaldImages() throws {
        let w = try Workspace()
        try w.image("in.png", 16, 12)
        let input = try Pixels(w, "in.png")
        func inverted(_ args: String...) throws -> Int {
            let r = try Tool.run(["apply", "in.png", "-o", "out.png"] + args, in: w.dir)
            #expect(r.status == 0, "\(args): \(r.stderr)")
            return try input.maxDifference(from: Pixels(w, "out.png")) { v, _ in 255 - v }
        }
        try w.writeLUT("tiles.png", SampleLUTs.invert(16), layout: .tiles)
        #expect(try w.header("tiles.png").width == 64)
        #expect(try inverted("--lut", "tiles.png") <= 1)
        #expect(try inverted("--lut", "tiles.png", "--lut-layout", "tiles") <= 1)

        // Hald level 2 (N = 4) is 8x8, which also reads as a 2x2 grid of 4x4 tiles: the
        // pixels tell (see LUTLayoutDetection for the note and the ambiguous case).
        try w.writeLUT("hald.png", SampleLUTs.invert(4), layout: .hald)
        #expect(try w.header("hald.png").width == 8)
        #expect(try inverted("--lut", "hald.png", "--lut-layout", "hald") <= 1)
        #expect(try inverted("--lut", "hald.png") <= 1)

        try w.writeLUT("hstrip.png", SampleLUTs.invert(4), layout: .horizontalStrip)
        try w.writeLUT("vstrip.png", SampleLUTs.invert(4), layout: .verticalStrip)
        #expect(try inverted("--lut", "hstrip.png") <= 1)
        #expect(try inverted("--lut", "hstrip.png", "--lut-layout", "strip") <= 1)
        #expect(try inverted("--lut", "vstrip.png", "--lut-layout", "strip") <= 1)
        // 16-bit LUT images and .3dl files too.
        try w.writeLUT("deep.png", SampleLUTs.invert(4), layout: .tiles, bitDepth: 16)
        #expect(try inverted("--lut", "deep.png") <= 1)
        try w.writeLUT("inv.3dl", SampleLUTs.invert(2))
        #expect(try inverted("--lut", "inv.3dl", "--interp", "trilinear") <= 1)
    }

    @Test func builtInLookByName() throws {
        let w = try Workspace()
        try w.image("in.png", 16, 12)
        let input = try Pixels(w, "in.png")
        let name = try #require(LUTConfiguration.shared.lookNames.first)
        let r = try w.run("apply", "in.png", "-o", "look.png", "--lut", name)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Pixels(w, "look.png").maxDifference(from: input) > 2)
        // Forgiving spelling, like presets.
        #expect(try w.run("apply", "in.png", "-o", "look2.png", "--lut", name.uppercased()).status == 0)
        #expect(try Pixels(w, "look2.png") == Pixels(w, "look.png"))
        let bad = try w.run("apply", "in.png", "-o", "x.png", "--lut", "noSuchLook")
        #expect(bad.status == 1 && bad.stderr.contains("noSuchLook") && bad.stderr.contains(name))
        #expect(!w.exists("x.png"))
    }

    /// A LUT file that is missing, unreadable or not a LUT is the input's fault: exit 1.
    @Test func badLUTFilesExitOne() throws {
        let w = try Workspace()
        try w.image("in.png", 16, 12)
        try w.garbage("bad.cube")
        let garbage = try w.run("apply", "in.png", "-o", "o.png", "--lut", "bad.cube")
        #expect(
            garbage.status == 1 && garbage.stderr.contains("bad.cube: "),
            "\(garbage.stderr)")
        try Data("LUT_3D_SIZE 2\n0 0 0\n1 0 0\n".utf8).write(to: w.url("short.cube"))
        let short = try w.run("apply", "in.png", "-o", "o.png", "--lut", "short.cube")
        #expect(short.status == 1 && short.stderr.contains(LUTError.missingEntries(expected: 8, found: 2).description), "\(short.stderr)")
        let missing = try w.run("apply", "in.png", "-o", "o.png", "--lut", "missing.cube")
        #expect(missing.status == 1 && missing.stderr.contains("missing.cube: no such LUT file"), "\(missing.stderr)")
        try w.garbage("bad.png")
        let notImage = try w.run("apply", "in.png", "-o", "o.png", "--lut", "bad.png")
        #expect(notImage.status == 1 && notImage.stderr.contains("bad.png"), "\(notImage.stderr)")
        // A picture that is no LUT size.
        let picture = try w.run("apply", "in.png", "-o", "o.png", "--lut", "in.png")
        #expect(picture.status == 1 && picture.stderr.contains("in.png: " + LUTError.tileGridNotSquare(width: 16, height: 12).description), "\(picture.stderr)")
        #expect(!w.exists("o.png"))
        #expect(!garbage.stderr.contains("Fatal error"))
    }

    /// A device or pipe named as a LUT or an image is refused as what it is (it was reported
    /// as a permission problem).
    @Test func devicesAreNotRegularFiles() throws {
        let w = try Workspace()
        try w.image("in.png", 16, 12)
        let lut = try w.run("apply", "in.png", "-o", "o.png", "--lut", "/dev/null")
        #expect(lut.status == 1 && lut.stderr.contains("/dev/null: not a regular file (a character device)"), "\(lut.stderr)")
        #expect(!lut.stderr.contains("permission"))
        let info = try w.run("lut", "info", "/dev/null")
        #expect(info.status == 1 && info.stderr.contains("/dev/null: not a regular file"), "\(info.stderr)")
        let image = try w.run("apply", "/dev/null", "-o", "o.png")
        #expect(image.status == 1 && image.stderr.contains("/dev/null: not a regular file (a character device)"), "\(image.stderr)")
        #expect(!w.exists("o.png"))
    }

    @Test func optionValidation() throws {
        let w = try Workspace()
        try w.image("in.png")
        try w.writeLUT("inv.cube", SampleLUTs.invert(2))
        let interp = try w.run("apply", "in.png", "-o", "o.png", "--lut", "inv.cube", "--interp", "cubic")
        #expect(interp.status == 2 && interp.stderr.contains("--interp must be trilinear or tetrahedral, got 'cubic'"))
        let lonely = try w.run("apply", "in.png", "-o", "o.png", "--interp", "trilinear")
        #expect(lonely.status == 2 && lonely.stderr.contains("--interp needs --lut"))
        let layout = try w.run("apply", "in.png", "-o", "o.png", "--lut", "inv.cube", "--lut-layout", "diagonal")
        #expect(layout.status == 2 && layout.stderr.contains("--lut-layout must be tiles, hald or strip"))
        let intensity = try w.run("apply", "in.png", "-o", "o.png", "--intensity", "0.5")
        #expect(intensity.status == 2 && intensity.stderr.contains("--intensity needs --preset or --lut"))
        let help = try w.run("apply", "--help")
        #expect(help.out.contains("--intensity applies to --preset when there is one, otherwise to --lut"))
        #expect(help.out.contains("--interp") && help.out.contains("--lut-layout"))
        // The LUT file is an input: never overwritten.
        try w.writeLUT("lut.png", SampleLUTs.invert(4))
        let over = try w.run("apply", "in.png", "-o", "lut.png", "--lut", "lut.png")
        #expect(over.status == 2 && over.stderr.contains("refusing to overwrite"))
        #expect(!w.exists("o.png"))
    }

    @Test func filtersThenLUTThenPreset() throws {
        let w = try Workspace()
        try w.image("in.png", 16, 12)
        let input = try Pixels(w, "in.png")
        try w.writeLUT("zb.cube", SampleLUTs.zeroBlue())
        // Invert, then drop blue: red and green inverted, blue 0 (the other order leaves blue 255).
        let r = try w.run("apply", "in.png", "-o", "fl.png", "--filter", "colorInvert", "--lut", "zb.cube")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try w.run("apply", "in.png", "-o", "f.png", "--filter", "colorInvert").status == 0)
        let inverted = try Pixels(w, "f.png")
        #expect(try inverted.maxDifference(from: Pixels(w, "fl.png")) { v, c in c == 2 ? 0 : v } <= 1)
        #expect(inverted.maxDifference(from: input) > 100)

        // The preset comes last: one run equals the filter and LUT, then the preset on that.
        #expect(try w.run("apply", "in.png", "-o", "mid.png", "--depth", "16", "--filter", "colorInvert", "--lut", "zb.cube").status == 0)
        #expect(try w.run("apply", "mid.png", "-o", "two.png", "--preset", "clarendon").status == 0)
        #expect(try w.run("apply", "in.png", "-o", "one.png", "--filter", "colorInvert", "--lut", "zb.cube", "--preset", "clarendon").status == 0)
        #expect(try Pixels(w, "one.png").maxDifference(from: Pixels(w, "two.png")) <= 1)
        #expect(try Pixels(w, "one.png").maxDifference(from: Pixels(w, "fl.png")) > 2)
        // With a preset, --intensity is the preset's: 0 leaves the filter+LUT result as it was.
        #expect(
            try w.run(
                "apply", "in.png", "-o", "p0.png", "--filter", "colorInvert", "--lut", "zb.cube",
                "--preset", "clarendon", "--intensity", "0"
            ).status == 0)
        #expect(try Pixels(w, "p0.png").maxDifference(from: Pixels(w, "fl.png")) <= 1)
    }

    @Test func batchSharesOneLUT() throws {
        let w = try Workspace()
        for n in ["in/a.png", "in/sub/b.png", "in/c.png"] { try w.image(n, 8, 6) }
        try w.writeLUT("inv.cube", SampleLUTs.invert(2))
        let r = try w.run("batch", "in", "-o", "out", "--lut", "inv.cube", "-j", "2")
        #expect(r.status == 0 && r.stderr.contains("3 written"), "\(r.stderr)")
        for n in ["a.png", "sub/b.png", "c.png"] {
            #expect(try Pixels(w, "in/" + n).maxDifference(from: Pixels(w, "out/" + n)) { v, _ in 255 - v } <= 1, "\(n)")
        }
        let look = try w.run(
            "batch", "in", "-o", "looks", "--lut", try #require(LUTConfiguration.shared.lookNames.first),
            "--interp", "trilinear", "--intensity", "0.5")
        #expect(look.status == 0 && look.stderr.contains("3 written"), "\(look.stderr)")
        let missing = try w.run("batch", "in", "-o", "none", "--lut", "missing.cube")
        #expect(missing.status == 1 && missing.stderr.contains("missing.cube"))
        #expect(!w.exists("none"))
    }
}

@Suite struct LUTCommands {
    @Test func identityInEveryLayoutThenInfo() throws {
        let w = try Workspace()
        let cases: [(layout: String, file: String, width: Int?, height: Int?, info: [String], extra: [String])] = [
            ("tiles", "t.png", 64, 64, ["layout: tiles (chosen by its pixels", "also fits a Hald CLUT of level 4"], []),
            ("hald", "h.png", 64, 64, ["layout: hald"], ["--lut-layout", "hald"]),
            ("strip", "s.png", 256, 16, ["layout: strip (horizontal"], []),
            ("cube", "c.cube", nil, nil, ["format: .cube text"], []),
        ]
        for c in cases {
            let r = try w.run("lut", "identity", "--size", "16", "--layout", c.layout, "-o", c.file)
            #expect(r.status == 0, "\(c.layout): \(r.stderr)")
            if let width = c.width, let height = c.height {
                let h = try w.header(c.file)
                #expect(h.width == width && h.height == height, "\(c.layout)")
            }
            let info = try Tool.run(["lut", "info", c.file] + c.extra, in: w.dir)
            #expect(info.status == 0, "\(c.layout): \(info.stderr)")
            for line in c.info + ["size: 16 (16^3 = 4096 entries)", "domain: 0.0 ... 1.0", "shaper: none", "colour space: sRGB", "title: "] {
                #expect(info.out.contains(line), "\(c.layout): \(line) not in \(info.out)")
            }
            let layout: LUTImageLayout? = c.layout == "hald" ? .hald : nil
            #expect(try w.readLUT(c.file, layout: layout).maximumDifference(from: LUT.identity(size: 16)) < 1e-4, "\(c.layout)")
        }
        #expect(try w.run("lut", "identity", "--size", "33", "-o", "id.cube").status == 0)
        #expect(try w.readLUT("id.cube").size == 33)
        let hald = try w.run("lut", "identity", "--size", "33", "--layout", "hald", "-o", "h33.png")
        #expect(hald.status == 2 && hald.stderr.contains("not a square") && hald.stderr.contains("--size 25 or --size 36"), "\(hald.stderr)")
        #expect(try w.run("lut", "identity", "--size", "16", "-o", "x.jpg").status == 2)
        #expect(try w.run("lut", "identity", "--size", "16", "--layout", "cube", "-o", "x.png").status == 2)
        #expect(try w.run("lut", "identity", "--size", "1", "-o", "x.cube").status == 2)
        #expect(try w.run("lut", "identity", "-o", "x.cube").status == 2)
        #expect(!w.exists("h33.png") && !w.exists("x.png") && !w.exists("x.cube"))

        // Title, domain and look names in info.
        var wide = try SampleLUTs.graded(5)
        wide.title = "Wide Gamut"
        wide.domainMax = SIMD3(2, 2, 2)
        try w.writeLUT("wide.cube", wide)
        let info = try w.run("lut", "info", "wide.cube")
        #expect(info.out.contains("title: Wide Gamut") && info.out.contains("domain: 0.0 ... 2.0") && info.out.contains("size: 5"), "\(info.out)")
        let name = try #require(LUTConfiguration.shared.lookNames.first)
        let look = try w.run("lut", "info", name)
        #expect(look.status == 0 && look.out.contains("built-in look '\(name)'"))
        try w.garbage("bad.cube")
        let bad = try w.run("lut", "info", "bad.cube")
        #expect(bad.status == 1 && bad.stderr.contains("bad.cube"))
    }

    @Test func convertBetweenEveryPairAndBack() throws {
        let w = try Workspace()
        let original = try SampleLUTs.graded(16)
        try w.writeLUT("orig.cube", original)
        // name, file extension, how to write it, how to read it
        let formats: [(name: String, ext: String, write: [String], read: [String])] = [
            ("cube", "cube", [], []),
            ("3dl", "3dl", [], []),
            ("tiles", "png", ["--layout", "tiles"], []),
            ("hald", "png", ["--layout", "hald"], ["--lut-layout", "hald"]),
            ("strip", "png", ["--layout", "strip"], ["--lut-layout", "strip"]),
        ]
        for f in formats {
            let r = try Tool.run(["lut", "convert", "orig.cube", "a-\(f.name).\(f.ext)"] + f.write, in: w.dir)
            #expect(r.status == 0, "\(f.name): \(r.stderr)")
        }
        #expect(try w.header("a-strip.png").width == 256 && w.header("a-hald.png").width == 64)
        for a in formats {
            for b in formats {
                let mid = "b-\(a.name)-\(b.name).\(b.ext)", back = "back-\(a.name)-\(b.name).cube"
                let there = try Tool.run(["lut", "convert", "a-\(a.name).\(a.ext)", mid] + a.read + b.write, in: w.dir)
                #expect(there.status == 0, "\(a.name) -> \(b.name): \(there.stderr)")
                let again = try Tool.run(["lut", "convert", mid, back] + b.read, in: w.dir)
                #expect(again.status == 0, "\(b.name) -> cube: \(again.stderr)")
                let d = try w.readLUT(back).maximumDifference(from: original)
                let lossless = a.name == "cube" && b.name == "cube"
                #expect(lossless ? d == 0 : d <= 1 / 1023, "\(a.name) -> \(b.name) -> cube: off by \(d)")
            }
        }
    }

    @Test func resampling() throws {
        let w = try Workspace()
        try w.writeLUT("inv.cube", SampleLUTs.invert(2))
        let up = try w.run("lut", "convert", "inv.cube", "inv17.cube", "--size", "17")
        #expect(up.status == 0, "\(up.stderr)")
        let inv17 = try w.readLUT("inv17.cube")
        let exact17 = try SampleLUTs.invert(17)
        #expect(inv17.size == 17 && inv17.maximumDifference(from: exact17) < 1e-5)

        let graded = try SampleLUTs.graded(16)
        try w.writeLUT("g.cube", graded)
        #expect(try w.run("lut", "convert", "g.cube", "g33.cube", "--size", "33").status == 0)
        let g33 = try w.readLUT("g33.cube")
        #expect(g33.size == 33)
        var worst: Float = 0
        for b in 0..<33 {
            for g in 0..<33 {
                for r in 0..<33 {
                    let want = graded.apply(SIMD3(Float(r), Float(g), Float(b)) / 32, interpolation: .tetrahedral)
                    let d = g33[r, g, b] - want
                    worst = max(worst, abs(d.x), abs(d.y), abs(d.z))
                }
            }
        }
        #expect(worst < 1e-5)
        // Same grid: the same table; to an image (Hald needs a square size).
        #expect(try w.run("lut", "convert", "g.cube", "g16.cube", "--size", "16").status == 0)
        #expect(try w.readLUT("g16.cube").maximumDifference(from: graded) < 1e-5)
        #expect(try w.run("lut", "convert", "g.cube", "g64.png", "--size", "64", "--layout", "tiles").status == 0)
        #expect(try w.header("g64.png").width == 512)
        let notSquare = try w.run("lut", "convert", "g.cube", "g33.png", "--size", "33", "--layout", "hald")
        #expect(notSquare.status == 2 && notSquare.stderr.contains("Hald"), "\(notSquare.stderr)")
        #expect(try w.run("lut", "convert", "g.cube", "x.cube", "--size", "1").status == 2)
        #expect(try w.run("lut", "convert", "g.cube", "x.cube", "--size", "300").status == 2)
        #expect(!w.exists("x.cube") && !w.exists("g33.png"))
    }

    @Test func refusesToOverwriteTheInput() throws {
        let w = try Workspace()
        try w.writeLUT("a.cube", SampleLUTs.graded(4))
        let before = try Data(contentsOf: w.url("a.cube"))
        for out in ["a.cube", "./a.cube", w.path("a.cube"), "sub/../a.cube"] {
            let r = try w.run("lut", "convert", "a.cube", out)
            #expect(r.status == 2 && r.stderr.contains("refusing to overwrite"), "\(out): \(r.stderr)")
        }
        #expect(try Data(contentsOf: w.url("a.cube")) == before)
        let jpeg = try w.run("lut", "convert", "a.cube", "a.jpg")
        #expect(jpeg.status == 2 && jpeg.stderr.contains("name the output .cube, .3dl or .png"))
        let layout = try w.run("lut", "convert", "a.cube", "b.cube", "--layout", "hald")
        #expect(layout.status == 2 && layout.stderr.contains("--layout hald is for .png outputs"))
        let missing = try w.run("lut", "convert", "nope.cube", "b.cube")
        #expect(missing.status == 1 && missing.stderr.contains("nope.cube: no such LUT file"))
        #expect(!w.exists("b.cube") && !w.exists("a.jpg"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: w.dir.path).allSatisfy { !$0.hasSuffix(".tmp") })
    }

    @Test func helpAndUsage() throws {
        let w = try Workspace()
        let h = try w.run("lut", "--help")
        #expect(h.status == 0 && h.out.contains("Usage: cyanotype lut ACTION"))
        for word in ["convert IN OUT", "identity", "info FILE", "--lut-layout", "--layout", "--size", "hald", "strip"] {
            #expect(h.out.contains(word), "\(word)")
        }
        #expect(try w.run("help", "lut").out == h.out)
        #expect(try w.run("--help").out.contains("lut"))
        let unknown = try w.run("lut", "frobnicate")
        #expect(unknown.status == 2 && unknown.stderr.contains("unknown lut action 'frobnicate'; the actions are convert, identity, info"))
        #expect(try w.run("lut").status == 2)
        #expect(try w.run("lut", "convert", "a.cube").status == 2)
        let unused = try w.run("lut", "info", "a.cube", "--size", "3")
        #expect(unused.status == 2 && unused.stderr.contains("--size is not used by 'lut info'"))
    }
}

/// Defects 6 and 7: square LUT images are read in the layout their pixels fit (and say so),
/// and Hald outputs of non-square sizes are resampled to the nearest level.
@Suite struct LUTLayoutDetection {
    @Test func haldAndTilesAreToldApartByTheirPixels() throws {
        let w = try Workspace()
        try w.image("in.png", 16, 12)
        let input = try Pixels(w, "in.png")
        // The file `lut convert` makes: a 125x125 Hald CLUT of level 5, valid as 5x5 tiles of 25 too.
        #expect(try w.run("lut", "identity", "--size", "25", "--layout", "hald", "-o", "hald.png").status == 0)
        #expect(try w.header("hald.png").width == 125)
        let r = try w.run("apply", "in.png", "-o", "out.png", "--lut", "hald.png")
        #expect(r.status == 0 && r.stderr.contains("hald.png: read as a Hald CLUT of level 5 (25^3)"), "\(r.stderr)")
        #expect(try Pixels(w, "out.png").maxDifference(from: input) <= 1)
        // A graded LUT in either layout reads back as written.
        for layout in [LUTImageLayout.tiles, .hald] {
            try w.writeLUT("g-\(layout.rawValue).png", SampleLUTs.graded(16), layout: layout, bitDepth: 16)
            let guessed = try w.run("apply", "in.png", "-o", "guess.png", "--lut", "g-\(layout.rawValue).png")
            let told = try w.run(
                "apply", "in.png", "-o", "told.png", "--lut", "g-\(layout.rawValue).png",
                "--lut-layout", layout == .hald ? "hald" : "tiles")
            #expect(guessed.status == 0 && told.status == 0, "\(guessed.stderr) \(told.stderr)")
            #expect(try Pixels(w, "guess.png") == Pixels(w, "told.png"), "\(layout)")
        }
        let info = try w.run("lut", "info", "hald.png")
        #expect(info.out.contains("layout: hald (chosen by its pixels; its size also fits tiles (25^3))"), "\(info.out)")
    }

    @Test func pixelsThatDoNotTellAreRefused() throws {
        let w = try Workspace()
        try w.image("in.png")
        try w.noise("noise.png", 8, 8)
        let r = try w.run("apply", "in.png", "-o", "out.png", "--lut", "noise.png")
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("holds a LUT both as") && r.stderr.contains("--lut-layout hald") && r.stderr.contains("--lut-layout tiles"), "\(r.stderr)")
        #expect(!w.exists("out.png"))
        #expect(try w.run("apply", "in.png", "-o", "out.png", "--lut", "noise.png", "--lut-layout", "tiles").status == 0)
    }

    @Test(arguments: [(17, 16, 64), (33, 36, 216)])
    func haldOutputsOfAnySize(size: Int, hald: Int, side: Int) throws {
        let w = try Workspace()
        #expect(try w.run("lut", "identity", "--size", "\(size)", "-o", "id.cube").status == 0)
        let r = try w.run("lut", "convert", "id.cube", "id.png", "--layout", "hald")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("\(size)^3 is not a Hald size; resampled to \(hald)^3"), "\(r.stderr)")
        #expect(try w.header("id.png").width == side)
        #expect(try w.readLUT("id.png", layout: .hald).maximumDifference(from: LUT.identity(size: hald)) < 1e-3)
    }
}
