// Applying a LUT to pixels: the interpolation kernels and the colour stage that fuses with
// its neighbours. Hot loops follow NOTES-swift-linux.md §2: scalar min/max, `Int(x)` for
// the index, raw pointers into the table, no closures per pixel. The tetrahedral lookup of
// the direct path also has an AVX2 loop in C (CCyanotypeKernels/lut.c, the same bits).

import CCyanotypeKernels

/// The 3D lookup of one LUT: table pointer, grid size and the domain -> grid mapping.
/// Cell coordinates are found for the three axes at once in SIMD (no checked float -> int
/// conversions, no overflow checks), then 8 (trilinear) or 4 (tetrahedral) entries are read.
struct LUTSampler: @unchecked Sendable {
    let table: LUTTable
    let n: Int
    let maxIndex: Float
    let lo: SIMD4<Float>
    let scale: SIMD4<Float>
    let extrapolate: Bool
    let lastCellF: Float
    /// Offsets of the corners from c000: +1 red, +n green, +n^2 blue.
    let stridesF: SIMD4<Float>
    let o010: Int, o110: Int, o001: Int, o101: Int, o011: Int, o111: Int

    init(lut: LUT, extrapolate: Bool) {
        self.init(table: lut.table, size: lut.size, domainMin: lut.domainMin, domainMax: lut.domainMax, extrapolate: extrapolate)
    }
    init(table: LUTTable, size: Int, domainMin: SIMD3<Float> = .zero, domainMax: SIMD3<Float> = .one, extrapolate: Bool) {
        self.table = table; n = size; maxIndex = Float(size - 1)
        lo = SIMD4(domainMin, 0)
        scale = SIMD4(Float(size - 1) / (domainMax - domainMin), 0)
        self.extrapolate = extrapolate
        lastCellF = Float(size - 2)
        stridesF = SIMD4(1, Float(size), Float(size * size), 0)
        o010 = size; o110 = size + 1; o001 = size * size; o101 = size * size + 1; o011 = size * size + size; o111 = size * size + size + 1
    }

    /// The cell's first entry and the fractions (x, y, z = red, green, blue) inside it.
    @inline(__always) func cell(_ p: SIMD4<Float>) -> (UnsafeMutablePointer<SIMD4<Float>>, SIMD4<Float>) {
        let raw = (p - lo) * scale
        var t = SIMD4<Float>.zero.replacing(with: raw, where: raw .> 0)  // negatives and NaN -> 0
        t = t.replacing(with: maxIndex, where: t .> maxIndex)
        // floor(t), capped at the last cell, all in float lanes: integer-vector masks made
        // LLVM split this into scalar code (perf), and the flat index is exact in float
        // (n^3 <= 2^24).
        var i = toFloat(roundToInt(t - 0.5))  // floor(t), or one below at exact integers
        i = i.replacing(with: 0, where: i .< 0)
        i = i.replacing(with: lastCellF, where: i .> lastCellF)
        let base = Int(i.x + i.y * stridesF.y + i.z * stridesF.z)
        let f = (extrapolate ? t.replacing(with: raw, where: raw .== raw) : t) - i
        return (table.entries + base, f)
    }

    @inline(__always) func trilinear(_ p: SIMD4<Float>) -> SIMD4<Float> {
        let (c, f) = cell(p)
        let fr = f.x, fg = f.y, fb = f.z
        let c000 = c[0], c100 = c[1], c010 = c[o010], c110 = c[o110]
        let c001 = c[o001], c101 = c[o101], c011 = c[o011], c111 = c[o111]
        let c00 = c000 + (c100 - c000) * fr, c10 = c010 + (c110 - c010) * fr
        let c01 = c001 + (c101 - c001) * fr, c11 = c011 + (c111 - c011) * fr
        let c0 = c00 + (c10 - c00) * fg, c1 = c01 + (c11 - c01) * fg
        return c0 + (c1 - c0) * fb
    }

    /// One axis of `cell` in scalar code (cheaper than the SIMD version when the caller
    /// needs integer offsets anyway): the clamped grid coordinate's floor, capped at the last
    /// cell, and the fraction. No checked conversions: the rounding magic leaves
    /// round(t - 0.5) (floor, or one below at exact integers) in the low mantissa bits.
    @inline(__always) func axis(_ v: Float, _ lane: Int) -> (Int, Float) {
        let raw = (v - lo[lane]) * scale[lane]
        let t = raw > 0 ? (raw < maxIndex ? raw : maxIndex) : 0  // NaN -> 0
        let r = (t - 0.5) + 12_582_912
        let i = Int(r.bitPattern & 0x3F_FFFF)
        let last = n &- 2
        let k = i < last ? i : last
        return (k, t - Float(k))
    }

    /// Tetrahedral interpolation without branches on the data: the fractions' order
    /// (three comparisons, a code 0...7) picks the corner one step along the largest
    /// fraction's axis and the one two steps along the two largest, from `corners` (see
    /// `tetrahedronCorners`), so photo data, whose tetrahedron changes unpredictably from
    /// pixel to pixel, costs no mispredicted branches. Not for `extrapolate`.
    @inline(__always) func tetrahedralSorted(_ p: SIMD4<Float>, _ corners: UnsafePointer<Int>) -> SIMD4<Float> {
        let (ir, fr) = axis(p.x, 0), (ig, fg) = axis(p.y, 1), (ib, fb) = axis(p.z, 2)
        let c = table.entries + (ir &+ ig &* o010 &+ ib &* o001)
        let code = (fr >= fg ? 1 : 0) | (fr >= fb ? 2 : 0) | (fg >= fb ? 4 : 0)
        let oHi = corners[code], oPair = corners[code &+ 8]
        let hi = max(fr, max(fg, fb)), lo = min(fr, min(fg, fb))
        let mid = fr + fg + fb - hi - lo
        return c[0] * (1 - hi) + c[oHi] * (hi - mid) + c[oPair] * (mid - lo) + c[o111] * lo
    }

    /// For each order code (bit 0: r >= g, bit 1: r >= b, bit 2: g >= b): entries 0...7, the
    /// offset of the corner along the largest fraction's axis; 8...15, the corner along the
    /// two largest (all three axes but the smallest's). Codes 2 and 5 cannot occur.
    func tetrahedronCorners(into t: UnsafeMutablePointer<Int>) {
        let r = 1, g = o010, b = o001
        // (largest axis, smallest axis) per code.
        let order: [(Int, Int)] = [(b, r), (b, g), (b, r), (r, g), (g, r), (r, b), (g, b), (r, b)]
        for (code, (hi, lo)) in order.enumerated() {
            t[code] = hi
            t[code + 8] = o111 - lo
        }
    }

    /// Trilinear interpolation with the scalar cell search (not for `extrapolate`).
    @inline(__always) func trilinearFast(_ p: SIMD4<Float>) -> SIMD4<Float> {
        let (ir, fr) = axis(p.x, 0), (ig, fg) = axis(p.y, 1), (ib, fb) = axis(p.z, 2)
        let c = table.entries + (ir &+ ig &* o010 &+ ib &* o001)
        let c00 = c[0] + (c[1] - c[0]) * fr, c10 = c[o010] + (c[o110] - c[o010]) * fr
        let c01 = c[o001] + (c[o101] - c[o001]) * fr, c11 = c[o011] + (c[o111] - c[o011]) * fr
        let c0 = c00 + (c10 - c00) * fg, c1 = c01 + (c11 - c01) * fg
        return c0 + (c1 - c0) * fb
    }

    @inline(__always) func tetrahedral(_ p: SIMD4<Float>) -> SIMD4<Float> {
        let (c, f) = cell(p)
        let fr = f.x, fg = f.y, fb = f.z
        let c000 = c[0], c111 = c[o111]
        if fr > fg {
            if fg > fb {  // r > g > b
                return c000 * (1 - fr) + c[1] * (fr - fg) + c[o110] * (fg - fb) + c111 * fb
            } else if fr > fb {  // r > b >= g
                return c000 * (1 - fr) + c[1] * (fr - fb) + c[o101] * (fb - fg) + c111 * fg
            } else {  // b >= r > g
                return c000 * (1 - fb) + c[o001] * (fb - fr) + c[o101] * (fr - fg) + c111 * fg
            }
        } else {
            if fb > fg {  // b > g >= r
                return c000 * (1 - fb) + c[o001] * (fb - fg) + c[o011] * (fg - fr) + c111 * fr
            } else if fb > fr {  // g >= b > r
                return c000 * (1 - fg) + c[o010] * (fg - fb) + c[o011] * (fb - fr) + c111 * fr
            } else {  // g >= r >= b
                return c000 * (1 - fg) + c[o010] * (fg - fr) + c[o110] * (fr - fb) + c111 * fb
            }
        }
    }
}

/// The 1D shaper as raw memory for the pixel loop.
struct ShaperSampler: @unchecked Sendable {
    let table: LUTTable
    let m: Int
    let maxIndex: Float
    let lo: SIMD4<Float>
    let scale: SIMD4<Float>
    init(_ s: LUTShaper) {
        m = s.values.count
        table = LUTTable(count: m)
        for (i, v) in s.values.enumerated() { table.entries[i] = SIMD4(v, 1) }
        maxIndex = Float(m - 1)
        lo = SIMD4(s.domainMin, 0)
        scale = SIMD4(Float(m - 1) / (s.domainMax - s.domainMin), 0)
    }
    @inline(__always) func apply(_ p: SIMD4<Float>) -> SIMD4<Float> {
        let t = (p - lo) * scale
        var out = p
        for c in 0..<3 {
            let x = clampIndex(t[c], maxIndex)
            var i = Int(x)
            i = i < m - 2 ? i : m - 2
            let f = x - Float(i)
            let a = table.entries[i][c], b = table.entries[i + 1][c]
            out[c] = a + (b - a) * f
        }
        return out
    }
}

/// The encoding a LUT is looked up in, relative to the linear sRGB working space:
/// an optional primaries matrix, then a transfer function.
struct LUTEncoding: Sendable {
    enum Transfer: Sendable, Equatable { case linear, sRGB, gamma(Float), rec709 }
    var transfer: Transfer
    /// Working (linear sRGB) -> the space's linear RGB, and back; nil for sRGB primaries.
    var fromWorking: ColorMatrix?
    var toWorking: ColorMatrix?

    static let linear = LUTEncoding(transfer: .linear)
    static let sRGB = LUTEncoding(transfer: .sRGB)

    init(transfer: Transfer, fromWorking: ColorMatrix? = nil, toWorking: ColorMatrix? = nil) {
        self.transfer = transfer; self.fromWorking = fromWorking; self.toWorking = toWorking
    }
    init(_ space: LUTColorSpace) { self.init(transfer: space == .sRGB ? .sRGB : .linear) }
    /// The encoding of a `CGColorSpace` (CIColorCubeWithColorSpace): its primaries and curve.
    init(_ space: CGColorSpace) {
        let t: Transfer
        switch space.transfer {
        case .linear: t = .linear
        case .sRGB: t = .sRGB
        case .gamma(let g): t = .gamma(g)
        case .rec709: t = .rec709
        }
        self.init(transfer: t, fromWorking: space.fromSRGBMatrix.map { ColorMatrix(rgb: $0) }, toWorking: space.toSRGBMatrix.map { ColorMatrix(rgb: $0) })
    }

    @inline(__always) func encode(_ p: SIMD4<Float>) -> SIMD4<Float> {
        var v = p
        if let m = fromWorking { v = m.apply(SIMD4(v.x, v.y, v.z, 0)); v.w = p.w }
        switch transfer {
        case .linear: return v
        case .sRGB: return encodeSRGB(v)
        case .gamma(let g): return fastSignedPow(v, 1 / g)
        case .rec709:
            return SIMD4(Float(Rec709Curve.encode(Double(v.x))), Float(Rec709Curve.encode(Double(v.y))), Float(Rec709Curve.encode(Double(v.z))), v.w)
        }
    }
    @inline(__always) func decode(_ p: SIMD4<Float>) -> SIMD4<Float> {
        var v: SIMD4<Float>
        switch transfer {
        case .linear: v = p
        case .sRGB: v = decodeSRGB(p)
        case .gamma(let g): v = fastSignedPow(p, g)
        case .rec709:
            v = SIMD4(Float(Rec709Curve.decode(Double(p.x))), Float(Rec709Curve.decode(Double(p.y))), Float(Rec709Curve.decode(Double(p.z))), p.w)
        }
        if let m = toWorking { let w = v.w; v = m.apply(SIMD4(v.x, v.y, v.z, 0)); v.w = w }
        return v
    }
}

/// The sRGB curve both ways as 4096-cell tables (16 KiB each, L1-resident) with linear
/// interpolation: far cheaper per pixel than pow. Encoding is indexed by sqrt(linear), which
/// tames the curve's steep start (worst error under 1e-6, tested); decoding by the encoded
/// value (under 2e-7). Values outside 0...1 (extended range) and NaN take the exact curve.
final class SRGBCurveTables: @unchecked Sendable {
    static let shared = SRGBCurveTables()
    static let cells = 4096
    /// encode[i] = sRGB-encoded value of (i / cells)^2.
    let encode: UnsafeMutablePointer<Float>
    /// decode[i] = linear value of i / cells.
    let decode: UnsafeMutablePointer<Float>
    private init() {
        let n = SRGBCurveTables.cells
        encode = .allocate(capacity: n + 2)
        decode = .allocate(capacity: n + 2)
        for i in 0...(n + 1) {
            let u = Double(i) / Double(n), v = u * u
            encode[i] = Float(SRGBCurve.encode(v))
            decode[i] = Float(SRGBCurve.decode(u))
        }
    }
}

/// The table at the x, y, z lanes of `s` (each in 0...cells), interpolated; w is 0.
@inline(__always) func curveLookup(_ t: UnsafeMutablePointer<Float>, _ s: SIMD4<Float>) -> SIMD4<Float> {
    var i = roundToInt(s - 0.5)
    i = i.replacing(with: 0, where: i .< 0)
    let f = s - toFloat(i)
    let ix = Int(i.x), iy = Int(i.y), iz = Int(i.z)
    let a = SIMD4(t[ix], t[iy], t[iz], 0)
    let b = SIMD4(t[ix + 1], t[iy + 1], t[iz + 1], 0)
    return a + (b - a) * f
}

/// Linear -> sRGB-encoded (odd-symmetric for extended values) for the colour channels.
@inline(__always) func encodeSRGB(_ v: SIMD4<Float>, _ t: UnsafeMutablePointer<Float> = SRGBCurveTables.shared.encode) -> SIMD4<Float> {
    let c = SIMD4(v.x, v.y, v.z, 0)
    if all((c .>= 0) .& (c .<= 1)) {
        var r = curveLookup(t, c.squareRoot() * Float(SRGBCurveTables.cells))
        r.w = v.w
        return r
    }
    return SIMD4(linearToSRGB(v.x), linearToSRGB(v.y), linearToSRGB(v.z), v.w)
}
/// sRGB-encoded -> linear, the inverse of `encodeSRGB`.
@inline(__always) func decodeSRGB(_ v: SIMD4<Float>, _ t: UnsafeMutablePointer<Float> = SRGBCurveTables.shared.decode) -> SIMD4<Float> {
    let c = SIMD4(v.x, v.y, v.z, 0)
    if all((c .>= 0) .& (c .<= 1)) {
        var r = curveLookup(t, c * Float(SRGBCurveTables.cells))
        r.w = v.w
        return r
    }
    return SIMD4(sRGBToLinear(v.x), sRGBToLinear(v.y), sRGBToLinear(v.z), v.w)
}

/// A LUT applied to straight colour: encode, optional shaper, 3D lookup, mix with the
/// encoded input by `intensity`, decode. Alpha passes through, but for a Core Image cube
/// with alpha (`cubeAlpha`), whose premultiplied entries set it (see `runCubeAlpha`).
struct LUTStage: ColorStage {
    var preservesAlpha: Bool { !cubeAlpha }
    let sampler: LUTSampler
    let shaper: ShaperSampler?
    var encoding: LUTEncoding
    let interpolation: LUTInterpolation
    let intensity: Float
    let name: String
    /// The table's entries are premultiplied RGBA whose alpha is not all 1 (CIColorCube).
    let cubeAlpha: Bool

    init(sampler: LUTSampler, encoding: LUTEncoding, interpolation: LUTInterpolation, name: String, cubeAlpha: Bool = false) {
        self.sampler = sampler; shaper = nil; self.encoding = encoding
        self.interpolation = interpolation; intensity = 1; self.name = name
        self.cubeAlpha = cubeAlpha
    }

    init(lut: LUT, encoding: LUTEncoding? = nil, interpolation: LUTInterpolation, intensity: Float = 1, extrapolate: Bool = false, name: String = "lut") {
        sampler = LUTSampler(lut: lut, extrapolate: extrapolate)
        shaper = lut.shaper.map(ShaperSampler.init)
        self.encoding = encoding ?? LUTEncoding(lut.colorSpace)
        self.interpolation = interpolation
        self.intensity = intensity
        self.name = name
        cubeAlpha = false
    }

    var wantsUnpremultiplied: Bool { true }
    var label: String { "\(name) \(sampler.n)^3 \(interpolation.rawValue)" }

    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        // One small loop per variant, so each inlines its helpers completely.
        // (sRGB-encoded LUTs arrive here with a linear encoding between explicit conversion
        // stages: see `applyingLUTStage`.)
        if cubeAlpha {
            runCubeAlpha(row, count)
        } else if shaper == nil && encoding.fromWorking == nil && encoding.toWorking == nil && encoding.transfer == .linear {
            if interpolation == .tetrahedral { runDirectTetrahedral(row, count) } else { runDirectTrilinear(row, count) }
        } else if interpolation == .tetrahedral {
            runGenericTetrahedral(row, count)
        } else {
            runGenericTrilinear(row, count)
        }
    }

    /// Values already in the LUT's encoding (the sRGB conversions are separate stages, see
    /// `CIImage.applyingLUTStage`): the lookup and the intensity mix only.
    @inline(never) private func runDirectTetrahedral(_ row: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int) {
        let sampler = self.sampler
        if sampler.extrapolate {
            mixedLookups(row, count) { sampler.tetrahedral($0) }
            return
        }
        // Eight pixels per step in C with AVX2 where the CPU has it (the same bits).
        if LUTStage.vectorLoop(row, count, sampler, intensity) { return }
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 16) { corners in
            guard let t = corners.baseAddress else { return }
            sampler.tetrahedronCorners(into: t)
            mixedLookups(row, count) { sampler.tetrahedralSorted($0, t) }
        }
    }
    /// `cyan_lut_tetrahedral_rgbaf` over the row; false (nothing touched) without AVX2.
    @inline(__always) static func vectorLoop(_ row: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int, _ sampler: LUTSampler, _ intensity: Float) -> Bool {
        var lo = sampler.lo, scale = sampler.scale
        return withUnsafePointer(to: &lo) { l in
            withUnsafePointer(to: &scale) { s in
                cyan_lut_tetrahedral_rgbaf(
                    UnsafeMutableRawPointer(row).assumingMemoryBound(to: Float.self), count,
                    UnsafeRawPointer(sampler.table.entries).assumingMemoryBound(to: Float.self), Int32(sampler.n),
                    UnsafeRawPointer(l).assumingMemoryBound(to: Float.self), UnsafeRawPointer(s).assumingMemoryBound(to: Float.self), intensity) != 0
            }
        }
    }
    @inline(never) private func runDirectTrilinear(_ row: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int) {
        let sampler = self.sampler
        if sampler.extrapolate {
            mixedLookups(row, count) { sampler.trilinear($0) }
        } else {
            mixedLookups(row, count) { sampler.trilinearFast($0) }
        }
    }
    /// Each pixel through `lookup`, mixed with the input by `intensity`, alpha kept; inlined
    /// into each caller, so every variant is one closure-free loop.
    @inline(__always) private func mixedLookups(
        _ row: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int,
        _ lookup: (SIMD4<Float>) -> SIMD4<Float>
    ) {
        let k = intensity
        let alphaLane: SIMDMask<SIMD4<Int32>> = [false, false, false, true]
        for i in 0..<count {
            let p = row[i]
            var c = lookup(p)
            if k != 1 { c = p + (c - p) * k }
            row[i] = c.replacing(with: p, where: alphaLane)
        }
    }
    @inline(never) private func runGenericTetrahedral(_ row: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int) {
        for i in 0..<count { row[i] = pixel(row[i], tetrahedral: true) }
    }
    @inline(never) private func runGenericTrilinear(_ row: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int) {
        for i in 0..<count { row[i] = pixel(row[i], tetrahedral: false) }
    }

    /// Core Image's cube with alpha: the entries are premultiplied RGBA, interpolated as
    /// they are; the result's alpha is the pixel's times the cube's, its colour the cube's
    /// divided by the cube's alpha (the renderer premultiplies again).
    @inline(never) private func runCubeAlpha(_ row: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int) {
        for i in 0..<count {
            let p = row[i]
            let e = encoding.encode(p)
            let c = interpolation == .tetrahedral ? sampler.tetrahedral(e) : sampler.trilinear(e)
            let a = clamp01(c.w)
            let inv: Float = a > 0 ? 1 / a : 0
            var out = encoding.decode(SIMD4(c.x * inv, c.y * inv, c.z * inv, 1))
            out.w = p.w * a
            row[i] = out
        }
    }

    @inline(__always) func pixel(_ p: SIMD4<Float>, tetrahedral: Bool) -> SIMD4<Float> {
        let e = encoding.encode(p)
        let s = shaper?.apply(e) ?? e
        var c = tetrahedral ? sampler.tetrahedral(s) : sampler.trilinear(s)
        if intensity != 1 { c = e + (c - e) * intensity }
        var out = encoding.decode(c)
        out.w = p.w
        return out
    }
}

/// Two LUTs mixed by a mask's luminance (CIColorCubesMixedWithMask): 0 -> cube 0, 1 -> cube 1.
struct MaskedLUTStage: ColorStage {
    var preservesAlpha: Bool { !cubeAlpha }
    let cube0: LUTSampler
    let cube1: LUTSampler
    let encoding: LUTEncoding
    /// The cubes are premultiplied RGBA whose alpha is not all 1: the mix sets alpha as
    /// `LUTStage`'s cube alpha does.
    var cubeAlpha = false
    var wantsUnpremultiplied: Bool { true }
    var extraInputCount: Int { 1 }
    var label: String { "color cubes mixed by mask \(cube0.n)^3" }

    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let mask = extra[0]
        let w = lumaWeights
        for i in 0..<count {
            let p = row[i]
            let m = mask[i]
            let k = clamp01(m.x * w.x + m.y * w.y + m.z * w.z)
            let e = encoding.encode(p)
            let a = cube0.trilinear(e), b = cube1.trilinear(e)
            let c = a + (b - a) * k
            if cubeAlpha {
                let ca = clamp01(c.w)
                let inv: Float = ca > 0 ? 1 / ca : 0
                var out = encoding.decode(SIMD4(c.x * inv, c.y * inv, c.z * inv, 1))
                out.w = p.w * ca
                row[i] = out
            } else {
                var out = encoding.decode(c)
                out.w = p.w
                row[i] = out
            }
        }
    }
}

extension CIImage {
    /// The image with `lut` applied (a fused colour stage): working colour is converted to
    /// the LUT's encoding (`lut.colorSpace`), looked up, mixed with the input by `intensity`
    /// (in that encoding) and converted back.
    public func applyingLUT(_ lut: LUT, interpolation: LUTInterpolation = .tetrahedral, intensity: Float = 1) -> CIImage {
        let k = intensity.isFinite ? min(max(intensity, 0), 1) : 1
        if k == 0 { return self }
        return applyingLUTStage(LUTStage(lut: lut, interpolation: interpolation, intensity: k, name: lut.title.map { "lut \"\($0)\"" } ?? "lut"))
    }

    /// A LUT stage; one authored on sRGB-encoded values (no shaper, sRGB primaries) runs
    /// between explicit sRGB conversions, which cancel between consecutive LUTs and fold
    /// into 8-bit reads and writes.
    func applyingLUTStage(_ stage: LUTStage) -> CIImage {
        guard stage.encoding.transfer == .sRGB, stage.encoding.fromWorking == nil, stage.encoding.toWorking == nil else {
            return applying(stage)
        }
        var inner = stage
        inner.encoding = .linear
        return applyingInSRGB(inner)
    }
}
