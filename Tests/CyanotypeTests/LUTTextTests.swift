import Foundation
import Testing
@testable import Cyanotype

/// The byte-level `.cube`/`.3dl` readers: numbers exactly as `strtof` and Swift's
/// `Float(String)` read them, every error and line number as the `String`-based readers gave
/// them (`LegacyLUTText`, the code before), and the LUT file cache.
@Suite struct LUTTextTests {
    // MARK: Numbers

    /// What `LUTNumbers.float` gives for `token` (followed by a line end, as in a file).
    static func parsed(_ token: String) -> Float? {
        var bytes = Array(token.utf8) + [0x0A]
        let pow10 = LUTNumbers.powersOfTen()
        defer { pow10.deallocate() }
        return bytes.withUnsafeMutableBufferPointer { b -> Float? in
            var i = 0
            guard let v = LUTNumbers.float(b.baseAddress!, &i, b.count, pow10) else { return nil }
            return i == b.count - 1 ? v : nil
        }
    }

    /// strtof over the whole token: nil unless it reads all of it to a finite float.
    static func strtofReference(_ token: String) -> Float? {
        token.withCString { p -> Float? in
            var end: UnsafeMutablePointer<CChar>?
            let v = strtof(p, &end)
            guard let end, end - UnsafeMutablePointer(mutating: p) == token.utf8.count, !token.isEmpty, v.isFinite else { return nil }
            return v
        }
    }

    static func same(_ a: Float?, _ b: Float?) -> Bool { a?.bitPattern == b?.bitPattern }

    /// Decimal forms a LUT file holds: signs, '.5', '5.', exponents, leading zeros, many digits.
    static func randomDecimal(_ rng: inout SplitMix) -> String {
        var s = ""
        switch rng.int(4) {
        case 0: s += "-";
        case 1: s += "+";
        default: break
        }
        let intDigits = [0, 1, 1, 1, 2, 3, 5, 8, 12, 20, 25][rng.int(11)]
        for k in 0..<intDigits { s += String(k == 0 && rng.int(3) == 0 ? 0 : rng.int(10)) }
        let fracDigits = [0, 1, 2, 3, 6, 6, 6, 8, 9, 10, 12, 15, 17, 19, 20, 25, 40][rng.int(17)]
        if fracDigits > 0 || rng.int(4) == 0 { s += "." }
        for _ in 0..<fracDigits { s += String(rng.int(10)) }
        if intDigits == 0 && fracDigits == 0 { s += String(rng.int(10)) }
        if rng.int(3) == 0 {
            s += rng.int(2) == 0 ? "e" : "E"
            switch rng.int(3) {
            case 0: s += "-";
            case 1: s += "+";
            default: break
            }
            s += String(rng.int([3, 10, 25, 40, 46][rng.int(5)]))
        }
        return s
    }

    @Test func floatsReadAsStrtofAndSwiftReadThem() {
        var rng = SplitMix(0xC0BE)
        var tokens: [String] = [
            "0", "1", "-0", "+0", "-0.0", "0.0", ".5", "5.", "-.5", "+.5", "0.5", "1e5", "1E5", "1e+05", "1e-05", "1.5e-3", "-1.5E+3",
            "000000000000000000000000000000001", "0.000000000000000000000000000000000001", "1.0000000000000000000000000001",
            "123456789012345678901234567890", "0.1234567890123456789012345678901", "3.4028235e38", "3.4028236e38", "3.5e38",
            "1e38", "1e39", "1e-38", "1.17549435e-38", "1e-40", "1e-45", "1e-46", "7e-46", "1e-50", "0e999999", "0e-999999",
            "4.9406564584124654e-324", "0.1", "0.2", "0.3", "0.7", "1.1", "16777216", "16777217", "16777218", "33554431", "33554433",
            "0.50000002980232238769531250", "0.50000002980232238769531249", "0.50000002980232238769531251", "1.00000005960464477539062500",
            "0x1p-3", "0X1P3", "inf", "-inf", "infinity", "nan", "NaN", "1e", "1e+", "e1", ".", "-", "+", "", "1.2.3", "--1", "+-1",
            "1_0", "1,5", "0.5f", "1d", "١", "0.5\u{301}", " 1", "1 ", "1e0000000000000000000000001", "1e-0000000000000000000000001",
        ]
        // Float midpoints, written out in full and a little either side.
        for _ in 0..<2000 {
            let f = Float(bitPattern: UInt32(truncatingIfNeeded: rng.next()) & 0x3FFF_FFFF | 0x3000_0000)
            let mid = (Double(f) + Double(f.nextUp)) / 2
            tokens.append(String(format: "%.40g", mid))
            tokens.append(String(format: "%.17g", mid))
            tokens.append(String(format: "%.17g", mid.nextUp))
            tokens.append(String(format: "%.17g", mid.nextDown))
        }
        // Floats as writers print them: shortest, %.6f, %.9g, %.17g, %e.
        for _ in 0..<20_000 {
            let f = Float(bitPattern: UInt32(truncatingIfNeeded: rng.next()) % 0x7F80_0000) * (rng.int(2) == 0 ? 1 : -1)
            let u = Float(Double(rng.next() >> 40) / Double(1 << 24))
            tokens += [
                "\(f)", "\(u)", String(format: "%.6f", u), String(format: "%.9g", f), String(format: "%.17g", Double(f)),
                String(format: "%e", u), String(format: "%.10f", Double(u) * 4 - 2),
            ]
        }
        for _ in 0..<60_000 { tokens.append(Self.randomDecimal(&rng)) }

        var differ: [String] = [], disagree: [String] = []
        for t in tokens {
            let swift = Float(t).flatMap { $0.isFinite ? $0 : nil }
            if !Self.same(Self.parsed(t), swift) { differ.append(t) }
            // Swift and strtof agree on every plain decimal (checked here so the reference holds).
            if t.unicodeScalars.allSatisfy({ "0123456789+-.eE".unicodeScalars.contains($0) }), !Self.same(swift, Self.strtofReference(t)) {
                disagree.append(t)
            }
        }
        #expect(differ.isEmpty, "\(differ.count) of \(tokens.count) tokens read differently from Float(String): \(differ.prefix(10))")
        #expect(disagree.isEmpty, "Float(String) and strtof differ on \(disagree.prefix(10))")
    }

    @Test func integersReadAsSwiftReadsThem() {
        var rng = SplitMix(3)
        var tokens = [
            "0", "7", "007", "+5", "-5", "-0", "65535", "65536", "1023", "999999999999999999", "9999999999999999999",
            "99999999999999999999999", "1.0", "1e3", "0x10", "", "+", "-", "5a", "١",
        ]
        for _ in 0..<5000 { tokens.append(String(rng.int(70_000))); tokens.append(String(repeating: "0", count: rng.int(4)) + String(rng.int(5000))) }
        for t in tokens {
            var bytes = Array(t.utf8) + [0x20]
            let got: Int? = bytes.withUnsafeMutableBufferPointer { b in
                var i = 0
                let v = LUTNumbers.int(b.baseAddress!, &i, b.count)
                return i == b.count - 1 ? v : nil
            }
            let want = Int(t).flatMap { $0 >= 0 ? $0 : nil }
            #expect(got == want, "'\(t)'")
        }
    }

    // MARK: Whole files against the readers before

    enum Outcome: Equatable {
        case lut(LUT)
        case error(LUTError)
    }
    static func cube(_ d: Data) -> Outcome { do { return .lut(try LUT(cubeData: d)) } catch { return .error(error) } }
    static func legacyCube(_ d: Data) -> Outcome { do { return .lut(try LegacyLUTText.cube(d)) } catch { return .error(error) } }
    static func threeDL(_ d: Data) -> Outcome { do { return .lut(try LUT(threeDLData: d)) } catch { return .error(error) } }
    static func legacyThreeDL(_ d: Data) -> Outcome { do { return .lut(try LegacyLUTText.threeDL(d)) } catch { return .error(error) } }

    /// A valid `.cube` of size `n` in one of many spellings (line ends, blanks, comments,
    /// number forms, keywords, a 1D shaper).
    static func cubeText(_ n: Int, _ rng: inout SplitMix) -> String {
        let eol = ["\n", "\r\n", "\r", "\n", "\n"][rng.int(5)]
        func num() -> String {
            let v = Float(Double(rng.next() >> 40) / Double(1 << 24)) * 1.2 - 0.1
            switch rng.int(7) {
            case 0: return String(format: "%.6f", v)
            case 1: return "\(v)"
            case 2: return String(format: "%.9g", v)
            case 3: return String(format: "%e", v)
            case 4: return String(format: "%.17g", Double(v))
            case 5: return ["0", "1", "-0", "1.0", "+0.5", ".25", "1."][rng.int(7)]
            default: return String(format: "%.4f", v)
            }
        }
        func sep() -> String { [" ", " ", "  ", "\t", " \u{0C}"][rng.int(5)] }
        var s = rng.int(4) == 0 ? "\u{FEFF}" : ""
        if rng.int(2) == 0 { s += "TITLE \"Grade \(rng.int(100)) é\"" + eol }
        if rng.int(3) == 0 { s += "# a comment, ünïcode" + eol + eol }
        let shaper = rng.int(4) == 0 ? 2 + rng.int(6) : 0
        if shaper > 0 { s += "LUT_1D_SIZE \(shaper)" + eol + "LUT_1D_INPUT_RANGE 0 1" + eol }
        s += "LUT_3D_SIZE \(n)" + eol
        if rng.int(3) == 0 { s += "DOMAIN_MIN 0 0 0" + eol + "DOMAIN_MAX 1 1 1" + eol }
        if rng.int(4) == 0 { s += "LUT_IN_VIDEO_RANGE" + eol }
        for i in 0..<(shaper + n * n * n) {
            if rng.int(20) == 0 { s += (rng.int(2) == 0 ? "" : "  ") + "# row \(i)" + eol }
            if rng.int(30) == 0 { s += sep() + eol }
            s += (rng.int(10) == 0 ? sep() : "") + num() + sep() + num() + sep() + num()
            if rng.int(15) == 0 { s += sep() }
            if rng.int(15) == 0 { s += " #c" }
            s += eol
        }
        return s
    }

    static func threeDLText(_ n: Int, _ rng: inout SplitMix) -> String {
        let eol = ["\n", "\r\n", "\r"][rng.int(3)]
        var s = rng.int(2) == 0 ? "3DMESH" + eol + "Mesh 4 12" + eol : "# 3dl" + eol
        s += (0..<n).map { String($0 * 1023 / (n - 1)) }.joined(separator: " ") + eol
        for _ in 0..<(n * n * n) {
            s += "\(rng.int(4096)) \(rng.int(4096))\t\(rng.int(4096))" + (rng.int(20) == 0 ? " # x" : "") + eol
        }
        return s
    }

    /// `text` with a few random edits from bytes that matter to the readers.
    static func mutated(_ text: String, _ rng: inout SplitMix) -> Data {
        var b = Array(text.utf8)
        let pieces: [[UInt8]] =
            [
                "#", "\r", "\n", "\r\n", " ", "\t", "\u{0B}", "\u{0C}", "e", "E", "-", "+", ".", "x", "0", "9", "1e40",
                "nan", "inf", "0x1p3", "\u{301}", "\u{FEFF}", "é", "LUT_3D_SIZE 2", "TITLE x", "DOMAIN_MIN 0 0 0",
                "LUT_1D_SIZE 3", "_K", "1 2 3", "\u{0}",
            ].map { Array($0.utf8) } + [[0xFF], [0xC3]]
        for _ in 0..<(1 + rng.int(3)) {
            guard !b.isEmpty else { break }
            let at = rng.int(b.count)
            switch rng.int(3) {
            case 0: b.insert(contentsOf: pieces[rng.int(pieces.count)], at: at)
            case 1: b.removeSubrange(at..<min(b.count, at + 1 + rng.int(4)))
            default: b.replaceSubrange(at..<min(b.count, at + 1), with: pieces[rng.int(pieces.count)])
            }
        }
        return Data(b)
    }

    @Test func cubeFilesReadAsBeforeErrorForError() {
        var rng = SplitMix(0xCB)
        var checked = 0, errors = 0
        for round in 0..<600 {
            let text = Self.cubeText([2, 3, 4, 5][round % 4], &rng)
            for data in [Data(text.utf8), Self.mutated(text, &rng), Self.mutated(text, &rng), Self.mutated(text, &rng)] {
                let got = Self.cube(data), want = Self.legacyCube(data)
                #expect(got == want, "\(String(decoding: data, as: UTF8.self).debugDescription.prefix(400))")
                if case .error = want { errors += 1 }
                checked += 1
            }
        }
        // The edits reach the error paths as well as the fast one.
        #expect(errors > checked / 5 && errors < checked * 4 / 5, "\(errors) errors of \(checked)")
    }

    @Test func threeDLFilesReadAsBeforeErrorForError() {
        var rng = SplitMix(0x3D1)
        for round in 0..<400 {
            let text = Self.threeDLText([2, 3, 4][round % 3], &rng)
            for data in [Data(text.utf8), Self.mutated(text, &rng), Self.mutated(text, &rng), Self.mutated(text, &rng)] {
                #expect(Self.threeDL(data) == Self.legacyThreeDL(data), "\(String(decoding: data, as: UTF8.self).debugDescription.prefix(400))")
            }
        }
    }

    @Test func bigCubeReadsBitForBitAsBefore() throws {
        var rng = SplitMix(64)
        let text = Self.cubeText(33, &rng)
        let data = Data(text.utf8)
        #expect(Self.cube(data) == Self.legacyCube(data))
        // Our own writer's shortest decimals come back as the same floats.
        let lut = try LUT.make(size: 17, title: "t") { c in SIMD3(c.x * c.x, sqrt(c.y), 1 - c.z) * 0.987654 + 0.00123 }
        #expect(try LUT(cubeData: try lut.cubeData()) == lut)
    }

    @Test func errorLinesAreCountedOverEveryLineEnding() {
        // CR, LF and CRLF each end one line; the error names the line the fast path met.
        let body = "LUT_3D_SIZE 2\r\n0 0 0\r1 0 0\n0 1 0\r\n\r\n1 1 0\n0 0 1\n1 0 1\n0 1 x\n1 1 1\n"
        #expect(Self.cube(Data(body.utf8)) == .error(.invalidNumber(line: 9)))
        #expect(Self.legacyCube(Data(body.utf8)) == .error(.invalidNumber(line: 9)))
        let threeDL = "0 1023\r\n0 0 0\r0 0 0\n0 0 70000\n"
        #expect(Self.threeDL(Data(threeDL.utf8)) == .error(.valueOutOfRange(line: 4, value: 70000, maximum: 65535)))
    }

    // MARK: The LUT file cache

    @Test func fileCacheKeepsAParsedFileUntilItChanges() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lut-cache-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("grade.cube")
        let a = try LUT.make(size: 4) { $0 * 0.5 }, b = try LUT.make(size: 4) { $0 * 0.25 }
        try a.cubeData().write(to: url)
        let cache = LUTFileCache(budget: 1 << 20)
        let first = try cache.lut(contentsOf: url, layout: nil, maximumSize: 64)
        let second = try cache.lut(contentsOf: url, layout: nil, maximumSize: 64)
        #expect(first.table === second.table, "the second read is the kept table")
        #expect(cache.hits == 1 && first.title == "grade" && first.maximumDifference(from: a) == 0)

        // Edited in place (another size): read again.
        try (try b.cubeData() + Data("# edited\n".utf8)).write(to: url)
        let edited = try cache.lut(contentsOf: url, layout: nil, maximumSize: 64)
        #expect(edited.maximumDifference(from: b) == 0)

        // Same size, only the modification time moved: read again.
        var bumped = try Data(contentsOf: url)
        bumped[bumped.count - 3] = UInt8(ascii: "E")  // "# edited" -> "# editEd"
        try bumped.write(to: url)
        var times = [timespec(tv_sec: 1_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, url.path, &times, 0) == 0)
        let kept = try cache.lut(contentsOf: url, layout: nil, maximumSize: 64)
        #expect(kept.table !== edited.table)

        // Replaced by a rename (a new inode), same size and time: read again.
        let other = dir.appendingPathComponent("other.cube")
        try bumped.write(to: other)
        #expect(utimensat(AT_FDCWD, other.path, &times, 0) == 0)
        #expect(rename(other.path, url.path) == 0)
        #expect(try cache.lut(contentsOf: url, layout: nil, maximumSize: 64).table !== kept.table)

        // Errors are not kept; a missing file says so each time.
        try FileManager.default.removeItem(at: url)
        #expect(throws: LUTError.self) { try cache.lut(contentsOf: url, layout: nil, maximumSize: 64) }
        // The budget holds: a LUT bigger than it is read but not kept.
        let big = dir.appendingPathComponent("big.cube")
        try LUT.make(size: 48) { $0 }.cubeData().write(to: big)
        let small = LUTFileCache(budget: 1 << 20)
        _ = try small.lut(contentsOf: big, layout: nil, maximumSize: 64)
        #expect(small.byteCount == 0)
    }

    @Test func contextAndFilterReadThroughTheCache() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lut-filter-\(getpid())-\(UUID().uuidString).cube")
        defer { try? FileManager.default.removeItem(at: url) }
        try LUT.make(size: 5) { SIMD3($0.z, $0.y, $0.x) }.cubeData().write(to: url)
        // A context keeps what it read; filters (no context at hand) share one process-wide cache.
        let context = CIContext()
        let viaContext = try context.lut(contentsOf: url, maximumSize: LUT.sizeRange.upperBound)
        #expect(try context.lut(contentsOf: url, maximumSize: LUT.sizeRange.upperBound).table === viaContext.table)
        #expect(context.lutFiles.byteCount > 0)
        context.clearCaches()
        #expect(context.lutFiles.byteCount == 0)
        let f1 = CILUTFilter(url: url), f2 = CILUTFilter(url: url)
        #expect(try f1.makeLUT().table === f2.makeLUT().table)
    }
}
