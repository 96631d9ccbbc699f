import Foundation
import Testing
@testable import Cyanotype

private func code128(_ message: Data, quiet: Float = 10, height: Float = 32) throws -> CIImage {
    let f = CIFilter.code128BarcodeGenerator()
    f.message = message
    f.quietSpace = quiet
    f.barcodeHeight = height
    return try f.makeOutputImage()
}

/// The check symbol as ISO/IEC 15417 defines it: start value plus value times position.
private func referenceCheck(_ values: [Int]) -> Int {
    var sum = values[0]
    for k in 1..<values.count { sum += values[k] * k }
    return sum % 103
}

@Suite struct BarcodeCode128Tests {
    @Test func patternsAreElevenModules() {
        #expect(Code128.patterns.count == 107)
        for (v, p) in Code128.patterns.enumerated() {
            #expect(p.reduce(0) { $0 + Int(String($1))! } == (v == 106 ? 13 : 11), "value \(v)")
        }
        #expect(Set(Code128.patterns).count == 107)
    }

    @Test func workedExamples() throws {
        // "PJJ123C": all in set B (a switch to C for "12" would cost a symbol); B is preferred
        // over A when both fit.
        let pjj = try Code128.symbols(Array("PJJ123C".utf8))
        #expect(pjj == [104, 48, 42, 42, 17, 18, 19, 35, 55])
        #expect(referenceCheck(Array(pjj.dropLast())) == 55)
        // Ten digits: set C pairs. 105 + 12 + 2*34 + 3*56 + 4*78 + 5*90 = 1115 = 10 * 103 + 85.
        #expect(try Code128.symbols(Array("1234567890".utf8)) == [105, 12, 34, 56, 78, 90, 85])
        // Control characters need set A; lower case set B; a long digit run set C.
        let mixed = Array("\tAb123456".utf8)
        let s = try Code128.symbols(mixed)
        #expect(s == [103, 73, 33, 100, 66, 99, 12, 34, 56, referenceCheck([103, 73, 33, 100, 66, 99, 12, 34, 56])])
        #expect(try Code128.symbols([]) == [104, 104 % 103])
    }

    @Test func fewestSymbols() throws {
        // An odd digit run: one digit in B, then pairs in C; never more than needed.
        #expect(try Code128.symbols(Array("A12345".utf8)).count == 1 + 1 + 1 + 1 + 2 + 1)
        #expect(try Code128.symbols(Array("12".utf8)) == [105, 12, referenceCheck([105, 12])])
        #expect(try Code128.symbols(Array("1".utf8)).count == 3)
    }

    @Test func barsAndSize() throws {
        let img = try code128(Data("PJJ123C".utf8))
        #expect(img.extent == CGRect(x: 0, y: 0, width: 9 * 11 + 13 + 20, height: 32))
        let px = try render8(img, img.extent)
        let w = Int(img.extent.width)
        let bars = Code128.modules(try Code128.symbols(Array("PJJ123C".utf8)))
        for y in [0, 15, 31] {
            for x in 0..<w {
                let dark = x >= 10 && x < 10 + bars.count && bars[x - 10]
                #expect(px[(y * w + x) * 4] == (dark ? 0 : 255) && px[(y * w + x) * 4 + 3] == 255)
            }
        }
        // Start B begins with a two-module bar; the stop pattern ends with a two-module bar.
        #expect(bars.prefix(3) == [true, true, false] && bars.suffix(3) == [false, true, true])
        let thin = try code128(Data("1".utf8), quiet: 0, height: 1)
        #expect(thin.extent == CGRect(x: 0, y: 0, width: 3 * 11 + 13, height: 1))
    }

    @Test func rejectsNonASCII() {
        let f = CIFilter.code128BarcodeGenerator()
        f.message = Data("café".utf8)
        #expect(f.outputImage == nil)
        #expect(
            throws: CIFilterError.invalidValue(
                filter: "CICode128BarcodeGenerator", key: "inputMessage", reason: "byte 195 at offset 3 is not ASCII; Code 128 carries bytes 0-127 only")
        ) { try f.makeOutputImage() }
    }

    static let payloads = ["PJJ123C", "1234567890", "Code 128 with lower case & digits 0123456789!", "A1B22C333D4444", "x", "~`{|}^_[]\\@"]

    @Test(.enabled(if: zbarAvailable, "zbarimg missing: apt-get install zbar-tools"))
    func zbarDecodes() throws {
        for p in Self.payloads {
            #expect(try zbarDecode(try code128(Data(p.utf8)), scale: 3) == [Data(p.utf8)], "\(p)")
        }
    }

    @Test(.enabled(if: zxingAvailable, "zxing-cpp missing: pip install zxing-cpp"))
    func zxingDecodesAllOfASCII() throws {
        let all = Data((0..<128).map { UInt8($0) })
        let payloads = Self.payloads.map { Data($0.utf8) } + [Data("\tTab\u{1}and\u{1F}controls 1234".utf8), all]
        let got = try zxingDecode(try payloads.map { try code128($0) }, scale: 2)
        #expect(got == payloads.map { "Code128:" + $0.hex })
    }
}
