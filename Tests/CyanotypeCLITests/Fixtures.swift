import Cyanotype
import CyanotypeCodecs
import Foundation
import Testing

/// The channel layouts a test input can have.
enum Layout: String, CaseIterable, Sendable {
    case gray, grayAlpha, rgb, rgba
    var hasAlpha: Bool { self == .grayAlpha || self == .rgba }
    var isGray: Bool { self == .gray || self == .grayAlpha }
    var channels: Int {
        switch self {
        case .gray: 1;
        case .grayAlpha: 2;
        case .rgb: 3;
        case .rgba: 4
        }
    }
}

/// Decoded output pixels, 8-bit or 16-bit samples as ints (RGBA, alpha max when absent).
struct Decoded {
    let header: ImageHeader
    let width: Int, height: Int
    let maxValue: Int
    let samples: [Int]

    init(_ data: Data) throws {
        header = try ImageCodecs.readHeader(data)
        let b = try ImageCodecs.decode(data)
        width = b.width; height = b.height
        maxValue = b.bitDepth == 16 ? 65535 : 255
        samples = b.bitDepth == 16 ? b.pixels16.map(Int.init) : b.pixels.map(Int.init)
    }
    init(_ w: Workspace, _ name: String) throws { try self.init(Data(contentsOf: w.url(name))) }

    func pixel(_ x: Int, _ y: Int) -> [Int] { Array(samples[(4 * (y * width + x))..<(4 * (y * width + x) + 4)]) }
    /// The lowest and highest value of channel `c` over the picture.
    func range(_ c: Int) -> ClosedRange<Int> {
        var lo = Int.max, hi = Int.min
        for i in stride(from: c, to: samples.count, by: 4) { lo = min(lo, samples[i]); hi = max(hi, samples[i]) }
        return lo...hi
    }
}

extension Workspace {
    /// An image written by the codecs straight from samples (no renderer), in `layout` and
    /// `depth`, with `pixel(x, y)` giving 0...1 RGBA (grey layouts use the green sample).
    @discardableResult
    func picture(
        _ name: String, _ w: Int, _ h: Int, layout: Layout = .rgb, depth: Int = 8, format: CyanotypeCodecs.ImageFileFormat? = nil,
        options: EncodeOptions = EncodeOptions(), pixel: (Int, Int) -> SIMD4<Double>
    ) throws -> URL {
        let url = url(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let f = format ?? ImageCodecs.format(forPathExtension: url.pathExtension) ?? .png
        var o = options
        o.grayscale = layout.isGray
        let data: Data
        if depth == 16 {
            var px = [UInt16](repeating: 0, count: w * h * 4)
            for y in 0..<h {
                for x in 0..<w {
                    let p = pixel(x, y)
                    for c in 0..<4 { px[4 * (y * w + x) + c] = UInt16((min(max(p[c], 0), 1) * 65535).rounded()) }
                }
            }
            data = try px.withUnsafeBufferPointer { try ImageCodecs.encode(rgba16: $0, width: w, height: h, hasAlpha: layout.hasAlpha, format: f, options: o) }
        } else {
            var px = [UInt8](repeating: 0, count: w * h * 4)
            for y in 0..<h {
                for x in 0..<w {
                    let p = pixel(x, y)
                    for c in 0..<4 { px[4 * (y * w + x) + c] = UInt8((min(max(p[c], 0), 1) * 255).rounded()) }
                }
            }
            data = try px.withUnsafeBufferPointer { try ImageCodecs.encode(rgba8: $0, width: w, height: h, hasAlpha: layout.hasAlpha, format: f, options: o) }
        }
        try data.write(to: url)
        return url
    }

    /// A solid picture of one colour.
    @discardableResult
    func solid(
        _ name: String, _ w: Int = 24, _ h: Int = 16, layout: Layout = .rgb, color: SIMD4<Double> = [0.75, 0.25, 0.125, 1],
        depth: Int = 8, options: EncodeOptions = EncodeOptions()
    ) throws -> URL {
        try picture(name, w, h, layout: layout, depth: depth, options: options) { _, _ in color }
    }

    /// Seeded noise (xorshift), `w` x `h`: big, incompressible files for pipe tests.
    @discardableResult
    func noise(_ name: String, _ w: Int, _ h: Int, seed: UInt64 = 0x9E37_79B9, options: EncodeOptions = EncodeOptions()) throws -> URL {
        var state = seed
        func next() -> Double {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Double(state % 256) / 255
        }
        return try picture(name, w, h, options: options) { _, _ in [next(), next(), next(), 1] }
    }

    func decoded(_ name: String) throws -> Decoded { try Decoded(self, name) }

    func bytes(_ name: String) throws -> Data { try Data(contentsOf: url(name)) }

    /// Every regular file under `folder`, relative, sorted (dot files left out).
    func files(under folder: String) -> [String] {
        guard let e = FileManager.default.enumerator(atPath: path(folder)) else { return [] }
        var out: [String] = []
        for case let p as String in e where !(p as NSString).lastPathComponent.hasPrefix(".") {
            var isDir: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path(folder + "/" + p), isDirectory: &isDir)
            if !isDir.boolValue { out.append(p) }
        }
        return out.sorted()
    }

    /// Runs `command` in bash in the workspace (for pipes); stdout and stderr as the result.
    func shell(_ command: String) throws -> Tool.Result {
        try Tool.run(["-c", command], in: dir, executable: URL(fileURLWithPath: "/bin/bash"))
    }
}

/// A TIFF-structured EXIF block built by hand: Make "TestCam", orientation, 300 dpi, the EXIF
/// pixel dimensions, and a GPS directory whose processing method carries a marker string.
enum EXIFFixture {
    static let camera = "TestCam"
    static let gpsMarker = "CYANOTYPE-GPS-MARK"

    static func block(orientation: Int = 1, width: Int, height: Int, dpi: Int = 300, gps: Bool = true) -> Data {
        var b: [UInt8] = Array("II".utf8) + [42, 0] + le32(8)
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
        func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: [UInt8]) -> [UInt8] {
            le16(tag) + le16(type) + le32(count) + value + [UInt8](repeating: 0, count: 4 - value.count)
        }
        // Layout: IFD0 at 8, then its out-of-line data, then the EXIF IFD, then the GPS IFD.
        let ifd0Count = gps ? 8 : 7
        let ifd0Size = 2 + 12 * ifd0Count + 4
        let makeAt = 8 + ifd0Size
        let make = Array(camera.utf8) + [0]
        let xresAt = makeAt + make.count + (make.count & 1)
        let yresAt = xresAt + 8
        let exifAt = yresAt + 8
        let exifSize = 2 + 12 * 2 + 4
        let gpsAt = exifAt + exifSize
        let method = Array("ASCII".utf8) + [0, 0, 0] + Array(gpsMarker.utf8)
        let latAt = gpsAt + 2 + 12 * 4 + 4
        let methodAt = latAt + 24
        var ifd0 = le16(ifd0Count)
        ifd0 += entry(0x010F, 2, make.count, le32(makeAt))
        ifd0 += entry(0x0112, 3, 1, le16(orientation))
        ifd0 += entry(0x011A, 5, 1, le32(xresAt))
        ifd0 += entry(0x011B, 5, 1, le32(yresAt))
        ifd0 += entry(0x0128, 3, 1, le16(2))
        ifd0 += entry(0x0131, 2, 4, Array("cli".utf8) + [0])
        ifd0 += entry(0x8769, 4, 1, le32(exifAt))
        if gps { ifd0 += entry(0x8825, 4, 1, le32(gpsAt)) }
        ifd0 += le32(0)
        b += ifd0 + make
        if make.count & 1 == 1 { b.append(0) }
        b += le32(dpi) + le32(1) + le32(dpi) + le32(1)
        b += le16(2) + entry(0xA002, 4, 1, le32(width)) + entry(0xA003, 4, 1, le32(height)) + le32(0)
        if gps {
            b += le16(4)
            b += entry(0x0000, 1, 4, [2, 3, 0, 0])
            b += entry(0x0001, 2, 2, Array("N".utf8) + [0])
            b += entry(0x0002, 5, 3, le32(latAt))
            b += entry(0x001B, 7, method.count, le32(methodAt))
            b += le32(0)
            b += le32(51) + le32(1) + le32(30) + le32(1) + le32(1234) + le32(100)
            b += method
        }
        return Data(b)
    }

    /// Whether the file's bytes hold the EXIF block's camera name / GPS marker.
    static func hasEXIF(_ file: Data) -> Bool { file.range(of: Data(camera.utf8)) != nil }
    static func hasGPS(_ file: Data) -> Bool { file.range(of: Data(gpsMarker.utf8)) != nil }

    /// The EXIF IFD's PixelXDimension in a TIFF block (little-endian, as built here).
    static func pixelWidth(in exif: Data) -> Int? {
        let b = [UInt8](exif)
        func u16(_ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
        func u32(_ i: Int) -> Int { u16(i) | u16(i + 2) << 16 }
        guard b.count > 8 else { return nil }
        let ifd0 = u32(4)
        for i in 0..<u16(ifd0) where u16(ifd0 + 2 + 12 * i) == 0x8769 {
            let exif = u32(ifd0 + 2 + 12 * i + 8)
            for j in 0..<u16(exif) where u16(exif + 2 + 12 * j) == 0xA002 { return u32(exif + 2 + 12 * j + 8) }
        }
        return nil
    }
}

/// Whether a command is on this machine (for checks against other programs).
func commandExists(_ name: String) -> Bool {
    ["/usr/bin", "/usr/local/bin", "/bin"].contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(name)") }
}
