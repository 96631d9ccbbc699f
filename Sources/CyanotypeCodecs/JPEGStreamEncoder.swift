import CCodecShims
import Foundation

/// A JPEG encoder fed bands of RGBA8 rows, top first, so encoding overlaps rendering. The
/// bytes are those `ImageCodecs.encode(rgba8:..., format: .jpeg)` writes for the same pixels
/// and options (libjpeg-turbo either way, same settings), EXIF and ICC segments included.
/// Not thread-safe: one thread writes, in order.
public final class JPEGStreamEncoder: @unchecked Sendable {
    /// What the rows given to `write` hold.
    public enum RowInput: Sendable {
        /// RGBA8 (alpha ignored), converted to Y'CbCr by libjpeg.
        case rgba8
        /// Interleaved 8-bit Y'CbCr, 3 bytes a pixel, chroma at full size: written as it is
        /// (no colour conversion), then downsampled as for RGBA input.
        case yCbCr8
    }
    private var handle: OpaquePointer
    private let options: EncodeOptions
    private let quality: Int32, subsampling: Int32
    /// What the rows hold (`takeYCbCr()` changes it before the first row).
    public private(set) var input = RowInput.rgba8
    /// The image's size in pixels.
    public let width: Int, height: Int
    /// Rows written so far.
    public private(set) var rowsWritten = 0

    /// An encoder for a `width` x `height` image (1...65500 each) with `options`' quality,
    /// subsampling, progressive flag and metadata; a quality outside 0...1 or a size out of
    /// range throws `.invalidArgument`.
    public init(width: Int, height: Int, options: EncodeOptions) throws(ImageFileError) {
        guard options.quality >= 0, options.quality <= 1 else {
            throw .invalidArgument("quality must be in 0...1, got \(options.quality)")
        }
        guard width > 0, height > 0, width <= 65_500, height <= 65_500 else {
            throw .invalidArgument("JPEG width and height must be 1...65500, got \(width)x\(height)")
        }
        let quality = max(1, min(100, Int32((options.quality * 100).rounded())))
        let sub: Int32 =
            switch options.chromaSubsampling {
            case .s444: Int32(CY_JPEG_444)
            case .s422: Int32(CY_JPEG_422)
            case .s420: Int32(CY_JPEG_420)
            }
        guard let h = cy_jpeg_encoder_create(Int32(width), Int32(height), quality, sub, options.progressive ? 1 : 0) else {
            throw .encodeFailed(detail: "JPEG: cannot start an encoder for \(width)x\(height)")
        }
        handle = h
        (self.quality, subsampling) = (quality, sub)
        self.options = options
        self.width = width
        self.height = height
    }

    deinit { cy_jpeg_encoder_destroy(handle) }

    /// Makes the encoder take rows of interleaved Y'CbCr (`RowInput.yCbCr8`) instead of RGBA8:
    /// a JPEG's own samples, re-encoded without the round trip through RGB. Only before the
    /// first row (else `.invalidArgument`).
    public func takeYCbCr() throws(ImageFileError) {
        guard input != .yCbCr8 else { return }
        guard rowsWritten == 0 else { throw .invalidArgument("JPEG: the rows' format changed after \(rowsWritten) rows") }
        guard
            let h = cy_jpeg_encoder_create_input(
                Int32(width), Int32(height), quality, subsampling, options.progressive ? 1 : 0, Int32(CY_JPEG_INPUT_YCBCR8))
        else { throw .encodeFailed(detail: "JPEG: cannot start an encoder for \(width)x\(height)") }
        cy_jpeg_encoder_destroy(handle)
        handle = h
        input = .yCbCr8
    }

    /// Appends `count` rows of RGBA8 (alpha ignored), or of Y'CbCr after `takeYCbCr()`,
    /// `rowBytes` apart.
    public func write(_ rows: UnsafeRawPointer, rowBytes: Int, count: Int) throws(ImageFileError) {
        guard count >= 0, rowsWritten + count <= height, rowBytes >= width * (input == .yCbCr8 ? 3 : 4) else {
            throw .invalidArgument("JPEG: \(count) rows of \(rowBytes) bytes after \(rowsWritten) of \(height)")
        }
        var message = [CChar](repeating: 0, count: 256)
        let rc = cy_jpeg_encoder_write(handle, rows.assumingMemoryBound(to: UInt8.self), rowBytes, Int32(count), &message, message.count)
        guard rc == 0 else { throw .encodeFailed(detail: "JPEG: " + String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)) }
        rowsWritten += count
    }

    /// The file, once every row is written.
    public func finish() throws(ImageFileError) -> Data {
        guard rowsWritten == height else { throw .invalidArgument("JPEG: \(rowsWritten) of \(height) rows written") }
        var bytes: UnsafePointer<UInt8>? = nil
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        guard cy_jpeg_encoder_finish(handle, &bytes, &size, &message, message.count) == 0, let bytes, size > 0 else {
            throw .encodeFailed(detail: "JPEG: " + String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return try JPEGCodec.addMetadata(to: UnsafeRawBufferPointer(start: bytes, count: size), options: options)
    }
}
