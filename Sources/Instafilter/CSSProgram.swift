import CCyanotypeKernels
import Cyanotype
import Foundation

/// An overlay ready for the row loop: stops resolved and premultiplied, colours in [0, 1].
struct CompiledOverlay: Sendable {
    enum Shape: Sendable { case constant, linear(CSSSide), radial(cx: Double, cy: Double) }
    let shape: Shape
    let mode: CSSBlendMode
    /// The engine's blend function for `mode` (every CSS mode has one).
    let blend: CIBlendFunction?
    let opacity: Float
    /// Constant fill: straight rgb, alpha already multiplied by the opacity.
    let constant: SIMD4<Float>
    let positions: [Float]
    /// Premultiplied sRGB-encoded stop colours (rgb * a, a).
    let premultipliedStops: [SIMD4<Float>]

    init(_ o: CSSOverlay) {
        mode = o.blendMode
        blend = o.blendMode.blendKernel.blendFunction
        opacity = Float(min(max(o.opacity, 0), 1))
        func premul(_ c: CSSColor) -> SIMD4<Float> {
            let a = Float(min(max(c.alpha, 0), 1))
            return SIMD4(Float(c.red / 255) * a, Float(c.green / 255) * a, Float(c.blue / 255) * a, a)
        }
        switch o.fill {
        case .color(let c):
            shape = .constant
            constant = SIMD4(Float(c.red / 255), Float(c.green / 255), Float(c.blue / 255), Float(min(max(c.alpha, 0), 1)) * opacity)
            positions = []; premultipliedStops = []
        case .linearGradient(let side, let stops):
            shape = .linear(side)
            let r = resolvedStops(stops)
            positions = r.map { Float($0.pos) }; premultipliedStops = r.map { premul($0.color) }
            constant = .zero
        case .radialGradient(let c, let stops):
            shape = .radial(cx: c.x, cy: c.y)
            let r = resolvedStops(stops)
            positions = r.map { Float($0.pos) }; premultipliedStops = r.map { premul($0.color) }
            constant = .zero
        }
    }

    /// Fills `fill[0..<n]` with the overlay's straight colour and effective alpha (fill alpha
    /// times opacity) for a row of pixels starting at (x, y) in Core Image coordinates;
    /// `box` is the element box (the image extent).
    func computeFill(into fill: UnsafeMutablePointer<SIMD4<Float>>, count n: Int, x: Int, y: Int, box: CGRect) {
        if case .constant = shape {
            for i in 0..<n { fill[i] = constant }
            return
        }
        let w = Double(box.width), h = Double(box.height)
        // CSS measures from the top left; Core Image's y runs up.
        let v = Double(box.maxY) - (Double(y) + 0.5)
        let u0 = Double(x) + 0.5 - Double(box.minX)
        let op = opacity
        positions.withUnsafeBufferPointer { pos in
            premultipliedStops.withUnsafeBufferPointer { cols in
                let m = pos.count
                guard m > 0 else { for i in 0..<n { fill[i] = .zero }; return }
                let first = cols[0], last = cols[m - 1], p0 = pos[0], pl = pos[m - 1]
                @inline(__always) func colour(_ t: Float) -> SIMD4<Float> {
                    var c: SIMD4<Float>
                    if t <= p0 {
                        c = first
                    } else if t >= pl {
                        c = last
                    } else {
                        c = last
                        var k = 0
                        while k < m - 1 {
                            let a = pos[k], b = pos[k + 1]
                            if t >= a && t < b {
                                let f = (t - a) / (b - a)
                                c = cols[k] + (cols[k + 1] - cols[k]) * f
                                break
                            }
                            k += 1
                        }
                    }
                    let a = c.w
                    if a > 0 { c = SIMD4(c.x / a, c.y / a, c.z / a, a * op) } else { c = .zero }
                    return c
                }
                switch shape {
                case .linear(let side):
                    for i in 0..<n {
                        let u = u0 + Double(i)
                        let t: Double
                        switch side {
                        case .right: t = u / w
                        case .left: t = 1 - u / w
                        case .bottom: t = v / h
                        case .top: t = 1 - v / h
                        }
                        fill[i] = colour(Float(t))
                    }
                case .radial(let fx, let fy):
                    let cx = fx * w, cy = fy * h
                    let rx = max(cx, w - cx), ry = max(cy, h - cy)
                    let radius = (rx * rx + ry * ry).squareRoot()
                    let inv = radius > 0 ? 1 / radius : 0
                    let dy2 = (v - cy) * (v - cy)
                    for i in 0..<n {
                        let dx = u0 + Double(i) - cx
                        fill[i] = colour(Float((dx * dx + dy2).squareRoot() * inv))
                    }
                case .constant: break
                }
            }
        }
    }
}

/// Blends `fill` (straight colour, effective alpha) onto `px` (straight, sRGB-encoded) with
/// the engine's blend function: `Cb + As * (B(Cb, Cs) - Cb)`, alpha kept (CSS over an opaque
/// backdrop).
@inline(__always)
func blendRow(_ blend: CIBlendFunction?, _ px: UnsafeMutablePointer<SIMD4<Float>>, _ fill: UnsafeMutablePointer<SIMD4<Float>>, _ n: Int) {
    blend?.apply(source: UnsafeBufferPointer(start: fill, count: n), to: UnsafeMutableBufferPointer(start: px, count: n))
}

/// Applies packed affines (13 floats each, see `CSSAffine.packed`) left to right, clamping
/// every channel to [0, 1] after each one (NaN to 0), all of them per pixel in one pass over
/// the row.
func applyAffines(_ m: UnsafeBufferPointer<Float>, _ px: UnsafeMutablePointer<SIMD4<Float>>, _ n: Int) {
    let k = m.count / 13
    guard k > 0, n > 0, let mp = m.baseAddress else { return }
    // The C loop (eight pixels a step with AVX2, four with SSE2, chosen at run time) does the
    // same arithmetic bit for bit; the loop below runs where it has no path.
    let done = UnsafeMutableRawPointer(px).withMemoryRebound(to: Float.self, capacity: 4 * n) {
        cyan_css_affines_rgbaf($0, n, mp, Int32(k)) != 0
    }
    if !done { applyAffinesPortable(m, px, n) }
}

/// `applyAffines` in Swift, one SIMD4 pixel at a time: where the C loop has no path, and the
/// reference its bits are tested against.
func applyAffinesPortable(_ m: UnsafeBufferPointer<Float>, _ px: UnsafeMutablePointer<SIMD4<Float>>, _ n: Int) {
    let k = m.count / 13
    guard k > 0, n > 0 else { return }
    withUnsafeTemporaryAllocation(of: SIMD4<Float>.self, capacity: 5 * k) { columns in
        guard let c = columns.baseAddress else { return }
        for a in 0..<k {
            let b = 13 * a
            // Columns of the 4x4 map (alpha row: 0 0 0 sa) and the offset column.
            c[5 * a] = SIMD4(m[b], m[b + 4], m[b + 8], 0)
            c[5 * a + 1] = SIMD4(m[b + 1], m[b + 5], m[b + 9], 0)
            c[5 * a + 2] = SIMD4(m[b + 2], m[b + 6], m[b + 10], 0)
            c[5 * a + 3] = SIMD4(0, 0, 0, m[b + 12])
            c[5 * a + 4] = SIMD4(m[b + 3], m[b + 7], m[b + 11], 0)
        }
        let one = SIMD4<Float>(repeating: 1)
        for i in 0..<n {
            var p = px[i]
            var col = c
            for _ in 0..<k {
                let q = col[0] * p.x + col[1] * p.y + col[2] * p.z + col[3] * p.w + col[4]
                p = SIMD4<Float>.zero.replacing(with: q, where: q .> 0)
                p = p.replacing(with: one, where: p .> one)
                col += 5
            }
            px[i] = p
        }
    }
}

/// A CSSgram-style look compiled once: overlays composited first (::before, then ::after),
/// then the filter functions left to right, all on sRGB-encoded values in ONE colour kernel
/// so it fuses with the colour work around it.
struct CSSProgram: Sendable {
    let overlays: [CompiledOverlay]
    let affines: [Float]
    let name: String

    init(name: String, overlays: [CSSOverlay], functions: [CSSFilterFunction]) {
        self.name = name
        self.overlays = overlays.map(CompiledOverlay.init)
        self.affines = functions.flatMap { $0.affine.packed }
    }

    /// Whether the overlays depend on position (gradients need the element box).
    var usesBox: Bool { overlays.contains { if case .constant = $0.shape { return false } else { return true } } }

    /// The look over `image`: its colour matched out to sRGB-encoded values, the kernel, and
    /// matched back (Core Image's `matchedFromWorkingSpace(to:)` pattern). The engine drops
    /// the conversions between consecutive looks and folds them into 8-bit sRGB reads and
    /// writes. `intensity` below 1 mixes with the original in the working space.
    func apply(to image: CIImage, intensity: Float) -> CIImage {
        let t = min(max(intensity, 0), 1)
        guard t > 0 else { return image }
        guard let encoded = image.matchedFromWorkingSpace(to: sRGBSpace),
            let looked = encodedKernel(box: image.extent).apply(extent: image.extent, arguments: [encoded]),
            let full = looked.matchedToWorkingSpace(from: sRGBSpace)
        else { return image }
        return t >= 1 ? full : mix(full, over: image, amount: Double(t))
    }

    /// The kernel for one element box (cheap: captures the compiled state). Rows arrive
    /// straight (unpremultiplied) and sRGB-encoded, and leave the same way.
    func encodedKernel(box: CGRect) -> CIColorKernel {
        let overlays = self.overlays, affines = self.affines
        return CIColorKernel(name: "css look \(name)", premultiplied: false) { row in
            let px = row.output
            let n = px.count
            guard n > 0, let p = px.baseAddress else { return }
            for i in 0..<n { p[i].w = min(max(p[i].w, 0), 1) }
            if !overlays.isEmpty {
                withUnsafeTemporaryAllocation(of: SIMD4<Float>.self, capacity: n) { scratch in
                    guard let fill = scratch.baseAddress else { return }
                    for o in overlays {
                        if case .constant = o.shape {
                            // One colour: blended straight in, no row of copies.
                            o.blend?.apply(color: o.constant, to: px)
                            continue
                        }
                        o.computeFill(into: fill, count: n, x: row.x, y: row.y, box: box)
                        blendRow(o.blend, p, fill, n)
                    }
                }
            }
            affines.withUnsafeBufferPointer { applyAffines($0, p, n) }
        }
    }
}

/// sRGB, the space CSS looks are defined in.
let sRGBSpace = CGColorSpace(name: CGColorSpace.sRGB)!
