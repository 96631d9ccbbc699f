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
    private let condition = NSCondition()
    private var entries: [OpaquePointer: Entry] = [:]
    private var stopping = false

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
    func stop() {
        condition.lock(); stopping = true; condition.broadcast(); condition.unlock()
    }

    /// A new connection on socket `fd`: its first request's headers are due.
    func opened(_ connection: OpaquePointer, fd: Int32) {
        guard fd >= 0 else { return }
        set(connection, Entry(fd: fd, deadline: .now() + headerTimeout, waitingFor: "headers"))
    }

    /// The request's headers are in: its body is due.
    func headersReceived(_ connection: OpaquePointer) { update(connection, after: bodyTimeout, waitingFor: "body") }

    /// The whole request is in: no deadline while it is answered.
    func requestReceived(_ connection: OpaquePointer) { update(connection, after: nil, waitingFor: "") }

    /// The answer went out: the next request's headers are due (a kept-alive connection).
    func answered(_ connection: OpaquePointer) { update(connection, after: headerTimeout, waitingFor: "headers") }

    /// The connection closed.
    func closed(_ connection: OpaquePointer) {
        condition.lock(); entries[connection] = nil; condition.unlock()
    }

    private func set(_ connection: OpaquePointer, _ entry: Entry) {
        condition.lock(); entries[connection] = entry; condition.unlock()
    }

    private func update(_ connection: OpaquePointer, after seconds: Double?, waitingFor what: String) {
        condition.lock()
        if var e = entries[connection] {
            e.deadline = seconds.map { .now() + $0 }
            e.waitingFor = what
            entries[connection] = e
        }
        condition.unlock()
    }

    /// Every 100 ms: shuts down (under the lock, so the socket is still the connection's) the
    /// sockets past their deadline.
    private func watch() {
        condition.lock()
        while !stopping {
            let now = DispatchTime.now()
            var lines: [String] = []
            for (connection, e) in entries {
                guard let deadline = e.deadline, deadline < now else { continue }
                shutdown(e.fd, Int32(SHUT_RDWR))
                entries[connection]?.deadline = nil
                let limit = e.waitingFor == "body" ? bodyTimeout : headerTimeout
                lines.append("cyanotype serve: dropped a connection whose request \(e.waitingFor) took over \(Self.seconds(limit)) s\n")
            }
            if !lines.isEmpty {
                // Logged outside the lock: a slow log must not hold up the connections' callbacks.
                condition.unlock()
                lines.forEach(log)
                condition.lock()
                continue
            }
            _ = condition.wait(until: Date().addingTimeInterval(0.1))
        }
        condition.unlock()
    }

    private static func seconds(_ s: Double) -> String { s == s.rounded() ? String(Int(s)) : String(s) }
}
