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
        /// The Y, Cb and Cr planes as the file stores them, 8 rows of each at a time
        /// (`writePlanes`); only for 4:4:4 output, whose planes are all full size.
        case planes
    }
    private var handle: OpaquePointer
    /// The quality, subsampling, progressive flag and metadata it writes.
    public let options: EncodeOptions
    private let quality: Int32, subsampling: Int32
    /// What the rows hold (`take(_:)` changes it before the first row).
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

    /// Makes the encoder take `input` (Y'CbCr rows or planes: a JPEG's own samples, re-encoded
    /// without the round trip through RGB) instead of RGBA8. Only before the first row, and
    /// planes only for 4:4:4 output (else `.invalidArgument`).
    public func take(_ input: RowInput) throws(ImageFileError) {
        guard input != self.input else { return }
        guard rowsWritten == 0 else { throw .invalidArgument("JPEG: the rows' format changed after \(rowsWritten) rows") }
        guard input != .planes || options.chromaSubsampling == .s444 else {
            throw .invalidArgument("JPEG: planes are taken only for 4:4:4 output")
        }
        let kind =
            switch input {
            case .rgba8: CY_JPEG_INPUT_RGBA8
            case .yCbCr8: CY_JPEG_INPUT_YCBCR8
            case .planes: CY_JPEG_INPUT_PLANES
            }
        guard let h = cy_jpeg_encoder_create_input(Int32(width), Int32(height), quality, subsampling, options.progressive ? 1 : 0, Int32(kind))
        else { throw .encodeFailed(detail: "JPEG: cannot start an encoder for \(width)x\(height)") }
        cy_jpeg_encoder_destroy(handle)
        handle = h
        self.input = input
    }

    /// After `take(.planes)`: appends the next 8 rows of each plane (`y`, `cb`, `cr`: 8 row
    /// pointers each), every row `width` rounded up to a multiple of 8 samples; past the
    /// bottom, rows are still given (repeat the last one).
    public func writePlanes(
        y: UnsafePointer<UnsafeMutablePointer<UInt8>?>, cb: UnsafePointer<UnsafeMutablePointer<UInt8>?>,
        cr: UnsafePointer<UnsafeMutablePointer<UInt8>?>
    ) throws(ImageFileError) {
        guard input == .planes, rowsWritten < height else {
            throw .invalidArgument("JPEG: planes after \(rowsWritten) of \(height) rows, taking \(input)")
        }
        var message = [CChar](repeating: 0, count: 256)
        guard cy_jpeg_encoder_write_planes(handle, y, cb, cr, &message, message.count) == 0 else {
            throw .encodeFailed(detail: "JPEG: " + String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        rowsWritten = min(height, rowsWritten + 8)
    }

    /// Appends `count` rows of RGBA8 (alpha ignored), or of Y'CbCr after `take(.yCbCr8)`,
    /// `rowBytes` apart.
    public func write(_ rows: UnsafeRawPointer, rowBytes: Int, count: Int) throws(ImageFileError) {
        guard input != .planes, count >= 0, rowsWritten + count <= height, rowBytes >= width * (input == .yCbCr8 ? 3 : 4) else {
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
