// CINoiseReduction: a 3x3 neighbourhood operation that averages the neighbours of similar
// luma (noise) and sharpens across larger steps (edges). CILineOverlay runs the same
// operation as its first step.

extension BuiltinFilters {
    /// CINoiseReduction: Apple describes luma changes below the noise level as noise, blurred
    /// locally, and larger ones as edges, sharpened. Ours, per pixel p of the input (read
    /// clamped to its extent, so the border sees its own pixels): with Y the Rec. 709 luma
    /// of the premultiplied colour, `smooth` the mean of the 3x3 neighbours q with
    /// |Y(q) - Y(p)| <= noiseLevel (p included) and `mean` the mean of all nine,
    /// `out = smooth + sharpness * (smooth - mean)` (all four components). Sharpness 0 is
    /// the selective average alone; noise level 0 averages only neighbours of exactly equal
    /// luma. The extent is the input's.
    ///
    /// - inputNoiseLevel: The largest luma difference to a neighbour that is averaged away
    ///   as noise.
    /// - inputSharpness: How far the result is pushed away from the plain 3x3 mean.
    static let noiseReduction = BuiltinFilter(Catalog.CINoiseReduction) { args throws(CIFilterError) in
        let image = try args.image()
        let level = try args.float("inputNoiseLevel"), sharpness = try args.float(kCIInputSharpnessKey)
        if image.extent.isEmpty { return image }
        let clamped = image.extent.isInfinite ? image : image.clampedToExtent()
        let reduced = CIImage(node: NeighbourhoodNode(input: clamped.node, operation: NoiseReduction(noiseLevel: level, sharpness: sharpness)))
        return image.extent.isInfinite ? reduced : reduced.cropped(to: image.extent)
    }
}

/// A 3x3 noise reduction (CILineOverlay's first step): with Y the Rec. 709 luma of the
/// premultiplied colour,
///   smooth = mean of the 3x3 neighbours q with |Y(q) - Y(p)| <= noiseLevel (p included),
///   mean   = mean of all nine,
///   out    = smooth + sharpness * (smooth - mean)   (all four components).
/// Small luma differences (noise) are averaged away; across larger ones (edges) only the
/// pixel's own side is averaged, and pushing away from the full mean sharpens the edge.
/// Noise level 0 and sharpness 0 average only neighbours of exactly equal luma.
struct NoiseReduction: NeighbourhoodRowOperation {
    let noiseLevel: Float
    let sharpness: Float
    var reach: NeighbourhoodReach { NeighbourhoodReach(1) }

    func run(_ m: UnsafeMutablePointer<SIMD4<Float>>, stride sw: Int, into d: UnsafeMutablePointer<SIMD4<Float>>, count width: Int) {
        let luma = SIMD4<Float>(lumaWeights, 0)
        let level = noiseLevel, k = sharpness
        for x in 0..<width {
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

    var label: String { "noise reduction \(noiseLevel) sharpness \(sharpness)" }
}
