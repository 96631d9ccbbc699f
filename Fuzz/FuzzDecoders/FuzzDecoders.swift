import CyanotypeCodecs
import Foundation

// libFuzzer entry point: no `main` here, libFuzzer supplies it (see Fuzz/README.md).
// The first byte picks the decoder (byte % 7: png, jpeg, webp, tiff, heif, avif, gif) and the
// rest is the file; FUZZ_FORMAT=tiff (etc.) pins one decoder and feeds the whole input to it.
// Each input runs the strict decode, the lenient decode and the header reader, then every
// frame or page through `FrameDecoder` (GIF, APNG, animated WebP, multi-page TIFF), strict
// and lenient. FUZZ_FORMAT=apng, webp-anim or tiff-pages name the frame readers' seeds; they
// feed PNG, WebP or TIFF bytes.

let formats: [ImageFileFormat] = [.png, .jpeg, .webp, .tiff, .heif, .avif, .gif]
let pinnedName = ProcessInfo.processInfo.environment["FUZZ_FORMAT"]
let pinned: ImageFileFormat? = pinnedName.flatMap { name in
    switch name {
    case "apng": return .png
    case "webp-anim": return .webp
    case "tiff-pages": return .tiff
    default: return ImageFileFormat(rawValue: name)
    }
}
// Small caps keep each run fast and make a missing check show up as an ASan allocation report.
let limits = DecodeLimits(maxPixels: 1 << 22, maxBytes: 64 << 20, maxFrames: 64, maxTotalPixels: 1 << 24)

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
    for strict in [true, false] {
        guard let frames = try? FrameDecoder(data: body, limits: limits, strict: strict) else { continue }
        while let frame = try? frames.next() { _ = frame.width }
        if frames.sequence.frameCount > 1 { _ = try? frames.frame(at: 0) }
    }
    return 0
}
