import Cyanotype
import CyanotypeCodecs
import Foundation
import Testing

/// JPEG XL in the tool, metadata kept and stripped across formats (XMP included), and
/// `info --json` with Image I/O's keys.
@Suite struct FormatsAndMetadata {
    static let xmp = """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:tiff="http://ns.adobe.com/tiff/1.0/" xmlns:exif="http://ns.adobe.com/exif/1.0/"
          xmlns:dc="http://purl.org/dc/elements/1.1/" tiff:Orientation="1" exif:PixelXDimension="32" exif:PixelYDimension="20"
          exif:GPSLatitude="51,30.2N">
         <exif:GPSAltitude>12/1</exif:GPSAltitude>
         <dc:title><rdf:Alt><rdf:li xml:lang="x-default">Harbour</rdf:li></rdf:Alt></dc:title>
        </rdf:Description></rdf:RDF></x:xmpmeta>
        """

    /// A JPEG with the CLI's EXIF fixture (GPS included) and an XMP packet with a position.
    func photo(_ w: Workspace, _ name: String = "photo.jpg") throws {
        var o = EncodeOptions()
        o.exif = EXIFFixture.block(width: 32, height: 20)
        o.xmp = Data(Self.xmp.utf8)
        try w.picture(name, 32, 20, options: o) { x, y in [Double(x) / 31, Double(y) / 19, 0.5, 1] }
    }

    @Test func jpegXLLosslessIsExactAndDeep() throws {
        let w = try Workspace()
        try w.picture("in.png", 17, 9) { x, y in [Double(x) / 16, Double(y) / 8, 0.25, 1] }
        let r = try w.run("apply", "in.png", "-o", "out.jxl", "--lossless")
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let a = try w.decoded("in.png"), b = try w.decoded("out.jxl")
        #expect(b.header.format == .jxl && a.samples == b.samples)
        // 16-bit input stays 16-bit; float on request.
        try w.picture("deep.png", 5, 4, depth: 16) { x, _ in [Double(x) / 4, 0.3, 0.7, 1] }
        #expect(try w.run("apply", "deep.png", "-o", "deep.jxl", "--lossless").status == 0)
        let deep = try w.decoded("deep.jxl"), deepPNG = try w.decoded("deep.png")
        #expect(deep.header.bitDepth == 16 && deep.samples == deepPNG.samples)
        #expect(try w.run("apply", "deep.png", "-o", "float.jxl", "--depth", "32").status == 0)
        #expect(try ImageCodecs.readHeader(w.bytes("float.jxl")).bitDepth == 32)
        // Lossy by default, smaller, close.
        #expect(try w.run("apply", "in.png", "-o", "lossy.jxl", "-q", "80", "--effort", "3").status == 0)
        let lossy = try w.decoded("lossy.jxl")
        let errors = zip(a.samples, lossy.samples).map { abs($0 - $1) }
        #expect(Double(errors.reduce(0, +)) / Double(errors.count) <= 6, "mean error of quality 80 on a 17x9 image")
        let bad = try w.run("apply", "in.png", "-o", "x.jxl", "--effort", "0")
        #expect(bad.status == 2 && bad.stderr.contains("--effort for JPEG XL is 1-9"))
        // Recognised in folders too.
        try FileManager.default.createDirectory(at: w.url("jx"), withIntermediateDirectories: true)
        #expect(try w.run("apply", "in.png", "-o", "jx/a.jxl").status == 0)
        let batch = try w.run("batch", "jx", "-o", "again", "--format", "png")
        #expect(batch.status == 0 && w.files(under: "again") == ["a.png"], "\(batch.stderr)")
    }

    @Test func infoJSONHasImageIOsKeys() throws {
        let w = try Workspace()
        try photo(w)
        let r = try w.run("info", "photo.jpg", "--json")
        #expect(r.status == 0, "\(r.stderr)")
        let o = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        #expect(o["PixelWidth"] as? Int == 32 && o["PixelHeight"] as? Int == 20 && o["Depth"] as? Int == 8)
        #expect(o["DPIWidth"] as? Double == 300 && o["HasAlpha"] as? Bool == false && o["ColorModel"] as? String == "RGB")
        #expect((o["{TIFF}"] as? [String: Any])?["Make"] as? String == EXIFFixture.camera)
        #expect((o["{Exif}"] as? [String: Any])?["PixelXDimension"] as? Int == 32)
        #expect((o["{GPS}"] as? [String: Any])?["LatitudeRef"] as? String == "N")
        #expect((o["{JFIF}"] as? [String: Any])?["IsProgressive"] as? Bool == false)
        #expect(o["FileSize"] as? Int == (try w.bytes("photo.jpg")).count && o["CyanotypeFileFormat"] as? String == "jpeg")
        let text = try w.run("info", "photo.jpg")
        #expect(text.out.contains("xmp:") && text.out.contains("with GPS position"))
    }

    /// Large files (over 256 KB, read only as far as their header when opened, #26): `info`
    /// reports the size ImageMagick's identify reads and the file's byte count, and a
    /// thumbnail decodes from the file to the size identify reads.
    @Test(.enabled(if: commandExists("identify") && FileManager.default.isExecutableFile(atPath: "/usr/bin/convert")))
    func largeFilesAreDescribedFromTheirHeader() throws {
        let w = try Workspace()
        for name in ["big.jpg", "big.png", "big.webp"] {
            let made = try Tool.run(
                ["-size", "700x500", "-seed", "7", "xc:gray", "+noise", "Random", "-quality", "97", name], in: w.dir,
                executable: URL(fileURLWithPath: "/usr/bin/convert"))
            #expect(made.status == 0, "\(made.stderr)")
            let size = try w.bytes(name).count
            #expect(size > 300_000, "\(name): \(size) bytes")
            let id = try Tool.run(["-ping", "-format", "%wx%h", name], in: w.dir, executable: URL(fileURLWithPath: "/usr/bin/identify"))
            let r = try w.run("info", name, "--json")
            #expect(r.status == 0, "\(r.stderr)")
            let o = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
            #expect("\(o["PixelWidth"] ?? "")x\(o["PixelHeight"] ?? "")" == id.out, "\(name)")
            #expect(o["FileSize"] as? Int == size, "\(name)")
            let thumb = try w.run("apply", name, "-o", "\(name).png", "--max-size", "70")
            #expect(thumb.status == 0, "\(thumb.stderr)")
            let t = try Tool.run(["-format", "%wx%h", "\(name).png"], in: w.dir, executable: URL(fileURLWithPath: "/usr/bin/identify"))
            #expect(t.out == "70x50", "\(name)")
        }
    }

    /// Every format keeps EXIF and XMP; --strip gps takes the position out of both;
    /// --strip xmp drops the packet and keeps EXIF; --strip all leaves neither.
    @Test func keptAndStrippedInEveryFormat() throws {
        let w = try Workspace()
        try photo(w, "in/photo.jpg")
        for (_, name) in writableFormats {
            for (strip, label) in [([String](), "all kept"), (["--strip", "gps"], "gps"), (["--strip", "xmp"], "xmp"), (["--strip", "all"], "none")] {
                let out = "\(name)-\(label.replacingOccurrences(of: " ", with: "-"))"
                let r = try Tool.run(["batch", "in", "-o", out, "--format", name, "--resize", "50%"] + strip, in: w.dir)
                #expect(r.status == 0, "\(name) \(label): \(r.stderr)")
                let file = try #require(w.files(under: out).first)
                let h = try ImageCodecs.readHeader(w.bytes("\(out)/\(file)"))
                let xmp = h.xmp.map { String(decoding: $0, as: UTF8.self) }
                switch label {
                case "all kept":
                    #expect(h.exif != nil && xmp?.contains("GPSLatitude") == true, "\(name)")
                    #expect(xmp?.contains("exif:PixelXDimension=\"16\"") == true, "\(name): XMP size follows the pixels")
                    let exif = try #require(h.exif)
                    #expect(EXIFFixture.pixelWidth(in: exif) == 16, "\(name)")
                case "gps":
                    #expect(h.exif.map(ImageCodecs.exifContainsGPS) == false, "\(name)")
                    #expect(xmp != nil && !(xmp ?? "").lowercased().contains("gps") && xmp?.contains("Harbour") == true, "\(name)")
                case "xmp":
                    #expect(h.exif != nil && h.xmp == nil, "\(name)")
                default:
                    #expect(h.exif == nil && h.xmp == nil, "\(name)")
                }
            }
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/exiftool"), "exiftool is not installed"))
    func exiftoolSeesTheKeptMetadata() throws {
        let w = try Workspace()
        try photo(w)
        for ext in ["jxl", "webp", "png", "tif"] {
            #expect(try w.run("apply", "photo.jpg", "-o", "out.\(ext)").status == 0)
            #expect(try w.run("apply", "photo.jpg", "-o", "clean.\(ext)", "--strip", "gps").status == 0)
            let kept = try w.shell("exiftool -s -s -s -Make -XMP-dc:Title -GPSLatitudeRef out.\(ext)")
            #expect(kept.out == "\(EXIFFixture.camera)\nHarbour\nNorth\n", "\(ext): \(kept.out) \(kept.stderr)")
            let clean = try w.shell("exiftool -a -G1 -s clean.\(ext) | grep -ci gps; true")
            #expect(clean.out == "0\n", "\(ext): \(clean.out)")
        }
    }
}
