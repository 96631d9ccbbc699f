import CDeflate
import Foundation

/// Writes PNG files. Decoding goes through libspng; encoding does not, because libspng
/// deflates the image data itself, on one thread with zlib, and cannot take data compressed
/// elsewhere. Here the rows are filtered and deflated in bands of about `bandBytes`, each band
/// on whatever thread the caller's `ParallelFor` gives it, with libdeflate (about 4x zlib's
/// speed at level 6 on photos, and smaller output). PNG holds one zlib stream, so the bands'
/// raw deflate streams are joined: every band but the last has its final-block bit cleared
/// and ends with an empty stored block (byte-aligned, as zlib's Z_SYNC_FLUSH ends), the
/// stream gets its 2-byte header and the Adler-32 of all the bands (`adler32_combine`).
/// Band boundaries depend only on the image's shape, so the bytes do not depend on how many
/// threads ran. Owning the image data means writing the chunk framing too: signature, IHDR,
/// iCCP, pHYs, eXIf, iTXt, IDAT and IEND, exactly as the PNG specification (third edition)
/// lays them out.
enum PNGWriter {
    /// Filtered bytes per band (whole rows; at least one row).
    static let bandBytes = 2 << 20
    /// The largest IDAT chunk written.
    static let idatChunkBytes = 1 << 20
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// What one row of the file holds.
    struct Layout: Sendable {
        let width: Int, height: Int
        /// Samples per pixel in the file: 1 grey, 2 grey + alpha, 3 RGB, 4 RGBA.
        let channels: Int
        let sixteen: Bool
        /// Bytes per pixel (the filters' left distance) and per row, without the filter byte.
        var bpp: Int { channels * (sixteen ? 2 : 1) }
        let rowBytes: Int
        var colorType: UInt8 {
            switch channels {
            case 1: return 0
            case 2: return 4
            case 3: return 2
            default: return 6
            }
        }
    }

    /// One band's compressed data (malloc'd), or why it failed.
    struct Band {
        var data: UnsafeMutablePointer<UInt8>? = nil
        var count = 0
        var adler: UInt32 = 1
        var inputCount = 0
        var error: ImageFileError? = nil
    }

    /// Pointers handed to the parallel loop; each body touches only its own band slot.
    struct Shared: @unchecked Sendable {
        let source: UnsafeRawPointer
        let bands: UnsafeMutablePointer<Band>
    }

    /// How one PNG is written: its row layout, deflate level, row filter, and the chunks that
    /// go between IHDR and the image data.
    struct Plan {
        let layout: Layout
        let level: Int
        let filter: PNGFilter
        let extra: [(type: String, payload: [UInt8])]

        /// Filtered rows per band (whole rows; at least one).
        func rowsPerBand(_ bandBytes: Int) -> Int { max(1, bandBytes / (layout.rowBytes + 1)) }

        /// Signature, IHDR and the extra chunks.
        func writeHead(to sink: ByteSink) throws(ImageFileError) {
            try sink.append(signature)
            var ihdr = be32(layout.width) + be32(layout.height)
            ihdr += [layout.sixteen ? 16 : 8, layout.colorType, 0, 0, 0]
            try sink.append(chunk("IHDR", ihdr))
            for c in extra { try sink.append(chunk(c.type, c.payload)) }
        }

        /// The zlib stream's 2-byte header for this level.
        var zlibHeader: [UInt8] {
            let flevel: UInt8 = level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3
            var head: [UInt8] = [0x78, flevel << 6]
            head[1] |= UInt8(31 - (UInt16(head[0]) << 8 | UInt16(head[1])) % 31) % 31
            return head
        }
    }

    /// The zlib stream cut into IDAT chunks of `idatChunkBytes` (the last one shorter), each
    /// written as soon as it is full: where the stream's bytes came from (one band at a time
    /// or all at once) does not change the file.
    final class IDATStream {
        private let sink: ByteSink
        private let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: idatChunkBytes)
        private var filled = 0

        init(sink: ByteSink) { self.sink = sink }
        deinit { buffer.deallocate() }

        func append(_ bytes: UnsafeRawBufferPointer) throws(ImageFileError) {
            guard var p = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            var left = bytes.count
            while left > 0 {
                let take = min(left, idatChunkBytes - filled)
                (buffer + filled).update(from: p, count: take)
                filled += take
                p += take
                left -= take
                if filled == idatChunkBytes { try emit() }
            }
        }

        func append(_ array: [UInt8]) throws(ImageFileError) {
            let done = array.withUnsafeBytes { raw in Result { () throws(ImageFileError) in try append(raw) } }
            try done.get()
        }

        /// Writes the last, partial chunk.
        func finish() throws(ImageFileError) { if filled > 0 { try emit() } }

        private func emit() throws(ImageFileError) {
            try sink.append(be32(filled) + idatType)
            var crc = UInt32(libdeflate_crc32(0, idatType, 4))
            crc = UInt32(libdeflate_crc32(crc, buffer, filled))
            try sink.append(UnsafeRawBufferPointer(start: buffer, count: filled))
            try sink.append(be32(Int(crc)))
            filled = 0
        }
    }

    /// Encodes RGBA samples (8-bit, or 16-bit native endian) as the PNG `plan` describes,
    /// every band compressed at once through `parallel`, into `sink`.
    static func write<Sample: FixedWidthInteger & UnsignedInteger>(
        _ rgba: UnsafeBufferPointer<Sample>, plan: Plan, bandBytes: Int = bandBytes, parallel: ParallelFor, to sink: ByteSink
    ) throws(ImageFileError) {
        let layout = plan.layout
        guard let source = rgba.baseAddress else { throw .invalidArgument("PNG: no pixels") }
        let (filtered, overflow) = (layout.rowBytes + 1).multipliedReportingOverflow(by: layout.height)
        guard !overflow, filtered < Int.max / 2 else {
            throw .invalidArgument("PNG: a \(layout.width)x\(layout.height) image is too large to encode")
        }
        let rowsPerBand = plan.rowsPerBand(bandBytes)
        let bandCount = (layout.height + rowsPerBand - 1) / rowsPerBand
        let bands = UnsafeMutablePointer<Band>.allocate(capacity: bandCount)
        bands.initialize(repeating: Band(), count: bandCount)
        defer {
            for i in 0..<bandCount { free(bands[i].data) }
            bands.deinitialize(count: bandCount)
            bands.deallocate()
        }
        let shared = Shared(source: UnsafeRawPointer(source), bands: bands)
        parallel(bandCount) { i in
            let rows = (i * rowsPerBand)..<min(layout.height, (i + 1) * rowsPerBand)
            shared.bands[i] = compressBand(
                rows, source: shared.source, layout: layout, level: plan.level, filter: plan.filter,
                isLast: i == bandCount - 1)
        }
        for i in 0..<bandCount { if let e = bands[i].error { throw e } }

        // The zlib stream: header, the bands, Adler-32 of everything the bands compressed.
        try plan.writeHead(to: sink)
        let idat = IDATStream(sink: sink)
        try idat.append(plan.zlibHeader)
        var adler: UInt32 = 1
        for i in 0..<bandCount {
            adler = i == 0 ? bands[i].adler : UInt32(adler32_combine(uLong(adler), uLong(bands[i].adler), bands[i].inputCount))
            try idat.append(UnsafeRawBufferPointer(start: bands[i].data, count: bands[i].count))
            // A band copied out is freed at once: the file and every band's output are never
            // all in memory together.
            free(bands[i].data)
            bands[i].data = nil
        }
        try idat.append(be32(Int(adler)))
        try idat.finish()
        try sink.append(chunk("IEND", []))
        try sink.flush()
    }

    /// The file's bytes for `rgba` with this layout, level, filter and extra chunks.
    static func write<Sample: FixedWidthInteger & UnsignedInteger>(
        _ rgba: UnsafeBufferPointer<Sample>, layout: Layout, level: Int, filter: PNGFilter,
        extra: [(type: String, payload: [UInt8])], bandBytes: Int = bandBytes, parallel: ParallelFor
    ) throws(ImageFileError) -> Data {
        let sink = ByteSink()
        try write(rgba, plan: Plan(layout: layout, level: level, filter: filter, extra: extra), bandBytes: bandBytes, parallel: parallel, to: sink)
        return sink.data
    }

    static let idatType: [UInt8] = Array("IDAT".utf8)

    /// A chunk: length, type, data, CRC-32 of type and data.
    static func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let t = Array(type.utf8)
        var crc = t.withUnsafeBytes { libdeflate_crc32(0, $0.baseAddress, 4) }
        crc = payload.withUnsafeBytes { libdeflate_crc32(crc, $0.baseAddress, $0.count) }
        return be32(payload.count) + t + payload + be32(Int(crc))
    }

    static func be32(_ v: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: v >> 24), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)]
    }

    /// The iCCP payload: profile name, compression method 0, the zlib-compressed profile.
    static func iccpPayload(_ profile: Data) throws(ImageFileError) -> [UInt8] {
        guard let c = libdeflate_alloc_compressor(9) else { throw .encodeFailed(detail: "PNG iCCP: out of memory") }
        defer { libdeflate_free_compressor(c) }
        let bound = libdeflate_zlib_compress_bound(c, profile.count)
        var z = [UInt8](repeating: 0, count: bound)
        let n = profile.withUnsafeBytes { p in z.withUnsafeMutableBytes { libdeflate_zlib_compress(c, p.baseAddress, p.count, $0.baseAddress, bound) } }
        guard n > 0 else { throw .encodeFailed(detail: "PNG iCCP: the profile did not compress") }
        return Array("ICC Profile".utf8) + [0, 0] + z[0..<n]
    }

    // MARK: - One band

    /// Filters `rows` into one buffer and deflates it (raw deflate), leaving the stream open
    /// unless `isLast`.
    static func compressBand(_ rows: Range<Int>, source: UnsafeRawPointer, layout: Layout, level: Int, filter: PNGFilter, isLast: Bool) -> Band {
        let stride = layout.rowBytes + 1
        let n = rows.count * stride
        guard let filtered = malloc(n)?.assumingMemoryBound(to: UInt8.self) else {
            return Band(error: .encodeFailed(detail: "PNG: out of memory for \(n) bytes of rows"))
        }
        defer { free(filtered) }
        // Rows in the file's layout: the one above and this one; scratch for the adaptive choice.
        let direct = layout.channels == 4 && !layout.sixteen
        let scratchRows = (direct ? 1 : 3) + (filter == .adaptive ? 1 : 0)
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: layout.rowBytes * scratchRows)
        defer { scratch.deallocate() }
        let zero = scratch
        zero.initialize(repeating: 0, count: layout.rowBytes)
        var packed = (direct ? scratch : scratch + layout.rowBytes, direct ? scratch : scratch + 2 * layout.rowBytes)
        let trial = scratch + layout.rowBytes * (direct ? 1 : 3)
        func row(_ r: Int, into buffer: UnsafeMutablePointer<UInt8>) -> UnsafePointer<UInt8> {
            if direct { return UnsafePointer(source.assumingMemoryBound(to: UInt8.self) + r * layout.rowBytes) }
            if layout.sixteen {
                pack16(source.assumingMemoryBound(to: UInt16.self) + r * layout.width * 4, into: buffer, width: layout.width, channels: layout.channels)
            } else {
                pack8(source.assumingMemoryBound(to: UInt8.self) + r * layout.width * 4, into: buffer, width: layout.width, channels: layout.channels)
            }
            return UnsafePointer(buffer)
        }
        var above = rows.lowerBound == 0 ? UnsafePointer(zero) : row(rows.lowerBound - 1, into: packed.0)
        for r in rows {
            let current = row(r, into: packed.1)
            let out = filtered + (r - rows.lowerBound) * stride
            let type = filter == .adaptive ? chooseFilter(current, above, trial, layout) : filterType(filter)
            out[0] = type
            PNGFilters.apply(type, current, above, out + 1, layout.rowBytes, layout.bpp)
            above = current
            packed = (packed.1, packed.0)
        }

        var band = Band(adler: UInt32(libdeflate_adler32(1, filtered, n)), inputCount: n)
        guard let c = libdeflate_alloc_compressor(Int32(level)) else {
            band.error = .encodeFailed(detail: "PNG: out of memory for a compressor")
            return band
        }
        defer { libdeflate_free_compressor(c) }
        let capacity = libdeflate_deflate_compress_bound(c, n) + 16
        guard let data = malloc(capacity)?.assumingMemoryBound(to: UInt8.self) else {
            band.error = .encodeFailed(detail: "PNG: out of memory for \(capacity) bytes of compressed rows")
            return band
        }
        band.data = data
        band.count = libdeflate_deflate_compress(c, filtered, n, data, capacity - 16)
        guard band.count > 0 else {
            band.error = .encodeFailed(detail: "PNG: libdeflate could not compress \(n) bytes")
            return band
        }
        if !isLast {
            guard let open = leaveOpen(data, count: band.count) else {
                band.error = .encodeFailed(detail: "PNG: libdeflate's output for rows \(rows) did not parse")
                return band
            }
            band.count = open
        }
        return band
    }

    static func filterType(_ f: PNGFilter) -> UInt8 {
        switch f {
        case .none: return 0
        case .sub: return 1
        case .up: return 2
        case .average: return 3
        case .paeth, .adaptive: return 4
        }
    }

    /// libpng's heuristic: the filter type whose output bytes, read as signed, have the
    /// smallest sum of absolute values (the first such type on ties).
    static func chooseFilter(_ current: UnsafePointer<UInt8>, _ above: UnsafePointer<UInt8>, _ trial: UnsafeMutablePointer<UInt8>, _ layout: Layout) -> UInt8 {
        var best: UInt8 = 0
        var bestCost = PNGFilters.cost(current, layout.rowBytes)
        for type in UInt8(1)...4 {
            PNGFilters.apply(type, current, above, trial, layout.rowBytes, layout.bpp)
            let c = PNGFilters.cost(trial, layout.rowBytes)
            if c < bestCost { bestCost = c; best = type }
        }
        return best
    }

    /// RGBA8 to the file's channels: RGB, grey (the green sample) or grey + alpha.
    static func pack8(_ src: UnsafePointer<UInt8>, into dst: UnsafeMutablePointer<UInt8>, width: Int, channels: Int) {
        switch channels {
        case 1:
            for i in 0..<width { dst[i] = src[4 * i + 1] }
        case 2:
            for i in 0..<width {
                dst[2 * i] = src[4 * i + 1]
                dst[2 * i + 1] = src[4 * i + 3]
            }
        case 3:
            for i in 0..<width {
                dst[3 * i] = src[4 * i]
                dst[3 * i + 1] = src[4 * i + 1]
                dst[3 * i + 2] = src[4 * i + 2]
            }
        default:
            dst.update(from: src, count: 4 * width)
        }
    }

    /// RGBA16 (native endian) to the file's channels as big-endian bytes.
    static func pack16(_ src: UnsafePointer<UInt16>, into dst: UnsafeMutablePointer<UInt8>, width: Int, channels: Int) {
        let out = UnsafeMutableRawPointer(dst)
        @inline(__always) func put(_ i: Int, _ v: UInt16) { out.storeBytes(of: v.bigEndian, toByteOffset: 2 * i, as: UInt16.self) }
        switch channels {
        case 1:
            for i in 0..<width { put(i, src[4 * i + 1]) }
        case 2:
            for i in 0..<width {
                put(2 * i, src[4 * i + 1])
                put(2 * i + 1, src[4 * i + 3])
            }
        case 3:
            for i in 0..<width {
                put(3 * i, src[4 * i])
                put(3 * i + 1, src[4 * i + 1])
                put(3 * i + 2, src[4 * i + 2])
            }
        default:
            for i in 0..<(4 * width) { put(i, src[i]) }
        }
    }

    // MARK: - Joining deflate streams

    /// Turns the complete raw deflate stream in `p[0..<count]` into one that continues: finds
    /// where its final block starts and ends with zlib's inflate (`Z_BLOCK` stops at each block
    /// boundary, and `data_type` tells the bit position and whether the last block was
    /// decoded), clears that block's BFINAL bit, and appends an empty stored block, which
    /// ends on a byte boundary. Needs 5 bytes of room after `count`. Returns the new length,
    /// or nil when the data does not inflate.
    static func leaveOpen(_ p: UnsafeMutablePointer<UInt8>, count: Int) -> Int? {
        var s = z_stream()
        guard inflateInit2_(&s, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&s) }
        let window = 1 << 16
        let sink = UnsafeMutablePointer<UInt8>.allocate(capacity: window)
        defer { sink.deallocate() }
        var fed = 0, lastHeader = 0, end = -1
        while end < 0 {
            if s.avail_in == 0 {
                let chunk = min(count - fed, 1 << 30)
                guard chunk > 0 else { return nil }
                s.next_in = p + fed
                s.avail_in = uInt(chunk)
                fed += chunk
            }
            s.next_out = sink
            s.avail_out = uInt(window)
            let rc = inflate(&s, Z_BLOCK)
            guard rc == Z_OK || rc == Z_STREAM_END || (rc == Z_BUF_ERROR && s.avail_in == 0) else { return nil }
            let flags = Int(s.data_type)
            if flags & 128 != 0 {
                // At a block boundary: total_in bytes taken, of which (flags & 63) bits unused.
                let bit = Int(s.total_in) * 8 - (flags & 63)
                if flags & 64 != 0 { end = bit } else { lastHeader = bit }
            } else if rc == Z_STREAM_END {
                return nil
            }
        }
        p[lastHeader >> 3] &= ~UInt8(1 << (lastHeader & 7))
        // The bits after the last block become an empty stored block: BFINAL 0, BTYPE 00,
        // padding to the byte, LEN 0, NLEN 0xFFFF.
        let aligned = (end + 3 + 7) / 8
        if end & 7 != 0 { p[end >> 3] &= UInt8((1 << (end & 7)) - 1) }
        for i in ((end + 7) / 8)..<aligned { p[i] = 0 }
        p[aligned] = 0
        p[aligned + 1] = 0
        p[aligned + 2] = 0xFF
        p[aligned + 3] = 0xFF
        return aligned + 4
    }
}

/// The five PNG filters over one row of bytes; `above` is the previous row as stored in the
/// file (zeros for the first row), `bpp` the bytes per pixel.
enum PNGFilters {
    static func apply(_ type: UInt8, _ cur: UnsafePointer<UInt8>, _ above: UnsafePointer<UInt8>, _ out: UnsafeMutablePointer<UInt8>, _ n: Int, _ bpp: Int) {
        let lead = min(bpp, n)
        switch type {
        case 0:
            out.update(from: cur, count: n)
        case 1:
            for i in 0..<lead { out[i] = cur[i] }
            var i = lead
            while i < n { out[i] = cur[i] &- cur[i - bpp]; i += 1 }
        case 2:
            for i in 0..<n { out[i] = cur[i] &- above[i] }
        case 3:
            for i in 0..<lead { out[i] = cur[i] &- above[i] >> 1 }
            var i = lead
            while i < n {
                out[i] = cur[i] &- UInt8(truncatingIfNeeded: (UInt16(cur[i - bpp]) + UInt16(above[i])) >> 1)
                i += 1
            }
        default:
            // Left and upper left are 0 in the first pixel, where Paeth predicts `above`.
            for i in 0..<lead { out[i] = cur[i] &- above[i] }
            var i = lead
            while i < n {
                let a = Int16(cur[i - bpp]), b = Int16(above[i]), c = Int16(above[i - bpp])
                let pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c)
                let predicted = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
                out[i] = cur[i] &- UInt8(truncatingIfNeeded: predicted)
                i += 1
            }
        }
    }

    /// Sum of |byte read as Int8|.
    static func cost(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
        var sum = 0
        for i in 0..<n { sum &+= Int(Int8(bitPattern: p[i]).magnitude) }
        return sum
    }
}
