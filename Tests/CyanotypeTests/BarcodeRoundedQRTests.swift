import Foundation
import Testing
@testable import Cyanotype

private func rounded(_ message: String, level: String = "M", scale: Float = 8, markers: Float = 1, dots: Bool = true, space: Float = 0.25) throws -> CIImage {
    let f = CIFilter.roundedQRCodeGenerator()
    f.message = Data(message.utf8)
    f.correctionLevel = level
    f.scale = scale
    f.roundedMarkers = markers
    f.roundedData = dots
    f.centerSpaceSize = space
    return try f.makeOutputImage()
}

@Suite struct BarcodeRoundedQRTests {
    @Test func blocksOfCodewords() {
        for (v, l) in [(1, QRCorrectionLevel.M), (5, .Q), (13, .H), (40, .L)] {
            let blocks = QRCode.blockOfCodeword(version: v, level: l)
            #expect(blocks.count == QRCode.rawDataModules(v) / 8)
            let raw = QRCode.rawDataModules(v) / 8, n = QRCode.blockCount[l.index][v]
            for b in 0..<n {
                // Short blocks first, each block raw / n or raw / n + 1 codewords long.
                #expect(blocks.filter { $0 == b }.count == raw / n + (b < n - raw % n ? 0 : 1))
            }
        }
    }

    @Test func geometryAndColours() throws {
        let code = try QRCode.encode(Array("rounded".utf8), level: .M)
        let img = try rounded("rounded", scale: 10, space: 0)
        let n = code.matrix.width + 8
        #expect(img.extent == CGRect(x: 0, y: 0, width: n * 10, height: n * 10))
        let px = try render8(img, img.extent)
        let w = n * 10
        func at(_ mx: Int, _ my: Int) -> UInt8 { px[((my * 10 + 5) * w + mx * 10 + 5) * 4] }  // module centre
        #expect(at(0, 0) == 255)  // quiet zone: color0
        for y in 7..<(code.matrix.width - 7) {
            for x in 8..<(code.matrix.width - 8) {
                #expect(at(x + 4, y + 4) == (code.matrix[x, y] ? 0 : 255), "module \(x),\(y)")
            }
        }
        // A dot leaves its module's corner light; a square fills it.
        if let (x, y) = (9..<code.matrix.width - 9).lazy.flatMap({ y in (9..<code.matrix.width - 9).lazy.map { (y, $0) } }).first(where: { code.matrix[$0.1, $0.0] }).map({
            ($0.1, $0.0)
        }) {
            #expect(px[(((y + 4) * 10) * w + (x + 4) * 10) * 4] == 255)
            let sq = try render8(try rounded("rounded", scale: 10, dots: false, space: 0), img.extent)
            #expect(sq[(((y + 4) * 10) * w + (x + 4) * 10) * 4] == 0)
        }
        // Finder centre is color1 for every marker style; colours follow color0/color1.
        for style in [0, 1, 2] as [Float] {
            let m = try render8(try rounded("rounded", scale: 10, markers: style, space: 0), img.extent)
            #expect(m[((75 * w) + 75) * 4] == 0)
        }
    }

    @Test func centerSpaceRaisesTheLevel() throws {
        let code = try QRCode.encode(Array("https://example.com/a/longer/path?x=1".utf8), level: .L)
        let side = Int((Double(code.matrix.width) / 3).rounded())
        #expect(!RoundedQR.survives(code, clearing: side - (code.matrix.width - side) % 2))
        let h = try QRCode.encode(Array("https://example.com/a/longer/path?x=1".utf8), level: .H)
        #expect(RoundedQR.survives(h, clearing: 0))
    }

    @Test(.enabled(if: zxingAvailable, "zxing-cpp missing: pip install zxing-cpp"))
    func zxingDecodes() throws {
        var cases: [(String, CIImage)] = []
        let long = String(repeating: "Rounded QR codes from Cyanotype. ", count: 6)
        for (text, level, markers, dots, space) in [
            ("hello", "M", 1, true, 0.25), ("HELLO WORLD 123", "L", 0, false, 0.0), ("Grüße 🌞", "Q", 2, true, 0.3333),
            (long, "M", 1, true, 0.25), (long, "L", 2, true, 0.3333), ("https://example.com/?q=cyanotype", "H", 1, true, 0.2),
        ] as [(String, String, Float, Bool, Float)] {
            cases.append((text, try rounded(text, level: level, scale: 8, markers: markers, dots: dots, space: space)))
        }
        let got = try zxingDecode(cases.map { $0.1 }, scale: 1)
        #expect(got.count == cases.count)
        for (i, g) in got.enumerated() where i < cases.count {
            #expect(Bool(g == "QRCode:" + Data(cases[i].0.utf8).hex), "\(cases[i].0): got \(g.prefix(60))")
        }
    }

    @Test(.enabled(if: zbarAvailable, "zbarimg missing: apt-get install zbar-tools"))
    func zbarDecodesDefaults() throws {
        for text in ["hello", "Cyanotype rounded QR code with the default centre space"] {
            #expect(try zbarDecode(try rounded(text), scale: 1) == [Data(text.utf8)], "\(text)")
        }
    }

    @Test func barcodeGeneratorNeedsADescriptor() {
        let f = CIFilter(name: "CIBarcodeGenerator")!
        #expect(throws: CIFilterError.missingInput(filter: "CIBarcodeGenerator", key: "inputBarcodeDescriptor")) { try f.makeOutputImage() }
        f.setValue("QR:hello", forKey: "inputBarcodeDescriptor")
        #expect(
            throws: CIFilterError.invalidValue(
                filter: "CIBarcodeGenerator", key: "inputBarcodeDescriptor",
                reason:
                    "barcode descriptors (String) are not supported yet; use CIQRCodeGenerator, CIAztecCodeGenerator, CIPDF417BarcodeGenerator or CICode128BarcodeGenerator with inputMessage"
            )
        ) { try f.makeOutputImage() }
        #expect(f.outputImage == nil)
    }
}
