// 3x3 edge neighbourhoods: the Sobel operator in its several outputs (CIEdges,
// CISobelGradients, CIEdgeWork, CILineOverlay) and the small noise reduction CILineOverlay
// runs first. Both read their input with a one-pixel halo; the filters hand them an input
// clamped to its extent, so the border sees its own edge pixels rather than clear.

/// What a Sobel node outputs, from the per-channel gradients on premultiplied pixels
///   gx = (ne + 2 e + se) - (nw + 2 w + sw),  gy = (nw + 2 n + ne) - (sw + 2 s + se)
/// (n is the pixel above, at y + 1 in Core Image's y-up coordinates; unnormalised, so a unit
/// step gives 4).
enum SobelOutput: Sendable {
    /// `intensity * sqrt(gx² + gy²)` per colour channel, opaque.
    case magnitude(intensity: Float)
    /// red: the gx of largest magnitude over red, green and blue (signed); green: the same
    /// for gy; blue 0; opaque.
    case signedGradients
    /// White paper with black ink where the luma gradient is strong:
    /// `ink = clamp((E - low) / (high - low), 0, 1)`, `out = (1 - ink, 1 - ink, 1 - ink, 1)`,
    /// E the magnitude of the gradient of Rec. 709 luma.
    case ink(low: Float, high: Float)
    /// Black lines over clear: `alpha = clamp(contrast * (intensity * E - threshold), 0, 1)`,
    /// colour black, E as for `ink`.
    case lines(intensity: Float, threshold: Float, contrast: Float)
}

final class SobelNode: RecipeNode, @unchecked Sendable {
    let output: SobelOutput
    override var halo: Int { 1 }
    override var isExpensive: Bool { true }

    /// `extent` is the output's (the filters pass the unclamped input's).
    init(input: RecipeNode, output: SobelOutput, extent: CGRect) {
        self.output = output
        super.init(extent: extent, inputs: [input])
    }

    override func inputRect(_ index: Int, for rect: PixelRect) -> PixelRect { rect.insetBy(dx: -1, dy: -1) }

    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        let src = rect.insetBy(dx: -1, dy: -1)
        let block = PixelBlock(rect: src)
        ev.fill(inputs[0], src, block.buffer)
        let sw = src.width, w = rect.width
        let luma = SIMD4<Float>(lumaWeights, 0)
        for oy in 0..<rect.height {
            // Centre of output pixel 0; rows ascend in y, so `n` (above) is one row on.
            let m = block.pixels + (oy + 1) * sw + 1, n = m + sw, s = m - sw
            let d = out.row(oy)
            switch output {
            case .magnitude(let k):
                for x in 0..<w {
                    let gx = (n[x + 1] + 2 * m[x + 1] + s[x + 1]) - (n[x - 1] + 2 * m[x - 1] + s[x - 1])
                    let gy = (n[x - 1] + 2 * n[x] + n[x + 1]) - (s[x - 1] + 2 * s[x] + s[x + 1])
                    var v = (gx * gx + gy * gy).squareRoot() * k
                    v.w = 1
                    d[x] = v
                }
            case .signedGradients:
                for x in 0..<w {
                    let gx = (n[x + 1] + 2 * m[x + 1] + s[x + 1]) - (n[x - 1] + 2 * m[x - 1] + s[x - 1])
                    let gy = (n[x - 1] + 2 * n[x] + n[x + 1]) - (s[x - 1] + 2 * s[x] + s[x + 1])
                    d[x] = SIMD4(largest(gx), largest(gy), 0, 1)
                }
            case .ink(let low, let high):
                let scale = 1 / (high - low)
                for x in 0..<w {
                    let e = lumaGradient(n, m, s, x, luma)
                    let ink = min(max((e - low) * scale, 0), 1)
                    d[x] = SIMD4(1 - ink, 1 - ink, 1 - ink, 1)
                }
            case .lines(let k, let t, let c):
                for x in 0..<w {
                    let e = lumaGradient(n, m, s, x, luma)
                    let a = min(max(c * (k * e - t), 0), 1)
                    d[x] = SIMD4(0, 0, 0, a)
                }
            }
        }
    }

    /// The component of red, green, blue with the largest magnitude (the first on ties).
    @inline(__always) private func largest(_ g: SIMD4<Float>) -> Float {
        var v = g.x
        if abs(g.y) > abs(v) { v = g.y }
        if abs(g.z) > abs(v) { v = g.z }
        return v
    }

    /// Magnitude of the Sobel gradient of luma at column x.
    @inline(__always) private func lumaGradient(_ n: UnsafeMutablePointer<SIMD4<Float>>, _ m: UnsafeMutablePointer<SIMD4<Float>>,
                                                _ s: UnsafeMutablePointer<SIMD4<Float>>, _ x: Int, _ luma: SIMD4<Float>) -> Float {
        let gx = (n[x + 1] + 2 * m[x + 1] + s[x + 1]) - (n[x - 1] + 2 * m[x - 1] + s[x - 1])
        let gy = (n[x - 1] + 2 * n[x] + n[x + 1]) - (s[x - 1] + 2 * s[x] + s[x + 1])
        let lx = gx.x * luma.x + gx.y * luma.y + gx.z * luma.z
        let ly = gy.x * luma.x + gy.y * luma.y + gy.z * luma.z
        return (lx * lx + ly * ly).squareRoot()
    }

    override var label: String { "sobel \(output)" }
}

/// A 3x3 noise reduction (CILineOverlay's first step): with Y the Rec. 709 luma of the
/// premultiplied colour,
///   smooth = mean of the 3x3 neighbours q with |Y(q) - Y(p)| <= noiseLevel (p included),
///   mean   = mean of all nine,
///   out    = smooth + sharpness * (smooth - mean)   (all four components).
/// Small luma differences (noise) are averaged away; across larger ones (edges) only the
/// pixel's own side is averaged, and pushing away from the full mean sharpens the edge.
/// Noise level 0 and sharpness 0 average only neighbours of exactly equal luma.
final class NoiseReductionNode: RecipeNode, @unchecked Sendable {
    let noiseLevel: Float
    let sharpness: Float
    override var halo: Int { 1 }
    override var isExpensive: Bool { true }

    init(input: RecipeNode, noiseLevel: Float, sharpness: Float) {
        self.noiseLevel = noiseLevel
        self.sharpness = sharpness
        super.init(extent: input.extent, inputs: [input])
    }

    override func inputRect(_ index: Int, for rect: PixelRect) -> PixelRect { rect.insetBy(dx: -1, dy: -1) }

    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        let src = rect.insetBy(dx: -1, dy: -1)
        let block = PixelBlock(rect: src)
        ev.fill(inputs[0], src, block.buffer)
        let sw = src.width
        let luma = SIMD4<Float>(lumaWeights, 0)
        let level = noiseLevel, k = sharpness
        for oy in 0..<rect.height {
            let m = block.pixels + (oy + 1) * sw + 1
            let d = out.row(oy)
            for x in 0..<rect.width {
                let p = m[x], yp = p.x * luma.x + p.y * luma.y + p.z * luma.z
                var sum = SIMD4<Float>.zero, all = SIMD4<Float>.zero
                var count: Float = 0
                var dy = -1
                while dy <= 1 {
                    let r = m + dy * sw + x
                    var dx = -1
                    while dx <= 1 {
                        let q = r[dx]
                        all += q
                        if abs(q.x * luma.x + q.y * luma.y + q.z * luma.z - yp) <= level { sum += q; count += 1 }
                        dx += 1
                    }
                    dy += 1
                }
                let smooth = sum / count, mean = all / 9
                d[x] = smooth + k * (smooth - mean)
            }
        }
    }

    override var label: String { "noise reduction \(noiseLevel) sharpness \(sharpness)" }
}
