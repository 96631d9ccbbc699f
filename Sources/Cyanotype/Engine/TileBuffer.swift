/// A view of premultiplied linear float RGBA pixels: `height` rows of `width`, rows in
/// ascending y, `rowStride` pixels apart. Views never own memory.
struct TileBuffer: @unchecked Sendable {
    let base: UnsafeMutablePointer<SIMD4<Float>>
    let width: Int
    let height: Int
    let rowStride: Int

    @inline(__always) func row(_ r: Int) -> UnsafeMutablePointer<SIMD4<Float>> { base + r * rowStride }

    /// The bilinear sample of this buffer at (u, v), given in pixel-centre units of a plane
    /// where the buffer's first pixel sits at (originX, originY) (so pixel i has centre i,
    /// i.e. the caller has already taken 0.5 off). Neighbours outside the buffer count as
    /// clear. Callers pass finite |u|, |v| < 1e9. The warps' shared sampler.
    @inline(__always) func bilinearClear(u: Double, v: Double, originX: Int, originY: Int) -> SIMD4<Float> {
        let fx = u.rounded(.down), fy = v.rounded(.down)
        let x0 = Int(fx) - originX, y0 = Int(fy) - originY
        let tx = Float(u - fx), ty = Float(v - fy)
        let w = width, h = height
        var p00 = SIMD4<Float>.zero, p10 = p00, p01 = p00, p11 = p00
        if y0 >= 0 && y0 < h {
            let row = row(y0)
            if x0 >= 0 && x0 < w { p00 = row[x0] }
            if x0 + 1 >= 0 && x0 + 1 < w { p10 = row[x0 + 1] }
        }
        if y0 + 1 >= 0 && y0 + 1 < h {
            let row = row(y0 + 1)
            if x0 >= 0 && x0 < w { p01 = row[x0] }
            if x0 + 1 >= 0 && x0 + 1 < w { p11 = row[x0 + 1] }
        }
        let top = p00 + (p10 - p00) * tx
        let bottom = p01 + (p11 - p01) * tx
        return top + (bottom - top) * ty
    }

    func view(x: Int, y: Int, width w: Int, height h: Int) -> TileBuffer {
        TileBuffer(base: base + y * rowStride + x, width: w, height: h, rowStride: rowStride)
    }
    func zero() {
        for r in 0..<height { row(r).update(repeating: .zero, count: width) }
    }
    func copy(from src: TileBuffer) {
        for r in 0..<height { row(r).update(from: src.row(r), count: width) }
    }
}

/// An owned float RGBA pixel block covering `rect`: tile scratch space and materialised
/// intermediates. Freed (or returned to the scratch pool) when the last reference goes.
final class PixelBlock: @unchecked Sendable {
    let rect: PixelRect
    let pixels: UnsafeMutablePointer<SIMD4<Float>>
    /// Pixels from one row to the next (`rect.width` unless the block was made with a wider one).
    let rowStride: Int
    private let capacity: Int

    /// `rowStride` (at least `rect.width`) pads the rows; `zeroed` clears the whole block.
    init(rect: PixelRect, zeroed: Bool = false, rowStride: Int? = nil) {
        self.rect = rect
        self.rowStride = max(rect.width, rowStride ?? rect.width)
        let n = max(1, self.rowStride * rect.height)
        let (p, cap) = ScratchPool.shared.take(n)
        pixels = p
        capacity = cap
        if zeroed { pixels.update(repeating: .zero, count: n) }
    }
    deinit { ScratchPool.shared.give(pixels, capacity) }

    /// A row stride of at least `width` pixels whose rows start an odd number of 64-byte
    /// lines apart: a column of rows read together (a vertical pass's 2r + 1 taps) then spreads
    /// over every L1 set, where rows a power-of-two number of lines apart all fall in a few
    /// (4 KiB apart: the vertical pass measured 4x slower).
    static func spreadRowStride(forWidth width: Int) -> Int {
        let lines = (max(1, width) + 3) / 4
        return 4 * (lines | 1)
    }

    var buffer: TileBuffer { TileBuffer(base: pixels, width: rect.width, height: rect.height, rowStride: rowStride) }
    var byteCount: Int { rect.area * MemoryLayout<SIMD4<Float>>.stride }

    /// The sub-view covering `r` (which must lie inside `rect`).
    func view(_ r: PixelRect) -> TileBuffer {
        buffer.view(x: r.minX - rect.minX, y: r.minY - rect.minY, width: r.width, height: r.height)
    }

    /// Copies `r` of this block into `out` (r.width x r.height), clear where `r` reaches
    /// outside the block.
    func copy(_ r: PixelRect, into out: TileBuffer) {
        let inside = r.intersection(rect)
        if inside != r { out.zero() }
        if inside.isEmpty { return }
        out.view(x: inside.minX - r.minX, y: inside.minY - r.minY, width: inside.width, height: inside.height).copy(from: view(inside))
    }
}

/// Reuses tile-sized scratch buffers between tiles. Without it every tile's fresh
/// allocation was mmap'd and page-faulted in again (15-20% of a blur's time in perf).
/// Only buffers up to `maxPooled` pixels are kept, at most `maxTotal` pixels in all (64 MiB).
final class ScratchPool: @unchecked Sendable {
    static let shared = ScratchPool()
    private let lock = NSLock()
    private var free: [(UnsafeMutablePointer<SIMD4<Float>>, Int)] = []
    private var pooled = 0
    private let maxPooled = 1 << 20  // 16 MiB of float RGBA
    private let maxTotal = 1 << 22

    func take(_ n: Int) -> (UnsafeMutablePointer<SIMD4<Float>>, Int) {
        if n <= maxPooled {
            lock.lock()
            // Smallest free buffer that fits.
            var best = -1
            for (i, f) in free.enumerated() where f.1 >= n && (best < 0 || f.1 < free[best].1) { best = i }
            if best >= 0 {
                let f = free.remove(at: best)
                pooled -= f.1
                lock.unlock()
                return f
            }
            lock.unlock()
            // Round up so buffers of similar tiles are interchangeable.
            let cap = max(4096, 1 << (Int.bitWidth - (n - 1).leadingZeroBitCount))
            return (.allocate(capacity: cap), cap)
        }
        return (.allocate(capacity: n), n)
    }

    func give(_ p: UnsafeMutablePointer<SIMD4<Float>>, _ cap: Int) {
        if cap <= maxPooled {
            lock.lock()
            if pooled + cap <= maxTotal {
                free.append((p, cap))
                pooled += cap
                lock.unlock()
                return
            }
            lock.unlock()
        }
        p.deallocate()
    }
}
