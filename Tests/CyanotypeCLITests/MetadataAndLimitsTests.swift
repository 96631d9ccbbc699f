import Cyanotype
import CyanotypeCodecs
import Foundation
import Testing
@testable import CyanotypeCLI
@testable import CyanotypeTool

/// Defect 5: metadata is treated the same on every path, and --strip/--keep choose.
@Suite struct Metadata {
    /// A JPEG with EXIF (GPS included, 300 dpi in EXIF and JFIF), 32x20.
    func photo(_ w: Workspace, _ name: String = "photo.jpg", orientation: Int = 1) throws {
        var o = EncodeOptions()
        o.exif = EXIFFixture.block(orientation: orientation, width: 32, height: 20)
        o.dpi = 300
        try w.picture(name, 32, 20, options: o) { x, y in [Double(x) / 31, Double(y) / 19, 0.5, 1] }
    }

    /// Every path keeps EXIF (GPS included), DPI, and sets the EXIF size to the result's.
    @Test func everyPathKeepsTheSameMetadata() throws {
        let w = try Workspace()
        try photo(w)
        let paths: [(args: [String], width: Int)] = [
            ([], 32), (["-f", "sepiaTone"], 32), (["--resize", "50%"], 16), (["--max-size", "10"], 10), (["--crop", "8x8+1+1"], 8),
            (["--rotate", "90"], 20), (["--thumbnail", "12"], 12), (["-f", "gaussianBlur radius=2", "--flop"], 32),
            (["--lut", "warmFilm"], 32), (["--preset", "clarendon"], 32),
        ]
        for (i, p) in paths.enumerated() {
            let r = try Tool.run(["apply", "photo.jpg", "-o", "out\(i).jpg"] + p.args, in: w.dir)
            #expect(r.status == 0, "\(p.args): \(r.stderr)")
            let bytes = try w.bytes("out\(i).jpg")
            let h = try ImageCodecs.readHeader(bytes)
            #expect(EXIFFixture.hasEXIF(bytes) && EXIFFixture.hasGPS(bytes), "\(p.args)")
            #expect(h.dpi == 300 && h.width == p.width, "\(p.args): \(h.dpi ?? 0) dpi, \(h.width) wide")
            #expect(h.exif.flatMap(EXIFFixture.pixelWidth) == p.width, "\(p.args)")
        }
        // Batch writes what apply writes.
        try FileManager.default.createDirectory(at: w.url("in"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: w.url("photo.jpg"), to: w.url("in/photo.jpg"))
        #expect(try w.run("batch", "in", "-o", "batch", "--resize", "50%").status == 0)
        #expect(try w.run("apply", "photo.jpg", "-o", "single.jpg", "--resize", "50%").status == 0)
        #expect(try w.bytes("batch/photo.jpg") == w.bytes("single.jpg"))
    }

    @Test func stripAndKeep() throws {
        let w = try Workspace()
        try photo(w)
        var p3 = EncodeOptions()
        p3.iccProfile = ColorProfiles.displayP3
        try w.picture("p3.png", 8, 8, options: p3) { _, _ in [0.2, 0.6, 0.3, 1] }
        func run(_ input: String, _ out: String, _ args: String...) throws -> (Data, ImageHeader) {
            let r = try Tool.run(["apply", input, "-o", out] + args, in: w.dir)
            #expect(r.status == 0, "\(args): \(r.stderr)")
            let b = try w.bytes(out)
            return (b, try ImageCodecs.readHeader(b))
        }
        var (b, h) = try run("photo.jpg", "gps.jpg", "--strip", "gps")
        #expect(EXIFFixture.hasEXIF(b) && !EXIFFixture.hasGPS(b) && h.dpi == 300)
        (b, h) = try run("photo.jpg", "exif.jpg", "--strip", "exif")
        #expect(!EXIFFixture.hasEXIF(b) && !EXIFFixture.hasGPS(b) && h.exif == nil && h.dpi == 300)
        (b, h) = try run("photo.jpg", "all.jpg", "--strip", "all")
        #expect(h.exif == nil && h.iccProfile == nil && h.dpi == 300)
        (b, h) = try run("photo.jpg", "keepgps.jpg", "--strip", "all", "--keep", "gps")
        #expect(EXIFFixture.hasGPS(b))
        (b, h) = try run("p3.png", "p3.jpg")
        #expect(h.iccProfile != nil)
        (b, h) = try run("p3.png", "p3-strip.jpg", "--strip", "all", "--keep", "icc")
        #expect(h.iccProfile != nil)
        (b, h) = try run("p3.png", "srgb.png", "--strip", "icc")
        #expect(h.iccProfile == nil)
        // Stripping the profile converts to sRGB: the colour stays, as numbers that differ.
        let kept = try w.decoded("p3.jpg"), converted = try w.decoded("srgb.png")
        #expect(kept.pixel(4, 4)[1] != converted.pixel(4, 4)[1])
        let bad = try w.run("apply", "photo.jpg", "-o", "x.jpg", "--strip", "gsp")
        #expect(bad.status == 2 && bad.stderr.contains("did you mean 'gps'?"))
        let conflict = try w.run("apply", "photo.jpg", "-o", "x.jpg", "--strip", "exif", "--keep", "gps")
        #expect(conflict.status == 2 && conflict.stderr.contains("--keep gps needs the EXIF block"))
    }

    /// Metadata present or absent as asked across format pairs: EXIF in every format, DPI in
    /// JPEG/PNG/TIFF (and wherever EXIF, which states a resolution, goes), the P3 profile
    /// everywhere.
    @Test func acrossFormatPairs() throws {
        let w = try Workspace()
        try photo(w, "in/photo.jpg")
        var dpi = EncodeOptions()
        dpi.dpi = 300
        try w.picture("in/dpi.png", 8, 6, options: dpi) { _, _ in [0.5, 0.5, 0.5, 1] }
        try w.picture("in/dpit.tif", 8, 6, options: dpi) { _, _ in [0.5, 0.5, 0.5, 1] }
        var p3 = EncodeOptions()
        p3.iccProfile = ColorProfiles.displayP3
        try w.picture("in/p3.png", 8, 6, options: p3) { _, _ in [0.2, 0.6, 0.3, 1] }
        for (format, name) in writableFormats {
            for strip in [[], ["--strip", "all"]] {
                let out = "\(name)\(strip.isEmpty ? "" : "-strip")"
                let r = try Tool.run(["batch", "in", "-o", out, "--format", name] + strip, in: w.dir)
                #expect(r.status == 0, "\(name) \(strip): \(r.stderr)")
                let ext = w.files(under: out).first.map { ($0 as NSString).pathExtension } ?? "?"
                let holdsDPI = [.jpeg, .png, .tiff].contains(format)
                for stem in ["photo", "dpi", "dpit"] where ImageCodecs.format(forPathExtension: ext) == format {
                    let file = w.files(under: out).first { $0.hasPrefix(stem + ".") } ?? "?"
                    let bytes = try w.bytes("\(out)/\(file)")
                    let h = try ImageCodecs.readHeader(bytes)
                    #expect((h.dpi == 300) == (holdsDPI || stem == "photo" && strip.isEmpty), "\(stem) -> \(name) \(strip): dpi \(h.dpi ?? 0)")
                    if stem == "photo" {
                        let exif = strip.isEmpty
                        #expect(EXIFFixture.hasEXIF(bytes) == exif && EXIFFixture.hasGPS(bytes) == exif, "photo -> \(name) \(strip)")
                    }
                }
                let p3File = w.files(under: out).first { $0.hasPrefix("p3.") } ?? "?"
                let h = try ImageCodecs.readHeader(w.bytes("\(out)/\(p3File)"))
                #expect((h.iccProfile != nil) == strip.isEmpty, "p3 -> \(name) \(strip)")
            }
        }
    }

    /// EXIF orientation turns the pixels; the written EXIF then says upright.
    @Test func orientationIsAppliedAndReset() throws {
        let w = try Workspace()
        try photo(w, "turned.jpg", orientation: 6)
        #expect(try w.run("apply", "turned.jpg", "-o", "up.jpg").status == 0)
        let h = try ImageCodecs.readHeader(w.bytes("up.jpg"))
        #expect(h.width == 20 && h.height == 32 && h.orientation == 1)
        #expect(try w.run("apply", "turned.jpg", "-o", "raw.jpg", "--no-auto-orient").status == 0)
        let raw = try ImageCodecs.readHeader(w.bytes("raw.jpg"))
        #expect(raw.width == 32 && raw.orientation == 6)
    }
}

/// Defect 9: a value outside an input's limits is brought inside them with a warning naming
/// the value used, and `describe` shows the same limits.
@Suite struct SilentClamping {
    @Test func warningsNameTheValueUsed() throws {
        let w = try Workspace()
        try w.solid("in.png", 24, 16)
        let neg = try w.run("apply", "in.png", "-o", "a.png", "-f", "gaussianBlur radius=-5")
        #expect(neg.status == 0 && neg.stderr.contains("warning: gaussianBlur: value -5 for radius is outside 0...250; using 0"), "\(neg.stderr)")
        let vig = try w.run("apply", "in.png", "-o", "v5.png", "-f", "vignette intensity=5")
        #expect(vig.stderr.contains("warning: vignette: value 5 for intensity is outside -1...1; using 1"), "\(vig.stderr)")
        #expect(try w.run("apply", "in.png", "-o", "v1.png", "-f", "vignette intensity=1").stderr.isEmpty)
        #expect(try w.bytes("v5.png") == w.bytes("v1.png"))
        let d = try w.run("describe", "vignette")
        #expect(d.out.contains("inputIntensity (intensity): NSNumber, scalar  number  default 0  range -1...1"), "\(d.out)")
        // Parsed once per command: a batch warns once, not per file.
        for n in ["in/a.png", "in/b.png", "in/c.png"] { try w.solid(n, 4, 4) }
        let batch = try w.run("batch", "in", "-o", "out", "-f", "vignette intensity=5")
        #expect(batch.stderr.components(separatedBy: "warning:").count == 2, "\(batch.stderr)")
    }

    /// The one function behind warnings and `describe`: what it reports, both say.
    @Test func describeAndWarningsShareTheLimits() throws {
        for name in CIFilter.filterNames(inCategory: nil) {
            guard let d = CIFilter.descriptor(forFilterName: name) else { continue }
            for i in d.inputs where i.className == "NSNumber" {
                let r = InputLimits.range(of: i)
                guard let hi = r.max, hi.isFinite, let text = InputLimits.text(i) else { continue }
                let (used, warning) = InputLimits.check(hi + max(1, abs(hi)), for: i, filter: Names.shortFilter(name))
                #expect(used == hi && warning?.contains("outside \(text); using") == true, "\(name).\(i.key)")
            }
        }
    }

    /// CIGaussianBlur runs radii above 250 as 250; once the filter declarations carry that cap
    /// (beside Apple's limits), the tool warns about it like any other.
    @Test(
        .enabled(
            if: CIFilter.descriptor(forFilterName: "CIGaussianBlur")?.input("inputRadius").map { InputLimits.range(of: $0).max != nil } ?? false,
            "the declared limits do not give CIGaussianBlur's radius its cap yet"))
    func hugeBlurRadius() throws {
        let w = try Workspace()
        try w.solid("in.png", 8, 8)
        let r = try w.run("apply", "in.png", "-o", "o.png", "-f", "gaussianBlur radius=10000")
        #expect(r.status == 0 && r.stderr.contains("value 10000 for radius is outside 0...") && r.stderr.contains("; using "), "\(r.stderr)")
        #expect(try w.run("describe", "gaussianBlur").out.contains("range 0..."))
    }
}
