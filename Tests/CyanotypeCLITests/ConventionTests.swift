import Foundation
import Testing

// Issue #24, "conventions that Linux users expect": the built `cyanotype` binary is run on
// inputs made here, and its outputs are read by ImageMagick (`identify`, `convert`) or checked
// against formulas written in the tests.

/// ImageMagick reads the pixel at (x, y) (top-left origin) of `file` as 8-bit RGB(A).
func magickPixel(_ w: Workspace, _ file: String, _ x: Int, _ y: Int) throws -> [Int] {
    let r = try w.shell("convert '\(file)' -crop 1x1+\(x)+\(y) +repage -depth 8 txt:- | tail -n 1")
    // "0,0: (127,64,255)  #7F40FF  srgb(127,64,255)"
    guard let open = r.out.firstIndex(of: "("), let close = r.out[open...].firstIndex(of: ")") else { return [] }
    return r.out[r.out.index(after: open)..<close].split(separator: ",").compactMap { Int(Double($0.trimmingCharacters(in: .whitespaces)) ?? -1) }
}

/// ImageMagick's `identify -format`.
func magickIdentify(_ w: Workspace, _ file: String, _ format: String) throws -> String {
    try w.shell("identify -format '\(format)' '\(file)'").out.trimmingCharacters(in: .whitespacesAndNewlines)
}

func srgbDecode(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
func srgbEncode(_ v: Double) -> Double { v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055 }

let magickPresent = commandExists("identify") && commandExists("convert")

@Suite(.enabled(if: magickPresent, "ImageMagick (identify, convert) reads the outputs back"))
struct Conventions {
    /// JPEG at quality 90 or more writes 4:4:4 unless --subsample says otherwise; below, 4:2:0.
    @Test func jpegSubsamplingFollowsQuality() throws {
        let w = try Workspace()
        try w.noise("in/n.png", 32, 32)
        let full = "1x1,1x1,1x1", half = "2x2,1x1,1x1"
        let cases: [([String], String)] = [
            ([], full), (["-q", "95"], full), (["-q", "90"], full), (["-q", "89"], half), (["-q", "75"], half),
            (["-q", "95", "--subsample", "420"], half), (["-q", "60", "--subsample", "444"], full),
            (["-q", "95", "--subsample", "422"], "2x1,1x1,1x1"),
        ]
        for (i, (args, expected)) in cases.enumerated() {
            let r = try Tool.run(["apply", "in/n.png", "-o", "o\(i).jpg"] + args, in: w.dir)
            #expect(r.status == 0, "\(args): \(r.stderr)")
            #expect(try magickIdentify(w, "o\(i).jpg", "%[jpeg:sampling-factor]") == expected, "\(args)")
        }
        // batch chooses in the same place.
        let b = try w.run("batch", "in", "-o", "out", "--format", "jpeg", "-q", "95")
        #expect(b.status == 0, "\(b.stderr)")
        #expect(try magickIdentify(w, "out/n.jpg", "%[jpeg:sampling-factor]") == full)
        let b2 = try w.run("batch", "in", "-o", "out2", "--format", "jpeg", "-q", "80")
        #expect(b2.status == 0, "\(b2.stderr)")
        #expect(try magickIdentify(w, "out2/n.jpg", "%[jpeg:sampling-factor]") == half)
    }

    /// Flattening blends sRGB-encoded values: (0,128,255) at alpha 128 over magenta is
    /// (127,64,255), as ImageMagick's -flatten gives.
    @Test func flattenBlendsEncodedValues() throws {
        let w = try Workspace()
        try w.picture("t.png", 8, 6, layout: .rgba) { _, _ in [0, 128.0 / 255, 1, 128.0 / 255] }
        let a = 128.0 / 255
        let formula = [0 * a + 255 * (1 - a), 128 * a + 0 * (1 - a), 255 * a + 255 * (1 - a)].map { Int($0.rounded()) }
        #expect(formula == [127, 64, 255])
        let r = try w.run("apply", "t.png", "-o", "flat.png", "--alpha", "drop", "--background", "#ff00ff")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try w.shell("convert t.png -background magenta -flatten im.png").status == 0)
        let ours = try magickPixel(w, "flat.png", 3, 2), theirs = try magickPixel(w, "im.png", 3, 2)
        #expect(ours.count >= 3 && theirs.count >= 3, "\(ours) \(theirs)")
        for c in 0..<3 where ours.count >= 3 && theirs.count >= 3 {
            #expect(abs(ours[c] - formula[c]) <= 1, "ours \(ours), formula \(formula)")
            #expect(abs(ours[c] - theirs[c]) <= 1, "ours \(ours), ImageMagick \(theirs)")
        }
        // A JPEG output of the transparent picture flattens the same way (lossy: within 3).
        #expect(try w.run("apply", "t.png", "-o", "flat.jpg", "--background", "#ff00ff", "-q", "100").status == 0)
        let j = try magickPixel(w, "flat.jpg", 3, 2)
        #expect(j.count >= 3 && zip(j, formula).allSatisfy { abs($0 - $1) <= 3 }, "\(j)")
    }

    /// colorInvert on grey 128: 229 in linear light (the default), 127 in sRGB-encoded values.
    @Test func workingSpaceChoosesColorInvertResult() throws {
        let w = try Workspace()
        try w.solid("g.png", 6, 4, color: [128.0 / 255, 128.0 / 255, 128.0 / 255, 1])
        let linear = Int((255 * srgbEncode(1 - srgbDecode(128.0 / 255))).rounded())
        let encoded = 255 - 128
        #expect(linear == 229 && encoded == 127)
        for (args, expected) in [([String](), linear), (["--working-space", "linear"], linear), (["--working-space", "srgb"], encoded)] {
            let r = try Tool.run(["apply", "g.png", "-o", "inv.png", "-f", "colorInvert"] + args, in: w.dir)
            #expect(r.status == 0, "\(args): \(r.stderr)")
            let p = try magickPixel(w, "inv.png", 2, 2)
            #expect(p.count >= 3 && p.prefix(3).allSatisfy { abs($0 - expected) <= 1 }, "\(args): \(p), expected \(expected)")
        }
        // Colours given to a filter are sRGB values in the srgb space: a constant 0.5 grey
        // source-over stays 128 (in linear light it is the same colour: 128 too).
        let c = try w.run(
            "apply", "g.png", "-o", "c.png", "--working-space", "srgb", "-f", "colorMatrix rVector=[0 0 0 0] gVector=[0 0 0 0] bVector=[0 0 0 0] biasVector=[0.25 0.25 0.25 0]")
        #expect(c.status == 0, "\(c.stderr)")
        let cp = try magickPixel(w, "c.png", 1, 1)
        #expect(cp.count >= 3 && abs(cp[0] - 64) <= 1, "bias 0.25 in sRGB values is 64: \(cp)")
        let bad = try w.run("apply", "g.png", "-o", "x.png", "--working-space", "srbg")
        #expect(bad.status == 2 && bad.stderr.contains("--working-space must be linear or srgb"), "\(bad.stderr)")
    }

    /// Points and rectangles in specs are measured from the top left; --origin bottom-left
    /// keeps Core Image's; a point left out sits at the picture's centre.
    @Test func coordinatesAreTopLeft() throws {
        let w = try Workspace()
        try w.solid("white.png", 400, 200, color: [1, 1, 1, 1])
        // A small bright disc at (60, 40) from the top left: dark everywhere else.
        let spec = "vignetteEffect center=[60 40] radius=20 intensity=1 falloff=0"
        #expect(try w.run("apply", "white.png", "-o", "tl.png", "-f", spec).status == 0)
        #expect(try magickPixel(w, "tl.png", 60, 40)[0] > 200)
        #expect(try magickPixel(w, "tl.png", 60, 160)[0] < 60)
        #expect(try w.run("apply", "white.png", "-o", "bl.png", "-f", spec, "--origin", "bottom-left").status == 0)
        #expect(try magickPixel(w, "bl.png", 60, 160)[0] > 200)
        #expect(try magickPixel(w, "bl.png", 60, 40)[0] < 60)
        // The centre left out: the picture's centre (200, 100), not Apple's (150, 150).
        #expect(try w.run("apply", "white.png", "-o", "c.png", "-f", "vignetteEffect radius=20 intensity=1 falloff=0").status == 0)
        #expect(try magickPixel(w, "c.png", 200, 100)[0] > 200)
        #expect(try magickPixel(w, "c.png", 150, 50)[0] < 60, "Apple's (150,150) is (150,50) from the top")

        // vignetteEffect left at its defaults on a 600x400 picture: centred, its radius Apple's
        // 150 for a 300x300 picture scaled to the short side (200), so a point 180 px right of
        // the centre stays bright; at Apple's fixed 150 it is darker; the corners go dark.
        try w.solid("w6.png", 600, 400, color: [1, 1, 1, 1])
        #expect(try w.run("apply", "w6.png", "-o", "d.png", "-f", "vignetteEffect").status == 0)
        #expect(try w.run("apply", "w6.png", "-o", "a.png", "-f", "vignetteEffect radius=150").status == 0)
        #expect(try magickPixel(w, "d.png", 300, 200)[0] > 250 && magickPixel(w, "d.png", 5, 5)[0] < 30)
        let scaled = try magickPixel(w, "d.png", 480, 200)[0], fixed = try magickPixel(w, "a.png", 480, 200)[0]
        #expect(scaled > 180 && fixed < 160, "default radius: \(scaled), radius 150: \(fixed)")

        // A rectangle: top half red, bottom half blue; [x y w h] from the top left.
        try w.picture("halves.png", 40, 40) { _, y in y < 20 ? [1, 0, 0, 1] : [0, 0, 1, 1] }
        #expect(try w.run("apply", "halves.png", "-o", "crop.png", "-f", "crop rectangle=[5 2 10 12]").status == 0)
        #expect(try magickIdentify(w, "crop.png", "%wx%h") == "10x12")
        let top = try magickPixel(w, "crop.png", 5, 6)
        #expect(top.count >= 3 && top[0] > 200 && top[2] < 50, "rows 2..14 are red: \(top)")
        #expect(try w.run("apply", "halves.png", "-o", "crop2.png", "-f", "crop rectangle=[5 2 10 12]", "--origin", "bottom-left").status == 0)
        let bottom = try magickPixel(w, "crop2.png", 5, 6)
        #expect(bottom.count >= 3 && bottom[2] > 200 && bottom[0] < 50, "Core Image's rows 2..14 from the bottom are blue: \(bottom)")
        // Colour vectors are not flipped: the bias stays as written.
        #expect(try w.run("apply", "white.png", "-o", "m.png", "-f", "colorMatrix biasVector=[0 0 0 0] rVector=[0 0 0 0]").status == 0)
        #expect(try magickPixel(w, "m.png", 0, 0)[0] < 5)
        // generate counts from the canvas's top left too.
        let g = "radialGradient center=[100 50] radius0=0 radius1=30 color0=[1 1 1 1] color1=[0 0 0 1]"
        #expect(try w.run("generate", g, "--size", "400x300", "-o", "g.png").status == 0)
        #expect(try magickPixel(w, "g.png", 100, 50)[0] > 240)
        #expect(try magickPixel(w, "g.png", 100, 250)[0] < 10)
        #expect(try w.run("generate", g, "--size", "400x300", "-o", "g2.png", "--origin", "bottom-left").status == 0)
        #expect(try magickPixel(w, "g2.png", 100, 250)[0] > 240)
        let badOrigin = try w.run("apply", "white.png", "-o", "x.png", "-f", spec, "--origin", "top-right")
        #expect(badOrigin.status == 2 && badOrigin.stderr.contains("--origin must be top-left or bottom-left, got 'top-right'"), "\(badOrigin.stderr)")
        let describe = try w.run("describe", "vignetteEffect")
        #expect(describe.out.contains("top-left corner") && describe.out.contains("--origin bottom-left"), "\(describe.out)")
    }

    /// Keyframed points in `video` are measured from the top left too.
    @Test(.enabled(if: commandExists("ffmpeg"), "ffmpeg makes the clip (scripts/setup.sh --test installs it)"))
    func videoKeyframesAreTopLeft() throws {
        let w = try Workspace()
        let made = try w.shell("ffmpeg -v error -f lavfi -i color=white:s=64x48:d=1:r=10 -pix_fmt yuv420p -c:v libx264 white.mp4")
        #expect(made.status == 0, "\(made.stderr)")
        // At 0.5 s the centre is at x 30 (10 -> 50 over a second), y 12 from the top.
        let r = try w.run(
            "video", "white.mp4", "--frame", "0.5", "-o", "poster.png", "--filter", "vignetteEffect center=[10@0,50@1 12] radius=6 intensity=1 falloff=0")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try magickPixel(w, "poster.png", 30, 12)[0] > 200)
        #expect(try magickPixel(w, "poster.png", 30, 36)[0] < 60, "y 12 from the bottom would be bright here")
        #expect(try magickPixel(w, "poster.png", 10, 12)[0] < 60, "the centre has moved on from its first keyframe")
    }

    /// `video --working-space` reaches the filters: colorInvert on a grey clip.
    @Test(.enabled(if: commandExists("ffmpeg"), "ffmpeg makes the clip (scripts/setup.sh --test installs it)"))
    func videoWorkingSpace() throws {
        let w = try Workspace()
        let made = try w.shell("ffmpeg -v error -f lavfi -i color=0x808080:s=32x32:d=1:r=10 -pix_fmt yuv444p -c:v libx264 -qp 0 grey.mp4")
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try w.run("video", "grey.mp4", "--frame", "0.5", "-o", "plain.png").status == 0)
        let source = try magickPixel(w, "plain.png", 16, 16)[0]
        let linear = Int((255 * srgbEncode(1 - srgbDecode(Double(source) / 255))).rounded())
        for (args, expected) in [([String](), linear), (["--working-space", "srgb"], 255 - source)] {
            let r = try Tool.run(["video", "grey.mp4", "--frame", "0.5", "-o", "inv.png", "-f", "colorInvert"] + args, in: w.dir)
            #expect(r.status == 0, "\(args): \(r.stderr)")
            let p = try magickPixel(w, "inv.png", 16, 16)[0]
            #expect(abs(p - expected) <= 2, "\(args): \(p), expected \(expected) from \(source)")
        }
    }

    /// A text generator is written at its own size, not cut at 512.
    @Test func generateKeepsTextWhole() throws {
        let w = try Workspace()
        let spec = "textImageGenerator text=\"A line of text wider than five hundred pixels\" fontSize=60"
        let r = try w.run("generate", spec, "-o", "t.png")
        #expect(r.status == 0, "\(r.stderr)")
        let size = try magickIdentify(w, "t.png", "%w %h").split(separator: " ").compactMap { Int($0) }
        #expect(size.count == 2 && size[0] > 512 && size[1] < 512, "\(size)")
        // Ink reaches the last columns' neighbourhood: the trim box is most of the width.
        let trim = try magickIdentify(w, "t.png", "%@")
        let trimmedWidth = Int(trim.split(separator: "x").first ?? "") ?? 0
        #expect(size.count == 2 && trimmedWidth > size[0] / 2, "\(trim) of \(size)")
        // --size still cuts it (to the box, within the text's own extent).
        #expect(try w.run("generate", spec, "-o", "s.png", "--size", "300x30").status == 0)
        #expect(try magickIdentify(w, "s.png", "%wx%h") == "300x30")
    }

    /// `800x600^` covers the box without cropping, as ImageMagick's -resize; --thumbnail crops.
    @Test func coverGeometryAsImageMagick() throws {
        let w = try Workspace()
        try w.picture("big.png", 1500, 1000) { x, y in [Double(x % 256) / 255, Double(y % 256) / 255, 0.5, 1] }
        #expect(try w.shell("convert big.png -resize '800x600^' im.png").status == 0)
        let theirs = try magickIdentify(w, "im.png", "%wx%h")
        #expect(theirs == "900x600")
        #expect(try w.run("apply", "big.png", "-o", "r.png", "--resize", "800x600^").status == 0)
        #expect(try magickIdentify(w, "r.png", "%wx%h") == theirs)
        for t in ["800x600", "800x600^"] {
            #expect(try w.run("apply", "big.png", "-o", "t.png", "--thumbnail", t, "--gravity", "north").status == 0)
            #expect(try magickIdentify(w, "t.png", "%wx%h") == "800x600", "\(t)")
        }
        let bad = try w.run("apply", "big.png", "-o", "x.png", "--resize", "800x600^", "--gravity", "north")
        #expect(bad.status == 2 && bad.stderr.contains("--thumbnail"), "\(bad.stderr)")
    }
}
