import CCyanotypeKernels
import Foundation

// Runs compiled source kernels on the engine's kinds: a colour kernel as a fusable colour
// stage, a warp kernel as a warp map, a general kernel as a tile node with its ROI. Each call
// evaluates the program over spans of up to `KernelProgram.lanes` pixels.

enum SourceKernelApply {
    /// The kernel's arguments split into images and uniform values, or a message saying which
    /// argument does not fit its parameter.
    static func bind(_ k: CompiledKernel, _ arguments: [Any]) -> (images: [CIImage], uniforms: [Float])? {
        let expected = k.arguments.filter { $0.kind != .destination }
        guard expected.count == arguments.count else {
            logKernelMessage("kernel '\(k.name)' takes \(expected.count) argument\(expected.count == 1 ? "" : "s"), given \(arguments.count)")
            return nil
        }
        var images: [CIImage] = []
        var uniforms = [Float](repeating: 0, count: k.uniformCount)
        for (param, value) in zip(expected, arguments) {
            switch param.kind {
            case .destination: break
            case .image:
                guard let image = value as? CIImage else {
                    logKernelMessage("kernel '\(k.name)' argument '\(param.name)' must be a CIImage, given \(type(of: value))")
                    return nil
                }
                images.append(image)
            case .number(let width, let slot):
                guard let v = numbers(value, width: width) else {
                    let want = width == 1 ? "a number" : "a CIVector of \(width) values"
                    logKernelMessage("kernel '\(k.name)' argument '\(param.name)' must be \(want), given \(type(of: value))")
                    return nil
                }
                for i in 0..<width { uniforms[slot + i] = v[i] }
            case .color(let slot):
                let v: [Float]
                if let c = value as? CIColor {
                    let w = c.workingValue
                    v = [w.x, w.y, w.z, w.w]
                } else if let n = numbers(value, width: 4) {
                    v = n
                } else {
                    logKernelMessage("kernel '\(k.name)' argument '\(param.name)' must be a CIColor, given \(type(of: value))")
                    return nil
                }
                for i in 0..<4 { uniforms[slot + i] = v[i] }
            }
        }
        for (s, slot) in k.samplerExtentSlots.enumerated() where s < images.count {
            let e = images[s].extent
            let vals = [e.minX, e.minY, e.width, e.height].map { Float($0) }
            for i in 0..<4 { uniforms[slot + i] = vals[i] }
        }
        return (images, uniforms)
    }

    static func numbers(_ value: Any, width: Int) -> [Float]? {
        if let v = value as? CIVector {
            guard v.count == width || (width == 1 && v.count >= 1) else { return nil }
            return (0..<width).map { Float(v.value(at: $0)) }
        }
        if width == 4, let c = value as? CIColor {
            let w = c.workingValue
            return [w.x, w.y, w.z, w.w]
        }
        guard width == 1 else { return nil }
        switch value {
        case let d as Double: return [Float(d)]
        case let f as Float: return [f]
        case let c as CGFloat: return [Float(c)]
        case let i as Int: return [Float(i)]
        case let i as Int32: return [Float(i)]
        case let b as Bool: return [b ? 1 : 0]
        case let n as NSNumber: return [n.floatValue]
        default: return nil
        }
    }

    static func color(_ k: CompiledKernel, extent: CGRect, arguments: [Any], extentUnion: Bool) -> CIImage? {
        guard let (images, uniforms) = bind(k, arguments) else { return nil }
        let stage = SourceColorStage(kernel: k, uniforms: uniforms)
        guard let first = images.first else {
            return CIImage(color: .clear).cropped(to: extent).applying(stage, extent: extent)
        }
        return first.applying(stage, extras: Array(images.dropFirst()), extent: extent)
    }

    static func warp(_ k: CompiledKernel, extent: CGRect, roi: @escaping CIKernelROICallback, image: CIImage, arguments: [Any]) -> CIImage? {
        guard let (_, uniforms) = bind(k, arguments) else { return nil }
        let program = k.program
        let function: @Sendable (WarpRow) -> Void = { row in
            let regs = program.makeRegisters(uniforms: uniforms)
            defer { regs.deallocate() }
            let L = KernelProgram.lanes
            let px = regs + Int(program.results[0]) * L, py = regs + Int(program.results[1]) * L
            var start = 0
            while start < row.sourcePoints.count {
                let n = min(L, row.sourcePoints.count - start)
                program.runSpan(regs, count: n, x: row.x + start, y: row.y, samplers: [])
                for i in 0..<n { row.sourcePoints[start + i] = SIMD2(px[i], py[i]) }
                start += n
            }
        }
        return CIImage(node: WarpKernelNode(input: image.node, extent: extent, roi: roi, function: function, name: k.name))
    }

    static func general(_ k: CompiledKernel, extent: CGRect, roi: @escaping CIKernelROICallback, arguments: [Any]) -> CIImage? {
        guard let (images, uniforms) = bind(k, arguments) else { return nil }
        let program = k.program
        let function: @Sendable (KernelTile) -> Void = { tile in
            let regs = program.makeRegisters(uniforms: uniforms)
            defer { regs.deallocate() }
            let samplers = tile.inputs.map { s in
                cyan_ir_sampler(
                    pixels: UnsafeRawPointer(s.pixels.base).assumingMemoryBound(to: Float.self), min_x: Int64(s.region.minX),
                    min_y: Int64(s.region.minY), width: Int64(s.region.width), height: Int64(s.region.height),
                    row_stride: Int64(s.pixels.rowStride))
            }
            let L = KernelProgram.lanes
            let x0 = Int(tile.rect.minX), y0 = Int(tile.rect.minY), w = Int(tile.rect.width)
            for r in 0..<Int(tile.rect.height) {
                let out = tile.outputRow(r)
                var start = 0
                while start < w {
                    let n = min(L, w - start)
                    program.runSpan(regs, count: n, x: x0 + start, y: y0 + r, samplers: samplers)
                    store(program, regs, into: out.baseAddress! + start, count: n)
                    start += n
                }
            }
        }
        return CIImage(node: generalKernelNode(images: images.map(\.node), extent: extent, roi: roi, function: function, name: k.name))
    }

    /// Interleaves the four result registers into pixels.
    static func store(_ program: KernelProgram, _ regs: UnsafeMutablePointer<Float>, into d: UnsafeMutablePointer<SIMD4<Float>>, count n: Int) {
        let r = program.results
        d.withMemoryRebound(to: Float.self, capacity: 4 * n) { p in
            cyan_ir_interleave(p, regs, Int64(KernelProgram.lanes), r[0], r[1], r[2], r[3], Int64(n))
        }
    }
}

/// A compiled colour kernel as a fusable stage: each row is cut into spans, the `__sample`
/// inputs are split into planes, the program runs once per span, and the result is interleaved back.
struct SourceColorStage: ColorStage {
    let kernel: CompiledKernel
    let uniforms: [Float]
    var extraInputCount: Int { max(0, kernel.imageCount - 1) }
    var wantsUnpremultiplied: Bool { false }
    var label: String { "kernel \(kernel.name)" }

    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let program = kernel.program
        let regs = program.makeRegisters(uniforms: uniforms)
        defer { regs.deallocate() }
        let L = KernelProgram.lanes
        var start = 0
        while start < count {
            let n = min(L, count - start)
            for (i, base) in program.imageRegisters.enumerated() {
                let src = UnsafeRawPointer((i == 0 ? row : extra[i - 1]) + start).assumingMemoryBound(to: Float.self)
                cyan_ir_deinterleave(regs + Int(base) * L, Int64(L), src, Int64(n))
            }
            program.runSpan(regs, count: n, x: x + start, y: y, samplers: [])
            SourceKernelApply.store(program, regs, into: row + start, count: n)
            start += n
        }
    }
}
