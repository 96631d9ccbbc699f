/// A view of premultiplied linear float RGBA pixels: `height` rows of `width`, rows in
/// ascending y, `rowStride` pixels apart. Views never own memory.
struct TileBuffer: @unchecked Sendable {
    let base: UnsafeMutablePointer<SIMD4<Float>>
    let width: Int
    let height: Int
    let rowStride: Int

    @inline(__always) func row(_ r: Int) -> UnsafeMutablePointer<SIMD4<Float>> { base + r * rowStride }

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
    private let capacity: Int

    init(rect: PixelRect, zeroed: Bool = false) {
        self.rect = rect
        let n = max(1, rect.area)
        let (p, cap) = ScratchPool.shared.take(n)
        pixels = p
        capacity = cap
        if zeroed { pixels.update(repeating: .zero, count: n) }
    }
    deinit { ScratchPool.shared.give(pixels, capacity) }

    var buffer: TileBuffer { TileBuffer(base: pixels, width: rect.width, height: rect.height, rowStride: rect.width) }
    var byteCount: Int { rect.area * MemoryLayout<SIMD4<Float>>.stride }

    /// The sub-view covering `r` (which must lie inside `rect`).
    func view(_ r: PixelRect) -> TileBuffer {
        buffer.view(x: r.minX - rect.minX, y: r.minY - rect.minY, width: r.width, height: r.height)
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
    private let maxPooled = 1 << 20          // 16 MiB of float RGBA
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
