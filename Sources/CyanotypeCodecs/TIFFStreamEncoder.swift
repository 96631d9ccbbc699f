import CCodecShims
import Foundation

/// A TIFF encoder fed bands of RGBA rows (8-bit, 16-bit native endian, or 32-bit float), top
/// first, that writes the file into its sink as strips fill: libtiff's strips of its default
/// size are appended as they complete, the directory at the end, then the EXIF and XMP of
/// `options` as a new first directory (`ImageCodecs.tiffMetadataTail`). Memory is one packed
/// row and one strip whatever the image's size. The whole-image encoder
/// (`TIFFCodec.encode`) runs through it, so both write the same bytes. Not thread-safe: one
/// thread writes, in order.
public final class TIFFStreamEncoder: @unchecked Sendable {
    /// The image's size in pixels.
    public let width: Int, height: Int
    /// Rows written so far.
    public private(set) var rowsWritten = 0

    private let sink: ByteSink
    /// Where the file starts in the sink (its count when the encoder was made).
    private let origin: Int
    private let options: EncodeOptions
    private let bytesPerSample: Int
    /// Samples taken per pixel from RGBA: all four, RGB, grey (green) or grey and alpha.
    private let picks: [Int]
    private let row: UnsafeMutableRawPointer
    private var stream: OpaquePointer?
    /// The sink's error, which libtiff only sees as a failed write.
    fileprivate var sinkError: ImageFileError?
    /// Copies of the bytes libtiff wrote into the header and, once the rows are all in, the
    /// directory: what the EXIF and XMP directory is built from (an output file is written,
    /// not read back).
    fileprivate var shadow: [(offset: Int, bytes: [UInt8])] = []
    fileprivate var shadowing = false

    /// A TIFF of `width` x `height` with `bits` 8, 16 or 32 (float) per sample, RGB or RGBA
    /// (`hasAlpha`), grey (and alpha) with `options.grayscale`, `options`' compression, ICC
    /// profile, orientation, resolution, EXIF and XMP, written into `sink` as rows arrive.
    public init(width: Int, height: Int, bits: Int, hasAlpha: Bool, options: EncodeOptions, sink: ByteSink) throws(ImageFileError) {
        guard width > 0, height > 0, width <= Int(UInt32.max), height <= Int(UInt32.max) else {
            throw .invalidArgument("TIFF width and height must be 1...\(UInt32.max), got \(width)x\(height)")
        }
        guard (1...8).contains(options.orientation) else {
            throw .invalidArgument("TIFF orientation must be 1...8, got \(options.orientation)")
        }
        guard bits == 8 || bits == 16 || bits == 32 else { throw .invalidArgument("TIFF samples must be 8, 16 or 32 bits, got \(bits)") }
        self.width = width
        self.height = height
        self.sink = sink
        self.options = options
        origin = sink.count
        bytesPerSample = bits / 8
        picks = options.grayscale ? (hasAlpha ? [1, 3] : [1]) : (hasAlpha ? [0, 1, 2, 3] : [0, 1, 2])
        let (rowBytes, overflow) = width.multipliedReportingOverflow(by: picks.count * bytesPerSample)
        guard !overflow, rowBytes < 1 << 40 else { throw .invalidArgument("TIFF: a \(width)x\(height) image is too large to encode") }
        row = .allocate(byteCount: rowBytes, alignment: 64)
        let output = cy_tiff_output(
            context: Unmanaged.passUnretained(self).toOpaque(),
            append: { context, bytes, count in
                let me = Unmanaged<TIFFStreamEncoder>.fromOpaque(context!).takeUnretainedValue()
                let chunk = UnsafeRawBufferPointer(start: bytes, count: count)
                me.keep(chunk, at: me.sink.count - me.origin)
                return me.catching { () throws(ImageFileError) in try me.sink.append(chunk) }
            },
            patch: { context, offset, bytes, count in
                let me = Unmanaged<TIFFStreamEncoder>.fromOpaque(context!).takeUnretainedValue()
                let chunk = UnsafeRawBufferPointer(start: bytes, count: count)
                me.keep(chunk, at: Int(offset))
                return me.catching { () throws(ImageFileError) in try me.sink.overwrite(at: me.origin + Int(offset), chunk) }
            },
            read: { context, offset, bytes, count in
                let me = Unmanaged<TIFFStreamEncoder>.fromOpaque(context!).takeUnretainedValue()
                do throws(ImageFileError) {
                    return Int64(try me.sink.read(at: me.origin + Int(offset), into: UnsafeMutableRawBufferPointer(start: bytes, count: count)))
                } catch {
                    me.sinkError = me.sinkError ?? error
                    return -1
                }
            })
        var msg = [CChar](repeating: 0, count: 256)
        let icc = options.iccProfile ?? Data()
        stream = icc.withUnsafeBytes { iccRaw in
            cy_tiff_stream_create(
                output, UInt32(width), UInt32(height), Int32(picks.count), Int32(bits), options.tiffCompression.code,
                Int32(options.orientation), iccRaw.baseAddress, UInt32(iccRaw.count), options.dpi ?? 0, &msg, 256)
        }
        guard stream != nil else { throw failure(msg) }
    }

    deinit {
        cy_tiff_stream_destroy(stream)
        row.deallocate()
    }

    /// Keeps a copy of bytes written at `offset` (from the file's start) in the header, or
    /// anywhere while the directory is written.
    private func keep(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        guard shadowing || offset < 8 else { return }
        shadow.append((offset, Array(bytes)))
    }

    /// The kept copy of `count` bytes at `offset` (later writes over earlier ones); nil when
    /// some of them were not kept.
    private func kept(at offset: Int, count: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: count)
        var have = [Bool](repeating: false, count: count)
        for (at, bytes) in shadow where at < offset + count && at + bytes.count > offset {
            for i in max(at, offset)..<min(at + bytes.count, offset + count) {
                out[i - offset] = bytes[i - at]
                have[i - offset] = true
            }
        }
        return have.allSatisfy { $0 } ? out : nil
    }

    /// Runs a sink call for libtiff: 0, or -1 with the error kept.
    private func catching(_ body: () throws(ImageFileError) -> Void) -> Int32 {
        do throws(ImageFileError) {
            try body()
            return 0
        } catch {
            sinkError = sinkError ?? error
            return -1
        }
    }

    /// The sink's error when it failed, else libtiff's message.
    private func failure(_ msg: [CChar]) -> ImageFileError {
        if let sinkError { return sinkError }
        let text = msg.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return .encodeFailed(detail: "TIFF: \(text)")
    }

    /// Appends `count` rows of RGBA samples of the encoder's size (straight alpha; alpha
    /// dropped for RGB, green taken for grey), `rowBytes` apart.
    public func write(_ rows: UnsafeRawPointer, rowBytes: Int, count: Int) throws(ImageFileError) {
        guard let stream, count >= 0, rowsWritten + count <= height, rowBytes >= width * 4 * bytesPerSample else {
            throw .invalidArgument("TIFF: \(count) rows of \(rowBytes) bytes after \(rowsWritten) of \(height)")
        }
        var msg = [CChar](repeating: 0, count: 256)
        for r in 0..<count {
            pack(rows + r * rowBytes)
            // libtiff may change the row it is given (the predictor): it is our copy.
            guard cy_tiff_stream_write(stream, row, width * picks.count * bytesPerSample, 1, &msg, 256) == 0 else { throw failure(msg) }
            rowsWritten += 1
        }
    }

    /// Ends the file (the last strip, the directory, the EXIF and XMP) once every row is
    /// written, and flushes the sink.
    public func finish() throws(ImageFileError) {
        guard let stream, rowsWritten == height else { throw .invalidArgument("TIFF: \(rowsWritten) of \(height) rows written") }
        var msg = [CChar](repeating: 0, count: 256)
        var length: UInt64 = 0
        shadowing = options.exif?.isEmpty == false || options.xmp?.isEmpty == false
        let rc = cy_tiff_stream_finish(stream, &length, &msg, 256)
        shadowing = false
        cy_tiff_stream_destroy(stream)
        self.stream = nil
        guard rc == 0 else { throw failure(msg) }
        try appendMetadata(fileLength: Int(length))
        try sink.flush()
    }

    /// Adds the EXIF and XMP as a new first directory (the file's own entries kept), read
    /// from the copies kept of the header and the directory libtiff wrote.
    private func appendMetadata(fileLength: Int) throws(ImageFileError) {
        let exif = options.exif.flatMap { $0.isEmpty ? nil : $0 }, xmp = options.xmp.flatMap { $0.isEmpty ? nil : $0 }
        guard exif != nil || xmp != nil else { return }
        func bytes(at offset: Int, count: Int) throws(ImageFileError) -> [UInt8] {
            guard let b = kept(at: offset, count: count) else { throw .encodeFailed(detail: "TIFF: the directory written was not kept") }
            return b
        }
        // The header and IFD0 as kept, the directory moved to just after the header (its
        // entries are copied as they are: their offsets point into the file, not the copy).
        var copy = try bytes(at: 0, count: 8)
        guard let header = TIFFBlock(copy), let first = header.firstIFD else { return }
        header.put32(&copy, 4, 8)
        copy += try bytes(at: first, count: 2)
        guard let entries = TIFFBlock(copy)?.u16(8) else { return }
        copy += try bytes(at: first + 2, count: 12 * entries + 4)
        guard let file = TIFFBlock(copy), let ifd0 = ImageCodecs.firstDirectory(of: file),
            let tail = ImageCodecs.tiffMetadataTail(ifd0: ifd0.raw, next: ifd0.next, little: file.little, fileLength: fileLength, exif: exif, xmp: xmp)
        else { return }
        try sink.append(tail.bytes)
        var offset = [UInt8](repeating: 0, count: 4)
        IFDWriter.set32(&offset, at: 0, tail.directory, little: file.little)
        try offset.withUnsafeBytes { raw in Result { () throws(ImageFileError) in try sink.overwrite(at: origin + 4, raw) } }.get()
    }

    /// One row of RGBA samples packed into `row` as the file stores them.
    private func pack(_ source: UnsafeRawPointer) {
        if picks.count == 4 {
            row.copyMemory(from: source, byteCount: width * 4 * bytesPerSample)
            return
        }
        switch bytesPerSample {
        case 1: pack(source.assumingMemoryBound(to: UInt8.self), row.assumingMemoryBound(to: UInt8.self))
        case 2: pack(source.assumingMemoryBound(to: UInt16.self), row.assumingMemoryBound(to: UInt16.self))
        default: pack(source.assumingMemoryBound(to: UInt32.self), row.assumingMemoryBound(to: UInt32.self))
        }
    }

    private func pack<T>(_ src: UnsafePointer<T>, _ dst: UnsafeMutablePointer<T>) {
        let channels = picks.count
        let k0 = picks[0], k1 = channels > 1 ? picks[1] : 0, k2 = channels > 2 ? picks[2] : 0
        switch channels {
        case 1:
            for i in 0..<width { dst[i] = src[4 * i + k0] }
        case 2:
            for i in 0..<width {
                dst[2 * i] = src[4 * i + k0]
                dst[2 * i + 1] = src[4 * i + k1]
            }
        default:
            for i in 0..<width {
                dst[3 * i] = src[4 * i + k0]
                dst[3 * i + 1] = src[4 * i + k1]
                dst[3 * i + 2] = src[4 * i + k2]
            }
        }
    }
}
