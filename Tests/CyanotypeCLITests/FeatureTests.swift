import Cyanotype
import CyanotypeCodecs
import Foundation
import Testing

/// A picture whose pixels say where they are: red = 16 x, green = 16 y (top row 0).
func coded(_ w: Workspace, _ name: String, _ width: Int = 16, _ height: Int = 12) throws {
    try w.picture(name, width, height) { x, y in [Double(16 * x) / 255, Double(16 * y) / 255, 0.5, 1] }
}

extension Decoded {
    /// The (x, y) a coded pixel came from.
    func origin(_ x: Int, _ y: Int) -> (Int, Int) {
        let p = pixel(x, y)
        return ((p[0] + 8) / 16, (p[1] + 8) / 16)
    }
}

/// ImageMagick's geometry in the user's terms: top-left origin, clockwise turns, exact right
/// angles, flip top to bottom, flop left to right.
@Suite struct Geometry {
    /// Runs apply on coded.png and checks every output pixel against `source(x, y)`.
    func check(_ w: Workspace, _ args: [String], size: (Int, Int), source: (Int, Int) -> (Int, Int)) throws {
        let r = try Tool.run(["apply", "coded.png", "-o", "g.png"] + args, in: w.dir)
        #expect(r.status == 0, "\(args): \(r.stderr)")
        let d = try w.decoded("g.png")
        #expect(d.width == size.0 && d.height == size.1, "\(args): \(d.width)x\(d.height)")
        guard d.width == size.0 && d.height == size.1 else { return }
        var wrong = 0
        for y in 0..<d.height { for x in 0..<d.width where d.origin(x, y) != source(x, y) { wrong += 1 } }
        #expect(wrong == 0, "\(args): \(wrong) pixels moved wrongly, e.g. (0,0) came from \(d.origin(0, 0)), expected \(source(0, 0))")
    }

    @Test func cropsTurnsAndMirrors() throws {
        let w = try Workspace()
        try coded(w, "coded.png")  // 16 x 12
        try check(w, ["--crop", "5x4+3+2"], size: (5, 4)) { ($0 + 3, $1 + 2) }
        try check(w, ["--crop", "5x4"], size: (5, 4)) { ($0, $1) }
        try check(w, ["--crop", "5x4+1+1", "--gravity", "southeast"], size: (5, 4)) { ($0 + 10, $1 + 7) }
        try check(w, ["--crop", "4x4", "--gravity", "center"], size: (4, 4)) { ($0 + 6, $1 + 4) }
        try check(w, ["--crop", "40x5+10-2"], size: (6, 3)) { ($0 + 10, $1) }
        try check(w, ["--rotate", "90"], size: (12, 16)) { ($1, 11 - $0) }
        try check(w, ["--rotate", "180"], size: (16, 12)) { (15 - $0, 11 - $1) }
        try check(w, ["--rotate", "270"], size: (12, 16)) { (15 - $1, $0) }
        try check(w, ["--rotate", "-90"], size: (12, 16)) { (15 - $1, $0) }
        try check(w, ["--rotate", "450"], size: (12, 16)) { ($1, 11 - $0) }
        try check(w, ["--flip"], size: (16, 12)) { ($0, 11 - $1) }
        try check(w, ["--flop"], size: (16, 12)) { (15 - $0, $1) }
        // Order: crop, then turn, then flip and flop.
        try check(w, ["--crop", "5x4+3+2", "--rotate", "90", "--flop"], size: (4, 5)) { x, y in (3 + y, 2 + x) }
        let outside = try w.run("apply", "coded.png", "-o", "x.png", "--crop", "4x4+20+0")
        #expect(outside.status == 1 && outside.stderr.contains("--crop 4x4+20+0 lies outside the 16x12 picture"))
        for bad in ["4x", "x4", "4x4+1", "ax4", "4x4+1+b"] {
            #expect(try w.run("apply", "coded.png", "-o", "x.png", "--crop", bad).status == 2, "\(bad)")
        }
        #expect(try w.run("apply", "coded.png", "-o", "x.png", "--gravity", "north").status == 2)
    }

    @Test func resizeGeometries() throws {
        let w = try Workspace()
        try coded(w, "coded.png")  // 16 x 12
        let cases: [([String], Int, Int)] = [
            (["--resize", "50%"], 8, 6), (["--resize", "10x10"], 10, 8), (["--resize", "10x10^"], 13, 10), (["--resize", "10x5!"], 10, 5),
            (["--resize", "8x"], 8, 6), (["--resize", "x6"], 8, 6), (["--resize", "100x100>"], 16, 12), (["--resize", "8x8<"], 16, 12),
            (["--resize", "32x32"], 32, 24), (["--resize", "8x8>"], 8, 6), (["--thumbnail", "8"], 8, 8), (["--thumbnail", "10x6"], 10, 6),
            (["--max-size", "8"], 8, 6), (["--resize", "200%", "--max-size", "20"], 20, 15),
        ]
        for (args, width, height) in cases {
            let r = try Tool.run(["apply", "coded.png", "-o", "r.png"] + args, in: w.dir)
            #expect(r.status == 0, "\(args): \(r.stderr)")
            let d = try w.decoded("r.png")
            #expect(d.width == width && d.height == height, "\(args): \(d.width)x\(d.height), expected \(width)x\(height)")
        }
        // A fill at scale 1 crops by gravity without resampling: pixels exact.
        try check(w, ["--thumbnail", "12", "--gravity", "west"], size: (12, 12)) { ($0, $1) }
        try check(w, ["--thumbnail", "12", "--gravity", "east"], size: (12, 12)) { ($0 + 4, $1) }
        try check(w, ["--thumbnail", "12"], size: (12, 12)) { ($0 + 2, $1) }
        for bad in ["%", "0x5", "5x5^!", "-3%", "x"] {
            let r = try w.run("apply", "coded.png", "-o", "x.png", "--resize", bad)
            #expect(r.status == 2 && r.stderr.contains("--resize expects"), "\(bad): \(r.stderr)")
        }
        #expect(try w.run("apply", "coded.png", "-o", "x.png", "--resize", "5x5", "--thumbnail", "4").status == 2)
        // Halving a picture keeps its content where it was: the mean of each 2x2 block.
        #expect(try w.run("apply", "coded.png", "-o", "half.png", "--resize", "50%").status == 0)
        let half = try w.decoded("half.png")
        #expect(abs(half.pixel(4, 3)[0] - 136) <= 12, "\(half.pixel(4, 3))")
    }
}

/// The encoders' settings reach the files.
@Suite struct EncoderSettings {
    @Test func jpegPngWebpSettings() throws {
        let w = try Workspace()
        try w.noise("n.png", 48, 32)
        #expect(try w.run("apply", "n.png", "-o", "p.jpg", "--progressive").status == 0)
        #expect(try w.run("apply", "n.png", "-o", "b.jpg").status == 0)
        let progressive = try w.bytes("p.jpg"), baseline = try w.bytes("b.jpg")
        #expect(progressive.range(of: Data([0xFF, 0xC2])) != nil && baseline.range(of: Data([0xFF, 0xC2])) == nil)
        // The first component's sampling factors in SOF: 0x11 for 4:4:4, 0x22 for 4:2:0.
        func sampling(_ d: Data) -> UInt8? {
            guard let sof = d.range(of: Data([0xFF, 0xC0])) ?? d.range(of: Data([0xFF, 0xC2])) else { return nil }
            return d[sof.lowerBound + 11]
        }
        for (mode, factor) in [("444", UInt8(0x11)), ("422", 0x21), ("420", 0x22)] {
            #expect(try w.run("apply", "n.png", "-o", "s\(mode).jpg", "--subsample", mode).status == 0)
            #expect(sampling(try w.bytes("s\(mode).jpg")) == factor, "\(mode)")
        }
        #expect(try w.run("apply", "n.png", "-o", "lossless.webp", "--lossless").status == 0)
        #expect(try w.decoded("lossless.webp").samples == w.decoded("n.png").samples)
        #expect(try w.run("apply", "n.png", "-o", "fast.webp", "--effort", "0", "-q", "80").status == 0)
        #expect(try w.run("apply", "n.png", "-o", "slow.webp", "--effort", "6", "-q", "80").status == 0)
        #expect(try w.decoded("fast.webp").width == 48 && w.decoded("slow.webp").width == 48)
        #expect(try w.run("apply", "n.png", "-o", "x.webp", "--effort", "7").status == 2)
        try w.picture("smooth.png", 64, 64) { x, y in [Double(x) / 63, Double(y) / 63, 0.5, 1] }
        #expect(try w.run("apply", "smooth.png", "-o", "c0.png", "--compression", "0").status == 0)
        #expect(try w.run("apply", "smooth.png", "-o", "c9.png", "--compression", "9").status == 0)
        #expect(try w.bytes("c9.png").count < w.bytes("c0.png").count)
        #expect(try w.decoded("c9.png").samples == w.decoded("c0.png").samples)
        // Settings a format does not use are named, not silently dropped.
        let ignored = try w.run("apply", "n.png", "-o", "x.png", "--progressive")
        #expect(ignored.status == 0 && ignored.stderr.contains("warning: --progressive applies to JPEG only"))
    }

    @Test(.enabled(if: ImageCodecs.canEncode(.avif), "this libheif has no AV1 encoder"))
    func avifEffortAndLossless() throws {
        let w = try Workspace()
        try w.noise("n.png", 32, 32)
        #expect(try w.run("apply", "n.png", "-o", "e.avif", "--effort", "9", "-q", "60").status == 0)
        #expect(try w.decoded("e.avif").width == 32)
    }
}

/// Batch in a user's terms: globs, lists, filters, name templates, shards, reports.
@Suite struct BatchInputs {
    func tree(_ w: Workspace) throws {
        for n in ["in/a.png", "in/b.jpg", "in/sub/c.png", "in/sub/deep/d.png", "in/skip/e.png", "other/f.png"] { try w.solid(n, 6, 4) }
        try Data("x".utf8).write(to: w.url("in/notes.txt"))
    }

    @Test func globsListsAndFilters() throws {
        let w = try Workspace()
        try tree(w)
        let glob = try w.run("batch", "in/**/*.png", "-o", "g")
        #expect(glob.status == 0, "\(glob.stderr)")
        #expect(w.files(under: "g") == ["a.png", "skip/e.png", "sub/c.png", "sub/deep/d.png"])
        let top = try w.run("batch", "in/*.png", "-o", "t")
        #expect(w.files(under: "t") == ["a.png"], "\(top.stderr)")
        let mixed = try w.run("batch", "in/sub", "other/f.png", "in/b.jpg", "-o", "m")
        // Files named on the command line keep their relative path, as --files-from lines do.
        #expect(mixed.status == 0 && w.files(under: "m") == ["c.png", "deep/d.png", "in/b.jpg", "other/f.png"], "\(w.files(under: "m"))")
        let filtered = try w.run("batch", "in", "-o", "f", "--include", "*.png", "--exclude", "skip/**")
        #expect(w.files(under: "f") == ["a.png", "sub/c.png", "sub/deep/d.png"], "\(filtered.stderr)")
        try Data("# picks\nin/a.png\n\n./in/sub/c.png\nin/missing.png\n".utf8).write(to: w.url("list.txt"))
        let list = try w.run("batch", "--files-from", "list.txt", "-o", "l")
        #expect(list.status == 1 && list.stderr.contains("in/missing.png: no such file") && list.stderr.contains("2 written, 0 skipped, 1 failed"), "\(list.stderr)")
        #expect(w.files(under: "l") == ["in/a.png", "in/sub/c.png"])
        let stdinList = try w.run("batch", "--files-from", "-", "-o", "s", stdin: Data("in/b.jpg\n".utf8))
        #expect(stdinList.status == 0 && w.files(under: "s") == ["in/b.jpg"])
        let none = try w.run("batch", "-o", "x")
        #expect(none.status == 2 && none.stderr.contains("missing INPUT"))
    }

    @Test func namesReportsAndShards() throws {
        let w = try Workspace()
        try tree(w)
        let named = try w.run("batch", "in", "-o", "n", "--name", "{stem}-web.{ext}", "--format", "webp", "-v", "--json")
        #expect(named.status == 0, "\(named.stderr)")
        #expect(w.files(under: "n") == ["a-web.webp", "b-web.webp", "skip/e-web.webp", "sub/c-web.webp", "sub/deep/d-web.webp"])
        #expect(named.stderr.contains("in/sub/c.png -> n/sub/c-web.webp ("), "\(named.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: named.stdout) as? [String: Any])
        #expect(json["written"] as? Int == 5 && json["failed"] as? Int == 0 && json["images"] as? Int == 5)
        #expect((json["failures"] as? [String])?.isEmpty == true && json["seconds"] is Double)
        // --shard auto with Slurm's variables: every file in exactly one shard.
        var seen: [String] = []
        for i in 0..<3 {
            let r = try w.run(
                "batch", "in", "-o", "shard\(i)", "--shard", "auto",
                env: ["SLURM_ARRAY_TASK_ID": "\(i + 1)", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "3"])
            #expect(r.status == 0 && r.stderr.contains("(shard \(i)/3)"), "\(r.stderr)")
            seen += w.files(under: "shard\(i)")
        }
        #expect(seen.sorted() == ["a.png", "b.jpg", "skip/e.png", "sub/c.png", "sub/deep/d.png"])
        let k8s = try w.run("batch", "in", "-o", "k", "--shard", "auto/2", env: ["JOB_COMPLETION_INDEX": "1"])
        #expect(k8s.status == 0 && k8s.stderr.contains("(shard 1/2)"))
        let noIndex = try w.run("batch", "in", "-o", "z", "--shard", "auto")
        #expect(noIndex.status == 2 && noIndex.stderr.contains("found no array index"))
    }
}
