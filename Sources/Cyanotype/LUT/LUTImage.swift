// LUTs stored as images: tile grids (GPUImage's 512x512 lookup), strips and Hald CLUTs.
// Pixel values are taken as stored (LUT images are data, not pictures): no colour
// management is applied when reading, and writing stores the table values unchanged.

internal import CyanotypeCodecs
import Foundation

/// How the N^3 entries of a LUT are arranged in an image. In every layout but `.hald`, blue
/// picks an N x N tile, red runs to the right and green down inside it (row 0 is the first
/// row stored in the file).
public enum LUTImageLayout: String, Sendable, CaseIterable {
    /// Square tiles in a grid, tile z = blue index at (z mod c, z div c) from the top left,
    /// c = sqrt(N) columns when N is a square (512x512 = 8x8 tiles of 64, 64x64 = 4x4 of 16),
    /// else ceil(sqrt(N)) columns with the last row padded (33: 6x6 tiles, 198x198).
    case tiles
    /// N tiles side by side: N^2 x N pixels.
    case horizontalStrip
    /// N tiles stacked: N x N^2 pixels.
    case verticalStrip
    /// Hald CLUT level L (ImageMagick `hald:L`, ffmpeg `haldclutsrc`): N = L^2, L^3 x L^3
    /// pixels, entry r + N*g + N^2*b stored row-major, red fastest.
    case hald

    /// The layout assumed for an image of this size when none is given: a strip when the
    /// size is N^2 x N or N x N^2, otherwise `.tiles`. Square images are ambiguous (every
    /// m^3 x m^3 image is both an m x m tile grid and a Hald CLUT of level m; 512x512 is 8x8
    /// tiles of 64 and Hald level 8), and the default for them is `.tiles`; pass `.hald`
    /// to read a Hald CLUT.
    public static func assumed(width: Int, height: Int) -> LUTImageLayout {
        if height >= 2 && width == height * height { return .horizontalStrip }
        if width >= 2 && height == width * width { return .verticalStrip }
        return .tiles
    }

    var displayName: String {
        switch self {
        case .tiles: return "tile-grid"
        case .horizontalStrip: return "horizontal strip (N^2 x N)"
        case .verticalStrip: return "vertical strip (N x N^2)"
        case .hald: return "Hald CLUT (L^3 x L^3, N = L^2)"
        }
    }
}

/// Where the entries of an N^3 LUT sit in an image of a layout.
struct LUTImageGeometry: Equatable {
    let layout: LUTImageLayout
    let size: Int
    /// Tiles per row (tiles and strips).
    let columns: Int
    let width: Int
    let height: Int

    init?(size n: Int, layout: LUTImageLayout) {
        guard n >= 2 else { return nil }
        self.layout = layout; size = n
        switch layout {
        case .tiles:
            let r = isqrt(n)
            columns = r * r == n ? r : r + 1
            width = columns * n
            height = ((n + columns - 1) / columns) * n
        case .horizontalStrip:
            columns = n; width = n * n; height = n
        case .verticalStrip:
            columns = 1; width = n; height = n * n
        case .hald:
            let l = isqrt(n)
            guard l * l == n else { return nil }
            columns = 0; width = l * l * l; height = width
        }
    }

    /// The grid size an image of `width` x `height` holds in `layout`, if any.
    static func size(width: Int, height: Int, layout: LUTImageLayout) -> Int? {
        guard width >= 2, height >= 2 else { return nil }
        switch layout {
        case .horizontalStrip: return width == height * height ? height : nil
        case .verticalStrip: return height == width * width ? width : nil
        case .hald:
            guard width == height else { return nil }
            let l = Int(pow(Double(width), 1.0 / 3.0).rounded())
            for c in max(2, l - 1)...(l + 1) where c * c * c == width { return c * c }
            return nil
        case .tiles:
            // width = columns * N grows with N, so at most one N matches.
            var n = 2
            while n <= width {
                if let g = LUTImageGeometry(size: n, layout: .tiles), g.width >= width {
                    return g.width == width && g.height == height ? n : nil
                }
                n += 1
            }
            return nil
        }
    }

    /// Pixel (x, y from the top) of grid point (r, g, b).
    @inline(__always) func position(_ r: Int, _ g: Int, _ b: Int) -> (Int, Int) {
        if layout == .hald {
            let i = r + size * (g + size * b)
            return (i % width, i / width)
        }
        return ((b % columns) * size + r, (b / columns) * size + g)
    }
}

func isqrt(_ n: Int) -> Int {
    guard n > 0 else { return 0 }
    var r = Int(Double(n).squareRoot())
    while r * r > n { r -= 1 }
    while (r + 1) * (r + 1) <= n { r += 1 }
    return r
}

extension LUT {
    /// The default cap on the size of LUTs read from images and files: 128, Apple's
    /// `CIColorCube` maximum (a 128^3 table is 32 MiB of float RGBA). Pass up to 256 to the
    /// readers' `maximumSize` for bigger ones (a 4096x4096 tile grid is 16x16 tiles of 256).
    public static let defaultReadLimit = 128

    /// The LUT stored in an image, read from its pixel values as stored (no colour
    /// management). `layout` nil: a strip when the size says so, else `.tiles`
    /// (see `LUTImageLayout.assumed`).
    public init(image: CIImage, layout: LUTImageLayout? = nil, maximumSize: Int = LUT.defaultReadLimit) throws(LUTError) {
        let e = image.extent
        guard !e.isInfinite, !e.isEmpty, e.width < 1_048_576, e.height < 1_048_576 else {
            throw .unreadableImage(reason: "the image has an infinite or empty extent (\(e)); crop it to the LUT first")
        }
        let w = Int(e.width.rounded()), h = Int(e.height.rounded())
        let geometry = try LUT.geometry(width: w, height: h, layout: layout, maximumSize: maximumSize)
        let context = CIContext(options: [.workingColorSpace: NSNull(), .outputPremultiplied: false, .cacheIntermediates: false])
        let rendered: Data
        do {
            rendered = try context.renderToData(image, from: e, format: .RGBAf).data
        } catch {
            throw .unreadableImage(reason: String(describing: error))
        }
        let result = rendered.withUnsafeBytes { raw -> Result<LUT, LUTError> in
            let px = raw.bindMemory(to: SIMD4<Float>.self)
            return Result { () throws(LUTError) -> LUT in try LUT(pixels: px.baseAddress!, geometry: geometry, divisor: 1) }
        }
        self = try result.get()
    }

    /// The LUT in encoded image bytes (PNG 8 or 16 bit, or any format the codecs read).
    public init(imageData data: Data, layout: LUTImageLayout? = nil, maximumSize: Int = LUT.defaultReadLimit) throws(LUTError) {
        let header: ImageHeader
        do { header = try ImageCodecs.readHeader(data) } catch { throw .unreadableImage(reason: error.description) }
        let geometry = try LUT.geometry(width: header.width, height: header.height, layout: layout, maximumSize: maximumSize)
        let bitmap: DecodedBitmap
        do { bitmap = try ImageCodecs.decode(data) } catch { throw .unreadableImage(reason: error.description) }
        var floats = [SIMD4<Float>](repeating: .zero, count: bitmap.width * bitmap.height)
        if bitmap.bitDepth == 16 {
            for i in 0..<floats.count {
                floats[i] = SIMD4(Float(bitmap.pixels16[4 * i]), Float(bitmap.pixels16[4 * i + 1]), Float(bitmap.pixels16[4 * i + 2]), 65535)
            }
        } else {
            for i in 0..<floats.count {
                floats[i] = SIMD4(Float(bitmap.pixels[4 * i]), Float(bitmap.pixels[4 * i + 1]), Float(bitmap.pixels[4 * i + 2]), 255)
            }
        }
        let divisor: Float = bitmap.bitDepth == 16 ? 65535 : 255
        self = try floats.withUnsafeBufferPointer { px throws(LUTError) -> LUT in try LUT(pixels: px.baseAddress!, geometry: geometry, divisor: divisor) }
    }

    static func geometry(width w: Int, height h: Int, layout: LUTImageLayout?, maximumSize: Int) throws(LUTError) -> LUTImageGeometry {
        let chosen = layout ?? LUTImageLayout.assumed(width: w, height: h)
        guard let n = LUTImageGeometry.size(width: w, height: h, layout: chosen) else {
            if chosen == .tiles && w != h { throw .tileGridNotSquare(width: w, height: h) }
            throw .imageSizeNotALUT(width: w, height: h, layout: chosen.displayName)
        }
        try checkSize(n, limit: min(maximumSize, LUT.sizeRange.upperBound))
        guard let g = LUTImageGeometry(size: n, layout: chosen) else { throw .imageSizeNotALUT(width: w, height: h, layout: chosen.displayName) }
        return g
    }

    init(pixels: UnsafePointer<SIMD4<Float>>, geometry g: LUTImageGeometry, divisor: Float) throws(LUTError) {
        let n = g.size
        let t = LUTTable(count: n * n * n)
        var i = 0
        for b in 0..<n {
            for gi in 0..<n {
                for r in 0..<n {
                    let (x, y) = g.position(r, gi, b)
                    let p = divisor == 1 ? pixels[y * g.width + x] : pixels[y * g.width + x] / divisor
                    guard p.x.isFinite, p.y.isFinite, p.z.isFinite else { throw .nonFiniteValue(entry: i) }
                    t.entries[i] = SIMD4(p.x, p.y, p.z, 1)
                    i += 1
                }
            }
        }
        try self.init(size: n, table: t)
    }

    /// The table laid out as image pixels (RGBA float, alpha 1, top row first); unused
    /// tiles of a padded grid are black. Nil only for `.hald` when N is not a square.
    public func pixels(layout: LUTImageLayout = .tiles) -> (pixels: [SIMD4<Float>], width: Int, height: Int)? {
        guard let g = LUTImageGeometry(size: size, layout: layout) else { return nil }
        var px = [SIMD4<Float>](repeating: SIMD4(0, 0, 0, 1), count: g.width * g.height)
        var i = 0
        for b in 0..<size {
            for gi in 0..<size {
                for r in 0..<size {
                    let (x, y) = g.position(r, gi, b)
                    var e = table.entries[i]
                    e.w = 1
                    px[y * g.width + x] = e
                    i += 1
                }
            }
        }
        return (px, g.width, g.height)
    }

    /// The LUT as a tile-grid image (`image(layout: .tiles)`).
    public var image: CIImage { (try? image(layout: .tiles)) ?? .empty() }

    /// The LUT as an image in `layout`: float pixels holding the table values, tagged sRGB so
    /// that an sRGB render or encode writes the values back unchanged. Throws for `.hald`
    /// when the size is not a square (Hald CLUTs have N = L^2).
    public func image(layout: LUTImageLayout) throws(LUTError) -> CIImage {
        guard let (px, w, h) = pixels(layout: layout) else {
            throw .unrepresentable(format: "a Hald CLUT", reason: "its size \(size) is not a square (Hald level L holds L^2 points per axis)")
        }
        let data = px.withUnsafeBytes { Data($0) }
        return CIImage(
            unpremultipliedBitmapData: data, bytesPerRow: w * 16, size: CGSize(width: w, height: h), format: .RGBAf,
            colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
    }

    /// PNG bytes of the LUT in `layout`, 8 or 16 bits per sample, values stored as they are
    /// (clamped to 0...1 and rounded), with no colour conversion.
    public func pngData(layout: LUTImageLayout = .tiles, bitDepth: Int = 8) throws(LUTError) -> Data {
        guard bitDepth == 8 || bitDepth == 16 else { throw .unrepresentable(format: "PNG", reason: "bit depth \(bitDepth) (use 8 or 16)") }
        guard let (px, w, h) = pixels(layout: layout) else {
            throw .unrepresentable(format: "a Hald CLUT", reason: "its size \(size) is not a square (Hald level L holds L^2 points per axis)")
        }
        do {
            if bitDepth == 16 {
                var q = [UInt16](repeating: 0, count: px.count * 4)
                for i in 0..<px.count { for c in 0..<4 { q[4 * i + c] = UInt16(clamp01(px[i][c]) * 65535 + 0.5) } }
                return try q.withUnsafeBufferPointer { b throws(ImageFileError) in
                    try ImageCodecs.encode(rgba16: b, width: w, height: h, hasAlpha: false, format: .png, options: EncodeOptions())
                }
            }
            var q = [UInt8](repeating: 0, count: px.count * 4)
            for i in 0..<px.count { for c in 0..<4 { q[4 * i + c] = UInt8(clamp01(px[i][c]) * 255 + 0.5) } }
            return try q.withUnsafeBufferPointer { b throws(ImageFileError) in
                try ImageCodecs.encode(rgba8: b, width: w, height: h, hasAlpha: false, format: .png, options: EncodeOptions())
            }
        } catch {
            throw .unrepresentable(format: "PNG", reason: error.description)
        }
    }
}

/// What a LUT image's pixels say about its layout. Every L^3 x L^3 image is both a Hald CLUT
/// of level L and an L x L grid of L^2 tiles, so the size alone cannot tell them apart; read
/// the right way a LUT is a smooth function of its input, read the wrong way it jumps at
/// every tile or row boundary. `roughness` is the mean squared difference between
/// neighbouring entries along red, green and blue for each layout the size allows.
public struct LUTLayoutInference: Sendable, Equatable {
    /// The layout the pixels fit clearly best (less than half the roughness of any other),
    /// or nil when the size allows several and none stands out (ask the user).
    public let layout: LUTImageLayout?
    /// The layouts an image of this size can hold, smoothest first.
    public let candidates: [LUTImageLayout]
    /// The roughness of the table read in each candidate layout, in `candidates`' order.
    public let roughness: [Double]
}

extension LUT {
    /// The layouts an image of `width` x `height` can hold a LUT in (strips, tiles, Hald).
    public static func possibleLayouts(width: Int, height: Int) -> [LUTImageLayout] {
        LUTImageLayout.allCases.filter { LUTImageGeometry.size(width: width, height: height, layout: $0) != nil }
    }

    /// Reads a LUT image in every layout its size allows and ranks them by smoothness
    /// (see `LUTLayoutInference`); a size that fits one layout only returns it.
    public static func inferLayout(imageData data: Data, maximumSize: Int = LUT.defaultReadLimit) throws(LUTError) -> LUTLayoutInference {
        let header: ImageHeader
        do { header = try ImageCodecs.readHeader(data) } catch { throw .unreadableImage(reason: error.description) }
        let layouts = possibleLayouts(width: header.width, height: header.height)
        guard layouts.count > 1 else {
            return LUTLayoutInference(layout: layouts.first, candidates: layouts, roughness: layouts.map { _ in 0 })
        }
        let bitmap: DecodedBitmap
        do { bitmap = try ImageCodecs.decode(data) } catch { throw .unreadableImage(reason: error.description) }
        let count = bitmap.width * bitmap.height
        var floats = [SIMD4<Float>](repeating: .zero, count: count)
        for i in 0..<count {
            floats[i] =
                bitmap.bitDepth == 16
                ? SIMD4(Float(bitmap.pixels16[4 * i]), Float(bitmap.pixels16[4 * i + 1]), Float(bitmap.pixels16[4 * i + 2]), 1) / 65535
                : SIMD4(Float(bitmap.pixels[4 * i]), Float(bitmap.pixels[4 * i + 1]), Float(bitmap.pixels[4 * i + 2]), 1) / 255
        }
        var scored: [(LUTImageLayout, Double)] = []
        for layout in layouts {
            let g = try geometry(width: header.width, height: header.height, layout: layout, maximumSize: maximumSize)
            let lut = try floats.withUnsafeBufferPointer { px throws(LUTError) -> LUT in try LUT(pixels: px.baseAddress!, geometry: g, divisor: 1) }
            scored.append((layout, lut.roughness))
        }
        scored.sort { $0.1 < $1.1 }
        let clear = scored[0].1 < 0.5 * scored[1].1
        return LUTLayoutInference(layout: clear ? scored[0].0 : nil, candidates: scored.map(\.0), roughness: scored.map(\.1))
    }

    /// Mean squared difference between neighbouring entries along each axis.
    var roughness: Double {
        let n = size
        var sum = 0.0, terms = 0
        let e = table.entries
        for b in 0..<n {
            for g in 0..<n {
                for r in 0..<n {
                    let i = r + n * (g + n * b)
                    let p = e[i]
                    @inline(__always) func add(_ j: Int) {
                        let d = e[j] - p
                        sum += Double(d.x * d.x + d.y * d.y + d.z * d.z)
                        terms += 1
                    }
                    if r + 1 < n { add(i + 1) }
                    if g + 1 < n { add(i + n) }
                    if b + 1 < n { add(i + n * n) }
                }
            }
        }
        return terms == 0 ? 0 : sum / Double(terms)
    }
}
