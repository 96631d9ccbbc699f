import CyanotypeCodecs
import Foundation

// libFuzzer entry point: no `main` here, libFuzzer supplies it (see Fuzz/README.md).
// The first byte picks the target (byte % 9: png, jpeg, webp, tiff, heif, avif, gif, jxl,
// metadata) and the rest is the input; FUZZ_FORMAT=jxl (etc.) pins one target and feeds it the
// whole input. A decoder target runs the strict decode, the lenient decode and the header
// reader, then every frame or page through `FrameDecoder` (GIF, APNG, animated WebP,
// multi-page TIFF), strict and lenient. FUZZ_FORMAT=apng, webp-anim or tiff-pages name the
// frame readers' seeds; they feed PNG, WebP or TIFF bytes. The metadata target takes the input
// as an EXIF block and as an XMP packet: the EXIF and XMP readers and editors, and the writers
// that embed them (TIFF merges EXIF into its own directory and reads it back; PNG, WebP and
// JPEG XL write them as chunks and boxes).

let formats: [ImageFileFormat] = [.png, .jpeg, .webp, .tiff, .heif, .avif, .gif, .jxl]
let pinnedName = ProcessInfo.processInfo.environment["FUZZ_FORMAT"]
let metadataOnly = pinnedName == "metadata"
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
// A 3x2 image the metadata target writes its blocks into.
let tinyImage: [UInt8] = [UInt8](repeating: 0x7F, count: 3 * 2 * 4)

func fuzzMetadata(_ block: Data) {
    _ = EXIFProperties(block)
    _ = ImageCodecs.exifRemovingGPS(block)
    _ = ImageCodecs.exifContainsGPS(block)
    _ = ImageCodecs.exifSettingOrientation(block, 1)
    _ = ImageCodecs.exifSettingPixelDimensions(block, width: 3, height: 2)
    _ = ImageCodecs.xmpRemovingGPS(block)
    _ = ImageCodecs.xmpSettingOrientation(block, 1)
    _ = ImageCodecs.xmpSettingPixelDimensions(block, width: 3, height: 2)
    var options = EncodeOptions()
    options.exif = block
    options.xmp = block
    options.lossless = true
    for format in [ImageFileFormat.tiff, .png, .webp, .jxl, .jpeg] {
        let file = tinyImage.withUnsafeBufferPointer {
            try? ImageCodecs.encode(rgba8: $0, width: 3, height: 2, hasAlpha: false, format: format, options: options)
        }
        if let file { _ = try? ImageCodecs.readHeader(file) }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let format: ImageFileFormat?
    let body: Data
    if metadataOnly {
        format = nil
        body = Data(bytes: bytes, count: count)
    } else if let pinned {
        format = pinned
        body = Data(bytes: bytes, count: count)
    } else {
        let pick = Int(bytes[0]) % (formats.count + 1)
        format = pick < formats.count ? formats[pick] : nil
        body = Data(bytes: bytes + 1, count: count - 1)
    }
    guard !body.isEmpty else { return 0 }
    guard let format else {
        fuzzMetadata(body)
        return 0
    }
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
