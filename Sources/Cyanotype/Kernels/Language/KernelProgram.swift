import Foundation

// The span IR that both kernel languages compile to, and its evaluator. Every value is a
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

/// A compiled kernel body: registers, a prologue run once per call (constants, arguments and
/// everything computed from them alone) and a body run once per span.
struct KernelProgram: Sendable {
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

    /// Registers ready for spans: constants, uniforms and the prologue evaluated once.
    func makeRegisters(uniforms: [Float]) -> UnsafeMutablePointer<Float> {
        let n = KernelProgram.lanes
        let regs = UnsafeMutablePointer<Float>.allocate(capacity: max(1, registerCount) * n)
        for (r, v) in constants { (regs + Int(r) * n).update(repeating: v, count: n) }
        for (r, s) in uniformLoads { (regs + Int(r) * n).update(repeating: s < uniforms.count ? uniforms[s] : 0, count: n) }
        var loops = [Int](repeating: 0, count: loopCount)
        execute(prologue, regs, count: n, samplers: [], loops: &loops)
        return regs
    }

    /// Runs the body over `count` (at most `lanes`) pixels of row `y` from column `x` (pixel
    /// centres at +0.5); inputs already loaded into their registers.
    func runSpan(_ regs: UnsafeMutablePointer<Float>, count: Int, x: Int, y: Int, samplers: [SpanSampler]) {
        let dx = regs + Int(KernelProgram.destX) * KernelProgram.lanes
        let dy = regs + Int(KernelProgram.destY) * KernelProgram.lanes
        let fy = Float(y) + 0.5
        for k in 0..<count {
            dx[k] = Float(x + k) + 0.5
            dy[k] = fy
        }
        var loops = [Int](repeating: 0, count: loopCount)
        execute(body, regs, count: count, samplers: samplers, loops: &loops)
    }

    @inline(__always)
    private func unary(_ d: UnsafeMutablePointer<Float>, _ a: UnsafeMutablePointer<Float>, _ n: Int, _ f: (Float) -> Float) {
        for k in 0..<n { d[k] = f(a[k]) }
    }
    @inline(__always)
    private func binary(
        _ d: UnsafeMutablePointer<Float>, _ a: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>, _ n: Int,
        _ f: (Float, Float) -> Float
    ) {
        for k in 0..<n { d[k] = f(a[k], b[k]) }
    }

    private func execute(
        _ code: [KernelInstruction], _ regs: UnsafeMutablePointer<Float>, count n: Int, samplers: [SpanSampler], loops: inout [Int]
    ) {
        let L = KernelProgram.lanes
        var pc = 0
        code.withUnsafeBufferPointer { code in
            while pc < code.count {
                let ins = code[pc]
                pc += 1
                let d = regs + Int(ins.d) * L
                let a = regs + Int(ins.a) * L
                let b = regs + Int(ins.b) * L
                switch ins.op {
                case .mov: d.update(from: a, count: n)
                case .add: binary(d, a, b, n, +)
                case .sub: binary(d, a, b, n, -)
                case .mul: binary(d, a, b, n, *)
                case .div: binary(d, a, b, n, /)
                case .min: binary(d, a, b, n) { Swift.min($0, $1) }
                case .max: binary(d, a, b, n) { Swift.max($0, $1) }
                case .pow: binary(d, a, b, n) { Foundation.pow($0, $1) }
                case .atan2: binary(d, a, b, n) { Foundation.atan2($0, $1) }
                case .mod: binary(d, a, b, n) { $0 - $1 * Foundation.floor($0 / $1) }
                case .step: binary(d, a, b, n) { $1 < $0 ? 0 : 1 }
                case .lt: binary(d, a, b, n) { $0 < $1 ? 1 : 0 }
                case .le: binary(d, a, b, n) { $0 <= $1 ? 1 : 0 }
                case .gt: binary(d, a, b, n) { $0 > $1 ? 1 : 0 }
                case .ge: binary(d, a, b, n) { $0 >= $1 ? 1 : 0 }
                case .eq: binary(d, a, b, n) { $0 == $1 ? 1 : 0 }
                case .ne: binary(d, a, b, n) { $0 != $1 ? 1 : 0 }
                case .and: binary(d, a, b, n) { $0 != 0 && $1 != 0 ? 1 : 0 }
                case .or: binary(d, a, b, n) { $0 != 0 || $1 != 0 ? 1 : 0 }
                case .neg: unary(d, a, n) { -$0 }
                case .abs: unary(d, a, n) { Swift.abs($0) }
                case .sign: unary(d, a, n) { $0 > 0 ? 1 : ($0 < 0 ? -1 : 0) }
                case .floor: unary(d, a, n) { Foundation.floor($0) }
                case .ceil: unary(d, a, n) { Foundation.ceil($0) }
                case .fract: unary(d, a, n) { $0 - Foundation.floor($0) }
                case .trunc: unary(d, a, n) { Foundation.trunc($0) }
                case .sqrt: unary(d, a, n) { $0.squareRoot() }
                case .rsqrt: unary(d, a, n) { 1 / $0.squareRoot() }
                case .exp: unary(d, a, n) { Foundation.exp($0) }
                case .log: unary(d, a, n) { Foundation.log($0) }
                case .exp2: unary(d, a, n) { Foundation.exp2($0) }
                case .log2: unary(d, a, n) { Foundation.log2($0) }
                case .sin: unary(d, a, n) { Foundation.sin($0) }
                case .cos: unary(d, a, n) { Foundation.cos($0) }
                case .tan: unary(d, a, n) { Foundation.tan($0) }
                case .asin: unary(d, a, n) { Foundation.asin($0) }
                case .acos: unary(d, a, n) { Foundation.acos($0) }
                case .atan: unary(d, a, n) { Foundation.atan($0) }
                case .not: unary(d, a, n) { $0 == 0 ? 1 : 0 }
                case .select:
                    let c = regs + Int(ins.c) * L
                    for k in 0..<n { d[k] = a[k] != 0 ? b[k] : c[k] }
                case .sample:
                    let s = Int(ins.c)
                    if s < samplers.count {
                        samplers[s].sample(x: a, y: b, into: d, stride: L, count: n)
                    } else {
                        for j in 0..<4 { (d + j * L).update(repeating: 0, count: n) }
                    }
                case .jumpIfNone:
                    var any = false
                    for k in 0..<n where a[k] != 0 { any = true; break }
                    if !any { pc = Int(ins.d) }
                case .jump: pc = Int(ins.d)
                case .loopGuard:
                    loops[Int(ins.a)] += 1
                    if loops[Int(ins.a)] > KernelProgram.maxIterations { pc = Int(ins.d) }
                case .loopReset: loops[Int(ins.a)] = 0
                }
            }
        }
    }
}

/// An input a general kernel samples: a block of pixels (the region its ROI asked for).
struct SpanSampler {
    let pixels: UnsafePointer<SIMD4<Float>>
    let minX: Int, minY: Int, width: Int, height: Int, rowStride: Int

    @inline(__always)
    private func pixel(_ x: Int, _ y: Int) -> SIMD4<Float> {
        let px = x - minX, py = y - minY
        guard px >= 0, py >= 0, px < width, py < height else { return .zero }
        return pixels[py * rowStride + px]
    }

    /// Bilinear samples at the points `(x[k], y[k])` (pixel centres at +0.5) into four planes.
    func sample(
        x: UnsafeMutablePointer<Float>, y: UnsafeMutablePointer<Float>, into d: UnsafeMutablePointer<Float>, stride: Int, count: Int
    ) {
        for k in 0..<count {
            let u = x[k] - 0.5, v = y[k] - 0.5
            var p = SIMD4<Float>.zero
            if u.isFinite && v.isFinite && Swift.abs(u) < 1e9 && Swift.abs(v) < 1e9 {
                let fx = u.rounded(.down), fy = v.rounded(.down)
                let x0 = Int(fx), y0 = Int(fy)
                let tx = u - fx, ty = v - fy
                let bottom = pixel(x0, y0) * (1 - tx) + pixel(x0 + 1, y0) * tx
                let top = pixel(x0, y0 + 1) * (1 - tx) + pixel(x0 + 1, y0 + 1) * tx
                p = bottom * (1 - ty) + top * ty
            }
            d[k] = p.x
            d[stride + k] = p.y
            d[2 * stride + k] = p.z
            d[3 * stride + k] = p.w
        }
    }
}
