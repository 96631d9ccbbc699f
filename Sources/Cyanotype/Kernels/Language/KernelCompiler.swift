// The shared back half of both front ends: type-checks a parsed kernel and lowers it to the
// span IR (KernelProgram). Helper functions are inlined at their calls; `if`/`else` and
// ternaries are predicated (both sides run, `select` keeps each lane's side); loops jump back
// while any lane is active, at most `KernelProgram.maxIterations` times per span. Whatever
// depends only on constants and arguments goes into the prologue, run once per call.

struct KValue {
    var type: KType
    var regs: [Int32]
    /// For a sampler: its index among the kernel's samplers.
    var sampler: Int = -1
}

final class KernelCompiler {
    private struct Variable {
        var value: KValue
        var mutable: Bool
    }
    private struct LoopState {
        var broken: Int32?
        var continued: Int32?
    }
    private struct FunctionState {
        var returnType: KType
        var returned: Int32?
        var result: [Int32]?
        var resultFixed: Bool
        var dead = false
        var mutableNames: Set<String>
        var loops: [LoopState] = []
        var condStack: [Int32] = []
        var scopes: [[String: Variable]] = [[:]]
    }

    private let functions: [FunctionDecl]
    private var registerCount: Int32 = 2
    private var uniformRegs: Set<Int32> = []
    private var constantRegs: [Float: Int32] = [:]
    private var constantValues: [Int32: Float] = [:]
    private var constants: [(register: Int32, value: Float)] = []
    private var uniformLoads: [(register: Int32, slot: Int)] = []
    private var prologue: [KernelInstruction] = []
    private var body: [KernelInstruction] = []
    private var loopCount = 0
    private var fn: FunctionState
    private var callStack: [String] = []
    private var samplerSlots: [Int] = []
    private var uniformCount = 0
    private let dialect: KernelDialect

    private init(functions: [FunctionDecl], dialect: KernelDialect, returnType: KType) {
        self.functions = functions
        self.dialect = dialect
        fn = FunctionState(returnType: returnType, returned: nil, result: nil, resultFixed: false, mutableNames: [])
    }

    /// Every kernel function of `source`, compiled; the first error found is thrown.
    static func compile(_ source: String, dialect: KernelDialect) throws -> [CompiledKernel] {
        let decls = try KernelParser.parse(source, dialect: dialect)
        let kernels = decls.filter(\.isKernel)
        guard !kernels.isEmpty else {
            let what = dialect == .metal ? "no [[stitchable]] function" : "no 'kernel' function"
            throw KernelSourceError(message: "\(what) in the source", location: decls.first?.loc ?? SourceLocation(line: 1, column: 1))
        }
        var seen: Set<String> = []
        for d in decls {
            if seen.contains(d.name) && d.isKernel { throw KernelSourceError(message: "'\(d.name)' is defined twice", location: d.loc) }
            seen.insert(d.name)
        }
        return try kernels.map { k in
            guard let rt = KType.named(k.returnType.name) else {
                throw KernelSourceError(message: "unknown type '\(k.returnType.name)'", location: k.returnType.loc)
            }
            let c = KernelCompiler(functions: decls, dialect: dialect, returnType: rt)
            return try c.compileKernel(k, returnType: rt)
        }
    }

    // MARK: Registers and emission

    private func newRegister(uniform: Bool = false) -> Int32 {
        let r = registerCount
        registerCount += 1
        if uniform { uniformRegs.insert(r) }
        return r
    }
    private func newRegisters(_ n: Int) -> [Int32] { (0..<n).map { _ in newRegister() } }

    private func constant(_ v: Float) -> Int32 {
        if let r = constantRegs[v] { return r }
        let r = newRegister(uniform: true)
        constants.append((r, v))
        constantRegs[v] = r
        constantValues[r] = v
        return r
    }

    /// Emits a pure operation into a fresh register: into the prologue when every operand is uniform.
    private func emit(_ op: KernelOp, _ a: Int32, _ b: Int32 = 0, _ c: Int32 = 0, arity: Int) -> Int32 {
        let operands = [a, b, c].prefix(arity)
        let uniform = operands.allSatisfy { uniformRegs.contains($0) }
        // Fold constants.
        if operands.allSatisfy({ constantValues[$0] != nil }) {
            let x = constantValues[a] ?? 0, y = constantValues[b] ?? 0, z = constantValues[c] ?? 0
            if let v = KernelCompiler.fold(op, x, y, z) { return constant(v) }
        }
        let d = newRegister(uniform: uniform)
        let ins = KernelInstruction(op: op, d: d, a: a, b: b, c: c)
        if uniform { prologue.append(ins) } else { body.append(ins) }
        return d
    }
    private func emit1(_ op: KernelOp, _ a: Int32) -> Int32 { emit(op, a, arity: 1) }
    private func emit2(_ op: KernelOp, _ a: Int32, _ b: Int32) -> Int32 { emit(op, a, b, arity: 2) }

    private static func fold(_ op: KernelOp, _ x: Float, _ y: Float, _ z: Float) -> Float? {
        switch op {
        case .add: return x + y
        case .sub: return x - y
        case .mul: return x * y
        case .div: return x / y
        case .neg: return -x
        case .min: return Swift.min(x, y)
        case .max: return Swift.max(x, y)
        case .lt: return x < y ? 1 : 0
        case .le: return x <= y ? 1 : 0
        case .gt: return x > y ? 1 : 0
        case .ge: return x >= y ? 1 : 0
        case .eq: return x == y ? 1 : 0
        case .ne: return x != y ? 1 : 0
        case .not: return x == 0 ? 1 : 0
        case .trunc: return x.rounded(.towardZero)
        case .select: return x != 0 ? y : z
        default: return nil
        }
    }

    /// The lanes that are live here: inside every enclosing condition, not yet returned, and
    /// not broken out of or continued past in the innermost loop. Nil: all lanes.
    private func activeMask() -> Int32? {
        var m = fn.condStack.last
        func andNot(_ r: Int32) {
            let n = emit1(.not, r)
            m = m.map { emit2(.and, $0, n) } ?? n
        }
        if let r = fn.returned { andNot(r) }
        if let loop = fn.loops.last {
            if let b = loop.broken { andNot(b) }
            if let c = loop.continued { andNot(c) }
        }
        return m
    }

    /// Writes `value` into the fixed register `target` for the live lanes.
    private func write(_ target: Int32, _ value: Int32, mask: Int32?) {
        if let m = mask {
            body.append(KernelInstruction(op: .select, d: target, a: m, b: value, c: target))
        } else if target != value {
            body.append(KernelInstruction(op: .mov, d: target, a: value))
        }
    }
    private func orInto(_ target: Int32, _ m: Int32?) {
        if let m {
            body.append(KernelInstruction(op: .or, d: target, a: target, b: m))
        } else {
            body.append(KernelInstruction(op: .mov, d: target, a: constant(1)))
        }
    }

    // MARK: Kernels

    private func compileKernel(_ k: FunctionDecl, returnType: KType) throws -> CompiledKernel {
        var args: [KernelArgument] = []
        var imageRegs: [Int32] = []
        var samplerCount = 0, sampleCount = 0, imageIndex = 0
        fn.mutableNames = KernelCompiler.assignedNames(k.body)
        for p in k.parameters {
            guard let t = KType.named(p.type.name), t != .void else {
                throw KernelSourceError(message: "unknown parameter type '\(p.type.name)'", location: p.loc)
            }
            var value: KValue
            switch p.type.name {
            case "__sample", "sample_t":
                let regs = newRegisters(4)
                imageRegs.append(regs[0])
                value = KValue(type: .vec(4), regs: regs)
                args.append(KernelArgument(name: p.name, kind: .image(index: imageIndex)))
                imageIndex += 1; sampleCount += 1
            // Image registers must be consecutive: newRegisters gives consecutive numbers.
            case "sampler", "sampler_h":
                value = KValue(type: .sampler, regs: [], sampler: samplerCount)
                samplerSlots.append(uniformCount)
                uniformCount += 4
                samplerCount += 1
                args.append(KernelArgument(name: p.name, kind: .image(index: imageIndex)))
                imageIndex += 1
            case "destination":
                value = KValue(type: .destination, regs: [])
                args.append(KernelArgument(name: p.name, kind: .destination))
            default:
                let regs = (0..<t.width).map { i -> Int32 in
                    let r = newRegister(uniform: true)
                    uniformLoads.append((r, uniformCount + i))
                    return r
                }
                value = KValue(type: t, regs: regs)
                args.append(KernelArgument(name: p.name, kind: p.type.name == "__color" ? .color(slot: uniformCount) : .number(width: t.width, slot: uniformCount)))
                uniformCount += t.width
            }
            if fn.scopes[0][p.name] != nil { throw KernelSourceError(message: "parameter '\(p.name)' is declared twice", location: p.loc) }
            if fn.mutableNames.contains(p.name) && !value.regs.isEmpty {
                let copy = newRegisters(value.regs.count)
                for (d, s) in zip(copy, value.regs) { write(d, s, mask: nil) }
                value.regs = copy
            }
            fn.scopes[0][p.name] = Variable(value: value, mutable: fn.mutableNames.contains(p.name))
        }
        if sampleCount > 0 && samplerCount > 0 {
            throw KernelSourceError(message: "a kernel takes either __sample inputs (a colour kernel) or sampler inputs (a general kernel), not both", location: k.loc)
        }
        let kind: CompiledKernelKind
        switch returnType {
        case .vec(4): kind = samplerCount > 0 ? .general : .color
        case .vec(2):
            guard samplerCount == 0 && sampleCount == 0 else {
                throw KernelSourceError(message: "a warp kernel (returning a vec2) takes no image inputs: the image is given to apply", location: k.loc)
            }
            kind = .warp
        default:
            throw KernelSourceError(message: "a kernel returns vec4 (a colour) or vec2 (a warp's source point), not \(returnType)", location: k.returnType.loc)
        }
        callStack = [k.name]
        try compileFunctionBody(k.body, returnsAt: k.loc)
        guard let result = fn.result else {
            throw KernelSourceError(message: "kernel '\(k.name)' does not return a value", location: k.loc)
        }
        let program = KernelProgram(
            registerCount: Int(registerCount), constants: constants, uniformLoads: uniformLoads, prologue: prologue, body: body,
            imageRegisters: imageRegs, results: result, loopCount: loopCount)
        return CompiledKernel(name: k.name, kind: kind, arguments: args, program: program, uniformCount: uniformCount, samplerExtentSlots: samplerSlots)
    }

    /// Names assigned anywhere in `stmts` (so their variables need registers of their own).
    private static func assignedNames(_ stmts: [Stmt]) -> Set<String> {
        var names: Set<String> = []
        func root(_ e: Expr) {
            switch e {
            case .name(let n, _): names.insert(n)
            case .member(let b, _, _), .index(let b, _, _): root(b)
            default: break
            }
        }
        func expr(_ e: Expr) {
            switch e {
            case .assign(_, let t, let v, _): root(t); expr(t); expr(v)
            case .postfix(_, let t, _): root(t); expr(t)
            case .call(_, let args, _): args.forEach(expr)
            case .method(let r, _, let args, _): expr(r); args.forEach(expr)
            case .member(let b, _, _): expr(b)
            case .index(let b, let i, _): expr(b); expr(i)
            case .unary(_, let a, _): expr(a)
            case .binary(_, let a, let b, _): expr(a); expr(b)
            case .ternary(let a, let b, let c, _): expr(a); expr(b); expr(c)
            case .number, .name: break
            }
        }
        func stmt(_ s: Stmt) {
            switch s {
            case .declare(_, let vars): vars.forEach { v in v.value.map(expr) }
            case .expression(let e): expr(e)
            case .block(let b): b.forEach(stmt)
            case .ifElse(let c, let t, let e, _): expr(c); stmt(t); e.map(stmt)
            case .forLoop(let i, let c, let st, let b, _): i.map(stmt); c.map(expr); st.map(expr); stmt(b)
            case .whileLoop(let c, let b, _): expr(c); stmt(b)
            case .returnValue(let e, _): e.map(expr)
            case .breakLoop, .continueLoop, .empty: break
            }
        }
        stmts.forEach(stmt)
        return names
    }

    /// Whether a return sits anywhere but as the last statement of the body's top level.
    private static func hasNestedReturn(_ stmts: [Stmt]) -> Bool {
        func contains(_ s: Stmt) -> Bool {
            switch s {
            case .returnValue: return true
            case .block(let b): return b.contains(where: contains)
            case .ifElse(_, let t, let e, _): return contains(t) || (e.map(contains) ?? false)
            case .forLoop(_, _, _, let b, _), .whileLoop(_, let b, _): return contains(b)
            default: return false
            }
        }
        return stmts.dropLast().contains(where: contains)
            || stmts.last.map { s -> Bool in
                if case .returnValue = s { return false }
                return contains(s)
            } ?? false
    }

    private func compileFunctionBody(_ stmts: [Stmt], returnsAt loc: SourceLocation) throws {
        if KernelCompiler.hasNestedReturn(stmts) {
            let r = newRegister()
            write(r, constant(0), mask: nil)
            fn.returned = r
            fn.result = newRegisters(fn.returnType.width)
            fn.resultFixed = true
        }
        for s in stmts {
            if fn.dead { break }
            try statement(s)
        }
    }

    // MARK: Statements

    private func lookup(_ name: String) -> Variable? {
        for scope in fn.scopes.reversed() { if let v = scope[name] { return v } }
        return nil
    }

    private func statement(_ s: Stmt) throws {
        if fn.dead { return }
        switch s {
        case .empty: break
        case .expression(let e): _ = try expression(e)
        case .block(let stmts):
            fn.scopes.append([:])
            defer { fn.scopes.removeLast() }
            for st in stmts { try statement(st) }
        case .declare(let tn, let vars):
            guard let t = KType.named(tn.name), t.isNumeric else {
                throw KernelSourceError(message: "variables of type '\(tn.name)' are not supported", location: tn.loc)
            }
            for v in vars {
                if let size = v.arraySize { throw KernelSourceError(message: "arrays are not supported", location: size.location) }
                if fn.scopes[fn.scopes.count - 1][v.name] != nil {
                    throw KernelSourceError(message: "'\(v.name)' is already declared in this scope", location: v.loc)
                }
                var value: KValue?
                if let e = v.value { value = try convert(try expression(e), to: t, at: e.location) }
                let mutable = fn.mutableNames.contains(v.name)
                if mutable || value == nil {
                    let regs = newRegisters(t.width)
                    if let value {
                        for (d, s) in zip(regs, value.regs) { write(d, s, mask: nil) }
                    } else {
                        for d in regs { write(d, constant(0), mask: nil) }
                    }
                    value = KValue(type: t, regs: regs)
                }
                fn.scopes[fn.scopes.count - 1][v.name] = Variable(value: value!, mutable: mutable)
            }
        case .ifElse(let c, let then, let otherwise, let loc):
            let cond = try scalarCondition(try expression(c), at: loc)
            if let k = constantValues[cond] {
                // A constant condition compiles one side only.
                if k != 0 { try scoped(then) } else if let otherwise { try scoped(otherwise) }
                return
            }
            let live = activeMask()
            let thenMask = live.map { emit2(.and, $0, cond) } ?? cond
            fn.condStack.append(thenMask)
            try scoped(then)
            fn.condStack.removeLast()
            let thenDead = fn.dead
            fn.dead = false
            if let otherwise {
                let notCond = emit1(.not, cond)
                let elseMask = live.map { emit2(.and, $0, notCond) } ?? notCond
                fn.condStack.append(elseMask)
                try scoped(otherwise)
                fn.condStack.removeLast()
            }
            let elseDead = fn.dead
            fn.dead = false
            _ = thenDead && elseDead
        case .forLoop(let initial, let cond, let step, let bodyStmt, let loc):
            fn.scopes.append([:])
            defer { fn.scopes.removeLast() }
            if let initial { try statement(initial) }
            try loop(condition: cond, step: step, body: bodyStmt, at: loc)
        case .whileLoop(let cond, let bodyStmt, let loc):
            try loop(condition: cond, step: nil, body: bodyStmt, at: loc)
        case .returnValue(let e, let loc):
            guard let e else { throw KernelSourceError(message: "a return needs a value of type \(fn.returnType)", location: loc) }
            let v = try convert(try expression(e), to: fn.returnType, at: e.location)
            let mask = activeMask()
            if fn.resultFixed, let result = fn.result {
                for (d, s) in zip(result, v.regs) { write(d, s, mask: mask) }
                if let r = fn.returned { orInto(r, mask) }
                if mask == nil { fn.dead = true }
            } else {
                fn.result = v.regs
                fn.dead = true
            }
        case .breakLoop(let loc), .continueLoop(let loc):
            guard !fn.loops.isEmpty else { throw KernelSourceError(message: "break or continue outside a loop", location: loc) }
            let mask = activeMask()
            let isBreak: Bool
            if case .breakLoop = s { isBreak = true } else { isBreak = false }
            guard let r = isBreak ? fn.loops[fn.loops.count - 1].broken : fn.loops[fn.loops.count - 1].continued else {
                throw KernelSourceError(message: "internal: loop flag missing", location: loc)
            }
            orInto(r, mask)
        }
    }

    private func scoped(_ s: Stmt) throws {
        fn.scopes.append([:])
        defer { fn.scopes.removeLast() }
        try statement(s)
    }

    private func loopUses(_ s: Stmt) -> (breaks: Bool, continues: Bool) {
        var b = false, c = false
        func walk(_ s: Stmt) {
            switch s {
            case .breakLoop: b = true
            case .continueLoop: c = true
            case .block(let x): x.forEach(walk)
            case .ifElse(_, let t, let e, _): walk(t); e.map(walk)
            default: break  // nested loops own their breaks
            }
        }
        walk(s)
        return (b, c)
    }

    private func loop(condition: Expr?, step: Expr?, body bodyStmt: Stmt, at loc: SourceLocation) throws {
        let slot = loopCount
        loopCount += 1
        let uses = loopUses(bodyStmt)
        var state = LoopState()
        if uses.breaks { let r = newRegister(); write(r, constant(0), mask: nil); state.broken = r }
        if uses.continues { state.continued = newRegister() }
        let outer = activeMask()
        let active = newRegister()
        body.append(KernelInstruction(op: .loopReset, d: 0, a: Int32(slot)))
        let top = body.count
        let guardIndex = body.count
        body.append(KernelInstruction(op: .loopGuard, d: 0, a: Int32(slot)))
        if let c = state.continued { write(c, constant(0), mask: nil) }
        var live = outer
        if let condition {
            let c = try scalarCondition(try expression(condition), at: condition.location)
            live = live.map { emit2(.and, $0, c) } ?? c
        }
        if let b = state.broken {
            let n = emit1(.not, b)
            live = live.map { emit2(.and, $0, n) } ?? n
        }
        write(active, live ?? constant(1), mask: nil)
        let exitIndex = body.count
        body.append(KernelInstruction(op: .jumpIfNone, d: 0, a: active))
        fn.loops.append(state)
        fn.condStack.append(active)
        try scoped(bodyStmt)
        fn.dead = false
        if let step {
            // The step runs for lanes still in the loop (continued lanes step too).
            if let c = state.continued { body.append(KernelInstruction(op: .mov, d: c, a: constant(0))) }
            _ = try expression(step)
        }
        fn.condStack.removeLast()
        fn.loops.removeLast()
        body.append(KernelInstruction(op: .jump, d: Int32(top), a: 0))
        let end = Int32(body.count)
        body[guardIndex].d = end
        body[exitIndex].d = end
    }

    // MARK: Expressions

    private func err(_ message: String, _ loc: SourceLocation) -> KernelSourceError {
        KernelSourceError(message: message, location: loc)
    }

    private func scalarCondition(_ v: KValue, at loc: SourceLocation) throws -> Int32 {
        guard v.type.isScalar else { throw err("a condition must be a bool or a number, not \(v.type)", loc) }
        if v.type == .bool { return v.regs[0] }
        return emit2(.ne, v.regs[0], constant(0))
    }

    /// `v` as type `t`: scalars broadcast, int/float/bool interconvert, a longer vector truncates.
    private func convert(_ v: KValue, to t: KType, at loc: SourceLocation) throws -> KValue {
        if v.type == t { return v }
        switch (v.type, t) {
        case (.float, .int), (.int, .float), (.bool, .float), (.bool, .int):
            return KValue(type: t, regs: v.regs)
        case (.float, .bool), (.int, .bool):
            return KValue(type: t, regs: [emit2(.ne, v.regs[0], constant(0))])
        case (.float, .vec(let n)), (.int, .vec(let n)):
            return KValue(type: t, regs: Array(repeating: v.regs[0], count: n))
        default:
            throw err("cannot use a \(v.type) where a \(t) is expected", loc)
        }
    }

    private func expression(_ e: Expr) throws -> KValue {
        switch e {
        case .number(let v, let isInt, _):
            return KValue(type: isInt ? .int : .float, regs: [constant(Float(v))])
        case .name(let n, let loc):
            if n == "true" { return KValue(type: .bool, regs: [constant(1)]) }
            if n == "false" { return KValue(type: .bool, regs: [constant(0)]) }
            if n == "M_PI_F" || n == "M_PI" { return KValue(type: .float, regs: [constant(Float.pi)]) }
            guard let v = lookup(n) else { throw err("unknown name '\(n)'", loc) }
            return v.value
        case .member(let base, let field, let loc):
            return try swizzle(try expression(base), field, at: loc)
        case .index(let base, let idx, let loc):
            let b = try expression(base)
            let i = try constantIndex(idx, limit: b.type, at: loc)
            switch b.type {
            case .vec: return KValue(type: .float, regs: [b.regs[i]])
            case .mat(let n): return KValue(type: .vec(n), regs: Array(b.regs[(i * n)..<(i * n + n)]))
            default: throw err("cannot index a \(b.type)", loc)
            }
        case .unary(let op, let a, let loc):
            let v = try expression(a)
            guard v.type.isNumeric else { throw err("'\(op)' needs a number, not \(v.type)", loc) }
            switch op {
            case "-": return KValue(type: v.type, regs: v.regs.map { emit1(.neg, $0) })
            case "+": return v
            case "!":
                guard v.type.isScalar else { throw err("'!' needs a bool", loc) }
                return KValue(type: .bool, regs: [emit1(.not, v.regs[0])])
            default: throw err("operator '\(op)' is not supported", loc)
            }
        case .binary(let op, let a, let b, let loc):
            if op == "," { _ = try expression(a); return try expression(b) }
            return try binary(op, try expression(a), try expression(b), at: loc)
        case .ternary(let c, let a, let b, let loc):
            let cond = try scalarCondition(try expression(c), at: loc)
            var x = try expression(a), y = try expression(b)
            if x.type != y.type {
                if x.type.isScalar && !y.type.isScalar { x = try convert(x, to: y.type, at: loc) } else { y = try convert(y, to: x.type, at: loc) }
            }
            guard x.type.isNumeric else { throw err("the branches of '?:' must be numbers", loc) }
            if let k = constantValues[cond] { return k != 0 ? x : y }
            return KValue(type: x.type, regs: zip(x.regs, y.regs).map { emit(.select, cond, $0, $1, arity: 3) })
        case .assign(let op, let target, let value, let loc):
            return try assign(op, target, value, at: loc, returnOld: false)
        case .postfix(let op, let target, let loc):
            return try assign(op == "++" ? "+=" : "-=", target, .number(1, isInteger: true, loc), at: loc, returnOld: true)
        case .call(let name, let args, let loc):
            return try call(name, args, at: loc)
        case .method(let recv, let name, let args, let loc):
            return try method(recv, name, args, at: loc)
        }
    }

    private func constantIndex(_ e: Expr, limit: KType, at loc: SourceLocation) throws -> Int {
        let v = try expression(e)
        guard v.type.isScalar, let k = constantValues[v.regs[0]] else {
            throw err("an index must be a constant here (loops are not unrolled)", loc)
        }
        let n: Int
        switch limit {
        case .vec(let c), .mat(let c): n = c
        default: throw err("cannot index a \(limit)", loc)
        }
        guard k >= 0, k < Float(n), k == k.rounded() else { throw err("index \(k) is out of range 0..<\(n)", loc) }
        return Int(k)
    }

    private static func swizzleIndex(_ c: Character) -> Int? {
        switch c {
        case "x", "r", "s": return 0
        case "y", "g", "t": return 1
        case "z", "b", "p": return 2
        case "w", "a", "q": return 3
        default: return nil
        }
    }

    private func swizzleIndices(_ field: String, width: Int, at loc: SourceLocation) throws -> [Int] {
        let idx = field.map(KernelCompiler.swizzleIndex)
        let sets = Set(field.map { c -> Int in "xyzw".contains(c) ? 0 : "rgba".contains(c) ? 1 : 2 })
        guard (1...4).contains(idx.count), sets.count == 1, idx.allSatisfy({ $0 != nil && $0! < width }) else {
            throw err("'\(field)' is not a component of a vec\(width)", loc)
        }
        return idx.map { $0! }
    }

    private func swizzle(_ v: KValue, _ field: String, at loc: SourceLocation) throws -> KValue {
        let width: Int
        switch v.type {
        case .vec(let n): width = n
        case .float, .int: width = 1
        default: throw err("a \(v.type) has no field '\(field)'", loc)
        }
        let idx = try swizzleIndices(field, width: width, at: loc)
        let regs = idx.map { v.regs[$0] }
        return KValue(type: regs.count == 1 ? .float : .vec(regs.count), regs: regs)
    }

    // MARK: Operators

    private func componentwise(_ op: KernelOp, _ a: KValue, _ b: KValue, at loc: SourceLocation, name: String) throws -> KValue {
        guard a.type.isNumeric, b.type.isNumeric else { throw err("'\(name)' needs numbers, not \(a.type) and \(b.type)", loc) }
        if a.type.isScalar && b.type.isScalar {
            let t: KType = a.type == .int && b.type == .int ? .int : .float
            return KValue(type: t, regs: [emit2(op, a.regs[0], b.regs[0])])
        }
        if a.type.isScalar { return KValue(type: b.type, regs: b.regs.map { emit2(op, a.regs[0], $0) }) }
        if b.type.isScalar { return KValue(type: a.type, regs: a.regs.map { emit2(op, $0, b.regs[0]) }) }
        guard a.type == b.type else { throw err("'\(name)' needs operands of one type, not \(a.type) and \(b.type)", loc) }
        return KValue(type: a.type, regs: zip(a.regs, b.regs).map { emit2(op, $0, $1) })
    }

    private func sum(_ regs: [Int32]) -> Int32 {
        regs.dropFirst().reduce(regs[0]) { emit2(.add, $0, $1) }
    }

    private func binary(_ op: String, _ a: KValue, _ b: KValue, at loc: SourceLocation) throws -> KValue {
        switch op {
        case "+": return try componentwise(.add, a, b, at: loc, name: op)
        case "-": return try componentwise(.sub, a, b, at: loc, name: op)
        case "/":
            let r = try componentwise(.div, a, b, at: loc, name: op)
            return r.type == .int ? KValue(type: .int, regs: [emit1(.trunc, r.regs[0])]) : r
        case "*":
            switch (a.type, b.type) {
            case (.mat(let n), .vec(let m)) where n == m:
                // Column-major: result[r] = sum over c of M[c][r] * v[c].
                return KValue(type: .vec(n), regs: (0..<n).map { r in sum((0..<n).map { c in emit2(.mul, a.regs[c * n + r], b.regs[c]) }) })
            case (.vec(let m), .mat(let n)) where n == m:
                return KValue(type: .vec(n), regs: (0..<n).map { c in sum((0..<n).map { r in emit2(.mul, a.regs[r], b.regs[c * n + r]) }) })
            case (.mat(let n), .mat(let m)) where n == m:
                var regs: [Int32] = []
                for c in 0..<n {
                    for r in 0..<n { regs.append(sum((0..<n).map { k in emit2(.mul, a.regs[k * n + r], b.regs[c * n + k]) })) }
                }
                return KValue(type: .mat(n), regs: regs)
            default: return try componentwise(.mul, a, b, at: loc, name: op)
            }
        case "<", ">", "<=", ">=":
            guard a.type.isScalar, b.type.isScalar else { throw err("'\(op)' compares numbers, not \(a.type) and \(b.type)", loc) }
            let k: KernelOp = op == "<" ? .lt : op == ">" ? .gt : op == "<=" ? .le : .ge
            return KValue(type: .bool, regs: [emit2(k, a.regs[0], b.regs[0])])
        case "==", "!=":
            guard a.type.isNumeric, b.type.isNumeric, a.type.width == b.type.width || a.type.isScalar || b.type.isScalar else {
                throw err("'\(op)' compares values of one type, not \(a.type) and \(b.type)", loc)
            }
            let eq = try componentwise(.eq, a, b, at: loc, name: op)
            let all = eq.regs.dropFirst().reduce(eq.regs[0]) { emit2(.and, $0, $1) }
            return KValue(type: .bool, regs: [op == "==" ? all : emit1(.not, all)])
        case "&&", "||", "^^":
            guard a.type.isScalar, b.type.isScalar else { throw err("'\(op)' needs bools", loc) }
            let x = try scalarCondition(a, at: loc), y = try scalarCondition(b, at: loc)
            let k: KernelOp = op == "&&" ? .and : op == "||" ? .or : .ne
            return KValue(type: .bool, regs: [emit2(k, x, y)])
        case "%":
            guard dialect == .metal else { throw err("'%' is not in the Core Image Kernel Language: use mod()", loc) }
            return try componentwise(.mod, a, b, at: loc, name: op)
        default:
            throw err("operator '\(op)' is not supported", loc)
        }
    }

    /// The variable and component registers an assignment target names.
    private func lvalue(_ e: Expr) throws -> (name: String, components: [Int], type: KType) {
        switch e {
        case .name(let n, let loc):
            guard let v = lookup(n) else { throw err("unknown name '\(n)'", loc) }
            guard v.value.type.isNumeric else { throw err("cannot assign to '\(n)'", loc) }
            return (n, Array(0..<v.value.regs.count), v.value.type)
        case .member(let base, let field, let loc):
            let lv = try lvalue(base)
            let width: Int
            switch lv.type {
            case .vec(let n): width = n
            case .float, .int: width = 1
            default: throw err("a \(lv.type) has no field '\(field)'", loc)
            }
            let idx = try swizzleIndices(field, width: width, at: loc)
            guard Set(idx).count == idx.count else { throw err("'\(field)' names a component twice: cannot assign to it", loc) }
            return (lv.name, idx.map { lv.components[$0] }, idx.count == 1 ? .float : .vec(idx.count))
        case .index(let base, let i, let loc):
            let lv = try lvalue(base)
            let k = try constantIndex(i, limit: lv.type, at: loc)
            switch lv.type {
            case .vec: return (lv.name, [lv.components[k]], .float)
            case .mat(let n): return (lv.name, Array(lv.components[(k * n)..<(k * n + n)]), .vec(n))
            default: throw err("cannot index a \(lv.type)", loc)
            }
        default:
            throw err("this expression cannot be assigned to", e.location)
        }
    }

    private func assign(_ op: String, _ target: Expr, _ valueExpr: Expr, at loc: SourceLocation, returnOld: Bool) throws -> KValue {
        let lv = try lvalue(target)
        guard let variable = lookup(lv.name), variable.mutable else { throw err("'\(lv.name)' cannot be assigned to", loc) }
        let oldRegs = lv.components.map { variable.value.regs[$0] }
        let old = KValue(type: lv.type, regs: oldRegs)
        var value = try expression(valueExpr)
        if op != "=" {
            let bop = String(op.dropLast())
            value = try binary(bop, old, value, at: loc)
        }
        value = try convert(value, to: lv.type, at: loc)
        var saved = old
        if returnOld {
            saved = KValue(
                type: old.type,
                regs: old.regs.map { r in
                    let c = newRegister(); write(c, r, mask: nil); return c
                })
        }
        if !Set(value.regs).isDisjoint(with: oldRegs) {
            value.regs = value.regs.map { r in
                let c = newRegister(); write(c, r, mask: nil); return c
            }
        }
        let mask = activeMask()
        for (d, s) in zip(oldRegs, value.regs) { write(d, s, mask: mask) }
        return returnOld ? saved : KValue(type: lv.type, regs: oldRegs)
    }

    // MARK: Calls

    private func construct(_ t: KType, _ args: [KValue], at loc: SourceLocation) throws -> KValue {
        guard !args.isEmpty, args.allSatisfy({ $0.type.isNumeric }) else { throw err("\(t)(...) needs numbers", loc) }
        switch t {
        case .float, .int, .bool:
            guard args.count == 1 else { throw err("\(t)(...) takes one value", loc) }
            let r = args[0].regs[0]
            if t == .int { return KValue(type: .int, regs: [emit1(.trunc, r)]) }
            if t == .bool { return KValue(type: .bool, regs: [emit2(.ne, r, constant(0))]) }
            return KValue(type: .float, regs: [r])
        case .vec(let n):
            if args.count == 1 && args[0].type.isScalar { return KValue(type: t, regs: Array(repeating: args[0].regs[0], count: n)) }
            let flat = args.flatMap(\.regs)
            if args.count == 1 && flat.count >= n { return KValue(type: t, regs: Array(flat.prefix(n))) }
            guard flat.count == n else { throw err("\(t)(...) needs \(n) components, got \(flat.count)", loc) }
            return KValue(type: t, regs: flat)
        case .mat(let n):
            if args.count == 1 && args[0].type.isScalar {
                let zero = constant(0)
                return KValue(type: t, regs: (0..<(n * n)).map { $0 % (n + 1) == 0 ? args[0].regs[0] : zero })
            }
            let flat = args.flatMap(\.regs)
            guard flat.count == n * n else { throw err("\(t)(...) needs \(n * n) components, got \(flat.count)", loc) }
            return KValue(type: t, regs: flat)
        default:
            throw err("cannot construct a \(t)", loc)
        }
    }

    private func broadcast(_ v: KValue, _ width: Int) -> [Int32] {
        v.regs.count == width ? v.regs : Array(repeating: v.regs[0], count: width)
    }

    private func map1(_ op: KernelOp, _ v: KValue, at loc: SourceLocation, _ name: String) throws -> KValue {
        guard v.type.isNumeric, !(v.type.width > 4) else { throw err("\(name)() needs a float or vector, not \(v.type)", loc) }
        let t: KType = v.type.isScalar ? .float : v.type
        return KValue(type: t, regs: v.regs.map { emit1(op, $0) })
    }

    /// The common type of arguments where scalars broadcast to the widest vector.
    private func widest(_ args: [KValue], _ name: String, at loc: SourceLocation) throws -> KType {
        var t: KType = .float
        for a in args {
            guard a.type.isNumeric, a.type.width <= 4 else { throw err("\(name)() needs floats or vectors, not \(a.type)", loc) }
            if !a.type.isScalar {
                if !t.isScalar && t != a.type { throw err("\(name)() needs vectors of one size, not \(t) and \(a.type)", loc) }
                t = a.type
            }
        }
        return t
    }

    private func lanes(_ args: [KValue], _ name: String, at loc: SourceLocation, _ f: ([Int32]) -> Int32) throws -> KValue {
        let t = try widest(args, name, at: loc)
        let cols = args.map { broadcast($0, t.width) }
        return KValue(type: t, regs: (0..<t.width).map { i in f(cols.map { $0[i] }) })
    }

    private func dot(_ a: KValue, _ b: KValue, at loc: SourceLocation) throws -> Int32 {
        guard a.type == b.type, a.type.width <= 4, a.type.isNumeric else { throw err("dot() needs two vectors of one size", loc) }
        return sum(zip(a.regs, b.regs).map { emit2(.mul, $0, $1) })
    }

    private func samplerArg(_ v: KValue, _ name: String, at loc: SourceLocation) throws -> Int {
        guard v.type == .sampler, v.sampler >= 0 else { throw err("\(name)() needs a sampler, not \(v.type)", loc) }
        return v.sampler
    }

    private func sample(_ s: Int, _ p: KValue, at loc: SourceLocation) throws -> KValue {
        guard p.type == .vec(2) else { throw err("sample() needs a vec2 coordinate, not \(p.type)", loc) }
        let d = newRegisters(4)
        body.append(KernelInstruction(op: .sample, d: d[0], a: p.regs[0], b: p.regs[1], c: Int32(s)))
        return KValue(type: .vec(4), regs: d)
    }

    private var extentRegs: [Int: [Int32]] = [:]
    private func samplerExtent(_ s: Int) -> [Int32] {
        if let r = extentRegs[s] { return r }
        let regs = (0..<4).map { i -> Int32 in
            let r = newRegister(uniform: true)
            uniformLoads.append((r, samplerSlots[s] + i))
            return r
        }
        extentRegs[s] = regs
        return regs
    }

    private let destCoord = KValue(type: .vec(2), regs: [KernelProgram.destX, KernelProgram.destY])

    private func call(_ name: String, _ argExprs: [Expr], at loc: SourceLocation) throws -> KValue {
        let args = try argExprs.map(expression)
        if let t = KType.named(name), t.isNumeric, name != "__sample", name != "__color" { return try construct(t, args, at: loc) }
        if let f = functions.first(where: { $0.name == name && $0.parameters.count == args.count && !$0.isKernel }) {
            return try inline(f, args, at: loc)
        }
        func need(_ n: Int) throws {
            guard args.count == n else { throw err("\(name)() takes \(n) argument\(n == 1 ? "" : "s"), got \(args.count)", loc) }
        }
        let unaryOps: [String: KernelOp] = [
            "abs": .abs, "fabs": .abs, "sign": .sign, "floor": .floor, "ceil": .ceil, "fract": .fract, "trunc": .trunc,
            "sqrt": .sqrt, "inversesqrt": .rsqrt, "rsqrt": .rsqrt, "exp": .exp, "log": .log, "exp2": .exp2, "log2": .log2,
            "sin": .sin, "cos": .cos, "tan": .tan, "asin": .asin, "acos": .acos,
        ]
        if let op = unaryOps[name] {
            try need(1)
            return try map1(op, args[0], at: loc, name)
        }
        switch name {
        case "atan":
            if args.count == 2 { return try lanes(args, name, at: loc) { emit2(.atan2, $0[0], $0[1]) } }
            try need(1)
            return try map1(.atan, args[0], at: loc, name)
        case "atan2":
            try need(2)
            return try lanes(args, name, at: loc) { emit2(.atan2, $0[0], $0[1]) }
        case "radians", "degrees":
            try need(1)
            let k = constant(name == "radians" ? Float.pi / 180 : 180 / Float.pi)
            return try lanes(args, name, at: loc) { emit2(.mul, $0[0], k) }
        case "round":
            try need(1)
            return try lanes(args, name, at: loc) { emit1(.floor, emit2(.add, $0[0], constant(0.5))) }
        case "saturate":
            try need(1)
            return try lanes(args, name, at: loc) { emit2(.min, emit2(.max, $0[0], constant(0)), constant(1)) }
        case "pow", "powr":
            try need(2)
            return try lanes(args, name, at: loc) { emit2(.pow, $0[0], $0[1]) }
        case "mod":
            try need(2)
            return try lanes(args, name, at: loc) { emit2(.mod, $0[0], $0[1]) }
        case "fmod":
            try need(2)
            return try lanes(args, name, at: loc) { emit2(.sub, $0[0], emit2(.mul, $0[1], emit1(.trunc, emit2(.div, $0[0], $0[1])))) }
        case "min", "fmin":
            try need(2)
            return try lanes(args, name, at: loc) { emit2(.min, $0[0], $0[1]) }
        case "max", "fmax":
            try need(2)
            return try lanes(args, name, at: loc) { emit2(.max, $0[0], $0[1]) }
        case "step":
            try need(2)
            return try lanes(args, name, at: loc) { emit2(.step, $0[0], $0[1]) }
        case "clamp":
            try need(3)
            return try lanes(args, name, at: loc) { emit2(.min, emit2(.max, $0[0], $0[1]), $0[2]) }
        case "mix":
            try need(3)
            return try lanes(args, name, at: loc) { emit2(.add, $0[0], emit2(.mul, emit2(.sub, $0[1], $0[0]), $0[2])) }
        case "smoothstep":
            try need(3)
            return try lanes(args, name, at: loc) { c in
                let t0 = emit2(.div, emit2(.sub, c[2], c[0]), emit2(.sub, c[1], c[0]))
                let t = emit2(.min, emit2(.max, t0, constant(0)), constant(1))
                return emit2(.mul, emit2(.mul, t, t), emit2(.sub, constant(3), emit2(.mul, constant(2), t)))
            }
        case "compare":
            try need(3)
            return try lanes(args, name, at: loc) { emit(.select, emit2(.lt, $0[0], constant(0)), $0[1], $0[2], arity: 3) }
        case "select":
            // Metal: select(a, b, c) is c ? b : a.
            try need(3)
            return try lanes(args, name, at: loc) { emit(.select, emit2(.ne, $0[2], constant(0)), $0[1], $0[0], arity: 3) }
        case "dot":
            try need(2)
            return KValue(type: .float, regs: [try dot(args[0], args[1], at: loc)])
        case "length":
            try need(1)
            return KValue(type: .float, regs: [emit1(.sqrt, try dot(args[0], args[0], at: loc))])
        case "distance":
            try need(2)
            let d = try binary("-", args[0], args[1], at: loc)
            return KValue(type: .float, regs: [emit1(.sqrt, try dot(d, d, at: loc))])
        case "normalize":
            try need(1)
            let inv = emit1(.rsqrt, try dot(args[0], args[0], at: loc))
            return KValue(type: args[0].type, regs: args[0].regs.map { emit2(.mul, $0, inv) })
        case "cross":
            try need(2)
            guard args[0].type == .vec(3), args[1].type == .vec(3) else { throw err("cross() needs two vec3", loc) }
            let a = args[0].regs, b = args[1].regs
            func c(_ i: Int, _ j: Int) -> Int32 { emit2(.sub, emit2(.mul, a[i], b[j]), emit2(.mul, a[j], b[i])) }
            return KValue(type: .vec(3), regs: [c(1, 2), c(2, 0), c(0, 1)])
        case "premultiply":
            try need(1)
            guard args[0].type == .vec(4) else { throw err("premultiply() needs a vec4", loc) }
            let r = args[0].regs
            return KValue(type: .vec(4), regs: [emit2(.mul, r[0], r[3]), emit2(.mul, r[1], r[3]), emit2(.mul, r[2], r[3]), r[3]])
        case "unpremultiply":
            try need(1)
            guard args[0].type == .vec(4) else { throw err("unpremultiply() needs a vec4", loc) }
            let r = args[0].regs
            let positive = emit2(.gt, r[3], constant(0))
            let inv = emit(.select, positive, emit2(.div, constant(1), r[3]), constant(0), arity: 3)
            return KValue(type: .vec(4), regs: [emit2(.mul, r[0], inv), emit2(.mul, r[1], inv), emit2(.mul, r[2], inv), r[3]])
        case "destCoord":
            try need(0)
            return destCoord
        case "sample":
            try need(2)
            return try sample(try samplerArg(args[0], name, at: loc), args[1], at: loc)
        case "samplerCoord":
            try need(1)
            _ = try samplerArg(args[0], name, at: loc)
            return destCoord
        case "samplerTransform":
            try need(2)
            _ = try samplerArg(args[0], name, at: loc)
            guard args[1].type == .vec(2) else { throw err("samplerTransform() needs a vec2", loc) }
            return args[1]
        case "samplerExtent":
            try need(1)
            return KValue(type: .vec(4), regs: samplerExtent(try samplerArg(args[0], name, at: loc)))
        case "samplerOrigin":
            try need(1)
            return KValue(type: .vec(2), regs: Array(samplerExtent(try samplerArg(args[0], name, at: loc)).prefix(2)))
        case "samplerSize":
            try need(1)
            return KValue(type: .vec(2), regs: Array(samplerExtent(try samplerArg(args[0], name, at: loc)).suffix(2)))
        default:
            throw err("unknown function '\(name)'", loc)
        }
    }

    private func method(_ recvExpr: Expr, _ name: String, _ argExprs: [Expr], at loc: SourceLocation) throws -> KValue {
        let recv = try expression(recvExpr)
        let args = try argExprs.map(expression)
        func need(_ n: Int) throws {
            guard args.count == n else { throw err("\(name)() takes \(n) argument\(n == 1 ? "" : "s"), got \(args.count)", loc) }
        }
        if recv.type == .destination {
            guard name == "coord" else { throw err("a destination has no method '\(name)'", loc) }
            try need(0)
            return destCoord
        }
        guard recv.type == .sampler else { throw err("a \(recv.type) has no method '\(name)'", loc) }
        switch name {
        case "sample":
            try need(1)
            return try sample(recv.sampler, args[0], at: loc)
        case "coord":
            try need(0)
            return destCoord
        case "transform":
            try need(1)
            guard args[0].type == .vec(2) else { throw err("transform() needs a float2", loc) }
            return args[0]
        case "extent":
            try need(0)
            return KValue(type: .vec(4), regs: samplerExtent(recv.sampler))
        case "origin":
            try need(0)
            return KValue(type: .vec(2), regs: Array(samplerExtent(recv.sampler).prefix(2)))
        case "size":
            try need(0)
            return KValue(type: .vec(2), regs: Array(samplerExtent(recv.sampler).suffix(2)))
        default:
            throw err("a sampler has no method '\(name)'", loc)
        }
    }

    /// A helper function's body compiled in place, its parameters bound to the arguments.
    private func inline(_ f: FunctionDecl, _ args: [KValue], at loc: SourceLocation) throws -> KValue {
        guard !callStack.contains(f.name) else { throw err("'\(f.name)' calls itself: recursion is not supported", loc) }
        guard callStack.count < 64 else { throw err("helper calls nest too deeply", loc) }
        guard let rt = KType.named(f.returnType.name) else { throw err("unknown type '\(f.returnType.name)'", f.returnType.loc) }
        var scope: [String: Variable] = [:]
        let mutable = KernelCompiler.assignedNames(f.body)
        for (p, a) in zip(f.parameters, args) {
            guard let t = KType.named(p.type.name) else { throw err("unknown type '\(p.type.name)'", p.loc) }
            var v = try convert(a, to: t, at: loc)
            if mutable.contains(p.name) {
                v.regs = v.regs.map { r in
                    let c = newRegister(); write(c, r, mask: nil); return c
                }
            }
            scope[p.name] = Variable(value: v, mutable: mutable.contains(p.name))
        }
        let saved = fn
        fn = FunctionState(returnType: rt, returned: nil, result: nil, resultFixed: false, mutableNames: mutable)
        fn.scopes = [scope]
        callStack.append(f.name)
        defer {
            callStack.removeLast()
            fn = saved
        }
        if rt == .void { throw err("helper '\(f.name)' returns nothing: helpers return a value (out parameters are not supported)", f.loc) }
        try compileFunctionBody(f.body, returnsAt: f.loc)
        guard let result = fn.result else { throw err("'\(f.name)' does not return a value", f.loc) }
        return KValue(type: rt, regs: result)
    }
}
