import Cyanotype

/// The sRGB transfer functions (IEC 61966-2-1, the exact piecewise formulas) as tables built
/// once, read at the nearest entry: one load instead of a `pow`. With 32768 intervals the
/// error is below 2e-4 (the steepest slope, 12.92, times half a step), 0.05 of an 8-bit level.
///
/// Cyanotype keeps its own transfer functions internal, so Instafilter carries these.
final class SRGBTransfer: @unchecked Sendable {
    static let shared = SRGBTransfer()
    /// Intervals per table; entry `size + 1` repeats the last so `i + 1` is always valid.
    static let size = 32768
    /// Linear [0, 1] -> sRGB-encoded.
    let encodeTable: UnsafeMutablePointer<Float>
    /// sRGB-encoded [0, 1] -> linear.
    let decodeTable: UnsafeMutablePointer<Float>

    private init() {
        let n = SRGBTransfer.size
        encodeTable = .allocate(capacity: n + 2)
        decodeTable = .allocate(capacity: n + 2)
        for i in 0...n {
            let x = Double(i) / Double(n)
            encodeTable[i] = Float(SRGBTransfer.encode(x))
            decodeTable[i] = Float(SRGBTransfer.decode(x))
        }
        encodeTable[n + 1] = encodeTable[n]
        decodeTable[n + 1] = decodeTable[n]
    }

    /// Exact sRGB encoding of a linear value in [0, 1].
    static func encode(_ x: Double) -> Double {
        x <= 0.0031308 ? 12.92 * x : 1.055 * pow(x, 1 / 2.4) - 0.055
    }
    /// Exact sRGB decoding of an encoded value in [0, 1].
    static func decode(_ v: Double) -> Double {
        v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }
}

/// Nearest-entry table lookup; `v` is clamped to [0, 1] first (NaN reads as 0).
@inline(__always)
func srgbLookup(_ table: UnsafeMutablePointer<Float>, _ v: Float) -> Float {
    let c = (v > 0 ? (v < 1 ? v : 1) : 0) * Float(SRGBTransfer.size)
    // Adding 2^23 rounds c (0...size) to the nearest integer in the low mantissa bits: no
    // checked float-to-int conversion in the hot loop.
    let i = Int((c + 8_388_608).bitPattern & 0x7F_FFFF)
    return table[i]
}
