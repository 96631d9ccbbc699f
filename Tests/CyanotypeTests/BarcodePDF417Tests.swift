import Foundation
import Testing
@testable import Cyanotype

private func pdf417(
    _ message: Data, level: Float? = nil, mode: Float? = nil, rows: Float? = nil, columns: Float? = nil,
    compact: Bool? = nil, always: Bool? = nil, ratio: Float? = nil
) throws -> CIImage {
    let f = CIFilter.pdf417BarcodeGenerator()
    f.message = message
    if let l = level { f.correctionLevel = l }
    if let m = mode { f.compactionMode = m }
    if let r = rows { f.rows = r }
    if let c = columns { f.dataColumns = c }
    if let c = compact { f.compactStyle = c ? 1 : 0 }
    if let a = always { f.alwaysSpecifyCompaction = a ? 1 : 0 }
    if let r = ratio { f.preferredAspectRatio = r }
    return try f.makeOutputImage()
}

/// Bytes from a fixed linear congruential sequence.
private func pseudoRandomBytes(_ n: Int, seed: UInt32) -> [UInt8] {
    var x = seed
    return (0..<n).map { _ in
        x = x &* 1_103_515_245 &+ 12345; return UInt8(x >> 16 & 0xFF)
    }
}

@Suite struct BarcodePDF417Tests {
    @Test func patternTableStructure() {
        #expect(PDF417.patterns.count == 3 * 929)
        var seen = Set<UInt32>()
        for cluster in 0..<3 {
            var previous: [Int]?
            for cw in 0..<929 {
                let w = PDF417.widths(cw, cluster: cluster)
                #expect(w.reduce(0, +) == 17 && w.allSatisfy { (1...6).contains($0) }, "cluster \(3 * cluster) codeword \(cw)")
                // The cluster number of a pattern: (b1 - b2 + b3 - b4) mod 9 over its bar widths.
                #expect(((w[0] - w[2] + w[4] - w[6]) % 9 + 9) % 9 == 3 * cluster, "cluster of codeword \(cw)")
                // Within a cluster, codewords ascend with the edge-to-similar-edge sums e2...e6, e1.
                let e = (0..<7).map { w[$0] + w[$0 + 1] }
                let key = [e[1], e[2], e[3], e[4], e[5], e[0]]
                if let p = previous { #expect(p.lexicographicallyPrecedes(key), "order at codeword \(cw)") }
                previous = key
                seen.insert(PDF417.patterns[929 * cluster + cw])
            }
        }
        #expect(seen.count == 3 * 929)
        // ISO/IEC 15438's first codewords of cluster 0.
        #expect(PDF417.widths(0, cluster: 0) == [3, 1, 1, 1, 1, 1, 3, 6])
        #expect(PDF417.widths(1, cluster: 0) == [4, 1, 1, 1, 1, 1, 4, 4])
        #expect(PDF417.widths(2, cluster: 0) == [5, 1, 1, 1, 1, 1, 5, 2])
        #expect(PDF417.widths(3, cluster: 0) == [3, 1, 1, 1, 1, 2, 3, 5])
    }

    /// The remainder of data(x) * x^k divided by g(x) = (x - 3)...(x - 3^k), by schoolbook
    /// polynomial long division mod 929.
    static func referenceCheckWords(_ data: [Int], _ k: Int) -> [Int] {
        var g = [1]
        var power = 1
        for _ in 0..<k {
            power = power * 3 % 929
            // g(x) * (x - power)
            var next = [Int](repeating: 0, count: g.count + 1)
            for (i, c) in g.enumerated() {
                next[i] = (next[i] + c) % 929
                next[i + 1] = ((next[i + 1] - c * power) % 929 + 929) % 929
            }
            g = next
        }
        var dividend = data + [Int](repeating: 0, count: k)
        for i in 0..<data.count where dividend[i] != 0 {
            let q = dividend[i]
            for j in 0..<g.count { dividend[i + j] = ((dividend[i + j] - q * g[j]) % 929 + 929) % 929 }
        }
        return dividend.suffix(k).map { (929 - $0) % 929 }
    }

    @Test func reedSolomonOverGF929() {
        // Level 0 by hand: g = x^2 - 12x + 27; 2x^3 + 7x^2 leaves 318x - 837, so the check
        // words are -318 = 611 and 837.
        #expect(PDF417.generator(2) == [1, 929 - 12, 27])
        #expect(PDF417.checkWords([2, 7], count: 2) == [611, 837])
        #expect(Self.referenceCheckWords([2, 7], 2) == [611, 837])
        for level in 0...6 {
            let k = 2 << level
            let data = pseudoRandomBytes(40, seed: UInt32(level)).map { Int($0) * 3 + 7 }
            let check = PDF417.checkWords(data, count: k)
            #expect(check == Self.referenceCheckWords(data, k), "level \(level)")
            // The whole codeword polynomial vanishes at 3^1 ... 3^k.
            let all = data + check
            for i in 1...k {
                var x = 1
                for _ in 0..<i { x = x * 3 % 929 }
                #expect(all.reduce(0) { ($0 * x + $1) % 929 } == 0, "level \(level) syndrome \(i)")
            }
        }
    }

    @Test func compaction() throws {
        // ISO/IEC 15438's example: "PDF417" is P D F (Alpha), ml, 4 1 7 (Mixed), ps padding.
        #expect(try PDF417.highLevel(Array("PDF417".utf8), compaction: .automatic, alwaysSpecify: false) == [453, 178, 121, 239])
        #expect(try PDF417.highLevel(Array("PDF417".utf8), compaction: .automatic, alwaysSpecify: true) == [900, 453, 178, 121, 239])
        // Numeric: a leading 1 then the digits, in base 900.
        let digits = "123456789012345678"
        var v = UInt64("1" + digits)!
        var base900: [Int] = []
        while v > 0 { base900.insert(Int(v % 900), at: 0); v /= 900 }
        #expect(PDF417.numeric(Array(digits.utf8)[...]) == base900)
        #expect(try PDF417.highLevel(Array(digits.utf8), compaction: .automatic, alwaysSpecify: false) == [902] + base900)
        #expect(PDF417.numeric(Array(String(repeating: "7", count: 45).utf8)[...]).count == 15 + 1)
        // Bytes: six to five base-900 codewords behind 924; a remainder one a codeword behind 901.
        let six: [UInt8] = [0x00, 0xFF, 0x10, 0x80, 0x7F, 0x01]
        var w = six.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        var five = [Int](repeating: 0, count: 5)
        for i in stride(from: 4, through: 0, by: -1) { five[i] = Int(w % 900); w /= 900 }
        #expect(PDF417.bytes(six[...]) == [924] + five)
        #expect(PDF417.bytes((six + [0xAB])[...]) == [901] + five + [0xAB])
        #expect(try PDF417.highLevel(six, compaction: .automatic, alwaysSpecify: false) == [924] + five)
        // One byte inside text: the 913 shift, text goes on in its sub-mode.
        #expect(try PDF417.highLevel([0x41, 0x42, 0xE9, 0x43, 0x44], compaction: .automatic, alwaysSpecify: false) == [1, 913, 0xE9, 2 * 30 + 3])
        // Odd text before a lone byte is padded with a latch (ml), not the ps shift, so the text
        // after the byte starts in a known sub-mode: A, ps !, ml | 913 0x06 | ll a.
        #expect(try PDF417.highLevel([0x41, 0x21, 0x06, 0x61], compaction: .automatic, alwaysSpecify: false) == [29, 10 * 30 + 28, 913, 6, 27 * 30])
        // Forced modes.
        #expect(try PDF417.highLevel(Array("12".utf8), compaction: .numeric, alwaysSpecify: false) == [902, 112])
        #expect(try PDF417.highLevel(Array("12".utf8), compaction: .byte, alwaysSpecify: false) == [901, 0x31, 0x32])
        #expect(try PDF417.highLevel(Array("AB".utf8), compaction: .text, alwaysSpecify: false) == [1])
        #expect(throws: PDF417Error.notNumeric(byte: 0x41, offset: 2)) { try PDF417.highLevel(Array("12A".utf8), compaction: .numeric, alwaysSpecify: false) }
        #expect(throws: PDF417Error.notText(byte: 0, offset: 1)) { try PDF417.highLevel([0x41, 0], compaction: .text, alwaysSpecify: false) }
    }

    @Test func layoutAndSize() throws {
        let code = try PDF417.encode(Array("PDF417".utf8), options: PDF417Options(level: 1, rows: 3, columns: 4))
        #expect(code.rows == 3 && code.columns == 4)
        // Length descriptor counts itself, the data and the pads; then the check words.
        #expect(Array(code.codewords.prefix(8)) == [8, 453, 178, 121, 239, 900, 900, 900])
        #expect(code.codewords.count == 12)
        let m = code.matrix
        #expect(m.width == 17 * 4 + 69 && m.height == 9)
        #expect(m.text.split(separator: "\n")[0].hasPrefix("########.#.#.#..."))
        #expect(m.text.split(separator: "\n")[0].hasSuffix("#######.#...#.#..#"))
        // Row 0's left indicator is (rows - 1) / 3 = 0 in cluster 0; row 1's is 3 * level + (rows - 1) % 3.
        #expect(code.rowIndicators(0) == (0, 3) && code.rowIndicators(1) == (5, 0) && code.rowIndicators(2) == (3, 5))

        let img = try pdf417(Data("PDF417".utf8), level: 1, rows: 3, columns: 4)
        #expect(img.extent == CGRect(x: 0, y: 0, width: 17 * 4 + 69 + 4, height: 3 * 3 + 4))
        let compact = try pdf417(Data("PDF417".utf8), level: 1, rows: 3, columns: 4, compact: true)
        #expect(compact.extent == CGRect(x: 0, y: 0, width: 17 * 4 + 35 + 4, height: 13))
        let c = try PDF417.encode(Array("PDF417".utf8), options: PDF417Options(level: 1, rows: 3, columns: 4, compact: true))
        #expect(c.matrix.text.split(separator: "\n")[0].hasSuffix("#"))
        // Black on white, opaque: a corner of the quiet zone and the start bar.
        let px = try render8(img, img.extent)
        #expect(Array(px[0..<4]) == [255, 255, 255, 255])
        let row = Int(img.extent.height) - 3, x = 2
        let i = (row * Int(img.extent.width) + x) * 4
        #expect(Array(px[i..<(i + 4)]) == [0, 0, 0, 255])

        // The shape follows the aspect ratio; rows below 3 are clamped to Core Image's minimum.
        let text = Data(String(repeating: "Aspect ratio ", count: 20).utf8)
        let wide = try pdf417(text, ratio: 8), tall = try pdf417(text, ratio: 0.5)
        #expect(wide.extent.width / wide.extent.height > tall.extent.width / tall.extent.height)
        #expect(try pdf417(Data("x".utf8), rows: 1).extent.height == 13)
        // Width limits in pixels, quiet zone included.
        let f = CIFilter.pdf417BarcodeGenerator()
        f.message = text
        f.maxWidth = 200
        #expect(try f.makeOutputImage().extent.width <= 200)
    }

    @Test func badInputs() throws {
        let name = "CIPDF417BarcodeGenerator"
        #expect(throws: CIFilterError.invalidValue(filter: name, key: "inputMessage", reason: "the message is empty; a PDF417 symbol carries at least one byte")) {
            try pdf417(Data())
        }
        #expect(
            throws: CIFilterError.invalidValue(
                filter: name, key: "inputCompactionMode",
                reason: "byte 120 at offset 3 is not an ASCII digit; numeric compaction (1) carries digits only, use 0 (automatic) for other data")
        ) {
            try pdf417(Data("123x".utf8), mode: 1)
        }
        #expect(
            throws: CIFilterError.invalidValue(
                filter: name, key: "inputCompactionMode",
                reason: "byte 255 at offset 0 is not text; text compaction (2) carries ASCII 32-126, tab, line feed and carriage return only, use 0 (automatic) or 3 (byte)")
        ) {
            try pdf417(Data([0xFF]), mode: 2)
        }
        // 1200 non-text bytes are 924, 1000 codewords and the length descriptor: more than 928.
        #expect(
            throws: CIFilterError.invalidValue(
                filter: name, key: "inputMessage",
                reason:
                    "the message takes 1002 data codewords; with the 2 check codewords of correction level 0 that is more than the 928 a PDF417 symbol holds, so lower inputCorrectionLevel or shorten the message"
            )
        ) {
            try pdf417(Data(pseudoRandomBytes(1200, seed: 3).map { $0 | 0x80 }))
        }
        #expect(
            throws: CIFilterError.invalidValue(
                filter: name, key: "inputMessage",
                reason:
                    "the message takes 419 data codewords; with the 512 check codewords of correction level 8 that is more than the 928 a PDF417 symbol holds, so lower inputCorrectionLevel or shorten the message"
            )
        ) {
            try pdf417(Data(pseudoRandomBytes(500, seed: 4).map { $0 | 0x80 }), level: 8)
        }
        #expect(
            throws: CIFilterError.invalidValue(
                filter: name, key: "inputRows", reason: "90 rows of 30 data columns are 2700 codewords, more than the 928 a PDF417 symbol holds; use fewer rows or columns")
        ) {
            try pdf417(Data("x".utf8), rows: 200, columns: 40)  // clamped to 90 and 30
        }
        #expect(
            throws: CIFilterError.invalidValue(
                filter: name, key: "inputRows",
                reason:
                    "no PDF417 symbol within inputRows 3, inputDataColumns 1 holds the 21 codewords (data and check words) of this message; change those inputs or leave them unset"
            )
        ) {
            try pdf417(Data("Hello, PDF417 world".utf8), level: 2, rows: 3, columns: 1)
        }
        let f = CIFilter.pdf417BarcodeGenerator()
        f.message = Data(String(repeating: "wide ", count: 100).utf8)
        f.maxWidth = 56
        f.maxHeight = 20
        #expect(f.outputImage == nil)
        #expect(throws: CIFilterError.self) { try f.makeOutputImage() }
    }

    @Test func barcodeGeneratorPointsAtPDF417() throws {
        let f = try #require(CIFilter(name: "CIBarcodeGenerator"))
        f.setValue("PDF417:hello", forKey: "inputBarcodeDescriptor")
        #expect(
            throws: CIFilterError.invalidValue(
                filter: "CIBarcodeGenerator", key: "inputBarcodeDescriptor",
                reason:
                    "barcode descriptors (String) are not supported yet; use CIQRCodeGenerator, CIAztecCodeGenerator, CIPDF417BarcodeGenerator or CICode128BarcodeGenerator with inputMessage"
            )
        ) {
            try f.makeOutputImage()
        }
    }

    @Test func typedBuiltinAndAttributes() throws {
        let f = CIFilter.pdf417BarcodeGenerator()
        f.rows = 12
        f.dataColumns = 4
        f.compactStyle = 1
        f.correctionLevel = 3
        #expect((f.value(forKey: "inputRows") as? NSNumber)?.intValue == 12)
        #expect((f.value(forKey: "inputDataColumns") as? NSNumber)?.intValue == 4)
        #expect(f.rows == 12 && f.dataColumns == 4 && f.compactStyle == 1 && f.correctionLevel == 3)
        let named = try #require(CIFilter(name: "CIPDF417BarcodeGenerator"))
        #expect(
            named.inputKeys == [
                "inputMessage", "inputMinWidth", "inputMaxWidth", "inputMinHeight", "inputMaxHeight", "inputDataColumns", "inputRows",
                "inputPreferredAspectRatio", "inputCompactionMode", "inputCompactStyle", "inputCorrectionLevel", "inputAlwaysSpecifyCompaction",
            ])
        let rows = try #require(named.attributes["inputRows"] as? [String: Any])
        #expect((rows[kCIAttributeMin] as? NSNumber)?.intValue == 3 && (rows[kCIAttributeMax] as? NSNumber)?.intValue == 90)
        #expect(CIFilter.filterNames(inCategory: kCICategoryGenerator).contains("CIPDF417BarcodeGenerator"))
    }

    @Test(.enabled(if: zxingAvailable, "zxing-cpp missing: pip install zxing-cpp"))
    func zxingDecodes() throws {
        var cases: [(String, Data, CIImage)] = []
        func add(_ label: String, _ payload: Data, _ img: CIImage) { cases.append((label, payload, img)) }
        let texts = [
            "PDF417", "Hello, World!", "Grüße aus Zürich — 日本語 🌞", "MiXeD cAsE: a@b.c; [x] {y} ~z~ \"q\" 50% & #1\tTab\r\nCRLF",
            "lower case words only", "ABC1234567890123456789def", String(repeating: "Cyanotype PDF417 symbol. ", count: 30),
        ]
        for t in texts { add(t, Data(t.utf8), try pdf417(Data(t.utf8))) }
        let digits = String((0..<600).map { Character(String($0 * 7 % 10)) })
        add("600 digits", Data(digits.utf8), try pdf417(Data(digits.utf8)))
        add("13 digits", Data("0000000000000".utf8), try pdf417(Data("0000000000000".utf8)))
        let all = Data((0...255).map { UInt8($0) })
        add("bytes 0-255", all, try pdf417(all))
        add("random bytes", Data(pseudoRandomBytes(500, seed: 9)), try pdf417(Data(pseudoRandomBytes(500, seed: 9))))
        for level in [0, 1, 4, 6, 8] as [Float] {
            add("level \(level)", Data("correction level".utf8), try pdf417(Data("correction level".utf8), level: level))
        }
        add("numeric mode", Data("31415926535".utf8), try pdf417(Data("31415926535".utf8), mode: 1))
        add("text mode", Data("Text only, forced!".utf8), try pdf417(Data("Text only, forced!".utf8), mode: 2))
        add("byte mode", Data("Bytes forced".utf8), try pdf417(Data("Bytes forced".utf8), mode: 3))
        add("always specify", Data("Say it".utf8), try pdf417(Data("Say it".utf8), always: true))
        add("rows x columns", Data("Ten rows, two columns".utf8), try pdf417(Data("Ten rows, two columns".utf8), level: 1, rows: 10, columns: 2))
        add("one column", Data("Tall".utf8), try pdf417(Data("Tall".utf8), columns: 1))
        add("thirty columns", Data("Wide".utf8), try pdf417(Data("Wide".utf8), columns: 30))
        add("90 rows", Data("Very tall".utf8), try pdf417(Data("Very tall".utf8), rows: 90))
        add("compact", Data("Compact PDF417".utf8), try pdf417(Data("Compact PDF417".utf8), compact: true))
        add("compact bytes", all, try pdf417(all, level: 3, compact: true))
        let got = try zxingDecode(cases.map { $0.2 }, scale: 2)
        #expect(got.count == cases.count)
        for (i, g) in got.enumerated() where i < cases.count {
            let hex = cases[i].1.hex
            #expect(Bool(g == "PDF417:" + hex || g == "CompactPDF417:" + hex), "\(cases[i].0): got \(g.prefix(60))")
        }
    }

    /// Messages of random runs from each text sub-mode, digits, control and high bytes: every
    /// switch between compactions and sub-modes, decoded by zxing-cpp.
    @Test(.enabled(if: zxingAvailable, "zxing-cpp missing: pip install zxing-cpp"))
    func zxingDecodesMixedRuns() throws {
        let pools: [[UInt8]] = [
            Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ ".utf8), Array("abcdefghijklmnopqrstuvwxyz ".utf8), Array("0123456789".utf8),
            Array(";<>@[\\]_`~!\r\t,:\n-.$/\"|*()?{}'&#+%=^".utf8), (128...255).map { UInt8($0) }, (0...31).map { UInt8($0) },
        ]
        var random = pseudoRandomBytes(4000, seed: 417).makeIterator()
        func next(_ n: Int) -> Int { Int(random.next() ?? 0) % n }
        var cases: [(Data, CIImage)] = []
        for k in 0..<40 {
            var m: [UInt8] = []
            for _ in 0..<(1 + next(10)) {
                let pool = pools[next(pools.count)]
                for _ in 0..<(1 + next(next(4) == 0 ? 30 : 6)) { m.append(pool[next(pool.count)]) }
            }
            cases.append((Data(m), try pdf417(Data(m), compact: k % 5 == 4, always: k % 3 == 2)))
        }
        let got = try zxingDecode(cases.map { $0.1 }, scale: 2)
        #expect(got.count == cases.count)
        for (i, g) in got.enumerated() where i < cases.count {
            #expect(g.hasSuffix("PDF417:" + cases[i].0.hex), "\(cases[i].0.hex): got \(g.prefix(60))")
        }
    }
}
