import Foundation
import Testing
@testable import Cyanotype

// RAW development (CIRAWFilter on LibRaw) against independent oracles: DNGs written by a
// Python script from a known linear scene (Fixtures/make_dng.py, numpy + Pillow), checked by
// exiftool, and developed by LibRaw's own dcraw_emu (Debian `libraw-bin`) with the same
// settings. Colour differences are CIEDE2000, computed here from the formula.

/// Tools the RAW tests need, nil when absent (the tests then record an issue naming it).
enum RAWTools {
    static func which(_ tool: String) -> String? {
        for dir in ["/usr/bin", "/usr/local/bin", "/bin"] + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) {
            let path = "\(dir)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }
    /// A python3 with numpy and Pillow (Debian's first).
    static let python: String? = {
        var candidates = ["/usr/bin/python3"]
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") { candidates.append("\(dir)/python3") }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) && (try? run($0, ["-c", "import numpy, PIL"])) != nil }
    }()
    static let dcrawEmu = which("dcraw_emu")
    static let exiftool = which("exiftool")
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/make_dng.py").path

    /// Runs a tool; its standard output, or a thrown description (with its standard error)
    /// when it fails.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> Data { try runToolOrThrow(executable, arguments) }

    static let scratch: URL = {
        let u = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-raw-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.createDirectory(at: u, withIntermediateDirectories: true)
        return u
    }()

    /// A DNG made by make_dng.py with `arguments`, and what the script says it holds.
    static func makeDNG(_ name: String, _ arguments: [String] = []) throws -> (URL, [String: Any]) {
        guard let python else { throw CocoaError(.featureUnsupported) }
        let url = scratch.appendingPathComponent(name)
        let out = try run(python, [script, url.path] + arguments)
        let info = try JSONSerialization.jsonObject(with: out) as? [String: Any] ?? [:]
        return (url, info)
    }

    /// dcraw_emu's development of `url` (16-bit linear PPM) as linear RGB rows top-down.
    static func libRawDevelop(_ url: URL, _ options: [String]) throws -> (width: Int, height: Int, rgb: [Float]) {
        guard let dcrawEmu else { throw CocoaError(.featureUnsupported) }
        let ppm = try run(dcrawEmu, options + ["-Z", "-", url.path])
        return try parsePPM(ppm)
    }

    static func parsePPM(_ d: Data) throws -> (width: Int, height: Int, rgb: [Float]) {
        let bytes = [UInt8](d)
        var fields: [String] = []
        var i = 0
        while fields.count < 4 && i < bytes.count {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0a || bytes[i] == 0x0d || bytes[i] == 0x09 { i += 1 }
            var f = ""
            while i < bytes.count, !(bytes[i] == 0x20 || bytes[i] == 0x0a || bytes[i] == 0x0d || bytes[i] == 0x09) { f.append(Character(UnicodeScalar(bytes[i]))); i += 1 }
            fields.append(f)
        }
        i += 1
        guard fields.count == 4, fields[0] == "P6", let w = Int(fields[1]), let h = Int(fields[2]), let mx = Int(fields[3]), mx > 255,
            bytes.count >= i + w * h * 6
        else { throw CocoaError(.fileReadCorruptFile) }
        var rgb = [Float](repeating: 0, count: w * h * 3)
        for k in 0..<(w * h * 3) { rgb[k] = Float(Int(bytes[i + 2 * k]) << 8 | Int(bytes[i + 2 * k + 1])) / Float(mx) }
        return (w, h, rgb)
    }

    /// `image` rendered as linear sRGB floats (RGB, rows top-down).
    static func render(_ image: CIImage) throws -> (width: Int, height: Int, rgb: [Float]) {
        let r = try CIContext().renderToData(image, from: image.extent, format: .RGBAf, colorSpace: .extendedLinearSRGBSpace)
        var rgb = [Float](repeating: 0, count: r.width * r.height * 3)
        r.data.withUnsafeBytes { raw in
            let f = raw.bindMemory(to: Float.self)
            for p in 0..<(r.width * r.height) { for c in 0..<3 { rgb[p * 3 + c] = f[p * 4 + c] } }
        }
        return (r.width, r.height, rgb)
    }

    /// The mean colour of a patch (top-left origin), `inset` pixels in from its edges.
    static func mean(_ img: (width: Int, height: Int, rgb: [Float]), _ patch: [String: Any], inset: Int = 4) -> SIMD3<Double> {
        let x = patch["x"] as! Int, y = patch["y"] as! Int, w = patch["w"] as! Int, h = patch["h"] as! Int
        var s = SIMD3<Double>(0, 0, 0)
        var n = 0.0
        for yy in (y + inset)..<(y + h - inset) {
            for xx in (x + inset)..<(x + w - inset) {
                let i = (yy * img.width + xx) * 3
                s += SIMD3(Double(img.rgb[i]), Double(img.rgb[i + 1]), Double(img.rgb[i + 2]))
                n += 1
            }
        }
        return s / n
    }

    static func patch(_ info: [String: Any], _ name: String) -> [String: Any] {
        (info["patches"] as! [[String: Any]]).first { $0["name"] as? String == name }!
    }
}

/// CIEDE2000 between two linear sRGB colours (D65), from the published formula.
/// The mean CIEDE2000 over every pixel of two renders of one size (RGB triples).
func meanDeltaE2000(_ a: (width: Int, height: Int, rgb: [Float]), _ b: (width: Int, height: Int, rgb: [Float])) -> Double {
    let n = a.width * a.height
    var total = 0.0
    for p in 0..<n {
        let i = p * 3
        total += deltaE2000(
            SIMD3(Double(a.rgb[i]), Double(a.rgb[i + 1]), Double(a.rgb[i + 2])),
            SIMD3(Double(b.rgb[i]), Double(b.rgb[i + 1]), Double(b.rgb[i + 2])))
    }
    return total / Double(max(1, n))
}

func deltaE2000(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
    func lab(_ c: SIMD3<Double>) -> (Double, Double, Double) {
        let x = (0.4124564 * c.x + 0.3575761 * c.y + 0.1804375 * c.z) / 0.95047
        let y = 0.2126729 * c.x + 0.7151522 * c.y + 0.0721750 * c.z
        let z = (0.0193339 * c.x + 0.1191920 * c.y + 0.9503041 * c.z) / 1.08883
        func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
        return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))
    }
    let (l1, a1, b1) = lab(a), (l2, a2, b2) = lab(b)
    let c1 = (a1 * a1 + b1 * b1).squareRoot(), c2 = (a2 * a2 + b2 * b2).squareRoot()
    let cm = (c1 + c2) / 2
    let g = 0.5 * (1 - (pow(cm, 7) / (pow(cm, 7) + pow(25, 7))).squareRoot())
    let a1p = a1 * (1 + g), a2p = a2 * (1 + g)
    let c1p = (a1p * a1p + b1 * b1).squareRoot(), c2p = (a2p * a2p + b2 * b2).squareRoot()
    func hue(_ b: Double, _ a: Double) -> Double {
        if a == 0 && b == 0 { return 0 }
        let h = atan2(b, a) * 180 / .pi
        return h < 0 ? h + 360 : h
    }
    let h1 = hue(b1, a1p), h2 = hue(b2, a2p)
    let dL = l2 - l1, dC = c2p - c1p
    var dh = 0.0
    if c1p * c2p != 0 {
        dh = h2 - h1
        if dh > 180 { dh -= 360 } else if dh < -180 { dh += 360 }
    }
    let dH = 2 * (c1p * c2p).squareRoot() * sin(dh * .pi / 360)
    let lm = (l1 + l2) / 2, cmp = (c1p + c2p) / 2
    var hm = h1 + h2
    if c1p * c2p != 0 {
        if abs(h1 - h2) > 180 { hm = h1 + h2 < 360 ? (h1 + h2 + 360) / 2 : (h1 + h2 - 360) / 2 } else { hm = (h1 + h2) / 2 }
    }
    let t =
        1 - 0.17 * cos((hm - 30) * .pi / 180) + 0.24 * cos(2 * hm * .pi / 180) + 0.32 * cos((3 * hm + 6) * .pi / 180)
        - 0.20 * cos((4 * hm - 63) * .pi / 180)
    let dTheta = 30 * exp(-pow((hm - 275) / 25, 2))
    let rc = 2 * (pow(cmp, 7) / (pow(cmp, 7) + pow(25, 7))).squareRoot()
    let sl = 1 + 0.015 * pow(lm - 50, 2) / (20 + pow(lm - 50, 2)).squareRoot()
    let sc = 1 + 0.045 * cmp, sh = 1 + 0.015 * cmp * t
    let rt = -sin(2 * dTheta * .pi / 180) * rc
    let x = dL / sl, y = dC / sc, z = dH / sh
    return (x * x + y * y + z * z + rt * y * z).squareRoot()
}

@Suite("RAW development")
struct RAWDevelopmentTests {
    /// Whether the oracles are here; records an issue naming what is missing when not.
    static func toolsPresent() -> Bool {
        if RAWTools.python == nil { Issue.record("python3 with numpy and Pillow is missing (Debian python3-numpy, python3-pil): RAW tests not run"); return false }
        if RAWTools.dcrawEmu == nil { Issue.record("dcraw_emu is missing (Debian libraw-bin): RAW tests not run"); return false }
        return true
    }

    @Test func theTestDNGsAreRealDNGs() throws {
        guard Self.toolsPresent() else { return }
        guard let exiftool = RAWTools.exiftool else { Issue.record("exiftool is missing (libimage-exiftool-perl)"); return }
        let (url, _) = try RAWTools.makeDNG("real.dng", ["--cfa", "BGGR", "--bits", "12"])
        let json = try JSONSerialization.jsonObject(with: RAWTools.run(exiftool, ["-j", "-n", url.path])) as! [[String: Any]]
        let tags = json[0]
        #expect(tags["Make"] as? String == "Cyanotype")
        #expect(tags["ISO"] as? Int == 400)
        #expect(tags["DNGVersion"] as? String == "1 4 0 0")
        #expect(tags["LensModel"] as? String == "Cyanotype 35mm F1.4 Test")
        #expect((tags["PreviewImageLength"] as? Int ?? 0) > 0)
        // LibRaw's own tool develops it to the scene (0.85 of white by construction).
        let (_, info) = try RAWTools.makeDNG("real.dng", ["--cfa", "BGGR", "--bits", "12"])
        let dev = try RAWTools.libRawDevelop(url, ["-w", "-o", "1", "-4", "-q", "3", "-H", "0", "-t", "0"])
        let grey = RAWTools.mean(dev, RAWTools.patch(info, "grey"))
        let truth = (RAWTools.patch(info, "grey")["linear"] as! [Double])[0]
        #expect(abs(grey.y / truth - 0.85) < 0.01)
    }

    @Test(arguments: [["--cfa", "RGGB", "--bits", "14"], ["--cfa", "BGGR", "--bits", "12", "--no-preview"]])
    func neutralDevelopMatchesLibRawAndTheScene(arguments: [String]) throws {
        guard Self.toolsPresent() else { return }
        let (url, info) = try RAWTools.makeDNG("neutral-\(arguments[1])-\(arguments[3]).dng", arguments)
        let filter = try #require(CIRAWFilter(imageURL: url))
        filter.boostAmount = 0
        let ours = try RAWTools.render(try #require(filter.outputImage))
        let reference = try RAWTools.libRawDevelop(url, ["-w", "-o", "1", "-4", "-q", "3", "-H", "0", "-t", "0"])
        #expect(ours.width == reference.width && ours.height == reference.height)
        // Mean CIEDE2000 over every pixel against LibRaw's own output.
        let mean = meanDeltaE2000(ours, reference)
        #expect(mean < 2, "mean ΔE00 against dcraw_emu: \(mean)")
        // Against the scene: exposure matched on the grey patch, every colour patch within 3.
        let grey = RAWTools.patch(info, "grey")
        let k = (grey["linear"] as! [Double])[1] / RAWTools.mean(ours, grey).y
        for patch in info["patches"] as! [[String: Any]] where patch["name"] as? String != "clipped" {
            let truth = patch["linear"] as! [Double]
            let e = deltaE2000(RAWTools.mean(ours, patch) * k, SIMD3(truth[0], truth[1], truth[2]))
            #expect(e < 3, "\(patch["name"]!): ΔE00 \(e) from the scene")
        }
        // Clipped highlights are white, not magenta.
        let clipped = RAWTools.mean(ours, RAWTools.patch(info, "clipped"))
        #expect(clipped.min() > 0.98 && clipped.max() - clipped.min() < 0.01, "clipped patch \(clipped)")
    }

    @Test func exposureDoublesLinearValues() throws {
        guard Self.toolsPresent() else { return }
        let (url, info) = try RAWTools.makeDNG("exposure.dng")
        let filter = try #require(CIRAWFilter(imageURL: url))
        filter.boostAmount = 0
        let base = RAWTools.mean(try RAWTools.render(try #require(filter.outputImage)), RAWTools.patch(info, "grey"))
        filter.exposure = 1
        let up = RAWTools.mean(try RAWTools.render(try #require(filter.outputImage)), RAWTools.patch(info, "grey"))
        #expect(abs(up.y / base.y - 2) < 0.01)
        filter.exposure = -1
        let down = RAWTools.mean(try RAWTools.render(try #require(filter.outputImage)), RAWTools.patch(info, "grey"))
        #expect(abs(down.y / base.y - 0.5) < 0.005)
    }

    @Test func baselineExposureComesFromTheDNG() throws {
        guard Self.toolsPresent() else { return }
        let (url, _) = try RAWTools.makeDNG("baseline.dng", ["--baseline-exposure", "0.5"])
        let filter = try #require(CIRAWFilter(imageURL: url))
        #expect(abs(filter.baselineExposure - 0.5) < 0.001)
        let dng = filter.properties[kCGImagePropertyDNGDictionary] as? [String: Any]
        #expect(dng?[kCGImagePropertyDNGVersion] as? [Int] == [1, 4, 0, 0])
    }

    @Test func whiteBalanceMovesGreyTheRightWay() throws {
        guard Self.toolsPresent() else { return }
        let (url, info) = try RAWTools.makeDNG("wb.dng")
        let filter = try #require(CIRAWFilter(imageURL: url))
        // The file's as-shot neutral is the camera's response to D65: about 6504 K, and D65
        // lies Duv 0.0032 above the Planckian locus (tint 3000 x 0.0032, about +10).
        #expect(abs(filter.neutralTemperature - 6504) < 200, "as-shot temperature \(filter.neutralTemperature)")
        #expect(abs(filter.neutralTint - 9.6) < 4, "as-shot tint \(filter.neutralTint)")
        filter.boostAmount = 0
        let grey = RAWTools.patch(info, "grey")
        // Saying the light was warm (3200 K) makes the picture cooler; 10000 K warmer.
        filter.neutralTemperature = 3200
        let cool = RAWTools.mean(try RAWTools.render(try #require(filter.outputImage)), grey)
        #expect(cool.z > cool.x * 1.2, "3200 K: \(cool)")
        filter.neutralTemperature = 10000
        let warm = RAWTools.mean(try RAWTools.render(try #require(filter.outputImage)), grey)
        #expect(warm.x > warm.z * 1.1, "10000 K: \(warm)")
        // A positive tint (a greener light) makes the picture magenta: green drops.
        filter.neutralTemperature = 6504
        filter.neutralTint = 60
        let magenta = RAWTools.mean(try RAWTools.render(try #require(filter.outputImage)), grey)
        #expect(magenta.y < magenta.x && magenta.y < magenta.z, "tint +60: \(magenta)")
    }

    @Test func draftModeAndScaleDevelopAtHalfSize() throws {
        guard Self.toolsPresent() else { return }
        let (url, info) = try RAWTools.makeDNG("draft.dng")
        let filter = try #require(CIRAWFilter(imageURL: url))
        filter.boostAmount = 0
        let full = RAWTools.mean(try RAWTools.render(try #require(filter.outputImage)), RAWTools.patch(info, "grey"))
        filter.isDraftModeEnabled = true
        let draftImage = try #require(filter.outputImage)
        #expect(draftImage.extent.size == filter.nativeSize)
        let draft = RAWTools.mean(try RAWTools.render(draftImage), RAWTools.patch(info, "grey"))
        #expect(abs(draft.y / full.y - 1) < 0.02)
        // LibRaw's half-size develop of the same file is the oracle for the draft pixels.
        let half = try RAWTools.libRawDevelop(url, ["-w", "-o", "1", "-4", "-h", "-H", "0", "-t", "0"])
        #expect(half.width == 192 && half.height == 128)
        filter.isDraftModeEnabled = false
        filter.scaleFactor = 0.5
        let scaled = try #require(filter.outputImage)
        #expect(scaled.extent.width == 192 && scaled.extent.height == 128)
    }

    @Test func ciImageContentsOfDevelopsTheRAWNotItsThumbnail() throws {
        guard Self.toolsPresent() else { return }
        let (url, _) = try RAWTools.makeDNG("contents.dng", ["--orientation", "6"])
        let image = try #require(CIImage(contentsOf: url))
        #expect(image.extent.size == CGSize(width: 384, height: 256))
        #expect(image.properties[kCGImagePropertyOrientation] as? Int == 6)
        let exif = image.properties[kCGImagePropertyExifDictionary] as? [String: Any]
        #expect(exif?[kCGImagePropertyExifISOSpeedRatings] as? [Int] == [400])
        #expect(exif?[kCGImagePropertyExifLensModel] as? String == "Cyanotype 35mm F1.4 Test")
        let tiff = image.properties[kCGImagePropertyTIFFDictionary] as? [String: Any]
        #expect(tiff?[kCGImagePropertyTIFFModel] as? String == "Test Camera")
        let oriented = try #require(CIImage(contentsOf: url, options: [.applyOrientationProperty: true]))
        #expect(oriented.extent.size == CGSize(width: 256, height: 384))
        // The filter reports the file's orientation and its embedded preview.
        let filter = try #require(CIRAWFilter(imageURL: url))
        #expect(filter.orientation == .right)
        let preview = try #require(filter.previewImage)
        #expect(preview.extent.size == CGSize(width: 128, height: 192))
    }

    @Test func anOrdinaryTIFFIsNotRAW() throws {
        guard let python = RAWTools.python else { Issue.record("python3 with Pillow is missing"); return }
        let url = RAWTools.scratch.appendingPathComponent("plain.tif")
        try RAWTools.run(python, ["-c", "from PIL import Image; Image.new('RGB', (20, 10), (10, 20, 30)).save('\(url.path)')"])
        #expect(!RAWFile.isRAW(try Data(contentsOf: url)))
        let image = try #require(CIImage(contentsOf: url))
        #expect(image.extent.size == CGSize(width: 20, height: 10))
    }

    @Test func truncatedAndAbsurdFilesGiveTypedErrors() throws {
        guard Self.toolsPresent() else { return }
        let (url, _) = try RAWTools.makeDNG("whole.dng")
        let bytes = try Data(contentsOf: url)
        // Cut in the middle of the raw image data.
        let cut = bytes.prefix(bytes.count / 2)
        do {
            let image = try CIImage.read(data: cut, name: "cut.dng")
            _ = try CIContext().renderToData(image, from: image.extent)
            Issue.record("a truncated DNG rendered")
        } catch {
            #expect("\(error)".contains("truncated") || "\(error)".contains("damaged") || "\(error)".contains("LibRaw"), "\(error)")
        }
        // A sensor declared 60000 x 60000 over a few hundred kilobytes: refused before
        // LibRaw unpacks anything (or by LibRaw itself), with a typed error.
        let (absurd, _) = try RAWTools.makeDNG("absurd.dng", ["--declared-size", "60000,60000"])
        do {
            let image = try CIImage.read(contentsOf: absurd)
            _ = try CIContext().renderToData(image, from: CGRect(x: 0, y: 0, width: 64, height: 64))
            Issue.record("a DNG declaring 60000x60000 rendered")
        } catch {
            #expect("\(error)".contains("absurd.dng") || "\(error)".contains("limit") || "\(error)".contains("LibRaw"), "\(error)")
        }
        // Not a RAW file at all, but with a RAW's magic.
        #expect(throws: RAWError.self) { _ = try CIRAWFilter.open(data: Data("IIRO0123456789abcdef".utf8)) }
        #expect(CIRAWFilter(imageData: Data(), identifierHint: nil) == nil)
    }

    @Test func imageSourceDevelopsRAWAndUsesTheEmbeddedPreview() throws {
        guard Self.toolsPresent() else { return }
        let (url, _) = try RAWTools.makeDNG("source.dng")
        let source = try #require(CGImageSourceCreateWithURL(url as CFURL, nil))
        #expect(CGImageSourceGetCount(source) == 1)
        #expect(CGImageSourceGetType(source) as String? == "com.adobe.raw-image")
        let image = try #require(CGImageSourceCreateImageAtIndex(source, 0, nil))
        #expect(image.width == 384 && image.height == 256)
        let props = CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [String: Any]
        #expect(props?[kCGImagePropertyPixelWidth] as? Int == 384)
        // The preview (192x128, exiftool's PreviewImage) serves thumbnails up to its size ...
        let small = try #require(
            CGImageSourceCreateThumbnailAtIndex(
                source, 0, [kCGImageSourceCreateThumbnailFromImageIfAbsent: true, kCGImageSourceThumbnailMaxPixelSize: 150] as CFDictionary))
        #expect(max(small.width, small.height) == 150)
        // ... and a larger one develops the raw data.
        let large = try #require(
            CGImageSourceCreateThumbnailAtIndex(
                source, 0, [kCGImageSourceCreateThumbnailFromImageAlways: true, kCGImageSourceThumbnailMaxPixelSize: 300] as CFDictionary))
        #expect(max(large.width, large.height) == 300)
        if let exiftool = RAWTools.exiftool {
            let preview = try RAWTools.run(exiftool, ["-b", "-PreviewImage", url.path])
            #expect(preview.count > 0 && preview.prefix(2) == Data([0xFF, 0xD8]))
        }
    }

}
