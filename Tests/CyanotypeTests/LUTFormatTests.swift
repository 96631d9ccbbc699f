import Foundation
import Testing
@testable import Cyanotype
import CyanotypeCodecs

/// Reading and writing every format: layouts, round trips, `.cube`/`.3dl` details, and a
/// fuzz pass over the text parsers.
@Suite struct LUTFormatTests {
    enum Format: String, CaseIterable {
        case tilesPNG8, tilesPNG16, stripPNG8, verticalStripPNG16, haldPNG8, tilesFloatImage, cube, threeDL12, threeDL16
        /// Worst error one write + read adds to k/255 values.
        var tolerance: Float {
            switch self {
            case .threeDL12: return 0.5 / 4095 + 1e-7
            case .threeDL16: return 0.5 / 65535 + 1e-7
            default: return 1e-7
            }
        }
        func write(_ lut: LUT) throws -> Data {
            switch self {
            case .tilesPNG8: return try lut.pngData(layout: .tiles)
            case .tilesPNG16: return try lut.pngData(layout: .tiles, bitDepth: 16)
            case .stripPNG8: return try lut.pngData(layout: .horizontalStrip)
            case .verticalStripPNG16: return try lut.pngData(layout: .verticalStrip, bitDepth: 16)
            case .haldPNG8: return try lut.pngData(layout: .hald)
            case .tilesFloatImage: return try lut.pngData(layout: .tiles)  // replaced by the CIImage path in `roundTrip`
            case .cube: return try lut.cubeData()
            case .threeDL12: return try lut.threeDLData(outputBitDepth: 12)
            case .threeDL16: return try lut.threeDLData(outputBitDepth: 16)
            }
        }
        func read(_ data: Data) throws -> LUT {
            switch self {
            case .tilesPNG8, .tilesPNG16, .tilesFloatImage: return try LUT(imageData: data, layout: .tiles)
            case .stripPNG8: return try LUT(imageData: data)  // detected from its N^2 x N size
            case .verticalStripPNG16: return try LUT(imageData: data)
            case .haldPNG8: return try LUT(imageData: data, layout: .hald)
            case .cube: return try LUT(cubeData: data)
            case .threeDL12: return try LUT(threeDLData: data)
            case .threeDL16: return try LUT(threeDLData: data, outputBitDepth: 16)
            }
        }
        func roundTrip(_ lut: LUT) throws -> LUT {
            if self == .tilesFloatImage { return try LUT(image: try lut.image(layout: .tiles)) }
            return try read(try write(lut))
        }
    }

    @Test func roundTripsBetweenEveryPairOfFormats() throws {
        let original = try quantizedLUT(size: 16)
        for a in Format.allCases {
            let viaA = try a.roundTrip(original)
            #expect(viaA.maximumDifference(from: original) <= a.tolerance, "\(a)")
            for b in Format.allCases {
                let back = try a.roundTrip(try b.roundTrip(viaA))
                #expect(back.size == 16)
                #expect(back.maximumDifference(from: original) <= a.tolerance + b.tolerance, "\(a) -> \(b) -> \(a)")
            }
        }
    }

    @Test func cubeRoundTripIsExactForArbitraryFloats() throws {
        var rng = SplitMix(3)
        let lut = try LUT.make(size: 5, title: "floats") { _ in SIMD3(rng.unit() * 1.5 - 0.2, rng.unit(), rng.unit() * 1e-3) }
        let back = try LUT(cubeString: try lut.cubeString())
        #expect(back == lut)
    }

    @Test func cubeReadsHeadersCommentsCRLFAndBlankLines() throws {
        let text =
            "# comment first\r\n\r\nTITLE \"Crlf test\"\r\nLUT_IN_VIDEO_RANGE\r\nLUT_3D_SIZE 2\r\nDOMAIN_MIN 0 0 0\r\nDOMAIN_MAX 1 1 1\r\n\r\n"
            + "0 0 0 # black\r\n1 0 0\r\n0 1 0\r\n1 1 0\r\n\t0 0 1\r\n1 0 1\r\n0 1 1\r\n1.0 1.0 1.0\r\n\r\n"
        let lut = try LUT(cubeString: text)
        #expect(lut.title == "Crlf test")
        #expect(
            lut
                == (try {
                    var l = try LUT.identity(size: 2); l.title = "Crlf test"; return l
                }()))
    }

    @Test func cube1DOnlyAndBothWithInputRanges() throws {
        let oneD = try LUT(cubeString: "LUT_1D_SIZE 2\nDOMAIN_MIN 0 0 0\nDOMAIN_MAX 2 2 2\n0 0 0\n1 0.5 0.25\n")
        #expect(oneD.isShaperOnly)
        #expect(oneD.shaper?.domainMax == SIMD3(2, 2, 2))
        let s = oneD.apply(SIMD3(1, 1, 1))
        #expect(abs(s.x - 0.5) < 1e-6 && abs(s.y - 0.25) < 1e-6 && abs(s.z - 0.125) < 1e-6)
        #expect(try LUT(cubeString: try oneD.cubeString()) == oneD)

        let both = try LUT(
            cubeString: "LUT_1D_SIZE 2\nLUT_1D_INPUT_RANGE 0 4\nLUT_3D_SIZE 2\nLUT_3D_INPUT_RANGE 0 1\n0 0 0\n1 1 1\n"
                + "0 0 0\n1 0 0\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 1 1\n1 1 1\n")
        #expect(both.shaper?.domainMax == SIMD3(4, 4, 4) && both.domainMax == .one)
        #expect(abs(both.apply(SIMD3(2, 2, 2)).x - 0.5) < 1e-6)
        #expect(try LUT(cubeString: try both.cubeString()) == both)
    }

    @Test func threeDLIsBlueFastestWithDetectedDepth() throws {
        // A 2^3 .3dl whose entries tag their own (r, g, b) index: value = index * 1000 + 1.
        var lines = ["# test", "0 1023"]
        for r in 0..<2 { for g in 0..<2 { for b in 0..<2 { lines.append("\(r * 4000 + 1) \(g * 4000 + 2) \(b * 4000 + 3)") } } }
        let lut = try LUT(threeDLData: Data(lines.joined(separator: "\n").utf8))
        #expect(lut.size == 2)
        let e = lut[1, 0, 1]
        #expect(e == SIMD3(Float(4001) / 4095, Float(2) / 4095, Float(4003) / 4095))
        // Detection: max 1023 -> 10-bit, above 4095 -> 16-bit; an explicit depth wins.
        let ten = try LUT(threeDLData: Data(("0 1023\n" + (0..<8).map { _ in "1023 512 0" }.joined(separator: "\n")).utf8))
        #expect(ten[0, 0, 0] == SIMD3(1, Float(512) / 1023, 0))
        let sixteen = try LUT(threeDLData: Data(("0 1023\n" + (0..<8).map { _ in "65535 0 4096" }.joined(separator: "\n")).utf8))
        #expect(sixteen[1, 1, 1].x == 1)
        let mesh = try LUT(threeDLData: Data(("3DMESH\nMesh 1 12\n0 1023\n" + (0..<8).map { _ in "1023 0 0" }.joined(separator: "\n")).utf8))
        #expect(mesh[0, 0, 0].x == Float(1023) / 4095)
    }

    @Test func identityFilesOfEveryLayoutCanBeWritten() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lut-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let id = try LUT.identity(size: 16)
        for (name, layout) in [("tiles.png", LUTImageLayout.tiles), ("strip.png", .horizontalStrip), ("vstrip.png", .verticalStrip), ("hald.png", .hald)] {
            let url = dir.appendingPathComponent(name)
            try id.write(to: url, layout: layout)
            let h = try ImageCodecs.readHeader(try Data(contentsOf: url))
            let g = LUTImageGeometry(size: 16, layout: layout)!
            #expect(h.width == g.width && h.height == g.height)
            let back = try LUT(contentsOf: url, layout: layout)
            #expect(back.maximumDifference(from: id) <= 0.5 / 255)
        }
        for name in ["id.cube", "id.3dl"] {
            let url = dir.appendingPathComponent(name)
            try id.write(to: url)
            #expect(try LUT(contentsOf: url).maximumDifference(from: id) <= 0.5 / 4095)
        }
        #expect(LUTImageGeometry(size: 64, layout: .tiles).map { [$0.width, $0.height, $0.columns] } == [512, 512, 8])
        #expect(LUTImageGeometry(size: 16, layout: .tiles).map { [$0.width, $0.height, $0.columns] } == [64, 64, 4])
        #expect(LUTImageGeometry(size: 33, layout: .tiles).map { [$0.width, $0.height, $0.columns] } == [198, 198, 6])
        #expect(LUTImageGeometry(size: 64, layout: .hald).map { [$0.width, $0.height] } == [512, 512])
        #expect(LUTImageGeometry.size(width: 198, height: 198, layout: .tiles) == 33)
    }

    @Test func ambiguousSquareImagesDefaultToTiles() throws {
        #expect(LUTImageLayout.assumed(width: 512, height: 512) == .tiles)
        #expect(LUTImageLayout.assumed(width: 256, height: 16) == .horizontalStrip)
        #expect(LUTImageLayout.assumed(width: 16, height: 256) == .verticalStrip)
        // The same 512x512 bytes read as tiles and as Hald are different LUTs.
        let data = try Data(contentsOf: LUTFixtures.identity64Tiles)
        let tiles = try LUT(imageData: data), hald = try LUT(imageData: data, layout: .hald)
        #expect(tiles.maximumDifference(from: try LUT.identity(size: 64)) <= 0.5 / 255)
        #expect(hald.maximumDifference(from: try LUT.identity(size: 64)) > 0.5)
    }

    @Test func parsersSurviveMutatedBytes() throws {
        let cube = Array(try LUT(contentsOf: LUTFixtures.lutC).cubeData()) + Array("# tail\n".utf8)
        let threeDL = Array(try quantizedLUT(size: 3).threeDLData())
        let alphabet = Array("0123456789 .-+eE#\n\r\tLUT_3D_SIZEDOMAIN_MAXTITLE\"nanInf\u{0}".utf8)
        var rng = SplitMix(99)
        var outcomes = [0, 0]
        for iteration in 0..<1500 {
            var bytes = iteration % 2 == 0 ? cube : threeDL
            for _ in 0..<(1 + rng.int(6)) {
                let pos = rng.int(bytes.count + 1)
                switch rng.int(4) {
                case 0 where pos < bytes.count: bytes[pos] = alphabet[rng.int(alphabet.count)]
                case 1 where pos < bytes.count: bytes.remove(at: pos)
                case 2: bytes.insert(alphabet[rng.int(alphabet.count)], at: pos)
                default: if pos < bytes.count { bytes[pos] = UInt8(truncatingIfNeeded: rng.next()) }
                }
            }
            let data = Data(bytes)
            do {
                let lut = iteration % 2 == 0 ? try LUT(cubeData: data) : try LUT(threeDLData: data)
                #expect(lut.entries.allSatisfy { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite })
                _ = lut.apply(SIMD3(0.3, 0.6, 0.9))
                outcomes[0] += 1
            } catch {
                #expect(!error.description.isEmpty)
                outcomes[1] += 1
            }
        }
        #expect(outcomes[0] > 50 && outcomes[1] > 50, "\(outcomes)")
    }
}
