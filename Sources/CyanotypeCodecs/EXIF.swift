import Foundation

/// The few EXIF (TIFF IFD0) fields the codecs report: orientation and resolution.
/// Every read is bounds-checked; a damaged EXIF block yields `nil` fields, never a crash.
struct EXIFSummary: Equatable {
    var orientation: Int?
    var dpi: Double?

    /// Parses a TIFF-structured payload ("II*\0" or "MM\0*" first).
    init(tiff: UnsafeRawBufferPointer) {
        guard tiff.count >= 8 else { return }
        let little: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= tiff.count else { return nil }
            let a = Int(tiff[at]), b = Int(tiff[at + 1])
            return little ? a | b << 8 : a << 8 | b
        }
        func u32(_ at: Int) -> Int? {
            guard let lo = u16(little ? at : at + 2), let hi = u16(little ? at + 2 : at) else { return nil }
            return lo | hi << 16
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return }
        var xRes: Double?
        var unit = 2  // inches, TIFF's default
        for i in 0..<min(count, 512) {
            let entry = ifd + 2 + i * 12
            guard let tag = u16(entry), let type = u16(entry + 2) else { break }
            switch tag {
            case 0x0112 where type == 3:  // Orientation, SHORT
                if let v = u16(entry + 8), (1...8).contains(v) { orientation = v }
            case 0x011A where type == 5:  // XResolution, RATIONAL at an offset
                if let off = u32(entry + 8), let num = u32(off), let den = u32(off + 4), den > 0, num > 0 {
                    xRes = Double(num) / Double(den)
                }
            case 0x0128 where type == 3:  // ResolutionUnit: 2 inch, 3 cm
                if let v = u16(entry + 8) { unit = v }
            default: break
            }
        }
        if let xRes {
            switch unit {
            case 2: dpi = xRes
            case 3: dpi = xRes * 2.54
            default: break
            }
        }
    }

    init(tiff data: Data) {
        self = data.withUnsafeBytes { EXIFSummary(tiff: $0) }
    }

    /// The block with IFD0's orientation set to 1 (written pixels are already upright).
    static func uprighted(_ data: Data) -> Data {
        var bytes = [UInt8](data)
        guard bytes.count >= 8 else { return data }
        let little = bytes[0] == 0x49
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= bytes.count else { return nil }
            return little ? Int(bytes[at]) | Int(bytes[at + 1]) << 8 : Int(bytes[at]) << 8 | Int(bytes[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let lo = u16(little ? at : at + 2), let hi = u16(little ? at + 2 : at) else { return nil }
            return lo | hi << 16
        }
        guard let ifd = u32(4), let count = u16(ifd) else { return data }
        for i in 0..<min(count, 512) {
            let entry = ifd + 2 + i * 12
            guard u16(entry) == 0x0112, u16(entry + 2) == 3, entry + 10 <= bytes.count else { continue }
            bytes[entry + 8] = little ? 1 : 0
            bytes[entry + 9] = little ? 0 : 1
        }
        return Data(bytes)
    }
}

/// Small big/little-endian readers over raw bytes, all bounds-checked by the caller's guard.
extension UnsafeRawBufferPointer {
    @inline(__always) func be16(_ at: Int) -> Int { Int(self[at]) << 8 | Int(self[at + 1]) }
    @inline(__always) func be32(_ at: Int) -> Int { be16(at) << 16 | be16(at + 2) }
    @inline(__always) func le32(_ at: Int) -> Int {
        Int(self[at]) | Int(self[at + 1]) << 8 | Int(self[at + 2]) << 16 | Int(self[at + 3]) << 24
    }
    @inline(__always) func le24(_ at: Int) -> Int { Int(self[at]) | Int(self[at + 1]) << 8 | Int(self[at + 2]) << 16 }
    /// True when the bytes at `at` equal `ascii`.
    func matches(_ ascii: String, at: Int) -> Bool {
        let u = Array(ascii.utf8)
        guard at >= 0, at + u.count <= count else { return false }
        for i in 0..<u.count where self[at + i] != u[i] { return false }
        return true
    }
}

/// Runs `body` over the bytes of `data`, keeping `CodecError` typed through `withUnsafeBytes`.
@inline(__always)
func withBytes<R>(_ data: Data, _ body: (UnsafeRawBufferPointer) throws(CodecError) -> R) throws(CodecError) -> R {
    let result: Result<R, CodecError> = data.withUnsafeBytes { raw in
        do throws(CodecError) { return .success(try body(raw)) } catch { return .failure(error) }
    }
    return try result.get()
}

/// Allocates `count` uninitialised elements and lets `body` fill them; typed errors pass through.
@inline(__always)
func makeArray<T>(count: Int, _ body: (UnsafeMutableBufferPointer<T>) throws(CodecError) -> Void) throws(CodecError) -> [T] {
    var failure: CodecError?
    let array = [T](unsafeUninitializedCapacity: count) { buffer, initialized in
        do throws(CodecError) {
            try body(buffer)
            initialized = count
        } catch {
            failure = error
            initialized = 0
        }
    }
    if let failure { throw failure }
    return array
}
