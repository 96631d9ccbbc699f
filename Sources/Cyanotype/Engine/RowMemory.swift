import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Memory policy for pixels that pass through a render once, top row first (a file decoding
/// on its thread, an encoder's input): rows in pages of their own, mapped but not touched
/// until written, and given back to the system as soon as the render has passed them. A
/// streaming render's resident set is then the band it works on, not the picture: a 300 MP
/// file goes through a blur in the memory of a few bands.
final class PagedRows: ContiguousBytes, @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    let count: Int
    /// The mapping (nil when it failed and the rows live in ordinary memory, never given back).
    private let mapping: (start: UnsafeMutableRawPointer, length: Int)?
    /// What is given back at once: huge pages for large buffers (a 24 MP picture then costs
    /// about a hundred page faults, not sixty thousand), else base pages.
    private let granule: Int

    private static let pageSize = max(4096, Int(sysconf(Int32(_SC_PAGESIZE))))
    private static let hugePage = 2 << 20

    init(count: Int) {
        let n = max(1, count)
        self.count = n
        let huge = n >= 8 * Self.hugePage
        let length = huge ? n + Self.hugePage : n
        // Anonymous pages cost nothing until written; NORESERVE keeps a large picture from
        // being refused by overcommit accounting for pages it never holds at once.
        let p = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        if let p, p != MAP_FAILED {
            mapping = (p, length)
            if huge {
                // Huge pages need 2 MiB-aligned addresses.
                let aligned = (Int(bitPattern: p) + Self.hugePage - 1) / Self.hugePage * Self.hugePage
                base = UnsafeMutableRawPointer(bitPattern: aligned)!
                granule = madvise(base, n, MADV_HUGEPAGE) == 0 ? Self.hugePage : Self.pageSize
            } else {
                base = p
                granule = Self.pageSize
            }
        } else {
            base = .allocate(byteCount: n, alignment: 64)
            mapping = nil
            granule = Self.pageSize
        }
    }

    deinit {
        if let mapping { munmap(mapping.start, mapping.length) } else { base.deallocate() }
    }

    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Gives back the pages of bytes `range` when nothing below `range.upperBound` is read
    /// again (a page straddling the lower edge holds only bytes already given up); they read
    /// as zero if touched afterwards.
    func giveBack(_ range: Range<Int>) {
        guard mapping != nil else { return }
        let page = granule
        let lo = max(0, range.lowerBound) / page * page
        let hi = min(range.upperBound, count) / page * page
        if hi > lo { madvise(base + lo, hi - lo, MADV_DONTNEED) }
    }
}
