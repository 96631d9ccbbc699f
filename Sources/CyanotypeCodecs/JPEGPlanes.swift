import CCodecShims
import Foundation

/// A JPEG decoded whole to its Y, Cb and Cr planes (libjpeg's raw data: no chroma upsampling,
/// no colour conversion), turned upright for an EXIF orientation as the rows decode: 1.5 bytes
/// a pixel at 4:2:0 rather than RGBA's 4. For files libjpeg must decode whole anyway
/// (progressive), whose picture is then held this way and converted to RGB row by row
/// (`cy_jpeg_row_rgba8` gives libjpeg's own upsampled RGB).
public final class JPEGPlanes: @unchecked Sendable {
    /// The upright picture's size in pixels (the luma plane's).
    public let width: Int, height: Int
    /// Log2 of the upright chroma subsampling across and down: (1, 1) for 4:2:0, (1, 0) 4:2:2,
    /// (0, 1) 4:4:0, (0, 0) 4:4:4. A turn by a quarter swaps the stored file's.
    public let chromaShift: (x: Int, y: Int)
    /// The upright chroma planes' size in samples.
    public let chromaWidth: Int, chromaHeight: Int
    /// The EXIF orientation (1...8) the stored planes were turned by.
    public let orientation: Int
    /// Whether libjpeg upsamples this file's chroma with its triangle ("fancy") filter; false
    /// when it repeats samples (a subsampled stored width of 2 samples or fewer).
    public let fancyUpsampling: Bool
    /// The luma plane's first row and its row length in bytes.
    public let luma: UnsafeMutablePointer<UInt8>, lumaRowBytes: Int
    /// The Cb and Cr planes' first rows and their row length in bytes.
    public let cb: UnsafeMutablePointer<UInt8>, cr: UnsafeMutablePointer<UInt8>, chromaRowBytes: Int
    /// Bytes the three planes hold.
    public let byteCount: Int
    private let memory: UnsafeMutableRawPointer

    private init(_ info: cy_jpeg_planar_info, orientation: Int, memory: UnsafeMutableRawPointer) {
        self.memory = memory
        self.orientation = orientation
        let swaps = orientation >= 5
        let (w, h) = (Int(info.width), Int(info.height)), (cw, ch) = (Int(info.chromaWidth), Int(info.chromaHeight))
        (width, height) = swaps ? (h, w) : (w, h)
        (chromaWidth, chromaHeight) = swaps ? (ch, cw) : (cw, ch)
        chromaShift = swaps ? (Int(info.shiftY), Int(info.shiftX)) : (Int(info.shiftX), Int(info.shiftY))
        fancyUpsampling = info.fancy != 0
        (lumaRowBytes, chromaRowBytes) = (width, chromaWidth)
        let lumaBytes = width * height, chromaBytes = chromaWidth * chromaHeight
        byteCount = lumaBytes + 2 * chromaBytes
        luma = memory.assumingMemoryBound(to: UInt8.self)
        cb = (memory + lumaBytes).assumingMemoryBound(to: UInt8.self)
        cr = (memory + lumaBytes + chromaBytes).assumingMemoryBound(to: UInt8.self)
    }

    deinit { free(memory) }

    /// Decodes `data` (a JPEG, strictly: a damaged or truncated file fails with its typed
    /// error) to its planes, turned upright for EXIF `orientation` (1...8; others read as 1);
    /// nil when it is not an 8-bit YCbCr file sampled 4:4:4, 4:2:2, 4:4:0 or 4:2:0. The
    /// decoder's own memory (a progressive file's coefficients) is freed before this returns.
    public static func decode(_ data: Data, orientation: Int = 1, limits: DecodeLimits = .default) throws(ImageFileError) -> JPEGPlanes? {
        guard !data.isEmpty else { throw .empty }
        return try withBytes(data) { b throws(ImageFileError) -> JPEGPlanes? in
            try decode(orientation: orientation, limits: limits) { info, handle, message in
                cy_jpeg_decoder_create_planar(b.bindMemory(to: UInt8.self).baseAddress, b.count, 1, &info, &handle, message, 256)
            }
        }
    }

    /// As `decode(_:orientation:limits:)`, reading the JPEG file `file` names 64 KiB at a time
    /// rather than holding its bytes: the file must still be the one `file` describes (else
    /// `.ioError`, "changed since it was read").
    public static func decode(file: FileIdentity, orientation: Int = 1, limits: DecodeLimits = .default) throws(ImageFileError) -> JPEGPlanes? {
        let fd = try file.open()
        return try decode(orientation: orientation, limits: limits) { info, handle, message in
            cy_jpeg_decoder_create_planar_fd(fd, 1, &info, &handle, message, 256)
        }
    }

    /// The decode once `start` has begun it (a `cy_jpeg_decoder_create_planar` call writing at
    /// most 256 bytes of message).
    private static func decode(
        orientation: Int, limits: DecodeLimits,
        start: (inout cy_jpeg_planar_info, inout OpaquePointer?, UnsafeMutablePointer<CChar>) -> Int32
    ) throws(ImageFileError) -> JPEGPlanes? {
        let orientation = (1...8).contains(orientation) ? orientation : 1
        var info = cy_jpeg_planar_info()
        var handle: OpaquePointer? = nil
        var message = [CChar](repeating: 0, count: 256)
        let rc = message.withUnsafeMutableBufferPointer { start(&info, &handle, $0.baseAddress!) }
        if rc == 1 { return nil }
        guard rc == 0, let handle else { throw failure(message) }
        defer { cy_jpeg_decoder_destroy(handle) }
        let (w, h) = (Int(info.width), Int(info.height))
        let limit = limits.pixelLimit(bytesPerPixel: 4)
        guard w * h <= limit else { throw .tooLarge(width: w, height: h, limit: limit) }
        let count = w * h + 2 * Int(info.chromaWidth) * Int(info.chromaHeight)
        guard count > 0, let memory = malloc(count) else { throw .corrupt(detail: "JPEG: out of memory for \(w)x\(h) planes") }
        let planes = JPEGPlanes(info, orientation: orientation, memory: memory)
        guard
            cy_jpeg_decoder_read_planes_upright(
                handle, &info, Int32(orientation), planes.luma, planes.lumaRowBytes, planes.cb, planes.cr, planes.chromaRowBytes,
                &message, message.count) == 0
        else { throw failure(message) }
        return planes
    }

    /// Classified as the row decoder classifies the same libjpeg message.
    private static func failure(_ m: [CChar]) -> ImageFileError {
        let text = String(decoding: m.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.contains("Premature end") || text.contains("insufficient data") { return .truncated(detail: "JPEG data: \(text)") }
        return .corrupt(detail: "JPEG data: \(text)")
    }
}
