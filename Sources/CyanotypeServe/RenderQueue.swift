import Cyanotype
import Foundation

/// At most `workers` renders at once, on the queue's own threads, and at most `capacity`
/// more waiting; a request beyond that is turned away at once (`503` with `Retry-After`)
/// and one that waits or renders past its deadline is answered `503 render_timeout` and its
/// render's `CIRenderJob` cancelled: the engine stops between tiles, frees its memory and
/// gives the worker back. So memory is bounded by the worker count, whatever the traffic.
package final class RenderQueue: @unchecked Sendable {
    package let workers: Int
    package let capacity: Int
    /// Each render's memory budget in bytes (nil: none), carried by its job.
    package let memoryBudget: Int?

    private final class Job: @unchecked Sendable {
        let work: @Sendable (CIRenderJob) -> HTTPResponse
        let render: CIRenderJob
        let done = DispatchSemaphore(value: 0)
        var result: HTTPResponse?
        var cancelled = false
        init(_ work: @escaping @Sendable (CIRenderJob) -> HTTPResponse, budget: Int?) {
            self.work = work
            render = CIRenderJob(memoryBudget: budget)
        }
    }

    private let condition = NSCondition()
    private var waiting: [Job] = []
    private var running = 0
    private var stopped = 0
    private var stopping = false

    /// Starts `workers` long-running engine threads (`Executor.startThread`, each with an
    /// 8 MiB stack).
    package init(workers: Int, capacity: Int, memoryBudget: Int? = nil) {
        self.workers = max(1, workers)
        self.capacity = max(0, capacity)
        self.memoryBudget = memoryBudget
        for i in 0..<self.workers {
            Executor.startThread(name: "cyanotype-render-\(i)", stackSize: 8 << 20) { [unowned self] in self.loop() }
        }
    }

    /// Renders waiting for a worker, renders running, and renders stopped by their deadline
    /// since the start (the engine saw the cancellation and gave the worker back early).
    package var load: (waiting: Int, running: Int, cancelled: Int) {
        condition.lock(); defer { condition.unlock() }
        return (waiting.count, running, stopped)
    }

    /// Runs `work` on a worker with the request's `CIRenderJob` and returns its answer;
    /// `busy` when the queue is full, `render_timeout` when `timeout` seconds pass first (the
    /// job is then cancelled, so the render stops too).
    package func run(timeout: Double, _ work: @escaping @Sendable (CIRenderJob) -> HTTPResponse) -> HTTPResponse {
        let job = Job(work, budget: memoryBudget)
        condition.lock()
        if stopping || waiting.count + running >= workers + capacity {
            condition.unlock()
            return ServeError.busy(retryAfter: 1).response
        }
        waiting.append(job)
        condition.signal()
        condition.unlock()
        if job.done.wait(timeout: .now() + timeout) == .timedOut {
            condition.lock()
            if let result = job.result {
                condition.unlock()
                return result
            }
            job.cancelled = true
            job.render.cancel()
            waiting.removeAll { $0 === job }
            condition.unlock()
            return ServeError.renderTimeout(seconds: timeout).response
        }
        condition.lock(); defer { condition.unlock() }
        return job.result ?? ServeError.internalError.response
    }

    /// Lets the workers finish the renders they hold, then end.
    package func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    private func loop() {
        while true {
            condition.lock()
            while waiting.isEmpty && !stopping { condition.wait() }
            if waiting.isEmpty {
                condition.unlock()
                return
            }
            let job = waiting.removeFirst()
            if job.cancelled {
                condition.unlock()
                continue
            }
            running += 1
            condition.unlock()
            let result = job.work(job.render)
            condition.lock()
            running -= 1
            if job.render.stoppedRenders > 0 { stopped += 1 }
            job.result = result
            condition.unlock()
            job.done.signal()
        }
    }
}
