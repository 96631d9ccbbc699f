import Foundation

/// Vectorised log2/exp2/pow for pixel loops: libm's `powf` is a call per lane (about 20
/// cycles each) and dominated colour chains with a gamma. These stay in SIMD registers and
/// use no checked float->int conversions. Worst relative error of `fastSignedPow` under 5e-7
/// over the float range (tested against `pow` in FastMathTests), far below 16-bit
/// quantisation. `PowerTable` is a cheaper x^p for a fixed p (a gamma stage).

/// 1.5 * 2^23: adding it leaves round(x) in the low mantissa bits (|x| < 2^22).
@usableFromInline let roundingMagic: Float = 12_582_912

@inline(__always) func roundToInt(_ y: SIMD4<Float>) -> SIMD4<Int32> {
    unsafeBitCast(y + roundingMagic, to: SIMD4<Int32>.self) &- 0x4B40_0000
}
@inline(__always) func toFloat(_ n: SIMD4<Int32>) -> SIMD4<Float> {
    unsafeBitCast(n &+ 0x4B40_0000, to: SIMD4<Float>.self) - roundingMagic
}
@inline(__always) func floatBits(_ x: SIMD4<Float>) -> SIMD4<Int32> { unsafeBitCast(x, to: SIMD4<Int32>.self) }
@inline(__always) func bitsFloat(_ x: SIMD4<Int32>) -> SIMD4<Float> { unsafeBitCast(x, to: SIMD4<Float>.self) }

/// `value` with its alpha lane taken from `alpha`, with bit masks: LLVM keeps this in one
/// register (writing `.w`, or `.replacing` with a mask, can split the loop into scalar code).
@inline(__always) func keepingAlpha(_ value: SIMD4<Float>, of alpha: SIMD4<Float>) -> SIMD4<Float> {
    let lane = SIMD4<Int32>(0, 0, 0, -1)
    return bitsFloat((floatBits(value) & ~lane) | (floatBits(alpha) & lane))
}

/// log2(m) for m in [sqrt(1/2), sqrt(2)): 2/ln2 * atanh(t), t = (m-1)/(m+1) in +-0.1716,
/// as t * g(t^2) with g a degree-2 minimax polynomial. Absolute error 3e-8.
@inline(__always) func log2Mantissa(_ m: SIMD4<Float>) -> SIMD4<Float> {
    let t = (m - 1) / (m + 1)
    let s = t * t
    return t * ((s * 0.598973887036259 + 0.96147080889907732) * s + 2.8853912893694155)
}

/// |x| = 2^k * m with k an integer (as a float) and m in [sqrt(1/2), sqrt(2)), from the bits
/// alone. Zero and denormals give k = -127 or -126, NaN and infinity k = 128 or 129.
@inline(__always) func splitExponent(_ x: SIMD4<Float>) -> (k: SIMD4<Float>, m: SIMD4<Float>) {
    let ix = (floatBits(x) & 0x7FFF_FFFF) &- 0x3F35_04F3  // bits of sqrt(1/2), rounded down
    return (toFloat(ix &>> 23), bitsFloat((ix & 0x007F_FFFF) &+ 0x3F35_04F3))
}

/// log2(x) for x > 0 (finite, normal): k + log2(m). The float result rounds to half an ulp
/// (3.8e-6 near 128); within [0.5, 1.5] the error is under 1e-7. Branch- and mask-free so LLVM
/// keeps all four lanes in one register.
@inline(__always) func fastLog2(_ x: SIMD4<Float>) -> SIMD4<Float> {
    let (k, m) = splitExponent(x)
    return k + log2Mantissa(m)
}

/// 2^(hi + lo), with `hi - round(hi + lo)` exact (hi is an integer or has few significant bits)
/// so the fraction keeps lo's precision. Saturates to 0 below about 2^-126.5 and to 2^127.5
/// above (never infinity or NaN for finite input). hi + lo = n + f, f in [-0.5, 0.5], 2^f =
/// 1 + f * Q(f) with Q a degree-4 minimax polynomial: relative error 9.2e-8, and 2^n exact
/// (so pow(1, p) is exactly 1).
@inline(__always) func exp2Split(_ hi: SIMD4<Float>, _ lo: SIMD4<Float>) -> SIMD4<Float> {
    // Constant bounds compile to maxps/minps. n = -127 makes the scale 0.0 (underflow to 0).
    let y = hi + lo
    var c = y.replacing(with: -127, where: y .< -127)
    c = c.replacing(with: 127.49, where: c .> 127.49)
    let r = c + roundingMagic
    var f = (hi - (r - roundingMagic)) + lo
    f = f.replacing(with: -0.5, where: f .< -0.5)  // only when clamped above: keeps q finite
    f = f.replacing(with: 0.5, where: f .> 0.5)
    var q: SIMD4<Float> = f * 0.0013264727140072013 + 0.0096715126399564552
    q = q * f + 0.055507337434700853
    q = q * f + 0.24022242085376709
    q = q * f + 0.69314697759899204
    q = q * f + 1
    let scale = bitsFloat((floatBits(r) &- (0x4B40_0000 - 127)) &<< 23)  // 2^n
    return q * scale
}

/// 2^y (see `exp2Split`).
@inline(__always) func fastExp2(_ y: SIMD4<Float>) -> SIMD4<Float> { exp2Split(y, .zero) }

/// pow(|x|, p) with the sign of x kept (Core Image's extended-range convention), for
/// |p| < 30000. |x| at or below 1e-30 (zero, denormals) and NaN give 0 (with x's sign);
/// infinity gives 2^(128 p), saturated at 2^127.5. Results below about 2^-126 flush to 0.
/// p * log2|x| is formed as pHi * k (exact: pHi is p's top 12 bits) plus a small rest, so its
/// rounding does not grow with k: relative error under 5e-7 over the whole float range
/// (tested against `pow`) for |p| <= 5, growing in proportion to |p| beyond (4e-6 at p = 40).
@inline(__always) func fastSignedPow(_ x: SIMD4<Float>, _ p: Float) -> SIMD4<Float> {
    let bits = floatBits(x)
    let ai = bits & 0x7FFF_FFFF
    // All ones where 1e-30 < |x| <= infinity (integer order of non-negative floats' bits).
    let keep = ((0x0DA2_4260 &- ai) & (ai &- 0x7F80_0001)) &>> 31
    let pHi = Float(bitPattern: p.bitPattern & 0xFFFF_F000), pLo = p - pHi
    let (k, m) = splitExponent(x)
    let r = floatBits(exp2Split(k * pHi, k * pLo + log2Mantissa(m) * p)) & keep
    return bitsFloat(r | (bits & Int32(bitPattern: 0x8000_0000)))
}

/// x^p for a fixed p > 0 by table: one cell per 2^-k of each binade of the float range
/// [0, 256), indexed by the float's own bits (exponent and top k mantissa bits), holding a
/// quadratic in the position `u` within the cell. The quadratic interpolates x^p at u = 0 (so
/// cell starts, 1 and powers of two among them, come out correctly rounded) and at u = 0.464
/// and 0.928 (which minimise the interpolation error given the node at 0), so over a cell of
/// relative width d the relative error is about |p(p-1)(p-2)| d^3 / 155; k is the smallest
/// (3...8) that keeps this under 1e-7, and with float rounding the worst relative error is
/// about 3e-7 (tested against `pow` for several
/// powers over the whole range). Zero and denormals give 0. Callers index it by |x| and put
/// the sign back, as `fastSignedPow`; magnitudes it does not cover (256 and above, infinity,
/// NaN) are for them to send to `fastSignedPow`.
final class PowerTable: @unchecked Sendable {
    let power: Float
    /// Mantissa bits per binade in the index.
    let k: Int
    /// Number of cells: an index (bits >> (23 - k)) at or above this is outside the table.
    let count: Int
    /// (a, b, c, 0): x^p = a + u * (b + u * c), u in [0, 1) the position within the cell.
    /// Lane 3 is always 0 (`PowerTableReader` relies on it).
    let cells: UnsafeMutablePointer<SIMD4<Float>>

    /// Nil when p is not positive and finite or needs a finer table than k = 8 (p above about 8).
    init?(power p: Float) {
        guard p > 0, p.isFinite else { return nil }
        let pd = Double(p)
        let cubic = abs(pd * (pd - 1) * (pd - 2))
        var k = 3
        while k <= 8 && cubic * pow(2, -3 * Double(k)) / 155 > 1e-7 { k += 1 }
        guard k <= 8 else { return nil }
        self.power = p
        self.k = k
        let perBinade = 1 << k
        count = 135 << k  // exponent fields 0...134: x < 2^8
        cells = .allocate(capacity: count)
        // The mantissa part m^p at the nodes once; each binade scales it by 2^(e p).
        let (u0, u1, u2) = (0.0, 0.464, 0.928)
        var mantissa: [(a: Double, b: Double, c: Double)] = []
        for t in 0..<perBinade {
            let m0 = 1 + Double(t) / Double(perBinade), w = 1 / Double(perBinade)
            let f0 = pow(m0 + u0 * w, pd), f1 = pow(m0 + u1 * w, pd), f2 = pow(m0 + u2 * w, pd)
            // Newton's divided differences, expanded to a + b u + c u^2 (u0 = 0: a = f0 exactly).
            let d01 = (f1 - f0) / (u1 - u0), d12 = (f2 - f1) / (u2 - u1), d012 = (d12 - d01) / (u2 - u0)
            mantissa.append((f0, d01 - d012 * u1, d012))
        }
        for j in 0..<count {
            let e = j >> k
            if e == 0 { cells[j] = .zero; continue }  // zero and denormals
            let s = pow(2, Double(e - 127) * pd), q = mantissa[j & (perBinade - 1)]
            cells[j] = SIMD4(Float(q.a * s), Float(q.b * s), Float(q.c * s), 0)
        }
    }
    deinit { cells.deallocate() }

    /// Tables by power, a few recent ones kept: a filter graph rebuilt per render reuses them.
    static func cached(power p: Float) -> PowerTable? {
        PowerTables.recent.value(for: p) { PowerTable(power: p) }
    }
}

/// A table's k as a type, so a row loop specialised for it has constant shifts and masks
/// (measured 20% faster than with k in a register: no shift-count moves or stack reloads).
protocol PowerTableCellBits { static var k: UInt32 { get } }
enum CellBits3: PowerTableCellBits { static var k: UInt32 { 3 } }
enum CellBits4: PowerTableCellBits { static var k: UInt32 { 4 } }
enum CellBits5: PowerTableCellBits { static var k: UInt32 { 5 } }
enum CellBits6: PowerTableCellBits { static var k: UInt32 { 6 } }
enum CellBits7: PowerTableCellBits { static var k: UInt32 { 7 } }
enum CellBits8: PowerTableCellBits { static var k: UInt32 { 8 } }

/// A row loop over a `PowerTable`, run by `PowerTable.run` with a reader for its k.
protocol PowerTableRowLoop { func run<K: PowerTableCellBits>(_ reader: PowerTableReader<K>) }

extension PowerTable {
    /// Runs `loop` with the reader specialised for this table's k.
    func run<L: PowerTableRowLoop>(_ loop: L) {
        switch k {
        case 3: loop.run(PowerTableReader<CellBits3>(self))
        case 4: loop.run(PowerTableReader<CellBits4>(self))
        case 5: loop.run(PowerTableReader<CellBits5>(self))
        case 6: loop.run(PowerTableReader<CellBits6>(self))
        case 7: loop.run(PowerTableReader<CellBits7>(self))
        default: loop.run(PowerTableReader<CellBits8>(self))
        }
    }
}

/// How a row loop reads a `PowerTable`: byte offsets of the cells of the three colour lanes,
/// whether they are all in the table, and |x|^p from them (the caller puts the sign back).
struct PowerTableReader<K: PowerTableCellBits> {
    let cells: UnsafeRawPointer
    /// Byte offset of the end of the table.
    let end: UInt32

    init(_ t: PowerTable) {
        precondition(t.k == Int(K.k))
        cells = UnsafeRawPointer(t.cells)
        end = UInt32(t.count * MemoryLayout<SIMD4<Float>>.stride)
    }

    /// Byte offsets of the cells of |x| for each lane of `bits`: exponent and top k mantissa
    /// bits, times 16.
    @inline(__always) func offsets(_ bits: SIMD4<UInt32>) -> SIMD4<UInt32> {
        ((bits & 0x7FFF_FFFF) &>> (23 - K.k)) &<< 4
    }
    /// Whether the x, y, z lanes' cells are in the table (|x| < 256: not infinity or NaN).
    @inline(__always) func covers(_ j: SIMD4<UInt32>) -> Bool { j.x < end && j.y < end && j.z < end }

    /// |x|^p in the x, y, z lanes and `w` in lane 3 (it rides in `a`, where `b` and `c` are 0),
    /// for `bits` whose cells `j` are covered. The zeros are the cells' own lane 3, not
    /// literals: LLVM then builds the three vectors with 7 shuffles instead of 10.
    @inline(__always) func magnitudePower(_ bits: SIMD4<UInt32>, _ j: SIMD4<UInt32>, w: Float) -> SIMD4<Float> {
        // Position in the cell: the remaining mantissa bits as a float in [0, 1), exactly
        // ((1 + low 2^-23) - 1) 2^k.
        let low: UInt32 = (1 << (23 - K.k)) - 1
        let u = (unsafeBitCast((bits & low) | 0x3F80_0000, to: SIMD4<Float>.self) - 1) * Float(1 << K.k)
        let r = cells.load(fromByteOffset: Int(j.x), as: SIMD4<Float>.self)
        let g = cells.load(fromByteOffset: Int(j.y), as: SIMD4<Float>.self)
        let b = cells.load(fromByteOffset: Int(j.z), as: SIMD4<Float>.self)
        let ca = SIMD4(r.x, g.x, b.x, w), cb = SIMD4(r.y, g.y, b.y, b.w), cc = SIMD4(r.z, g.z, b.z, b.w)
        return ca + u * (cb + u * cc)
    }
}

/// The power tables most recently built, by power.
private enum PowerTables {
    static let recent = RecentTables<Float, PowerTable?>(capacity: 8)
}
