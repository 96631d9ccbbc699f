/// Shell-style patterns for batch inputs and `--include`/`--exclude`: `*` and `?` within one
/// path component, `[abc]`, `[a-z]`, `[!a-z]`, and `**` for any number of folders.
enum Glob {
    static func hasWildcards(_ s: String) -> Bool { s.contains { $0 == "*" || $0 == "?" || $0 == "[" } }

    /// Whether `path` (components separated by `/`) matches `pattern`.
    static func matches(_ pattern: String, path: String) -> Bool {
        let p = pattern.split(separator: "/", omittingEmptySubsequences: true)
        let s = path.split(separator: "/", omittingEmptySubsequences: true)
        return match(p[...], s[...])
    }

    /// A filter pattern: with a `/` it matches the whole relative path, without one the file
    /// name (as in rsync and ripgrep).
    static func filterMatches(_ pattern: String, relativePath: String) -> Bool {
        if pattern.contains("/") { return matches(pattern, path: relativePath) }
        let name = relativePath.split(separator: "/").last.map(String.init) ?? relativePath
        return component(Array(pattern), Array(name))
    }

    private static func match(_ p: ArraySlice<Substring>, _ s: ArraySlice<Substring>) -> Bool {
        guard let first = p.first else { return s.isEmpty }
        if first == "**" {
            let rest = p.dropFirst()
            var tail = s
            while true {
                if match(rest, tail) { return true }
                guard !tail.isEmpty else { return false }
                tail = tail.dropFirst()
            }
        }
        guard let name = s.first, component(Array(first), Array(name)) else { return false }
        return match(p.dropFirst(), s.dropFirst())
    }

    /// One component: `*`, `?` and bracket classes.
    static func component(_ p: [Character], _ s: [Character]) -> Bool {
        var pi = 0, si = 0
        var starP = -1, starS = 0
        while si < s.count {
            if pi < p.count, p[pi] == "*" {
                starP = pi; starS = si; pi += 1
                continue
            }
            if pi < p.count, let (ok, next) = single(p, pi, s[si]), ok {
                pi = next; si += 1
                continue
            }
            if starP >= 0 {
                pi = starP + 1; starS += 1; si = starS
                continue
            }
            return false
        }
        while pi < p.count, p[pi] == "*" { pi += 1 }
        return pi == p.count
    }

    /// Whether the pattern element at `i` matches `c`, and where the next element starts.
    private static func single(_ p: [Character], _ i: Int, _ c: Character) -> (Bool, Int)? {
        switch p[i] {
        case "?": return (true, i + 1)
        case "[":
            var j = i + 1
            var negate = false
            if j < p.count, p[j] == "!" || p[j] == "^" { negate = true; j += 1 }
            var found = false
            var first = true
            while j < p.count, p[j] != "]" || first {
                first = false
                if j + 2 < p.count, p[j + 1] == "-", p[j + 2] != "]" {
                    if p[j] <= c && c <= p[j + 2] { found = true }
                    j += 3
                } else {
                    if p[j] == c { found = true }
                    j += 1
                }
            }
            guard j < p.count else { return (p[i] == c, i + 1) }  // no closing ']': a literal '['
            return (found != negate, j + 1)
        default:
            return (p[i] == c, i + 1)
        }
    }
}
