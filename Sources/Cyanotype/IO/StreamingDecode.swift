internal import CyanotypeCodecs
import Foundation

/// How many rows (from the top) of a bitmap being decoded are ready: tile workers wait here
/// for the rows they read while a decoding thread fills the rest, so rendering starts as
/// soon as the top of a file is in.
final class RowGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var ready = 0
    private var failure: (any Error)?
    let total: Int

    init(total: Int) { self.total = total }

    /// Waits until `rows` rows are decoded; false when decoding failed first.
    func wait(untilRows rows: Int) -> Bool {
        condition.lock(); defer { condition.unlock() }
        while ready < min(rows, total) && failure == nil { condition.wait() }
        return ready >= min(rows, total)
    }
    /// Waits for the whole image, throwing the decoder's error.
    func waitAll() throws {
        condition.lock(); defer { condition.unlock() }
        while ready < total && failure == nil { condition.wait() }
        if let failure { throw failure }
    }
    var error: (any Error)? { condition.lock(); defer { condition.unlock() }; return failure }

    func advance(to rows: Int) {
        condition.lock(); ready = rows; condition.broadcast(); condition.unlock()
    }
    func fail(_ e: any Error) {
        condition.lock(); failure = e; condition.broadcast(); condition.unlock()
    }
}

/// Decoded RGBA8 rows owned by a streaming source (freed with the last reader).
final class DecodedRows: ContiguousBytes, @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    let count: Int
    init(count: Int) {
        self.count = count
        base = .allocate(byteCount: max(1, count), alignment: 64)
    }
    deinit { base.deallocate() }
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }
}

/// A baseline JPEG as a bitmap whose rows arrive from a decoding thread, top first, in bands;
/// at 1/`reduction` of its size (scaled in the IDCT) when that is 2, 4 or 8.
func streamingJPEGNode(
    _ data: Data, header: ImageHeader, limits: CyanotypeCodecs.DecodeLimits, colorSpace: CGColorSpace?,
    reduction: Int = 1
) throws -> RecipeNode {
    let decoder = try JPEGStreamDecoder(data: data, strict: true, limits: limits, reduction: reduction)
    let (w, h) = (decoder.width, decoder.height)
    let rows = DecodedRows(count: w * h * 4)
    let gate = RowGate(total: h)
    guard
        let node = BitmapNode(
            data: rows, bytesPerRow: w * 4, width: w, height: h, format: .RGBA8, colorSpace: colorSpace,
            premultiplied: false, gate: gate)
    else { throw CodecError.corrupt(detail: "JPEG: \(w)x\(h) without pixels") }
    let thread = Thread {
        let band = 16
        var done = 0
        while done < h {
            let n = min(band, h - done)
            do {
                try decoder.read(into: rows.base + done * w * 4, rowBytes: w * 4, count: n)
            } catch {
                gate.fail(error)
                return
            }
            done += n
            gate.advance(to: done)
        }
    }
    thread.stackSize = 1 << 20
    thread.start()
    return node
}
