import CSPNG
import Foundation

/// A PNG decoder handing out RGBA rows a band at a time, top first, so rendering can begin
/// before the whole image is decoded and decoded rows can be given back behind it: RGBA8 for
/// files of 8 bits a sample or fewer, RGBA16 (native-endian) for 16-bit files (`bitDepth`).
/// The pixels are those `ImageCodecs.decode` gives (libspng, the same format and transparency
/// settings). Meant for strict decodes of non-interlaced files (`canStream`): interlaced files
/// deliver their rows in seven passes. The compressed bytes are read as libspng asks for
/// them, from memory or from the file. One thread reads.
public final class PNGStreamDecoder: @unchecked Sendable {
    private let context: OpaquePointer
    private let source: Source
    /// The image's size in pixels.
    public let width: Int, height: Int
    /// Bits of each sample handed out: 8 (RGBA8 rows) or 16 (RGBA16 rows, native-endian).
    public let bitDepth: Int
    /// Rows handed out so far, from the top.
    public private(set) var rowsRead = 0
    private var ended = false

    /// The compressed bytes (in memory, or an open file read with pread) and how far libspng
    /// has read them.
    private final class Source {
        let data: Data?
        let descriptor: Int32
        var offset = 0
        init(_ data: Data) { (self.data, descriptor) = (data, -1) }
        init(descriptor: Int32) { (data, self.descriptor) = (nil, descriptor) }
        deinit { if descriptor >= 0 { close(descriptor) } }

        /// Copies the next `length` bytes to `destination`; false at the end of the bytes.
        func read(_ destination: UnsafeMutableRawPointer, _ length: Int) -> Bool {
            if let data {
                guard offset + length <= data.count else { return false }
                data.withUnsafeBytes { destination.copyMemory(from: $0.baseAddress! + offset, byteCount: length) }
            } else {
                var done = 0
                while done < length {
                    let n = pread(descriptor, destination + done, length - done, off_t(offset + done))
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0 else { return false }
                    done += n
                }
            }
            offset += length
            return true
        }

        /// Bytes at `at`, up to `count` (fewer at the end).
        func bytes(at: Int, count: Int) -> [UInt8] {
            var out = [UInt8](repeating: 0, count: count)
            if let data {
                let n = max(0, min(count, data.count - at))
                out.withUnsafeMutableBytes { o in data.withUnsafeBytes { o.baseAddress!.copyMemory(from: $0.baseAddress! + at, byteCount: n) } }
                return Array(out.prefix(n))
            }
            let n = out.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, count, off_t(at)) }
            return Array(out.prefix(max(0, n)))
        }
    }

    /// Whether this file decodes row by row through this decoder with the pixels
    /// `ImageCodecs.decode` gives: a PNG of any bit depth, not interlaced, decoded strictly.
    public static func canStream(header: ImageHeader, strict: Bool) -> Bool {
        guard header.format == .png, strict, header.bitDepth == 8 || header.bitDepth == 16 else { return false }
        if case .int(let interlace)? = header.formatProperties["InterlaceType"] { return interlace == 0 }
        return false
    }

    /// Reads the header and starts decoding; a file over `limits` throws `.tooLarge` before any
    /// pixel is decoded.
    public convenience init(data: Data, limits: DecodeLimits = .default) throws(ImageFileError) {
        guard !data.isEmpty else { throw .empty }
        try self.init(source: Source(data), limits: limits)
    }

    /// Starts decoding the PNG file `file` names, reading it as libspng asks rather than holding
    /// it: the file must still be the one `file` describes (else `.ioError`, "changed since it
    /// was read").
    public convenience init(file: FileIdentity, limits: DecodeLimits = .default) throws(ImageFileError) {
        try self.init(source: Source(descriptor: try file.open()), limits: limits)
    }

    private init(source: Source, limits: DecodeLimits) throws(ImageFileError) {
        // The stored properties are set last: a failure before then frees the context here
        // (no deinit runs for an object that was never whole).
        // Chunk CRCs are checked (they cover the compressed bytes); the zlib stream's Adler-32
        // of the inflated bytes is not computed (as libvips reads PNG): it guards only
        // against a faulty encoder, at 5% of a large decode.
        guard let ctx = spng_ctx_new(Int32(SPNG_CTX_IGNORE_ADLER32.rawValue)) else {
            throw .corrupt(detail: "PNG: out of memory creating a decoder")
        }
        spng_set_chunk_limits(ctx, PNGCodec.chunkSizeLimit, PNGCodec.chunkCacheLimit)
        var rc = spng_set_png_stream(
            ctx,
            { _, user, destination, length in
                guard let user, let destination else { return Int32(SPNG_IO_ERROR.rawValue) }
                let source = Unmanaged<Source>.fromOpaque(user).takeUnretainedValue()
                return source.read(destination, length) ? 0 : Int32(SPNG_IO_EOF.rawValue)
            }, Unmanaged.passUnretained(source).toOpaque())
        guard rc == 0 else {
            spng_ctx_free(ctx)
            throw PNGCodec.error(rc, "reading the file")
        }
        var ihdr = spng_ihdr()
        rc = spng_get_ihdr(ctx, &ihdr)
        guard rc == 0 else {
            spng_ctx_free(ctx)
            throw PNGCodec.error(rc, "reading the header")
        }
        let (width, height) = (Int(ihdr.width), Int(ihdr.height))
        let sixteen = ihdr.bit_depth == 16
        let limit = limits.pixelLimit(bytesPerPixel: sixteen ? 8 : 4)
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard ihdr.interlace_method == 0, width > 0, height > 0, !overflow, pixels <= limit
        else {
            spng_ctx_free(ctx)
            if ihdr.interlace_method != 0 { throw .invalidArgument("PNG: an interlaced file does not stream") }
            throw .tooLarge(width: width, height: height, limit: limit)
        }
        let format = sixteen ? SPNG_FMT_RGBA16 : SPNG_FMT_RGBA8
        rc = spng_decode_image(ctx, nil, 0, Int32(format.rawValue), Int32(SPNG_DECODE_TRNS.rawValue | SPNG_DECODE_PROGRESSIVE.rawValue))
        guard rc == 0 else {
            spng_ctx_free(ctx)
            throw PNGCodec.error(rc, "decoding")
        }
        (context, self.source, self.width, self.height, bitDepth) = (ctx, source, width, height, sixteen ? 16 : 8)
    }

    deinit { spng_ctx_free(context) }

    /// Decodes the next `count` rows into `rows`, `rowBytes` apart (at least `width` pixels of
    /// 4 or 8 bytes, as `bitDepth` says); after the last row, the chunks up to IEND are read
    /// and must be whole (strict).
    public func read(into rows: UnsafeMutableRawPointer, rowBytes: Int, count: Int) throws(ImageFileError) {
        let pixelBytes = bitDepth == 16 ? 8 : 4
        guard count >= 0, rowsRead + count <= height, rowBytes >= width * pixelBytes else {
            throw .invalidArgument("PNG: \(count) rows of \(rowBytes) bytes after \(rowsRead) of \(height)")
        }
        for i in 0..<count {
            var info = spng_row_info()
            var rc = spng_get_row_info(context, &info)
            guard rc == 0, Int(info.row_num) == rowsRead else { throw PNGCodec.error(rc == 0 ? Int32(SPNG_EINTERNAL.rawValue) : rc, "decoding row \(rowsRead)") }
            rc = spng_decode_row(context, rows + i * rowBytes, width * pixelBytes)
            if rc == Int32(SPNG_EOI.rawValue) {
                ended = true
            } else if rc != 0 {
                throw PNGCodec.error(rc, "decoding row \(rowsRead)")
            }
            rowsRead += 1
        }
        if rowsRead == height {
            if !ended {
                var info = spng_row_info()
                let rc = spng_get_row_info(context, &info)
                guard rc == Int32(SPNG_EOI.rawValue) else { throw .corrupt(detail: "PNG: the image data goes on past the last row") }
            }
            // The chunks after the image data up to IEND, whole, as a strict whole-image decode wants.
            let tail = spng_decode_chunks(context)
            if tail != 0 { throw PNGCodec.error(tail, "reading the chunks after the image data") }
            if !endsWithIEND() { throw .truncated(detail: "PNG: the file ends inside the IEND chunk") }
        }
    }

    /// Whether walking the chunks from the start reaches a whole IEND chunk (as
    /// `PNGCodec.endsWithIEND` does for bytes in memory).
    private func endsWithIEND() -> Bool {
        guard case .found(_, let end) = PNGCodec.firstChunk(among: ["IEND"], maxChunks: 1_000_000, read: source.bytes) else { return false }
        return source.bytes(at: end - 4, count: 4).count == 4
    }
}
