import CyanotypeCodecs
import Foundation
import Testing

@testable import Cyanotype

/// libjpeg-turbo's `cjpeg` (makes JPEGs in every sampling, 4:4:0 too).
private let cjpeg: String? = ["/usr/bin/cjpeg", "/usr/local/bin/cjpeg"].first { FileManager.default.isExecutableFile(atPath: $0) }

/// Debian's Python, where Pillow and its lcms binding (ImageCms) live.
private let pillowPython = "/usr/bin/python3"
private let hasPillow: Bool = {
    guard FileManager.default.isExecutableFile(atPath: pillowPython) else { return false }
    return (try? runPython("from PIL import Image, ImageCms, ImageOps", in: FileManager.default.temporaryDirectory)) != nil
}()

/// Runs `script` with Debian's Python in `dir`; its stdout, or an error with its stderr.
@discardableResult
private func runPython(_ script: String, _ args: [String] = [], in dir: URL) throws -> String {
    String(decoding: try runToolOrThrow(pillowPython, ["-c", script] + args, in: dir), as: UTF8.self)
}

/// Issue #26: real photos (an ICC profile, an EXIF orientation, progressive) read on the
/// 8-bit path: the profile converted tile by tile, the orientation applied to the stored rows.
/// Oracle: Pillow (libjpeg) decodes the same files, `ImageOps.exif_transpose` turns them
/// upright and `ImageCms` (lcms2) converts them to sRGB.
@Suite(.serialized) struct PhotoPathTests {
    /// The profiles the files carry: sRGB (Pillow's), Display P3 and Adobe RGB (engine-named
    /// spaces), and P3 primaries with a 1.8 gamma (no name: read through lcms2 per row).
    static let profiles: [(String, Data?)] = [
        ("srgb", nil),
        ("p3", ColorProfiles.displayP3),
        ("adobe", ColorProfiles.rgbProfile(.adobeRGB, transfer: .gamma(563 / 256), description: "Adobe RGB (1998)")),
        ("odd", ColorProfiles.rgbProfile(.displayP3, transfer: .gamma(1.8), description: "P3 gamma 1.8")),
    ]
    static let (width, height) = (48, 32)

    /// Makes every profile x (baseline, progressive) x orientation 1...8 JPEG in `dir`, and
    /// Pillow's upright sRGB pixels of each (`NAME-want.rgb`, raw RGB).
    static func makeFiles(in dir: URL) throws {
        for (name, icc) in profiles { if let icc { try icc.write(to: dir.appendingPathComponent("\(name).icc")) } }
        try runPython(
            """
            import io, random
            from PIL import Image, ImageCms, ImageOps
            W, H = \(width), \(height)
            random.seed(26)
            img = Image.new('RGB', (W, H))
            px = img.load()
            c = lambda v: max(0, min(255, int(v)))
            for y in range(H):
                for x in range(W):
                    n = random.randint(-6, 6)
                    px[x, y] = (c(20 + 220 * x / W + n), c(30 + 200 * y / H + n), c(230 - 170 * x / W + 30 * ((x + y) % 4) + n))
            srgb = ImageCms.createProfile('sRGB')
            for name in ['srgb', 'p3', 'adobe', 'odd']:
                icc = ImageCms.ImageCmsProfile(srgb).tobytes() if name == 'srgb' else open(name + '.icc', 'rb').read()
                for prog in (0, 1):
                    for o in range(1, 9):
                        ex = Image.Exif()
                        ex[0x0112] = o
                        path = '%s-%d-%d.jpg' % (name, prog, o)
                        img.save(path, quality=95, subsampling=0, progressive=bool(prog), exif=ex.tobytes(), icc_profile=icc)
                        im = ImageOps.exif_transpose(Image.open(path))
                        im = ImageCms.profileToProfile(im, ImageCms.ImageCmsProfile(io.BytesIO(icc)), srgb,
                                                       renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC)
                        open(path[:-4] + '-want.rgb', 'wb').write(im.convert('RGB').tobytes())
                        # The file's own values, upright, unconverted (for the no-conversion re-save).
                        open(path[:-4] + '-upright.rgb', 'wb').write(ImageOps.exif_transpose(Image.open(path)).convert('RGB').tobytes())
            """, in: dir)
    }

    static func tempDir() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-photos-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Largest and mean per-channel difference between RGBA8 `ours` and raw RGB `want`.
    static func difference(_ ours: Data, _ want: Data) -> (max: Int, mean: Double) {
        let a = [UInt8](ours), b = [UInt8](want)
        guard a.count / 4 == b.count / 3, !b.isEmpty else { return (255, 255) }
        var worst = 0, sum = 0
        for i in 0..<(b.count / 3) {
            for k in 0..<3 {
                let d = abs(Int(a[4 * i + k]) - Int(b[3 * i + k]))
                worst = max(worst, d)
                sum += d
            }
        }
        return (worst, Double(sum) / Double(b.count))
    }

    static let srgb = CGColorSpace(name: CGColorSpace.sRGB)!
    static var read: [CIImageOption: Any] { [.applyOrientationProperty: true] }

    @Test(.enabled(if: hasPillow, "needs Debian's python3-pil (scripts/setup.sh --test)"))
    func everyOrientationAndProfileReadsUprightAndAsLcmsConvertsIt() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.makeFiles(in: dir)
        let ctx = CIContext(options: [.outputPremultiplied: false])
        for (name, _) in Self.profiles {
            for prog in 0...1 {
                for o in 1...8 {
                    let base = "\(name)-\(prog)-\(o)"
                    let image = try CIImage.read(contentsOf: dir.appendingPathComponent("\(base).jpg"), options: Self.read)
                    let (w, h) = o >= 5 ? (Self.height, Self.width) : (Self.width, Self.height)
                    #expect(image.extent == CGRect(x: 0, y: 0, width: w, height: h), "\(base)")
                    #expect(image.properties[kCGImagePropertyOrientation] as? Int == 1, "\(base)")
                    let ours = try ctx.renderToData(image, from: image.extent, format: .RGBA8, colorSpace: Self.srgb).data
                    let d = Self.difference(ours, try Data(contentsOf: dir.appendingPathComponent("\(base)-want.rgb")))
                    // Within 2 levels of lcms2's conversion of Pillow's upright decode.
                    #expect(d.max <= 2 && d.mean < 0.5, "\(base): max \(d.max), mean \(d.mean)")
                }
            }
        }
    }

    @Test(.enabled(if: hasPillow, "needs Debian's python3-pil (scripts/setup.sh --test)"))
    func streamedTiledAndWholeDecodesAgree() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.makeFiles(in: dir)
        let whole = CIContext(options: [.outputPremultiplied: false])
        let tiled = CIContext(options: [.outputPremultiplied: false, .tileSize: 16])
        let blur = { (i: CIImage) in i.clampedToExtent().applyingGaussianBlur(sigma: 2).cropped(to: i.extent) }
        for name in ["p3", "adobe", "odd"] {
            for o in [1, 3, 6, 7] {
                let url = dir.appendingPathComponent("\(name)-0-\(o).jpg")
                // Baseline files stream; lenient reads decode whole (the reference path).
                let streamed = try CIImage.read(contentsOf: url, options: Self.read)
                var lenient = Self.read
                lenient[.lenientDecoding] = true
                let held = try CIImage.read(contentsOf: url, options: lenient)
                for (what, f) in [("plain", { (i: CIImage) in i }), ("blur", blur)] {
                    let a = try whole.renderToData(f(streamed), from: streamed.extent, format: .RGBA8, colorSpace: Self.srgb).data
                    let b = try whole.renderToData(f(held), from: held.extent, format: .RGBA8, colorSpace: Self.srgb).data
                    let t = try tiled.renderToData(f(streamed), from: streamed.extent, format: .RGBA8, colorSpace: Self.srgb).data
                    let ab = zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 255
                    #expect(ab <= 1, "\(name) \(o) \(what): streamed vs whole differ by \(ab)")
                    #expect(a == t, "\(name) \(o) \(what): tiles of 16 differ from whole renders")
                }
                // Streamed to a file as rows arrive (one render) = rendered whole and encoded.
                let png = try whole.encode(streamed, as: .png, colorSpace: Self.srgb)
                let pngHeld = try whole.encode(held, as: .png, colorSpace: Self.srgb)
                #expect(png == pngHeld, "\(name) \(o): PNG of the streamed file differs from the whole decode's")
            }
        }
    }

    @Test(.enabled(if: hasPillow, "needs Debian's python3-pil (scripts/setup.sh --test)"))
    func aP3FileWrittenBackAsP3KeepsItsValuesAndProfile() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.makeFiles(in: dir)
        let p3 = CGColorSpace(name: CGColorSpace.displayP3)!
        let ctx = CIContext()
        for prog in 0...1 {
            for o in [1, 2, 5, 6, 8] {
                let base = "p3-\(prog)-\(o)"
                let image = try CIImage.read(contentsOf: dir.appendingPathComponent("\(base).jpg"), options: Self.read)
                // The file is read as Display P3 values and, when it streams (baseline), written
                // without a conversion: the stored rows are the output's. A progressive file is
                // held as its Y'CbCr planes, whose RGB rows are made tile by tile, so its values
                // go through the working space and back.
                let passesThrough = prog == 0
                if passesThrough {
                    let source = try #require(bitmapSource(image.node, covering: PixelRect(covering: image.extent)), "\(base)")
                    #expect(source.colorSpace == p3 && source.profileTransform == nil, "\(base)")
                }
                try ctx.write(image, as: .png, to: dir.appendingPathComponent("\(base)-out.png"), colorSpace: p3)
                try ctx.write(image, as: .jpeg, to: dir.appendingPathComponent("\(base)-out.jpg"), colorSpace: p3)
                let report = try runPython(
                    """
                    import io, sys
                    from PIL import Image, ImageCms
                    for f in (sys.argv[1] + '-out.png', sys.argv[1] + '-out.jpg'):
                        im = Image.open(f)
                        print(ImageCms.getProfileDescription(ImageCms.ImageCmsProfile(io.BytesIO(im.info['icc_profile']))).strip(),
                              im.getexif().get(0x0112, 1))
                    want = open(sys.argv[1] + '-upright.rgb', 'rb').read()
                    got = Image.open(sys.argv[1] + '-out.png').convert('RGB').tobytes()
                    print('same' if got == want else 'differ %d' % max(abs(a - b) for a, b in zip(got, want)))
                    """, [base], in: dir)
                let lines = report.split(separator: "\n").map(String.init)
                #expect(lines.prefix(2) == ["Display P3 1", "Display P3 1"], "\(base): \(report)")
                #expect(lines.last == "same" || (!passesThrough && lines.last == "differ 1"), "\(base): \(report)")
            }
        }
    }

    @Test(.enabled(if: hasPillow, "needs Debian's python3-pil (scripts/setup.sh --test)"))
    func aTurnedP3FileChangedBeforeItsRenderFailsCleanly() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.makeFiles(in: dir)
        // Baseline (streamed) and progressive (held as planes): both decode from the file.
        for name in ["p3-0-6", "p3-1-6"] {
            let url = dir.appendingPathComponent("\(name).jpg")
            let before = try CIImage.read(contentsOf: url, options: Self.read)
            let small = try CIImage.read(contentsOf: url, options: Self.read)
                .applyingFilter("CILanczosScaleTransform", parameters: [kCIInputScaleKey: 0.25])
            // Replaced by another picture after the header was read: the render names the file.
            try Data(contentsOf: dir.appendingPathComponent("adobe-0-3.jpg")).write(to: url)
            for image in [before, small] {
                do {
                    _ = try CIContext().encode(image, as: .jpeg)
                    Issue.record("\(name): a changed file rendered")
                } catch {
                    #expect(error.description.contains("\(name).jpg"), "\(error)")
                }
            }
        }
    }

    /// 16-bit rows (PNG) through a profile: Display P3 through the engine's tables and matrix,
    /// the unnamed gamma-1.8 P3 profile through lcms2's 16-bit row transform; oracle: the
    /// profile's own formula (linear = code^gamma in P3 primaries, then the P3 -> sRGB matrix
    /// from the primaries, written here).
    @Test func sixteenBitRowsConvertThroughTheirProfile() throws {
        let (w, h) = (40, 3)
        var words = [UInt16](repeating: 65535, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                let i = (y * w + x) * 4
                words[i] = UInt16(x * 1600 + 300)
                words[i + 1] = UInt16(65535 - x * 1500)
                words[i + 2] = UInt16((x * 7919 + y * 12345) % 65536)
            }
        }
        // P3 (D65) -> sRGB (D65) for linear RGB: sRGB's XYZ -> RGB times P3's RGB -> XYZ.
        let p3ToXYZ: [[Double]] = [
            [0.4865709, 0.2656677, 0.1982173], [0.2289746, 0.6917385, 0.0792869], [0.0000000, 0.0451134, 1.0439444],
        ]
        let xyzToSRGB: [[Double]] = [[3.2404542, -1.5371385, -0.4985314], [-0.9692660, 1.8760108, 0.0415560], [0.0556434, -0.2040259, 1.0572252]]
        func srgbDecode(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
        let cases: [(String, Data?, (Double) -> Double)] = [
            ("P3", ColorProfiles.displayP3, srgbDecode),
            ("P3 gamma 1.8", ColorProfiles.rgbProfile(.displayP3, transfer: .gamma(1.8), description: "P3 gamma 1.8"), { pow($0, 1.8) }),
        ]
        for (name, icc, decode) in cases {
            var o = EncodeOptions()
            o.iccProfile = icc
            let png = try words.withUnsafeBufferPointer { try ImageCodecs.encode(rgba16: $0, width: w, height: h, hasAlpha: false, format: .png, options: o) }
            let image = try CIImage.read(data: png)
            let out = try renderFloat(image, image.extent)
            var worst = 0.0
            for (k, px) in out.enumerated() {
                let lin = (0..<3).map { decode(Double(words[k * 4 + $0]) / 65535) }
                let xyz = p3ToXYZ.map { r in r[0] * lin[0] + r[1] * lin[1] + r[2] * lin[2] }
                let want = xyzToSRGB.map { r in r[0] * xyz[0] + r[1] * xyz[1] + r[2] * xyz[2] }
                for c in 0..<3 { worst = max(worst, abs(Double(px[c]) - want[c])) }
            }
            // lcms2 works through D50 with 16-bit tables: within 2e-3 of the formula.
            #expect(worst < 2e-3, "\(name): largest difference \(worst)")
        }
    }

    /// A 16-bit PNG written as 8 bits with no filter (#26 row 6) takes its rows as they
    /// decode, each sample rounded to the nearest level with no float pass: every one of the
    /// 65536 values, opaque and under partial alpha (straight, so untouched by it). Oracle:
    /// round(v x 255 / 65535), the formula.
    @Test(arguments: [false, true])
    func sixteenBitPNGWrittenAsEightBitsRoundsEverySample(alpha: Bool) throws {
        let (w, h) = (256, 256)
        var words = [UInt16](repeating: 65535, count: w * h * 4)
        for v in 0..<(w * h) {
            words[v * 4] = UInt16(v)
            words[v * 4 + 1] = UInt16(65535 - v)
            words[v * 4 + 2] = UInt16((v * 7919) % 65536)
            if alpha { words[v * 4 + 3] = UInt16(1000 + (v * 3) % 64536) }
        }
        let png = try words.withUnsafeBufferPointer { try ImageCodecs.encode(rgba16: $0, width: w, height: h, hasAlpha: alpha, format: .png, options: EncodeOptions()) }
        let image = try CIImage.read(data: png)
        let out = try CIContext().encode(image, as: .png, depth: 8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!)
        let decoded = try ImageCodecs.decode(out)
        #expect(decoded.width == w && decoded.height == h && decoded.bitDepth == 8)
        var wrong = 0
        for i in 0..<(w * h * 4) where alpha || i % 4 != 3 {
            let want = Int((Double(words[i]) * 255 / 65535).rounded())
            if Int(decoded.pixels[i]) != want { wrong += 1 }
        }
        #expect(wrong == 0, "\(wrong) samples not rounded to nearest")
    }

    /// A progressive sRGB JPEG (4:2:0, odd sides, #26 row 4), held as its Y'CbCr planes, reads
    /// upright in every orientation exactly as TurboJPEG's whole decode (the lenient read's
    /// path), plain and blurred; tiles of 16 equal whole renders.
    @Test func progressiveJPEGMatchesTheWholeDecodeInEveryOrientation() throws {
        let (w, h) = (101, 67)
        var px = [UInt8](repeating: 255, count: w * h * 4)
        var state: UInt64 = 26
        for i in 0..<(w * h) {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let (x, y) = (i % w, i / w)
            let n = Int(state >> 61) - 4
            px[i * 4] = UInt8(clamping: 20 + 220 * x / w + n)
            px[i * 4 + 1] = UInt8(clamping: 30 + 200 * y / h + n)
            px[i * 4 + 2] = UInt8(clamping: 230 - 170 * x / w + 30 * ((x + y) % 4) + n)
        }
        let whole = CIContext(options: [.outputPremultiplied: false])
        let tiled = CIContext(options: [.outputPremultiplied: false, .tileSize: 16])
        let blur = { (i: CIImage) in i.clampedToExtent().applyingGaussianBlur(sigma: 2).cropped(to: i.extent) }
        for o in 1...8 {
            var opts = EncodeOptions()
            opts.quality = 0.9
            opts.progressive = true
            opts.exif = ReducedDecodeTests.exif(orientation: o)
            let data = try px.withUnsafeBufferPointer { try ImageCodecs.encode(rgba8: $0, width: w, height: h, hasAlpha: false, format: .jpeg, options: opts) }
            let planar = try CIImage.read(data: data, options: Self.read)
            #expect(Self.heldAsPlanes(planar), "orientation \(o): not held as Y'CbCr planes")
            var lenient = Self.read
            lenient[.lenientDecoding] = true
            let held = try CIImage.read(data: data, options: lenient)
            #expect(planar.extent == CGRect(x: 0, y: 0, width: o >= 5 ? h : w, height: o >= 5 ? w : h), "orientation \(o)")
            for (what, f) in [("plain", { (i: CIImage) in i }), ("blur", blur)] {
                let a = [UInt8](try whole.renderToData(f(planar), from: planar.extent, format: .RGBA8, colorSpace: Self.srgb).data)
                let b = [UInt8](try whole.renderToData(f(held), from: held.extent, format: .RGBA8, colorSpace: Self.srgb).data)
                let t = [UInt8](try tiled.renderToData(f(planar), from: planar.extent, format: .RGBA8, colorSpace: Self.srgb).data)
                let d = zip(a, b).map { abs(Int($0) - Int($1)) }
                #expect(a == b, "orientation \(o) \(what): \(d.max() ?? -1) levels from the whole decode")
                #expect(a == t, "orientation \(o) \(what): tiles of 16 differ from whole renders")
            }
        }
    }

    /// A progressive JPEG's planes as stored (`JPEGPlanes`, libjpeg's raw data): the luma
    /// plane is Pillow's Y exactly (libjpeg asked for YCbCr, whose luma is not resampled), and
    /// each 2x2 block's chroma is Pillow's upsampled chroma averaged over the block, within 2
    /// levels. Oracle: Pillow (`draft("YCbCr")`).
    @Test(.enabled(if: hasPillow, "needs Debian's python3-pil (scripts/setup.sh --test)"))
    func progressiveJPEGPlanesAreLibjpegsYCbCr() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (w, h) = (101, 67)
        var px = [UInt8](repeating: 255, count: w * h * 4)
        for i in 0..<(w * h) {
            let (x, y) = (i % w, i / w)  // smooth ramps: upsampled chroma averages back to its samples
            (px[i * 4], px[i * 4 + 1], px[i * 4 + 2]) = (UInt8(20 + 2 * x), UInt8(30 + 3 * y), UInt8(200 - x - y))
        }
        var opts = EncodeOptions()
        opts.progressive = true
        let data = try px.withUnsafeBufferPointer { try ImageCodecs.encode(rgba8: $0, width: w, height: h, hasAlpha: false, format: .jpeg, options: opts) }
        try data.write(to: dir.appendingPathComponent("p.jpg"))
        try runPython(
            """
            from PIL import Image
            im = Image.open('p.jpg'); im.draft('YCbCr', im.size)
            open('p.ycc', 'wb').write(im.convert('YCbCr').tobytes())
            """, in: dir)
        let ycc = [UInt8](try Data(contentsOf: dir.appendingPathComponent("p.ycc")))
        let p = try #require(try JPEGPlanes.decode(data))
        #expect(p.width == w && p.height == h && p.chromaShift == (1, 1))
        var lumaWrong = 0, chromaWorst = 0.0
        for y in 0..<h { for x in 0..<w where p.luma[y * p.lumaRowBytes + x] != ycc[(y * w + x) * 3] { lumaWrong += 1 } }
        for j in 0..<(h / 2) {
            for i in 0..<(w / 2) {
                for (c, plane) in [(1, p.cb), (2, p.cr)] {
                    var sum = 0.0
                    for dy in 0..<2 { for dx in 0..<2 { sum += Double(ycc[((2 * j + dy) * w + 2 * i + dx) * 3 + c]) } }
                    chromaWorst = max(chromaWorst, abs(sum / 4 - Double(plane[j * p.chromaRowBytes + i])))
                }
            }
        }
        #expect(lumaWrong == 0, "\(lumaWrong) luma samples differ from libjpeg's")
        #expect(chromaWorst <= 2, "chroma \(chromaWorst) levels from the upsampled chroma's block mean")
    }

    /// A progressive JPEG held as its upright planes (#26 row 4) reads as libjpeg decodes it,
    /// turned: every orientation x sampling (4:4:4, 4:2:2, 4:4:0, 4:2:0) x odd and tiny sizes
    /// (libjpeg repeats chroma samples under 3 columns), rendered unmanaged (codes as values),
    /// whole and in tiles of 16. Oracle: libjpeg-turbo's `djpeg` of the same file (`cjpeg`
    /// made it), turned upright by EXIF's formula written here.
    @Test(.enabled(if: ReducedDecodeTests.djpeg != nil && cjpeg != nil, "needs djpeg and cjpeg (libjpeg-turbo-progs, scripts/setup.sh --test)"))
    func progressivePlanesReadAsDjpegTurnedUpright() throws {
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let unmanaged = CIContext(options: [.workingColorSpace: NSNull(), .outputPremultiplied: false])
        let tiled = CIContext(options: [.workingColorSpace: NSNull(), .outputPremultiplied: false, .tileSize: 16])
        let (cjpeg, djpeg) = (try #require(cjpeg), try #require(ReducedDecodeTests.djpeg))
        var state: UInt64 = 0x26_04
        for (w, h) in [(37, 23), (50, 19), (3, 5), (4, 2)] {
            // Busy colour (noise on ramps), so chroma rounding shows.
            var ppm = Data("P6\n\(w) \(h)\n255\n".utf8)
            for i in 0..<(w * h) {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let (x, y) = (i % w, i / w)
                let n = Int(state >> 58) - 32
                ppm += [UInt8(clamping: 20 + 200 * x / w + n), UInt8(clamping: 220 - 180 * y / h - n), UInt8(clamping: 60 + 3 * n + 90 * ((x + y) % 3))]
            }
            let ppmURL = dir.appendingPathComponent("in.ppm")
            try ppm.write(to: ppmURL)
            for sample in ["1x1", "2x1", "1x2", "2x2"] {
                let stored = dir.appendingPathComponent("s.jpg")
                let made = try #require(runTool(cjpeg, ["-quality", "90", "-sample", sample, "-progressive", "-outfile", stored.path, ppmURL.path]))
                #expect(made.status == 0, "cjpeg -sample \(sample) failed")
                let decoded = try #require(runTool(djpeg, ["-ppm", stored.path]))
                let want = try #require(Self.ppmPixels(decoded.data), "djpeg gave no PPM for \(sample)")
                #expect(want.width == w && want.height == h)
                let jpeg = try Data(contentsOf: stored)
                for o in 1...8 {
                    // The same file with an EXIF block holding the orientation, after SOI.
                    let exif = Data("Exif".utf8) + [0, 0] + ReducedDecodeTests.exif(orientation: o)
                    let file = jpeg.prefix(2) + [0xFF, 0xE1, UInt8((exif.count + 2) >> 8), UInt8((exif.count + 2) & 0xFF)] + exif + jpeg.dropFirst(2)
                    let image = try CIImage.read(data: Data(file), options: Self.read)
                    let (uw, uh) = o >= 5 ? (h, w) : (w, h)
                    let what = "\(w)x\(h) \(sample) orientation \(o)"
                    #expect(image.extent == CGRect(x: 0, y: 0, width: uw, height: uh), "\(what)")
                    #expect(Self.heldAsPlanes(image), "\(what): not held as Y'CbCr planes")
                    let ours = [UInt8](try unmanaged.renderToData(image, from: image.extent, format: .RGBA8).data)
                    let tiles = [UInt8](try tiled.renderToData(image, from: image.extent, format: .RGBA8).data)
                    var worst = 0
                    for Y in 0..<uh {
                        for X in 0..<uw {
                            // EXIF: the upright pixel (X, Y) is the stored pixel (x, y).
                            let (x, y): (Int, Int) =
                                switch o {
                                case 2: (w - 1 - X, Y)
                                case 3: (w - 1 - X, h - 1 - Y)
                                case 4: (X, h - 1 - Y)
                                case 5: (Y, X)
                                case 6: (Y, h - 1 - X)
                                case 7: (w - 1 - Y, h - 1 - X)
                                case 8: (w - 1 - Y, X)
                                default: (X, Y)
                                }
                            for c in 0..<3 {
                                worst = max(worst, abs(Int(ours[(Y * uw + X) * 4 + c]) - Int(want.rgb[(y * w + x) * 3 + c])))
                            }
                        }
                    }
                    #expect(worst == 0, "\(what): \(worst) levels from djpeg's decode")
                    #expect(ours == tiles, "\(what): tiles of 16 differ from the whole render")
                }
            }
        }
    }

    /// Whether a file image's decoded source is a JPEG's Y'CbCr planes (`JPEGPlaneRows`).
    static func heldAsPlanes(_ image: CIImage) -> Bool {
        guard let file = image.node as? LazySourceNode, let bitmap = (try? file.source()) as? BitmapNode else { return false }
        return bitmap.rowSource is JPEGPlaneRows
    }

    /// The RGB samples of a binary PPM (P6, maxval 255).
    static func ppmPixels(_ data: Data) -> (width: Int, height: Int, rgb: [UInt8])? {
        let bytes = [UInt8](data)
        var fields: [Int] = [], i = 2
        guard bytes.starts(with: Array("P6".utf8)) else { return nil }
        while fields.count < 3, i < bytes.count {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
            var v = 0, digits = 0
            while i < bytes.count, (0x30...0x39).contains(bytes[i]) { v = v * 10 + Int(bytes[i] - 0x30); i += 1; digits += 1 }
            guard digits > 0 else { return nil }
            fields.append(v)
        }
        i += 1  // the one whitespace byte before the samples
        guard fields.count == 3, fields[2] == 255, bytes.count - i >= fields[0] * fields[1] * 3 else { return nil }
        return (fields[0], fields[1], Array(bytes[i..<(i + fields[0] * fields[1] * 3)]))
    }

    /// A truncated or corrupt progressive JPEG fails with a typed error (the codec's, then the
    /// render's), never a partial picture or a crash.
    @Test func damagedProgressiveJPEGFailsWithATypedError() throws {
        let (w, h) = (64, 48)
        let px = [UInt8]((0..<(w * h * 4)).map { UInt8(truncatingIfNeeded: $0 * 7) })
        var opts = EncodeOptions()
        opts.progressive = true
        opts.exif = ReducedDecodeTests.exif(orientation: 8)
        let data = try px.withUnsafeBufferPointer { try ImageCodecs.encode(rgba8: $0, width: w, height: h, hasAlpha: false, format: .jpeg, options: opts) }
        let cut = data.prefix(data.count / 2)
        #expect(throws: ImageFileError.self) { try JPEGPlanes.decode(cut) }
        let image = try CIImage.read(data: cut, options: Self.read)
        #expect(throws: CIRenderError.self) { try CIContext().renderToData(image, from: image.extent, format: .RGBA8, colorSpace: Self.srgb) }
        // The same cut file read from disk (decoded from the file, its bytes not held): the
        // render fails with the truncation, in the user's terms.
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("cut-progressive.jpg")
        try cut.write(to: url)
        let fromDisk = try CIImage.read(contentsOf: url, options: Self.read)
        do {
            _ = try CIContext().renderToData(fromDisk, from: fromDisk.extent, format: .RGBA8, colorSpace: Self.srgb)
            Issue.record("a truncated progressive file rendered")
        } catch {
            #expect(error is CIRenderError && "\(error)".contains("truncated") && "\(error)".contains("Premature end"), "\(error)")
        }
        // A scan's Huffman table selector pointed at a table that does not exist.
        var corrupt = data
        let sos = try #require(corrupt.firstRange(of: Data([0xFF, 0xDA])))
        corrupt[sos.lowerBound + 6] = 0x33
        #expect(throws: ImageFileError.self) { try JPEGPlanes.decode(corrupt) }
        let broken = try CIImage.read(data: corrupt, options: Self.read)
        #expect(throws: CIRenderError.self) { try CIContext().renderToData(broken, from: broken.extent, format: .RGBA8, colorSpace: Self.srgb) }
    }
}
