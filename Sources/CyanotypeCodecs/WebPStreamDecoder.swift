import CWebP
import Foundation

/// A still WebP decoded incrementally, straight to a size of the caller's choosing (libwebp's
/// `use_scaling` rescaler inside its incremental decoder): RGBA8 rows handed out top first as
/// the compressed bytes are fed in, so the rows after a decode can start work while the rest
/// still decodes. Rows equal `ImageCodecs.decode(_:scaledTo:_:limits:)`'s (the same decoder
/// and rescaler). Strict: a damaged or truncated file fails with its typed error.
public final class WebPStreamDecoder: @unchecked Sendable {
    /// The decoded size in pixels (stored orientation).
    public let width: Int, height: Int
    /// Rows handed out so far, from the top.
    public private(set) var rowsRead = 0

    private let compressed: UnsafeMutableRawBufferPointer
    /// Where libwebp writes the rows: the caller's bitmap, or a buffer of the decoder's own.
    private let pixels: UnsafeMutableRawBufferPointer
    private let ownsPixels: Bool
    private let decoder: OpaquePointer
    /// On the heap: the decoder keeps pointers to its options and output buffer.
    private let config: UnsafeMutablePointer<WebPDecoderConfig>
    /// Compressed bytes given to the decoder so far.
    private var fed = 0
    private var finished = false

    /// How many compressed bytes each step feeds: small enough that rows arrive in bands,
    /// large enough that the calls cost nothing.
    private static let step = 64 << 10

    /// A decoder of `data` (a still WebP) to `width` x `height`, each at least 1 and at most
    /// the file's size; refused beyond `limits`, before any pixel memory is taken.
    /// `destination`: the caller's `width` x `height` RGBA8 bitmap (rows `width * 4` bytes
    /// apart), which libwebp then decodes straight into, so the picture is held once: `read`
    /// into the same rows copies nothing. It must outlive the decoder.
    public init(
        data: Data, width: Int, height: Int, limits: DecodeLimits = .default, destination: UnsafeMutableRawBufferPointer? = nil
    ) throws(ImageFileError) {
        _ = try ImageCodecs.scaledDecodeHeader(data, width: width, height: height)
        let limit = limits.pixelLimit(bytesPerPixel: 4)
        guard width * height <= limit else { throw .tooLarge(width: width, height: height, limit: limit) }
        if let destination, destination.count < width * height * 4 || destination.baseAddress == nil {
            throw .invalidArgument("a \(width)x\(height) WebP decode needs \(width * height * 4) bytes, got \(destination.count)")
        }
        self.width = width
        self.height = height
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, data.count), alignment: 16)
        data.withUnsafeBytes { if let base = $0.baseAddress { copy.baseAddress!.copyMemory(from: base, byteCount: $0.count) } }
        compressed = copy
        ownsPixels = destination == nil
        pixels = destination ?? .allocate(byteCount: width * height * 4, alignment: 64)
        config = .allocate(capacity: 1)
        config.initialize(to: WebPDecoderConfig())
        guard WebPInitDecoderConfig(config) != 0 else {
            compressed.deallocate(); if ownsPixels { pixels.deallocate() }; config.deallocate()
            throw .corrupt(detail: "WebP: decoder version mismatch")
        }
        // libwebp filters a row of macroblocks on a thread of its own while the next decodes
        // (as libvips asks it to).
        config.pointee.options.use_threads = 1
        config.pointee.options.use_scaling = 1
        config.pointee.options.scaled_width = Int32(width)
        config.pointee.options.scaled_height = Int32(height)
        config.pointee.output.colorspace = MODE_RGBA
        config.pointee.output.is_external_memory = 1
        config.pointee.output.u.RGBA = WebPRGBABuffer(
            rgba: pixels.baseAddress!.assumingMemoryBound(to: UInt8.self), stride: Int32(width * 4), size: width * height * 4)
        // The decoder reads the features from the bytes now; it decodes as `read` feeds them.
        guard let made = WebPIDecode(compressed.baseAddress!.assumingMemoryBound(to: UInt8.self), data.count, config) else {
            compressed.deallocate(); if ownsPixels { pixels.deallocate() }; config.deallocate()
            throw .corrupt(detail: "WebP: the incremental decoder could not start")
        }
        decoder = made
    }

    deinit {
        WebPIDelete(decoder)
        WebPFreeDecBuffer(&config.pointee.output)
        config.deallocate()
        compressed.deallocate()
        if ownsPixels { pixels.deallocate() }
    }

    /// Rows the decoder has finished (from the top).
    private var rowsDecoded: Int {
        var lastY: Int32 = 0
        _ = WebPIDecGetRGB(decoder, &lastY, nil, nil, nil)
        return Int(lastY)
    }

    /// Decodes the next `count` rows into `rows`, `rowBytes` apart (RGBA8); nothing is copied
    /// when `rows` is where they were decoded (the `destination`'s next rows).
    public func read(into rows: UnsafeMutableRawPointer, rowBytes: Int, count: Int) throws(ImageFileError) {
        let wanted = min(height, rowsRead + count)
        while rowsDecoded < wanted {
            guard !finished, fed < compressed.count else {
                throw .truncated(detail: "WebP data: the data ends early (\(compressed.count) bytes)")
            }
            fed = min(compressed.count, fed + Self.step)
            let rc = WebPIUpdate(decoder, compressed.baseAddress!.assumingMemoryBound(to: UInt8.self), fed)
            if rc == VP8_STATUS_OK {
                finished = true
            } else if rc != VP8_STATUS_SUSPENDED {
                throw WebPCodec.error(rc, "data", size: compressed.count)
            }
        }
        let rowLength = width * 4
        let inPlace = rows == pixels.baseAddress! + rowsRead * rowLength && rowBytes == rowLength
        for r in 0..<(inPlace ? 0 : wanted - rowsRead) {
            (rows + r * rowBytes).copyMemory(from: pixels.baseAddress! + (rowsRead + r) * rowLength, byteCount: rowLength)
        }
        rowsRead = wanted
    }
}
