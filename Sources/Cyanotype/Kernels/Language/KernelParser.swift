// The two front ends: a recursive-descent parser for the Core Image Kernel Language (GLSL ES
// based) and for Core Image's Metal subset (`[[stitchable]]` functions over `coreimage::`
// types inside `extern "C" { namespace coreimage { ... } }`). Both give the same tree.

/// Which kernel language a source string is written in.
enum KernelDialect: Sendable {
    /// Core Image Kernel Language: `kernel vec4 f(__sample s) { ... }`.
    case ciKernelLanguage
    /// Core Image's Metal subset: `[[stitchable]] float4 f(coreimage::sample_t s) { ... }`.
    case metal
}

struct KernelParser {
    private let tokens: [Token]
    private var pos = 0
    private let dialect: KernelDialect
    /// How deeply expressions and statements nest; past `maxDepth` the source is refused
    /// (a typed error instead of running out of stack).
    private var depth = 0
    private static let maxDepth = 96
    /// Type names both front ends accept (Metal's are mapped by the compiler).
    static let typeNames: Set<String> = [
        "void", "float", "int", "bool", "vec2", "vec3", "vec4", "mat2", "mat3", "mat4", "ivec2", "ivec3", "ivec4",
        "bvec2", "bvec3", "bvec4", "sampler", "__sample", "__color", "sample_t", "destination", "float2", "float3",
        "float4", "half", "half2", "half3", "half4", "float2x2", "float3x3", "float4x4", "half2x2", "half3x3",
        "half4x4", "int2", "int3", "int4", "uint", "short", "bool2", "bool3", "bool4", "sampler_h", "uint2",
    ]
    private static let skippedQualifiers: Set<String> = [
        "const", "in", "highp", "mediump", "lowp", "inline", "static", "constexpr", "thread", "constant", "device",
        "__attribute__",
    ]

    init(tokens: [Token], dialect: KernelDialect) {
        self.tokens = tokens
        self.dialect = dialect
    }

    static func parse(_ source: String, dialect: KernelDialect) throws -> [FunctionDecl] {
        var p = KernelParser(tokens: try KernelLexer.tokenize(source), dialect: dialect)
        return try p.parseTranslationUnit()
    }

    // MARK: Tokens

    private var current: Token { tokens[pos] }
    private var peekKind: TokenKind { tokens[min(pos + 1, tokens.count - 1)].kind }
    private mutating func next() -> Token {
        let t = tokens[pos]
        if pos < tokens.count - 1 { pos += 1 }
        return t
    }
    private func isPunct(_ s: String) -> Bool { current.kind == .punct(s) }
    private func isIdent(_ s: String) -> Bool { current.kind == .identifier(s) }
    private mutating func accept(_ s: String) -> Bool {
        if isPunct(s) || isIdent(s) { pos += 1; return true }
        return false
    }
    private func error(_ message: String, at t: Token? = nil) -> KernelSourceError {
        let tok = t ?? current
        let found: String
        switch tok.kind {
        case .identifier(let s): found = "'\(s)'"
        case .number(let v, _): found = "'\(v)'"
        case .punct(let s): found = "'\(s)'"
        case .string(let s): found = "\"\(s)\""
        case .end: found = "end of source"
        }
        return KernelSourceError(message: "\(message), found \(found)", location: tok.location)
    }
    private mutating func expect(_ s: String) throws {
        guard accept(s) else { throw error("expected '\(s)'") }
    }
    private mutating func identifier(_ what: String) throws -> (String, SourceLocation) {
        guard case .identifier(let s) = current.kind else { throw error("expected \(what)") }
        let loc = current.location
        pos += 1
        return (s, loc)
    }

    // MARK: Top level

    private mutating func parseTranslationUnit() throws -> [FunctionDecl] {
        var functions: [FunctionDecl] = []
        var openScopes = 0
        while current.kind != .end {
            if accept(";") { continue }
            if dialect == .metal {
                if isIdent("extern") {
                    pos += 1
                    if case .string = current.kind { pos += 1 }
                    try expect("{"); openScopes += 1; continue
                }
                if isIdent("namespace") {
                    pos += 1
                    _ = try identifier("a namespace name")
                    try expect("{"); openScopes += 1; continue
                }
                if isIdent("using") {
                    while !isPunct(";") && current.kind != .end { pos += 1 }
                    try expect(";"); continue
                }
                if isPunct("}") && openScopes > 0 { pos += 1; openScopes -= 1; continue }
            }
            functions.append(try parseFunction())
        }
        if openScopes > 0 { throw error("expected '}' closing a namespace or extern block") }
        return functions
    }

    private mutating func skipAttributes() throws -> [String] {
        var names: [String] = []
        while accept("[[") {
            while !isPunct("]]") {
                guard current.kind != .end else { throw error("expected ']]'") }
                if case .identifier(let s) = current.kind { names.append(s) }
                pos += 1
            }
            pos += 1
        }
        return names
    }

    private mutating func parseFunction() throws -> FunctionDecl {
        var isKernel = false
        var loc = current.location
        var attributes = try skipAttributes()
        while case .identifier(let s) = current.kind, s == "kernel" || KernelParser.skippedQualifiers.contains(s) {
            if s == "kernel" {
                guard dialect == .ciKernelLanguage else { throw error("'kernel' functions are Core Image Kernel Language; Metal kernels are marked [[stitchable]]") }
                isKernel = true
            }
            pos += 1
            attributes += try skipAttributes()
        }
        loc = current.location
        let returnType = try parseType()
        attributes += try skipAttributes()
        let (name, _) = try identifier("a function name")
        try expect("(")
        var params: [Parameter] = []
        if !isPunct(")") {
            if isIdent("void") && peekKind == .punct(")") { pos += 1 }
            while !isPunct(")") {
                var qualifiers: [String] = []
                while case .identifier(let s) = current.kind,
                    KernelParser.skippedQualifiers.contains(s) || s == "__table" || s == "out" || s == "inout"
                {
                    if s == "out" || s == "inout" { throw error("'\(s)' parameters are not supported") }
                    qualifiers.append(s); pos += 1
                }
                let ptLoc = current.location
                let type = try parseType()
                if accept("&") {}
                let (pname, _) = try identifier("a parameter name")
                params.append(Parameter(type: type, name: pname, qualifiers: qualifiers, loc: ptLoc))
                _ = try skipAttributes()
                if !accept(",") { break }
            }
        }
        try expect(")")
        attributes += try skipAttributes()
        if attributes.contains("stitchable") { isKernel = true }
        guard isPunct("{") else { throw error("expected '{' starting the body of '\(name)'") }
        let body = try parseBlock()
        return FunctionDecl(returnType: returnType, name: name, parameters: params, body: body, isKernel: isKernel, loc: loc)
    }

    /// A type name, with Metal's `coreimage::` / `metal::` namespaces removed.
    private mutating func parseType() throws -> TypeName {
        let loc = current.location
        var (name, _) = try identifier("a type name")
        while accept("::") { (name, _) = try identifier("a type name") }
        guard KernelParser.typeNames.contains(name) else {
            throw KernelSourceError(message: "unknown type '\(name)'", location: loc)
        }
        return TypeName(name: name, loc: loc)
    }

    private func startsDeclaration() -> Bool {
        guard case .identifier(let s) = current.kind else { return false }
        if s == "const" || s == "constexpr" || s == "highp" || s == "mediump" || s == "lowp" { return true }
        if s == "coreimage" || s == "metal" { return peekKind == .punct("::") && isTypeAfterNamespace() }
        guard KernelParser.typeNames.contains(s) else { return false }
        if case .identifier = peekKind { return true }
        return false
    }
    private func isTypeAfterNamespace() -> Bool {
        var p = pos
        while p + 2 < tokens.count, case .identifier = tokens[p].kind, tokens[p + 1].kind == .punct("::") { p += 2 }
        guard case .identifier(let s) = tokens[p].kind, KernelParser.typeNames.contains(s) else { return false }
        if case .identifier = tokens[p + 1].kind { return true }
        return false
    }

    // MARK: Statements

    private mutating func parseBlock() throws -> [Stmt] {
        try expect("{")
        var stmts: [Stmt] = []
        while !isPunct("}") {
            guard current.kind != .end else { throw error("expected '}'") }
            stmts.append(try parseStatement())
        }
        pos += 1
        return stmts
    }

    private mutating func parseStatement() throws -> Stmt {
        try nest()
        defer { depth -= 1 }
        let loc = current.location
        if isPunct("{") { return .block(try parseBlock()) }
        if accept(";") { return .empty }
        if isIdent("if") {
            pos += 1
            try expect("(")
            let cond = try parseExpression()
            try expect(")")
            let then = try parseStatement()
            var otherwise: Stmt?
            if accept("else") { otherwise = try parseStatement() }
            return .ifElse(cond, then, otherwise, loc)
        }
        if isIdent("for") {
            pos += 1
            try expect("(")
            var initial: Stmt?
            if !accept(";") {
                initial = startsDeclaration() ? try parseDeclaration() : .expression(try parseExpression())
                try expect(";")
            }
            let cond = isPunct(";") ? nil : try parseExpression()
            try expect(";")
            let step = isPunct(")") ? nil : try parseExpression()
            try expect(")")
            let body = try parseStatement()
            return .forLoop(init: initial, condition: cond, step: step, body: body, loc)
        }
        if isIdent("while") {
            pos += 1
            try expect("(")
            let cond = try parseExpression()
            try expect(")")
            return .whileLoop(cond, try parseStatement(), loc)
        }
        if isIdent("return") {
            pos += 1
            let value = isPunct(";") ? nil : try parseExpression()
            try expect(";")
            return .returnValue(value, loc)
        }
        if isIdent("break") { pos += 1; try expect(";"); return .breakLoop(loc) }
        if isIdent("continue") { pos += 1; try expect(";"); return .continueLoop(loc) }
        if isIdent("do") || isIdent("switch") || isIdent("discard") || isIdent("goto") {
            throw error("this statement is not supported in kernels")
        }
        if startsDeclaration() {
            let d = try parseDeclaration()
            try expect(";")
            return d
        }
        let e = try parseExpression()
        try expect(";")
        return .expression(e)
    }

    private mutating func parseDeclaration() throws -> Stmt {
        while case .identifier(let s) = current.kind, KernelParser.skippedQualifiers.contains(s) { pos += 1 }
        let type = try parseType()
        var vars: [(name: String, arraySize: Expr?, value: Expr?, loc: SourceLocation)] = []
        repeat {
            let (name, loc) = try identifier("a variable name")
            var size: Expr?
            if accept("[") {
                size = try parseExpression()
                try expect("]")
            }
            var value: Expr?
            if accept("=") { value = try parseAssignment() }
            vars.append((name, size, value, loc))
        } while accept(",")
        return .declare(type, vars)
    }

    // MARK: Expressions

    private mutating func parseExpression() throws -> Expr {
        var e = try parseAssignment()
        while isPunct(",") {
            // The comma operator: only in `for` steps in practice; keep the last value.
            let loc = current.location
            pos += 1
            let r = try parseAssignment()
            e = .binary(",", e, r, loc)
        }
        return e
    }

    private mutating func nest() throws {
        depth += 1
        guard depth <= KernelParser.maxDepth else { throw error("expressions or blocks nest too deeply") }
    }

    private mutating func parseAssignment() throws -> Expr {
        try nest()
        defer { depth -= 1 }
        let lhs = try parseTernary()
        for op in ["=", "+=", "-=", "*=", "/="] where isPunct(op) {
            let loc = current.location
            pos += 1
            let rhs = try parseAssignment()
            return .assign(op, lhs, rhs, loc)
        }
        return lhs
    }

    private mutating func parseTernary() throws -> Expr {
        let cond = try parseBinary(0)
        guard isPunct("?") else { return cond }
        let loc = current.location
        pos += 1
        let a = try parseAssignment()
        try expect(":")
        let b = try parseAssignment()
        return .ternary(cond, a, b, loc)
    }

    private static let levels: [[String]] = [
        ["||"], ["^^"], ["&&"], ["|"], ["^"], ["&"], ["==", "!="], ["<", ">", "<=", ">="], ["<<", ">>"], ["+", "-"],
        ["*", "/", "%"],
    ]

    private mutating func parseBinary(_ level: Int) throws -> Expr {
        if level == KernelParser.levels.count { return try parseUnary() }
        var lhs = try parseBinary(level + 1)
        while case .punct(let p) = current.kind, KernelParser.levels[level].contains(p) {
            let loc = current.location
            pos += 1
            let rhs = try parseBinary(level + 1)
            lhs = .binary(p, lhs, rhs, loc)
        }
        return lhs
    }

    private mutating func parseUnary() throws -> Expr {
        try nest()
        defer { depth -= 1 }
        let loc = current.location
        if case .punct(let p) = current.kind, ["-", "+", "!", "~"].contains(p) {
            pos += 1
            return .unary(p, try parseUnary(), loc)
        }
        if case .punct(let p) = current.kind, p == "++" || p == "--" {
            pos += 1
            let target = try parseUnary()
            return .assign(p == "++" ? "+=" : "-=", target, .number(1, isInteger: true, loc), loc)
        }
        // A C cast `(float)x`.
        if isPunct("("), case .identifier(let s) = peekKind, KernelParser.typeNames.contains(s),
            tokens[min(pos + 2, tokens.count - 1)].kind == .punct(")")
        {
            pos += 3
            return .call(s, [try parseUnary()], loc)
        }
        return try parsePostfix()
    }

    private mutating func parsePostfix() throws -> Expr {
        var e = try parsePrimary()
        while true {
            let loc = current.location
            if accept(".") {
                let (name, _) = try identifier("a field or method name")
                if accept("(") {
                    e = .method(e, name, try parseArguments(), loc)
                } else {
                    e = .member(e, name, loc)
                }
            } else if accept("[") {
                let i = try parseExpression()
                try expect("]")
                e = .index(e, i, loc)
            } else if case .punct(let p) = current.kind, p == "++" || p == "--" {
                pos += 1
                e = .postfix(p, e, loc)
            } else {
                return e
            }
        }
    }

    private mutating func parseArguments() throws -> [Expr] {
        var args: [Expr] = []
        if accept(")") { return args }
        repeat { args.append(try parseAssignment()) } while accept(",")
        try expect(")")
        return args
    }

    private mutating func parsePrimary() throws -> Expr {
        let t = current
        switch t.kind {
        case .number(let v, let isInt):
            pos += 1
            return .number(v, isInteger: isInt, t.location)
        case .identifier(var name):
            pos += 1
            while accept("::") { (name, _) = try identifier("a name after '::'") }
            if accept("(") { return .call(name, try parseArguments(), t.location) }
            return .name(name, t.location)
        case .punct("("):
            pos += 1
            let e = try parseExpression()
            try expect(")")
            return e
        default:
            throw error("expected an expression")
        }
    }
}
