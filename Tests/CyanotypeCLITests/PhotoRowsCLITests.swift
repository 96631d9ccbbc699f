import Cyanotype
import CyanotypeCodecs
import CyanotypeTestSupport
import Foundation
import Testing

/// Whether Debian's Python has numpy and can load liblcms2 (the colour oracle), and
/// ImageMagick's own convert and exiftool are here (the decoders and tag readers).
private let rowsOracleReady: Bool = {
    guard commandExists("exiftool"), FileManager.default.isExecutableFile(atPath: "/usr/bin/convert") else { return false }
    let dir = FileManager.default.temporaryDirectory
    return (try? Tool.run(["-c", "import ctypes, numpy; ctypes.CDLL('liblcms2.so.2')"], in: dir, executable: URL(fileURLWithPath: systemPython)))?.status == 0
}()

/// #26's eight bench rows (Sources/CyanotypeBench/PhotoWorkloads.swift and
/// PhotoFormatWorkloads.swift), each made small (600 x 400 inputs, the output sizes scaled as
/// the rows scale 24, 6, 12 and 16 MP) but built as the bench builds its inputs (the library
/// writes them from the same kind of picture, with the same profile, orientation and coding)
/// and run through the same `cyanotype` command. Each output must be upright and colour-correct:
/// within 1 ΔE (CIEDE2000 mean) of lcms2's conversion of the input's pixels into the output's
/// profile, the input turned upright by EXIF's definition and resized (Pillow's Lanczos) or
/// blurred (a Gaussian, written here) in linear light as the row does. Oracles: ImageMagick
/// decodes every file (raw 16-bit samples, no colour management; a HEIC through libvips),
/// exiftool reads the embedded
/// profiles and orientations, lcms2 converts and measures (`lcmsOracleFunctions`).
@Suite struct PhotoRowsCLI {
    /// One bench row: its number, the inputs it makes, the command (output names) and what
    /// the reference does to the upright input (`resize`, `blur`, `none`).
    struct Row: Sendable, CustomTestStringConvertible {
        let number: Int
        let command: [String]
        let outputs: [(output: String, input: String)]
        let reference: String
        /// The output's profile, as exiftool names it ("-": none, read as sRGB).
        let outputProfile: Set<String>
        var testDescription: String { "26.\(number) \(command.joined(separator: " "))" }
    }

    static let (width, height) = (600, 400)
    static let p3 = CGColorSpace(name: CGColorSpace.displayP3)!
    static let srgbNames: Set<String> = ["-", "sRGB", "sRGB IEC61966-2.1", "sRGB built-in"]

    static let rows: [Row] = [
        Row(
            number: 1, command: ["apply", "p3-6.jpg", "--max-size", "150", "-q", "90", "-o", "r1.jpg"], outputs: [("r1.jpg", "p3-6.jpg")],
            reference: "resize", outputProfile: ["Display P3"]),
        Row(number: 2, command: ["apply", "p3-6.jpg", "-q", "90", "-o", "r2.jpg"], outputs: [("r2.jpg", "p3-6.jpg")], reference: "none", outputProfile: ["Display P3"]),
        Row(
            number: 3, command: ["batch", "a00.jpg", "a01.jpg", "a02.jpg", "--max-size", "160", "-q", "90", "-o", "r3"],
            outputs: [("r3/a00.jpg", "a00.jpg"), ("r3/a01.jpg", "a01.jpg"), ("r3/a02.jpg", "a02.jpg")], reference: "resize", outputProfile: srgbNames),
        Row(
            number: 4, command: ["apply", "prog-8.jpg", "-f", "gaussianBlur radius=10", "-q", "90", "-o", "r4.jpg"], outputs: [("r4.jpg", "prog-8.jpg")],
            reference: "blur", outputProfile: srgbNames),
        Row(
            number: 5, command: ["apply", "in.heic", "--max-size", "212", "-q", "90", "--subsample", "420", "-o", "r5.jpg"], outputs: [("r5.jpg", "in.heic")],
            reference: "resize", outputProfile: ["Display P3"]),
        Row(number: 6, command: ["apply", "in16.png", "-q", "90", "-o", "r6.jpg"], outputs: [("r6.jpg", "in16.png")], reference: "none", outputProfile: srgbNames),
        Row(
            number: 7, command: ["apply", "in.tif", "--max-size", "150", "-q", "90", "--subsample", "420", "-o", "r7.jpg"], outputs: [("r7.jpg", "in.tif")],
            reference: "resize", outputProfile: srgbNames),
        Row(
            number: 8, command: ["apply", "in.webp", "--max-size", "184", "-q", "90", "--subsample", "420", "-o", "r8.jpg"], outputs: [("r8.jpg", "in.webp")],
            reference: "resize", outputProfile: srgbNames),
    ]

    /// A little-endian EXIF (TIFF) block holding only the orientation tag.
    static func exif(orientation: Int) -> Data {
        let entry: [UInt8] = [0x12, 0x01, 3, 0, 1, 0, 0, 0, UInt8(orientation), 0, 0, 0]
        return Data([0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0] + entry + [0, 0, 0, 0])
    }

    /// The photo-like picture as an image of `colorSpace`'s values (8 or 16-bit).
    static func picture(seed: UInt64, colorSpace: CGColorSpace, bits: Int = 8) -> CIImage {
        let s = photoLikeSamples(width: width, height: height, bits: bits, seed: seed)
        let size = CGSize(width: width, height: height)
        if bits == 16 {
            let data = s.withUnsafeBytes { Data($0) }
            return CIImage(bitmapData: data, bytesPerRow: width * 8, size: size, format: .RGBA16, colorSpace: colorSpace)
        }
        return CIImage(bitmapData: Data(s.map { UInt8($0 >> 8) }), bytesPerRow: width * 4, size: size, format: .RGBA8, colorSpace: colorSpace)
    }

    /// The bench's photo (RealPhotos.photo): the values tagged with `colorSpace`, not converted,
    /// an EXIF block of the orientation alone, quality 90.
    static func photo(seed: UInt64, colorSpace: CGColorSpace, orientation: Int, progressive: Bool = false) throws -> Data {
        let image = picture(seed: seed, colorSpace: colorSpace)
            .settingProperties([kCGImagePropertyOrientation: orientation, kCyanotypePropertyRawEXIF: exif(orientation: orientation)])
        return try CIContext(options: [.workingColorSpace: NSNull(), .cacheIntermediates: false])
            .encode(image, as: .jpeg, colorSpace: colorSpace, options: [.lossyCompressionQuality: 0.9, .progressive: progressive])
    }

    /// The inputs `names` of the rows, as the bench writes them.
    static func makeInputs(_ w: Workspace, _ names: [String]) throws {
        let srgb = CGColorSpace(name: CGColorSpace.sRGB)!
        let ctx = CIContext()
        let full = picture(seed: 3, colorSpace: srgb)
        for name in names {
            let data: Data
            switch name {
            case "p3-6.jpg": data = try photo(seed: 1, colorSpace: p3, orientation: 6)
            case "prog-8.jpg": data = try photo(seed: 2, colorSpace: srgb, orientation: 8, progressive: true)
            case "in.heic":
                guard Cyanotype.ImageFileFormat.heif.canEncode else { continue }
                data = try ctx.encode(full, as: .heif, colorSpace: p3, options: [.lossyCompressionQuality: 0.9])
            case "in16.png": data = try ctx.encode(picture(seed: 4, colorSpace: srgb, bits: 16), as: .png, depth: 16)
            case "in.tif": data = try ctx.encode(full, as: .tiff, options: [.tiffCompression: TIFFCompression.deflate])
            case "in.webp": data = try ctx.encode(full, as: .webp, options: [.lossyCompressionQuality: 0.9])
            default:
                // The batch's Adobe RGB files, each a different picture.
                let adobe = try #require(CGColorSpace(name: CGColorSpace.adobeRGB1998))
                data = try photo(seed: 10 + (UInt64(name.dropFirst().prefix(2)) ?? 0), colorSpace: adobe, orientation: 1)
            }
            try data.write(to: w.url(name))
        }
    }

    /// exiftool's orientation (numeric, "-" when absent), profile description and size.
    static func tags(_ w: Workspace, _ file: String) throws -> [String] {
        let r = try w.shell("exiftool -n -T -Orientation -ProfileDescription -ImageWidth -ImageHeight '\(file)'")
        return r.out.trimmingCharacters(in: .newlines).split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
    }

    /// The file's samples as ImageMagick decodes them (raw RGB, 16-bit little-endian; no
    /// orientation, no colour management) and its embedded profile (exiftool; empty if none).
    /// A HEIC is decoded by libvips first (libheif's own Y'CbCr -> RGB, as every libheif reader
    /// gets it; ImageMagick 6 converts HEIC's planes itself, up to 1.4 levels apart), to PNG.
    static func decode(_ w: Workspace, _ file: String, to name: String) throws {
        let source = file.hasSuffix(".heic") ? "\(name).vips.png" : file
        let vips = file.hasSuffix(".heic") ? "vips copy '\(file)' '\(source)' && " : ""
        let r = try w.shell(vips + "/usr/bin/convert '\(source)' -depth 16 -endian LSB 'rgb:\(name).u16' && exiftool -b -ICC_Profile '\(file)' > '\(name).icc'")
        #expect(r.status == 0, "decoding \(file): \(r.stderr)")
    }

    @Test(.enabled(if: rowsOracleReady && pillowAvailable, "needs ImageMagick, exiftool, Pillow, numpy and liblcms2 (scripts/setup.sh --test)"), arguments: rows)
    func benchRowOutputIsUprightAndWithinOneDeltaEOfLcms(row: Row) throws {
        let w = try Workspace()
        try Self.makeInputs(w, row.outputs.map(\.input))
        if row.number == 5 && !w.exists("in.heic") {
            withKnownIssue("this libheif cannot encode HEIC: row 26.5 is not checked") { Issue.record("no HEIC encoder") }
            return
        }
        if row.number == 5 && !commandExists("vips") {
            Issue.record("row 26.5 needs libvips-tools' vips to decode the HEIC (scripts/setup.sh --test)")
            return
        }
        let r = try Tool.run(row.command, in: w.dir)
        #expect(r.status == 0, "\(row.testDescription): \(r.stderr)")
        guard r.status == 0 else { return }
        for (output, input) in row.outputs {
            let what = "26.\(row.number) \(input) -> \(output)"
            let inTags = try Self.tags(w, input), outTags = try Self.tags(w, output)
            guard inTags.count == 4, outTags.count == 4, let iw = Int(inTags[2]), let ih = Int(inTags[3]), let ow = Int(outTags[2]), let oh = Int(outTags[3])
            else {
                Issue.record("\(what): exiftool says \(inTags) and \(outTags)")
                continue
            }
            // HEIF's orientation is its irot box, applied by every decoder (ImageMagick too).
            let orientation = input.hasSuffix(".heic") ? 1 : Int(inTags[0]) ?? 1
            // The output says upright (or nothing), at the upright picture's proportions, in
            // the profile the README promises (P3 kept, the others written as sRGB).
            #expect(outTags[0] == "1" || outTags[0] == "-", "\(what): the output's orientation is \(outTags[0])")
            let (uw, uh) = orientation >= 5 ? (ih, iw) : (iw, ih)
            #expect(abs(Double(ow) / Double(oh) - Double(uw) / Double(uh)) < 0.02, "\(what): \(ow)x\(oh) from upright \(uw)x\(uh)")
            #expect(row.outputProfile.contains(outTags[1]), "\(what): the output's profile is \(outTags[1])")
            try Self.decode(w, input, to: "in")
            try Self.decode(w, output, to: "out")
            let script =
                lcmsOracleFunctions + """

                    from PIL import Image
                    # Both outputs' profiles (sRGB, Display P3) have sRGB's curve: resampling and
                    # blurring are done on its linear light, as the renderer does them.
                    def resize(x, w, h):
                        return np.stack([np.array(Image.fromarray(x[:, :, c].astype(np.float32), 'F').resize((w, h), Image.LANCZOS))
                                         for c in range(3)], -1)
                    def blur(x, sigma):
                        # A Gaussian over 3 sigma each side, the edges repeated.
                        r = int(3 * sigma)
                        k = np.exp(-0.5 * (np.arange(-r, r + 1) / sigma) ** 2)
                        k /= k.sum()
                        for axis in (0, 1):
                            p = np.pad(x, [(r, r) if d == axis else (0, 0) for d in range(3)], mode='edge')
                            n = x.shape[axis]
                            x = sum(k[i] * np.take(p, range(i, i + n), axis=axis) for i in range(2 * r + 1))
                        return x
                    icc_in = open('in.icc', 'rb').read() or None
                    icc_out = open('out.icc', 'rb').read() or None
                    ref = upright(np.fromfile('in.u16', dtype='<u2').reshape(\(ih), \(iw), 3), \(orientation))
                    ours = np.fromfile('out.u16', dtype='<u2').reshape(\(oh), \(ow), 3)
                    # lcms: the input's pixels into the output's profile; then the row's operation.
                    ref = transform(ref, profile(icc_in), profile(icc_out), RGB_16, np.uint16)
                    op = '\(row.reference)'
                    if op == 'resize':
                        ref = encoded(resize(linear(ref), \(ow), \(oh)))
                    elif op == 'blur':
                        ref = encoded(blur(linear(ref), 10))
                    icc_in = icc_out
                    border = 30 if op == 'blur' else 2
                    print(compare(ours, icc_out, ref, icc_in, border), compare(ours, icc_out, ref, icc_in, border, 4))
                    """
            let line = try ColorOutput().python(w, script)
            let f = line.split(separator: " ").compactMap { Double($0) }
            guard f.count == 12 else {
                Issue.record("\(what): \(line)")
                continue
            }
            let (mean, maxDE, p99, levelsMean, decoy) = (f[0], f[1], f[2], f[4], f[5])
            let (blockMean, blockMax, blockP99) = (f[6], f[7], f[8])
            print(
                "PhotoRowsCLI 26.\(row.number) \(output): ΔE00 mean \(mean) p99 \(p99) max \(maxDE); 4x4 means: ΔE00 mean \(blockMean) p99 \(blockP99) max \(blockMax); levels mean \(levelsMean) max \(f[3]); turned half \(decoy)"
            )
            // Colour: the output's colour (4x4 means: JPEG q90's coding noise and the two
            // resamplers' ringing at the saturated patch's edge averaged out) within 1 ΔE of
            // lcms's on average and nearly everywhere; pixel by pixel, JPEG's loss included,
            // within 1.5 on average.
            #expect(blockMean < 1 && blockP99 < 2.5, "\(what): 4x4 means ΔE00 mean \(blockMean), p99 \(blockP99), max \(blockMax)")
            #expect(mean < 1.5, "\(what): ΔE00 mean \(mean), p99 \(p99), max \(maxDE)")
            // Upright: a few levels from the reference on average, and the content is such
            // that the picture turned half would be far off.
            #expect(levelsMean < 2.5, "\(what): \(levelsMean) levels from the upright reference on average")
            #expect(decoy > 10, "\(what): turned half, the reference scores only \(decoy)")
        }
    }

    /// A turned phone photo kept as stored (`--no-auto-orient`) and written as HEIC carries its
    /// orientation as HEIF readers read it (irot/imir): libvips decodes it upright, as Pillow
    /// turns the JPEG (`exif_transpose`), and our own read of it is upright too.
    @Test(.enabled(if: rowsOracleReady && pillowAvailable && commandExists("vips"), "needs libvips-tools, Pillow and exiftool (scripts/setup.sh --test)"))
    func aTurnedPhotoKeptAsStoredInHEICReadsUprightElsewhere() throws {
        guard Cyanotype.ImageFileFormat.heif.canEncode else {
            withKnownIssue("this libheif cannot encode HEIC") { Issue.record("no HEIC encoder") }
            return
        }
        let w = try Workspace()
        try Self.makeInputs(w, ["p3-6.jpg"])
        let kept = try w.run("apply", "p3-6.jpg", "--no-auto-orient", "-q", "95", "-o", "kept.heic")
        #expect(kept.status == 0, "\(kept.stderr)")
        let back = try w.run("apply", "kept.heic", "-o", "back.png")
        #expect(back.status == 0, "\(back.stderr)")
        #expect(try w.shell("vips copy kept.heic vips.png").status == 0)
        let report = try ColorOutput().python(
            w,
            """
            from PIL import Image, ImageOps
            import numpy as np
            want = np.asarray(ImageOps.exif_transpose(Image.open('p3-6.jpg')).convert('RGB')).astype(int)
            for f in ('vips.png', 'back.png'):
                got = np.asarray(Image.open(f).convert('RGB')).astype(int)
                print(f, 'x'.join(map(str, got.shape)), '%.2f' % np.abs(got - want).mean() if got.shape == want.shape else 'shape')
            """)
        // 400 x 600 upright, within HEIC's coding loss of the JPEG turned by Pillow.
        for line in report.split(separator: "\n") {
            let f = line.split(separator: " ")
            #expect(f.count == 3 && f[1] == "600x400x3" && (Double(f[2]) ?? 99) < 3, "\(line)")
        }
    }
}
