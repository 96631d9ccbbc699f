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
        let k = CIColorKernel(name: "grain noise seed \(seed)") { row in
            let out = row.output
            let y = UInt32(truncatingIfNeeded: row.y)
            let base = y &* 0x9E37_79B1 ^ seed &* 0x85EB_CA77
            for i in 0..<out.count {
                // Antithetic pairs: cells 2k and 2k+1 get v and 1 - v (which one is random),
                // so the noise sums to zero over every pair and the mean brightness holds.
                let x = row.x + i
                var h = UInt32(truncatingIfNeeded: x >> 1) &* 0xC2B2_AE3D ^ base
                h ^= h >> 16; h = h &* 0x7FEB_352D
                h ^= h >> 15; h = h &* 0x846C_A68B
                h ^= h >> 16
                let u = Float(h >> 8) * (1 / 16_777_216)
                let v = (UInt32(x & 1) ^ (h & 1)) == 0 ? u : 1 - u
                out[i] = SIMD4(v, v, v, 1)
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
        let blend = CIColorKernel(name: "grain overlay", premultiplied: false) { row in
            let px = row.output, n = row.input(0)
            for i in 0..<px.count {
                let c = px[i]
                let l = 0.2126 * c.x + 0.7152 * c.y + 0.0722 * c.z
                let d = strength * 4 * l * (1 - l) * (n[i].x - 0.5)
                px[i] = c + SIMD4(d, d, d, 0)
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
