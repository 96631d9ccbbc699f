// The tokens and syntax tree shared by the two kernel-language front ends (Core Image Kernel
// Language and Core Image's Metal subset). Both parsers produce the same tree, which
// KernelCompiler type-checks and lowers to the span IR.

/// A position in kernel source text (1-based line and column), for error messages.
struct SourceLocation: Sendable, Equatable, CustomStringConvertible {
    var line: Int
    var column: Int
    var description: String { "line \(line), column \(column)" }
}

/// Why kernel source text was refused, with where.
struct KernelSourceError: Error, CustomStringConvertible {
    let message: String
    let location: SourceLocation
    var description: String { "\(location): \(message)" }
}

enum TokenKind: Equatable {
    case identifier(String)
    case number(Double, isInteger: Bool)
    case punct(String)
    case string(String)
    case end
}

struct Token {
    let kind: TokenKind
    let location: SourceLocation
}

/// Splits kernel source into tokens. Comments and preprocessor lines (`#include`, `#define` is
/// refused later by the parser only if its names are used) are skipped.
struct KernelLexer {
    private static let puncts3: Set<String> = ["<<=", ">>="]
    private static let puncts2: Set<String> = [
        "+=", "-=", "*=", "/=", "==", "!=", "<=", ">=", "&&", "||", "++", "--", "::", "[[", "]]", "<<", ">>",
    ]
    private static let puncts1: Set<Character> = [
        "+", "-", "*", "/", "%", "=", "<", ">", "!", "?", ":", ";", ",", ".", "(", ")", "{", "}", "[", "]", "&", "|", "^", "~",
    ]

    static func tokenize(_ source: String) throws -> [Token] {
        let chars = Array(source.unicodeScalars)
        var tokens: [Token] = []
        var i = 0, line = 1, col = 1
        var atLineStart = true
        func advance(_ n: Int = 1) {
            for _ in 0..<n where i < chars.count {
                if chars[i] == "\n" { line += 1; col = 1; atLineStart = true } else { col += 1 }
                i += 1
            }
        }
        while i < chars.count {
            let c = chars[i]
            if c == "\n" || c == " " || c == "\t" || c == "\r" || c == "\u{0C}" || c == "\u{0B}" {
                advance(); continue
            }
            let next: Unicode.Scalar? = i + 1 < chars.count ? chars[i + 1] : nil
            if c == "/" && next == "/" {
                while i < chars.count && chars[i] != "\n" { advance() }
                continue
            }
            if c == "/" && next == "*" {
                let start = SourceLocation(line: line, column: col)
                advance(2)
                while i < chars.count && !(chars[i] == "*" && i + 1 < chars.count && chars[i + 1] == "/") { advance() }
                guard i < chars.count else { throw KernelSourceError(message: "unterminated comment", location: start) }
                advance(2)
                continue
            }
            if c == "#" && atLineStart {
                // Preprocessor line (with backslash continuations): skipped.
                while i < chars.count && chars[i] != "\n" {
                    if chars[i] == "\\" && i + 1 < chars.count && chars[i + 1] == "\n" { advance() }
                    advance()
                }
                continue
            }
            atLineStart = false
            let loc = SourceLocation(line: line, column: col)
            if c.properties.isAlphabetic || c == "_" {
                var s = ""
                while i < chars.count && (chars[i].properties.isAlphabetic || chars[i] == "_" || ("0"..."9").contains(chars[i])) {
                    s.unicodeScalars.append(chars[i]); advance()
                }
                tokens.append(Token(kind: .identifier(s), location: loc))
                continue
            }
            if ("0"..."9").contains(c) || (c == "." && next.map { ("0"..."9").contains($0) } == true) {
                var s = ""
                var isInteger = true
                while i < chars.count && (("0"..."9").contains(chars[i]) || chars[i] == ".") {
                    if chars[i] == "." { isInteger = false }
                    s.unicodeScalars.append(chars[i]); advance()
                }
                if i < chars.count && (chars[i] == "e" || chars[i] == "E") {
                    isInteger = false
                    s.unicodeScalars.append(chars[i]); advance()
                    if i < chars.count && (chars[i] == "+" || chars[i] == "-") { s.unicodeScalars.append(chars[i]); advance() }
                    while i < chars.count && ("0"..."9").contains(chars[i]) { s.unicodeScalars.append(chars[i]); advance() }
                }
                while i < chars.count && ["f", "F", "h", "H", "u", "U"].contains(chars[i]) {
                    if chars[i] != "u" && chars[i] != "U" { isInteger = false }
                    advance()
                }
                guard let v = Double(s), v.isFinite else { throw KernelSourceError(message: "malformed number '\(s)'", location: loc) }
                tokens.append(Token(kind: .number(v, isInteger: isInteger), location: loc))
                continue
            }
            if c == "\"" {
                var s = ""
                advance()
                while i < chars.count && chars[i] != "\"" && chars[i] != "\n" { s.unicodeScalars.append(chars[i]); advance() }
                guard i < chars.count, chars[i] == "\"" else { throw KernelSourceError(message: "unterminated string", location: loc) }
                advance()
                tokens.append(Token(kind: .string(s), location: loc))
                continue
            }
            if i + 2 < chars.count {
                let s3 = String(String.UnicodeScalarView(chars[i..<i + 3]))
                if puncts3.contains(s3) { tokens.append(Token(kind: .punct(s3), location: loc)); advance(3); continue }
            }
            if let n = next {
                let s2 = String(String.UnicodeScalarView([c, n]))
                if puncts2.contains(s2) { tokens.append(Token(kind: .punct(s2), location: loc)); advance(2); continue }
            }
            if puncts1.contains(Character(c)) { tokens.append(Token(kind: .punct(String(Character(c))), location: loc)); advance(); continue }
            throw KernelSourceError(message: "unexpected character '\(Character(c))'", location: loc)
        }
        tokens.append(Token(kind: .end, location: SourceLocation(line: line, column: col)))
        return tokens
    }
}

/// A type name as written, before checking (`vec4`, `float3`, `sampler`, ...), with its qualifiers.
struct TypeName: Equatable {
    var name: String
    var loc: SourceLocation
}

indirect enum Expr {
    case number(Double, isInteger: Bool, SourceLocation)
    case name(String, SourceLocation)
    case call(String, [Expr], SourceLocation)
    /// `receiver.method(args)` (Metal's sampler and destination methods).
    case method(Expr, String, [Expr], SourceLocation)
    case member(Expr, String, SourceLocation)
    case index(Expr, Expr, SourceLocation)
    case unary(String, Expr, SourceLocation)
    case binary(String, Expr, Expr, SourceLocation)
    case ternary(Expr, Expr, Expr, SourceLocation)
    /// `target op value` for `=`, `+=`, ...; `++`/`--` are `+= 1` / `-= 1` (prefix: the new
    /// value; postfix: the old one).
    case assign(String, Expr, Expr, SourceLocation)
    case postfix(String, Expr, SourceLocation)

    var location: SourceLocation {
        switch self {
        case .number(_, _, let l), .name(_, let l), .call(_, _, let l), .method(_, _, _, let l), .member(_, _, let l),
            .index(_, _, let l), .unary(_, _, let l), .binary(_, _, _, let l), .ternary(_, _, _, let l),
            .assign(_, _, _, let l), .postfix(_, _, let l):
            return l
        }
    }
}

indirect enum Stmt {
    case declare(TypeName, [(name: String, arraySize: Expr?, value: Expr?, loc: SourceLocation)])
    case expression(Expr)
    case block([Stmt])
    case ifElse(Expr, Stmt, Stmt?, SourceLocation)
    case forLoop(init: Stmt?, condition: Expr?, step: Expr?, body: Stmt, SourceLocation)
    case whileLoop(Expr, Stmt, SourceLocation)
    case returnValue(Expr?, SourceLocation)
    case breakLoop(SourceLocation)
    case continueLoop(SourceLocation)
    case empty
}

struct Parameter {
    var type: TypeName
    var name: String
    /// `__table` (a lookup-table sampler: no transform) or `__color` style qualifiers as written.
    var qualifiers: [String]
    var loc: SourceLocation
}

struct FunctionDecl {
    var returnType: TypeName
    var name: String
    var parameters: [Parameter]
    var body: [Stmt]
    /// A kernel (`kernel` in CIKL, `[[stitchable]]` in Metal) rather than a helper.
    var isKernel: Bool
    var loc: SourceLocation
}
