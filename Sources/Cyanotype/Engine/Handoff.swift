import Foundation

/// The engine's one hand-off primitive: a state that threads share, change in turn and wait
/// on. A change wakes the waiters, who look at the state again. The row gates of files
/// decoding ahead (`RowGate`), the bands of a streaming encode (`BandProgress`), the
/// executor's band window and ledger (`Executor.forEachTile`), video export's frame queues and
/// the server's connection deadlines are each a `Handoff` of their own state (no other code
/// keeps an `NSCondition`), so the rules of waiting (always under the lock, always in a loop,
/// woken by a change, ended by closing or cancelling the state) are written once, here.
package final class Handoff<State>: @unchecked Sendable {
    private let condition = NSCondition()
    private var state: State

    /// A hand-off starting at `state`.
    package init(_ state: State) { self.state = state }

    /// What `body` reads of the state now.
    package func read<R>(_ body: (State) throws -> R) rethrows -> R {
        condition.lock(); defer { condition.unlock() }
        return try body(state)
    }

    /// Changes the state and wakes every waiter.
    @discardableResult package func update<R>(_ body: (inout State) throws -> R) rethrows -> R {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return try body(&state)
    }

    /// Changes the state and wakes the waiters only when `body` says the change matters to
    /// them (returns true): for changes made often that rarely end a wait (a tile of a band).
    package func change(_ body: (inout State) throws -> Bool) rethrows {
        condition.lock(); defer { condition.unlock() }
        if try body(&state) { condition.broadcast() }
    }

    /// Waits until `ready(state)` holds, then returns what `body` reads of it (under the
    /// same lock, so nothing changes between the two).
    package func wait<R>(until ready: (State) -> Bool, then body: (State) throws -> R) rethrows -> R {
        condition.lock(); defer { condition.unlock() }
        while !ready(state) { condition.wait() }
        return try body(state)
    }

    /// Waits until `ready(state)` holds, then changes the state with `body` (under the same
    /// lock) and wakes the other waiters: a worker taking the next job from a queue.
    @discardableResult package func wait<R>(until ready: (State) -> Bool, thenChange body: (inout State) throws -> R) rethrows -> R {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        while !ready(state) { condition.wait() }
        return try body(&state)
    }

    /// Waits until `ready(state)` holds or `deadline` has passed; whether it held.
    package func wait(until ready: (State) -> Bool, before deadline: Date) -> Bool {
        condition.lock(); defer { condition.unlock() }
        while !ready(state) {
            if !condition.wait(until: deadline) { return ready(state) }
        }
        return true
    }

    /// Waits until `ready(state)` holds.
    package func wait(until ready: (State) -> Bool) {
        condition.lock(); defer { condition.unlock() }
        while !ready(state) { condition.wait() }
    }
}
