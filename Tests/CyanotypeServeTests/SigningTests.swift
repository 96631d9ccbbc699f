@testable import CyanotypeServe
import Foundation
import Testing

@Suite struct Signing {
    /// RFC 4231, test cases 1 and 2 (an independent reference for HMAC-SHA256).
    @Test func hmacMatchesRFC4231() {
        let key1 = [UInt8](repeating: 0x0b, count: 20)
        #expect(
            Digest.hex(Digest.hmacSHA256(key: key1, message: Array("Hi There".utf8)))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(
            Digest.hex(Digest.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // FIPS 180-2's "abc".
        #expect(Digest.hex(Digest.sha256(Data("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func theMessageIsThePathAndQueryWithoutSig() {
        #expect(URLSigner.message(rawPath: "/render", rawQuery: "image=a.jpg&sig=00&w=4") == "/render?image=a.jpg&w=4")
        #expect(URLSigner.message(rawPath: "/render", rawQuery: "sig=00") == "/render")
        #expect(URLSigner.message(rawPath: "/render", rawQuery: nil) == "/render")
        // Only the parameter named sig goes: "signature=" and "xsig=" stay.
        #expect(URLSigner.message(rawPath: "/r", rawQuery: "xsig=1&signature=2") == "/r?xsig=1&signature=2")
    }

    @Test func signedURLsVerifyAndAnyChangeBreaksThem() throws {
        let signer = URLSigner(secret: "correct horse battery staple")
        let signed = signer.sign("http://example.com:8080/render?image=a.jpg&filter=sepiaTone%20intensity%3D0.8&w=400")
        #expect(signed.hasPrefix("http://example.com:8080/render?image=a.jpg&filter=sepiaTone%20intensity%3D0.8&w=400&sig="))
        let request = HTTPRequest(method: "GET", target: String(signed.dropFirst("http://example.com:8080".count)))
        try signer.verify(rawPath: request.rawPath, rawQuery: request.rawQuery)
        // The signature is HMAC-SHA256 of the path and query, in hex.
        let sig = String(signed.split(separator: "=").last!)
        #expect(
            sig
                == Digest.hex(
                    Digest.hmacSHA256(
                        key: Array("correct horse battery staple".utf8),
                        message: Array("/render?image=a.jpg&filter=sepiaTone%20intensity%3D0.8&w=400".utf8))))
        // Re-signing replaces the old signature.
        #expect(signer.sign(signed) == signed)
        for tampered in [
            request.rawQuery!.replacingOccurrences(of: "w=400", with: "w=401"),
            request.rawQuery!.replacingOccurrences(of: "image=a.jpg&", with: "") + "&image=a.jpg",
            request.rawQuery!.replacingOccurrences(of: sig, with: String(sig.reversed())),
            request.rawQuery!.replacingOccurrences(of: sig, with: "zz"),
            request.rawQuery! + "&sig=" + sig,
        ] {
            #expect(throws: ServeError.self) { try signer.verify(rawPath: "/render", rawQuery: tampered) }
        }
        #expect(throws: ServeError.signatureMissing) { try signer.verify(rawPath: "/render", rawQuery: "image=a.jpg") }
        #expect(throws: ServeError.signatureBad) { try URLSigner(secret: "other").verify(rawPath: request.rawPath, rawQuery: request.rawQuery) }
    }

    @Test func constantTimeComparison() {
        #expect(Digest.constantTimeEqual([1, 2, 3], [1, 2, 3]))
        #expect(!Digest.constantTimeEqual([1, 2, 3], [1, 2, 4]))
        #expect(!Digest.constantTimeEqual([1, 2, 3], [1, 2]))
        #expect(Digest.bytes(fromHex: "00ffA0") == [0, 255, 160])
        #expect(Digest.bytes(fromHex: "0g") == nil)
        #expect(Digest.bytes(fromHex: "abc") == nil)
    }
}
