/// Lookup tables for the colour boundaries: sources decode to linear through a table per
/// sample value, 8/16-bit destinations encode through a table indexed by the linear value
/// (by its square root, so shadows keep their precision).
final class TransferTables: @unchecked Sendable {
    /// 8-bit code -> linear.
    let decode8: UnsafeMutablePointer<Float>
    /// 16-bit code -> linear.
    let decode16: UnsafeMutablePointer<Float>
    /// round(sqrt(linear) * 65535) -> 8-bit code.
    let encode8: UnsafeMutablePointer<UInt8>
    /// round(sqrt(linear) * 65535) -> 16-bit code.
    let encode16: UnsafeMutablePointer<UInt16>

    init(decode: (Float) -> Float, encode: (Float) -> Float) {
        decode8 = .allocate(capacity: 256)
        for i in 0..<256 { decode8[i] = decode(Float(i) / 255) }
        decode16 = .allocate(capacity: 65536)
        for i in 0..<65536 { decode16[i] = decode(Float(i) / 65535) }
        encode8 = .allocate(capacity: 65536)
        encode16 = .allocate(capacity: 65536)
        for i in 0..<65536 {
            let s = Float(i) / 65535
            encode8[i] = UInt8(min(max(encode(s * s) * 255 + 0.5, 0), 255))
            encode16[i] = UInt16(min(max(encode(s * s) * 65535 + 0.5, 0), 65535))
        }
    }
    // Tables live for the process: freeing them is never needed.

    static let sRGB = TransferTables(decode: sRGBToLinear, encode: linearToSRGB)
    static let linear = TransferTables(decode: { $0 }, encode: { $0 })
    static let gamma22 = TransferTables(decode: { powf($0, 2.2) }, encode: { powf($0, 1 / 2.2) })

    static func forSpace(_ space: CGColorSpace?) -> TransferTables {
        guard let space else { return .linear }
        switch space.transfer {
        case .sRGB: return .sRGB
        case .linear: return .linear
        case .gamma: return .gamma22
        }
    }

    @inline(__always) func enc8(_ v: Float) -> UInt8 {
        encode8[Int(clamp01(v).squareRoot() * 65535 + 0.5)]
    }
    @inline(__always) func enc16(_ v: Float) -> UInt16 {
        encode16[Int(clamp01(v).squareRoot() * 65535 + 0.5)]
    }
}
