// Byte-level reading of text LUT files (.cube, .3dl): lines, tokens and numbers straight from
// the file's bytes, with no `String` per line and no allocation per line. Data lines (three
// numbers) take a fast path; any other line (keywords, comments in odd places, non-ASCII
// text, anything malformed) is handed over as a `TextLine` and read as before, so every
// format check and error message (with its line number) stays as it was.

import Foundation

/// One line of a text LUT: its 1-based number and whitespace-separated tokens, comments cut.
struct TextLine {
    let number: Int
    let tokens: [Substring]
    let text: Substring

    /// The line's tokens as `String`'s `split` finds them (by `Character`, so a space or `#`
    /// followed by a combining mark is not a separator), or nil for a line with none.
    init?(_ text: String, number: Int) {
        var line = Substring(text)
        if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
        let tokens = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\u{0C}" || $0 == "\r" || $0 == "\u{FEFF}" })
        if tokens.isEmpty { return nil }
        self.number = number
        self.tokens = tokens
        self.text = line
    }
}

/// Walks the lines of a text LUT in a byte buffer: a line ends at LF, CRLF or CR, as
/// `String`'s line splitting does (CRLF is one `Character`).
struct LUTTextScanner {
    private let bytes: UnsafePointer<UInt8>
    private let end: Int
    private var pos = 0
    /// The number of the line last read (1-based).
    private(set) var lineNumber = 0

    init(_ bytes: UnsafePointer<UInt8>, count: Int) {
        self.bytes = bytes
        end = count
    }

    var atEnd: Bool { pos >= end }

    /// Whether the buffer holds a NUL byte (then it is not text).
    static func containsNUL(_ bytes: UnsafePointer<UInt8>, count: Int) -> Bool {
        count > 0 && memchr(bytes, 0, count) != nil
    }

    /// The next line as a `TextLine` (nil for a blank or comment-only line); `atEnd` must be
    /// false. Decodes just this line, as the whole text used to be decoded (invalid UTF-8
    /// becomes U+FFFD; no multi-byte sequence can hold a CR or LF byte).
    mutating func nextTextLine() -> TextLine? {
        let start = pos
        var p = pos
        while p < end, bytes[p] != 0x0A, bytes[p] != 0x0D { p += 1 }
        let stop = p
        if p < end { p += (bytes[p] == 0x0D && p + 1 < end && bytes[p + 1] == 0x0A) ? 2 : 1 }
        pos = p
        lineNumber += 1
        // Lines without a '#', a non-ASCII byte or anything but blanks are blank.
        var q = start
        while q < stop, bytes[q] == 0x20 || bytes[q] == 0x09 || bytes[q] == 0x0C { q += 1 }
        if q == stop { return nil }
        let text = String(decoding: UnsafeBufferPointer(start: bytes + start, count: stop - start), as: UTF8.self)
        return TextLine(text, number: lineNumber)
    }

    // MARK: The fast path for data lines

    /// Reads the next line when it is exactly three numbers (blanks, a trailing `#` comment
    /// and a blank line are fine too) into `out`, advancing past it: `true` for three numbers,
    /// `false` for a blank line. nil, without advancing, for any other line (read it with
    /// `nextTextLine`). Numbers are what `Float(String)` reads, and finite.
    @inline(__always)
    mutating func nextFloatTriple(_ out: UnsafeMutablePointer<Float>, _ pow10: UnsafePointer<Double>) -> Bool? {
        var p = pos
        var n = 0
        while true {
            while p < end, bytes[p] == 0x20 || bytes[p] == 0x09 || bytes[p] == 0x0C { p += 1 }
            if p >= end { break }
            let c = bytes[p]
            if c == 0x0A || c == 0x0D { break }
            if c == 0x23 {
                guard skipComment(&p) else { return nil }
                break
            }
            guard n < 3, let v = LUTNumbers.float(bytes, &p, end, pow10) else { return nil }
            out[n] = v
            n += 1
        }
        guard n == 3 || n == 0 else { return nil }
        finishLine(p)
        return n == 3
    }

    /// As `nextFloatTriple`, for three non-negative decimal integers (a `.3dl` table line).
    @inline(__always)
    mutating func nextIntTriple(_ out: UnsafeMutablePointer<Int>) -> Bool? {
        var p = pos
        var n = 0
        while true {
            while p < end, bytes[p] == 0x20 || bytes[p] == 0x09 || bytes[p] == 0x0C { p += 1 }
            if p >= end { break }
            let c = bytes[p]
            if c == 0x0A || c == 0x0D { break }
            if c == 0x23 {
                guard skipComment(&p) else { return nil }
                break
            }
            guard n < 3, let v = LUTNumbers.int(bytes, &p, end) else { return nil }
            out[n] = v
            n += 1
        }
        guard n == 3 || n == 0 else { return nil }
        finishLine(p)
        return n == 3
    }

    /// Skips a `#` comment to the end of the line. False when the `#` is followed by a
    /// non-ASCII byte (it might join a combining mark into one `Character`: not a `#` then).
    @inline(__always) private func skipComment(_ p: inout Int) -> Bool {
        if p + 1 < end, bytes[p + 1] >= 0x80 { return false }
        while p < end, bytes[p] != 0x0A, bytes[p] != 0x0D { p += 1 }
        return true
    }

    /// Moves past the line ending at `p` (which is at LF, CR or the end).
    @inline(__always) private mutating func finishLine(_ p: Int) {
        var p = p
        if p < end { p += (bytes[p] == 0x0D && p + 1 < end && bytes[p + 1] == 0x0A) ? 2 : 1 }
        pos = p
        lineNumber += 1
    }
}

/// Decimal numbers from bytes, exactly as Swift's `Float(String)` and `Int(String)` (strtof)
/// read them.
enum LUTNumbers {
    /// 10^0 ... 10^22: every one exact in a Double.
    static func powersOfTen() -> UnsafeMutablePointer<Double> {
        let p = UnsafeMutablePointer<Double>.allocate(capacity: 23)
        var v = 1.0
        for i in 0..<23 { p[i] = v; v *= 10 }
        return p
    }

    /// Whether `c` ends a token: a blank, a line end or a comment.
    @inline(__always) static func endsToken(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x09 || c == 0x0C || c == 0x0A || c == 0x0D || c == 0x23
    }

    /// The finite float of the token at `p` (which is not a blank), moving `p` past it; nil
    /// when the token is not a finite number or holds a non-ASCII byte.
    ///
    /// `[+-] digits [. digits] [(e|E) [+-] digits]` is read here: the first 19 significant
    /// digits as an integer m (later ones change the value by under 1e-18 of it), scaled by
    /// 10^k with |k| <= 22 in one double operation. That double is within 2 ulps of the exact
    /// value, so rounding it to float is correctly rounded (as strtof) unless it lies within
    /// 8 ulps of the midpoint between two floats, about 1 number in 30 million: those, and
    /// every other form (hex, `inf`, `nan`, larger exponents), go to `Float(String)`.
    @inline(__always)
    static func float(_ s: UnsafePointer<UInt8>, _ i: inout Int, _ end: Int, _ pow10: UnsafePointer<Double>) -> Float? {
        var p = i
        var negative = false
        if s[p] == 0x2D { negative = true; p += 1 } else if s[p] == 0x2B { p += 1 }
        var m: UInt64 = 0
        var digits = 0, exp10 = 0
        var seen = false
        while p < end {
            let d = s[p] &- 0x30
            if d > 9 { break }
            seen = true
            if digits < 19 {
                if m != 0 || d != 0 { m = m &* 10 &+ UInt64(d); digits += 1 }
            } else {
                exp10 += 1
            }
            p += 1
        }
        if p < end, s[p] == 0x2E {
            p += 1
            while p < end {
                let d = s[p] &- 0x30
                if d > 9 { break }
                seen = true
                if digits < 19 {
                    if m != 0 || d != 0 { m = m &* 10 &+ UInt64(d); digits += 1 }
                    exp10 -= 1
                }
                p += 1
            }
        }
        var fast = seen
        if fast, p < end, s[p] | 0x20 == 0x65 {
            p += 1
            var negativeExponent = false
            if p < end, s[p] == 0x2D { negativeExponent = true; p += 1 } else if p < end, s[p] == 0x2B { p += 1 }
            var e = 0
            var exponentDigits = false
            while p < end {
                let d = s[p] &- 0x30
                if d > 9 { break }
                exponentDigits = true
                if e < 100_000 { e = e * 10 + Int(d) }
                p += 1
            }
            fast = exponentDigits
            exp10 += negativeExponent ? -e : e
        }
        if fast, p < end, !endsToken(s[p]) { fast = false }
        if fast {
            if m == 0 {
                i = p
                return negative ? -0.0 : 0.0
            }
            if exp10 >= -22 && exp10 <= 22 {
                var d = Double(m)
                if exp10 < 0 { d /= pow10[-exp10] } else { d *= pow10[exp10] }
                let rest = d.bitPattern & 0x1FFF_FFFF  // the 29 bits a float drops
                if rest &- 0x0FFF_FFF8 > 16 && d <= 3.0e38 {  // not near a midpoint, in range
                    i = p
                    let f = Float(d)
                    return negative ? -f : f
                }
            }
        }
        // Anything else: the whole token, as Swift reads it.
        p = i
        while p < end, !endsToken(s[p]) {
            if s[p] >= 0x80 { return nil }
            p += 1
        }
        guard let v = Float(String(decoding: UnsafeBufferPointer(start: s + i, count: p - i), as: UTF8.self)), v.isFinite else { return nil }
        i = p
        return v
    }

    /// The non-negative integer of the token at `p` (plain digits; anything else goes to
    /// `Int(String)`), moving `p` past it; nil when the token is not an integer, holds a
    /// non-ASCII byte or is negative.
    @inline(__always)
    static func int(_ s: UnsafePointer<UInt8>, _ i: inout Int, _ end: Int) -> Int? {
        var p = i
        var v = 0, digits = 0
        while p < end {
            let d = s[p] &- 0x30
            if d > 9 { break }
            v = v &* 10 &+ Int(d)
            digits += 1
            p += 1
        }
        if digits > 0, digits <= 18, p >= end || endsToken(s[p]) {
            i = p
            return v
        }
        p = i
        while p < end, !endsToken(s[p]) {
            if s[p] >= 0x80 { return nil }
            p += 1
        }
        guard let v = Int(String(decoding: UnsafeBufferPointer(start: s + i, count: p - i), as: UTF8.self)), v >= 0 else { return nil }
        i = p
        return v
    }
}
