// Code 128 (ISO/IEC 15417): code sets A, B and C with the fewest symbols (a shortest path
// over the three sets, switching with CODE A/B/C), the modulo-103 check symbol and the stop
// pattern with its final bar.

/// Why a message cannot become a Code 128 barcode.
enum Code128Error: Error, Equatable, CustomStringConvertible {
    case notASCII(byte: UInt8, offset: Int)
    var description: String {
        switch self {
        case let .notASCII(b, i):
            return "byte \(b) at offset \(i) is not ASCII; Code 128 carries bytes 0-127 only"
        }
    }
}

enum Code128 {
    /// Bar and space widths (bar first) of symbol values 0-105, then the stop pattern.
    static let patterns: [String] = [
        "212222", "222122", "222221", "121223", "121322", "131222", "122213", "122312", "132212", "221213",
        "221312", "231212", "112232", "122132", "122231", "113222", "123122", "123221", "223211", "221132",
        "221231", "213212", "223112", "312131", "311222", "321122", "321221", "312212", "322112", "322211",
        "212123", "212321", "232121", "111323", "131123", "131321", "112313", "132113", "132311", "211313",
        "231113", "231311", "112133", "112331", "132131", "113123", "113321", "133121", "313121", "211331",
        "231131", "213113", "213311", "213131", "311123", "311321", "331121", "312113", "312311", "332111",
        "314111", "221411", "431111", "111224", "111422", "121124", "121421", "141122", "141221", "112214",
        "112412", "122114", "122411", "142112", "142211", "241211", "221114", "413111", "241112", "134111",
        "111242", "121142", "121241", "114212", "124112", "124211", "411212", "421112", "421211", "212141",
        "214121", "412121", "111143", "111341", "131141", "114113", "114311", "411113", "411311", "113141",
        "114131", "311141", "411131", "211412", "211214", "211232", "2331112",
    ]
    static let stop = 106

    enum CodeSet: Int, CaseIterable {
        case a, b, c
        var start: Int { 103 + rawValue }
        /// The value that switches to this set from another.
        var switchCode: Int { [101, 100, 99][rawValue] }
    }

    /// The symbol value of `c` in set A or B, nil when the set lacks it.
    static func value(_ c: UInt8, in set: CodeSet) -> Int? {
        switch set {
        case .a: return c < 32 ? Int(c) + 64 : c < 96 ? Int(c) - 32 : nil
        case .b: return c >= 32 && c < 128 ? Int(c) - 32 : nil
        case .c: return nil
        }
    }

    /// Symbol values from the start code to the check symbol (stop not included).
    static func symbols(_ message: [UInt8]) throws(Code128Error) -> [Int] {
        if let i = message.firstIndex(where: { $0 > 127 }) { throw .notASCII(byte: message[i], offset: i) }
        let n = message.count
        func isDigit(_ i: Int) -> Bool { i < n && message[i] >= 0x30 && message[i] <= 0x39 }
        // Characters consumed by one symbol of `set` at `i`, nil when it cannot encode there.
        func step(_ i: Int, _ set: CodeSet) -> Int? {
            switch set {
            case .c: return isDigit(i) && isDigit(i + 1) ? 2 : nil
            default: return value(message[i], in: set) != nil ? 1 : nil
            }
        }
        // cost[i][s]: fewest symbols for message[i...] when set s is current.
        let inf = Int.max / 4
        var cost = [[Int]](repeating: [0, 0, 0], count: n + 1)
        var choice = [[Int]](repeating: [0, 0, 0], count: n + 1)
        // Ties keep the current set, else prefer B, then C, then A.
        let preference: [CodeSet] = [.b, .c, .a]
        for i in stride(from: n - 1, through: 0, by: -1) {
            for s in CodeSet.allCases {
                var best = inf, pick = s.rawValue
                for t in [s] + preference {
                    guard let k = step(i, t) else { continue }
                    let c = (t == s ? 0 : 1) + 1 + cost[i + k][t.rawValue]
                    if c < best { best = c; pick = t.rawValue }
                }
                cost[i][s.rawValue] = best
                choice[i][s.rawValue] = pick
            }
        }
        // The start code picks the first set; starting in a set costs no switch.
        var set = CodeSet.b
        if n > 0 {
            var best = inf
            for t in preference {
                guard let k = step(0, t) else { continue }
                let c = 1 + cost[k][t.rawValue]
                if c < best { best = c; set = t }
            }
        }
        var out = [set.start]
        var i = 0
        while i < n {
            let t = i == 0 ? set : CodeSet(rawValue: choice[i][set.rawValue])!
            if t != set { out.append(t.switchCode); set = t }
            if set == .c {
                out.append(Int(message[i] - 0x30) * 10 + Int(message[i + 1] - 0x30))
                i += 2
            } else {
                out.append(value(message[i], in: set)!)
                i += 1
            }
        }
        out.append(checksum(out))
        return out
    }

    /// Start value plus each following value times its position, modulo 103.
    static func checksum(_ values: [Int]) -> Int {
        var sum = values.first ?? 0
        for (k, v) in values.enumerated().dropFirst() { sum += k * v }
        return sum % 103
    }

    /// Module widths: dark (`true`) or light for each module, left to right.
    static func modules(_ symbols: [Int]) -> [Bool] {
        var out: [Bool] = []
        for s in symbols + [stop] {
            for (k, w) in patterns[s].enumerated() {
                out += [Bool](repeating: k % 2 == 0, count: Int(String(w))!)
            }
        }
        return out
    }

    /// The barcode `height` modules tall with `quiet` light modules left and right.
    static func matrix(_ message: [UInt8], quiet: Int, height: Int) throws(Code128Error) -> BarcodeMatrix {
        let bars = modules(try symbols(message))
        var m = BarcodeMatrix(width: bars.count + 2 * quiet, height: height)
        for y in 0..<height { for (x, dark) in bars.enumerated() where dark { m[x + quiet, y] = true } }
        return m
    }
}
