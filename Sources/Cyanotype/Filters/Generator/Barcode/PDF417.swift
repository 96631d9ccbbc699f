import Foundation

// PDF417 (ISO/IEC 15438): text compaction (its Alpha, Lower, Mixed and Punctuation sub-modes),
// byte compaction (901/924 and the one-byte 913 shift) and numeric compaction (44-digit groups
// in base 900), chosen automatically or forced; the symbol length descriptor and pad codewords;
// Reed-Solomon check words over GF(929) (generator roots 3^1 ... 3^k); rows and data columns
// chosen for an aspect ratio within size limits; row indicators, start and stop patterns, and
// compact PDF417 (no right row indicator, the stop pattern cut to one bar module).

/// Light modules on every side of a PDF417 symbol. ISO/IEC 15438 asks for two, and Core Image's
/// width range (56-583: a 1-column compact to a 30-column full symbol, plus 2 + 2) implies two.
let pdf417QuietZone = 2

/// Module rows per symbol row: ISO/IEC 15438 asks rows at least three modules tall (Y >= 3X);
/// Core Image's smallest height, 13 (3 rows of 3 plus 2 + 2), implies three.
let pdf417RowHeight = 3

/// How message bytes become codewords; the raw value is Core Image's `inputCompactionMode`.
enum PDF417Compaction: Int, Sendable {
    /// Text, byte and numeric runs mixed for the fewest codewords.
    case automatic = 0
    /// ASCII digits only, 44 to 15 codewords.
    case numeric = 1
    /// ASCII 32-126, tab, line feed and carriage return, two characters a codeword.
    case text = 2
    /// Any bytes, six to five codewords.
    case byte = 3
}

/// Why a message cannot become a PDF417 symbol.
enum PDF417Error: Error, Equatable, CustomStringConvertible {
    case emptyMessage
    case notNumeric(byte: UInt8, offset: Int)
    case notText(byte: UInt8, offset: Int)
    case messageTooLong(dataCodewords: Int, level: Int)
    case tooManyCodewords(rows: Int, columns: Int)
    case noSize(codewords: Int, limits: [Limit])

    /// An input that bounds the symbol's size, and its value.
    struct Limit: Equatable, Sendable {
        let key: String
        let value: Int
    }

    /// The input to blame.
    var key: String {
        switch self {
        case .emptyMessage, .messageTooLong: return "inputMessage"
        case .notNumeric, .notText: return "inputCompactionMode"
        case .tooManyCodewords: return "inputRows"
        case let .noSize(_, limits): return limits.first?.key ?? "inputMessage"
        }
    }

    var description: String {
        switch self {
        case .emptyMessage:
            return "the message is empty; a PDF417 symbol carries at least one byte"
        case let .notNumeric(b, i):
            return "byte \(b) at offset \(i) is not an ASCII digit; numeric compaction (1) carries digits only, use 0 (automatic) for other data"
        case let .notText(b, i):
            return "byte \(b) at offset \(i) is not text; text compaction (2) carries ASCII 32-126, tab, line feed and carriage return only, use 0 (automatic) or 3 (byte)"
        case let .messageTooLong(n, l):
            return
                "the message takes \(n) data codewords; with the \(2 << l) check codewords of correction level \(l) that is more than the 928 a PDF417 symbol holds, so lower inputCorrectionLevel or shorten the message"
        case let .tooManyCodewords(r, c):
            return "\(r) rows of \(c) data columns are \(r * c) codewords, more than the 928 a PDF417 symbol holds; use fewer rows or columns"
        case let .noSize(n, limits):
            let l = limits.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            return "no PDF417 symbol within \(l) holds the \(n) codewords (data and check words) of this message; change those inputs or leave them unset"
        }
    }
}

/// What shapes a symbol besides the message; nil chooses automatically.
struct PDF417Options: Sendable {
    var compaction = PDF417Compaction.automatic
    /// Latch to text compaction (900) at the start too, where it is the implied mode.
    var alwaysSpecifyCompaction = false
    /// Error correction level 0-8: 2^(level+1) check codewords.
    var level: Int?
    var rows: Int?
    var columns: Int?
    var compact = false
    /// Wanted width / height of the image; 3 when nil.
    var aspectRatio: Double?
    /// Limits on the image size in pixels, quiet zone included.
    var minWidth: Int?, maxWidth: Int?, minHeight: Int?, maxHeight: Int?
}

/// An encoded PDF417 symbol.
struct PDF417: Sendable {
    let rows: Int
    let columns: Int
    let level: Int
    let compact: Bool
    /// Every codeword, row-major: the length descriptor, data, pads, then the check words.
    let codewords: [Int]

    static let start: [Int] = [8, 1, 1, 1, 1, 1, 1, 3]
    static let stop: [Int] = [7, 1, 1, 3, 1, 1, 1, 2, 1]
    static let defaultAspectRatio = 3.0

    /// Image width in modules (quiet zone included) of a symbol with `columns` data columns.
    static func width(columns: Int, compact: Bool) -> Int { 17 * columns + (compact ? 35 : 69) + 2 * pdf417QuietZone }
    /// Image height in modules (quiet zone included) of a symbol of `rows` rows.
    static func height(rows: Int) -> Int { pdf417RowHeight * rows + 2 * pdf417QuietZone }

    /// Encodes `message`, or says why it cannot.
    static func encode(_ message: [UInt8], options o: PDF417Options = PDF417Options()) throws(PDF417Error) -> PDF417 {
        guard !message.isEmpty else { throw .emptyMessage }
        let body = try highLevel(message, compaction: o.compaction, alwaysSpecify: o.alwaysSpecifyCompaction)
        let dataCount = body.count + 1
        let level: Int
        if let l = o.level {
            guard dataCount + (2 << l) <= 928 else { throw .messageTooLong(dataCodewords: dataCount, level: l) }
            level = l
        } else {
            // ISO/IEC 15438's recommended minimum for the data size, lowered when it cannot fit.
            var l = dataCount <= 40 ? 2 : dataCount <= 160 ? 3 : dataCount <= 320 ? 4 : 5
            while l > 0 && dataCount + (2 << l) > 928 { l -= 1 }
            guard dataCount + (2 << l) <= 928 else { throw .messageTooLong(dataCodewords: dataCount, level: 0) }
            level = l
        }
        let k = 2 << level
        let (rows, columns) = try size(codewords: dataCount + k, options: o)
        let slots = rows * columns - k
        let data = [slots] + body + [Int](repeating: 900, count: slots - dataCount)
        return PDF417(
            rows: rows, columns: columns, level: level, compact: o.compact,
            codewords: data + checkWords(data, count: k))
    }

    /// Rows and data columns for `n` codewords: the given ones, else those whose image is
    /// nearest the aspect ratio within the size limits, then the fewest pad codewords.
    static func size(codewords n: Int, options o: PDF417Options) throws(PDF417Error) -> (rows: Int, columns: Int) {
        if let r = o.rows, let c = o.columns, r * c > 928 { throw .tooManyCodewords(rows: r, columns: c) }
        let ratio = o.aspectRatio ?? defaultAspectRatio
        var best: (score: Double, slots: Int, rows: Int, columns: Int)?
        for c in o.columns.map({ [$0] }) ?? Array(1...30) {
            var r = o.rows ?? max(3, (n + c - 1) / c)
            if o.rows == nil, let h = o.minHeight { r = max(r, (h - 2 * pdf417QuietZone + pdf417RowHeight - 1) / pdf417RowHeight) }
            guard r >= 3, r <= 90, r * c >= n, r * c <= 928 else { continue }
            let w = width(columns: c, compact: o.compact), h = height(rows: r)
            if let x = o.minWidth, w < x { continue }
            if let x = o.maxWidth, w > x { continue }
            if let x = o.minHeight, h < x { continue }
            if let x = o.maxHeight, h > x { continue }
            let score = abs(log(Double(w) / Double(h) / ratio))
            if let b = best, score > b.score + 1e-12 || (score >= b.score - 1e-12 && r * c >= b.slots) { continue }
            best = (score, r * c, r, c)
        }
        guard let b = best else {
            let limits: [(String, Int?)] = [
                ("inputRows", o.rows), ("inputDataColumns", o.columns), ("inputMinWidth", o.minWidth),
                ("inputMaxWidth", o.maxWidth), ("inputMinHeight", o.minHeight), ("inputMaxHeight", o.maxHeight),
            ]
            throw .noSize(codewords: n, limits: limits.compactMap { k, v in v.map { PDF417Error.Limit(key: k, value: $0) } })
        }
        return (b.rows, b.columns)
    }

    // MARK: High-level encoding

    static let latchText = 900, latchByte = 901, latchByte6 = 924, latchNumeric = 902, shiftByte = 913

    static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
    static func isText(_ c: UInt8) -> Bool { (c >= 32 && c <= 126) || c == 9 || c == 10 || c == 13 }

    /// The codewords of `message` after the length descriptor.
    static func highLevel(_ m: [UInt8], compaction: PDF417Compaction, alwaysSpecify: Bool) throws(PDF417Error) -> [Int] {
        var sub = TextSubmode.alpha
        switch compaction {
        case .numeric:
            if let i = m.firstIndex(where: { !isDigit($0) }) { throw .notNumeric(byte: m[i], offset: i) }
            return [latchNumeric] + numeric(m[...])
        case .text:
            if let i = m.firstIndex(where: { !isText($0) }) { throw .notText(byte: m[i], offset: i) }
            return (alwaysSpecify ? [latchText] : []) + text(m[...], submode: &sub)
        case .byte:
            return bytes(m[...])
        case .automatic:
            break
        }
        // Runs as ISO/IEC 15438 suggests: 13 or more digits go numeric, 5 or more text
        // characters go text, anything else byte (one byte between text: the 913 shift).
        let n = m.count
        func digitRun(_ i: Int) -> Int {
            var j = i
            while j < n && isDigit(m[j]) { j += 1 }
            return j - i
        }
        func textRun(_ i: Int, upTo limit: Int = .max) -> Int {
            var j = i
            while j < n && j - i < limit && isText(m[j]) {
                if isDigit(m[j]) {
                    let d = digitRun(j)
                    if d >= 13 { break }
                    j += d
                } else {
                    j += 1
                }
            }
            return j - i
        }
        // A non-text byte with text (or the end) after it: from text, the 913 shift carries it.
        func loneByte(_ i: Int) -> Bool { i < n && !isText(m[i]) && (i + 1 == n || isText(m[i + 1])) }
        var out: [Int] = []
        var inText = true  // a symbol starts in text compaction
        var i = 0
        while i < n {
            let digits = digitRun(i)
            if digits >= 13 {
                out += [latchNumeric] + numeric(m[i..<(i + digits)])
                inText = false
                i += digits
                continue
            }
            // Staying in text costs nothing; latching back to it costs a codeword.
            let chars = textRun(i)
            if chars >= (inText ? 1 : 5) {
                if !inText || (i == 0 && alwaysSpecify) { out.append(latchText); sub = .alpha }
                out += text(m[i..<(i + chars)], submode: &sub, shiftFollows: loneByte(i + chars))
                inText = true
                i += chars
                continue
            }
            // From text, a lone byte takes the 913 shift; longer runs go on through text runs
            // too short to pay for the latch back.
            if inText && loneByte(i) {
                if i == 0 && alwaysSpecify { out.append(latchText) }
                out += [shiftByte, Int(m[i])]
                i += 1
            } else {
                var j = i + 1
                while j < n && digitRun(j) < 13 && textRun(j, upTo: 5) < 5 { j += 1 }
                out += bytes(m[i..<j])
                inText = false
                i = j
            }
        }
        return out
    }

    /// Numeric compaction (after its 902 latch): 44-digit groups, each with a leading 1, in base 900.
    static func numeric(_ digits: ArraySlice<UInt8>) -> [Int] {
        var out: [Int] = []
        var start = digits.startIndex
        while start < digits.endIndex {
            let end = min(start + 44, digits.endIndex)
            var decimal = [1] + digits[start..<end].map { Int($0) - 0x30 }
            var group: [Int] = []
            while !decimal.isEmpty {  // long division by 900
                var rest = 0
                var quotient: [Int] = []
                for d in decimal {
                    let x = rest * 10 + d
                    if !quotient.isEmpty || x >= 900 { quotient.append(x / 900) }
                    rest = x % 900
                }
                group.append(rest)
                decimal = quotient
            }
            out += group.reversed()
            start = end
        }
        return out
    }

    /// Byte compaction with its latch: 924 and six bytes to five base-900 codewords when the
    /// count is a multiple of six, else 901 with the last (count mod 6) bytes one a codeword.
    static func bytes(_ b: ArraySlice<UInt8>) -> [Int] {
        var out = [b.count % 6 == 0 ? latchByte6 : latchByte]
        var i = b.startIndex
        while b.endIndex - i >= 6 {
            var v: UInt64 = 0
            for k in 0..<6 { v = v << 8 | UInt64(b[i + k]) }
            var group = [Int](repeating: 0, count: 5)
            for k in stride(from: 4, through: 0, by: -1) { group[k] = Int(v % 900); v /= 900 }
            out += group
            i += 6
        }
        out += b[i...].map { Int($0) }
        return out
    }

    // MARK: Text compaction

    enum TextSubmode { case alpha, lower, mixed, punctuation }

    /// Mixed sub-mode values 0-24 (25 latches to punctuation, 26 is space).
    static let mixed: [UInt8] = Array("0123456789&\r\t,:#-.$/+%*=^".utf8)
    /// Punctuation sub-mode values 0-28 (29 latches to alpha).
    static let punctuation: [UInt8] = Array(";<>@[\\]_`~!\r\t,:\n-.$/\"|*()?{}'".utf8)

    /// The value of `c` in sub-mode `s`, nil when `s` lacks it.
    static func value(_ c: UInt8, in s: TextSubmode) -> Int? {
        switch s {
        case .alpha: return c >= 0x41 && c <= 0x5A ? Int(c) - 0x41 : c == 0x20 ? 26 : nil
        case .lower: return c >= 0x61 && c <= 0x7A ? Int(c) - 0x61 : c == 0x20 ? 26 : nil
        case .mixed: return c == 0x20 ? 26 : mixed.firstIndex(of: c)
        case .punctuation: return punctuation.firstIndex(of: c)
        }
    }

    /// Text compaction of `s` from sub-mode `submode` (left where the text ends): values 0-29
    /// with latches (ll 27, ml 28, al 28 / 29, pl 25) and shifts (as 27, ps 29), two a codeword.
    /// An odd count is padded with ps, or, when a 913 byte shift follows and the text goes on
    /// after it, with a latch, so that the text after the byte starts in a known sub-mode.
    static func text(_ s: ArraySlice<UInt8>, submode: inout TextSubmode, shiftFollows: Bool = false) -> [Int] {
        var v: [Int] = []
        var sub = submode
        var i = s.startIndex
        func punctuationNext() -> Bool { i + 1 < s.endIndex && value(s[i + 1], in: .punctuation) != nil }
        while i < s.endIndex {
            let c = s[i]
            if let x = value(c, in: sub) { v.append(x); i += 1; continue }
            switch sub {
            case .alpha, .lower:
                if sub == .alpha, value(c, in: .lower) != nil {
                    v.append(27); sub = .lower
                } else if sub == .lower, let x = value(c, in: .alpha) {
                    if i + 1 < s.endIndex, value(s[i + 1], in: .alpha) != nil, value(s[i + 1], in: .lower) == nil {
                        v += [28, 28]; sub = .alpha  // ml, al
                    } else {
                        v += [27, x]; i += 1  // as: one upper-case letter
                    }
                } else if value(c, in: .mixed) != nil {
                    v.append(28); sub = .mixed
                } else if punctuationNext() {
                    v += [28, 25]; sub = .punctuation
                } else {
                    v += [29, value(c, in: .punctuation)!]; i += 1
                }
            case .mixed:
                if value(c, in: .alpha) != nil {
                    v.append(28); sub = .alpha
                } else if value(c, in: .lower) != nil {
                    v.append(27); sub = .lower
                } else if punctuationNext() {
                    v.append(25); sub = .punctuation
                } else {
                    v += [29, value(c, in: .punctuation)!]; i += 1
                }
            case .punctuation:
                v.append(29); sub = .alpha
            }
        }
        if v.count % 2 == 1 {
            switch (shiftFollows, sub) {
            case (false, _): v.append(29)
            case (true, .alpha), (true, .lower): v.append(28); sub = .mixed
            case (true, .mixed): v.append(28); sub = .alpha
            case (true, .punctuation): v.append(29); sub = .alpha
            }
        }
        submode = sub
        return stride(from: 0, to: v.count, by: 2).map { 30 * v[$0] + v[$0 + 1] }
    }

    // MARK: Error correction

    /// g(x) = (x - 3)(x - 3^2)...(x - 3^k) over GF(929), coefficients highest power first.
    static func generator(_ k: Int) -> [Int] {
        var g = [1]
        var root = 1
        for _ in 0..<k {
            root = root * 3 % 929
            var next = g + [0]
            for (j, c) in g.enumerated() { next[j + 1] = (next[j + 1] + 929 - c * root % 929) % 929 }
            g = next
        }
        return g
    }

    /// The `k` check codewords of `data`: minus the remainder of data(x) * x^k divided by g(x).
    static func checkWords(_ data: [Int], count k: Int) -> [Int] {
        let g = generator(k)
        var r = [Int](repeating: 0, count: k)
        for d in data {
            let factor = (d + r[0]) % 929
            r.removeFirst()
            r.append(0)
            for j in 0..<k { r[j] = (r[j] + 929 - factor * g[j + 1] % 929) % 929 }
        }
        return r.map { (929 - $0) % 929 }
    }

    // MARK: Symbol

    /// Left and right row indicator codewords of row `r` (cluster r mod 3).
    func rowIndicators(_ r: Int) -> (left: Int, right: Int) {
        let base = 30 * (r / 3)
        let a = base + (rows - 1) / 3, b = base + 3 * level + (rows - 1) % 3, c = base + columns - 1
        switch r % 3 {
        case 0: return (a, c)
        case 1: return (b, a)
        default: return (c, b)
        }
    }

    /// Bar and space widths of `codeword` in `cluster` (0, 1 or 2 for ISO's 0, 3 and 6).
    static func widths(_ codeword: Int, cluster: Int) -> [Int] {
        let p = patterns[929 * cluster + codeword]
        return (0..<8).map { Int(p >> (28 - 4 * UInt32($0)) & 0xF) }
    }

    /// The symbol without quiet zone, each row `pdf417RowHeight` modules tall.
    var matrix: BarcodeMatrix {
        var m = BarcodeMatrix(
            width: PDF417.width(columns: columns, compact: compact) - 2 * pdf417QuietZone,
            height: rows * pdf417RowHeight)
        for r in 0..<rows {
            var elements = PDF417.start
            let (left, right) = rowIndicators(r)
            elements += PDF417.widths(left, cluster: r % 3)
            for c in 0..<columns { elements += PDF417.widths(codewords[r * columns + c], cluster: r % 3) }
            if compact {
                elements += [1]
            } else {
                elements += PDF417.widths(right, cluster: r % 3) + PDF417.stop
            }
            var x = 0
            for (k, w) in elements.enumerated() {
                if k % 2 == 0 {
                    for dx in x..<(x + w) { for dy in 0..<pdf417RowHeight { m[dx, r * pdf417RowHeight + dy] = true } }
                }
                x += w
            }
        }
        return m
    }
}
