// Aztec Code (ISO/IEC 24778): compact (1-4 layers) and full-range (4-32 layers) symbols,
// the message as binary-shift runs from Upper mode, bit stuffing, Reed-Solomon check words
// over GF(2^6/2^8/2^10/2^12) and the GF(16) mode message, bullseye, orientation marks and the
// reference grid of full-range symbols.

/// Why a message cannot become an Aztec symbol.
enum AztecError: Error, Equatable, CustomStringConvertible {
    case messageTooLong(bytes: Int)
    case doesNotFit(layers: Int, compact: Bool)
    case emptyMessage
    var description: String {
        switch self {
        case .emptyMessage:
            return "the message is empty; an Aztec symbol carries at least one byte"
        case let .messageTooLong(n):
            return "a \(n)-byte message does not fit the largest Aztec symbol at this correction level; lower inputCorrectionLevel or shorten the message"
        case let .doesNotFit(l, c):
            return "the message does not fit a \(c ? "compact" : "full-range") Aztec symbol of \(l) layers; leave inputLayers unset to choose automatically"
        }
    }
}

/// Arithmetic in GF(2^m) with a primitive polynomial, and Reed-Solomon check words with
/// generator roots alpha^1 ... alpha^n (Aztec's convention).
struct GaloisField: Sendable {
    let size: Int
    let exp: [Int], log: [Int]

    init(bits: Int, primitive: Int) {
        size = 1 << bits
        var e = [Int](repeating: 0, count: 2 * size), l = [Int](repeating: 0, count: size)
        var x = 1
        for i in 0..<(size - 1) {
            e[i] = x
            l[x] = i
            x <<= 1
            if x >= size { x ^= primitive }
        }
        for i in (size - 1)..<(2 * size) { e[i] = e[i - (size - 1)] }
        exp = e
        log = l
    }

    @inline(__always) func multiply(_ a: Int, _ b: Int) -> Int {
        a == 0 || b == 0 ? 0 : exp[log[a] + log[b]]
    }

    /// The `n` check words of `data`.
    func checkWords(_ data: [Int], count n: Int) -> [Int] {
        // g(x) = (x - a^1)(x - a^2)...(x - a^n), coefficients highest power first.
        var g = [1]
        for i in 1...n {
            var next = [Int](repeating: 0, count: g.count + 1)
            for (j, c) in g.enumerated() {
                next[j] ^= c
                next[j + 1] ^= multiply(c, exp[i])
            }
            g = next
        }
        var r = [Int](repeating: 0, count: n)
        for d in data {
            let factor = d ^ r[0]
            r.removeFirst()
            r.append(0)
            for k in 0..<n { r[k] ^= multiply(g[k + 1], factor) }
        }
        return r
    }

    static let gf16 = GaloisField(bits: 4, primitive: 0x13)
    static let gf64 = GaloisField(bits: 6, primitive: 0x43)
    static let gf256 = GaloisField(bits: 8, primitive: 0x12D)
    static let gf1024 = GaloisField(bits: 10, primitive: 0x409)
    static let gf4096 = GaloisField(bits: 12, primitive: 0x1069)
}

struct AztecCode: Sendable {
    let compact: Bool
    let layers: Int
    let dataWords: Int
    let matrix: BarcodeMatrix

    static func wordSize(_ layers: Int) -> Int { layers <= 2 ? 6 : layers <= 8 ? 8 : layers <= 22 ? 10 : 12 }
    static func totalBits(_ layers: Int, compact: Bool) -> Int { ((compact ? 88 : 112) + 16 * layers) * layers }
    static func field(_ wordSize: Int) -> GaloisField {
        switch wordSize {
        case 6: .gf64;
        case 8: .gf256;
        case 10: .gf1024;
        default: .gf4096
        }
    }

    /// The message as bits: from Upper mode, binary shift (B/S) runs of up to 2078 bytes.
    static func highLevelBits(_ message: [UInt8]) -> [Bool] {
        var bits: [Bool] = []
        func put(_ v: Int, _ n: Int) { for i in stride(from: n - 1, through: 0, by: -1) { bits.append((v >> i) & 1 == 1) } }
        var i = 0
        while i < message.count {
            let run = min(2078, message.count - i)
            put(31, 5)  // B/S from Upper
            if run <= 31 { put(run, 5) } else { put(0, 5); put(run - 31, 11) }
            for b in message[i..<i + run] { put(Int(b), 8) }
            i += run
        }
        return bits
    }

    /// Words of `b` bits with Aztec bit stuffing (no word all zeros or all ones), the last
    /// padded with ones.
    static func stuff(_ bits: [Bool], wordSize b: Int) -> [Int] {
        var words: [Int] = []
        let n = bits.count
        let top = (1 << (b - 1)) - 1
        var i = 0
        while i < n {
            var w = 0
            for j in 0..<b { w = w << 1 | (i + j >= n || bits[i + j] ? 1 : 0) }
            if w >> 1 == top { words.append(w & ~1); i += b - 1 } else if w >> 1 == 0 { words.append(1); i += b - 1 } else { words.append(w); i += b }
        }
        return words
    }

    /// Encodes `message`: the smallest symbol whose check words are at least `level`
    /// percent of its codewords plus three, or the given layers and style.
    static func encode(_ message: [UInt8], level: Int, layers forcedLayers: Int? = nil, compact forcedCompact: Bool? = nil) throws(AztecError) -> AztecCode {
        guard !message.isEmpty else { throw .emptyMessage }
        let bits = highLevelBits(message)
        var candidates: [(Bool, Int)] = (1...4).map { (true, $0) } + (4...32).map { (false, $0) }
        if let c = forcedCompact { candidates = candidates.filter { $0.0 == c } }
        if let l = forcedLayers {
            let compact = forcedCompact ?? (l <= 4)
            candidates = [(compact, l)]
            if compact && l > 4 { throw .doesNotFit(layers: l, compact: true) }
        }
        for (compact, layers) in candidates {
            let b = wordSize(layers)
            let total = totalBits(layers, compact: compact) / b
            let data = stuff(bits, wordSize: b)
            let check = (total * level + 99) / 100 + 3
            guard data.count + check <= total, data.count <= (compact ? 64 : 2048) else { continue }
            return AztecCode(
                compact: compact, layers: layers, dataWords: data.count,
                matrix: draw(data, compact: compact, layers: layers, wordSize: b))
        }
        if let l = forcedLayers { throw .doesNotFit(layers: l, compact: forcedCompact ?? (l <= 4)) }
        throw .messageTooLong(bytes: message.count)
    }

    /// The 28 (compact) or 40 (full) mode message bits: layers and data words, with GF(16)
    /// check words.
    static func modeMessage(compact: Bool, layers: Int, dataWords: Int) -> [Bool] {
        let value = compact ? (layers - 1) << 6 | (dataWords - 1) : (layers - 1) << 11 | (dataWords - 1)
        let n = compact ? 2 : 4
        let words = (0..<n).map { (value >> (4 * (n - 1 - $0))) & 0xF }
        let all = words + GaloisField.gf16.checkWords(words, count: compact ? 5 : 6)
        return all.flatMap { w in (0..<4).map { (w >> (3 - $0)) & 1 == 1 } }
    }

    static func draw(_ data: [Int], compact: Bool, layers: Int, wordSize b: Int) -> BarcodeMatrix {
        let totalBits = totalBits(layers, compact: compact)
        let total = totalBits / b
        let words = data + field(b).checkWords(data, count: total - data.count)
        var bits = [Bool](repeating: false, count: totalBits % b)
        for w in words { for i in stride(from: b - 1, through: 0, by: -1) { bits.append((w >> i) & 1 == 1) } }

        // Base coordinates ignore the reference grid; `map` places them around it.
        let base = (compact ? 11 : 14) + 4 * layers
        let size = compact ? base : base + 1 + 2 * ((base / 2 - 1) / 15)
        let c = size / 2
        var map = [Int](repeating: 0, count: base)
        if compact {
            for i in 0..<base { map[i] = i }
        } else {
            let half = base / 2
            for i in 0..<half {
                let o = i + i / 15
                map[half - i - 1] = c - o - 1
                map[half + i] = c + o + 1
            }
        }
        var m = BarcodeMatrix(width: size, height: size)

        // Layers spiral inwards from the outermost, each two modules deep: down the left,
        // along the bottom, up the right, back along the top.
        var offset = 0
        for i in 0..<layers {
            let side = (layers - i) * 4 + (compact ? 9 : 12)
            for j in 0..<side {
                for k in 0..<2 {
                    let near = 2 * i, far = base - 1 - 2 * i
                    if bits[offset + 2 * j + k] { m[map[near + k], map[near + j]] = true }
                    if bits[offset + 2 * side + 2 * j + k] { m[map[near + j], map[far - k]] = true }
                    if bits[offset + 4 * side + 2 * j + k] { m[map[far - k], map[far - j]] = true }
                    if bits[offset + 6 * side + 2 * j + k] { m[map[far - j], map[near + k]] = true }
                }
            }
            offset += 8 * side
        }

        // Mode message around the bullseye, clockwise from the top-left.
        let mode = modeMessage(compact: compact, layers: layers, dataWords: data.count)
        let r = compact ? 5 : 7
        let perSide = compact ? 7 : 10
        for i in 0..<perSide {
            let o = compact ? c - 3 + i : c - 5 + i + i / 5
            if mode[i] { m[o, c - r] = true }
            if mode[i + perSide] { m[c + r, o] = true }
            if mode[3 * perSide - 1 - i] { m[o, c + r] = true }
            if mode[4 * perSide - 1 - i] { m[c - r, o] = true }
        }

        // Bullseye: dark squares at even distances from the centre.
        for y in (c - r + 1)...(c + r - 1) {
            for x in (c - r + 1)...(c + r - 1) {
                m[x, y] = max(abs(x - c), abs(y - c)) % 2 == 0
            }
        }
        // Orientation marks: three modules top-left, two top-right, one bottom-right.
        for (x, y) in [(c - r, c - r), (c - r + 1, c - r), (c - r, c - r + 1), (c + r, c - r), (c + r, c - r + 1), (c + r, c + r - 1)] {
            m[x, y] = true
        }
        // Reference grid (full range): every 16th row and column from the centre, alternating.
        if !compact {
            var j = 0
            while j <= c {
                for k in stride(from: c & 1, to: size, by: 2) {
                    for line in [c - j, c + j] where line >= 0 && line < size {
                        m[line, k] = true
                        m[k, line] = true
                    }
                }
                j += 16
            }
        }
        return m
    }
}
