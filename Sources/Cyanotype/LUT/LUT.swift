// The LUT model: a 3D colour table (optionally behind a per-channel 1D shaper), the range
// of input it covers, and the encoding its input and output are in.

/// How a 3D LUT is sampled between its grid points.
public enum LUTInterpolation: String, Sendable, CaseIterable {
    /// Lerp in red, then green, then blue over the 8 corners of the cell (GPUImage,
    /// ImageMagick `-hald-clut`, ffmpeg `interp=trilinear`).
    case trilinear
    /// Kasson's tetrahedral split of the cell by the order of the fractions (ffmpeg's
    /// `interp=tetrahedral`, Resolve): 4 corners, neutral greys stay exactly on the grey axis.
    case tetrahedral
}

/// The encoding a LUT's input and output values are in.
public enum LUTColorSpace: String, Sendable, CaseIterable {
    /// sRGB-encoded values (the default: nearly every LUT image and `.cube` file assumes it).
    /// Working (linear) colour is encoded before the lookup and decoded after.
    case sRGB
    /// Linear sRGB values: the LUT is applied straight to working-space colour.
    case linear
}

/// A per-channel 1D table applied before the 3D table (a `.cube` file's `LUT_1D_SIZE` part).
public struct LUTShaper: Sendable, Equatable {
    /// One output triple per input step, evenly spaced from `domainMin` to `domainMax`.
    public let values: [SIMD3<Float>]
    /// The input that maps to the first step, per channel.
    public let domainMin: SIMD3<Float>
    /// The input that maps to the last step, per channel.
    public let domainMax: SIMD3<Float>

    /// A shaper of `values.count` (2...65536) steps, each finite, over a non-empty domain.
    public init(values: [SIMD3<Float>], domainMin: SIMD3<Float> = .zero, domainMax: SIMD3<Float> = .one) throws(LUTError) {
        guard values.count >= 2 else { throw .sizeBelowMinimum(size: values.count, minimum: 2) }
        guard values.count <= LUTShaper.maximumSize else { throw .sizeAboveLimit(size: values.count, limit: LUTShaper.maximumSize) }
        guard all(domainMax .> domainMin) else { throw .invalidDomain(min: domainMin, max: domainMax) }
        for (i, v) in values.enumerated() where !(v.x.isFinite && v.y.isFinite && v.z.isFinite) { throw .nonFiniteValue(entry: i) }
        self.values = values; self.domainMin = domainMin; self.domainMax = domainMax
    }
    /// The largest 1D table accepted.
    public static let maximumSize = 65536

    /// The shaper's output for `v` (linear interpolation, clamped to the domain).
    public func apply(_ v: SIMD3<Float>) -> SIMD3<Float> {
        let m = values.count
        var out = SIMD3<Float>()
        for c in 0..<3 {
            let t = clampIndex((v[c] - domainMin[c]) * Float(m - 1) / (domainMax[c] - domainMin[c]), Float(m - 1))
            let i = min(Int(t), m - 2)
            let f = t - Float(i)
            out[c] = values[i][c] + (values[i + 1][c] - values[i][c]) * f
        }
        return out
    }
}

/// A 3D colour lookup table: `size`^3 RGB entries with red changing fastest, then green,
/// then blue (the `.cube` and `CIColorCube` order), covering `domainMin...domainMax`.
///
/// The table lives in an immutable buffer shared by copies, so a `LUT` is cheap to pass
/// around and to hand to any number of renders.
public struct LUT: Sendable, Equatable, CustomStringConvertible {
    /// Grid points per axis, 2...256.
    public let size: Int
    /// The input that maps to the first and last grid points (default 0 and 1).
    public var domainMin: SIMD3<Float>
    /// The input that maps to the last grid point, per channel (`domainMin` the first).
    public var domainMax: SIMD3<Float>
    /// An optional per-channel 1D table applied before the 3D table.
    public var shaper: LUTShaper?
    /// The encoding the table was authored in; `.sRGB` unless the source says otherwise.
    public var colorSpace: LUTColorSpace
    /// A name (a `.cube` file's `TITLE`, a look's name).
    public var title: String?
    let table: LUTTable

    /// Sizes this library accepts (`CIColorCube` itself stops at 128, as Apple's does).
    public static let sizeRange = 2...256

    /// A LUT from `size`^3 RGB entries, red fastest. Throws for a size outside 2...256, a
    /// wrong entry count, a non-finite entry or an empty domain.
    public init(
        size: Int, entries: [SIMD3<Float>], domainMin: SIMD3<Float> = .zero, domainMax: SIMD3<Float> = .one,
        shaper: LUTShaper? = nil, colorSpace: LUTColorSpace = .sRGB, title: String? = nil
    ) throws(LUTError) {
        try LUT.checkSize(size)
        guard entries.count == size * size * size else { throw .missingEntries(expected: size * size * size, found: entries.count) }
        let t = LUTTable(count: entries.count)
        for (i, e) in entries.enumerated() {
            guard e.x.isFinite, e.y.isFinite, e.z.isFinite else { throw .nonFiniteValue(entry: i) }
            t.entries[i] = SIMD4(e, 1)
        }
        try self.init(size: size, table: t, domainMin: domainMin, domainMax: domainMax, shaper: shaper, colorSpace: colorSpace, title: title)
    }

    init(
        size: Int, table: LUTTable, domainMin: SIMD3<Float> = .zero, domainMax: SIMD3<Float> = .one,
        shaper: LUTShaper? = nil, colorSpace: LUTColorSpace = .sRGB, title: String? = nil
    ) throws(LUTError) {
        guard all(domainMax .> domainMin), all(domainMin .== domainMin), domainMin.x.isFinite, domainMin.y.isFinite, domainMin.z.isFinite,
            domainMax.x.isFinite, domainMax.y.isFinite, domainMax.z.isFinite
        else { throw .invalidDomain(min: domainMin, max: domainMax) }
        self.size = size; self.table = table
        self.domainMin = domainMin; self.domainMax = domainMax
        self.shaper = shaper; self.colorSpace = colorSpace; self.title = title
    }

    /// The LUT that maps every colour to itself, at `size` points per axis.
    public static func identity(size: Int, colorSpace: LUTColorSpace = .sRGB) throws(LUTError) -> LUT {
        try checkSize(size)
        let t = LUTTable(count: size * size * size)
        let k = 1 / Float(size - 1)
        var i = 0
        for b in 0..<size {
            for g in 0..<size {
                for r in 0..<size {
                    t.entries[i] = SIMD4(Float(r) * k, Float(g) * k, Float(b) * k, 1)
                    i += 1
                }
            }
        }
        return try LUT(size: size, table: t, colorSpace: colorSpace, title: "identity \(size)")
    }

    /// A LUT made by evaluating `transform` at every grid point of a `size`^3 identity
    /// (values in the LUT's encoding, 0...1).
    public static func make(
        size: Int, title: String? = nil, colorSpace: LUTColorSpace = .sRGB,
        _ transform: (SIMD3<Float>) -> SIMD3<Float>
    ) throws(LUTError) -> LUT {
        try checkSize(size)
        let t = LUTTable(count: size * size * size)
        let k = 1 / Float(size - 1)
        var i = 0
        for b in 0..<size {
            for g in 0..<size {
                for r in 0..<size {
                    let v = transform(SIMD3(Float(r) * k, Float(g) * k, Float(b) * k))
                    guard v.x.isFinite, v.y.isFinite, v.z.isFinite else { throw .nonFiniteValue(entry: i) }
                    t.entries[i] = SIMD4(v, 1)
                    i += 1
                }
            }
        }
        return try LUT(size: size, table: t, colorSpace: colorSpace, title: title)
    }

    static func checkSize(_ size: Int, limit: Int = LUT.sizeRange.upperBound) throws(LUTError) {
        guard size >= 2 else { throw .sizeBelowMinimum(size: size, minimum: 2) }
        guard size <= limit else { throw .sizeAboveLimit(size: size, limit: limit) }
    }

    /// The entry at grid point (r, g, b), each in 0..<size.
    public subscript(r: Int, g: Int, b: Int) -> SIMD3<Float> {
        precondition((0..<size).contains(r) && (0..<size).contains(g) && (0..<size).contains(b), "LUT index out of range")
        let e = table.entries[r + size * (g + size * b)]
        return SIMD3(e.x, e.y, e.z)
    }

    /// All entries, red fastest, then green, then blue.
    public var entries: [SIMD3<Float>] {
        (0..<table.count).map {
            let e = table.entries[$0]; return SIMD3(e.x, e.y, e.z)
        }
    }

    /// The LUT applied to one colour given in its own encoding (a scalar reference; images
    /// go through the fused colour stage instead).
    public func apply(_ color: SIMD3<Float>, interpolation: LUTInterpolation = .tetrahedral) -> SIMD3<Float> {
        let v = shaper?.apply(color) ?? color
        let s = LUTSampler(lut: self, extrapolate: false)
        let p = SIMD4(v, 1)
        let out = interpolation == .trilinear ? s.trilinear(p) : s.tetrahedral(p)
        return SIMD3(out.x, out.y, out.z)
    }

    /// The title, size, shaper and colour space, for logs and tools.
    public var description: String {
        "LUT(\(title.map { "\"\($0)\", " } ?? "")\(size)^3\(shaper.map { ", 1D shaper of \($0.values.count)" } ?? ""), \(colorSpace.rawValue))"
    }

    /// Two LUTs are equal when their sizes, domains, shapers, colour spaces, titles and entries are.
    public static func == (a: LUT, b: LUT) -> Bool {
        guard a.size == b.size, a.domainMin == b.domainMin, a.domainMax == b.domainMax, a.shaper == b.shaper,
            a.colorSpace == b.colorSpace, a.title == b.title
        else { return false }
        if a.table === b.table { return true }
        return memcmp(a.table.entries, b.table.entries, a.table.count * MemoryLayout<SIMD4<Float>>.stride) == 0
    }

    /// The largest difference between the two tables' entries (same size), for tests and tools.
    public func maximumDifference(from other: LUT) -> Float {
        precondition(size == other.size, "LUTs of different sizes")
        var m: Float = 0
        for i in 0..<table.count {
            let d = table.entries[i] - other.table.entries[i]
            m = max(m, abs(d.x), abs(d.y), abs(d.z))
        }
        return m
    }
}

/// An immutable table of RGBA float entries in raw memory, so pixel loops index it without
/// bounds checks or ARC traffic. Filled once when built, read-only afterwards.
final class LUTTable: @unchecked Sendable {
    let count: Int
    let entries: UnsafeMutablePointer<SIMD4<Float>>
    init(count: Int) {
        self.count = count
        entries = .allocate(capacity: max(1, count))
        entries.initialize(repeating: SIMD4(0, 0, 0, 1), count: max(1, count))
    }
    deinit { entries.deallocate() }
}

/// Clamps a grid coordinate to 0...maxIndex; NaN goes to 0 so `Int(t)` can never trap.
@inline(__always) func clampIndex(_ t: Float, _ maxIndex: Float) -> Float { t > 0 ? (t < maxIndex ? t : maxIndex) : 0 }
