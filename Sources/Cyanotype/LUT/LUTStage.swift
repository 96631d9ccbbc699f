// Applying a LUT to pixels: the interpolation kernels and the colour stage that fuses with
// its neighbours. Hot loops follow NOTES-swift-linux.md §2: scalar min/max, `Int(x)` for
// the index, raw pointers into the table, no closures per pixel.

/// The 3D lookup of one LUT: table pointer, grid size and the domain -> grid mapping.
struct LUTSampler: @unchecked Sendable {
    let table: LUTTable
    let n: Int
    let maxIndex: Float
    let lo: SIMD4<Float>
    let scale: SIMD4<Float>
    let extrapolate: Bool

    init(lut: LUT, extrapolate: Bool) {
        self.init(table: lut.table, size: lut.size, domainMin: lut.domainMin, domainMax: lut.domainMax, extrapolate: extrapolate)
    }
    init(table: LUTTable, size: Int, domainMin: SIMD3<Float> = .zero, domainMax: SIMD3<Float> = .one, extrapolate: Bool) {
        self.table = table; n = size; maxIndex = Float(size - 1)
        lo = SIMD4(domainMin, 0)
        scale = SIMD4(Float(size - 1) / (domainMax - domainMin), 0)
        self.extrapolate = extrapolate
    }

    /// Cell index and fraction along one axis. Clamped: the fraction stays in 0...1.
    /// Extrapolating: the edge cell is extended linearly (finite input only).
    @inline(__always) func axis(_ t: Float) -> (Int, Float) {
        let c = clampIndex(t, maxIndex)
        var i = Int(c)
        i = i < n - 2 ? i : n - 2
        if extrapolate && t.isFinite { return (i, t - Float(i)) }
        return (i, c - Float(i))
    }

    @inline(__always) func trilinear(_ p: SIMD4<Float>) -> SIMD4<Float> {
        let t = (p - lo) * scale
        let (ir, fr) = axis(t.x), (ig, fg) = axis(t.y), (ib, fb) = axis(t.z)
        let n2 = n * n
        let c = table.entries + (ir + n * ig + n2 * ib)
        let c000 = c[0], c100 = c[1], c010 = c[n], c110 = c[n + 1]
        let c001 = c[n2], c101 = c[n2 + 1], c011 = c[n2 + n], c111 = c[n2 + n + 1]
        let c00 = c000 + (c100 - c000) * fr, c10 = c010 + (c110 - c010) * fr
        let c01 = c001 + (c101 - c001) * fr, c11 = c011 + (c111 - c011) * fr
        let c0 = c00 + (c10 - c00) * fg, c1 = c01 + (c11 - c01) * fg
        return c0 + (c1 - c0) * fb
    }

    @inline(__always) func tetrahedral(_ p: SIMD4<Float>) -> SIMD4<Float> {
        let t = (p - lo) * scale
        let (ir, fr) = axis(t.x), (ig, fg) = axis(t.y), (ib, fb) = axis(t.z)
        let n2 = n * n
        let c = table.entries + (ir + n * ig + n2 * ib)
        let c000 = c[0], c111 = c[n2 + n + 1]
        if fr > fg {
            if fg > fb {        // r > g > b
                let c100 = c[1], c110 = c[n + 1]
                return c000 * (1 - fr) + c100 * (fr - fg) + c110 * (fg - fb) + c111 * fb
            } else if fr > fb { // r > b >= g
                let c100 = c[1], c101 = c[n2 + 1]
                return c000 * (1 - fr) + c100 * (fr - fb) + c101 * (fb - fg) + c111 * fg
            } else {            // b >= r > g
                let c001 = c[n2], c101 = c[n2 + 1]
                return c000 * (1 - fb) + c001 * (fb - fr) + c101 * (fr - fg) + c111 * fg
            }
        } else {
            if fb > fg {        // b > g >= r
                let c001 = c[n2], c011 = c[n2 + n]
                return c000 * (1 - fb) + c001 * (fb - fg) + c011 * (fg - fr) + c111 * fr
            } else if fb > fr { // g >= b > r
                let c010 = c[n], c011 = c[n2 + n]
                return c000 * (1 - fg) + c010 * (fg - fb) + c011 * (fb - fr) + c111 * fr
            } else {            // g >= r >= b
                let c010 = c[n], c110 = c[n + 1]
                return c000 * (1 - fg) + c010 * (fg - fr) + c110 * (fr - fb) + c111 * fb
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
    enum Transfer: Sendable, Equatable { case linear, sRGB, gamma(Float) }
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
        }
    }
    @inline(__always) func decode(_ p: SIMD4<Float>) -> SIMD4<Float> {
        var v: SIMD4<Float>
        switch transfer {
        case .linear: v = p
        case .sRGB: v = decodeSRGB(p)
        case .gamma(let g): v = fastSignedPow(p, g)
        }
        if let m = toWorking { let w = v.w; v = m.apply(SIMD4(v.x, v.y, v.z, 0)); v.w = w }
        return v
    }
}

/// Linear -> sRGB-encoded in SIMD (odd-symmetric for extended values), via `fastSignedPow`;
/// about 1e-6 relative error against the exact curve.
@inline(__always) func encodeSRGB(_ v: SIMD4<Float>) -> SIMD4<Float> {
    let bits = unsafeBitCast(v, to: SIMD4<UInt32>.self)
    let a = unsafeBitCast(bits & 0x7FFF_FFFF, to: SIMD4<Float>.self)
    let curve = fastSignedPow(a, 1 / 2.4) * 1.055 - 0.055
    let e = curve.replacing(with: a * 12.92, where: a .<= 0.0031308)
    return unsafeBitCast(unsafeBitCast(e, to: SIMD4<UInt32>.self) | (bits & 0x8000_0000), to: SIMD4<Float>.self)
}
/// sRGB-encoded -> linear in SIMD, the inverse of `encodeSRGB`.
@inline(__always) func decodeSRGB(_ v: SIMD4<Float>) -> SIMD4<Float> {
    let bits = unsafeBitCast(v, to: SIMD4<UInt32>.self)
    let a = unsafeBitCast(bits & 0x7FFF_FFFF, to: SIMD4<Float>.self)
    let curve = fastSignedPow((a + 0.055) * (1 / 1.055), 2.4)
    let l = curve.replacing(with: a * (1 / 12.92), where: a .<= 0.04045)
    return unsafeBitCast(unsafeBitCast(l, to: SIMD4<UInt32>.self) | (bits & 0x8000_0000), to: SIMD4<Float>.self)
}

/// A LUT applied to straight colour: encode, optional shaper, 3D lookup, mix with the
/// encoded input by `intensity`, decode. Alpha passes through.
struct LUTStage: ColorStage {
    let sampler: LUTSampler
    let shaper: ShaperSampler?
    let encoding: LUTEncoding
    let interpolation: LUTInterpolation
    let intensity: Float
    let name: String

    init(sampler: LUTSampler, encoding: LUTEncoding, interpolation: LUTInterpolation, name: String) {
        self.sampler = sampler; shaper = nil; self.encoding = encoding
        self.interpolation = interpolation; intensity = 1; self.name = name
    }

    init(lut: LUT, encoding: LUTEncoding? = nil, interpolation: LUTInterpolation, intensity: Float = 1, extrapolate: Bool = false, name: String = "lut") {
        sampler = LUTSampler(lut: lut, extrapolate: extrapolate)
        shaper = lut.shaper.map(ShaperSampler.init)
        self.encoding = encoding ?? LUTEncoding(lut.colorSpace)
        self.interpolation = interpolation
        self.intensity = intensity
        self.name = name
    }

    var wantsUnpremultiplied: Bool { true }
    var label: String { "\(name) \(sampler.n)^3 \(interpolation.rawValue)" }

    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        if interpolation == .tetrahedral {
            for i in 0..<count { row[i] = pixel(row[i], tetrahedral: true) }
        } else {
            for i in 0..<count { row[i] = pixel(row[i], tetrahedral: false) }
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
    let cube0: LUTSampler
    let cube1: LUTSampler
    let encoding: LUTEncoding
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
            var out = encoding.decode(a + (b - a) * k)
            out.w = p.w
            row[i] = out
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
        return applying(LUTStage(lut: lut, interpolation: interpolation, intensity: k, name: lut.title.map { "lut \"\($0)\"" } ?? "lut"))
    }
}
