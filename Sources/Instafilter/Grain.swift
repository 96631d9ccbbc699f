import CCyanotypeKernels
import Cyanotype
import Foundation

/// Film grain: seeded noise from a generator kernel, scaled to the grain size with an affine
/// (bilinear) transform, then blended as a luminance-weighted overlay on sRGB-encoded values
/// (strongest in the midtones, fading to nothing in pure black and white, as in film).
///
/// Deterministic: the same `seed`, image size and parameters give the same pixels. The noise
/// is zero-mean, so the average brightness barely moves (below 1/255 on ordinary images).
public final class InstaGrain: BaseFilter, @unchecked Sendable {
    private var amount: Double = 0.35
    private var scale: Double = 1.5
    private var storedSeed: UInt32 = 0

    /// Grain with the defaults: amount 0.35, scale 1.5 pixels, seed 0.
    public init() { super.init(name: "grain") }

    /// Grain strength, 0...1 (1: +-0.2 in encoded midtones).
    public var grainAmount: Double {
        get { withParameterLock { amount } }
        set { withParameterLock { amount = newValue.isFinite ? min(max(newValue, 0), 1) : 0.35 } }
    }
    /// Grain size in output pixels, 0.5...16.
    public var grainScale: Double {
        get { withParameterLock { scale } }
        set { withParameterLock { scale = newValue.isFinite ? min(max(newValue, 0.5), 16) : 1.5 } }
    }
    /// The noise seed; exports with the same seed are identical.
    public var seed: UInt32 {
        get { withParameterLock { storedSeed } }
        set { withParameterLock { storedSeed = newValue } }
    }

    /// `grainAmount`, `grainScale` and `seed`, for recipes.
    override public var parameters: [String: Double] {
        withParameterLock { ["grainAmount": amount, "grainScale": scale, "seed": Double(storedSeed)] }
    }
    /// Sets `grainAmount`, `grainScale` or `seed` (0 to 2^32 - 1); throws
    /// `RecipeError` for another name or a seed out of range.
    override public func setParameter(_ key: String, to value: Double) throws(RecipeError) {
        switch key {
        case "grainAmount": grainAmount = value
        case "grainScale": grainScale = value
        case "seed":
            guard value.isFinite, value >= 0, value <= Double(UInt32.max) else {
                throw .invalidValue(filter: name, key: key, reason: "a seed is a whole number 0...\(UInt32.max)")
            }
            seed = UInt32(value)
        default: throw .unknownParameter(filter: name, key: key, valid: ["intensity", "grainAmount", "grainScale", "seed"])
        }
    }

    /// Uniform noise in [0, 1] per pixel from a hash of (x, y, seed), zero-mean in pairs;
    /// extent `rect`. Computed in the row loop: no random-number generator per pixel.
    static func noise(seed: UInt32, rect: CGRect) -> CIImage {
        // Antithetic pairs: cells 2k and 2k+1 get v and 1 - v (which one is random), so the
        // noise sums to zero over every pair and the mean brightness holds. The hash of
        // (x >> 1, y, seed) runs in C, eight pixels a step where the CPU has AVX2.
        let k = CIColorKernel(name: "grain noise seed \(seed)") { row in
            let out = row.output
            guard let o = out.baseAddress, out.count > 0 else { return }
            UnsafeMutableRawPointer(o).withMemoryRebound(to: Float.self, capacity: 4 * out.count) {
                cyan_grain_noise_rgbaf($0, out.count, Int64(row.x), Int64(row.y), seed)
            }
        }
        return k.apply(extent: rect, arguments: []) ?? CIImage(color: .gray).cropped(to: rect)
    }

    /// The image with grain scaled by `intensity`.
    override public func look(for image: CIImage, intensity: Double) -> CIImage {
        let (a, s, sd) = withParameterLock { (amount, scale, storedSeed) }
        let strength = Float(a * intensity * 0.2 * 2)  // noise - 0.5 spans +-0.5
        guard strength > 0 else { return image }
        let e = image.extent
        // Noise on a grid of `s`-pixel cells anchored at the image's corner, so it does not
        // depend on where the image sits, then resampled up to pixels.
        let cols = (Double(e.width) / s).rounded(.up) + 8, rows = (Double(e.height) / s).rounded(.up) + 8
        var grain = InstaGrain.noise(seed: sd, rect: CGRect(x: -4, y: -4, width: cols, height: rows))
        if s != 1 {
            // Bilinear resampling (an affine transform): as smooth as Lanczos for upscaled
            // noise and a fraction of the cost.
            grain = grain.transformed(by: CGAffineTransform(scaleX: s, y: s))
        }
        grain = grain.transformed(by: CGAffineTransform(translationX: e.minX, y: e.minY)).cropped(to: e)
        // Luminance-weighted overlay: C' = C + strength * 4L(1 - L) * (n - 0.5), on
        // sRGB-encoded values (matched out and back, as the CSS looks are: the conversions
        // between a look and its grain cancel); the same noise in all channels.
        // l = 0.2126 r + 0.7152 g + 0.0722 b, d = strength 4 l (1 - l) (noise - 0.5), added to
        // the colour: in C (vector width chosen at run time).
        let blend = CIColorKernel(name: "grain overlay", premultiplied: false) { row in
            let px = row.output, n = row.input(0)
            guard let p = px.baseAddress, let q = n.baseAddress, px.count > 0 else { return }
            let count = min(px.count, n.count)
            UnsafeMutableRawPointer(p).withMemoryRebound(to: Float.self, capacity: 4 * count) { pf in
                UnsafeRawPointer(q).withMemoryRebound(to: Float.self, capacity: 4 * count) { nf in
                    cyan_grain_overlay_rgbaf(pf, nf, count, strength)
                }
            }
        }
        guard let encoded = image.matchedFromWorkingSpace(to: sRGBSpace),
            let grained = blend.apply(extent: e, arguments: [encoded, grain]),
            let out = grained.matchedToWorkingSpace(from: sRGBSpace)
        else { return image }
        return out
    }

    /// An independent copy with the same amount, scale, seed and intensity.
    override public func copy() -> BaseFilter {
        let c = InstaGrain()
        c.intensity = intensity
        c.grainAmount = grainAmount; c.grainScale = grainScale; c.seed = seed
        return c
    }
}
