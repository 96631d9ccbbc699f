import CyanotypeCodecs
import CyanotypeTestSupport
import Foundation
import Testing

@testable import Cyanotype

/// Debian's Python with numpy, and liblcms2 for ctypes (the oracle's own lcms).
private let matrixPython = "/usr/bin/python3"
private let haveLcmsOracle = (try? runToolOrThrow(matrixPython, ["-c", "import ctypes, numpy; ctypes.CDLL('liblcms2.so.2')"])) != nil
/// ImageMagick's own convert (the PNG interlacer and TIFF tiler), and exiftool (writes the
/// interlaced PNG's orientation and reads back what every input declares).
private let matrixMagick = "/usr/bin/convert"
private let matrixExiftool = which("exiftool")
/// libvips decodes HEIC and AVIF with libheif's own conversion (libvips-tools).
private let matrixVips = which("vips")

/// #26's test matrix: every format that streams or is held at its own depth (baseline and
/// progressive JPEG, PNG 8/16 plain and interlaced, TIFF 8/16 in LZW or deflate strips and in
/// tiles, lossless and lossy WebP, lossless JPEG XL, HEIC) x every EXIF orientation x every profile (none,
/// sRGB, Display P3, Adobe RGB) read upright and within 1 ΔE of lcms2, the streamed read equal
/// to the whole-image decode (lenient), tiles equal to whole renders; and files changed or cut
/// short before the render. Inputs: seeded photo-like samples (ramps, noise and a saturated
/// patch outside sRGB for the wide profiles) at an odd size, written by the codecs with an ICC
/// profile and the orientation (ImageMagick interlaces and tiles, exiftool writes the
/// interlaced PNGs' orientation), what they declare checked by exiftool. Oracle: those samples
/// (for the lossy JPEG, WebP and HEIC, libvips's decode of the same file) turned upright by EXIF's
/// definition and converted by lcms2 into sRGB, compared in CIEDE2000 by lcms2
/// (`lcmsOracleFunctions`). PhotoPathTests holds JPEG's own cells against Pillow.
@Suite struct PhotoMatrixTests {
    /// One kind of input file: how it is written and what its samples are.
    enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case jpegBaseline, jpegProgressive, png8, png16, png8Interlaced, png16Interlaced, tiff8LZW, tiff16Deflate, tiff8Tiles, tiff16Tiles, webpLossless,
            webpLossy, jxlLossless, heic, avif
        var testDescription: String { rawValue }
        var bits: Int { [.png16, .png16Interlaced, .tiff16Deflate, .tiff16Tiles].contains(self) ? 16 : 8 }
        var ext: String {
            switch self {
            case .jpegBaseline, .jpegProgressive: "jpg"
            case .png8, .png16, .png8Interlaced, .png16Interlaced: "png"
            case .tiff8LZW, .tiff16Deflate, .tiff8Tiles, .tiff16Tiles: "tif"
            case .webpLossless, .webpLossy: "webp"
            case .jxlLossless: "jxl"
            case .heic: "heic"
            case .avif: "avif"
            }
        }
        var format: CyanotypeCodecs.ImageFileFormat {
            switch self {
            case .jpegBaseline, .jpegProgressive: .jpeg
            case .png8, .png16, .png8Interlaced, .png16Interlaced: .png
            case .tiff8LZW, .tiff16Deflate, .tiff8Tiles, .tiff16Tiles: .tiff
            case .webpLossless, .webpLossy: .webp
            case .jxlLossless: .jxl
            case .heic: .heif
            case .avif: .avif
            }
        }
        /// Re-encoded by ImageMagick after the codecs wrote it.
        var byMagick: [String]? {
            switch self {
            case .png8Interlaced: ["-interlace", "PNG"]
            case .png16Interlaced: ["-interlace", "PNG", "-depth", "16"]
            case .tiff8Tiles, .tiff16Tiles: ["-define", "tiff:tile-geometry=16x16", "-compress", "Zip"]
            default: nil
            }
        }
        var lossy: Bool { [.jpegBaseline, .jpegProgressive, .webpLossy, .heic, .avif].contains(self) }
        /// HEIC or AVIF: a HEIF container, turned by irot/imir, decoded by libheif.
        var isHEIF: Bool { self == .heic || self == .avif }
    }

    static let adobe = ColorProfiles.rgbProfile(.adobeRGB, transfer: .gamma(563 / 256), description: "Adobe RGB (1998)")
    static let profiles: [(name: String, icc: Data?)] = [
        ("none", nil),
        ("srgb", ColorProfiles.rgbProfile(.sRGB, transfer: .sRGB, description: "sRGB IEC61966-2.1")),
        ("p3", ColorProfiles.displayP3),
        ("adobe", adobe),
    ]
    static let (width, height) = (67, 45)
    static let srgb = CGColorSpace(name: CGColorSpace.sRGB)!

    /// A little-endian EXIF (TIFF) block holding only the orientation tag.
    static func exif(orientation: Int) -> Data {
        let entry: [UInt8] = [0x12, 0x01, 3, 0, 1, 0, 0, 0, UInt8(orientation), 0, 0, 0]
        return Data([0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0] + entry + [0, 0, 0, 0])
    }

    /// The file `kind` makes of `samples`, tagged with `icc` and `orientation`, written to `url`.
    static func write(_ kind: Kind, _ samples: [UInt16], _ w: Int, _ h: Int, icc: Data?, orientation: Int, to url: URL) throws {
        var o = EncodeOptions()
        o.iccProfile = icc
        o.exif = exif(orientation: orientation)
        o.orientation = orientation
        o.lossless = kind == .webpLossless || kind == .jxlLossless
        o.quality = 0.95
        o.progressive = kind == .jpegProgressive
        o.tiffCompression = kind == .tiff8LZW ? .lzw : .deflate
        let data: Data
        if kind.bits == 16 {
            data = try samples.withUnsafeBufferPointer { try ImageCodecs.encode(rgba16: $0, width: w, height: h, hasAlpha: false, format: kind.format, options: o) }
        } else {
            let bytes = samples.map { UInt8($0 >> 8) }
            data = try bytes.withUnsafeBufferPointer { try ImageCodecs.encode(rgba8: $0, width: w, height: h, hasAlpha: false, format: kind.format, options: o) }
        }
        guard let magick = kind.byMagick else { return try data.write(to: url) }
        let codecs = url.deletingPathExtension().appendingPathExtension("codecs.\(kind.ext)")
        try data.write(to: codecs)
        // PNG24/PNG48 and TIFF keep the samples' depth and colour type; -strip is not given, so
        // the profile (and a TIFF's orientation) stay.
        let prefix = kind.ext == "png" ? (kind.bits == 16 ? "PNG48:" : "PNG24:") : ""
        try runToolOrThrow(matrixMagick, [codecs.path] + magick + [prefix + url.path])
        try FileManager.default.removeItem(at: codecs)
    }

    static func tempDir() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-matrix-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// `image` rendered over its extent as straight sRGB RGBA16 words.
    static func render16(_ image: CIImage, _ context: CIContext) throws -> [UInt16] {
        let data = try context.renderToData(image, from: image.extent, format: .RGBA16, colorSpace: srgb, premultiplied: false).data
        return data.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
    }

    /// RGB words of RGBA16 `px`, little-endian bytes (the oracle's raw input).
    static func rgbBytes(_ px: [UInt16]) -> Data {
        var out = Data(capacity: px.count / 4 * 6)
        for i in 0..<px.count where i % 4 != 3 { out += [UInt8(px[i] & 0xFF), UInt8(px[i] >> 8)] }
        return out
    }

    /// exiftool's "Orientation ProfileDescription BitsPerSample Interlace/TileWidth" of each file.
    static func exiftoolReport(_ files: [URL]) throws -> [String: String] {
        guard let tool = matrixExiftool else { return [:] }
        let out = String(decoding: try runToolOrThrow(tool, ["-n", "-T", "-FileName", "-Orientation", "-ProfileDescription"] + files.map(\.path)), as: UTF8.self)
        var report: [String: String] = [:]
        for line in out.split(separator: "\n") {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            if f.count == 3 { report[f[0]] = "\(f[1]) \(f[2])" }
        }
        return report
    }

    @Test(.enabled(if: haveLcmsOracle, "needs Debian's python3-numpy and liblcms2 (scripts/setup.sh --test)"), arguments: Kind.allCases)
    func everyOrientationAndProfileReadsUprightWithinOneDeltaEOfLcms(kind: Kind) throws {
        if kind.isHEIF && !ImageCodecs.canEncode(kind.format) {
            withKnownIssue("this libheif cannot encode \(kind.ext): its cells are not checked") { Issue.record("no \(kind.ext) encoder") }
            return
        }
        if kind.byMagick != nil || kind.lossy {
            guard FileManager.default.isExecutableFile(atPath: matrixMagick) else {
                Issue.record("\(kind): needs ImageMagick's convert (imagemagick, scripts/setup.sh --test)")
                return
            }
        }
        if kind.lossy && matrixVips == nil {
            Issue.record("\(kind): needs libvips-tools' vips to decode the reference (scripts/setup.sh --test)")
            return
        }
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (w, h) = (Self.width, Self.height)
        let stored = photoLikeSamples(width: w, height: h, bits: kind.bits, seed: 26)
        try Self.rgbBytes(stored).write(to: dir.appendingPathComponent("stored.u16"))
        var files: [URL] = []
        for (name, icc) in Self.profiles {
            if let icc { try icc.write(to: dir.appendingPathComponent("\(name).icc")) }
            for o in 1...8 {
                let url = dir.appendingPathComponent("\(name)-\(o).\(kind.ext)")
                try Self.write(kind, stored, w, h, icc: icc, orientation: o, to: url)
                files.append(url)
            }
        }
        // The interlaced PNGs' orientation: exiftool's eXIf (ImageMagick drops the chunk).
        if kind.ext == "png" && kind.byMagick != nil {
            guard let exiftool = matrixExiftool else {
                Issue.record("\(kind): needs exiftool (libimage-exiftool-perl) to write the orientation")
                return
            }
            var args: [String] = []
            for (i, url) in files.enumerated() { args += (i == 0 ? [] : ["-execute"]) + ["-Orientation#=\(i % 8 + 1)", url.path] }
            try runToolOrThrow(exiftool, args + ["-common_args", "-q", "-overwrite_original"])
        }
        // What each input declares, as exiftool reads it. exiftool 12.57 does not read the
        // profile inside a JPEG XL codestream (the ΔE below shows it was read). A HEIC holds
        // its orientation as irot/imir boxes (which every HEIF reader applies: ours, libvips)
        // and, informational, in its EXIF.
        let report = try Self.exiftoolReport(files)
        if matrixExiftool == nil { withKnownIssue("exiftool is not installed: the inputs' tags are not checked") { Issue.record("no exiftool") } }
        for (i, url) in files.enumerated() where matrixExiftool != nil {
            let (name, o) = (Self.profiles[i / 8].name, i % 8 + 1)
            let want = kind == .jxlLossless ? "-" : ColorProfiles.description(of: Self.profiles[i / 8].icc ?? Data()) ?? "-"
            #expect(report[url.lastPathComponent] == "\(o) \(want)", "\(kind) \(name) \(o): exiftool says \(report[url.lastPathComponent] ?? "nothing")")
        }
        let whole = CIContext(options: [.outputPremultiplied: false, .cacheIntermediates: false])
        let tiled = CIContext(options: [.outputPremultiplied: false, .cacheIntermediates: false, .tileSize: 16])
        var worstWhole = 0
        for (i, url) in files.enumerated() {
            let o = i % 8 + 1
            let what = "\(kind) \(url.lastPathComponent)"
            let image = try CIImage.read(contentsOf: url, options: [.applyOrientationProperty: true])
            let (uw, uh) = o >= 5 ? (h, w) : (w, h)
            #expect(image.extent == CGRect(x: 0, y: 0, width: uw, height: uh), "\(what): \(image.extent)")
            let ours = try Self.render16(image, whole)
            try Self.rgbBytes(ours).write(to: dir.appendingPathComponent("ours-\(i).u16"))
            // Tiles of 16 are the whole render, byte for byte.
            #expect(try Self.render16(image, tiled) == ours, "\(what): tiles of 16 differ from the whole render")
            // The whole-image decode (lenient) reads the same picture: equal, or within one
            // 8-bit level where the two paths round differently.
            let held = try CIImage.read(contentsOf: url, options: [.applyOrientationProperty: true, .lenientDecoding: true])
            let heldPixels = try Self.render16(held, whole)
            let d = zip(ours, heldPixels).map { abs(Int($0) - Int($1)) }.max() ?? Int.max
            worstWhole = max(worstWhole, d)
            #expect(heldPixels.count == ours.count && d <= 257, "\(what): streamed and whole decodes differ by \(d) (16-bit units)")
            if kind.lossy {
                // The same file decoded by libvips (libjpeg-turbo, libwebp: not turned; libheif's
                // own Y'CbCr -> RGB, turned by irot/imir), its samples read out by ImageMagick;
                // unmanaged.
                let png = dir.appendingPathComponent("ref-\(i).png")
                try runToolOrThrow(try #require(matrixVips), ["copy", url.path, png.path])
                try runToolOrThrow(matrixMagick, [png.path, "-depth", "16", "-endian", "LSB", "rgb:" + dir.appendingPathComponent("ref-\(i).u16").path])
            }
        }
        // lcms2: every file's samples from its profile into sRGB; CIEDE2000 to ours.
        let script =
            lcmsOracleFunctions + """

                import sys
                W, H, lossy, heif = \(w), \(h), \(kind.lossy ? "True" : "False"), \(kind.isHEIF ? "True" : "False")
                stored = np.fromfile('stored.u16', dtype='<u2').reshape(H, W, 3)
                for i, name in enumerate(['none', 'srgb', 'p3', 'adobe']):
                    icc = None if name == 'none' else open(name + '.icc', 'rb').read()
                    for o in range(1, 9):
                        k = i * 8 + o - 1
                        up = upright(stored, o)
                        # libvips turns a HEIC by its irot/imir as it decodes it; the others are read as stored.
                        stored_ref = np.fromfile('ref-%d.u16' % k, dtype='<u2') if lossy else None
                        ref = (stored_ref.reshape(up.shape) if heif else upright(stored_ref.reshape(H, W, 3), o)) if lossy else up
                        ours = np.fromfile('ours-%d.u16' % k, dtype='<u2').reshape(up.shape)
                        turned = np.abs(ref.astype(int) - up.astype(int)).mean() / 257
                        print(name, o, compare(ours, None, ref, icc), '%.3f' % turned)
                """
        let out = String(decoding: try runToolOrThrow(matrixPython, ["-c", script], in: dir), as: UTF8.self)
        let lines = out.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(lines.count == 32, "\(kind): \(out)")
        var summary: [String] = []
        for f in lines {
            guard f.count == 9, let mean = Double(f[2]), let max = Double(f[3]), let p99 = Double(f[4]), let decoy = Double(f[7]), let turned = Double(f[8])
            else {
                Issue.record("\(kind): \(f.joined(separator: " "))")
                continue
            }
            let what = "\(kind) \(f[0]) orientation \(f[1]): ΔE00 mean \(mean), p99 \(p99), max \(max), \(f[5]) levels"
            // Lossless files hold the samples exactly: lcms's conversion within 1 ΔE everywhere.
            // HEIC's reference is libvips's decode of the same lossy file: within 1 ΔE on
            // average and nowhere far, and that upright picture is the stored samples turned,
            // within coding loss.
            #expect(kind.lossy ? mean < 1 && p99 < 3 : mean < 0.5 && max < 1, "\(what)")
            #expect(decoy > 10, "\(what): the picture turned half scores only \(decoy)")
            if kind.lossy { #expect(turned < 4, "\(what): libvips's decode is \(turned) levels from the samples turned upright") }
            summary.append("\(f[0])/\(f[1]) \(f[2])/\(f[3])")
        }
        print("PhotoMatrix \(kind): worst streamed-vs-whole \(worstWhole); ΔE00 mean/max per file: \(summary.joined(separator: ", "))")
    }

    /// A file replaced by another picture or cut short after it was read: the render either
    /// fails with the file's name and the reason, or (a format read whole when opened) gives the
    /// picture as it was read; never the new file's pixels, a mix, or a crash.
    @Test(arguments: Kind.allCases)
    func aFileChangedOrCutShortBeforeItsRenderFailsCleanly(kind: Kind) throws {
        if kind.isHEIF && !ImageCodecs.canEncode(kind.format) {
            withKnownIssue("this libheif cannot encode \(kind.ext)") { Issue.record("no \(kind.ext) encoder") }
            return
        }
        if kind.byMagick != nil && !FileManager.default.isExecutableFile(atPath: matrixMagick) {
            Issue.record("\(kind): needs ImageMagick's convert")
            return
        }
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Large enough (640 x 480 of noise-laden content) to be read from the file in parts.
        let (w, h) = (640, 480)
        let first = dir.appendingPathComponent("first.\(kind.ext)"), second = dir.appendingPathComponent("second.\(kind.ext)")
        try Self.write(kind, photoLikeSamples(width: w, height: h, bits: kind.bits, seed: 1), w, h, icc: ColorProfiles.displayP3, orientation: 6, to: first)
        try Self.write(kind, photoLikeSamples(width: w, height: h, bits: kind.bits, seed: 2), w, h, icc: ColorProfiles.displayP3, orientation: 6, to: second)
        let original = try Data(contentsOf: first), replacement = try Data(contentsOf: second)
        let ctx = CIContext(options: [.cacheIntermediates: false])
        let read: [CIImageOption: Any] = [.applyOrientationProperty: true]
        let want = try Self.render16(try CIImage.read(data: original, options: read), ctx)
        let url = dir.appendingPathComponent("photo.\(kind.ext)")
        for change in ["replaced", "truncated"] {
            try original.write(to: url)
            let image = try CIImage.read(contentsOf: url, options: read)
            let thumbnail = image.applyingFilter("CILanczosScaleTransform", parameters: [kCIInputScaleKey: 0.25])
            if change == "replaced" {
                try replacement.write(to: url)
            } else {
                let handle = try FileHandle(forWritingTo: url)
                try handle.truncate(atOffset: UInt64(original.count / 2))
                try handle.close()
            }
            do {
                let got = try Self.render16(image, ctx)
                #expect(got == want, "\(kind) \(change): rendered, but not the picture that was read")
                _ = try Self.render16(thumbnail, ctx)
                print("PhotoMatrix \(kind) \(change): rendered as read (held whole since it was opened)")
            } catch {
                let message = "\(error)"
                #expect(message.contains("photo.\(kind.ext)") && message.contains("changed since it was read"), "\(kind) \(change): \(message)")
                print("PhotoMatrix \(kind) \(change): refused: \(message)")
            }
        }
    }

    /// A real file of each variant the older bomb tests do not build (progressive JPEG, 16-bit
    /// and interlaced PNG, tiled and 16-bit TIFF), its header's size changed to 60000 x 60000
    /// by Python (PNG's CRC recomputed, TIFF's tags rewritten in place, its tiles grown to match),
    /// is refused when read,
    /// before any pixel is decoded, by its declared size, strict, lenient or turned (#26's
    /// bombs). Oracle for the crafted header: exiftool reads 60000x60000.
    @Test(arguments: [Kind.jpegProgressive, .png16, .png8Interlaced, .png16Interlaced, .tiff8Tiles, .tiff16Tiles, .tiff16Deflate])
    func declaredSizeBombsOfEveryVariantAreRefusedWhenRead(kind: Kind) throws {
        if kind.byMagick != nil && !FileManager.default.isExecutableFile(atPath: matrixMagick) {
            Issue.record("\(kind): needs ImageMagick's convert")
            return
        }
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("bomb.\(kind.ext)")
        try Self.write(kind, photoLikeSamples(width: 33, height: 25, bits: kind.bits, seed: 7), 33, 25, icc: ColorProfiles.displayP3, orientation: 6, to: url)
        try runToolOrThrow(
            matrixPython,
            [
                "-c",
                """
                import struct, sys, zlib
                b = bytearray(open(sys.argv[1], 'rb').read())
                S = 60000
                if b[:4] == b'\\x89PNG':
                    b[16:24] = struct.pack('>II', S, S)
                    b[29:33] = struct.pack('>I', zlib.crc32(bytes(b[12:29])))
                elif b[:2] == b'\\xff\\xd8':
                    i = b.index(b'\\xff\\xc2')
                    b[i + 5:i + 9] = struct.pack('>HH', S, S)
                else:
                    e = '<' if b[:2] == b'II' else '>'
                    ifd = struct.unpack(e + 'I', b[4:8])[0]
                    for k in range(struct.unpack(e + 'H', b[ifd:ifd + 2])[0]):
                        at = ifd + 2 + 12 * k
                        tag, typ = struct.unpack(e + 'HH', b[at:at + 4])
                        # The size; a tiled file's tiles grow with it (33 x 25 in 16 x 16 tiles is 3 x 2
                        # tiles, as is 60000 x 60000 in 30000 x 20000 ones: libtiff checks the count).
                        v = {256: S, 257: S, 322: 30000, 323: 20000}.get(tag)
                        if v:
                            b[at + 8:at + 12] = struct.pack(e + ('HH' if typ == 3 else 'I'), *((v, 0) if typ == 3 else (v,)))
                open(sys.argv[1], 'wb').write(b)
                """,
                url.path,
            ])
        if let exiftool = matrixExiftool {
            let size = String(decoding: try runToolOrThrow(exiftool, ["-s3", "-ImageSize", url.path]), as: UTF8.self)
            #expect(size.trimmingCharacters(in: .whitespacesAndNewlines) == "60000x60000", "\(kind): exiftool reads \(size)")
        } else {
            withKnownIssue("exiftool is not installed: the crafted size is not checked by another program") { Issue.record("no exiftool") }
        }
        for options in [[:], [.lenientDecoding: true], [.applyOrientationProperty: true]] as [[CIImageOption: Any]] {
            do {
                _ = try CIImage.read(contentsOf: url, options: options)
                Issue.record("\(kind) \(options.keys.map(\.rawValue)): a 60000 x 60000 file was read")
            } catch let ImageIOError.codec(path, .tooLarge(width, height, _)) {
                #expect(path == url.path && width == 60000 && height == 60000, "\(kind): \(width)x\(height) at \(path ?? "no path")")
            } catch {
                Issue.record("\(kind): refused for another reason: \(error)")
            }
        }
    }

    /// Thumbnails (the CLI's `--max-size` downscale: Lanczos over the clamped picture, which
    /// decodes JPEG and WebP small and reads the other formats by rows) of every kind, turned
    /// (orientations 1, 6 and 7) and tagged (none, Display P3, Adobe RGB): upright and within
    /// 1 ΔE of lcms2. Oracle: the samples (libvips's decode for the lossy kinds) turned upright,
    /// converted by lcms2 into sRGB and resized by Pillow's Lanczos in linear light; compared
    /// as 4 x 4 means (the two resamplers' rounding and the reduced decodes' averaging of coded
    /// values averaged out), CIEDE2000 by lcms2.
    @Test(.enabled(if: haveLcmsOracle, "needs Debian's python3-numpy and liblcms2 (scripts/setup.sh --test)"), arguments: Kind.allCases)
    func thumbnailsOfEveryKindAreUprightWithinOneDeltaEOfLcms(kind: Kind) throws {
        if kind.isHEIF && !ImageCodecs.canEncode(kind.format) {
            withKnownIssue("this libheif cannot encode \(kind.ext)") { Issue.record("no \(kind.ext) encoder") }
            return
        }
        if (kind.byMagick != nil || kind.lossy) && !FileManager.default.isExecutableFile(atPath: matrixMagick) || (kind.lossy && matrixVips == nil) {
            Issue.record("\(kind): needs ImageMagick's convert and libvips-tools' vips (scripts/setup.sh --test)")
            return
        }
        let dir = try Self.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (w, h, scale) = (301, 203, 0.3)
        let stored = photoLikeSamples(width: w, height: h, bits: kind.bits, seed: 15)
        try Self.rgbBytes(stored).write(to: dir.appendingPathComponent("stored.u16"))
        let ctx = CIContext(options: [.outputPremultiplied: false, .cacheIntermediates: false])
        var cases: [String] = []
        for (name, icc) in Self.profiles where name != "srgb" {
            if let icc { try icc.write(to: dir.appendingPathComponent("\(name).icc")) }
            for o in [1, 6, 7] {
                let base = "\(name)-\(o)"
                let url = dir.appendingPathComponent("\(base).\(kind.ext)")
                try Self.write(kind, stored, w, h, icc: icc, orientation: o, to: url)
                if kind.byMagick != nil && kind.ext == "png" {
                    try runToolOrThrow(try #require(matrixExiftool, "needs exiftool"), ["-q", "-overwrite_original", "-Orientation#=\(o)", url.path])
                }
                let thumb = ReducedDecodeTests.thumbnail(try CIImage.read(contentsOf: url, options: [.applyOrientationProperty: true]), scale: scale)
                let (tw, th) = o >= 5 ? ((Double(h) * scale).rounded(), (Double(w) * scale).rounded()) : ((Double(w) * scale).rounded(), (Double(h) * scale).rounded())
                #expect(thumb.extent == CGRect(x: 0, y: 0, width: tw, height: th), "\(kind) \(base): \(thumb.extent)")
                try Self.rgbBytes(try Self.render16(thumb, ctx)).write(to: dir.appendingPathComponent("\(base)-ours.u16"))
                if kind.lossy {
                    let png = dir.appendingPathComponent("\(base)-ref.png")
                    try runToolOrThrow(try #require(matrixVips), ["copy", url.path, png.path])
                    try runToolOrThrow(matrixMagick, [png.path, "-depth", "16", "-endian", "LSB", "rgb:" + dir.appendingPathComponent("\(base)-ref.u16").path])
                }
                cases.append("('\(base)', \(name == "none" ? "None" : "'\(name).icc'"), \(o), \(Int(tw)), \(Int(th)))")
            }
        }
        let script =
            lcmsOracleFunctions + """

                from PIL import Image
                W, H, lossy, heif = \(w), \(h), \(kind.lossy ? "True" : "False"), \(kind.isHEIF ? "True" : "False")
                stored = np.fromfile('stored.u16', dtype='<u2').reshape(H, W, 3)
                for base, icc, o, tw, th in [\(cases.joined(separator: ", "))]:
                    if heif:
                        ref = np.fromfile(base + '-ref.u16', dtype='<u2').reshape(upright(stored, o).shape)
                    else:
                        ref = upright(np.fromfile(base + '-ref.u16', dtype='<u2').reshape(H, W, 3) if lossy else stored, o)
                    ref = transform(ref, profile(open(icc, 'rb').read() if icc else None), profile(None), RGB_16, np.uint16)
                    x = linear(ref)
                    ref = encoded(np.stack([np.array(Image.fromarray(x[:, :, c].astype(np.float32), 'F').resize((tw, th), Image.LANCZOS))
                                            for c in range(3)], -1))
                    ours = np.fromfile(base + '-ours.u16', dtype='<u2').reshape(th, tw, 3)
                    print(base, compare(ours, None, ref, None, 1, 4))
                """
        let out = String(decoding: try runToolOrThrow(matrixPython, ["-c", script], in: dir), as: UTF8.self)
        let lines = out.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(lines.count == 9, "\(kind): \(out)")
        for f in lines {
            guard f.count == 7, let mean = Double(f[1]), let maxDE = Double(f[2]), let p99 = Double(f[3]), let decoy = Double(f[6]) else {
                Issue.record("\(kind): \(f.joined(separator: " "))")
                continue
            }
            let what = "\(kind) \(f[0]) thumbnail: 4x4 means ΔE00 mean \(mean), p99 \(p99), max \(maxDE); levels mean \(f[5])"
            // Within 1 ΔE on average; the few blocks above 1.5 lie along the saturated patch's
            // edge, sharp at this scale, where the two Lanczos kernels' phases differ.
            #expect(mean < 1 && maxDE < 5, "\(what)")
            #expect(decoy > 10, "\(what): the picture turned half scores only \(decoy)")
        }
        print("PhotoMatrix thumbnails \(kind): " + lines.map { "\($0.first ?? "") \($0.dropFirst().prefix(3).joined(separator: "/"))" }.joined(separator: ", "))
    }
}
