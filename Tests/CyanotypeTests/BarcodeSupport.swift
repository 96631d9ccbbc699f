import Foundation
import Testing
@testable import Cyanotype

// Independent barcode readers for the end-to-end tests: zbar (Debian `zbar-tools`, QR and
// Code 128) and zxing-cpp (PyPI `zxing-cpp`, also PDF417 and Aztec). Tests that need one are
// skipped with a message naming the package when it is absent.

let zbarPath = which("zbarimg")
let zbarAvailable = zbarPath != nil
let pythonPath = which("python3")
let zxingAvailable: Bool = {
    guard let py = pythonPath, let r = runTool(py, ["-c", "import zxingcpp, numpy"]) else { return false }
    return r.status == 0
}()

let barcodeScratch: URL = {
    let u = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-barcodes-\(ProcessInfo.processInfo.processIdentifier)")
    try? FileManager.default.createDirectory(at: u, withIntermediateDirectories: true)
    return u
}()

/// `img` scaled up `scale` times with nearest sampling, over white with `border` extra pixels.
func decoderReady(_ img: CIImage, scale: Int = 4, border: Int = 16) -> (CIImage, CGRect) {
    let e = img.extent
    let scaled = img.samplingNearest().transformed(by: CGAffineTransform(scaleX: CGFloat(scale), y: CGFloat(scale)))
    let rect = CGRect(
        x: e.minX * CGFloat(scale) - CGFloat(border), y: e.minY * CGFloat(scale) - CGFloat(border),
        width: e.width * CGFloat(scale) + CGFloat(2 * border), height: e.height * CGFloat(scale) + CGFloat(2 * border))
    return (scaled.composited(over: CIImage(color: CIColor(red: 1, green: 1, blue: 1)).cropped(to: rect)), rect)
}

/// Decodes `img` with zbarimg from a PNG the library writes; the payloads' raw bytes.
func zbarDecode(_ img: CIImage, scale: Int = 4) throws -> [Data] {
    guard let zbar = zbarPath else { return [] }
    let (ready, rect) = decoderReady(img, scale: scale)
    let url = barcodeScratch.appendingPathComponent("zbar-\(UUID().uuidString).png")
    defer { try? FileManager.default.removeItem(at: url) }
    try CIContext().writePNGRepresentation(of: ready.cropped(to: rect), to: url, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!)
    guard let r = runTool(zbar, ["--raw", "-q", "-Sbinary", url.path]), r.status == 0 else { return [] }
    return [r.data]
}

/// Writes `img` as a binary PGM (grey = red channel of the sRGB rendering).
func writePGM(_ img: CIImage, scale: Int = 4, to url: URL) throws {
    let (ready, rect) = decoderReady(img, scale: scale)
    let rgba = try render8(ready, rect)
    var file = Data("P5\n\(Int(rect.width)) \(Int(rect.height))\n255\n".utf8)
    file.append(contentsOf: stride(from: 0, to: rgba.count, by: 4).map { rgba[$0] })
    try file.write(to: url)
}

private let zxingScript = """
    import sys, numpy, zxingcpp
    for path in sys.argv[1:]:
        raw = open(path, 'rb').read()
        parts = raw.split(b'\\n', 3)
        w, h = map(int, parts[1].split())
        a = numpy.frombuffer(parts[3], dtype=numpy.uint8)[: w * h].reshape(h, w)
        rs = zxingcpp.read_barcodes(a)
        print(' '.join(r.format.name + ':' + r.bytes.hex() for r in rs) if rs else '-')
    """

/// Decodes each image with zxing-cpp (one Python run for all); per image, "Format:hex" of
/// (format as zxing names it: QRCode, Code128, PDF417, Aztec)
/// each symbol found, or "-" when none.
func zxingDecode(_ images: [CIImage], scale: Int = 4) throws -> [String] {
    guard let py = pythonPath else { return [] }
    var paths: [String] = []
    for (i, img) in images.enumerated() {
        let url = barcodeScratch.appendingPathComponent("zx-\(UUID().uuidString)-\(i).pgm")
        try writePGM(img, scale: scale, to: url)
        paths.append(url.path)
    }
    defer { for p in paths { try? FileManager.default.removeItem(atPath: p) } }
    guard let r = runTool(py, ["-c", zxingScript] + paths), r.status == 0 else { return [] }
    return r.out.split(separator: "\n").map(String.init)
}

extension Data {
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}
