// QR Code model 2 (ISO/IEC 18004): versions 1-40, error correction L/M/Q/H, numeric,
// alphanumeric and byte modes, Reed-Solomon over GF(256) with polynomial 0x11D, the eight
// masks chosen by the standard's penalty score, format and version information.

/// A QR error correction level; the raw value is the letter Core Image takes.
enum QRCorrectionLevel: String, CaseIterable, Sendable {
    case L, M, Q, H
    var index: Int {
        switch self {
        case .L: 0;
        case .M: 1;
        case .Q: 2;
        case .H: 3
        }
    }
    /// The two bits the format information carries for this level.
    var formatBits: Int {
        switch self {
        case .L: 1;
        case .M: 0;
        case .Q: 3;
        case .H: 2
        }
    }
}

/// The data encoding mode of a whole message (one segment: the most compact mode that can
/// carry every byte).
enum QRMode: Sendable, Equatable {
    case numeric, alphanumeric, byte

    var indicator: Int {
        switch self {
        case .numeric: 1;
        case .alphanumeric: 2;
        case .byte: 4
        }
    }

    /// Bits of the character count for `version`.
    func countBits(_ version: Int) -> Int {
        let band = version <= 9 ? 0 : version <= 26 ? 1 : 2
        switch self {
        case .numeric: return [10, 12, 14][band]
        case .alphanumeric: return [9, 11, 13][band]
        case .byte: return [8, 16, 16][band]
        }
    }

    static let alphanumericSet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:".utf8)

    static func best(for message: [UInt8]) -> QRMode {
        if message.isEmpty { return .byte }
        if message.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return .numeric }
        if message.allSatisfy({ alphanumericSet.contains($0) }) { return .alphanumeric }
        return .byte
    }

    /// Bits of the data for `n` characters (without header).
    func dataBits(_ n: Int) -> Int {
        switch self {
        case .numeric: return 10 * (n / 3) + [0, 4, 7][n % 3]
        case .alphanumeric: return 11 * (n / 2) + 6 * (n % 2)
        case .byte: return 8 * n
        }
    }
}

/// Why a message cannot become a QR code.
enum QRCodeError: Error, Equatable, CustomStringConvertible {
    case messageTooLong(bytes: Int, level: QRCorrectionLevel)
    var description: String {
        switch self {
        case let .messageTooLong(n, l):
            return "a \(n)-byte message does not fit a version 40 QR code at correction level \(l.rawValue); use level L or a shorter message"
        }
    }
}

/// An encoded QR symbol (without quiet zone).
struct QRCode: Sendable {
    let version: Int
    let level: QRCorrectionLevel
    let mode: QRMode
    let mask: Int
    let matrix: BarcodeMatrix
    /// For each module (row-major), the index of the codeword (in placement order) it
    /// carries a bit of, or -1 for function patterns and remainder bits.
    let codewordOfModule: [Int]

    // ISO/IEC 18004 Table 9, per level (L, M, Q, H), index = version (0 unused).
    static let eccPerBlock: [[Int]] = [
        [0, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        [0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
        [0, 13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30, 28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        [0, 17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28, 30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
    ]
    static let blockCount: [[Int]] = [
        [0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],
        [0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
        [0, 1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20, 23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68],
        [0, 1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25, 25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81],
    ]

    static func size(_ version: Int) -> Int { 17 + 4 * version }

    /// Centres of the alignment patterns along one axis.
    static func alignmentPositions(_ version: Int) -> [Int] {
        if version == 1 { return [] }
        let n = version / 7 + 2
        let step = version == 32 ? 26 : (version * 4 + n * 2 + 1) / (n * 2 - 2) * 2
        var result = [6]
        var pos = size(version) - 7
        var tail: [Int] = []
        while tail.count < n - 1 { tail.insert(pos, at: 0); pos -= step }
        result += tail
        return result
    }

    /// Modules left for codewords (data + correction + remainder bits) in `version`.
    static func rawDataModules(_ version: Int) -> Int {
        var r = (16 * version + 128) * version + 64
        if version >= 2 {
            let n = version / 7 + 2
            r -= (25 * n - 10) * n - 55
            if version >= 7 { r -= 36 }
        }
        return r
    }

    static func dataCodewords(_ version: Int, _ level: QRCorrectionLevel) -> Int {
        rawDataModules(version) / 8 - eccPerBlock[level.index][version] * blockCount[level.index][version]
    }

    /// Encodes `message` in the smallest version that fits at `level`.
    static func encode(_ message: [UInt8], level: QRCorrectionLevel, forceMask: Int? = nil) throws(QRCodeError) -> QRCode {
        let mode = QRMode.best(for: message)
        var version = 0
        for v in 1...40 {
            let bits = 4 + mode.countBits(v) + mode.dataBits(message.count)
            if message.count < 1 << mode.countBits(v), bits <= dataCodewords(v, level) * 8 { version = v; break }
        }
        guard version > 0 else { throw .messageTooLong(bytes: message.count, level: level) }
        let data = dataCodewordBytes(message, mode: mode, version: version, level: level)
        let all = interleave(data, version: version, level: level)
        return place(all, version: version, level: level, mode: mode, forceMask: forceMask)
    }

    /// The data codewords: mode, count, data, terminator, padding to the capacity.
    static func dataCodewordBytes(_ message: [UInt8], mode: QRMode, version: Int, level: QRCorrectionLevel) -> [UInt8] {
        var bits = BitBuffer()
        bits.append(mode.indicator, 4)
        bits.append(message.count, mode.countBits(version))
        switch mode {
        case .numeric:
            var i = 0
            while i < message.count {
                let n = min(3, message.count - i)
                var v = 0
                for k in 0..<n { v = v * 10 + Int(message[i + k] - 0x30) }
                bits.append(v, [0, 4, 7, 10][n])
                i += n
            }
        case .alphanumeric:
            let value = { (c: UInt8) in QRMode.alphanumericSet.firstIndex(of: c)! }
            var i = 0
            while i + 1 < message.count { bits.append(value(message[i]) * 45 + value(message[i + 1]), 11); i += 2 }
            if i < message.count { bits.append(value(message[i]), 6) }
        case .byte:
            for b in message { bits.append(Int(b), 8) }
        }
        let capacity = dataCodewords(version, level) * 8
        bits.append(0, min(4, capacity - bits.count))
        bits.append(0, (8 - bits.count % 8) % 8)
        var pad = true
        while bits.count < capacity { bits.append(pad ? 0xEC : 0x11, 8); pad.toggle() }
        return bits.bytes
    }

    /// Splits data into blocks, appends each block's Reed-Solomon codewords and interleaves.
    static func interleave(_ data: [UInt8], version: Int, level: QRCorrectionLevel) -> [UInt8] {
        let blocks = blockCount[level.index][version], ecLen = eccPerBlock[level.index][version]
        let raw = rawDataModules(version) / 8
        let shortBlocks = blocks - raw % blocks
        let shortData = raw / blocks - ecLen
        let generator = ReedSolomon.generator(degree: ecLen)
        var dataBlocks: [[UInt8]] = [], eccBlocks: [[UInt8]] = []
        var k = 0
        for b in 0..<blocks {
            let n = shortData + (b < shortBlocks ? 0 : 1)
            let block = Array(data[k..<k + n])
            k += n
            dataBlocks.append(block)
            eccBlocks.append(ReedSolomon.remainder(block, generator: generator))
        }
        var out: [UInt8] = []
        out.reserveCapacity(raw)
        for i in 0...shortData { for b in dataBlocks where i < b.count { out.append(b[i]) } }
        for i in 0..<ecLen { for b in eccBlocks { out.append(b[i]) } }
        return out
    }

    /// For each codeword in placement order, the Reed-Solomon block it belongs to.
    static func blockOfCodeword(version: Int, level: QRCorrectionLevel) -> [Int] {
        let blocks = blockCount[level.index][version], ecLen = eccPerBlock[level.index][version]
        let raw = rawDataModules(version) / 8
        let shortBlocks = blocks - raw % blocks, shortData = raw / blocks - ecLen
        var out: [Int] = []
        for i in 0...shortData { for b in 0..<blocks where i < shortData || b >= shortBlocks { out.append(b) } }
        for _ in 0..<ecLen { out += 0..<blocks }
        return out
    }

    /// Draws the function patterns, places the codewords and picks the best mask.
    static func place(_ codewords: [UInt8], version: Int, level: QRCorrectionLevel, mode: QRMode, forceMask: Int?) -> QRCode {
        let n = size(version)
        var m = BarcodeMatrix(width: n, height: n)
        var function = BarcodeMatrix(width: n, height: n)
        func set(_ x: Int, _ y: Int, _ dark: Bool) { m[x, y] = dark; function[x, y] = true }

        for i in 0..<n { set(6, i, i % 2 == 0); set(i, 6, i % 2 == 0) }
        for (cx, cy) in [(3, 3), (n - 4, 3), (3, n - 4)] {
            for dy in -4...4 {
                for dx in -4...4 {
                    let x = cx + dx, y = cy + dy
                    guard x >= 0, x < n, y >= 0, y < n else { continue }
                    let d = max(abs(dx), abs(dy))
                    set(x, y, d != 2 && d != 4)
                }
            }
        }
        let align = alignmentPositions(version)
        for (i, ax) in align.enumerated() {
            for (j, ay) in align.enumerated() {
                let last = align.count - 1
                if (i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0) { continue }
                for dy in -2...2 { for dx in -2...2 { set(ax + dx, ay + dy, max(abs(dx), abs(dy)) != 1) } }
            }
        }
        drawFormat(&m, &function, level: level, mask: 0)  // reserves the format areas
        if version >= 7 {
            let bits = versionBits(version)
            for i in 0..<18 {
                let dark = (bits >> i) & 1 == 1
                let a = n - 11 + i % 3, b = i / 3
                set(a, b, dark)
                set(b, a, dark)
            }
        }

        // Codewords in the two-column zigzag, right to left, skipping the timing column.
        var i = 0
        let total = codewords.count * 8
        var owner = [Int](repeating: -1, count: n * n)
        var right = n - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            let upward = (right + 1) & 2 == 0
            for vert in 0..<n {
                let y = upward ? n - 1 - vert : vert
                for j in 0..<2 {
                    let x = right - j
                    if !function[x, y] && i < total {
                        m[x, y] = (codewords[i >> 3] >> (7 - UInt8(i & 7))) & 1 == 1
                        owner[y * n + x] = i >> 3
                        i += 1
                    }
                }
            }
            right -= 2
        }

        var best = m, bestMask = 0, bestScore = Int.max
        for mask in forceMask.map({ [$0] }) ?? Array(0..<8) {
            var candidate = m
            applyMask(&candidate, function, mask)
            drawFormat(&candidate, &function, level: level, mask: mask)
            let score = penalty(candidate)
            if score < bestScore { best = candidate; bestMask = mask; bestScore = score }
        }
        return QRCode(version: version, level: level, mode: mode, mask: bestMask, matrix: best, codewordOfModule: owner)
    }

    static func maskBit(_ mask: Int, _ x: Int, _ y: Int) -> Bool {
        switch mask {
        case 0: return (x + y) % 2 == 0
        case 1: return y % 2 == 0
        case 2: return x % 3 == 0
        case 3: return (x + y) % 3 == 0
        case 4: return (x / 3 + y / 2) % 2 == 0
        case 5: return x * y % 2 + x * y % 3 == 0
        case 6: return (x * y % 2 + x * y % 3) % 2 == 0
        default: return ((x + y) % 2 + x * y % 3) % 2 == 0
        }
    }

    static func applyMask(_ m: inout BarcodeMatrix, _ function: BarcodeMatrix, _ mask: Int) {
        for y in 0..<m.height { for x in 0..<m.width where !function[x, y] && maskBit(mask, x, y) { m[x, y].toggle() } }
    }

    /// The 15 format bits: level and mask, BCH(15,5) with generator 0x537, XOR 0x5412.
    static func formatBits(_ level: QRCorrectionLevel, _ mask: Int) -> Int {
        let data = level.formatBits << 3 | mask
        var rem = data
        for _ in 0..<10 { rem = (rem << 1) ^ ((rem >> 9) * 0x537) }
        return (data << 10 | rem) ^ 0x5412
    }

    /// The 18 version bits: BCH(18,6) with generator 0x1F25.
    static func versionBits(_ version: Int) -> Int {
        var rem = version
        for _ in 0..<12 { rem = (rem << 1) ^ ((rem >> 11) * 0x1F25) }
        return version << 12 | rem
    }

    static func drawFormat(_ m: inout BarcodeMatrix, _ function: inout BarcodeMatrix, level: QRCorrectionLevel, mask: Int) {
        let bits = formatBits(level, mask), n = m.width
        func set(_ x: Int, _ y: Int, _ i: Int) { m[x, y] = (bits >> i) & 1 == 1; function[x, y] = true }
        for i in 0...5 { set(8, i, i) }
        set(8, 7, 6)
        set(8, 8, 7)
        set(7, 8, 8)
        for i in 9..<15 { set(14 - i, 8, i) }
        for i in 0..<8 { set(n - 1 - i, 8, i) }
        for i in 8..<15 { set(8, n - 15 + i, i) }
        m[8, n - 8] = true  // the dark module
        function[8, n - 8] = true
    }

    /// ISO/IEC 18004 7.8.3: runs, 2x2 blocks, finder-like patterns and dark balance.
    static func penalty(_ m: BarcodeMatrix) -> Int {
        let n = m.width
        var score = 0
        for pass in 0..<2 {
            for a in 0..<n {
                let at = { (b: Int) -> Bool in pass == 0 ? m[b, a] : m[a, b] }
                var run = 1
                for b in 1..<n {
                    if at(b) == at(b - 1) { run += 1 } else { if run >= 5 { score += run - 2 }; run = 1 }
                }
                if run >= 5 { score += run - 2 }
                // 1:1:3:1:1 dark-light-dark-dark-dark-light-dark with four light modules on a side.
                let light = { (b: Int) -> Bool in b < 0 || b >= n || !at(b) }
                for b in 0..<(n - 6) where at(b) && !at(b + 1) && at(b + 2) && at(b + 3) && at(b + 4) && !at(b + 5) && at(b + 6) {
                    if (1...4).allSatisfy({ light(b - $0) }) { score += 40 }
                    if (1...4).allSatisfy({ light(b + 6 + $0) }) { score += 40 }
                }
            }
        }
        for y in 0..<(n - 1) {
            for x in 0..<(n - 1) {
                let c = m[x, y]
                if m[x + 1, y] == c && m[x, y + 1] == c && m[x + 1, y + 1] == c { score += 3 }
            }
        }
        let dark = m.modules.reduce(0) { $0 + ($1 ? 1 : 0) }
        score += 10 * (abs(dark * 100 / (n * n) - 50) / 5)
        return score
    }
}

/// Bits appended most significant first.
struct BitBuffer {
    private(set) var bytes: [UInt8] = []
    private(set) var count = 0
    mutating func append(_ value: Int, _ n: Int) {
        guard n > 0 else { return }
        for i in stride(from: n - 1, through: 0, by: -1) {
            if count % 8 == 0 { bytes.append(0) }
            if (value >> i) & 1 == 1 { bytes[count / 8] |= 0x80 >> UInt8(count % 8) }
            count += 1
        }
    }
}

/// Reed-Solomon error correction over GF(256) with the QR/Data Matrix polynomial 0x11D and
/// generator roots 2^0 ... 2^(n-1).
enum ReedSolomon {
    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        var x = Int(a), y = Int(b), r = 0
        while y != 0 {
            if y & 1 != 0 { r ^= x }
            x <<= 1
            if x & 0x100 != 0 { x ^= 0x11D }
            y >>= 1
        }
        return UInt8(r)
    }

    /// Coefficients of the monic generator polynomial of `degree`, highest power first
    /// (the leading 1 omitted).
    static func generator(degree: Int) -> [UInt8] {
        var g = [UInt8](repeating: 0, count: degree)
        g[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for j in 0..<degree {
                g[j] = multiply(g[j], root)
                if j + 1 < degree { g[j] ^= g[j + 1] }
            }
            root = multiply(root, 2)
        }
        return g
    }

    /// The remainder of `data * x^n` divided by the generator: the n correction codewords.
    static func remainder(_ data: [UInt8], generator g: [UInt8]) -> [UInt8] {
        var r = [UInt8](repeating: 0, count: g.count)
        for b in data {
            let factor = b ^ r[0]
            r.removeFirst()
            r.append(0)
            for i in 0..<g.count { r[i] ^= multiply(g[i], factor) }
        }
        return r
    }
}
