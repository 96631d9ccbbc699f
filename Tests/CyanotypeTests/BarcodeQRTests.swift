import Foundation
import Testing
@testable import Cyanotype

private func qrImage(_ message: Data, _ level: String) throws -> CIImage {
    let f = CIFilter.qrCodeGenerator()
    f.message = message
    f.correctionLevel = level
    return try f.makeOutputImage()
}

@Suite struct BarcodeQRTests {
    // ISO/IEC 18004 Annex I: "01234567", version 1-M.
    @Test func annexExampleCodewords() {
        let data = QRCode.dataCodewordBytes(Array("01234567".utf8), mode: .numeric, version: 1, level: .M)
        #expect(data == [0x10, 0x20, 0x0C, 0x56, 0x61, 0x80, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11])
        let ecc = ReedSolomon.remainder(data, generator: ReedSolomon.generator(degree: 10))
        #expect(ecc == [0xA5, 0x24, 0xD4, 0xC1, 0xED, 0x36, 0xC7, 0x87, 0x2C, 0x55])
    }

    // The worked "HELLO WORLD" 1-M example (alphanumeric).
    @Test func helloWorldCodewords() {
        let data = QRCode.dataCodewordBytes(Array("HELLO WORLD".utf8), mode: .alphanumeric, version: 1, level: .M)
        #expect(data == [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17])
        #expect(ReedSolomon.remainder(data, generator: ReedSolomon.generator(degree: 10)) == [196, 35, 39, 119, 235, 215, 231, 226, 93, 23])
    }

    @Test func capacityTable() {
        // Published capacities: total data codewords of versions 1, 10 and 40 per level.
        #expect(QRCorrectionLevel.allCases.map { QRCode.dataCodewords(1, $0) } == [19, 16, 13, 9])
        #expect(QRCorrectionLevel.allCases.map { QRCode.dataCodewords(10, $0) } == [274, 216, 154, 122])
        #expect(QRCorrectionLevel.allCases.map { QRCode.dataCodewords(40, $0) } == [2956, 2334, 1666, 1276])
        #expect((1...40).map { QRCode.rawDataModules($0) / 8 }.last == 3706)
    }

    @Test func formatAndVersionBits() {
        #expect(QRCode.formatBits(.M, 5) == 0b100000011001110)  // Table C.1
        #expect(QRCode.versionBits(7) == 0x07C94)  // Table D.1
    }

    @Test func modeSelectionAndSize() throws {
        #expect(QRMode.best(for: Array("0123".utf8)) == .numeric)
        #expect(QRMode.best(for: Array("HTTP://A.B/C".utf8)) == .alphanumeric)
        #expect(QRMode.best(for: Array("hello".utf8)) == .byte)
        let img = try qrImage(Data("hello".utf8), "M")
        #expect(img.extent == CGRect(x: 0, y: 0, width: 21 + 8, height: 21 + 8))
        // 2953 bytes is version 40-L's byte capacity; one more does not fit.
        #expect(try QRCode.encode([UInt8](repeating: 0x61, count: 2953), level: .L).version == 40)
        #expect(throws: QRCodeError.self) { try QRCode.encode([UInt8](repeating: 0x61, count: 2954), level: .L) }
        let f = CIFilter.qrCodeGenerator()
        f.message = Data(repeating: 0x61, count: 2000)
        f.correctionLevel = "H"
        #expect(f.outputImage == nil)
        #expect(
            throws: CIFilterError.invalidValue(
                filter: "CIQRCodeGenerator", key: "inputMessage",
                reason: "a 2000-byte message does not fit a version 40 QR code at correction level H; use level L or a shorter message")
        ) { try f.makeOutputImage() }
        f.correctionLevel = "X"
        #expect(throws: CIFilterError.invalidValue(filter: "CIQRCodeGenerator", key: "inputCorrectionLevel", reason: "'X' is not a correction level; use L, M, Q or H")) {
            try f.makeOutputImage()
        }
    }

    @Test func pixelsAreBlackOnWhiteOneModulePerPixel() throws {
        let code = try QRCode.encode(Array("01234567".utf8), level: .M)
        let img = try qrImage(Data("01234567".utf8), "M")
        let px = try render8(img, img.extent)
        let n = Int(img.extent.width)
        let full = code.matrix.padded(qrQuietZone)
        for y in 0..<n {
            for x in 0..<n {
                let i = (y * n + x) * 4
                let v: UInt8 = full[x, y] ? 0 : 255
                #expect(px[i] == v && px[i + 1] == v && px[i + 2] == v && px[i + 3] == 255)
            }
        }
        // Finder pattern: the top-left 7x7 ring after the quiet zone.
        #expect(full[4, 4] && full[10, 4] && !full[5, 5] && full[6, 6] && !full[3, 3])
    }

    // Reference symbols, confirmed by zbarimg and zxing-cpp when they were recorded.
    @Test(arguments: QRReference.all) func referenceMatrices(_ ref: QRReference) throws {
        let code = try QRCode.encode(Array(ref.message.utf8), level: ref.level)
        #expect(code.version == ref.version)
        #expect(code.matrix.text == ref.matrix)
    }

    static let decoderPayloads: [(String, Data)] = [
        ("numeric", Data("0123456789012345678901234567890".utf8)),
        ("alphanumeric", Data("HTTPS://EXAMPLE.COM/CYANOTYPE $%*+-./:".utf8)),
        ("byte", Data("Hello, world! lower-case text goes in byte mode.".utf8)),
        ("utf8", Data("Grüße aus Zürich — 日本語のテキスト 🌞".utf8)),
        ("binary", Data((0..<64).map { UInt8(($0 * 37 + 11) & 0xFF) })),
        ("version>10", Data(String(repeating: "Cyanotype: Core Image on Linux. ", count: 12).utf8)),
    ]

    @Test(
        .enabled(if: zbarAvailable, "zbarimg missing: apt-get install zbar-tools"),
        arguments: QRCorrectionLevel.allCases)
    func zbarDecodesEveryPayload(_ level: QRCorrectionLevel) throws {
        for (name, payload) in Self.decoderPayloads {
            let decoded = try zbarDecode(try qrImage(payload, level.rawValue))
            #expect(decoded == [payload], "\(name) at \(level)")
        }
    }

    @Test(.enabled(if: zxingAvailable, "zxing-cpp missing: pip install zxing-cpp"))
    func zxingDecodesEveryVersionAndLevel() throws {
        // For each level, a payload that needs each version 1...40 (byte mode).
        var images: [CIImage] = [], expected: [String] = [], labels: [String] = []
        // Every version once, the levels taking turns (each level gets ten versions).
        for v in 1...40 {
            do {
                let level = QRCorrectionLevel.allCases[v % 4]
                let capacity = (QRCode.dataCodewords(v, level) * 8 - 4 - QRMode.byte.countBits(v)) / 8
                let payload = Data((0..<capacity).map { UInt8(($0 * 131 + v * 7 + level.index) & 0xFF) })
                let code = try QRCode.encode(Array(payload), level: level)
                #expect(code.version == v)
                images.append(try qrImage(payload, level.rawValue))
                expected.append("QRCode:" + payload.hex)
                labels.append("version \(v) \(level)")
            }
        }
        for (_, payload) in Self.decoderPayloads {
            images.append(try qrImage(payload, "Q"))
            expected.append("QRCode:" + payload.hex)
            labels.append(String(decoding: payload, as: UTF8.self))
        }
        let got = try zxingDecode(images, scale: 2)
        #expect(got.count == images.count)
        for (i, g) in got.enumerated() where i < expected.count {
            #expect(Bool(g == expected[i]), "\(labels[i]): got \(g.prefix(60))...")
        }
    }

    @Test func everyMaskIsReadableStructure() throws {
        // Forcing each mask still yields the same format information the decoder reads back.
        for mask in 0..<8 {
            let code = try QRCode.encode(Array("MASK TEST".utf8), level: .Q, forceMask: mask)
            var bits = 0
            let m = code.matrix
            for i in 0...5 where m[8, i] { bits |= 1 << i }
            if m[8, 7] { bits |= 1 << 6 }
            if m[8, 8] { bits |= 1 << 7 }
            if m[7, 8] { bits |= 1 << 8 }
            for i in 9..<15 where m[14 - i, 8] { bits |= 1 << i }
            #expect(bits == QRCode.formatBits(.Q, mask))
        }
    }
}

struct QRReference: Sendable, CustomStringConvertible {
    let message: String, level: QRCorrectionLevel, version: Int, matrix: String
    var description: String { "\(message) \(level)" }
    // Recorded from this encoder and decoded by zbarimg 0.23.92 to the message.
    static let all: [QRReference] = [
        QRReference(
            message: "01234567", level: .M, version: 1,
            matrix: """
                #######...###.#######
                #.....#.###...#.....#
                #.###.#..##...#.###.#
                #.###.#..#.##.#.###.#
                #.###.#.##.##.#.###.#
                #.....#....#..#.....#
                #######.#.#.#.#######
                .....................
                #.#.#.#...#.#...#..#.
                ##.#....#.##.#.#...#.
                ...##.###.##.###.###.
                ##..##.#.#.###.##..#.
                ..#..###.###.###....#
                ........#.#...#....#.
                #######.....#...#...#
                #.....#...#...#..#.##
                #.###.#.###.#.#.###.#
                #.###.#..#.#.#.#.###.
                #.###.#.##.#.###..#.#
                #.....#....###.###...
                #######.#..#.###..#.#
                """),
        QRReference(
            message: "HELLO WORLD", level: .Q, version: 1,
            matrix: """
                #######.##....#######
                #.....#.#..#..#.....#
                #.###.#.#..##.#.###.#
                #.###.#.#.....#.###.#
                #.###.#.#.#...#.###.#
                #.....#...#...#.....#
                #######.#.#.#.#######
                ........#............
                .##.#.##....#.#.#####
                .#......####....#...#
                ..##.###.##...#.##...
                .##.##.#..##.#.#.###.
                #...#.#.#.###.###.#.#
                ........##.#..#...#.#
                #######.#.#....#.##..
                #.....#..#.##.##.#...
                #.###.#.#.#...#######
                #.###.#..#.#.#.#...#.
                #.###.#.#..#.###.#..#
                #.....#.#.####...#.##
                #######....#.###....#
                """),
        QRReference(
            message: "https://cyanotype.dev/?q=42", level: .H, version: 4,
            matrix: """
                #######..#.#.#..##.##.#.#.#######
                #.....#.#..###.##.##......#.....#
                #.###.#.##..#.##.#.###..#.#.###.#
                #.###.#.###...##.##..###..#.###.#
                #.###.#.##.#.#...##.##.#..#.###.#
                #.....#.##.###..##.##..#..#.....#
                #######.#.#.#.#.#.#.#.#.#.#######
                .............#....##..###........
                ..#..####.#.#..###....#..#.#####.
                .#####....##.##.......######.####
                .#.##.###.#.#..#.##.####...###..#
                #.####...#....#.##....###.##.#.##
                #..####.##..##.#....###...#.##.##
                ##..#..#.###..#...#.#####.#.....#
                #.#######.####.#.###...##.#.##..#
                ...##..#.##.#.#..#..#.#.#.#....##
                ...#..#.##..##..#.....##.##..###.
                .#..#......#..#..#..#..#..##..###
                ##.#.####.#..###.....###....#####
                ##..#.....#.....##.....#..##.#...
                ##..###..###.####......#...#....#
                ..####.##.#.#..##.####.....#..#.#
                ###.###.###....####.##.#.##.#.###
                ..##.#.#..#.#.###.....#......#.#.
                ###..#####..#..#.#.#..########..#
                ........##.#.#.#.########...##..#
                #######.#..##.###.#.#...#.#.###.#
                #.....#.#.##.#..##.#.#..#...##.##
                #.###.#....###...##..#.#######...
                #.###.#..###..###..#.#.###.#####.
                #.###.#.#.#...####.##.......##.##
                #.....#..#.#...###..#.#####..##..
                #######..##.##.#.#......#...###.#
                """),
        QRReference(
            message:
                "Version seven or more. Version seven or more. Version seven or more. Version seven or more. Version seven or more. Version seven or more. Version seven or more. ",
            level: .L, version: 8,
            matrix: """
                #######...##.##........#.#..###.#...#...#.#######
                #.....#.#.##....#.#.#.##.##.##...##.#####.#.....#
                #.###.#..###.#..#####.#.##..##..#......##.#.###.#
                #.###.#.#.###..#..#..##.#.#........##..#..#.###.#
                #.###.#....#.#..#####.#####...##...#.#....#.###.#
                #.....#.###....##.#.#.#...#....#..#.#.#...#.....#
                #######.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#######
                .........#..#.#.#.#####...###.###.#..............
                #####.#####..#.####.#######..#.#..#.#.#.##.#.#.#.
                ##..#.....#...#..#.#.#..##.#.###.....#...##..#.#.
                #..#.####..#.##..#.####.#.##...#..##.##.......###
                #.##.#....##..#.#..##......##.#.#..#.##..#..#...#
                .##.####.#.####..#.#.####.#...##.####.###..#.##.#
                .......#..#.#..#..#..#.##...###.#...#.....##.#.#.
                ..#.###.....##....##...#..##.##..##.#.###..#..###
                ####.....#..##.#.#...#...#.##...##.....#.#..#....
                ..#..##.#.###..####.#...##.#.###.##########..##.#
                .#.#.#.#.##...#....#.....#.####.##.###...##.###..
                .#...###.##....#..##...#..#.#..#.####.###.......#
                .#.#....#..#.#.#.##.##......#####.........#.#....
                ...####.###....#..#..####......#....#...#.##.###.
                #.##.#.#.....#..#####.#.##.#.####....#...##.#..#.
                ##.######.#.#######.#.######...#####.#..#####..##
                ...##...###.#.#.#######...####.#.#....#.#...#..##
                .#.##.#.#.##...####.#.#.#.#..#.#.#.###..#.#.#.###
                .##.#...###...##.#.#..#...#..##......#..#...#.#..
                ...######.##.#####.########......####.#.#####.###
                ...#...#.#....##........#.#####.#.#..#.##..#...#.
                ####..##..#..##..#.#..#..###.###.####.##.#.#####.
                ####......##...#..#..#..#.######.#.#.#.#.#.#.....
                ....#.#.#........###...##...##.#####..##.########
                #.#....#..##...#.....#.##.####..#.##.##.##.##....
                #.##.##.#.#.##..######...##........#######.######
                .#.#.#.#....##.....#.##.##.##.#.#..###.###.#..#..
                ###...###.......#.#.##...#.....######.#..###.####
                ##.#...#..####..###..##.#.###.#.##...#...#.#.#.##
                ...#..#...#.#..#..#..#.........#.#.###.#..#.###..
                .###.#.#...#.#..######.##...###....###..#..#...##
                .#...##..#...#.####.###..#..##...##..##..##....##
                .###...#.#.#..#.#####.#.#.#.#.#.#.#..##.#......##
                ###...##.###.#.######.#####...#...###.#########.#
                ........#..##.#....#..#...#..###...#...##...##...
                #######.##...###.#.#.##.#.#..#.#..#.#.###.#.##.##
                #.....#..##.#.##...#..#...###.#.#.#....##...#..#.
                #.###.#.##.####..#.#..#####..#....###.#######.#.#
                #.###.#.#...#..#..#..#.#.##..##.#..#.#.##.#.#.#..
                #.###.#.#.####...#.#...######.....#.####...#.##..
                #.....#.#...##.#.....###.#.##.#.##.#......####..#
                #######.#.##.#.##.#.#..#.##..#.#.####........####
                """),
    ]
}
