import Cyanotype
import Foundation

/// A refusal the server answers with: an HTTP status, a stable code for programs and a
/// message for people, sent as `{"error": CODE, "message": TEXT}`. Messages name files as
/// the client did (never the server's own paths) and carry no stack traces.
package struct ServeError: Error, Sendable, Equatable, CustomStringConvertible {
    package let status: Int
    package let code: String
    package let message: String
    /// Seconds for `Retry-After` (busy and timed-out answers).
    package var retryAfter: Int?

    package init(status: Int, code: String, message: String, retryAfter: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    package var description: String { "\(status) \(code): \(message)" }

    /// The JSON answer.
    package var response: HTTPResponse {
        var headers: [(name: String, value: String)] = [("Cache-Control", "no-store")]
        if let retryAfter { headers.append(("Retry-After", String(retryAfter))) }
        return .json(["error": code, "message": message], status: status, headers: headers)
    }

    // MARK: The refusals, by cause

    package static func badRequest(_ message: String) -> ServeError { ServeError(status: 400, code: "bad_request", message: message) }
    package static func badParameter(_ message: String) -> ServeError { ServeError(status: 400, code: "bad_parameter", message: message) }
    package static func malformedJSON(_ message: String) -> ServeError { ServeError(status: 400, code: "malformed_json", message: message) }
    package static func unknownFilter(_ message: String) -> ServeError { ServeError(status: 400, code: "unknown_filter", message: message) }
    package static func badValue(_ message: String) -> ServeError { ServeError(status: 400, code: "bad_value", message: message) }
    package static func tooLarge(_ message: String) -> ServeError { ServeError(status: 400, code: "too_large", message: message) }
    package static func chainTooLong(limit: Int) -> ServeError {
        ServeError(status: 400, code: "chain_too_long", message: "at most \(limit) filters may be chained in one request")
    }
    package static func bodyTooLarge(limit: Int) -> ServeError {
        ServeError(status: 413, code: "body_too_large", message: "the request body is over the limit of \(limit) bytes")
    }
    package static let unsupportedMediaType = ServeError(
        status: 415, code: "unsupported_media_type",
        message: "send the request body as JSON, with the header Content-Type: application/json")
    package static func renderTooLarge(estimated: Int, limit: Int) -> ServeError {
        ServeError(
            status: 413, code: "render_too_large",
            message: "this render would need about \(CIRenderError.megabytes(estimated)) MB of memory, over this server's limit of \(CIRenderError.megabytes(limit)) MB "
                + "per render; ask for a smaller size (w, h) or fewer large blurs")
    }
    package static func outsideRoot(_ message: String) -> ServeError { ServeError(status: 403, code: "outside_root", message: message) }
    package static func notFound(_ message: String) -> ServeError { ServeError(status: 404, code: "not_found", message: message) }
    package static func unreadable(_ message: String) -> ServeError { ServeError(status: 422, code: "unreadable_image", message: message) }
    package static func renderFailed(_ message: String) -> ServeError { ServeError(status: 422, code: "render_failed", message: message) }
    package static let signatureMissing = ServeError(
        status: 403, code: "signature_required",
        message: "this server renders signed URLs only: add &sig=HEX (see 'cyanotype sign')")
    package static let signatureBad = ServeError(
        status: 403, code: "bad_signature",
        message: "the signature does not match this URL (sign the path and query without sig)")
    package static let signedOnly = ServeError(
        status: 403, code: "signed_only",
        message: "with --key this server answers signed /render URLs, /api/filters and /healthz only")
    package static let uploadNeeded = ServeError(
        status: 412, code: "upload_needed",
        message: "the uploaded image is not cached here: send it again as image.data")
    package static func busy(retryAfter: Int) -> ServeError {
        ServeError(status: 503, code: "busy", message: "every render worker is busy and the queue is full; retry shortly", retryAfter: retryAfter)
    }
    package static func renderTimeout(seconds: Double) -> ServeError {
        ServeError(status: 503, code: "render_timeout", message: "the render took longer than the limit of \(Int(seconds)) s", retryAfter: 5)
    }
    package static func methodNotAllowed(_ allowed: String) -> ServeError {
        ServeError(status: 405, code: "method_not_allowed", message: "use \(allowed)")
    }
    package static let internalError = ServeError(status: 500, code: "internal", message: "the server failed to answer this request")
}
