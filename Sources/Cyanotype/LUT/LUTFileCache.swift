// Parsed LUT files kept by file identity, so a `.cube` applied again (a filter per image, a
// server's requests, a batch) is read once, and an edited file is read again.

import Foundation

/// LUT files already parsed, by path and read options, each checked against the file's
/// identity (size, modification time, inode and device) before it is reused: a file
/// that was edited, replaced or renamed over is read again. Errors are not kept.
///
/// Memory: at most `budget` bytes of tables (least recently used go first; a LUT bigger than
/// the budget is not kept). Home: one process-wide cache (`shared`) for now, used by
/// `CIContext.lut(contentsOf:)` and `CILUTFilter`'s file source; it belongs under the
/// context's one cache budget once the context's caches are one.
final class LUTFileCache: @unchecked Sendable {
    struct Key: Hashable {
        let path: String
        let layout: LUTImageLayout?
        let maximumSize: Int
    }
    /// What tells a file's versions apart.
    struct Identity: Equatable {
        let size: Int64
        let modifiedSeconds: Int64
        let modifiedNanoseconds: Int64
        let inode: UInt64
        let device: UInt64
    }
    private struct Entry {
        let identity: Identity
        let lut: LUT
        let bytes: Int
        var lastUse: UInt64
    }

    let budget: Int
    private let lock = NSLock()
    private var entries: [Key: Entry] = [:]
    private var bytes = 0
    private var clock: UInt64 = 0
    /// Reads and hits so far (for tests and `--explain`-style reports).
    private(set) var reads = 0, hits = 0

    init(budget: Int) { self.budget = budget }

    /// The process-wide cache: 64 MiB of tables (sixteen 64^3 LUTs).
    static let shared = LUTFileCache(budget: 64 << 20)

    /// The file's identity now, or nil when it cannot be stat'ed (the read then says why).
    static func identity(of path: String) -> Identity? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        #if os(Linux)
        let mtime = st.st_mtim
        #else
        let mtime = st.st_mtimespec
        #endif
        return Identity(size: Int64(st.st_size), modifiedSeconds: Int64(mtime.tv_sec), modifiedNanoseconds: Int64(mtime.tv_nsec),
                        inode: UInt64(st.st_ino), device: UInt64(st.st_dev))
    }

    /// The LUT in `url`'s file: kept from an earlier read while the file is unchanged, else
    /// read (`LUT(contentsOf:layout:maximumSize:)`) and kept.
    func lut(contentsOf url: URL, layout: LUTImageLayout?, maximumSize: Int) throws(LUTError) -> LUT {
        let path = url.standardizedFileURL.path
        let key = Key(path: path, layout: layout, maximumSize: maximumSize)
        guard let before = LUTFileCache.identity(of: path) else {
            return try LUT(contentsOf: url, layout: layout, maximumSize: maximumSize)
        }
        if let lut = lookup(key, before) { return lut }
        let lut = try LUT(contentsOf: url, layout: layout, maximumSize: maximumSize)
        // Kept only when the file did not change while it was read.
        if LUTFileCache.identity(of: path) == before { store(key, before, lut) }
        return lut
    }

    /// Drops every kept LUT.
    func removeAll() {
        lock.lock(); defer { lock.unlock() }
        entries.removeAll()
        bytes = 0
    }

    /// Bytes of tables kept now.
    var byteCount: Int { lock.lock(); defer { lock.unlock() }; return bytes }

    private func lookup(_ key: Key, _ identity: Identity) -> LUT? {
        lock.lock(); defer { lock.unlock() }
        reads += 1
        guard var e = entries[key] else { return nil }
        guard e.identity == identity else {
            entries[key] = nil
            bytes -= e.bytes
            return nil
        }
        hits += 1
        clock += 1
        e.lastUse = clock
        entries[key] = e
        return e.lut
    }

    private func store(_ key: Key, _ identity: Identity, _ lut: LUT) {
        let size = lut.table.count * MemoryLayout<SIMD4<Float>>.stride + (lut.shaper?.values.count ?? 0) * MemoryLayout<SIMD3<Float>>.stride
        guard size <= budget else { return }
        lock.lock(); defer { lock.unlock() }
        if let old = entries.removeValue(forKey: key) { bytes -= old.bytes }
        while bytes + size > budget, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            entries[oldest.key] = nil
            bytes -= oldest.value.bytes
        }
        clock += 1
        entries[key] = Entry(identity: identity, lut: lut, bytes: size, lastUse: clock)
        bytes += size
    }
}

extension CIContext {
    /// Cyanotype: the LUT in a `.cube`, `.3dl` or LUT image file, parsed once and kept while
    /// the file is unchanged (same size, modification time and inode: an edited file is read
    /// again). The same as `LUT(contentsOf:layout:maximumSize:)` otherwise. Today every context
    /// shares one LUT file cache of 64 MiB.
    public func lut(contentsOf url: URL, layout: LUTImageLayout? = nil, maximumSize: Int = LUT.defaultReadLimit) throws(LUTError) -> LUT {
        try LUTFileCache.shared.lut(contentsOf: url, layout: layout, maximumSize: maximumSize)
    }
}
