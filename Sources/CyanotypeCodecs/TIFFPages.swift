import CCodecShims
import Foundation

/// The pages (image file directories) of a TIFF. The directory chain is walked here in Swift
/// first, classic TIFF and BigTIFF, counting pages without decoding any and stopping past the
/// frame limit, so a file claiming a million pages costs a walk of at most `maxFrames` offsets;
/// loops in the chain are refused. Each page is then read by libtiff (its own header, depth
/// and profile) at its own size.
struct TIFFPages: FrameSource {
    let sequence: FrameSequence
    let data: Data
    let limits: DecodeLimits
    let strict: Bool
    var isSequential: Bool { false }

    init(data: Data, limits: DecodeLimits, strict: Bool) throws(ImageFileError) {
        self.data = data
        self.limits = limits
        self.strict = strict
        let count = try withBytes(data) { (b) throws(ImageFileError) in try TIFFPages.count(b, limit: limits.maxFrames) }
        // One reader walks the pages in order (libtiff keeps the offsets it has seen).
        let headers: [ImageHeader] = try withBytes(data) { (b) throws(ImageFileError) in
            try TIFFCodec.withReader(b, maxAlloc: DecodeLimits.default.maxBytes) { (r) throws(ImageFileError) in
                var headers: [ImageHeader] = []
                var total = 0
                for page in 0..<count {
                    do throws(ImageFileError) {
                        if page > 0 { try TIFFPages.select(r, page) }
                        let info = try TIFFCodec.info(r)
                        var h = TIFFCodec.header(r, info)
                        TIFFCodec.addMetadata(&h, info, b, page: page)
                        headers.append(h)
                    } catch {
                        // A damaged later page: strict reads fail, lenient ones keep the pages before it.
                        if strict || page == 0 { throw TIFFPages.named(error, page: page, of: count) }
                        break
                    }
                    let h = headers[page]
                    let (px, o) = h.width.multipliedReportingOverflow(by: h.height)
                    total = o || total.addingReportingOverflow(px).overflow ? .max : total + px
                    guard total <= limits.maxTotalPixels else { throw ImageFileError.tooManyFrames(count: count, limit: page) }
                }
                return headers
            }
        }
        let frames = headers.map { FrameInfo(x: 0, y: 0, width: $0.width, height: $0.height, delay: 0) }
        sequence = FrameSequence(
            format: .tiff, canvasWidth: headers[0].width, canvasHeight: headers[0].height, loopCount: nil,
            frames: frames, isAnimation: false, headers: headers)
    }

    mutating func reset() {}

    mutating func decode(_ index: Int) throws(ImageFileError) -> DecodedBitmap {
        do {
            return try withBytes(data) { (b) throws(ImageFileError) in try TIFFCodec.decode(b, limits: limits, strict: strict, page: index) }
        } catch {
            throw TIFFPages.named(error, page: index, of: sequence.frameCount)
        }
    }

    static func named(_ e: ImageFileError, page: Int, of count: Int) -> ImageFileError {
        guard count > 1 else { return e }
        switch e {
        case .truncated(let d): return .truncated(detail: "page \(page + 1) of \(count): \(d)")
        case .corrupt(let d): return .corrupt(detail: "page \(page + 1) of \(count): \(d)")
        default: return e
        }
    }

    /// Makes page `index` the one libtiff reads.
    static func select(_ r: OpaquePointer, _ index: Int) throws(ImageFileError) {
        guard index <= Int(UInt32.max) else { throw .invalidArgument("TIFF page \(index) does not exist") }
        let rc = cy_tiff_set_directory(r, UInt32(index))
        guard rc == 0 else { throw TIFFCodec.error(r, rc, stage: "selecting page \(index + 1)") }
    }

    /// The number of directories, walking the chain of offsets (at least 1 for a readable
    /// header). Throws `.tooManyFrames` past `limit` and `.corrupt` for a loop.
    static func count(_ b: UnsafeRawBufferPointer, limit: Int) throws(ImageFileError) -> Int {
        guard b.count >= 8 else { throw .truncated(detail: "TIFF header: \(b.count) bytes") }
        let little: Bool
        if b[0] == 0x49 && b[1] == 0x49 {
            little = true
        } else if b[0] == 0x4D && b[1] == 0x4D {
            little = false
        } else {
            throw .corrupt(detail: "TIFF: byte order mark")
        }
        func u16(_ at: Int) -> Int { little ? Int(b[at]) | Int(b[at + 1]) << 8 : Int(b[at]) << 8 | Int(b[at + 1]) }
        func u32(_ at: Int) -> Int { little ? b.le32(at) : b.be32(at) }
        func u64(_ at: Int) -> UInt64 {
            var v: UInt64 = 0
            for i in 0..<8 { v |= UInt64(b[at + i]) << (little ? 8 * i : 8 * (7 - i)) }
            return v
        }
        let big = u16(2) == 43
        guard big || u16(2) == 42 else { throw .corrupt(detail: "TIFF: version \(u16(2))") }
        if big { guard b.count >= 16 else { throw .truncated(detail: "BigTIFF header") } }
        var offset: UInt64 = big ? u64(8) : UInt64(u32(4))
        var seen = Set<UInt64>()
        var pages = 0
        while offset != 0 {
            // A chain that runs off the end: the pages before it stand (libtiff says the same).
            let entrySize = big ? 20 : 12, countSize = big ? 8 : 2, nextSize = big ? 8 : 4
            guard offset <= UInt64(b.count - countSize) else { break }
            let at = Int(offset)
            let entries = big ? Int(min(u64(at), 1 << 32)) : u16(at)
            let next = at + countSize + entries * entrySize
            guard seen.insert(offset).inserted else { throw .corrupt(detail: "TIFF: the page chain loops back to page \(pages)") }
            pages += 1
            if pages > limit { throw .tooManyFrames(count: pages, limit: limit) }
            guard next + nextSize <= b.count else { break }
            offset = big ? u64(next) : UInt64(u32(next))
        }
        guard pages > 0 else { throw .corrupt(detail: "TIFF: no image directory") }
        return pages
    }
}

/// Writes pages into one TIFF with libtiff (one directory each, LZW by default, the PageNumber
/// tag when the page count is known; the ICC profile on every page, EXIF and XMP in the first).
final class TIFFPageWriter: FrameSink {
    let options: EncodeOptions
    let pageCount: Int
    var writer: OpaquePointer?
    var pages = 0

    init(options: EncodeOptions, pageCount: Int) throws(ImageFileError) {
        self.options = options
        self.pageCount = pageCount
        guard let w = cy_tiff_writer_create() else { throw .encodeFailed(detail: "TIFF: cannot start a writer") }
        writer = w
    }
    deinit { if let writer { cy_tiff_writer_destroy(writer) } }

    func add(_ pixels: FramePixels, width: Int, height: Int, hasAlpha: Bool, delay: Double) throws(ImageFileError) {
        guard width <= Int(UInt32.max), height <= Int(UInt32.max) else { throw .invalidArgument("TIFF page too large") }
        let grey: Bool
        switch pixels {
        case _ where options.grayscale: grey = true
        case _ where !options.grayscaleIfNeutral: grey = false
        case .u8(let p): grey = ImageCodecs.isNeutral(p)
        case .u16(let p): grey = ImageCodecs.isNeutral(p)
        case .f32(let p): grey = ImageCodecs.isNeutral(p)
        }
        let channels = grey ? (hasAlpha ? 2 : 1) : (hasAlpha ? 4 : 3)
        var msg = [CChar](repeating: 0, count: 256)
        let icc = options.iccProfile ?? Data()
        func write<T>(_ p: UnsafeBufferPointer<T>, bits: Int) throws(ImageFileError) {
            let packed = TIFFPageWriter.pack(p, width: width, height: height, channels: channels, grey: grey)
            let rc: Int32 = icc.withUnsafeBytes { iccRaw in
                packed.withUnsafeBytes { px in
                    cy_tiff_writer_add_page(
                        writer, px.baseAddress, UInt32(width), UInt32(height), Int32(channels), Int32(bits), options.tiffCompression.code,
                        Int32(options.orientation), iccRaw.baseAddress, UInt32(iccRaw.count), options.dpi ?? 0, Int32(pages),
                        Int32(pageCount), &msg, 256)
                }
            }
            guard rc == 0 else {
                throw .encodeFailed(detail: "TIFF page \(pages + 1): " + msg.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
            }
        }
        switch pixels {
        case .u8(let p): try write(p, bits: 8)
        case .u16(let p): try write(p, bits: 16)
        case .f32(let p): try write(p, bits: 32)
        }
        pages += 1
    }

    /// The samples TIFF stores: all four, RGB, grey (green) or grey + alpha.
    static func pack<T>(_ p: UnsafeBufferPointer<T>, width: Int, height: Int, channels: Int, grey: Bool) -> [T] {
        let n = width * height
        if channels == 4 { return Array(p.prefix(n * 4)) }
        let picks: [Int] = grey ? (channels == 2 ? [1, 3] : [1]) : [0, 1, 2]
        var out: [T] = []
        out.reserveCapacity(n * channels)
        for i in 0..<n { for k in picks { out.append(p[i * 4 + k]) } }
        return out
    }

    func finish(loopCount: Int?) throws(ImageFileError) -> Data {
        guard let w = writer else { throw .encodeFailed(detail: "TIFF: the writer is closed") }
        writer = nil
        var out: UnsafeMutableRawPointer?
        var length = 0
        var msg = [CChar](repeating: 0, count: 256)
        let rc = cy_tiff_writer_finish(w, &out, &length, &msg, 256)
        guard rc == 0, let out else {
            throw .encodeFailed(detail: "TIFF: " + msg.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }
        defer { cy_tiff_free(out) }
        // EXIF and XMP join the first page's directory, as for a one-page TIFF.
        return TIFFCodec.withMetadata(Data(bytes: out, count: length), options)
    }
}
