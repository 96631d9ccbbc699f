import CCodecShims
import Foundation

/// A TIFF decoder handing out RGBA rows a band at a time, top first, so rendering can begin
/// before the whole image is decoded and decoded rows can be given back behind it: RGBA8 for
/// 8-bit files, RGBA16 (native-endian) for 16-bit ones (`bitDepth`). libtiff decodes one
/// strip, or one row of tiles, at a time; the pixels are those `ImageCodecs.decode` gives.
/// Meant for strict decodes of the first page of grey or RGB(A) files of 8 or 16 bits a
/// sample, stored contiguously, uncompressed or compressed with LZW or deflate (`canStream`);
/// other kinds decode whole. The compressed bytes are read as libtiff asks for them, from
/// memory or from the file. One thread reads.
public final class TIFFStreamDecoder: @unchecked Sendable {
    private let reader: OpaquePointer
    /// The bytes libtiff reads in place when the decoder was made from memory: every call
    /// that reads them runs inside `withUnsafeBytes` and first tells the reader where they lie.
    /// nil when the decoder reads them from a file.
    private let data: Data?
    private let mode: Int32
    /// The image's size in pixels.
    public let width: Int, height: Int
    /// Bits of each sample handed out: 8 (RGBA8 rows) or 16 (RGBA16 rows, native-endian).
    public let bitDepth: Int
    /// Rows handed out so far, from the top.
    public private(set) var rowsRead = 0

    /// Compression codes whose strips decode on their own: none, LZW, deflate (both codes).
    static let streamedCompressions: Set<Int> = [1, 5, 8, 32946]

    /// Whether `data` (a TIFF whose header is `header`) decodes row by row through this
    /// decoder: its first page, 8 or 16-bit grey or RGB(A), contiguous, uncompressed, LZW or
    /// deflate, decoded strictly.
    public static func canStream(_ data: Data, header: ImageHeader, strict: Bool) -> Bool {
        guard header.format == .tiff, strict, header.bitDepth == 8 || header.bitDepth == 16,
            case .int(let compression)? = header.formatProperties["Compression"], streamedCompressions.contains(compression)
        else { return false }
        return data.withUnsafeBytes { raw in
            guard let r = cy_tiff_open(raw.baseAddress, raw.count, Int64(DecodeLimits.default.maxBytes)) else { return false }
            defer { cy_tiff_close(r) }
            var info = cy_tiff_info()
            guard cy_tiff_status(r) == 0, cy_tiff_get_info(r, &info) == 0 else { return false }
            return info.mode == Int32(CY_TIFF_MODE_U8) || info.mode == Int32(CY_TIFF_MODE_U16)
        }
    }

    /// Reads the header and first directory; a file over `limits` throws `.tooLarge` before
    /// any pixel is decoded, one that does not stream `.invalidArgument`.
    public convenience init(data: Data, limits: DecodeLimits = .default) throws(ImageFileError) {
        guard !data.isEmpty else { throw .empty }
        let made = try withBytes(data) { raw throws(ImageFileError) -> (OpaquePointer, cy_tiff_info) in
            guard let r = cy_tiff_open(raw.baseAddress, raw.count, Int64(max(limits.maxBytes, 16 << 20))) else {
                throw .corrupt(detail: "TIFF: out of memory creating a decoder")
            }
            return (r, try Self.info(r))
        }
        try self.init(reader: made.0, info: made.1, data: data, limits: limits)
    }

    /// Starts decoding the TIFF file `file` names, reading it as libtiff asks rather than
    /// holding it: the file must still be the one `file` describes (else `.ioError`, "changed
    /// since it was read").
    public convenience init(file: FileIdentity, limits: DecodeLimits = .default) throws(ImageFileError) {
        let fd = try file.open()
        guard let opened = cy_tiff_open_fd(fd, Int64(max(limits.maxBytes, 16 << 20))) else {
            throw .ioError(path: file.path, detail: "could not start reading the file")
        }
        try self.init(reader: opened, info: try Self.info(opened), data: nil, limits: limits)
    }

    /// The first directory's description; closes `r` when it cannot be read.
    private static func info(_ r: OpaquePointer) throws(ImageFileError) -> cy_tiff_info {
        var info = cy_tiff_info()
        var rc = cy_tiff_status(r)
        if rc == 0 { rc = cy_tiff_get_info(r, &info) }
        guard rc == 0 else {
            let e = TIFFCodec.error(r, rc, stage: "reading the header")
            cy_tiff_close(r)
            throw e
        }
        return info
    }

    private init(reader r: OpaquePointer, info: cy_tiff_info, data: Data?, limits: DecodeLimits) throws(ImageFileError) {
        let sixteen = info.mode == Int32(CY_TIFF_MODE_U16)
        guard sixteen || info.mode == Int32(CY_TIFF_MODE_U8), Self.streamedCompressions.contains(Int(info.compression)) else {
            cy_tiff_close(r)
            throw .invalidArgument("TIFF: this kind of file (compression \(info.compression)) does not stream")
        }
        let (w, h) = (Int(info.width), Int(info.height))
        let limit = limits.pixelLimit(bytesPerPixel: sixteen ? 8 : 4)
        let (pixels, overflow) = w.multipliedReportingOverflow(by: h)
        guard w > 0, h > 0, !overflow, pixels <= limit else {
            cy_tiff_close(r)
            throw .tooLarge(width: w, height: h, limit: limit)
        }
        (reader, self.data, mode, width, height, bitDepth) = (r, data, info.mode, w, h, sixteen ? 16 : 8)
    }

    deinit { cy_tiff_close(reader) }

    /// Decodes the next `count` rows into `rows`, `rowBytes` apart (at least `width` pixels of
    /// 4 or 8 bytes, as `bitDepth` says). A strip or tile that fails throws its typed error
    /// (`.truncated` when the file ends first).
    public func read(into rows: UnsafeMutableRawPointer, rowBytes: Int, count: Int) throws(ImageFileError) {
        let pixelBytes = bitDepth == 16 ? 8 : 4
        guard count >= 0, rowsRead + count <= height, rowBytes >= width * pixelBytes else {
            throw .invalidArgument("TIFF: \(count) rows of \(rowBytes) bytes after \(rowsRead) of \(height)")
        }
        let rc: Int32
        if let data {
            rc = data.withUnsafeBytes { raw in
                cy_tiff_rebind(reader, raw.baseAddress)
                return cy_tiff_read_rows(reader, mode, rows, rowBytes, UInt32(rowsRead), UInt32(count))
            }
        } else {
            rc = cy_tiff_read_rows(reader, mode, rows, rowBytes, UInt32(rowsRead), UInt32(count))
        }
        guard rc == 0 else { throw TIFFCodec.error(reader, rc, stage: "decoding rows \(rowsRead) to \(rowsRead + count)") }
        rowsRead += count
    }
}
