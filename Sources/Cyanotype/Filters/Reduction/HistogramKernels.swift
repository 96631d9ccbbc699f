// The counting loops of CIAreaHistogram (see `HistogramReduction`): integer counters per
// tile, added to the Double partial once per tile, and a way to find a float's bin faster
// than `histogramBin`'s arithmetic while giving exactly its answer: a table indexed by the
// value's top 16 bits (sign, exponent and 7 mantissa bits). Every float sharing those bits
// lies in one interval, so when the two ends of a cell fall in the same bin, all of it does
// (the bin is monotone in the value). That holds for every cell in [0, 1] when the bin count
// is a power of two up to 256; the cell of +inf (which also holds NaNs) is marked and
// recounted exactly.
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

    private static let lock = NSLock()
    nonisolated(unsafe) private static var made: [Int: HistogramBinTable?] = [:]

    /// The table for `count` bins (built once, about 0.3 ms), or nil where none is exact.
    static func shared(_ count: Int) -> HistogramBinTable? {
        lock.lock(); defer { lock.unlock() }
        if let t = made[count] { return t }
        let t = HistogramBinTable(count: count)
        if made.count < 32 { made[count] = t }
        return t
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
