import CCrypto
import Foundation

/// SHA-256 and HMAC-SHA256 from OpenSSL's libcrypto.
package enum Digest {
    /// SHA-256 of `data`.
    package static func sha256(_ data: Data) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        data.withUnsafeBytes { raw in
            _ = EVP_Digest(raw.baseAddress, raw.count, &out, &length, EVP_sha256(), nil)
        }
        return out
    }

    /// HMAC-SHA256 of `message` under `key`.
    package static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = key.withUnsafeBufferPointer { k in
            message.withUnsafeBufferPointer { m in
                HMAC(EVP_sha256(), k.baseAddress, Int32(k.count), m.baseAddress, m.count, &out, &length)
            }
        }
        return out
    }

    /// Lower-case hex.
    package static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Bytes from hex (either case); nil when not hex.
    package static func bytes(fromHex text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(chars.count / 2)
        var i = 0
        while i < chars.count {
            guard let hi = nibble(chars[i]), let lo = nibble(chars[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    /// Whether `a` equals `b`, in time that depends only on their lengths (CRYPTO_memcmp).
    package static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in CRYPTO_memcmp(x.baseAddress, y.baseAddress, x.count) == 0 } }
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

/// Signed render URLs, as imgproxy and thumbor sign theirs: `sig` is the hex HMAC-SHA256,
/// under the server's secret, of the request's path and query exactly as sent, with the
/// `sig` parameter taken out (`/render?image=a.jpg&w=400`). Any change to the path, a
/// parameter or their order breaks the signature.
package struct URLSigner: Sendable {
    private let key: [UInt8]

    package init(secret: String) { key = Array(secret.utf8) }

    /// The text that is signed: the raw path, then `?` and the raw query's parameters other
    /// than `sig`, in order (no `?` when none is left).
    package static func message(rawPath: String, rawQuery: String?) -> String {
        let kept = (rawQuery ?? "").split(separator: "&", omittingEmptySubsequences: true).filter { !isSignature($0) }
        return kept.isEmpty ? rawPath : rawPath + "?" + kept.joined(separator: "&")
    }

    /// The hex signature of a path and query.
    package func signature(rawPath: String, rawQuery: String?) -> String {
        Digest.hex(Digest.hmacSHA256(key: key, message: Array(Self.message(rawPath: rawPath, rawQuery: rawQuery).utf8)))
    }

    /// Checks the request's `sig` against its path and query, in constant time.
    package func verify(rawPath: String, rawQuery: String?) throws(ServeError) {
        let sigs = (rawQuery ?? "").split(separator: "&").filter(Self.isSignature)
        guard let last = sigs.last else { throw .signatureMissing }
        let given = String(last.dropFirst(4))
        guard sigs.count == 1, let bytes = Digest.bytes(fromHex: given) else { throw .signatureBad }
        let expected = Digest.hmacSHA256(key: key, message: Array(Self.message(rawPath: rawPath, rawQuery: rawQuery).utf8))
        guard Digest.constantTimeEqual(bytes, expected) else { throw .signatureBad }
    }

    /// `url` (absolute, or a path with a query) with `sig=HEX` appended; an old `sig` is
    /// replaced.
    package func sign(_ url: String) -> String {
        var prefix = ""
        var target = Substring(url)
        if let scheme = target.range(of: "://") {
            let rest = target[scheme.upperBound...]
            let slash = rest.firstIndex(of: "/") ?? rest.endIndex
            prefix = String(target[..<slash])
            target = slash == rest.endIndex ? "/" : rest[slash...]
        }
        let request = HTTPRequest(method: "GET", target: String(target))
        let sig = signature(rawPath: request.rawPath, rawQuery: request.rawQuery)
        let kept = Self.message(rawPath: request.rawPath, rawQuery: request.rawQuery)
        return prefix + kept + (kept.contains("?") ? "&" : "?") + "sig=" + sig
    }

    private static func isSignature(_ part: Substring) -> Bool { part.hasPrefix("sig=") || part == "sig" }
}
