import CCodecShims
import Foundation

/// A JPEG decoder handing out RGBA8 rows a band at a time, top first, so rendering can begin
/// before the whole file is decoded. Gives the pixels `ImageCodecs.decode` gives (the same
/// libjpeg-turbo settings). Meant for baseline YCbCr or grey files (`canStream`): progressive
/// files only produce rows once every scan is in, CMYK needs its conversion, and lenient
/// decoding its grey fill, so those go through `ImageCodecs.decode`. One thread reads.
public final class JPEGStreamDecoder: @unchecked Sendable {
    private let handle: OpaquePointer
    /// The compressed bytes, read in place (not copied): every call into libjpeg runs inside
    /// `withUnsafeBytes` and first tells the decoder where they lie for that call. nil when
    /// the decoder reads them from a file.
    private let data: Data?
    /// The size of the rows handed out, in pixels (reduced when `reduction` is above 1).
    public let width: Int, height: Int
    /// Rows handed out so far, from the top.
    public private(set) var rowsRead = 0

    /// Whether this file decodes row by row through this decoder with the pixels
    /// `ImageCodecs.decode` gives: a sequential (baseline or extended, Huffman) 8-bit YCbCr or
    /// grey JPEG, decoded strictly.
    public static func canStream(_ data: Data, header: ImageHeader, strict: Bool) -> Bool {
        guard header.format == .jpeg, strict, header.bitDepth == 8, header.colorModel == "RGB" || header.colorModel == "Gray" else { return false }
        let frame = data.withUnsafeBytes { JPEGMarkers($0).frameType }
        return frame == 0xC0 || frame == 0xC1
    }

    /// Starts decoding `data`; with `reduction` 2, 4 or 8 the rows come out at that fraction of
    /// the file's size (rounded up), scaled in the IDCT (what `ImageCodecs.decode(_:reducedBy:)`
    /// gives for the same factor).
    public init(data: Data, strict: Bool = true, limits: DecodeLimits = .default, reduction: Int = 1) throws(ImageFileError) {
        guard !data.isEmpty else { throw .empty }
        self.data = data
        var w: Int32 = 0, h: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let made = data.withUnsafeBytes { (b: UnsafeRawBufferPointer) in
            cy_jpeg_decoder_create_scaled(
                b.bindMemory(to: UInt8.self).baseAddress, b.count, strict ? 1 : 0, Int32(clamping: reduction), &w, &h, &message,
                message.count)
        }
        guard let d = made else { throw Self.failure(Self.text(message)) }
        (handle, width, height) = (d, Int(w), Int(h))
        try checkLimit(limits)
    }

    /// Starts decoding the JPEG file `file` names, reading it 64 KiB at a time rather than
    /// holding it: the file must still be the one `file` describes (else `.ioError`, "changed
    /// since it was read"). `reduction` as for `init(data:...)`.
    public init(file: FileIdentity, strict: Bool = true, limits: DecodeLimits = .default, reduction: Int = 1) throws(ImageFileError) {
        let fd = try file.open()
        data = nil
        var w: Int32 = 0, h: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        guard let d = cy_jpeg_decoder_create_fd(fd, strict ? 1 : 0, Int32(clamping: reduction), &w, &h, &message, message.count) else {
            throw Self.failure(Self.text(message))
        }
        (handle, width, height) = (d, Int(w), Int(h))
        try checkLimit(limits)
    }

    private func checkLimit(_ limits: DecodeLimits) throws(ImageFileError) {
        let limit = limits.pixelLimit(bytesPerPixel: 4)
        guard width * height <= limit else { throw .tooLarge(width: width, height: height, limit: limit) }
    }

    deinit { cy_jpeg_decoder_destroy(handle) }

    /// Decodes the next `count` rows into `rows`, `rowBytes` apart.
    public func read(into rows: UnsafeMutableRawPointer, rowBytes: Int, count: Int) throws(ImageFileError) {
        guard count >= 0, rowsRead + count <= height, rowBytes >= width * 4 else {
            throw .invalidArgument("JPEG: \(count) rows of \(rowBytes) bytes after \(rowsRead) of \(height)")
        }
        var message = [CChar](repeating: 0, count: 256)
        let rc: Int32
        if let data {
            rc = data.withUnsafeBytes { (b: UnsafeRawBufferPointer) -> Int32 in
                let base = b.bindMemory(to: UInt8.self).baseAddress
                guard cy_jpeg_decoder_rebase(handle, base, b.count) == 0 else { return -1 }
                return cy_jpeg_decoder_read(handle, rows.assumingMemoryBound(to: UInt8.self), rowBytes, Int32(count), &message, message.count)
            }
        } else {
            rc = cy_jpeg_decoder_read(handle, rows.assumingMemoryBound(to: UInt8.self), rowBytes, Int32(count), &message, message.count)
        }
        guard rc == 0 else { throw Self.failure(Self.text(message)) }
        rowsRead += count
    }

    /// Classified as the one-shot decoder classifies the same libjpeg message.
    private static func failure(_ text: String) -> ImageFileError {
        if text.contains("Premature end") || text.contains("insufficient data") { return .truncated(detail: "JPEG data: \(text)") }
        return .corrupt(detail: "JPEG data: \(text)")
    }

    private static func text(_ m: [CChar]) -> String {
        String(decoding: m.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
