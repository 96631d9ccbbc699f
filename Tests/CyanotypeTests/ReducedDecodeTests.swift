import CyanotypeCodecs
import Foundation
import Testing

@testable import Cyanotype

/// Thumbnails that decode small (#15): JPEG scaled in the IDCT, WebP through its scaled
/// decoder, chosen by the optimiser under a downscale and finished with the exact Lanczos.
@Suite struct ReducedDecodeTests {
    static let sRGB = CGColorSpace(name: CGColorSpace.sRGB)!

    /// A photo-like picture (smooth shading, edges, fine texture), straight RGBA8, seeded.
    static func photo(_ w: Int, _ h: Int) -> [UInt8] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func noise() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 40) / Double(1 << 24) - 0.5
        }
        var px = [UInt8](repeating: 255, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                let u = Double(x) / Double(w), v = Double(y) / Double(h)
                let disc = (u - 0.6) * (u - 0.6) + (v - 0.4) * (v - 0.4) < 0.04 ? 0.35 : 0.0
                let r = 0.25 + 0.5 * u + 0.1 * sin(9 * v) + disc + 0.04 * noise()
                let g = 0.3 + 0.4 * v + 0.15 * sin(7 * u + 3 * v) + 0.04 * noise()
                let b = 0.7 - 0.4 * u * v + 0.1 * cos(11 * u) - disc + 0.04 * noise()
                for (c, value) in [r, g, b].enumerated() { px[(y * w + x) * 4 + c] = UInt8(max(0, min(255, (value * 255).rounded()))) }
            }
        }
        return px
    }

    /// A little-endian EXIF (TIFF) block holding only the orientation tag.
    static func exif(orientation: Int) -> Data {
        let entry: [UInt8] = [0x12, 0x01, 3, 0, 1, 0, 0, 0, UInt8(orientation), 0, 0, 0]
        return Data([0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0] + entry + [0, 0, 0, 0])
    }

    static func jpeg(_ px: [UInt8], _ w: Int, _ h: Int, _ configure: (inout EncodeOptions) -> Void = { _ in }) throws -> Data {
        var o = EncodeOptions()
        o.quality = 0.9
        configure(&o)
        return try px.withUnsafeBufferPointer { try ImageCodecs.encode(rgba8: $0, width: w, height: h, hasAlpha: false, format: .jpeg, options: o) }
    }

    /// `image` rendered to sRGB RGBA8 over its extent.
    static func render(_ image: CIImage, context: CIContext = CIContext()) throws -> [UInt8] {
        [UInt8](try context.renderToData(image, from: image.extent, format: .RGBA8, colorSpace: sRGB, premultiplied: false).data)
    }

    /// The downscale the CLI's `--max-size` builds: Lanczos over the clamped picture, cropped.
    static func thumbnail(_ image: CIImage, scale: Double) -> CIImage {
        let e = image.extent
        return image.clampedToExtent()
            .applyingFilter("CILanczosScaleTransform", parameters: [kCIInputScaleKey: scale, kCIInputAspectRatioKey: 1])
            .cropped(to: CGRect(x: 0, y: 0, width: (e.width * scale).rounded(), height: (e.height * scale).rounded()))
    }

    /// The full path: every pixel decoded (the codec, no file source), then the same Lanczos.
    static func fullDecodeThumbnail(_ data: Data, scale: Double, orientation: Int32 = 1) throws -> [UInt8] {
        let b = try ImageCodecs.decode(data)
        var full = CIImage(
            bitmapData: Data(b.pixels), bytesPerRow: b.width * 4, size: CGSize(width: b.width, height: b.height),
            format: .RGBA8, colorSpace: sRGB)
        if orientation != 1 { full = full.oriented(forExifOrientation: orientation) }
        return try render(thumbnail(full, scale: scale))
    }

    /// Per-channel (RGB) difference in 8-bit levels: largest, mean, and the share of values
    /// more than `closeLevels` apart.
    static func difference(_ a: [UInt8], _ b: [UInt8]) -> (max: Int, mean: Double, far: Double) {
        precondition(a.count == b.count)
        var worst = 0, sum = 0, n = 0, far = 0
        for i in 0..<a.count where i & 3 != 3 {
            let d = abs(Int(a[i]) - Int(b[i]))
            worst = max(worst, d); sum += d; n += 1
            if d > closeLevels { far += 1 }
        }
        return (worst, Double(sum) / Double(max(1, n)), Double(far) / Double(max(1, n)))
    }

    /// The tolerance the README states for a reduced decode against the full one, both
    /// finished with the same Lanczos, on photo-like content: mean at most half a level, at
    /// most 2% of values more than 3 levels apart, none more than 24 (at hard edges, where
    /// the decoder averages sRGB-encoded values and the Lanczos averages light).
    static let maxLevels = 24, meanLevels = 0.5, closeLevels = 3, farShare = 0.02

    static func withinTolerance(_ d: (max: Int, mean: Double, far: Double)) -> Bool {
        d.max <= maxLevels && d.mean <= meanLevels && d.far <= farShare
    }

    // MARK: Codecs

    static var djpeg: String? { ["/usr/bin/djpeg", "/usr/local/bin/djpeg"].first { FileManager.default.isExecutableFile(atPath: $0) } }

    /// libjpeg-turbo's own `djpeg -scale 1/k` (another program) gives the same pixels as the
    /// one-shot and the band decoders at 1/k.
    @Test(.enabled(if: djpeg != nil, "djpeg (libjpeg-turbo-progs) is not installed"), arguments: [2, 4, 8])
    func reducedJPEGMatchesDjpeg(factor: Int) throws {
        let (w, h) = (96, 64)
        let data = try Self.jpeg(Self.photo(w, h), w, h)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-reduced-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try data.write(to: dir.appendingPathComponent("in.jpg"))
        try runToolOrThrow(
            try #require(Self.djpeg),
            ["-scale", "1/\(factor)", "-pnm", "-outfile", dir.appendingPathComponent("out.ppm").path, dir.appendingPathComponent("in.jpg").path])
        let ppm = try Data(contentsOf: dir.appendingPathComponent("out.ppm"))
        let header = "P6\n\(w / factor) \(h / factor)\n255\n"
        #expect(ppm.prefix(header.utf8.count) == Data(header.utf8))
        let rgb = [UInt8](ppm.dropFirst(header.utf8.count))

        let oneShot = try ImageCodecs.decode(data, reducedBy: factor)
        #expect(oneShot.width == w / factor && oneShot.height == h / factor && oneShot.header.width == w)
        let stream = try JPEGStreamDecoder(data: data, reduction: factor)
        #expect(stream.width == w / factor && stream.height == h / factor)
        var rows = [UInt8](repeating: 0, count: stream.width * stream.height * 4)
        try rows.withUnsafeMutableBytes { try stream.read(into: $0.baseAddress!, rowBytes: stream.width * 4, count: stream.height) }
        #expect(rows == oneShot.pixels)
        #expect(rgb.count == oneShot.width * oneShot.height * 3)
        var same = true
        for i in 0..<(oneShot.width * oneShot.height) where (0..<3).contains(where: { rgb[i * 3 + $0] != oneShot.pixels[i * 4 + $0] }) { same = false }
        #expect(same, "1/\(factor) differs from djpeg -scale 1/\(factor)")
    }

    /// WebP's scaled decoder by 2, 4, 8 on a lossless file: each pixel the mean of its
    /// factor x factor block (a formula), within one level of rounding.
    @Test(arguments: [2, 4, 8])
    func reducedWebPIsTheBlockMean(factor: Int) throws {
        let (w, h) = (64, 48)
        let px = Self.photo(w, h)
        var o = EncodeOptions()
        o.lossless = true
        let data = try px.withUnsafeBufferPointer { try ImageCodecs.encode(rgba8: $0, width: w, height: h, hasAlpha: false, format: .webp, options: o) }
        let small = try ImageCodecs.decode(data, reducedBy: factor)
        #expect(small.width == w / factor && small.height == h / factor)
        var worst = 0
        for y in 0..<small.height {
            for x in 0..<small.width {
                for c in 0..<3 {
                    var sum = 0
                    for dy in 0..<factor { for dx in 0..<factor { sum += Int(px[((y * factor + dy) * w + x * factor + dx) * 4 + c]) } }
                    let mean = Double(sum) / Double(factor * factor)
                    worst = max(worst, Int(abs(Double(small.pixels[(y * small.width + x) * 4 + c]) - mean).rounded(.up)))
                }
            }
        }
        #expect(worst <= 1, "1/\(factor): \(worst) levels from the block mean")
    }

    @Test func reductionsAreOfferedOnlyWhereTheGridFits() throws {
        let header = { (w: Int, h: Int) throws -> [Int] in
            let d = try Self.jpeg([UInt8](repeating: 128, count: w * h * 4), w, h)
            return ImageCodecs.decodeReductions(try ImageCodecs.readHeader(d), data: d)
        }
        #expect(try header(96, 64) == [8, 4, 2])
        #expect(try header(100, 60) == [4, 2])
        #expect(try header(101, 64) == [])
        let png = try [UInt8](repeating: 9, count: 64 * 4).withUnsafeBufferPointer {
            try ImageCodecs.encode(rgba8: $0, width: 8, height: 8, hasAlpha: false, format: .png, options: EncodeOptions())
        }
        #expect(ImageCodecs.decodeReductions(try ImageCodecs.readHeader(png), data: png) == [])
        #expect(throws: ImageFileError.self) { try ImageCodecs.decode(png, reducedBy: 2) }
        let jpg = try Self.jpeg(Self.photo(96, 64), 96, 64)
        #expect(throws: ImageFileError.self) { try ImageCodecs.decode(jpg, reducedBy: 3) }
        #expect(throws: ImageFileError.self) { try ImageCodecs.decode(jpg.prefix(jpg.count / 2), reducedBy: 2) }
    }

    // MARK: The renderer

    /// A downscale over a JPEG file decodes it at the smallest size that keeps 2x above the
    /// output (1/2 for a quarter, 1/4 for an eighth), and its pixels stay within the stated
    /// tolerance of the full decode + Lanczos.
    @Test(arguments: [(0.25, 2), (0.125, 4), (0.0625, 8), (0.6, 0)])
    func downscaleDecodesSmallWithinTolerance(scale: Double, factor: Int) throws {
        let (w, h) = (256, 192)
        let data = try Self.jpeg(Self.photo(w, h), w, h)
        let thumb = Self.thumbnail(try CIImage.read(data: data), scale: scale)
        let plan = CIContext().explain(thumb)
        if factor > 0 {
            #expect(plan.contains("decoded at 1/\(factor)"), "\(plan)")
        } else {
            #expect(!plan.contains("decoded at"), "\(plan)")
        }
        let ours = try Self.render(thumb)
        let full = try Self.fullDecodeThumbnail(data, scale: scale)
        let d = Self.difference(ours, full)
        #expect(Self.withinTolerance(d), "scale \(scale): max \(d.max), mean \(d.mean), beyond 3 levels \(d.far)")
        if factor == 0 { #expect(d.max <= 1) }
    }

    /// Progressive JPEG (the one-shot decoder), a WebP, and a JPEG with a Display P3 profile
    /// (converted by lcms2 after the reduced decode) take the same path, within tolerance.
    @Test func progressiveWebPAndProfiledFilesDecodeSmall() throws {
        let (w, h) = (256, 192)
        let px = Self.photo(w, h)
        let p3 = try #require(ColorProfiles.displayP3)
        let files: [(String, Data)] = [
            ("progressive", try Self.jpeg(px, w, h) { $0.progressive = true }),
            ("webp", try px.withUnsafeBufferPointer { try ImageCodecs.encode(rgba8: $0, width: w, height: h, hasAlpha: false, format: .webp, options: EncodeOptions()) }),
            ("p3", try Self.jpeg(px, w, h) { $0.iccProfile = p3 }),
        ]
        for (name, data) in files {
            let image = try CIImage.read(data: data)
            let thumb = Self.thumbnail(image, scale: 0.25)
            #expect(CIContext().explain(thumb).contains("decoded at 1/2"), "\(name)")
            let ours = try Self.render(thumb)
            // The full path through the same file reading (no downscale over it: full size),
            // then the same Lanczos from a bitmap of its pixels.
            let fullPixels = try Self.render(image)
            let bitmap = CIImage(bitmapData: Data(fullPixels), bytesPerRow: w * 4, size: CGSize(width: w, height: h), format: .RGBA8, colorSpace: Self.sRGB)
            let full = try Self.render(Self.thumbnail(bitmap, scale: 0.25))
            let d = Self.difference(ours, full)
            #expect(Self.withinTolerance(d), "\(name): max \(d.max), mean \(d.mean), beyond 3 levels \(d.far)")
        }
    }

    /// EXIF orientation applied on reading (a whole-pixel turn over the reduced source) gives
    /// the upright thumbnail of the full path.
    @Test(arguments: [3, 6, 8])
    func orientationStaysRight(orientation: Int) throws {
        let (w, h) = (256, 192)
        let data = try Self.jpeg(Self.photo(w, h), w, h) { $0.exif = Self.exif(orientation: orientation) }
        let upright = try CIImage.read(data: data, options: [.applyOrientationProperty: true])
        let thumb = Self.thumbnail(upright, scale: 0.25)
        #expect(CIContext().explain(thumb).contains("decoded at 1/2"))
        let turned = orientation >= 5
        #expect(thumb.extent.size == CGSize(width: turned ? 48 : 64, height: turned ? 64 : 48))
        let d = Self.difference(try Self.render(thumb), try Self.fullDecodeThumbnail(data, scale: 0.25, orientation: Int32(orientation)))
        #expect(Self.withinTolerance(d), "orientation \(orientation): max \(d.max), mean \(d.mean), beyond 3 levels \(d.far)")
    }

    /// Staged reductions (below 1/16) decode at 1/8 once, and tiled renders equal whole ones.
    @Test func stagedReductionAndTilesAgree() throws {
        let (w, h) = (512, 384)
        let data = try Self.jpeg(Self.photo(w, h), w, h)
        let thumb = Self.thumbnail(try CIImage.read(data: data), scale: 1.0 / 32)
        #expect(CIContext().explain(thumb).contains("decoded at 1/8"))
        let whole = try Self.render(thumb)
        for tile in [16, 5] {
            #expect(try Self.render(thumb, context: CIContext(options: [.tileSize: tile])) == whole, "tile \(tile)")
        }
        let d = Self.difference(whole, try Self.fullDecodeThumbnail(data, scale: 1.0 / 32))
        #expect(Self.withinTolerance(d), "1/32: max \(d.max), mean \(d.mean), beyond 3 levels \(d.far)")
    }

    /// What cannot follow the coarser grid keeps the full decode: a crop off the grid, a
    /// size the factor does not divide, a maximum (not a filter) and a lenient read.
    @Test func fullDecodeWhereTheGridDoesNotFit() throws {
        let data = try Self.jpeg(Self.photo(256, 192), 256, 192)
        let image = try CIImage.read(data: data)
        let offGrid = Self.thumbnail(image.cropped(to: CGRect(x: 3, y: 0, width: 250, height: 192)), scale: 0.25)
        #expect(!CIContext().explain(offGrid).contains("decoded at"))
        let odd = try CIImage.read(data: try Self.jpeg(Self.photo(251, 190), 251, 190))
        #expect(!CIContext().explain(Self.thumbnail(odd, scale: 0.25)).contains("decoded at"))
        let maximum = image.applyingFilter("CIMaximumScaleTransform", parameters: [kCIInputScaleKey: 0.25])
        #expect(!CIContext().explain(maximum).contains("decoded at"))
        let lenient = try CIImage.read(data: data, options: [.lenientDecoding: true])
        #expect(!CIContext().explain(Self.thumbnail(lenient, scale: 0.25)).contains("decoded at"))
    }

    /// A damaged file read small fails the render with a typed error (no crash), as at full size.
    @Test func truncatedFileFailsTheRender() throws {
        let data = try Self.jpeg(Self.photo(256, 192), 256, 192)
        let cut = data.prefix(data.count * 2 / 3)
        let thumb = Self.thumbnail(try CIImage.read(data: cut), scale: 0.25)
        #expect(CIContext().explain(thumb).contains("decoded at 1/2"))
        #expect(throws: CIRenderError.self) { try Self.render(thumb) }
        let progressive = try Self.jpeg(Self.photo(256, 192), 256, 192) { $0.progressive = true }
        let thumb2 = Self.thumbnail(try CIImage.read(data: progressive.prefix(progressive.count * 2 / 3)), scale: 0.25)
        #expect(throws: CIRenderError.self) { try Self.render(thumb2) }
    }

    // MARK: WebP at any size

    static func webp(_ px: [UInt8], _ w: Int, _ h: Int, _ configure: (inout EncodeOptions) -> Void = { _ in }) throws -> Data {
        var o = EncodeOptions()
        o.quality = 0.9
        configure(&o)
        return try px.withUnsafeBufferPointer { try ImageCodecs.encode(rgba8: $0, width: w, height: h, hasAlpha: false, format: .webp, options: o) }
    }

    /// libwebp's scaled decoder at a size no whole factor gives (251x171 -> 100x70) on a
    /// lossless file: each pixel the area-weighted mean of the file's pixels its cell covers
    /// (a formula), within 2 levels.
    @Test func webPScaledDecodeIsTheAreaMean() throws {
        let (w, h, sw, sh) = (251, 171, 100, 70)
        let px = Self.photo(w, h)
        let data = try Self.webp(px, w, h) { $0.lossless = true }
        let small = try ImageCodecs.decode(data, scaledTo: sw, sh)
        #expect(small.width == sw && small.height == sh && small.header.width == w)
        /// The overlap of source pixel `i` with cell [a, b).
        func overlap(_ i: Int, _ a: Double, _ b: Double) -> Double { max(0, min(Double(i + 1), b) - max(Double(i), a)) }
        var worst = 0.0
        for y in 0..<sh {
            let (y0, y1) = (Double(y) * Double(h) / Double(sh), Double(y + 1) * Double(h) / Double(sh))
            for x in 0..<sw {
                let (x0, x1) = (Double(x) * Double(w) / Double(sw), Double(x + 1) * Double(w) / Double(sw))
                for c in 0..<3 {
                    var sum = 0.0, area = 0.0
                    for j in Int(y0)..<min(h, Int(y1.rounded(.up))) {
                        for i in Int(x0)..<min(w, Int(x1.rounded(.up))) {
                            let a = overlap(i, x0, x1) * overlap(j, y0, y1)
                            sum += a * Double(px[(j * w + i) * 4 + c]); area += a
                        }
                    }
                    worst = max(worst, abs(Double(small.pixels[(y * sw + x) * 4 + c]) - sum / area))
                }
            }
        }
        #expect(worst <= 2, "\(worst) levels from the area mean")
        #expect(throws: ImageFileError.self) { try ImageCodecs.decode(data, scaledTo: w + 1, sh) }
        #expect(throws: ImageFileError.self) { try ImageCodecs.decode(data, scaledTo: 0, sh) }
        let jpg = try Self.jpeg(px, w, h)
        #expect(!ImageCodecs.decodesAtAnySize(try ImageCodecs.readHeader(jpg), data: jpg))
        #expect(throws: ImageFileError.self) { try ImageCodecs.decode(jpg, scaledTo: sw, sh) }
    }

    /// A WebP whose sides no factor divides decodes straight at 1.25 times the output size
    /// (rounded up) and stays within the tolerance the README states for it of the full
    /// decode + Lanczos (libwebp's area filter works on the file's Y'CbCr planes: mean under
    /// one level, at most 2.5% of values more than 3 levels apart, none more than 32), upright
    /// in every orientation.
    @Test(arguments: [1, 3, 6, 8])
    func webPDecodesAtAnySizeWithinTolerance(orientation: Int) throws {
        let (w, h) = (251, 171)
        let data = try Self.webp(Self.photo(w, h), w, h) { $0.exif = Self.exif(orientation: orientation) }
        let image = try CIImage.read(data: data, options: [.applyOrientationProperty: true])
        let thumb = Self.thumbnail(image, scale: 0.3)
        let turned = orientation >= 5
        // 251 x 0.375 = 94.1 -> 95, 171 x 0.375 = 64.1 -> 65 (upright sides).
        let plan = CIContext().explain(thumb)
        #expect(plan.contains(turned ? "decoded at 65x95" : "decoded at 95x65"), "\(plan)")
        #expect(thumb.extent.size == CGSize(width: turned ? 51 : 75, height: turned ? 75 : 51))
        let ours = try Self.render(thumb)
        let d = Self.difference(ours, try Self.fullDecodeThumbnail(data, scale: 0.3, orientation: Int32(orientation)))
        #expect(d.max <= 32 && d.mean < 1 && d.far <= 0.025, "orientation \(orientation): max \(d.max), mean \(d.mean), beyond 3 levels \(d.far)")
        // Tiled renders read the same decode.
        #expect(try Self.render(thumb, context: CIContext(options: [.tileSize: 16])) == ours)
    }

    /// A shrink too small to halve the pixels, or a lenient read, keeps the full decode.
    @Test func webPKeepsTheFullDecodeWhereItSavesLittle() throws {
        let (w, h) = (251, 171)
        let data = try Self.webp(Self.photo(w, h), w, h)
        #expect(!CIContext().explain(Self.thumbnail(try CIImage.read(data: data), scale: 0.6)).contains("decoded at"))
        let lenient = try CIImage.read(data: data, options: [.lenientDecoding: true])
        #expect(!CIContext().explain(Self.thumbnail(lenient, scale: 0.3)).contains("decoded at"))
    }

    /// A truncated or corrupt WebP read at a scaled size fails with a typed error, in the
    /// codec and in the render (no crash, no partial picture).
    /// The scaled WebP decode by rows (`WebPStreamDecoder`, libwebp's incremental decoder fed
    /// 64 KB at a time, read in bands of 7 rows) hands out the rows the one-shot scaled decode
    /// gives, lossy and lossless; a cut file fails with a typed error once its rows run out.
    @Test func webPRowsByBandsAreTheScaledDecode() throws {
        let (w, h, sw, sh) = (1251, 871, 500, 348)
        let px = Self.photo(w, h)
        for lossless in [false, true] {
            let data = try Self.webp(px, w, h) { $0.lossless = lossless }
            let whole = try ImageCodecs.decode(data, scaledTo: sw, sh)
            let rows = try WebPStreamDecoder(data: data, width: sw, height: sh)
            var got = [UInt8](repeating: 0, count: sw * sh * 4)
            try got.withUnsafeMutableBytes { out in
                var y = 0
                while y < sh {
                    let n = min(7, sh - y)
                    try rows.read(into: out.baseAddress! + y * sw * 4, rowBytes: sw * 4, count: n)
                    y += n
                }
            }
            #expect(got == whole.pixels, "lossless \(lossless)")
            #expect(rows.rowsRead == sh)
            // Decoding straight into the caller's rows (the picture held once): the same
            // pixels, the reads copying nothing, bands of 7 as before.
            var direct = [UInt8](repeating: 0, count: sw * sh * 4)
            try direct.withUnsafeMutableBytes { out in
                let inPlace = try WebPStreamDecoder(data: data, width: sw, height: sh, destination: out)
                var y = 0
                while y < sh {
                    let n = min(7, sh - y)
                    try inPlace.read(into: out.baseAddress! + y * sw * 4, rowBytes: sw * 4, count: n)
                    y += n
                }
            }
            #expect(direct == whole.pixels, "in place, lossless \(lossless)")
        }
        let data = try Self.webp(px, w, h)
        // A destination smaller than the picture is refused before any decoding.
        var small = [UInt8](repeating: 0, count: sw * sh * 4 - 1)
        _ = small.withUnsafeMutableBytes { out in
            #expect(throws: ImageFileError.self) { try WebPStreamDecoder(data: data, width: sw, height: sh, destination: out) }
        }
        let cut = try WebPStreamDecoder(data: data.prefix(data.count / 2), width: sw, height: sh)
        var band = [UInt8](repeating: 0, count: sw * 4 * sh)
        #expect(throws: ImageFileError.self) {
            try band.withUnsafeMutableBytes { try cut.read(into: $0.baseAddress!, rowBytes: sw * 4, count: sh) }
        }
        #expect(throws: ImageFileError.self) { try WebPStreamDecoder(data: data, width: w + 1, height: sh) }
    }

    @Test func damagedWebPFailsTheScaledDecode() throws {
        let (w, h) = (251, 171)
        let data = try Self.webp(Self.photo(w, h), w, h)
        let cut = data.prefix(data.count * 2 / 3)
        #expect(throws: ImageFileError.self) { try ImageCodecs.decode(cut, scaledTo: 100, 70) }
        let thumb = Self.thumbnail(try CIImage.read(data: cut), scale: 0.3)
        #expect(CIContext().explain(thumb).contains("decoded at 95x65"))
        #expect(throws: CIRenderError.self) { try Self.render(thumb) }
        // The frame header's start code (9d 01 2a) broken: refused when the header is read.
        var corrupt = data
        let start = try #require(corrupt.firstRange(of: Data([0x9D, 0x01, 0x2A])))
        corrupt[start.lowerBound] = 0
        #expect(throws: ImageFileError.self) { try ImageCodecs.decode(corrupt, scaledTo: 100, 70) }
        #expect(throws: (any Error).self) { try Self.render(Self.thumbnail(try CIImage.read(data: corrupt), scale: 0.3)) }
    }

    /// Image I/O's thumbnail of a still JPEG decodes small, upright, within tolerance.
    @Test func imageSourceThumbnailDecodesSmall() throws {
        let (w, h) = (256, 192)
        let data = try Self.jpeg(Self.photo(w, h), w, h) { $0.exif = Self.exif(orientation: 6) }
        let source = try #require(CGImageSourceCreateWithData(data as CFData, nil))
        let options: [CFString: Any] = [
            kCGImageSourceCreateThumbnailFromImageAlways: true, kCGImageSourceThumbnailMaxPixelSize: 64,
            kCGImageSourceCreateThumbnailWithTransform: true,
        ]
        let thumb = try #require(CGImageSourceCreateThumbnailAtIndex(source, 0, options as CFDictionary))
        #expect(thumb.width == 48 && thumb.height == 64)
        let lazy = try #require(source.stillImage(0))
        #expect(lazy.properties[kCGImagePropertyOrientation] as? Int == 6)
    }
}
