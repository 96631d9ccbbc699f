import Cyanotype
import Foundation

/// At most `workers` renders at once, on long-running engine threads (`Executor.startThread`), and at most `capacity`
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

    /// The queue, shared by the requests and the workers (a job's `result` and `cancelled`
    /// change under it too).
    private struct State {
        var waiting: [Job] = []
        var running = 0
        var stopped = 0
        var stopping = false
    }
    private let state = Handoff(State())

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
        state.read { ($0.waiting.count, $0.running, $0.stopped) }
    }

    /// Runs `work` on a worker with the request's `CIRenderJob` and returns its answer;
    /// `busy` when the queue is full, `render_timeout` when `timeout` seconds pass first (the
    /// job is then cancelled, so the render stops too).
    package func run(timeout: Double, _ work: @escaping @Sendable (CIRenderJob) -> HTTPResponse) -> HTTPResponse {
        let job = Job(work, budget: memoryBudget)
        let (workers, capacity) = (self.workers, self.capacity)
        let accepted = state.update { s -> Bool in
            if s.stopping || s.waiting.count + s.running >= workers + capacity { return false }
            s.waiting.append(job)
            return true
        }
        guard accepted else { return ServeError.busy(retryAfter: 1).response }
        if job.done.wait(timeout: .now() + timeout) == .timedOut {
            let result = state.update { s -> HTTPResponse? in
                if let result = job.result { return result }
                job.cancelled = true
                job.render.cancel()
                s.waiting.removeAll { $0 === job }
                return nil
            }
            return result ?? ServeError.renderTimeout(seconds: timeout).response
        }
        return state.read { _ in job.result } ?? ServeError.internalError.response
    }

    /// Lets the workers finish the renders they hold, then end.
    package func stop() {
        state.update { $0.stopping = true }
    }

    private func loop() {
        while true {
            // The next job not cancelled while it waited; nil once stopping with none left.
            let next = state.wait(
                until: { !$0.waiting.isEmpty || $0.stopping },
                thenChange: { (s: inout State) -> Job?? in
                    if s.waiting.isEmpty { return .none }
                    let job = s.waiting.removeFirst()
                    if job.cancelled { return .some(nil) }
                    s.running += 1
                    return .some(job)
                })
            guard let taken = next else { return }
            guard let job = taken else { continue }
            let result = job.work(job.render)
            state.update { s in
                s.running -= 1
                if job.render.stoppedRenders > 0 { s.stopped += 1 }
                job.result = result
            }
            job.done.signal()
        }
    }
}
