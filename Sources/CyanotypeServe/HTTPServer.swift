import CDeferredLibraries
import Cyanotype
import CMicroHTTPD
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One HTTP request as the service sees it: the target exactly as sent (signatures are
/// checked against it), the decoded path and query, the headers and the whole body.
package struct HTTPRequest: Sendable {
    /// `GET`, `POST`, `HEAD`, ...
    package var method: String
    /// The path, percent-encoded as sent (`/render`).
    package var rawPath: String
    /// The query after `?`, percent-encoded as sent; nil when there is none.
    package var rawQuery: String?
    /// Header values by lower-cased name.
    package var headers: [String: String]
    /// The request body (empty for GET).
    package var body: Data

    package init(method: String, target: String, headers: [String: String] = [:], body: Data = Data()) {
        self.method = method
        var t = Substring(target)
        // Absolute-form targets (`http://host/path?q`) name the path after the authority.
        if let scheme = t.range(of: "://") {
            let rest = t[scheme.upperBound...]
            t = rest.firstIndex(of: "/").map { rest[$0...] } ?? "/"
        }
        if let q = t.firstIndex(of: "?") {
            rawPath = String(t[..<q])
            rawQuery = String(t[t.index(after: q)...])
        } else {
            rawPath = String(t)
            rawQuery = nil
        }
        self.headers = headers
        self.body = body
    }

    /// The path with percent escapes decoded (nil when they are malformed).
    package var path: String? { QueryString.decode(rawPath, plusIsSpace: false) }

    /// The query's `name=value` pairs in order, decoded as a form (`+` is a space).
    package var query: [(name: String, value: String)]? { QueryString.parse(rawQuery ?? "") }
}

/// A response: status, headers and body. Errors are JSON (`ServeError.response`).
package struct HTTPResponse: Sendable {
    package var status: Int
    package var headers: [(name: String, value: String)]
    package var body: Data

    package init(status: Int, headers: [(name: String, value: String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON body (pretty-printed, keys sorted) with its content type.
    package static func json(_ object: Any, status: Int = 200, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return HTTPResponse(status: status, headers: [("Content-Type", "application/json; charset=utf-8")] + headers, body: data + Data("\n".utf8))
    }
}

/// `application/x-www-form-urlencoded` and percent-encoding, both ways.
package enum QueryString {
    /// `a=1&b=x%20y` -> [("a", "1"), ("b", "x y")]; nil when an escape is malformed.
    package static func parse(_ query: String) -> [(name: String, value: String)]? {
        var out: [(name: String, value: String)] = []
        for part in query.split(separator: "&", omittingEmptySubsequences: true) {
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(String(pieces[0]), plusIsSpace: true),
                let value = decode(pieces.count > 1 ? String(pieces[1]) : "", plusIsSpace: true)
            else { return nil }
            out.append((name, value))
        }
        return out
    }

    /// Percent escapes decoded as UTF-8 (and `+` as a space in a form); nil when malformed.
    package static func decode(_ text: String, plusIsSpace: Bool) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var it = Array(text.utf8)[...]
        while let c = it.popFirst() {
            if c == UInt8(ascii: "%") {
                guard it.count >= 2, let hi = hexValue(it[it.startIndex]), let lo = hexValue(it[it.startIndex + 1]) else { return nil }
                bytes.append(hi << 4 | lo)
                it = it.dropFirst(2)
            } else if c == UInt8(ascii: "+") && plusIsSpace {
                bytes.append(UInt8(ascii: " "))
            } else {
                bytes.append(c)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Percent-encodes everything but unreserved characters (RFC 3986), so a value survives
    /// any query parser.
    package static func encode(_ text: String) -> String {
        var out = ""
        for b in text.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(UnicodeScalar(b))
            default:
                out += String(format: "%%%02X", b)
            }
        }
        return out
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

/// Why the server could not start.
package struct ServerStartError: Error, CustomStringConvertible, Sendable {
    package let description: String
}

/// An HTTP/1.1 server on libmicrohttpd: one thread per connection (a handler may block
/// while its render waits for a worker), bodies read up to a limit, every request logged to
/// standard error with its status and time, and a graceful stop that finishes the requests
/// in flight.
package final class HTTPServer: @unchecked Sendable {
    /// The work for one request; called on the connection's thread.
    package typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    package let host: String
    private let requestedPort: UInt16
    private let maxBodyBytes: Int
    private let connectionLimit: Int
    private let perAddressLimit: Int
    private let idleTimeout: Int
    private let deadlines: ConnectionDeadlines
    private let handler: Handler
    private let log: @Sendable (String) -> Void
    private var daemon: OpaquePointer?
    private var listenFD: Int32 = -1
    /// The port bound (the requested one, or the one the system chose for port 0).
    package private(set) var port: UInt16 = 0

    /// Requests received and not yet answered.
    private let activity = Handoff(0)

    /// - Parameters:
    ///   - maxBodyBytes: larger request bodies are answered 413 without being read.
    ///   - connectionLimit: connections beyond it are refused by the library.
    ///   - perAddressLimit: connections from one client address beyond it are refused.
    ///   - headerTimeout: seconds a client has to send a request's headers.
    ///   - bodyTimeout: seconds a client has to send a request's body after its headers.
    ///   - idleTimeout: seconds a connection may stay silent (libmicrohttpd's timeout).
    ///   - log: where request log lines go (standard error in the tool).
    package init(
        host: String, port: UInt16, maxBodyBytes: Int, connectionLimit: Int = 256, perAddressLimit: Int = 64,
        headerTimeout: Double = 10, bodyTimeout: Double = 60, idleTimeout: Int = 120,
        log: @escaping @Sendable (String) -> Void, handler: @escaping Handler
    ) {
        self.host = host
        self.requestedPort = port
        self.maxBodyBytes = maxBodyBytes
        self.connectionLimit = connectionLimit
        self.perAddressLimit = perAddressLimit
        self.idleTimeout = idleTimeout
        deadlines = ConnectionDeadlines(headerTimeout: headerTimeout, bodyTimeout: bodyTimeout, log: log)
        self.handler = handler
        self.log = log
    }

    /// Binds and starts serving; returns once the socket listens.
    package func start() throws(ServerStartError) {
        // libmicrohttpd and libcrypto (content keys, signatures) are opened on first use.
        if let message = DeferredLibrary.failure(loading: [CY_LIBRARY_MICROHTTPD, CY_LIBRARY_CRYPTO]) {
            throw ServerStartError(description: message)
        }
        let (fd, bound, ipv6) = try Self.listen(host: host, port: requestedPort)
        listenFD = fd
        port = bound
        let me = Unmanaged.passUnretained(self).toOpaque()
        var flags =
            MHD_USE_THREAD_PER_CONNECTION.rawValue | MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_POLL.rawValue
            | MHD_USE_ITC.rawValue
        if ipv6 { flags |= MHD_USE_IPv6.rawValue }
        let uriLog = unsafeBitCast(Self.uriLogCallback, to: OpaquePointer.self)
        let completed = unsafeBitCast(Self.completedCallback, to: OpaquePointer.self)
        let notify = unsafeBitCast(Self.connectionCallback, to: OpaquePointer.self)
        var options: [CVarArg] = []
        func option(_ o: MHD_OPTION, _ values: CVarArg...) {
            options.append(Int32(bitPattern: UInt32(o.rawValue)))
            options.append(contentsOf: values)
        }
        option(.LISTEN_SOCKET, Int32(fd))
        option(.URI_LOG_CALLBACK, uriLog, OpaquePointer(me))
        option(.NOTIFY_COMPLETED, completed, OpaquePointer(me))
        option(.NOTIFY_CONNECTION, notify, OpaquePointer(me))
        option(.CONNECTION_LIMIT, UInt32(connectionLimit))
        option(.PER_IP_CONNECTION_LIMIT, UInt32(perAddressLimit))
        option(.CONNECTION_TIMEOUT, UInt32(idleTimeout))
        // Long query strings (chains of filters, signatures) fit in the header buffer.
        option(.CONNECTION_MEMORY_LIMIT, Int(256 << 10))
        options.append(Int32(bitPattern: UInt32(MHD_OPTION.END.rawValue)))
        daemon = withVaList(options) { va in
            MHD_start_daemon_va(UInt32(flags), bound, nil, nil, Self.accessCallback, me, va)
        }
        guard daemon != nil else {
            close(fd)
            listenFD = -1
            throw ServerStartError(description: "the HTTP server (libmicrohttpd) did not start on \(host):\(bound)")
        }
        deadlines.start()
    }

    /// Stops accepting connections, waits up to `timeout` seconds for the requests in flight
    /// to finish, then closes every connection.
    package func stop(timeout: Double) {
        guard let daemon else { return }
        let fd = MHD_quiesce_daemon(daemon)
        if fd >= 0 { close(fd) }
        listenFD = -1
        let deadline = Date().addingTimeInterval(timeout)
        _ = activity.wait(until: { $0 == 0 }, before: deadline)
        let left = activity.read { $0 }
        if left > 0 { log("cyanotype serve: stopping with \(left) request(s) unfinished after \(Int(timeout)) s\n") }
        MHD_stop_daemon(daemon)
        deadlines.stop()
        self.daemon = nil
    }

    /// Requests received and not yet answered.
    package var requestsInFlight: Int {
        activity.read { $0 }
    }

    // MARK: Sockets

    /// A listening TCP socket on `host` (an IPv4 or IPv6 address, or `localhost`).
    static func listen(host: String, port: UInt16) throws(ServerStartError) -> (Int32, UInt16, Bool) {
        let name = host == "localhost" ? "127.0.0.1" : host
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        let ipv6: Bool
        if inet_pton(AF_INET, name, &v4.sin_addr) == 1 {
            ipv6 = false
        } else if inet_pton(AF_INET6, name.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), &v6.sin6_addr) == 1 {
            ipv6 = true
        } else {
            throw ServerStartError(description: "--host takes an IP address (127.0.0.1, 0.0.0.0, ::1, ::) or localhost, got '\(host)'")
        }
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ServerStartError(description: "cannot open a socket (\(String(cString: strerror(errno))))") }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound: Int32
        if ipv6 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            bound = withUnsafePointer(to: &v6) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        } else {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            bound = withUnsafePointer(to: &v4) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        guard bound == 0, Glibc.listen(fd, 128) == 0 else {
            let why = String(cString: strerror(errno))
            close(fd)
            throw ServerStartError(description: "cannot listen on \(host):\(port) (\(why))")
        }
        var actual = sockaddr_in6()
        var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        _ = withUnsafeMutablePointer(to: &actual) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        // sin_port and sin6_port sit at the same offset.
        return (fd, UInt16(bigEndian: actual.sin6_port), ipv6)
    }

    // MARK: Callbacks (static: libmicrohttpd's threads call them)

    /// What the server keeps for one request between the library's calls.
    final class Exchange {
        let target: String
        let started = DispatchTime.now()
        var method = ""
        var headers: [String: String] = [:]
        var body = Data()
        var began = false
        var answered = false
        var status = 0
        init(target: String) { self.target = target }
    }

    private static let uriLogCallback: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = { cls, uri, _ in
        guard let cls else { return nil }
        let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
        server.activity.update { $0 += 1 }
        let exchange = Exchange(target: uri.map { String(cString: $0) } ?? "/")
        return Unmanaged.passRetained(exchange).toOpaque()
    }

    private static let connectionCallback: MHD_NotifyConnectionCallback = { cls, connection, _, code in
        guard let cls, let connection else { return }
        let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
        if code.rawValue == 0 {  // MHD_CONNECTION_NOTIFY_STARTED
            server.deadlines.opened(connection, fd: cy_mhd_connection_fd(connection))
        } else {
            server.deadlines.closed(connection)
        }
    }

    private static let completedCallback: MHD_RequestCompletedCallback = { cls, connection, context, _ in
        guard let cls else { return }
        let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
        if let connection { server.deadlines.answered(connection) }
        guard let context, let raw = context.pointee else { return }
        context.pointee = nil
        let exchange = Unmanaged<Exchange>.fromOpaque(raw).takeRetainedValue()
        let ms = Double(DispatchTime.now().uptimeNanoseconds - exchange.started.uptimeNanoseconds) / 1e6
        let path = exchange.target.split(separator: "?", maxSplits: 1).first.map(String.init) ?? exchange.target
        let status = exchange.answered ? String(exchange.status) : "-"
        server.log("\(exchange.method.isEmpty ? "-" : exchange.method) \(HTTPServer.printable(path)) \(status) \(String(format: "%.1f", ms)) ms\n")
        server.activity.update { $0 -= 1 }
    }

    private static let accessCallback: MHD_AccessHandlerCallback = { cls, connection, _, method, _, uploadData, uploadSize, context in
        guard let cls, let connection, let context, let raw = context.pointee else { return .NO }
        let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
        let exchange = Unmanaged<Exchange>.fromOpaque(raw).takeUnretainedValue()
        if !exchange.began {
            exchange.began = true
            exchange.method = method.map { String(cString: $0) } ?? "GET"
            exchange.headers = HTTPServer.headers(of: connection)
            if let length = exchange.headers["content-length"].flatMap(Int.init), length > server.maxBodyBytes {
                server.deadlines.requestReceived(connection)
                return server.answer(connection, exchange, ServeError.bodyTooLarge(limit: server.maxBodyBytes).response)
            }
            server.deadlines.headersReceived(connection)
            return .YES
        }
        if exchange.answered {
            // The answer went out early (a body over the limit): drop what still arrives.
            uploadSize?.pointee = 0
            return .YES
        }
        if let uploadSize, uploadSize.pointee > 0 {
            if let uploadData, exchange.body.count + uploadSize.pointee <= server.maxBodyBytes {
                exchange.body.append(UnsafeRawPointer(uploadData).assumingMemoryBound(to: UInt8.self), count: uploadSize.pointee)
                uploadSize.pointee = 0
                return .YES
            }
            uploadSize.pointee = 0
            server.deadlines.requestReceived(connection)
            return server.answer(connection, exchange, ServeError.bodyTooLarge(limit: server.maxBodyBytes).response)
        }
        server.deadlines.requestReceived(connection)
        let request = HTTPRequest(method: exchange.method, target: exchange.target, headers: exchange.headers, body: exchange.body)
        exchange.body = Data()
        return server.answer(connection, exchange, server.handler(request))
    }

    private func answer(_ connection: OpaquePointer, _ exchange: Exchange, _ response: HTTPResponse) -> MHD_Result {
        exchange.answered = true
        exchange.status = response.status
        let made: OpaquePointer? = response.body.withUnsafeBytes { raw in
            if let base = raw.baseAddress, raw.count > 0 {
                return MHD_create_response_from_buffer(raw.count, UnsafeMutableRawPointer(mutating: base), .RESPMEM_MUST_COPY)
            }
            return MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT)
        }
        guard let r = made else { return .NO }
        for (name, value) in response.headers { _ = MHD_add_response_header(r, name, Self.printable(value)) }
        let ok = MHD_queue_response(connection, UInt32(response.status), r)
        MHD_destroy_response(r)
        return ok
    }

    /// Header names lower-cased; a repeated header keeps its values joined by ", ".
    private static func headers(of connection: OpaquePointer) -> [String: String] {
        final class Box { var values: [String: String] = [:] }
        let box = Box()
        let iterator: MHD_KeyValueIterator = { cls, _, key, value in
            guard let cls, let key else { return .YES }
            let box = Unmanaged<Box>.fromOpaque(cls).takeUnretainedValue()
            let name = String(cString: key).lowercased()
            let v = value.map { String(cString: $0) } ?? ""
            box.values[name] = box.values[name].map { $0 + ", " + v } ?? v
            return .YES
        }
        let unmanaged = Unmanaged.passRetained(box)
        _ = MHD_get_connection_values(connection, .HEADER_KIND, iterator, unmanaged.toOpaque())
        unmanaged.release()
        return box.values
    }

    /// Header values and log lines keep printable ASCII only (no line breaks a client could
    /// use to forge headers or log lines).
    static func printable(_ s: String) -> String {
        String(String.UnicodeScalarView(s.unicodeScalars.map { $0.value >= 0x20 && $0.value < 0x7F ? $0 : "?" }))
    }
}
