import Foundation

/// A float type the transfer curves are evaluated in: `Float` in row loops, `Double` where a
/// table is built.
protocol TransferScalar: BinaryFloatingPoint {
    /// `base` raised to `exponent` (libm's `powf` or `pow`).
    static func power(_ base: Self, _ exponent: Self) -> Self
}
extension Float: TransferScalar {
    @inline(__always) static func power(_ base: Float, _ exponent: Float) -> Float { powf(base, exponent) }
}
extension Double: TransferScalar {
    @inline(__always) static func power(_ base: Double, _ exponent: Double) -> Double { pow(base, exponent) }
}

/// The sRGB transfer curve (IEC 61966-2-1), the one place it is written: the engine's
/// conversions, its tables (8/16-bit reads and writes, LUT curves, the exact 16-bit encoder)
/// and the vectorised row stage all take their constants and formulas from here.
enum SRGBCurve {
    // Computed, not stored: constants the compiler folds into every loop that uses them.
    /// The linear segment's slope.
    static var slope: Double { 12.92 }
    /// The power segment's scale: `scale * v^(1/exponent) - offset`.
    static var scale: Double { 1.055 }
    /// The power segment's offset.
    static var offset: Double { 0.055 }
    /// The power segment's exponent.
    static var exponent: Double { 2.4 }
    /// Where the segments meet, as an encoded value.
    static var encodedKnee: Double { 0.04045 }
    /// Where the segments meet, as a linear value.
    static var linearKnee: Double { 0.0031308 }

    /// Encoded -> linear, for non-negative `e`.
    @inline(__always) static func decode<T: TransferScalar>(_ e: T) -> T {
        e <= T(encodedKnee) ? e / T(slope) : T.power((e + T(offset)) / T(scale), T(exponent))
    }
    /// Linear -> encoded, for non-negative `v`.
    @inline(__always) static func encode<T: TransferScalar>(_ v: T) -> T {
        v <= T(linearKnee) ? v * T(slope) : T(scale) * T.power(v, 1 / T(exponent)) - T(offset)
    }
}

/// Lookup tables for the colour boundaries: sources decode to linear through a table per
/// sample value, 8/16-bit destinations encode through a table indexed by the linear value
/// (by its square root, so shadows keep their precision).
final class TransferTables: @unchecked Sendable {
    /// 8-bit code -> linear.
    let decode8: UnsafeMutablePointer<Float>
    /// 16-bit code -> linear (made on first use: 8-bit work never waits for it).
    var decode16: UnsafeMutablePointer<Float> { deep.decode16 }
    /// round(sqrt(linear) * 65535) -> 8-bit code.
    let encode8: UnsafeMutablePointer<UInt8>
    /// round(sqrt(linear) * 65535) -> 16-bit code: within a code or two, so only the guess
    /// that `Exact16Encoder` corrects (16-bit writes are exact). Made on first use.
    var encode16: UnsafeMutablePointer<UInt16> { deep.encode16 }

    private let decode: @Sendable (Float) -> Float
    private let encode: @Sendable (Float) -> Float
    private struct DeepTables {
        let decode16: UnsafeMutablePointer<Float>
        let encode16: UnsafeMutablePointer<UInt16>
    }
    private let deepTables = OnceCell<DeepTables>()
    /// The 16-bit tables: 131072 curve evaluations, about a millisecond that a command
    /// reading and writing 8 bits would otherwise spend before its first row.
    private var deep: DeepTables {
        deepTables.value {
            let d = UnsafeMutablePointer<Float>.allocate(capacity: 65536)
            for i in 0..<65536 { d[i] = decode(Float(i) / 65535) }
            let e = UnsafeMutablePointer<UInt16>.allocate(capacity: 65536)
            for i in 0..<65536 {
                let s = Float(i) / 65535
                e[i] = UInt16(min(max(encode(s * s) * 65535 + 0.5, 0), 65535))
            }
            return DeepTables(decode16: d, encode16: e)
        }
    }

    init(decode: @escaping @Sendable (Float) -> Float, encode: @escaping @Sendable (Float) -> Float) {
        self.decode = decode
        self.encode = encode
        decode8 = .allocate(capacity: 256)
        for i in 0..<256 { decode8[i] = decode(Float(i) / 255) }
        encode8 = .allocate(capacity: 65536)
        for i in 0..<65536 {
            let s = Float(i) / 65535
            encode8[i] = UInt8(min(max(encode(s * s) * 255 + 0.5, 0), 255))
        }
    }
    // Tables live for the process: freeing them is never needed.

    static let sRGB = TransferTables(decode: sRGBToLinear, encode: linearToSRGB)
    static let linear = TransferTables(decode: { $0 }, encode: { $0 })
    static let gamma22 = TransferTables(decode: { powf($0, 2.2) }, encode: { powf($0, 1 / 2.2) })
    /// Adobe RGB (1998)'s gamma, 563/256.
    static let adobeGamma = TransferTables(decode: { powf($0, 563 / 256) }, encode: { powf($0, 256 / 563) })

    static func forSpace(_ space: CGColorSpace?) -> TransferTables {
        guard let space else { return .linear }
        switch space.transfer {
        case .sRGB: return .sRGB
        case .linear: return .linear
        case .gamma(let g) where g == 2.2: return .gamma22
        case .gamma(let g) where g == 563 / 256: return .adobeGamma
        case .gamma, .rec709: return others.value(for: space.transfer) { TransferTables(decode: { space.decode($0) }, encode: { space.encode($0) }) }
        }
    }
    /// Tables of the other curves (a power other than 2.2, BT.709's), made on first use.
    private static let others = RecentTables<CGColorSpace.Transfer, TransferTables>(capacity: 16)

    @inline(__always) func enc8(_ v: Float) -> UInt8 {
        encode8[Int(clamp01(v).squareRoot() * 65535 + 0.5)]
    }
}

/// Exact linear -> 16-bit encoding for a transfer function: the code `c` whose interval
/// `decode((c - 0.5) / 65535) <= v < decode((c + 0.5) / 65535)` holds `v` (clamped to 0...1),
/// i.e. `65535 * encode(v)` rounded half up with the curve evaluated exactly, so every value
/// a 16-bit source decodes to (`TransferTables.decode16`) encodes back to its own code.
///
/// `TransferTables.encode16` alone is off by one for about 4% of codes: its 65536-entry
/// table is indexed by `sqrt(v)`, about one code per step near white. Here that table only
/// guesses, and the guess is corrected against the code boundaries (a float table, each
/// boundary computed in double and rounded up to the nearest float). 8-bit writes keep their
/// own table (`encode8`): at 8 bits it is exact already.
final class Exact16Encoder: @unchecked Sendable {
    /// The guess: round(sqrt(v) * 65535) -> code, off by at most a code or two.
    private let guess: UnsafeMutablePointer<UInt16>
    /// lower[c]: the least float that encodes to c or above (lower[0] = 0, lower[65536] = inf).
    private let lower: UnsafeMutablePointer<Float>

    init(tables: TransferTables, decode: (Double) -> Double) {
        guess = tables.encode16
        lower = .allocate(capacity: 65537)
        lower[0] = 0
        for c in 1..<65536 {
            let t = decode((Double(c) - 0.5) / 65535)
            var f = Float(t)
            if Double(f) < t { f = f.nextUp }
            lower[c] = f
        }
        lower[65536] = .infinity
    }
    // Tables live for the process, as `TransferTables` do.

    static let sRGB = Exact16Encoder(tables: .sRGB) { SRGBCurve.decode($0) }
    static let linear = Exact16Encoder(tables: .linear) { $0 }
    static let gamma22 = Exact16Encoder(tables: .gamma22) { pow($0, 2.2) }

    static func forSpace(_ space: CGColorSpace?) -> Exact16Encoder {
        guard let space else { return .linear }
        switch space.transfer {
        case .sRGB: return .sRGB
        case .linear: return .linear
        case .gamma(let g) where g == 2.2: return .gamma22
        case .gamma, .rec709:
            return others.value(for: space.transfer) {
                Exact16Encoder(tables: TransferTables.forSpace(space)) { space.decodeDouble($0) }
            }
        }
    }
    /// Encoders of the other curves, made on first use.
    private static let others = RecentTables<CGColorSpace.Transfer, Exact16Encoder>(capacity: 16)

    /// The 16-bit code of linear `v` (NaN and values below 0 give 0, above 1 give 65535).
    @inline(__always) func encode(_ v: Float) -> UInt16 {
        let x = clamp01(v)
        var c = Int(guess[Int(x.squareRoot() * 65535 + 0.5)])
        while x < lower[c] { c -= 1 }
        while x >= lower[c + 1] { c += 1 }
        return UInt16(truncatingIfNeeded: c)
    }
}
