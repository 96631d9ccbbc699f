// Core Image's colour cubes: CIColorCube, CIColorCubeWithColorSpace, CIColorCubesMixedWithMask.
// Cube data is float32 RGBA, red index fastest, then green, then blue; dimension^3 * 16 bytes.

extension BuiltinFilters {
    /// CIColorCube: Applies a 3D color lookup table (LUT) to the image.
    static let colorCube = BuiltinFilter(
        FilterDescriptor(
            "CIColorCube", "Color Cube", "Applies a 3D color lookup table (LUT) to the image.",
            categories: [.builtIn, .colorEffect, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video], macOS: "10.4", iOS: "5", factory: "colorCube",
            doc: """
                A 3D LUT applied to working-space (linear) colour, trilinear, as Apple's.
                Input outside 0...1 is clamped to the cube unless `inputExtrapolate` is true, then the
                edge cells are extended linearly. The cube is premultiplied RGBA, as Apple documents:
                a cube whose alpha is not all 1 sets the pixel's alpha to its own times the cube's
                (and the colour to the cube's colour divided by its alpha), so Apple's chroma-key
                recipe (alpha 0 for the key's hues) gives transparency.
                """,
            inputs: [
                .image(),
                .number("inputCubeDimension", "Cube Dimension", .count, default: 2, identity: 2, min: 2, max: 128),
                .other("NSData", "inputCubeData", "Cube Data", nil, default: .data(byteLength: 128), identity: .data(byteLength: 128)),
                .bool("inputExtrapolate", nil, default: false, min: 0, max: 1),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let cube = try cubeTable(args, dataKey: "inputCubeData")
        let extrapolate = (try? args.bool("inputExtrapolate")) ?? false
        let sampler = LUTSampler(table: cube.table, size: cube.n, extrapolate: extrapolate)
        return image.applying(LUTStage(sampler: sampler, encoding: .linear, interpolation: .trilinear, name: "color cube", cubeAlpha: cube.hasAlpha))
    }

    /// CIColorCubeWithColorSpace: Applies a 3D LUT whose values are defined in a given color space.
    static let colorCubeWithColorSpace = BuiltinFilter(
        FilterDescriptor(
            "CIColorCubeWithColorSpace", "Color Cube with ColorSpace", "Applies a 3D LUT whose values are defined in a given color space.",
            categories: [.builtIn, .colorEffect, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
            macOS: "10.9", iOS: "7", factory: "colorCubeWithColorSpace",
            doc: """
                The cube is looked up in `inputColorSpace` (working colour
                is converted to that space's primaries and encoding, looked up, converted back). No
                colour space: as CIColorCube. The cube's alpha applies as in CIColorCube.
                """,
            inputs: [
                .image(),
                .number("inputCubeDimension", "Cube Dimension", .count, default: 2, identity: 2, min: 2, max: 128),
                .other("NSData", "inputCubeData", "Cube Data", nil, default: .data(byteLength: 128), identity: .data(byteLength: 128)),
                .number("inputExtrapolate", nil, nil),
                .other("NSObject", "inputColorSpace", "Color Space", nil),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let cube = try cubeTable(args, dataKey: "inputCubeData")
        let extrapolate = (try? args.bool("inputExtrapolate")) ?? false
        let encoding = try cubeEncoding(args)
        let sampler = LUTSampler(table: cube.table, size: cube.n, extrapolate: extrapolate)
        return image.applyingLUTStage(
            LUTStage(sampler: sampler, encoding: encoding, interpolation: .trilinear, name: "color cube with color space", cubeAlpha: cube.hasAlpha))
    }

    /// CIColorCubesMixedWithMask: Blends the results of two 3D LUTs using a mask image.
    static let colorCubesMixedWithMask = BuiltinFilter(
        FilterDescriptor(
            "CIColorCubesMixedWithMask", "Color Cubes Mixed With Mask", "Blends the results of two 3D LUTs using a mask image.",
            categories: [.builtIn, .colorEffect, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
            macOS: "10.13", iOS: "11", factory: "colorCubesMixedWithMask",
            doc: """
                Two cubes of one dimension, mixed per pixel by the mask's
                luminance (Rec. 709 weights on working values, clamped to 0...1): 0 gives cube 0,
                1 gives cube 1. Optional `inputColorSpace` as CIColorCubeWithColorSpace. The mixed
                cubes' alpha applies as in CIColorCube.
                """,
            inputs: [
                .image(),
                .image("inputMaskImage", "Mask Image"),
                .number("inputCubeDimension", "Cube Dimension", .count, default: 2, identity: 2, min: 2, max: 128),
                .other("NSData", "inputCube0Data", "Cube 0 Data", nil, default: .data(byteLength: 128), identity: .data(byteLength: 128)),
                .other("NSData", "inputCube1Data", "Cube 1 Data", nil, default: .data(byteLength: 128), identity: .data(byteLength: 128)),
                .other("NSObject", "inputColorSpace", "Color Space", nil),
                .bool("inputExtrapolate", nil, default: false, min: 0, max: 1),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let mask = try args.image(kCIInputMaskImageKey)
        let c0 = try cubeTable(args, dataKey: "inputCube0Data")
        let c1 = try cubeTable(args, dataKey: "inputCube1Data")
        let extrapolate = (try? args.bool("inputExtrapolate")) ?? false
        let encoding = try cubeEncoding(args)
        let stage = MaskedLUTStage(
            cube0: LUTSampler(table: c0.table, size: c0.n, extrapolate: extrapolate),
            cube1: LUTSampler(table: c1.table, size: c0.n, extrapolate: extrapolate), encoding: encoding,
            cubeAlpha: c0.hasAlpha || c1.hasAlpha)
        return image.applying(stage, extras: [mask])
    }
}

/// The cube of `dataKey` at `inputCubeDimension`, parsed once per distinct data (cached),
/// alpha kept; `hasAlpha` when some entry's alpha is not 1. Unset data is Apple's default,
/// the identity cube of dimension 2.
private func cubeTable(_ args: FilterArguments, dataKey: String) throws(CIFilterError) -> (n: Int, table: LUTTable, hasAlpha: Bool) {
    let n = Int(try args.number("inputCubeDimension").rounded())
    let data = args.values[dataKey] == nil ? ColorCubeData.identity(dimension: 2) : try args.data(dataKey)
    do {
        let cube = try ColorCubeCache.shared.table(dimension: n, data: data)
        return (n, cube.table, cube.hasAlpha)
    } catch {
        throw .invalidValue(filter: args.descriptor.name, key: dataKey, reason: error.description)
    }
}

private func cubeEncoding(_ args: FilterArguments) throws(CIFilterError) -> LUTEncoding {
    guard let v = args.values["inputColorSpace"], !(v is NSNull) else { return .linear }
    guard let space = v as? CGColorSpace else {
        throw .wrongType(filter: args.descriptor.name, key: "inputColorSpace", expected: "a CGColorSpace", got: typeName(v))
    }
    guard space.model == .rgb else {
        throw .invalidValue(filter: args.descriptor.name, key: "inputColorSpace", reason: "\(space) is not an RGB colour space")
    }
    return LUTEncoding(space)
}

/// Helpers for Core Image's cube data blobs.
public enum ColorCubeData {
    /// The identity cube of `dimension` as float32 RGBA, red fastest (Apple's default data).
    public static func identity(dimension n: Int) -> Data {
        var f = [Float](repeating: 1, count: n * n * n * 4)
        let k = 1 / Float(max(1, n - 1))
        var i = 0
        for b in 0..<n {
            for g in 0..<n {
                for r in 0..<n {
                    f[4 * i] = Float(r) * k; f[4 * i + 1] = Float(g) * k; f[4 * i + 2] = Float(b) * k
                    i += 1
                }
            }
        }
        return f.withUnsafeBytes { Data($0) }
    }
}

extension LUT {
    /// Core Image cube data for this LUT (`inputCubeData` of CIColorCube): float32 RGBA,
    /// alpha 1, red fastest. The shaper and domain are not part of Core Image's format and
    /// are not included.
    public var cubeDataRGBA: Data {
        Data(bytes: table.entries, count: table.count * MemoryLayout<SIMD4<Float>>.stride)
    }

    /// The LUT in Core Image cube data of `dimension` (2...256).
    public init(cubeDataRGBA data: Data, dimension n: Int, colorSpace: LUTColorSpace = .sRGB) throws(LUTError) {
        try self.init(size: n, table: try ColorCubeCache.parse(dimension: n, data: data), colorSpace: colorSpace)
    }
}

/// Parsed cube tables by (dimension, data): building a table once per distinct blob, not once
/// per `outputImage`. A few recent entries are kept (equal data hits, whatever its identity).
final class ColorCubeCache: Sendable {
    static let shared = ColorCubeCache()
    private struct Key: Equatable {
        let n: Int
        let data: Data
    }
    /// A parsed cube: its table (alpha kept) and whether some entry's alpha is not 1.
    struct Cube: Sendable {
        let table: LUTTable
        let hasAlpha: Bool
    }
    private let recent = RecentTables<Key, Cube>(capacity: 8)

    /// The cube of `data` at dimension `n`, with the entries' alpha (CIColorCube's).
    func table(dimension n: Int, data: Data) throws(LUTError) -> Cube {
        try recent.value(for: Key(n: n, data: data)) { () throws(LUTError) in
            let t = try ColorCubeCache.parse(dimension: n, data: data, keepingAlpha: true)
            var hasAlpha = false
            for i in 0..<t.count where t.entries[i].w != 1 { hasAlpha = true; break }
            return Cube(table: t, hasAlpha: hasAlpha)
        }
    }

    /// The table of Core Image cube data; alpha is set to 1 unless `keepingAlpha` (a finite
    /// alpha is then required too).
    static func parse(dimension n: Int, data: Data, keepingAlpha: Bool = false) throws(LUTError) -> LUTTable {
        try LUT.checkSize(n)
        let expected = n * n * n * 16
        guard data.count == expected else { throw .cubeDataSize(dimension: n, expected: expected, found: data.count) }
        let t = LUTTable(count: n * n * n)
        let bad: Int? = data.withUnsafeBytes { raw in
            for i in 0..<t.count {
                let v = raw.loadUnaligned(fromByteOffset: i * 16, as: SIMD4<Float>.self)
                guard v.x.isFinite, v.y.isFinite, v.z.isFinite, !keepingAlpha || v.w.isFinite else { return i }
                t.entries[i] = SIMD4(v.x, v.y, v.z, keepingAlpha ? v.w : 1)
            }
            return nil
        }
        if let bad { throw .nonFiniteValue(entry: bad) }
        return t
    }
}
