// Sums over windows of a tile's rows and columns in constant time per pixel, each value the
// same to the bit whichever tile computes it. A running sum or a prefix sum started at a
// tile's edge rounds differently in every tile; these start at absolute coordinates instead
// (every multiple of `AnchoredSums.block`), so tiled renders equal whole ones, float included.
// The price: a tile reads up to `block - 1` pixels more on the side where the runs start
// (`leftSlack`, `belowSlack`), which the operation adds to its reach. Neighbourhood
// operations that box-filter (a disc as rows of spans, a motion blur's line, a guided
// filter's means) build on this.

/// Window sums with anchored runs (see the file's comment). Rows: prefix sums restart at
/// every absolute column that is a multiple of `block` (`prefix`), and a window is a
/// difference of two of them, or one block's remainder plus whole blocks plus the next
/// block's start (`window`, `addWindows`). Columns: running sums over whole rows restart,
/// summed directly, at every absolute row that is a multiple of `block` (`columnWindows`).
enum AnchoredSums {
    static let blockShift = 5
    /// Runs restart at every multiple of this many pixels (absolute coordinates).
    static let block = 1 << blockShift
    /// How many pixels beyond a window's first one (left of it, or below it) a tile must read
    /// so that the window's run starts inside the tile.
    static let slack = block - 1

    /// `v` rounded down to a multiple of `block`.
    @inline(__always) static func blockStart(_ v: Int) -> Int { (v >> blockShift) << blockShift }

    /// Entries the `e` buffer of `prefix` needs for `count` pixels.
    static func prefixCapacity(_ count: Int) -> Int { count + 1 }
    /// Entries the `t` buffer of `prefix` needs for `count` pixels.
    static func totalsCapacity(_ count: Int) -> Int { (count + block - 1) / block + 1 }

    /// Block prefix sums of `s[0..<count]`, where `s[0]` lies at an absolute column that is a
    /// multiple of `block`: `e[i]` (i in 0...count) is the sum of the pixels from the start of
    /// i's block to i - 1, added left to right (0 at a block's start), and `t[k]` the sum of
    /// block k (what there is of it, for a last partial block).
    static func prefix(_ s: UnsafePointer<SIMD4<Float>>, count: Int, e: UnsafeMutablePointer<SIMD4<Float>>, t: UnsafeMutablePointer<SIMD4<Float>>) {
        var i = 0, k = 0
        e[0] = .zero
        while i < count {
            let end = min(i + block, count)
            var acc = SIMD4<Float>.zero
            var j = i
            while j < end {
                acc += s[j]
                j += 1
                e[j] = acc
            }
            t[k] = acc
            k += 1
            i = end
            // The next block starts at 0 (and so does a position just past a whole block).
            if i & (block - 1) == 0 { e[i] = .zero }
        }
    }

    /// The sum over the whole blocks strictly between blocks `ka` and `kb`, added left to
    /// right (0 when there are none).
    @inline(__always) private static func middle(_ t: UnsafePointer<SIMD4<Float>>, _ ka: Int, _ kb: Int) -> SIMD4<Float> {
        var m = SIMD4<Float>.zero
        var k = ka + 1
        while k < kb { m += t[k]; k += 1 }
        return m
    }

    /// The sum of the pixels `[a, b)` (indices of a `prefix` run, `0 <= a <= b <= count`):
    /// `e[b] - e[a]` within one block, else `((t[ka] - e[a]) + whole blocks) + e[b]`.
    @inline(__always) static func window(_ e: UnsafePointer<SIMD4<Float>>, _ t: UnsafePointer<SIMD4<Float>>, _ a: Int, _ b: Int) -> SIMD4<Float> {
        let ka = a >> blockShift, kb = b >> blockShift
        if ka == kb { return e[b] - e[a] }
        return ((t[ka] - e[a]) + middle(t, ka, kb)) + e[b]
    }

    @inline(__always) private static func load8(_ p: UnsafePointer<SIMD4<Float>>) -> SIMD8<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
    }
    @inline(__always) private static func store8(_ v: SIMD8<Float>, _ p: UnsafeMutablePointer<SIMD4<Float>>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD8<Float>.self)
    }

    /// `acc[i] += window(e, t, a + i, a + i + length)` for i in 0..<count: the same values as
    /// `window`, two pixels per step, split into runs where neither end changes block.
    static func addWindows(
        _ e: UnsafePointer<SIMD4<Float>>, _ t: UnsafePointer<SIMD4<Float>>, from a0: Int, length: Int, count: Int,
        into acc: UnsafeMutablePointer<SIMD4<Float>>
    ) {
        var i = 0
        while i < count {
            let a = a0 + i, b = a + length
            let ka = a >> blockShift, kb = b >> blockShift
            let run = min(count - i, ((ka + 1) << blockShift) - a, ((kb + 1) << blockShift) - b)
            let d = acc + i, ea = e + a, eb = e + b
            var j = 0
            if ka == kb {
                while j + 2 <= run {
                    store8(load8(d + j) + (load8(eb + j) - load8(ea + j)), d + j)
                    j += 2
                }
                if j < run { d[j] += eb[j] - ea[j] }
            } else {
                let tk = t[ka], m = middle(t, ka, kb)
                let tk8 = SIMD8(lowHalf: tk, highHalf: tk), m8 = SIMD8(lowHalf: m, highHalf: m)
                while j + 2 <= run {
                    store8(load8(d + j) + (((tk8 - load8(ea + j)) + m8) + load8(eb + j)), d + j)
                    j += 2
                }
                if j < run { d[j] += ((tk - ea[j]) + m) + eb[j] }
            }
            i += run
        }
    }

    /// Sums of whole rows over windows of rows, for the output rows `first ..< first + count`
    /// (indices into `row`, whose index 0 is the absolute row `origin`): output row y gets
    /// the sum of rows `y + lo ..< y + hi`, `width` pixels each, handed to `emit(y, sum)`.
    /// At absolute rows that are multiples of `block` the sum is added directly, bottom row
    /// first; from there each next row adds the row entering the window, then subtracts the
    /// one leaving it. So the sums for a row are the same whichever rows a tile covers,
    /// provided `row` reaches `slack` rows below `first + lo`.
    static func columnWindows(
        width: Int, origin: Int, first: Int, count: Int, lo: Int, hi: Int,
        row: (Int) -> UnsafePointer<SIMD4<Float>>, emit: (Int, UnsafePointer<SIMD4<Float>>) -> Void
    ) {
        if count <= 0 || width <= 0 { return }
        let sum = PixelBlock(rect: PixelRect(x: 0, y: 0, width: width, height: 1))
        let v = sum.pixels
        var y = blockStart(origin + first) - origin
        var started = false
        while y < first + count {
            if !started || (origin + y) & (block - 1) == 0 {
                v.update(from: row(y + lo), count: width)
                var j = y + lo + 1
                while j < y + hi {
                    let r = row(j)
                    var x = 0
                    while x + 2 <= width { store8(load8(v + x) + load8(r + x), v + x); x += 2 }
                    if x < width { v[x] += r[x] }
                    j += 1
                }
                started = true
            } else {
                let enter = row(y + hi - 1), leave = row(y + lo - 1)
                var x = 0
                while x + 2 <= width { store8((load8(v + x) + load8(enter + x)) - load8(leave + x), v + x); x += 2 }
                if x < width { v[x] = (v[x] + enter[x]) - leave[x] }
            }
            if y >= first { emit(y, v) }
            y += 1
        }
    }
}
