import CCyanotypeKernels
import Foundation

// The span IR that both kernel languages compile to, and how it is run (the loop over lanes is
// `cyan_ir_execute` in CCyanotypeKernels/kernel_ir.c; the op order here is its op numbering). Every value is a
// register of `KernelProgram.lanes` Float lanes (vectors are one register per component), and
// each instruction runs over a whole span of pixels: one dispatch per instruction per span,
// never per pixel. Control flow that differs between pixels is predicated (both sides run,
// `select` keeps the right lanes); loops jump back while any lane is still active.

enum KernelOp: UInt8, Sendable {
    case mov, add, sub, mul, div, min, max, pow, atan2, mod, step, lt, le, gt, ge, eq, ne, and, or
    case neg, abs, sign, floor, ceil, fract, trunc, sqrt, rsqrt, exp, log, exp2, log2, sin, cos, tan, asin, acos, atan, not
    /// `d = a != 0 ? b : c`.
    case select
    /// `d...d+3 = sample(sampler c, (a, b))`, bilinear, clear outside the sampler's region.
    case sample
    /// Jump to `d` when no lane of `a` is non-zero.
    case jumpIfNone
    /// Jump to `d`.
    case jump
    /// Count an iteration of loop `a`; past `KernelProgram.maxIterations`, jump to `d`.
    case loopGuard
    /// Reset loop `a`'s iteration count.
    case loopReset
}

struct KernelInstruction: Sendable {
    var op: KernelOp
    var d: Int32
    var a: Int32
    var b: Int32 = 0
    var c: Int32 = 0
}

extension KernelInstruction {
    /// The registers the instruction reads.
    var reads: [Int32] {
        switch op {
        case .mov, .neg, .abs, .sign, .floor, .ceil, .fract, .trunc, .sqrt, .rsqrt, .exp, .log, .exp2, .log2, .sin, .cos, .tan, .asin, .acos,
            .atan, .not, .jumpIfNone:
            return [a]
        case .select: return [a, b, c]
        case .jump, .loopGuard, .loopReset: return []
        case .sample, .add, .sub, .mul, .div, .min, .max, .pow, .atan2, .mod, .step, .lt, .le, .gt, .ge, .eq, .ne, .and, .or: return [a, b]
        }
    }
}

/// A compiled kernel body: registers, a prologue run once per call (constants, arguments and
/// everything computed from them alone) and a body run once per span.
struct KernelProgram: @unchecked Sendable {
    /// Pixels per span.
    static let lanes = 128
    /// Iterations one loop may run for one span before it is cut short (bounded loops).
    static let maxIterations = 1 << 16
    /// Register 0 holds the pixels' x centres, register 1 their y centres.
    static let destX: Int32 = 0
    static let destY: Int32 = 1

    var registerCount: Int
    var constants: [(register: Int32, value: Float)]
    /// Registers filled from the bound argument values (`uniforms[slot]`).
    var uniformLoads: [(register: Int32, slot: Int)]
    var prologue: [KernelInstruction]
    var body: [KernelInstruction]
    /// For colour kernels: the first of the four registers of each image (`__sample`) argument.
    var imageRegisters: [Int32]
    /// The result's registers (four for a colour, two for a warp's source point).
    var results: [Int32]
    var loopCount: Int

    /// The prologue and body as the C evaluator reads them.
    private(set) var compiledPrologue: [cyan_ir_instruction] = []
    private(set) var compiledBody: [cyan_ir_instruction] = []
    /// Whether any instruction or the result reads the pixel coordinates (registers 0 and 1).
    private(set) var usesCoordinates = true

    init(
        registerCount: Int, constants: [(register: Int32, value: Float)], uniformLoads: [(register: Int32, slot: Int)],
        prologue: [KernelInstruction], body: [KernelInstruction], imageRegisters: [Int32], results: [Int32], loopCount: Int
    ) {
        self.registerCount = registerCount
        self.constants = constants
        self.uniformLoads = uniformLoads
        self.prologue = prologue
        self.body = body
        self.imageRegisters = imageRegisters
        self.results = results
        self.loopCount = loopCount
        func c(_ i: KernelInstruction) -> cyan_ir_instruction {
            cyan_ir_instruction(op: Int32(i.op.rawValue), d: i.d, a: i.a, b: i.b, c: i.c)
        }
        compiledPrologue = prologue.map(c)
        compiledBody = body.map(c)
        let coords: Set<Int32> = [KernelProgram.destX, KernelProgram.destY]
        usesCoordinates = results.contains(where: coords.contains) || body.contains { !coords.isDisjoint(with: $0.reads) }
    }

    /// Registers ready for spans: constants, uniforms and the prologue evaluated once.
    func makeRegisters(uniforms: [Float]) -> UnsafeMutablePointer<Float> {
        let n = KernelProgram.lanes
        let regs = UnsafeMutablePointer<Float>.allocate(capacity: max(1, registerCount) * n)
        regs.initialize(repeating: 0, count: max(1, registerCount) * n)
        for (r, v) in constants { (regs + Int(r) * n).update(repeating: v, count: n) }
        for (r, s) in uniformLoads { (regs + Int(r) * n).update(repeating: s < uniforms.count ? uniforms[s] : 0, count: n) }
        execute(compiledPrologue, regs, count: n, samplers: [])
        return regs
    }

    /// Runs the body over `count` (at most `lanes`) pixels of row `y` from column `x` (pixel
    /// centres at +0.5); inputs already loaded into their registers.
    func runSpan(_ regs: UnsafeMutablePointer<Float>, count: Int, x: Int, y: Int, samplers: [cyan_ir_sampler]) {
        if usesCoordinates {
            cyan_ir_coordinates(
                regs + Int(KernelProgram.destX) * KernelProgram.lanes, regs + Int(KernelProgram.destY) * KernelProgram.lanes, Int64(x),
                Int64(y), Int64(count))
        }
        execute(compiledBody, regs, count: count, samplers: samplers)
    }

    private func execute(_ code: [cyan_ir_instruction], _ regs: UnsafeMutablePointer<Float>, count n: Int, samplers: [cyan_ir_sampler]) {
        guard !code.isEmpty else { return }
        withUnsafeTemporaryAllocation(of: Int64.self, capacity: max(1, loopCount)) { loops in
            code.withUnsafeBufferPointer { c in
                samplers.withUnsafeBufferPointer { s in
                    cyan_ir_execute(
                        c.baseAddress, Int64(c.count), regs, Int64(KernelProgram.lanes), Int64(n), s.baseAddress, Int64(s.count),
                        loops.baseAddress, Int64(KernelProgram.maxIterations))
                }
            }
        }
    }
}
