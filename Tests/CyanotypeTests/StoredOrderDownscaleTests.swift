import CCodecShims
import CyanotypeCodecs
import Foundation
import Testing

@testable import Cyanotype

/// Issue #26 row 1: a downscale over a JPEG shown upright from its EXIF orientation shrinks the
/// file in stored order and turns the small result (`Optimizer.commuteOrientations`), and a
/// streaming encode turns the small picture's rows (`Render.renderTurnedBands`).
/// Oracles: the codec's stored pixels turned upright by the EXIF table written out below (TIFF
/// tag 0x0112: where the stored 0th row and 0th column go), then the same Lanczos over a plain
/// bitmap; and Pillow's `ImageOps.exif_transpose` for the upright size and orientation.
@Suite struct StoredOrderDownscaleTests {
    static let sRGB = CGColorSpace(name: CGColorSpace.sRGB)!
    static let p3 = CGColorSpace(name: CGColorSpace.displayP3)!

    /// `px` (w x h RGBA8, rows from the top) as the upright picture for EXIF `orientation`:
    /// upright pixel (X, Y) is stored pixel `source(X, Y)`.
    static func upright(_ px: [UInt8], _ w: Int, _ h: Int, orientation o: Int, sampleBytes b: Int = 4) -> (px: [UInt8], w: Int, h: Int) {
        let (uw, uh) = o >= 5 ? (h, w) : (w, h)
        func source(_ X: Int, _ Y: Int) -> (Int, Int) {
            switch o {
            case 2: return (w - 1 - X, Y)  // 0th row top, 0th column right
            case 3: return (w - 1 - X, h - 1 - Y)  // bottom, right
            case 4: return (X, h - 1 - Y)  // bottom, left
            case 5: return (Y, X)  // 0th row left, 0th column top
            case 6: return (Y, h - 1 - X)  // right, top
            case 7: return (w - 1 - Y, h - 1 - X)  // right, bottom
            case 8: return (w - 1 - Y, X)  // left, bottom
            default: return (X, Y)
            }
        }
        var out = [UInt8](repeating: 0, count: uw * uh * b)
        for Y in 0..<uh {
            for X in 0..<uw {
                let (x, y) = source(X, Y)
                for c in 0..<b { out[(Y * uw + X) * b + c] = px[(y * w + x) * b + c] }
            }
        }
        return (out, uw, uh)
    }

    /// The size `--max-size` gives (the CLI's fit: long edge `edge`, each side rounded).
    static func fit(_ w: Int, _ h: Int, edge: Int) -> (Int, Int) {
        let s = min(Double(edge) / Double(w), Double(edge) / Double(h))
        return (max(1, Int((Double(w) * s).rounded())), max(1, Int((Double(h) * s).rounded())))
    }

    /// The CLI's downscale to exactly `w` x `h`: Lanczos over the clamped picture, cropped.
    static func thumbnail(_ image: CIImage, _ w: Int, _ h: Int) -> CIImage {
        let e = image.extent
        let sy = Double(h) / e.height, sx = Double(w) / e.width
        return image.clampedToExtent()
            .applyingFilter("CILanczosScaleTransform", parameters: [kCIInputScaleKey: sy, kCIInputAspectRatioKey: sx / sy])
            .cropped(to: CGRect(x: 0, y: 0, width: w, height: h))
    }

    static func render(_ image: CIImage, _ context: CIContext = CIContext()) throws -> [UInt8] {
        [UInt8](try context.renderToData(image, from: image.extent, format: .RGBA8, colorSpace: sRGB, premultiplied: false).data)
    }

    static func maxDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard a.count == b.count else { return 255 }
        return zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }

    /// A `w` x `h` photo-like JPEG (seeded) with EXIF `orientation`, tagged Display P3 when `p3`.
    static func file(_ w: Int, _ h: Int, orientation: Int, p3: Bool) throws -> Data {
        try ReducedDecodeTests.jpeg(ReducedDecodeTests.photo(w, h), w, h) {
            $0.exif = ReducedDecodeTests.exif(orientation: orientation)
            if p3 { $0.iccProfile = ColorProfiles.displayP3 }
        }
    }

    /// The cases: an odd size (no reduced decode fits) in sRGB, and an even one tagged P3 that
    /// decodes at 1/2 first, as the bench's phone photo does.
    static let cases: [(w: Int, h: Int, edge: Int, p3: Bool, factor: Int)] = [(161, 107, 50, false, 1), (192, 128, 40, true, 2)]

    @Test(arguments: 1...8)
    func shrinksInStoredOrderAsTheUprightPictureWould(orientation: Int) throws {
        for c in Self.cases {
            let data = try Self.file(c.w, c.h, orientation: orientation, p3: c.p3)
            let image = try CIImage.read(data: data, options: [.applyOrientationProperty: true])
            let (uw, uh) = orientation >= 5 ? (c.h, c.w) : (c.w, c.h)
            #expect(image.extent == CGRect(x: 0, y: 0, width: uw, height: uh))
            let (tw, th) = Self.fit(uw, uh, edge: c.edge)
            let thumb = Self.thumbnail(image, tw, th)
            #expect(thumb.extent == CGRect(x: 0, y: 0, width: tw, height: th), "orientation \(orientation)")
            let ours = try Self.render(thumb)

            // The reference: the codec's stored rows (at the fraction the file path decodes
            // at), turned upright by the table above, then the same Lanczos over a bitmap.
            let stored = c.factor > 1 ? try ImageCodecs.decode(data, reducedBy: c.factor) : try ImageCodecs.decode(data)
            let up = Self.upright(stored.pixels, stored.width, stored.height, orientation: orientation)
            let bitmap = CIImage(
                bitmapData: Data(up.px), bytesPerRow: up.w * 4, size: CGSize(width: up.w, height: up.h), format: .RGBA8,
                colorSpace: c.p3 ? Self.p3 : Self.sRGB)
            let want = try Self.render(Self.thumbnail(bitmap, tw, th))
            let d = Self.maxDifference(ours, want)
            #expect(d <= 1, "\(c.w)x\(c.h) orientation \(orientation): \(d) levels from the upright reference")

            // Tiles of 16 give the same bytes as the default tiles.
            let tiled = try Self.render(thumb, CIContext(options: [.tileSize: 16]))
            #expect(tiled == ours, "\(c.w)x\(c.h) orientation \(orientation): tiled render differs")

            // The plan reads the file in stored order exactly when the orientation reorders rows.
            let plan = CIContext().explain(thumb)
            #expect(plan.contains("in stored order") == (orientation >= 3), "orientation \(orientation):\n\(plan)")
        }
    }

    /// The streaming encoders (PNG here: lossless) turn the stored-order rows as they take them:
    /// the file holds the pixels the tile render gives, 8 and 16 bits.
    @Test(arguments: [3, 6, 8])
    func streamingEncodeTurnsTheSmallPicture(orientation: Int) throws {
        for c in Self.cases {
            let data = try Self.file(c.w, c.h, orientation: orientation, p3: c.p3)
            let image = try CIImage.read(data: data, options: [.applyOrientationProperty: true])
            let (uw, uh) = orientation >= 5 ? (c.h, c.w) : (c.w, c.h)
            let (tw, th) = Self.fit(uw, uh, edge: c.edge)
            let thumb = Self.thumbnail(image, tw, th)
            let ctx = CIContext()
            let png = try #require(ctx.pngRepresentation(of: thumb, format: .RGBA8, colorSpace: Self.sRGB))
            let decoded = try ImageCodecs.decode(png)
            #expect(decoded.width == tw && decoded.height == th)
            #expect(decoded.pixels == (try Self.render(thumb)), "\(c.w)x\(c.h) orientation \(orientation): streamed PNG differs")

            let png16 = try #require(ctx.pngRepresentation(of: thumb, format: .RGBA16, colorSpace: Self.sRGB))
            let deep = try ImageCodecs.decode(png16)
            let want16 = try ctx.renderToData(thumb, from: thumb.extent, format: .RGBA16, colorSpace: Self.sRGB, premultiplied: false).data
            let got16 = deep.pixels16.withUnsafeBytes { Data($0) }
            #expect(deep.width == tw && deep.height == th && got16 == want16, "\(c.w)x\(c.h) orientation \(orientation): 16-bit PNG differs")
        }
    }

    static let python = "/usr/bin/python3"
    static let hasPillow: Bool = {
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        return (try? runToolOrThrow(python, ["-c", "from PIL import Image, ImageOps"])) != nil
    }()

    /// Pillow turns the file upright (`exif_transpose`) and shrinks it to our size: ours is that
    /// picture (a few levels apart: Pillow filters encoded values, we light), the way up.
    @Test(.enabled(if: hasPillow, "needs Debian's python3-pil (scripts/setup.sh --test)"))
    func pillowSeesTheSamePictureTheSameWayUp() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-stored-order-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for orientation in 1...8 {
            let (w, h) = (161, 107)
            let data = try Self.file(w, h, orientation: orientation, p3: false)
            try data.write(to: dir.appendingPathComponent("in.jpg"))
            let size = String(
                decoding: try runToolOrThrow(
                    Self.python,
                    [
                        "-c",
                        "from PIL import Image, ImageOps; im = ImageOps.exif_transpose(Image.open('in.jpg')); print(*im.size)",
                    ], in: dir), as: UTF8.self
            ).split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            #expect(size.count == 2)
            guard size.count == 2 else { continue }
            let (tw, th) = Self.fit(size[0], size[1], edge: 50)
            let image = try CIImage.read(data: data, options: [.applyOrientationProperty: true])
            let thumb = Self.thumbnail(image, tw, th)
            #expect(thumb.extent.size == CGSize(width: tw, height: th), "orientation \(orientation)")
            let theirs = [UInt8](
                try runToolOrThrow(
                    Self.python,
                    [
                        "-c",
                        """
                        import sys
                        from PIL import Image, ImageOps
                        im = ImageOps.exif_transpose(Image.open('in.jpg')).convert('RGBA')
                        sys.stdout.buffer.write(im.resize((\(tw), \(th)), Image.LANCZOS).tobytes())
                        """,
                    ], in: dir))
            let ours = try Self.render(thumb)
            #expect(theirs.count == ours.count)
            guard theirs.count == ours.count else { continue }
            let mean = Double(zip(ours, theirs).map { abs(Int($0) - Int($1)) }.reduce(0, +)) / Double(ours.count)
            #expect(mean < 3, "orientation \(orientation): mean \(mean) levels from Pillow's upright thumbnail")
        }
    }

    /// One C routine turns bands of every sample size (`cy_orient_band`: a JPEG plane's bytes,
    /// RGBA8 and RGBA16 pixels) as the EXIF table above says: every orientation, an odd
    /// picture, bands of 16 rows (the SSE2 transposes), 5 and 1 (their edges), seeded bytes.
    @Test(arguments: [1, 2, 4, 8])
    func bandsTurnAsTheEXIFTableSays(sampleBytes b: Int) {
        let (w, h) = (37, 23)
        var state: UInt64 = 26
        let stored = (0..<(w * h * b)).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        for o in 1...8 {
            let want = Self.upright(stored, w, h, orientation: o, sampleBytes: b)
            for band in [16, 5, 1] {
                var got = [UInt8](repeating: 0, count: w * h * b)
                var y = 0
                while y < h {
                    let n = min(band, h - y)
                    stored.withUnsafeBytes { s in
                        got.withUnsafeMutableBytes { d in
                            cy_orient_band(
                                s.baseAddress! + y * w * b, w * b, Int32(y), Int32(n), Int32(w), Int32(h), Int32(o), Int32(b), d.baseAddress!,
                                want.w * b)
                        }
                    }
                    y += n
                }
                #expect(got == want.px, "\(b)-byte samples, orientation \(o), bands of \(band)")
            }
        }
    }
}
