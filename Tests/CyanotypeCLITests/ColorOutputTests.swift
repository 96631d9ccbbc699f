import Cyanotype
import CyanotypeCodecs
import Foundation
import Testing

/// Debian's Python (Pillow with its lcms binding lives there, not in a pyenv shim's Python).
let systemPython = "/usr/bin/python3"
/// Whether Pillow and ImageCms can be imported (scripts/setup.sh --test installs python3-pil).
let pillowAvailable: Bool = {
    guard FileManager.default.isExecutableFile(atPath: systemPython) else { return false }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: systemPython)
    p.arguments = ["-c", "from PIL import Image, ImageCms"]
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    guard (try? p.run()) != nil else { return false }
    p.waitUntilExit()
    return p.terminationStatus == 0
}()

/// Issue #24, wrong output: colour spaces the output says and holds, checked by other readers
/// (Pillow with lcms, exiftool, ImageMagick's identify, libjxl's jxlinfo and djxl).
@Suite struct ColorOutput {
    /// A solid Display P3 PNG of (200, 60, 60), written by the codecs with the P3 profile.
    func p3(_ w: Workspace, _ name: String = "p3.png", exif: Data? = nil) throws {
        var o = EncodeOptions()
        o.iccProfile = ColorProfiles.displayP3
        o.exif = exif
        try w.picture(name, 8, 8, options: o) { _, _ in [200 / 255, 60 / 255, 60 / 255, 1] }
    }

    /// Runs Python with Pillow in the workspace; its stdout.
    func python(_ w: Workspace, _ script: String) throws -> String {
        let r = try Tool.run(["-c", script], in: w.dir, executable: URL(fileURLWithPath: systemPython))
        #expect(r.status == 0, "python: \(r.stderr)")
        return r.out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The centre pixel of `file` as Pillow reads it (RGB), without colour management.
    func pixel(_ w: Workspace, _ file: String) throws -> [Int] {
        try python(w, "from PIL import Image; im = Image.open('\(file)').convert('RGB'); print(*im.getpixel((4, 4)))")
            .split(separator: " ").compactMap { Int($0) }
    }

    /// lcms's sRGB values for the centre of `file`, through its embedded profile.
    func lcmsSRGB(_ w: Workspace, _ file: String) throws -> [Int] {
        try python(
            w,
            """
            import io
            from PIL import Image, ImageCms
            im = Image.open('\(file)').convert('RGB')
            src = ImageCms.ImageCmsProfile(io.BytesIO(Image.open('\(file)').info['icc_profile']))
            out = ImageCms.profileToProfile(im, src, ImageCms.createProfile('sRGB'), renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC)
            print(*out.getpixel((4, 4)))
            """
        ).split(separator: " ").compactMap { Int($0) }
    }

    func close(_ a: [Int], _ b: [Int], within t: Int = 2) -> Bool { a.count == 3 && b.count == 3 && zip(a, b).allSatisfy { abs($0 - $1) <= t } }

    @Test(.enabled(if: pillowAvailable, "needs Python Pillow with ImageCms (scripts/setup.sh --test)"))
    func displayP3ToGIFIsConvertedToSRGB() throws {
        let w = try Workspace()
        try p3(w)
        try p3(w, "in/p3.png")
        let expected = try lcmsSRGB(w, "p3.png")
        #expect(close(expected, [217, 42, 52], within: 3), "lcms: \(expected)")
        #expect(try w.run("apply", "p3.png", "-o", "x.gif").status == 0)
        let gif = try pixel(w, "x.gif")
        #expect(close(gif, expected), "apply: \(gif) vs lcms \(expected)")
        let b = try w.run("batch", "in", "-o", "out", "--format", "gif")
        #expect(b.status == 0, "\(b.stderr)")
        let batched = try pixel(w, "out/p3.gif")
        #expect(close(batched, expected), "batch: \(batched)")
        // Formats that hold the profile keep the P3 numbers, tagged.
        #expect(try w.run("apply", "p3.png", "-o", "kept.png").status == 0)
        #expect(close(try pixel(w, "kept.png"), [200, 60, 60], within: 1))
        #expect(
            try python(
                w,
                "from PIL import Image, ImageCms; import io; print(ImageCms.getProfileDescription(ImageCms.ImageCmsProfile(io.BytesIO(Image.open('kept.png').info['icc_profile']))))"
            ) == "Display P3")
        // The library's encoder converts too: GIF has no profile to say otherwise.
        let image = try #require(CIImage(contentsOf: w.url("p3.png")))
        let data = try CIContext().encode(image, as: .gif, colorSpace: CGColorSpace(name: CGColorSpace.displayP3))
        try data.write(to: w.url("lib.gif"))
        let library = try pixel(w, "lib.gif")
        #expect(close(library, expected), "library: \(library)")
    }

    @Test func explainNamesTheSpaceTheFileIsWrittenIn() throws {
        let w = try Workspace()
        try p3(w)
        let png = try w.run("apply", "p3.png", "-o", "x.png", "--explain", "--filter", "sepiaTone intensity=0.5")
        let pngWrite = png.out.split(separator: "\n").last { $0.hasPrefix("write:") } ?? ""
        #expect(png.status == 0 && pngWrite.contains("DisplayP3") && !pngWrite.contains("SRGB"), "\(png.out)")
        // What it names is what is written: the file's profile.
        #expect(try w.run("apply", "p3.png", "-o", "x.png", "--filter", "sepiaTone intensity=0.5").status == 0)
        #expect(ColorProfiles.description(of: try #require(try ImageCodecs.readHeader(w.bytes("x.png")).iccProfile)) == "Display P3")
        let gif = try w.run("apply", "p3.png", "-o", "x.gif", "--explain")
        let gifWrite = gif.out.split(separator: "\n").last { $0.hasPrefix("write:") } ?? ""
        #expect(gif.status == 0 && gifWrite.contains("SRGB") && !gifWrite.contains("P3"), "\(gif.out)")
        let stripped = try w.run("apply", "p3.png", "-o", "y.png", "--explain", "--strip", "icc")
        #expect((stripped.out.split(separator: "\n").last { $0.hasPrefix("write:") } ?? "").contains("SRGB"), "\(stripped.out)")
    }

    /// Grey TIFF pages stay grey when turned (one page and several), as identify reads them.
    @Test(.enabled(if: commandExists("identify"), "needs ImageMagick's identify"))
    func greyTIFFPagesStayGreyWhenRotated() throws {
        let w = try Workspace()
        try w.picture("grey.tif", 16, 8, layout: .gray) { x, _ in [0, Double(x) / 15, 0, 1] }
        let pages = try w.shell("convert grey.tif grey.tif -adjoin pages.tif && identify -format '%[colorspace]\\n' pages.tif")
        #expect(pages.out == "Gray\nGray\n", "\(pages.out) \(pages.stderr)")
        for (input, output) in [("grey.tif", "turned.tif"), ("pages.tif", "turned-pages.tif"), ("grey.tif", "turned.png")] {
            let r = try w.run("apply", input, "-o", output, "--rotate", "90")
            #expect(r.status == 0, "\(r.stderr)")
            let id = try w.shell("identify -format '%[colorspace] %wx%h\\n' \(output)")
            let lines = id.out.split(separator: "\n")
            #expect(!lines.isEmpty && lines.allSatisfy { $0 == "Gray 8x16" }, "\(input) -> \(output): \(id.out)")
        }
        // A colour filter makes colour.
        #expect(try w.run("apply", "grey.tif", "-o", "sepia.tif", "--rotate", "90", "--filter", "sepiaTone").status == 0)
        #expect(try w.shell("identify -format '%[colorspace]' sepia.tif").out == "sRGB")
    }

    @Test(.enabled(if: commandExists("jxlinfo") && commandExists("djxl") && pillowAvailable, "needs libjxl-tools and Pillow"))
    func displayP3JPEGXLRoundTripsAsDisplayP3() throws {
        let w = try Workspace()
        try p3(w)
        for (name, extra) in [("lossy.jxl", [String]()), ("lossless.jxl", ["--lossless"])] {
            let r = try Tool.run(["apply", "p3.png", "-o", name] + extra, in: w.dir)
            #expect(r.status == 0, "\(r.stderr)")
            let info = try w.shell("jxlinfo \(name)")
            #expect(info.out.contains("P3 primaries") && info.out.contains("sRGB transfer function"), "\(name): \(info.out)")
            // libjxl's own decoder gives back the P3 numbers.
            #expect(try w.shell("djxl \(name) \(name).png").status == 0)
            let decoded = try pixel(w, "\(name).png")
            #expect(close(decoded, [200, 60, 60], within: name == "lossy.jxl" ? 3 : 0), "djxl: \(decoded)")
            // We read it back as Display P3, and a P3 PNG written from it keeps the numbers.
            let ours = try w.run("info", name)
            #expect(ours.out.contains("Display P3"), "\(ours.out)")
            #expect(try w.run("apply", name, "-o", "\(name)-back.png").status == 0)
            #expect(ColorProfiles.description(of: try #require(try ImageCodecs.readHeader(w.bytes("\(name)-back.png")).iccProfile)) == "Display P3")
            let back = try pixel(w, "\(name)-back.png")
            #expect(close(back, [200, 60, 60], within: name == "lossy.jxl" ? 3 : 1), "back: \(back)")
        }
    }

    /// EXIF's ColorSpace says what was written: sRGB (1) after conversion, Uncalibrated kept
    /// beside an embedded profile.
    @Test(.enabled(if: commandExists("exiftool"), "needs exiftool"))
    func exifColorSpaceFollowsTheWrittenSpace() throws {
        let w = try Workspace()
        try p3(w, "p3.jpg", exif: EXIFFixture.block(width: 8, height: 8, gps: false))
        let tagged = try w.shell("exiftool -q -overwrite_original -ExifIFD:ColorSpace#=65535 p3.jpg && exiftool -s -s -s -ColorSpace p3.jpg")
        #expect(tagged.out == "Uncalibrated\n", "\(tagged.out) \(tagged.stderr)")
        #expect(try w.run("apply", "p3.jpg", "-o", "srgb.jpg", "--strip", "icc").status == 0)
        #expect(try w.run("apply", "p3.jpg", "-o", "p3-kept.jpg").status == 0)
        #expect(try w.run("apply", "p3.jpg", "-o", "srgb.webp", "--strip", "icc").status == 0)
        #expect(try w.run("apply", "p3.jpg", "-o", "p3-kept.tif").status == 0)
        for (file, expected) in [("srgb.jpg", "sRGB"), ("srgb.webp", "sRGB"), ("p3-kept.jpg", "Uncalibrated"), ("p3-kept.tif", "Uncalibrated")] {
            let r = try w.shell("exiftool -s -s -s -ColorSpace -ICC_Profile:ProfileDescription \(file)")
            let lines = r.out.split(separator: "\n").map(String.init)
            #expect(lines.first == expected, "\(file): \(r.out)")
            #expect(lines.contains("Display P3") == (expected == "Uncalibrated"), "\(file): \(r.out)")
        }
    }

    @Test func shortVectorsAreRefusedNotPadded() throws {
        let w = try Workspace()
        try w.solid("in.png")
        let r = try w.run("apply", "in.png", "-o", "x.png", "--filter", "colorMatrix gVector=[1]")
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("colorMatrix gVector: expected 4 numbers, e.g. [0 1 0 0], not 1"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: w.path("x.png")))
        let crop = try w.run("apply", "in.png", "-o", "x.png", "--filter", "crop rectangle=[0 0 4]")
        #expect(crop.status == 2 && crop.stderr.contains("crop rectangle: expected 4 numbers"), "\(crop.stderr)")
        // Whole vectors work: gVector [0 0 0 0] with bias 0 leaves green at 0 (formula: g' = 0).
        let ok = try w.run("apply", "in.png", "-o", "ok.png", "--filter", "colorMatrix gVector=[0 0 0 0]")
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(try w.decoded("ok.png").pixel(1, 1)[1] == 0)
    }
}
