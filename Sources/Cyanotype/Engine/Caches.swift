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
