// Text LUT files: Adobe/Resolve `.cube` and Autodesk `.3dl`, read and written; and the
// URL entry point that picks a reader by extension.

internal import CyanotypeCodecs
import Foundation

/// A finite float, or the error naming the line.
@inline(__always) private func float(_ s: Substring, line: Int) throws(LUTError) -> Float {
    guard let v = Float(s) else { throw .invalidNumber(line: line) }
    guard v.isFinite else { throw .nonFiniteNumber(line: line) }
    return v
}

extension LUT {
    // MARK: .cube

    /// Reads a `.cube` file: `TITLE`, `LUT_3D_SIZE` and/or `LUT_1D_SIZE` (both: the 1D table
    /// comes first in the data and is applied first), `DOMAIN_MIN`/`DOMAIN_MAX` (for both
    /// tables), `LUT_1D_INPUT_RANGE`/`LUT_3D_INPUT_RANGE` (Resolve's per-table ranges),
    /// `#` comments, blank lines, LF/CRLF/CR. Other keywords before the table are ignored.
    /// A 1D-only file becomes an identity 2^3 table behind the 1D shaper.
    public init(cubeData data: Data, maximumSize: Int = LUT.defaultReadLimit) throws(LUTError) {
        self = try LUT.withBytes(data) { (s, count) throws(LUTError) in try LUT.readCube(s, count: count, maximumSize: maximumSize) }
    }

    /// `body` over `data`'s bytes (a readable byte for empty data, never read).
    static func withBytes(_ data: Data, _ body: (UnsafePointer<UInt8>, Int) throws(LUTError) -> LUT) throws(LUTError) -> LUT {
        let r: Result<LUT, LUTError> = data.withUnsafeBytes { raw in
            var none: UInt8 = 0
            guard let base = raw.baseAddress, raw.count > 0 else {
                return withUnsafePointer(to: &none) { p in Result { () throws(LUTError) in try body(p, 0) } }
            }
            return Result { () throws(LUTError) in try body(base.assumingMemoryBound(to: UInt8.self), raw.count) }
        }
        return try r.get()
    }

    /// The `.cube` reader over bytes: table lines go through `LUTTextScanner`'s fast path,
    /// every other line through the keyword and error checks below.
    static func readCube(_ s: UnsafePointer<UInt8>, count: Int, maximumSize: Int) throws(LUTError) -> LUT {
        if LUTTextScanner.containsNUL(s, count: count) { throw .notText }
        var scan = LUTTextScanner(s, count: count)
        var title: String?
        var size3: Int?, size1: Int?
        var domainMin: SIMD3<Float>?, domainMax: SIMD3<Float>?
        var range1: (Float, Float)?, range3: (Float, Float)?
        var values = UnsafeMutablePointer<Float>.allocate(capacity: 3)
        defer { values.deallocate() }
        let pow10 = LUTNumbers.powersOfTen()
        defer { pow10.deallocate() }
        var seen: Set<String> = []
        var found = 0
        var expected = 0

        while !scan.atEnd {
            if found > 0 && found < expected {
                // A table line: three numbers straight into place.
                if let three = scan.nextFloatTriple(values + 3 * found, pow10) {
                    if three { found += 1 }
                    continue
                }
            }
            guard let line = scan.nextTextLine() else { continue }
            let head = line.tokens[0]
            let isData = Float(head) != nil
            if !isData {
                let keyword = String(head)
                let known = ["TITLE", "LUT_3D_SIZE", "LUT_1D_SIZE", "DOMAIN_MIN", "DOMAIN_MAX", "LUT_1D_INPUT_RANGE", "LUT_3D_INPUT_RANGE"]
                guard let first = head.unicodeScalars.first, CharacterSet.letters.contains(first) || first == "_" else {
                    throw .invalidNumber(line: line.number)
                }
                if found > 0 {
                    if known.contains(keyword) { throw .misplacedKeyword(keyword: keyword, line: line.number) }
                    throw .invalidNumber(line: line.number)
                }
                if !known.contains(keyword) { continue }
                if seen.contains(keyword) { throw .misplacedKeyword(keyword: keyword, line: line.number) }
                seen.insert(keyword)
                let args = line.tokens.dropFirst()
                switch keyword {
                case "TITLE":
                    var t = line.text.drop(while: { $0 == " " || $0 == "\t" }).dropFirst(5).trimmingCharacters(in: .whitespaces)
                    if t.hasPrefix("\"") { t.removeFirst() }
                    if t.hasSuffix("\"") { t.removeLast() }
                    title = t
                case "LUT_3D_SIZE", "LUT_1D_SIZE":
                    guard args.count == 1 else { throw .wrongValueCount(line: line.number, expected: 1, found: args.count) }
                    guard let n = Int(args.first!) else { throw .invalidNumber(line: line.number) }
                    if keyword == "LUT_3D_SIZE" {
                        try LUT.checkSize(n, limit: min(maximumSize, LUT.sizeRange.upperBound))
                        size3 = n
                    } else {
                        guard n >= 2 else { throw .sizeBelowMinimum(size: n, minimum: 2) }
                        guard n <= LUTShaper.maximumSize else { throw .sizeAboveLimit(size: n, limit: LUTShaper.maximumSize) }
                        size1 = n
                    }
                case "DOMAIN_MIN", "DOMAIN_MAX":
                    guard args.count == 3 else { throw .wrongValueCount(line: line.number, expected: 3, found: args.count) }
                    let v = SIMD3(
                        try float(args[args.startIndex], line: line.number), try float(args[args.startIndex + 1], line: line.number),
                        try float(args[args.startIndex + 2], line: line.number))
                    if keyword == "DOMAIN_MIN" { domainMin = v } else { domainMax = v }
                default:  // the INPUT_RANGE pair
                    guard args.count == 2 else { throw .wrongValueCount(line: line.number, expected: 2, found: args.count) }
                    let r = (try float(args[args.startIndex], line: line.number), try float(args[args.startIndex + 1], line: line.number))
                    if keyword == "LUT_1D_INPUT_RANGE" { range1 = r } else { range3 = r }
                }
                continue
            }
            if found == 0 {
                guard size3 != nil || size1 != nil else { throw .missingSize }
                let n3 = size3.map { $0 * $0 * $0 } ?? 0
                expected = (size1 ?? 0) + n3
                values.deallocate()
                values = .allocate(capacity: expected * 3)
            }
            guard line.tokens.count == 3 else { throw .wrongValueCount(line: line.number, expected: 3, found: line.tokens.count) }
            found += 1
            if found > expected { continue }
            for (k, t) in line.tokens.enumerated() { values[3 * (found - 1) + k] = try float(t, line: line.number) }
        }
        guard size3 != nil || size1 != nil else { throw .missingSize }
        if found == 0 { expected = (size1 ?? 0) + (size3.map { $0 * $0 * $0 } ?? 0) }
        if found < expected { throw .missingEntries(expected: expected, found: found) }
        if found > expected { throw .tooManyEntries(expected: expected, found: found) }

        let dMin = domainMin ?? .zero, dMax = domainMax ?? .one
        var shaper: LUTShaper?
        var offset = 0
        if let m = size1 {
            var v = [SIMD3<Float>](repeating: .zero, count: m)
            for i in 0..<m { v[i] = SIMD3(values[3 * i], values[3 * i + 1], values[3 * i + 2]) }
            let lo = range1.map { SIMD3(repeating: $0.0) } ?? dMin, hi = range1.map { SIMD3(repeating: $0.1) } ?? dMax
            shaper = try LUTShaper(values: v, domainMin: lo, domainMax: hi)
            offset = 3 * m
        }
        if let n = size3 {
            let t = LUTTable(count: n * n * n)
            let src = values + offset
            for i in 0..<t.count { t.entries[i] = SIMD4(src[3 * i], src[3 * i + 1], src[3 * i + 2], 1) }
            let lo = range3.map { SIMD3(repeating: $0.0) } ?? dMin, hi = range3.map { SIMD3(repeating: $0.1) } ?? dMax
            return try LUT(size: n, table: t, domainMin: lo, domainMax: hi, shaper: shaper, title: title)
        } else {
            return try LUT(size: 2, table: LUT.identityTable(2), shaper: shaper, title: title)
        }
    }

    /// Reads `.cube` text.
    public init(cubeString: String, maximumSize: Int = LUT.defaultReadLimit) throws(LUTError) {
        try self.init(cubeData: Data(cubeString.utf8), maximumSize: maximumSize)
    }

    static func identityTable(_ n: Int) -> LUTTable {
        let t = LUTTable(count: n * n * n)
        let k = 1 / Float(n - 1)
        var i = 0
        for b in 0..<n { for g in 0..<n { for r in 0..<n { t.entries[i] = SIMD4(Float(r) * k, Float(g) * k, Float(b) * k, 1); i += 1 } } }
        return t
    }

    /// Whether this is a 1D-only LUT (an identity 2^3 table over 0...1 behind a shaper).
    var isShaperOnly: Bool {
        guard shaper != nil, size == 2, domainMin == .zero, domainMax == .one else { return false }
        let id = LUT.identityTable(2)
        return memcmp(id.entries, table.entries, 8 * MemoryLayout<SIMD4<Float>>.stride) == 0
    }

    /// The LUT as `.cube` text. Values are written with the shortest decimal that reads back
    /// as the same float, so a round trip is exact. A shaper is written as the 1D part (with
    /// `LUT_1D_INPUT_RANGE`; the 3D range then as `LUT_3D_INPUT_RANGE`).
    public func cubeString() throws(LUTError) -> String {
        var s = ""
        if let title { s += "TITLE \"\(title.replacingOccurrences(of: "\"", with: "'"))\"\n" }
        s += "# Written by Cyanotype: red changes fastest, then green, then blue\n"
        func num(_ v: Float) -> String { v == 0 ? "0" : (v == 1 ? "1" : "\(v)") }
        func uniform(_ v: SIMD3<Float>) -> Bool { v.x == v.y && v.y == v.z }
        if let shaper {
            guard uniform(shaper.domainMin), uniform(shaper.domainMax) else {
                throw .unrepresentable(format: ".cube", reason: "the 1D shaper's input range differs between channels")
            }
            s += "LUT_1D_SIZE \(shaper.values.count)\n"
            if isShaperOnly {
                if shaper.domainMin != .zero || shaper.domainMax != .one {
                    s += "DOMAIN_MIN \(num(shaper.domainMin.x)) \(num(shaper.domainMin.y)) \(num(shaper.domainMin.z))\n"
                    s += "DOMAIN_MAX \(num(shaper.domainMax.x)) \(num(shaper.domainMax.y)) \(num(shaper.domainMax.z))\n"
                }
            } else {
                s += "LUT_1D_INPUT_RANGE \(num(shaper.domainMin.x)) \(num(shaper.domainMax.x))\n"
                guard uniform(domainMin), uniform(domainMax) else {
                    throw .unrepresentable(format: ".cube", reason: "with a 1D shaper the 3D input range must be the same for all channels")
                }
                s += "LUT_3D_SIZE \(size)\n"
                s += "LUT_3D_INPUT_RANGE \(num(domainMin.x)) \(num(domainMax.x))\n"
            }
            for v in shaper.values { s += "\(num(v.x)) \(num(v.y)) \(num(v.z))\n" }
            if isShaperOnly { return s }
        } else {
            s += "LUT_3D_SIZE \(size)\n"
            if domainMin != .zero || domainMax != .one {
                s += "DOMAIN_MIN \(num(domainMin.x)) \(num(domainMin.y)) \(num(domainMin.z))\n"
                s += "DOMAIN_MAX \(num(domainMax.x)) \(num(domainMax.y)) \(num(domainMax.z))\n"
            }
        }
        s.reserveCapacity(s.utf8.count + table.count * 30)
        for i in 0..<table.count {
            let e = table.entries[i]
            s += num(e.x); s += " "; s += num(e.y); s += " "; s += num(e.z); s += "\n"
        }
        return s
    }

    /// `.cube` file bytes (UTF-8).
    public func cubeData() throws(LUTError) -> Data { Data(try cubeString().utf8) }

    // MARK: .3dl

    /// Reads a `.3dl` file: a header line of N input breakpoints (e.g. `0 64 ... 1023`), then
    /// N^3 lines of integer RGB with **blue** changing fastest, then green, then red. The
    /// output depth is `outputBitDepth`, else a `Mesh <in> <out>` line's, else detected from
    /// the largest value: up to 1023 is 10-bit, up to 4095 12-bit, else 16-bit.
    public init(threeDLData data: Data, outputBitDepth: Int? = nil, maximumSize: Int = LUT.defaultReadLimit) throws(LUTError) {
        self = try LUT.withBytes(data) { (s, count) throws(LUTError) in
            try LUT.readThreeDL(s, count: count, outputBitDepth: outputBitDepth, maximumSize: maximumSize)
        }
    }

    /// The `.3dl` reader over bytes: table lines through `LUTTextScanner`'s fast path (their
    /// range checks here, in the same order and with the same errors), the rest as lines.
    static func readThreeDL(_ s: UnsafePointer<UInt8>, count byteCount: Int, outputBitDepth: Int?, maximumSize: Int) throws(LUTError) -> LUT {
        if LUTTextScanner.containsNUL(s, count: byteCount) { throw .notText }
        var scan = LUTTextScanner(s, count: byteCount)
        var depth = outputBitDepth
        var n = 0
        var values: [Int32] = []
        var found = 0
        var maxValue = 0
        let three = UnsafeMutablePointer<Int>.allocate(capacity: 3)
        defer { three.deallocate() }
        @inline(__always) func check(_ v: Int, line: Int) throws(LUTError) {
            guard v >= 0, v <= 65535 else { throw .valueOutOfRange(line: line, value: v, maximum: 65535) }
            if let d = depth, v > (1 << d) - 1 { throw .valueOutOfRange(line: line, value: v, maximum: (1 << d) - 1) }
        }
        while !scan.atEnd {
            if n > 0 && found < n * n * n, let got = scan.nextIntTriple(three) {
                guard got else { continue }
                found += 1
                for k in 0..<3 {
                    try check(three[k], line: scan.lineNumber)
                    maxValue = max(maxValue, three[k])
                    values.append(Int32(three[k]))
                }
                continue
            }
            guard let line = scan.nextTextLine() else { continue }
            if Int(line.tokens[0]) == nil {
                // Keyword lines (Flame's `3DMESH`, `Mesh 4 12`, `gamma 1.0`); not inside the table.
                guard line.tokens[0].contains(where: \.isLetter), found == 0 else { throw .invalidNumber(line: line.number) }
                if line.tokens[0].lowercased() == "mesh", line.tokens.count == 3, depth == nil, let d = Int(line.tokens[2]), (8...16).contains(d) {
                    depth = d
                }
                continue
            }
            if n == 0 {
                var previous = -1
                for t in line.tokens {
                    guard let v = Int(t), v > previous else { throw .invalidBreakpoints(line: line.number) }
                    previous = v
                }
                guard line.tokens.count >= 2 else { throw .invalidBreakpoints(line: line.number) }
                n = line.tokens.count
                try LUT.checkSize(n, limit: min(maximumSize, LUT.sizeRange.upperBound))
                values.reserveCapacity(n * n * n * 3)
                continue
            }
            guard line.tokens.count == 3 else { throw .wrongValueCount(line: line.number, expected: 3, found: line.tokens.count) }
            found += 1
            if found > n * n * n { continue }
            for t in line.tokens {
                guard let v = Int(t) else { throw .invalidNumber(line: line.number) }
                try check(v, line: line.number)
                maxValue = max(maxValue, v)
                values.append(Int32(v))
            }
        }
        guard n > 0 else { throw .missingBreakpoints }
        let count = n * n * n
        if found < count { throw .missingEntries(expected: count, found: found) }
        if found > count { throw .tooManyEntries(expected: count, found: found) }
        let bits = depth ?? (maxValue <= 1023 ? 10 : maxValue <= 4095 ? 12 : 16)
        let k = Float((1 << bits) - 1)
        let t = LUTTable(count: count)
        var line = 0
        for r in 0..<n {
            for g in 0..<n {
                for b in 0..<n {
                    t.entries[r + n * (g + n * b)] = SIMD4(Float(values[3 * line]) / k, Float(values[3 * line + 1]) / k, Float(values[3 * line + 2]) / k, 1)
                    line += 1
                }
            }
        }
        return try LUT(size: n, table: t)
    }

    /// The LUT as `.3dl` text: 10-bit input breakpoints and `outputBitDepth` (10, 12 or 16)
    /// integer output, blue fastest. Values are clamped to 0...1 and rounded.
    public func threeDLString(outputBitDepth: Int = 12) throws(LUTError) -> String {
        guard [10, 12, 16].contains(outputBitDepth) else { throw .unrepresentable(format: ".3dl", reason: "output bit depth \(outputBitDepth) (use 10, 12 or 16)") }
        guard shaper == nil else { throw .unrepresentable(format: ".3dl", reason: "it has a 1D shaper (write a .cube instead)") }
        guard domainMin == .zero, domainMax == .one else { throw .unrepresentable(format: ".3dl", reason: "its domain is not 0...1") }
        let q = Float((1 << outputBitDepth) - 1)
        var s = "# Written by Cyanotype: \(outputBitDepth)-bit output, blue changes fastest\n"
        s += (0..<size).map { String(Int((Float($0) * 1023 / Float(size - 1)).rounded())) }.joined(separator: " ") + "\n"
        for r in 0..<size {
            for g in 0..<size {
                for b in 0..<size {
                    let e = table.entries[r + size * (g + size * b)]
                    s += "\(Int(clamp01(e.x) * q + 0.5)) \(Int(clamp01(e.y) * q + 0.5)) \(Int(clamp01(e.z) * q + 0.5))\n"
                }
            }
        }
        return s
    }

    /// `threeDLString(outputBitDepth:)` as UTF-8 bytes, ready to write to a `.3dl` file.
    public func threeDLData(outputBitDepth: Int = 12) throws(LUTError) -> Data { Data(try threeDLString(outputBitDepth: outputBitDepth).utf8) }

    // MARK: Files

    /// Reads a LUT file: `.cube`, `.3dl`, or an image (PNG, JPEG, WebP) in `layout` (nil:
    /// see `LUTImageLayout.assumed`).
    public init(contentsOf url: URL, layout: LUTImageLayout? = nil, maximumSize: Int = LUT.defaultReadLimit) throws(LUTError) {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw .unreadableFile(path: url.path, reason: (error as NSError).localizedDescription)
        }
        switch url.pathExtension.lowercased() {
        case "cube": try self.init(cubeData: data, maximumSize: maximumSize)
        case "3dl": try self.init(threeDLData: data, maximumSize: maximumSize)
        default:
            guard ImageCodecs.sniff(data) != nil else { throw .unknownFileType(path: url.path) }
            try self.init(imageData: data, layout: layout, maximumSize: maximumSize)
        }
        if title == nil { title = url.deletingPathExtension().lastPathComponent }
    }

    /// Writes the LUT as the file type `url`'s extension names: `.cube`, `.3dl` (12-bit), or
    /// `.png` (8-bit, in `layout`).
    public func write(to url: URL, layout: LUTImageLayout = .tiles) throws(LUTError) {
        let data: Data
        switch url.pathExtension.lowercased() {
        case "cube": data = try cubeData()
        case "3dl": data = try threeDLData()
        case "png": data = try pngData(layout: layout)
        default: throw .unknownFileType(path: url.path)
        }
        do { try CIContext.writeFile(data, to: url) } catch { throw .unwritableFile(path: url.path, reason: error.description) }
    }
}

extension CIContext {
    /// `writeAtomically` without a context instance.
    static func writeFile(_ data: Data, to url: URL) throws(ImageIOError) {
        try CIContext(options: [.cacheIntermediates: false]).writeAtomically(data, to: url)
    }
}
