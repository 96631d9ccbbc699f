import Foundation
import Testing
@testable import Cyanotype

private func aztec(_ message: Data, level: Float = 23, layers: Float? = nil, compact: Bool? = nil) throws -> CIImage {
    let f = CIFilter.aztecCodeGenerator()
    f.message = message
    f.correctionLevel = level
    if let l = layers { f.layers = l }
    if let c = compact { f.compactStyle = c ? 1 : 0 }
    return try f.makeOutputImage()
}

@Suite struct BarcodeAztecTests {
    @Test func galoisFieldsArePrimitive() {
        for f in [GaloisField.gf16, .gf64, .gf256, .gf1024, .gf4096] {
            // alpha generates every non-zero element exactly once.
            #expect(Set(f.exp[0..<(f.size - 1)]).count == f.size - 1)
        }
        // Check words make a codeword whose syndromes S1...Sn vanish.
        let f = GaloisField.gf64
        let data = [1, 7, 33, 60, 12]
        let cw = data + f.checkWords(data, count: 6)
        for i in 1...6 {
            var s = 0
            for c in cw { s = f.multiply(s, f.exp[i]) ^ c }
            #expect(s == 0)
        }
    }

    @Test func bitStuffing() {
        // 6-bit words: 00000x gets a 1 stuffed, 11111x a 0; the tail is padded with ones.
        let bits: [Bool] = [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 1].map { $0 == 1 }
        #expect(AztecCode.stuff(bits, wordSize: 6) == [0b000001, 0b011111, 0b110111])
        #expect(AztecCode.stuff([true, true, true, true, true, false], wordSize: 6) == [0b111110, 0b011111])
    }

    @Test func sizesAndStructure() throws {
        let code = try AztecCode.encode(Array("Aztec".utf8), level: 23)
        #expect(code.compact && code.layers == 1)
        #expect(code.matrix.width == 15)
        let img = try aztec(Data("Aztec".utf8))
        #expect(img.extent == CGRect(x: 0, y: 0, width: 15, height: 15))
        // Bullseye: centre dark, ring 1 light, ring 2 dark.
        let m = code.matrix
        #expect(m[7, 7] && !m[8, 7] && m[9, 7] && !m[10, 7] && m[11, 7])
        let full = try AztecCode.encode(Array("Full range".utf8), level: 23, layers: 5, compact: false)
        #expect(!full.compact && full.matrix.width == 37)
        #expect(throws: CIFilterError.self) { try aztec(Data()) }
        #expect(
            throws: CIFilterError.invalidValue(
                filter: "CIAztecCodeGenerator", key: "inputMessage",
                reason: "the message does not fit a compact Aztec symbol of 1 layers; leave inputLayers unset to choose automatically")
        ) {
            try aztec(Data(repeating: 65, count: 100), layers: 1, compact: true)
        }
    }

    @Test(.enabled(if: zxingAvailable, "zxing-cpp missing: pip install zxing-cpp"))
    func zxingDecodes() throws {
        var cases: [(String, Data, CIImage)] = []
        let texts = ["Aztec", "Grüße aus Zürich — 日本語 🌞", "0123456789", String(repeating: "Cyanotype Aztec code. ", count: 20)]
        for t in texts { cases.append((t, Data(t.utf8), try aztec(Data(t.utf8)))) }
        for (l, c) in [(1, true), (2, true), (3, true), (4, true), (4, false), (5, false), (8, false), (9, false), (12, false), (16, false), (22, false), (23, false), (32, false)]
        {
            let bytes = max(1, AztecCode.totalBits(l, compact: c) / 8 / 3)
            let payload = Data((0..<bytes).map { UInt8(($0 * 29 + l) & 0xFF) })
            cases.append(("\(c ? "compact" : "full") \(l)", payload, try aztec(payload, layers: Float(l), compact: c)))
        }
        for level in [5, 50, 95] as [Float] {
            cases.append(("level \(level)", Data("correction".utf8), try aztec(Data("correction".utf8), level: level)))
        }
        let got = try zxingDecode(cases.map { $0.2 }, scale: 2)
        #expect(got.count == cases.count)
        for (i, g) in got.enumerated() where i < cases.count {
            #expect(Bool(g == "Aztec:" + cases[i].1.hex), "\(cases[i].0): got \(g.prefix(60))")
        }
    }
}
