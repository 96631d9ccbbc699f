import Foundation

@testable import CyanotypeCodecs

/// A smooth, opaque-or-not RGBA8 test image: diagonal gradients plus a soft blob.
func smoothRGBA8(width: Int, height: Int, alpha: Bool = false) -> [UInt8] {
    var px = [UInt8](repeating: 0, count: width * height * 4)
    for y in 0..<height {
        for x in 0..<width {
            let i = (y * width + x) * 4
            let fx = Double(x) / Double(max(width - 1, 1)), fy = Double(y) / Double(max(height - 1, 1))
            let d = (fx - 0.5) * (fx - 0.5) + (fy - 0.5) * (fy - 0.5)
            px[i] = UInt8(200 * fx + 30)
            px[i + 1] = UInt8(180 * fy + 40)
            px[i + 2] = UInt8(max(0, min(255, 230 - 600 * d)))
            px[i + 3] = alpha ? UInt8((x * 37 + y * 11) % 256) : 255
        }
    }
    return px
}

/// PSNR over the RGB channels.
func psnrRGB(_ a: [UInt8], _ b: [UInt8]) -> Double {
    precondition(a.count == b.count)
    var se = 0.0, n = 0
    for i in stride(from: 0, to: a.count, by: 4) {
        for c in 0..<3 {
            let d = Double(a[i + c]) - Double(b[i + c])
            se += d * d
            n += 1
        }
    }
    return se == 0 ? .infinity : 10 * log10(255 * 255 / (se / Double(n)))
}

/// Writes small PNGs byte by byte (stored deflate blocks, real CRCs) so tests can craft any
/// colour type, bit depth and chunk, including headers no encoder would write.
enum PNGBuilder {
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return ~c
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let td = Array(type.utf8) + data
        return be32(UInt32(data.count)) + td + be32(crc32(td))
    }

    static func ihdr(width: UInt32, height: UInt32, depth: UInt8, colorType: UInt8) -> [UInt8] {
        chunk("IHDR", be32(width) + be32(height) + [depth, colorType, 0, 0, 0])
    }

    /// zlib stream of stored (uncompressed) deflate blocks.
    static func zlibStored(_ raw: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var pos = 0
        repeat {
            let n = min(65535, raw.count - pos)
            let last: UInt8 = pos + n == raw.count ? 1 : 0
            out += [last, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += raw[pos..<(pos + n)]
            pos += n
        } while pos < raw.count
        var a: UInt32 = 1, b: UInt32 = 0
        for x in raw {
            a = (a + UInt32(x)) % 65521
            b = (b + a) % 65521
        }
        return out + be32(b << 16 | a)
    }

    /// A PNG from already-packed scanlines (filter byte 0 is prepended to each row).
    static func png(
        width: Int, height: Int, depth: UInt8, colorType: UInt8, rows: [[UInt8]], extra: [[UInt8]] = []
    ) -> Data {
        var raw: [UInt8] = []
        for r in rows { raw += [0] + r }
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        file += ihdr(width: UInt32(width), height: UInt32(height), depth: depth, colorType: colorType)
        for c in extra { file += c }
        file += chunk("IDAT", zlibStored(raw))
        file += chunk("IEND", [])
        return Data(file)
    }
}

/// A TIFF/EXIF block holding IFD0 with Orientation, XResolution and ResolutionUnit (inches).
func exifBlock(orientation: UInt16, bigEndian: Bool, dpi: UInt32 = 300) -> [UInt8] {
    func u16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
    func u32(_ v: UInt32) -> [UInt8] {
        let b = PNGBuilder.be32(v)
        return bigEndian ? b : b.reversed()
    }
    var t: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
    t += u16(42) + u32(8)
    t += u16(3)  // three entries, IFD0 at 8; rational data after: 8 + 2 + 36 + 4 = 50
    t += u16(0x0112) + u16(3) + u32(1) + u16(orientation) + [0, 0]
    t += u16(0x011A) + u16(5) + u32(1) + u32(50)
    t += u16(0x0128) + u16(3) + u32(1) + u16(2) + [0, 0]
    t += u32(0)  // no next IFD
    t += u32(dpi) + u32(1)
    return t
}

/// Inserts an APP1 Exif segment right after the SOI of a JPEG.
func jpegWithEXIF(_ jpeg: Data, exif: [UInt8]) -> Data {
    let payload = Array("Exif".utf8) + [0, 0] + exif
    let len = payload.count + 2
    var out = Data(jpeg.prefix(2))
    out.append(contentsOf: [0xFF, 0xE1, UInt8(len >> 8), UInt8(len & 0xFF)] + payload)
    out.append(jpeg.dropFirst(2))
    return out
}

/// A pseudo-ICC profile: the codecs carry bytes, they do not parse them.
func fakeICC(count: Int) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) })
}

func encode8(_ px: [UInt8], _ w: Int, _ h: Int, alpha: Bool, _ format: ImageFileFormat, _ options: EncodeOptions = EncodeOptions()) throws -> Data {
    try px.withUnsafeBufferPointer {
        try ImageCodecs.encode(rgba8: $0, width: w, height: h, hasAlpha: alpha, format: format, options: options)
    }
}

/// The error a throwing call produced, as a ImageFileError (nil when it did not throw).
func codecError<T>(_ body: () throws -> T) -> ImageFileError? {
    do {
        _ = try body()
        return nil
    } catch let e as ImageFileError {
        return e
    } catch {
        return .invalidArgument("non-codec error \(error)")
    }
}
