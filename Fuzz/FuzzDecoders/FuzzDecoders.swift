import CyanotypeCodecs
import Foundation

// libFuzzer entry point: no `main` here, libFuzzer supplies it (see Fuzz/README.md).
// The first byte picks the decoder (byte % 6: png, jpeg, webp, tiff, heif, avif) and the rest
// is the file; FUZZ_FORMAT=tiff (etc.) pins one decoder and feeds the whole input to it.
// Each input runs the strict decode, the lenient decode and the header reader.

let formats: [ImageFileFormat] = [.png, .jpeg, .webp, .tiff, .heif, .avif]
let pinned: ImageFileFormat? = ProcessInfo.processInfo.environment["FUZZ_FORMAT"].flatMap(ImageFileFormat.init(rawValue:))
// Small caps keep each run fast and make a missing check show up as an ASan allocation report.
let limits = DecodeLimits(maxPixels: 1 << 22, maxBytes: 64 << 20)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let format: ImageFileFormat
    let body: Data
    if let pinned {
        format = pinned
        body = Data(bytes: bytes, count: count)
    } else {
        format = formats[Int(bytes[0]) % formats.count]
        body = Data(bytes: bytes + 1, count: count - 1)
    }
    guard !body.isEmpty else { return 0 }
    _ = try? ImageCodecs.decode(body, as: format, limits: limits)
    _ = try? ImageCodecs.decode(body, as: format, limits: limits, strict: false)
    _ = try? ImageCodecs.readHeader(body)
    return 0
}
