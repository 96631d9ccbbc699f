import Cyanotype
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Deadlines for what a client sends: its request's headers (from the connection's start, or
/// from the end of its previous request on a kept-alive connection) and then its body.
/// libmicrohttpd's own timeout (`MHD_OPTION_CONNECTION_TIMEOUT`) only counts idle time, so a
/// client trickling a byte every few seconds would hold a connection (and its thread) for
/// ever; a watchdog thread here shuts down the socket of a connection past its deadline, and
/// the library then closes it. No deadline runs while the server works on a request (the
/// render queue has its own) or sends the answer.
final class ConnectionDeadlines: @unchecked Sendable {
    let headerTimeout: Double
    let bodyTimeout: Double
    private let log: @Sendable (String) -> Void
    private struct Entry {
        let fd: Int32
        var deadline: DispatchTime?
        var waitingFor: String
    }
    private struct State {
        var entries: [OpaquePointer: Entry] = [:]
        var stopping = false
    }
    /// The connections' deadlines, shared with the watchdog through the engine's hand-off
    /// primitive.
    private let state = Handoff(State())

    /// - Parameters:
    ///   - headerTimeout: seconds for a request's headers.
    ///   - bodyTimeout: seconds for a request's body once its headers are in.
    ///   - log: where a dropped connection is reported.
    init(headerTimeout: Double, bodyTimeout: Double, log: @escaping @Sendable (String) -> Void) {
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.log = log
    }

    /// Starts the watchdog thread.
    func start() {
        Executor.startThread(name: "cyanotype-serve-deadlines") { [self] in watch() }
    }

    /// Ends the watchdog.
    func stop() { state.update { $0.stopping = true } }

    /// A new connection on socket `fd`: its first request's headers are due.
    func opened(_ connection: OpaquePointer, fd: Int32) {
        guard fd >= 0 else { return }
        let entry = Entry(fd: fd, deadline: .now() + headerTimeout, waitingFor: "headers")
        state.change {
            $0.entries[connection] = entry; return false
        }
    }

    /// The request's headers are in: its body is due.
    func headersReceived(_ connection: OpaquePointer) { update(connection, after: bodyTimeout, waitingFor: "body") }

    /// The whole request is in: no deadline while it is answered.
    func requestReceived(_ connection: OpaquePointer) { update(connection, after: nil, waitingFor: "") }

    /// The answer went out: the next request's headers are due (a kept-alive connection).
    func answered(_ connection: OpaquePointer) { update(connection, after: headerTimeout, waitingFor: "headers") }

    /// The connection closed.
    func closed(_ connection: OpaquePointer) {
        state.change {
            $0.entries[connection] = nil; return false
        }
    }

    /// A deadline changes: the watchdog sees it at its next look (within 100 ms), so it is
    /// not woken.
    private func update(_ connection: OpaquePointer, after seconds: Double?, waitingFor what: String) {
        let deadline = seconds.map { DispatchTime.now() + $0 }
        state.change { s in
            if var e = s.entries[connection] {
                e.deadline = deadline
                e.waitingFor = what
                s.entries[connection] = e
            }
            return false
        }
    }

    /// Every 100 ms: shuts down (under the lock, so the socket is still the connection's) the
    /// sockets past their deadline, and logs them outside it (a slow log must not hold up the
    /// connections' callbacks).
    private func watch() {
        let (headerTimeout, bodyTimeout) = (self.headerTimeout, self.bodyTimeout)
        while !state.read(\.stopping) {
            let lines = state.update { (s: inout State) -> [String] in
                let now = DispatchTime.now()
                var lines: [String] = []
                for (connection, e) in s.entries {
                    guard let deadline = e.deadline, deadline < now else { continue }
                    shutdown(e.fd, Int32(SHUT_RDWR))
                    s.entries[connection]?.deadline = nil
                    let limit = e.waitingFor == "body" ? bodyTimeout : headerTimeout
                    lines.append("cyanotype serve: dropped a connection whose request \(e.waitingFor) took over \(Self.seconds(limit)) s\n")
                }
                return lines
            }
            if !lines.isEmpty {
                lines.forEach(log)
                continue
            }
            _ = state.wait(until: { $0.stopping }, before: Date().addingTimeInterval(0.1))
        }
    }

    private static func seconds(_ s: Double) -> String { s == s.rounded() ? String(Int(s)) : String(s) }
}
