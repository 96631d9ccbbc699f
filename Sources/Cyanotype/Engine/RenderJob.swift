import Foundation

/// What a caller controls of a render while it runs: a cancellation flag and a memory budget.
/// A context bound to a job (`CIContext.forJob(_:)`) checks the flag between tiles and bands
/// (output tiles, intermediates, whole-image inputs, streaming encodes) and refuses, before
/// any tile runs, a plan whose estimated memory (`CIContext.estimatedMemory(of:rect:)`, the
/// figure `explain` prints) is over the budget. A cancelled render throws
/// `CIRenderError.cancelled`; its memory is freed as it unwinds, and it never stores what it
/// computed in the context's cache.
///
/// A job is a value handed to the render, not a global: one job per request (a server's
/// deadline) or per export; `cancel()` may be called from any thread.
public final class CIRenderJob: @unchecked Sendable {
    /// The most bytes a plan may be estimated to hold (nil: no limit).
    public let memoryBudget: Int?
    private let lock = NSLock()
    private var cancelled = false
    private var stopped: Int = 0

    /// A job with an optional memory budget in bytes.
    public init(memoryBudget: Int? = nil) {
        self.memoryBudget = memoryBudget.map { max(0, $0) }
    }

    /// Asks the render to stop: tiles not yet started are skipped and the render throws
    /// `CIRenderError.cancelled`.
    public func cancel() {
        lock.lock(); cancelled = true; lock.unlock()
    }

    /// Whether `cancel()` was called.
    public var isCancelled: Bool {
        lock.lock(); defer { lock.unlock() }
        return cancelled
    }

    /// How many renders of this job noticed the cancellation and stopped (for servers and
    /// tests: proof that the work really ended).
    public var stoppedRenders: Int {
        lock.lock(); defer { lock.unlock() }
        return stopped
    }

    /// Records that a render of this job stopped on cancellation, and throws.
    func stop() throws -> Never {
        lock.lock(); stopped += 1; lock.unlock()
        throw CIRenderError.cancelled
    }

    /// Throws `CIRenderError.overMemoryBudget` when `estimate` is over the budget.
    func checkBudget(_ estimate: Int) throws {
        if let memoryBudget, estimate > memoryBudget {
            throw CIRenderError.overMemoryBudget(estimated: estimate, limit: memoryBudget)
        }
    }
}
