import Cyanotype
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Ctrl-C, TERM and HUP for every command: the first one removes the temporary files atomic
/// writes are filling (`TemporaryFiles`) and ends the process with status 1 and an
/// "interrupted" message, so no `.NAME.UUID.tmp` stays beside an output; a second one ends it
/// at once. While a cancel action is set (a video export), the first signal calls its
/// cancel action instead and the command ends itself. Signals the shell set to be ignored (a
/// background job's INT) stay ignored.
package enum Interrupts {
    private static let state = State()

    /// Takes INT, TERM and HUP for the rest of the process (once; later calls do nothing).
    package static func install() {
        state.installOnce {
            // A serial queue of its own: it gets a thread even while every worker of the
            // global pool is busy rendering (the global queues would queue the handler).
            let queue = DispatchQueue(label: "cyanotype.interrupts", qos: .userInteractive)
            var sources: [any DispatchSourceSignal] = []
            for sig in [SIGINT, SIGTERM, SIGHUP] {
                let previous = signal(sig, SIG_IGN)
                if unsafeBitCast(previous, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { continue }
                let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
                source.setEventHandler { received(sig) }
                source.resume()
                sources.append(source)
            }
            return sources
        }
    }

    /// While set, the first signal calls `action` instead of ending the process (it should
    /// make the command end soon with its own "interrupted" error, as a cancelled video export
    /// does); nil brings the usual handling back.
    package static func setCancelAction(_ action: (@Sendable () -> Void)?) {
        install()
        state.setCancel(action)
    }

    private static func received(_ sig: Int32) {
        let (count, cancel) = state.arrived()
        if count == 1, let cancel {
            cancel()
            return
        }
        TemporaryFiles.removeAllForExit()
        if count > 1 { _exit(128 + sig) }
        let name = sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "signal \(sig)"
        Console.err("cyanotype: interrupted (\(name)): stopped; unfinished outputs were removed\n")
        _exit(1)
    }

    private final class State: @unchecked Sendable {
        private let lock = NSLock()
        private var sources: [any DispatchSourceSignal]?
        private var cancel: (@Sendable () -> Void)?
        private var count = 0

        func installOnce(_ make: () -> [any DispatchSourceSignal]) {
            lock.lock()
            defer { lock.unlock() }
            if sources == nil { sources = make() }
        }

        func setCancel(_ action: (@Sendable () -> Void)?) {
            lock.lock()
            defer { lock.unlock() }
            cancel = action
        }

        func arrived() -> (Int, (@Sendable () -> Void)?) {
            lock.lock()
            defer { lock.unlock() }
            count += 1
            return (count, cancel)
        }
    }
}
