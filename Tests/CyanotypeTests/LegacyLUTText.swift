// The text LUT readers as they were before #17 (a String per file, split into lines and
// tokens by Character): the reference the byte-level readers are checked against, error for
// error and bit for bit. Kept verbatim apart from names; not used by the library.

import Foundation
@testable import Cyanotype

/// One line of a text LUT: its 1-based number and whitespace-separated tokens, comments cut.
private struct LegacyTextLine {
    let number: Int
    let tokens: [Substring]
    let text: Substring
}

/// Splits text into non-empty lines (LF, CRLF or CR), dropping `#` comments.
private func legacyTextLines(_ data: Data) throws(LUTError) -> [LegacyTextLine] {
    if data.contains(0) { throw .notText }
    let text = String(decoding: data, as: UTF8.self)
    var out: [LegacyTextLine] = []
    var number = 0
    for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
        number += 1
        var line = raw
        if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
        let tokens = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\u{0C}" || $0 == "\r" || $0 == "\u{FEFF}" })
        if tokens.isEmpty { continue }
        out.append(LegacyTextLine(number: number, tokens: tokens, text: line))
    }
    return out
}

/// A finite float, or the error naming the line.
private func legacyFloat(_ s: Substring, line: Int) throws(LUTError) -> Float {
    guard let v = Float(s) else { throw .invalidNumber(line: line) }
    guard v.isFinite else { throw .nonFiniteNumber(line: line) }
    return v
}

/// The pre-#17 `.cube` and `.3dl` readers.
enum LegacyLUTText {
    static func cube(_ data: Data, maximumSize: Int = LUT.defaultReadLimit) throws(LUTError) -> LUT {
        var title: String?
        var size3: Int?, size1: Int?
        var domainMin: SIMD3<Float>?, domainMax: SIMD3<Float>?
        var range1: (Float, Float)?, range3: (Float, Float)?
        var values: [Float] = []
        var seen: Set<String> = []
        var found = 0
        var expected = 0

        for line in try legacyTextLines(data) {
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
                        try legacyFloat(args[args.startIndex], line: line.number), try legacyFloat(args[args.startIndex + 1], line: line.number),
                        try legacyFloat(args[args.startIndex + 2], line: line.number))
                    if keyword == "DOMAIN_MIN" { domainMin = v } else { domainMax = v }
                default:  // the INPUT_RANGE pair
                    guard args.count == 2 else { throw .wrongValueCount(line: line.number, expected: 2, found: args.count) }
                    let r = (try legacyFloat(args[args.startIndex], line: line.number), try legacyFloat(args[args.startIndex + 1], line: line.number))
                    if keyword == "LUT_1D_INPUT_RANGE" { range1 = r } else { range3 = r }
                }
                continue
            }
            if found == 0 {
                guard size3 != nil || size1 != nil else { throw .missingSize }
                let n3 = size3.map { $0 * $0 * $0 } ?? 0
                expected = (size1 ?? 0) + n3
                values.reserveCapacity(expected * 3)
            }
            guard line.tokens.count == 3 else { throw .wrongValueCount(line: line.number, expected: 3, found: line.tokens.count) }
            found += 1
            if found > expected { continue }
            for t in line.tokens { values.append(try legacyFloat(t, line: line.number)) }
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
            for i in 0..<t.count { t.entries[i] = SIMD4(values[offset + 3 * i], values[offset + 3 * i + 1], values[offset + 3 * i + 2], 1) }
            let lo = range3.map { SIMD3(repeating: $0.0) } ?? dMin, hi = range3.map { SIMD3(repeating: $0.1) } ?? dMax
            return try LUT(size: n, table: t, domainMin: lo, domainMax: hi, shaper: shaper, title: title)
        } else {
            return try LUT(size: 2, table: LUT.identityTable(2), shaper: shaper, title: title)
        }
    }

    static func threeDL(_ data: Data, outputBitDepth: Int? = nil, maximumSize: Int = LUT.defaultReadLimit) throws(LUTError) -> LUT {
        var depth = outputBitDepth
        var n = 0
        var values: [Int32] = []
        var found = 0
        var maxValue = 0
        var lastLine = 0
        for line in try legacyTextLines(data) {
            lastLine = line.number
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
                guard v >= 0, v <= 65535 else { throw .valueOutOfRange(line: line.number, value: v, maximum: 65535) }
                if let d = depth, v > (1 << d) - 1 { throw .valueOutOfRange(line: line.number, value: v, maximum: (1 << d) - 1) }
                maxValue = max(maxValue, v)
                values.append(Int32(v))
            }
        }
        _ = lastLine
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

}
