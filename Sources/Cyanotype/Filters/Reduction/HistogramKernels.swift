// The counting loops of CIAreaHistogram (see `HistogramReduction`): integer counters per
// tile, added to the Double partial once per tile, and two ways to find a value's bin faster
// than `histogramBin`'s arithmetic while giving exactly its answer:
//
// - floats: a table indexed by the value's top 16 bits (sign, exponent and 7 mantissa bits).
//   Every float sharing those bits lies in one interval, so when the two ends of a cell fall
//   in the same bin, all of it does (the bin is monotone in the value). That holds for every
//   cell in [0, 1] when the bin count is a power of two up to 256; the cell of +inf (which
//   also holds NaNs) is marked and recounted exactly.
// - 8-bit bitmaps: count the codes of opaque pixels (256 counters a channel) and turn codes
//   into bins once per tile, through the bins of the values the bitmap itself decodes each
//   code to (see `Bitmap8HistogramReader`).
//
// Smooth images repeat a bin from one pixel to the next (alpha, in an opaque image, every
// time); banks of counters for neighbouring pixels keep those increments from waiting on
// each other's stores.

import Foundation

/// The bin of working-space value `v`: `v` clamped to [0, 1] (NaN counts as 0) times the bin
/// count, rounded down, the last bin holding 1. The one definition every path agrees with.
@inline(__always) func histogramBin(_ v: Float, _ bins: Float, _ last: Int) -> Int {
    min(Int(clamp01(v) * bins), last)
}

/// Bins by a float's top 16 bits for `count` bins; see the top of this file.
final class HistogramBinTable: @unchecked Sendable {
    let count: Int
    /// 65536 entries: 16 x the bin of every float in the cell (the offset of the bin's
    /// counters in `HistogramCounters`), or 16 x `count` where the cell spans several bins
    /// (only the cell of +inf and the first NaNs).
    let offsets: UnsafeMutablePointer<UInt16>

    /// nil when some finite cell spans several bins (counts that are not powers of two, or
    /// above 256): the table would send too many values down the exact path.
    private init?(count: Int) {
        guard count >= 1, count <= 256 else { return nil }
        let table = UnsafeMutablePointer<UInt16>.allocate(capacity: 1 << 16)
        let n = Float(count), last = count - 1
        for cell in 0..<(1 << 16) {
            let lo = Float(bitPattern: UInt32(cell) << 16), hi = Float(bitPattern: UInt32(cell) << 16 | 0xFFFF)
            let a = histogramBin(lo, n, last), b = histogramBin(hi, n, last)
            if a == b {
                table[cell] = UInt16(16 * a)
            } else if cell == 0x7F80 {
                table[cell] = UInt16(16 * count)
            } else {
                table.deallocate()
                return nil
            }
        }
        self.count = count
        offsets = table
    }
    deinit { offsets.deallocate() }

    private static let made = RecentTables<Int, HistogramBinTable?>(capacity: 32)

    /// The table for `count` bins (built once, about 0.3 ms), or nil where none is exact.
    static func shared(_ count: Int) -> HistogramBinTable? {
        made.value(for: count) { HistogramBinTable(count: count) }
    }
}

/// 32-bit counters of one tile: for each of `count + 1` bins (the last one for values the
/// bin table leaves to the exact path), four banks (pixels 0, 1, 2, 3 mod 4) of the four
/// channels; one bin's 16 counters fill a 64-byte line.
struct HistogramCounters {
    let base: UnsafeMutablePointer<UInt32>
    let count: Int
    static let banks = 4

    init(count: Int) {
        self.count = count
        base = .allocate(capacity: 16 * (count + 1))
        base.initialize(repeating: 0, count: 16 * (count + 1))
    }
    func deallocate() { base.deallocate() }

    /// Adds the counts to `p` (bin i of channel k at `4 * i + k`); the exact-path bin must be
    /// empty by now.
    func flush(into p: UnsafeMutablePointer<Double>) {
        for i in 0..<count {
            let c = base + 16 * i
            for k in 0..<4 {
                let s = c[k] &+ c[4 + k] &+ c[8 + k] &+ c[12 + k]
                if s != 0 { p[4 * i + k] += Double(s) }
            }
        }
    }

    /// Counts `n` float RGBA pixels, `stride` bytes apart from `row` (any alignment), by
    /// `table`. Values in the table's ambiguous cell land in bin `count`; `resolve` moves them.
    @inline(__always) func countTable(_ row: UnsafeRawPointer, _ n: Int, stride: Int, _ table: UnsafePointer<UInt16>) {
        let c = base
        @inline(__always) func pixel(_ q: UnsafeRawPointer, _ bank: Int) {
            #if _endian(little)
            // Two 8-byte loads, not four 2-byte ones: the loop is bound by loads.
            let lo = q.loadUnaligned(as: UInt64.self), hi = q.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            let r = Int((lo >> 16) & 0xFFFF), g = Int(lo >> 48), b = Int((hi >> 16) & 0xFFFF), a = Int(hi >> 48)
            #else
            @inline(__always) func cell(_ k: Int) -> Int { Int(q.loadUnaligned(fromByteOffset: 4 * k, as: UInt32.self) >> 16) }
            let r = cell(0), g = cell(1), b = cell(2), a = cell(3)
            #endif
            c[Int(table[r]) + 4 * bank] &+= 1
            c[Int(table[g]) + 4 * bank + 1] &+= 1
            c[Int(table[b]) + 4 * bank + 2] &+= 1
            c[Int(table[a]) + 4 * bank + 3] &+= 1
        }
        var q = row
        var i = 0
        while i + 4 <= n {
            pixel(q, 0); pixel(q + stride, 1); pixel(q + 2 * stride, 2); pixel(q + 3 * stride, 3)
            q += 4 * stride
            i += 4
        }
        while i < n {
            pixel(q, 0)
            q += stride
            i += 1
        }
    }

    /// Whether any value went to the ambiguous bin since the last `resolve`.
    var hasAmbiguous: Bool {
        for k in 0..<16 where base[16 * count + k] != 0 { return true }
        return false
    }

    /// Recounts the ambiguous values of `n` pixels (as passed to `countTable`) exactly.
    func resolve(_ row: UnsafeRawPointer, _ n: Int, stride: Int, _ table: UnsafePointer<UInt16>) {
        let bins = Float(count), last = count - 1
        for i in 0..<n {
            for k in 0..<4 {
                let bits = (row + i * stride).loadUnaligned(fromByteOffset: 4 * k, as: UInt32.self)
                if Int(table[Int(bits >> 16)]) == 16 * count {
                    base[16 * histogramBin(Float(bitPattern: bits), bins, last) + k] &+= 1
                }
            }
        }
    }
    /// Empties the ambiguous bin once every value in it is recounted.
    func dropAmbiguous() {
        (base + 16 * count).update(repeating: 0, count: 16)
    }

    /// Counts `n` float RGBA pixels with `histogramBin` (bin counts with no exact table).
    @inline(__always) func countExact(_ row: UnsafeRawPointer, _ n: Int, stride: Int) {
        let bins = Float(count), last = count - 1
        let c = base
        @inline(__always) func pixel(_ q: UnsafeRawPointer, _ bank: Int) {
            for k in 0..<4 {
                c[16 * histogramBin(q.loadUnaligned(fromByteOffset: 4 * k, as: Float.self), bins, last) + 4 * bank + k] &+= 1
            }
        }
        var q = row
        var i = 0
        while i + 2 <= n {
            pixel(q, 0); pixel(q + stride, 1)
            q += 2 * stride
            i += 2
        }
        if i < n { pixel(q, 0) }
    }

    /// Counts rows of float RGBA pixels (`rows` calls of `rowStart`), by table when there is
    /// one, then recounts the ambiguous values exactly.
    @inline(__always) func countFloatRows(_ rows: Int, _ width: Int, stride: Int, table: HistogramBinTable?, _ rowStart: (Int) -> UnsafeRawPointer) {
        if let t = table {
            let offsets = UnsafePointer(t.offsets)
            for r in 0..<rows { countTable(rowStart(r), width, stride: stride, offsets) }
            if hasAmbiguous {
                for r in 0..<rows { resolve(rowStart(r), width, stride: stride, offsets) }
                dropAmbiguous()
            }
        } else {
            for r in 0..<rows { countExact(rowStart(r), width, stride: stride) }
        }
    }
}

/// CIAreaHistogram's linear kind over a premultiplied float RGBA bitmap already in the
/// working space: rows counted straight from the bitmap's memory (what `BitmapNode` would copy
/// into the tile unchanged).
struct FloatBitmapHistogramReader: DirectTileReader {
    let node: BitmapNode
    let count: Int
    let table: HistogramBinTable?

    /// nil unless `BitmapNode.evaluate` would pass the floats through untouched.
    init?(_ node: BitmapNode, count: Int, table: HistogramBinTable?, colorManaged: Bool) {
        guard let info = node.format.info, info.sample == .float, info.layout == .rgba, node.premultiplied else { return nil }
        let space = colorManaged ? node.colorSpace : nil
        let toSRGB = colorManaged ? node.toSRGB : nil
        guard space == nil || (space!.transfer == .linear && toSRGB == nil) else { return nil }
        self.node = node
        self.count = count
        self.table = table
    }

    func accumulate(_ rect: PixelRect, region: PixelRect, into p: UnsafeMutablePointer<Double>) {
        let c = HistogramCounters(count: count)
        defer { c.deallocate() }
        let ext = node.pixelExtent, rowBytes = node.bytesPerRow
        node.data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            guard let base = raw.baseAddress else { return }
            // Row 0 of the data is the top of the image, the highest y; rows are read in
            // memory order (top down), as the counts do not depend on it.
            let first = base + (ext.maxY - rect.maxY) * rowBytes + (rect.minX - ext.minX) * 16
            c.countFloatRows(rect.height, rect.width, stride: 16, table: table) { r in first + r * rowBytes }
        }
        c.flush(into: p)
    }
}

/// CIAreaHistogram's linear kind over an 8-bit RGBA bitmap (any of the four byte orders, any
/// transfer function, straight or premultiplied) with no primaries conversion: an opaque row
/// adds one to a counter per colour byte; the bins of the codes come from the values the
/// bitmap decodes them to, read once from a probe bitmap of the same kind (and the reader
/// declines when those values show that a channel depends on another). Rows holding a
/// translucent pixel go through `BitmapNode.evaluate` and the float counters, as the tiles
/// would.
struct Bitmap8HistogramReader: DirectTileReader {
    let node: BitmapNode
    let count: Int
    let table: HistogramBinTable?
    let ev: Evaluator
    /// Byte offset of alpha (0 or 3) and the channel (0 red, 1 green, 2 blue) of each of the
    /// other three bytes in memory order.
    let alphaOffset: Int
    let channelOfByte: (Int, Int, Int)
    /// Bin of every colour code of an opaque pixel, and of alpha 255.
    let codeBins: [Int]
    let opaqueAlphaBin: Int
    /// CIAreaAverage instead of a histogram: the partial is the sum of the values, so the
    /// counts are weighted by each code's value (`codeValues`, `opaqueAlpha`).
    let sums: Bool
    let codeValues: [Double]
    let opaqueAlpha: Double

    /// The same reader for CIAreaAverage's sums.
    static func sums(_ node: BitmapNode, ev: Evaluator) -> Bitmap8HistogramReader? {
        Bitmap8HistogramReader(node, count: 1, table: nil, ev: ev, sums: true)
    }

    init?(_ node: BitmapNode, count: Int, table: HistogramBinTable?, ev: Evaluator, sums: Bool = false) {
        guard let info = node.format.info, info.sample == .uint8, info.channels == 4,
            [.rgba, .bgra, .argb, .abgr].contains(info.layout),
            !(ev.colorManaged && node.toSRGB != nil)
        else { return nil }
        let (ri, gi, bi, ai) = info.layout.offsets
        guard ai == 0 || ai == 3 else { return nil }
        // Probe: opaque pixels, row one with equal codes, row two with the codes of green
        // and blue shifted, to see every code's value and that channels do not mix.
        var bytes = [UInt8](repeating: 255, count: 256 * 2 * 4)
        for c in 0..<256 {
            for (row, shift) in [(0, (0, 0)), (1, (85, 170))] {
                let q = (row * 256 + c) * 4
                bytes[q + ri] = UInt8(c); bytes[q + gi] = UInt8((c + shift.0) & 255); bytes[q + bi] = UInt8((c + shift.1) & 255)
            }
        }
        guard
            let probe = BitmapNode(
                data: bytes, bytesPerRow: 1024, width: 256, height: 2, format: node.format,
                colorSpace: node.colorSpace, premultiplied: node.premultiplied)
        else { return nil }
        let block = PixelBlock(rect: PixelRect(x: 0, y: 0, width: 256, height: 2))
        probe.evaluate(block.rect, into: block.buffer, Evaluator(colorManaged: ev.colorManaged))
        // Data row 0 (equal codes) is the top: y = 1.
        let same = block.buffer.row(1), shifted = block.buffer.row(0)
        let alpha = same[0].w.bitPattern
        let bins = Float(count), last = count - 1
        var codeBins = [Int](repeating: 0, count: 256)
        var codeValues = [Double](repeating: 0, count: 256)
        for c in 0..<256 {
            let v = same[c], s = shifted[c]
            let f = v.x.bitPattern
            guard v.y.bitPattern == f, v.z.bitPattern == f, v.w.bitPattern == alpha, s.w.bitPattern == alpha, s.x.bitPattern == f,
                s.y.bitPattern == same[(c + 85) & 255].x.bitPattern, s.z.bitPattern == same[(c + 170) & 255].x.bitPattern
            else { return nil }
            codeBins[c] = histogramBin(v.x, bins, last)
            codeValues[c] = Double(v.x)
        }
        self.sums = sums
        self.codeValues = codeValues
        opaqueAlpha = Double(Float(bitPattern: alpha))
        self.node = node
        self.count = count
        self.table = table
        self.ev = ev
        self.codeBins = codeBins
        opaqueAlphaBin = histogramBin(Float(bitPattern: alpha), bins, last)
        alphaOffset = ai
        var channels = [0, 0, 0, 0]
        channels[ri] = 0; channels[gi] = 1; channels[bi] = 2
        channelOfByte = ai == 3 ? (channels[0], channels[1], channels[2]) : (channels[1], channels[2], channels[3])
    }

    /// Code counters: two banks of the three colour bytes, 256 each.
    private static let codeCounters = 2 * 3 * 256

    func accumulate(_ rect: PixelRect, region: PixelRect, into p: UnsafeMutablePointer<Double>) {
        let codes = UnsafeMutablePointer<UInt32>.allocate(capacity: Self.codeCounters)
        defer { codes.deallocate() }
        codes.initialize(repeating: 0, count: Self.codeCounters)
        var floats: HistogramCounters? = nil
        var scratch: PixelBlock? = nil
        var opaque = 0
        let ext = node.pixelExtent, rowBytes = node.bytesPerRow
        let alphaFirst = alphaOffset == 0
        node.data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            guard let base = raw.baseAddress else { return }
            // Rows in memory order: data row 0 is the top of the image, the highest y.
            for y in (rect.minY..<rect.maxY).reversed() {
                let row = base + (ext.maxY - 1 - y) * rowBytes + (rect.minX - ext.minX) * 4
                let all =
                    alphaFirst
                    ? countCodes(row, rect.width, codes, alphaFirst: true, add: true)
                    : countCodes(row, rect.width, codes, alphaFirst: false, add: true)
                if (alphaFirst ? all & 0xFF : all >> 24) == 0xFF {
                    opaque += rect.width
                    continue
                }
                // A translucent pixel: take the row's codes back and count the values the
                // bitmap decodes the row to.
                _ =
                    alphaFirst
                    ? countCodes(row, rect.width, codes, alphaFirst: true, add: false)
                    : countCodes(row, rect.width, codes, alphaFirst: false, add: false)
                if scratch == nil { scratch = PixelBlock(rect: PixelRect(x: 0, y: 0, width: rect.width, height: 1)) }
                let buf = scratch!.buffer
                node.evaluate(PixelRect(x: rect.minX, y: y, width: rect.width, height: 1), into: buf, ev)
                if sums {
                    AverageReduction().accumulate(UnsafePointer(buf.base), count: rect.width, x: rect.minX, y: y, region: region, into: p)
                    continue
                }
                if floats == nil { floats = HistogramCounters(count: count) }
                floats!.countFloatRows(1, rect.width, stride: 16, table: table) { _ in UnsafeRawPointer(buf.base) }
            }
        }
        let (c0, c1, c2) = channelOfByte
        if sums {
            for (j, k) in [c0, c1, c2].enumerated() {
                let a = codes + j * 256, b = codes + (3 + j) * 256
                var total = 0.0
                for c in 0..<256 { total += Double(a[c] &+ b[c]) * codeValues[c] }
                p[k] += total
            }
            p[3] += Double(opaque) * opaqueAlpha
            return
        }
        for (j, k) in [c0, c1, c2].enumerated() {
            let a = codes + j * 256, b = codes + (3 + j) * 256
            for c in 0..<256 {
                let s = a[c] &+ b[c]
                if s != 0 { p[4 * codeBins[c] + k] += Double(s) }
            }
        }
        if opaque > 0 { p[4 * opaqueAlphaBin + 3] += Double(opaque) }
        if let f = floats {
            f.flush(into: p)
            f.deallocate()
        }
    }

    /// Adds (or takes back) one per colour byte of `n` 4-byte pixels at `row`, even pixels in
    /// the first bank, odd in the second; returns the AND of every pixel's bytes (alpha 255
    /// throughout when its byte is 0xFF).
    @inline(__always) private func countCodes(_ row: UnsafeRawPointer, _ n: Int, _ codes: UnsafeMutablePointer<UInt32>, alphaFirst: Bool, add: Bool) -> UInt32 {
        let a0 = codes, a1 = codes + 256, a2 = codes + 512
        let b0 = codes + 768, b1 = codes + 1024, b2 = codes + 1280
        let inc: UInt32 = add ? 1 : UInt32.max
        let s = alphaFirst ? 8 : 0
        var all: UInt32 = 0xFFFF_FFFF
        var i = 0
        while i + 2 <= n {
            let u = UInt32(littleEndian: row.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self))
            let v = UInt32(littleEndian: row.loadUnaligned(fromByteOffset: 4 * i + 4, as: UInt32.self))
            all &= u & v
            a0[Int((u >> s) & 0xFF)] &+= inc; a1[Int((u >> (s + 8)) & 0xFF)] &+= inc; a2[Int((u >> (s + 16)) & 0xFF)] &+= inc
            b0[Int((v >> s) & 0xFF)] &+= inc; b1[Int((v >> (s + 8)) & 0xFF)] &+= inc; b2[Int((v >> (s + 16)) & 0xFF)] &+= inc
            i += 2
        }
        if i < n {
            let u = UInt32(littleEndian: row.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self))
            all &= u
            a0[Int((u >> s) & 0xFF)] &+= inc; a1[Int((u >> (s + 8)) & 0xFF)] &+= inc; a2[Int((u >> (s + 16)) & 0xFF)] &+= inc
        }
        return all
    }
}
