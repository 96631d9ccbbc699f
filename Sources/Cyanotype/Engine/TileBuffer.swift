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
/// intermediates. Freed when the last reference goes.
final class PixelBlock: @unchecked Sendable {
    let rect: PixelRect
    let pixels: UnsafeMutablePointer<SIMD4<Float>>

    init(rect: PixelRect, zeroed: Bool = false) {
        self.rect = rect
        pixels = .allocate(capacity: max(1, rect.area))
        if zeroed { pixels.initialize(repeating: .zero, count: max(1, rect.area)) }
    }
    deinit { pixels.deallocate() }

    var buffer: TileBuffer { TileBuffer(base: pixels, width: rect.width, height: rect.height, rowStride: rect.width) }
    var byteCount: Int { rect.area * MemoryLayout<SIMD4<Float>>.stride }

    /// The sub-view covering `r` (which must lie inside `rect`).
    func view(_ r: PixelRect) -> TileBuffer {
        buffer.view(x: r.minX - rect.minX, y: r.minY - rect.minY, width: r.width, height: r.height)
    }
}
