/// "Did you mean": the known names within a small edit distance of what was typed.
package enum Suggest {
    /// Optimal-string-alignment distance (insertions, deletions, substitutions and swaps of
    /// neighbours), ignoring case.
    package static func distance(_ a: String, _ b: String) -> Int {
        let s = Array(a.lowercased()), t = Array(b.lowercased())
        if s.isEmpty { return t.count }
        if t.isEmpty { return s.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: t.count + 1), count: s.count + 1)
        for i in 0...s.count { d[i][0] = i }
        for j in 0...t.count { d[0][j] = j }
        for i in 1...s.count {
            for j in 1...t.count {
                let cost = s[i - 1] == t[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, s[i - 1] == t[j - 2], s[i - 2] == t[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[s.count][t.count]
    }

    /// The candidates closest to `word` (up to three), if any is within 1 edit for words of
    /// up to 4 letters, 2 up to 8, 3 beyond.
    package static func nearest(_ word: String, in candidates: [String]) -> [String] {
        let limit = word.count <= 4 ? 1 : word.count <= 8 ? 2 : 3
        var best = limit + 1
        var out: [String] = []
        for c in candidates {
            let d = distance(word, c)
            if d < best { best = d; out = [c] } else if d == best, !out.contains(c) { out.append(c) }
        }
        return best <= limit ? Array(out.prefix(3)) : []
    }

    /// "; did you mean 'x'?" (or "'x' or 'y'"), or "" when nothing is close.
    package static func hint(_ word: String, in candidates: [String]) -> String {
        let near = nearest(word, in: candidates)
        guard !near.isEmpty else { return "" }
        return "; did you mean " + near.map { "'\($0)'" }.joined(separator: " or ") + "?"
    }
}
