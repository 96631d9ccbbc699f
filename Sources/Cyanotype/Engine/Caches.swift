import Foundation

// Where state lives. Recipe nodes are immutable; what renders compute is kept in one of these:
//
// - `Evaluator` (one per render): materialised intermediates and whole results (reductions,
//   k-means), each computed once per render.
// - `RenderCache` (one per context): the same blocks kept between renders, keyed by the recipe
//   node they hold the pixels of, under one memory budget.
// - `OnceCell`: a value made on first use and then fixed, such as a file source's decoded
//   pixels (the source's own state, like the bytes a bitmap source holds from the start).
// - `RecentTables` (process-wide): tables built from filter parameters (cube data, histogram
//   bins, powers), so a filter builds each once rather than once per `outputImage`.
// - `SharedValue`: state that users change in place, such as the registry of named looks.
// - `FileCache` (one per context, plus one process-wide for filters that read files): values
//   parsed from files (LUT files), reused while the file's identity is unchanged.
//
// These types hold the only locks in the engine's state; filter files use them and never
// mention threads.

/// The context's cache of rendered blocks: intermediates and whole results, keyed by the node
/// whose pixels they are (held, so the identity stays valid), under one memory budget. When
/// a block would go over the budget, everything is dropped and the new block kept.
final class RenderCache: @unchecked Sendable {
    /// Bytes of pixels the cache may hold.
    let budget: Int
    private let lock = NSLock()
    private var entries: [ObjectIdentifier: (node: RecipeNode, block: PixelBlock)] = [:]
    private var bytes = 0

    init(budget: Int) { self.budget = budget }

    /// The block kept for `node`, when it covers `rect` (nil: any block kept for it).
    func block(for node: RecipeNode, covering rect: PixelRect? = nil) -> PixelBlock? {
        lock.lock(); defer { lock.unlock() }
        guard let e = entries[ObjectIdentifier(node)], e.node === node else { return nil }
        if let rect, !e.block.rect.contains(rect) { return nil }
        return e.block
    }

    /// Keeps `block` as `node`'s pixels (replacing an older block); a block larger than the
    /// whole budget is not kept.
    func store(_ block: PixelBlock, for node: RecipeNode) {
        lock.lock(); defer { lock.unlock() }
        guard block.byteCount <= budget else { return }
        if let old = entries[ObjectIdentifier(node)] { bytes -= old.block.byteCount; entries[ObjectIdentifier(node)] = nil }
        if bytes + block.byteCount > budget { entries.removeAll(); bytes = 0 }
        entries[ObjectIdentifier(node)] = (node, block)
        bytes += block.byteCount
    }

    /// Bytes held now.
    var byteCount: Int { lock.lock(); defer { lock.unlock() }; return bytes }

    func removeAll() {
        lock.lock(); entries.removeAll(); bytes = 0; lock.unlock()
    }
}

/// A value made once, on first use, by whichever thread asks first (the others wait for it),
/// then fixed.
final class OnceCell<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?

    init() {}

    /// The value, made by `make` if this is the first call.
    func value(_ make: () throws -> Value) rethrows -> Value {
        lock.lock(); defer { lock.unlock() }
        if let stored { return stored }
        let v = try make()
        stored = v
        return v
    }

    /// The value if it has been made.
    var current: Value? { lock.lock(); defer { lock.unlock() }; return stored }
}

/// The few tables most recently built from some key, shared process-wide: a filter asks for
/// the table of its parameters and builds it only when no recent one matches (keys are
/// compared with `==`, so equal data hits whatever its identity).
final class RecentTables<Key: Equatable, Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(key: Key, value: Value)] = []
    private let capacity: Int

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// The table for `key`, built by `build` (outside the lock) when none is kept; a failed
    /// build keeps nothing.
    func value<E: Error>(for key: Key, build: () throws(E) -> Value) throws(E) -> Value {
        lock.lock()
        if let i = entries.firstIndex(where: { $0.key == key }) {
            let e = entries.remove(at: i)
            entries.append(e)
            lock.unlock()
            return e.value
        }
        lock.unlock()
        let v = try build()
        lock.lock()
        entries.append((key, v))
        if entries.count > capacity { entries.removeFirst() }
        lock.unlock()
        return v
    }
}

/// A value shared between threads and changed in place (a registry); reads and updates take
/// turns.
final class SharedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func read<R>(_ body: (Value) throws -> R) rethrows -> R {
        lock.lock(); defer { lock.unlock() }
        return try body(value)
    }

    func update<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock(); defer { lock.unlock() }
        return try body(&value)
    }
}

/// Values parsed from files, kept by path and read options, each checked against the file's
/// identity (size, modification time, inode and device) before it is reused: a file that was
/// edited, replaced or renamed over is read again. Errors are not kept.
///
/// Memory: at most `budget` bytes (the least recently used go first; a value bigger than the
/// budget is read but not kept). A context holds one (`CIContext.lut(contentsOf:)` reads
/// through it); filters that read files when their `outputImage` is built, with no context at
/// hand, share `FileCache.shared...` instances.
final class FileCache<Options: Hashable, Value>: @unchecked Sendable {
    private struct Key: Hashable {
        let path: String
        let options: Options
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
        let value: Value
        let bytes: Int
        var lastUse: UInt64
    }

    let budget: Int
    private let lock = NSLock()
    private var entries: [Key: Entry] = [:]
    private var bytes = 0
    private var clock: UInt64 = 0
    private var readCount = 0, hitCount = 0

    init(budget: Int) { self.budget = budget }

    /// Lookups so far, and how many found a kept value (for tests and reports).
    var reads: Int { lock.lock(); defer { lock.unlock() }; return readCount }
    var hits: Int { lock.lock(); defer { lock.unlock() }; return hitCount }

    /// The file's identity now, or nil when it cannot be stat'ed (the read then says why).
    static func identity(of path: String) -> Identity? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        #if os(Linux)
        let mtime = st.st_mtim
        #else
        let mtime = st.st_mtimespec
        #endif
        return Identity(
            size: Int64(st.st_size), modifiedSeconds: Int64(mtime.tv_sec), modifiedNanoseconds: Int64(mtime.tv_nsec),
            inode: UInt64(st.st_ino), device: UInt64(st.st_dev))
    }

    /// The value of `url`'s file read with `options`: kept from an earlier read while the file
    /// is unchanged, else made by `read` (outside the lock) and kept when the file did not
    /// change while it was read. `size` tells a value's bytes.
    func value<E: Error>(of url: URL, options: Options, size: (Value) -> Int, read: () throws(E) -> Value) throws(E) -> Value {
        let path = url.standardizedFileURL.path
        let key = Key(path: path, options: options)
        guard let before = Self.identity(of: path) else { return try read() }
        if let kept = lookup(key, before) { return kept }
        let value = try read()
        if Self.identity(of: path) == before { store(key, before, value, size(value)) }
        return value
    }

    /// Drops every kept value.
    func removeAll() {
        lock.lock(); defer { lock.unlock() }
        entries.removeAll()
        bytes = 0
    }

    /// Bytes of values kept now.
    var byteCount: Int { lock.lock(); defer { lock.unlock() }; return bytes }

    private func lookup(_ key: Key, _ identity: Identity) -> Value? {
        lock.lock(); defer { lock.unlock() }
        readCount += 1
        guard var e = entries[key] else { return nil }
        guard e.identity == identity else {
            entries[key] = nil
            bytes -= e.bytes
            return nil
        }
        hitCount += 1
        clock += 1
        e.lastUse = clock
        entries[key] = e
        return e.value
    }

    private func store(_ key: Key, _ identity: Identity, _ value: Value, _ size: Int) {
        guard size <= budget else { return }
        lock.lock(); defer { lock.unlock() }
        if let old = entries.removeValue(forKey: key) { bytes -= old.bytes }
        while bytes + size > budget, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            entries[oldest.key] = nil
            bytes -= oldest.value.bytes
        }
        clock += 1
        entries[key] = Entry(identity: identity, value: value, bytes: size, lastUse: clock)
        bytes += size
    }
}
