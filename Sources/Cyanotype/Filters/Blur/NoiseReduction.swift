// CINoiseReduction: a 3x3 neighbourhood operation that averages the neighbours of similar
// luma (noise) and sharpens across larger steps (edges). CILineOverlay runs the same
// operation as its first step.

extension BuiltinFilters {
    /// CINoiseReduction: Reduces noise below a threshold and sharpens the rest.
    static let noiseReduction = BuiltinFilter(
        FilterDescriptor(
            "CINoiseReduction", "Noise Reduction", "Reduces noise below a threshold and sharpens the rest.",
            categories: [.blur, .builtIn, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "9", factory: "noiseReduction",
            doc: """
                Apple describes luma changes below the noise level as noise, blurred
                locally, and larger ones as edges, sharpened. Ours, per pixel p of the input (read
                clamped to its extent, so the border sees its own pixels): with Y the Rec. 709 luma
                of the premultiplied colour, `smooth` the mean of the 3x3 neighbours q with
                |Y(q) - Y(p)| <= noiseLevel (p included) and `mean` the mean of all nine,
                `out = smooth + sharpness * (smooth - mean)` (all four components). Sharpness 0 is
                the selective average alone; noise level 0 averages only neighbours of exactly equal
                luma. The extent is the input's.
                """,
            inputs: [
                .image(),
                .number(
                    "inputNoiseLevel", "Noise Level", .scalar, default: 0.02, identity: 0, min: 0, slider: 0...0.1,
                    """
                    The largest luma difference to a neighbour that is averaged away
                    as noise.
                    """),
                .number("inputSharpness", "Sharpness", .scalar, default: 0.4, identity: 0, min: 0, slider: 0...2, "How far the result is pushed away from the plain 3x3 mean."),
            ]),
        reach: .pixels(1)
    ) { args throws(CIFilterError) in
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
struct NoiseReduction: NeighbourhoodOperation {
    let noiseLevel: Float
    let sharpness: Float
    var reach: NeighbourhoodReach { NeighbourhoodReach(1) }

    // Per tile: every input pixel's luma once, then each output pixel from its nine
    // neighbours without branches. The sums add the same terms in the same order as the
    // definition (a neighbour left out adds +0, which changes no sum), so the result is the
    // same to the bit as summing the selected neighbours alone.
    func apply(_ input: NeighbourhoodInput, into out: TileBuffer) {
        let src = input.pixels, W = src.width, H = src.height
        let lumas = UnsafeMutablePointer<Float>.allocate(capacity: W * H)
        defer { lumas.deallocate() }
        let luma = SIMD4<Float>(lumaWeights, 0)
        for j in 0..<H {
            let s = src.row(j), l = lumas + j * W
            for i in 0..<W { let q = s[i]; l[i] = q.x * luma.x + q.y * luma.y + q.z * luma.z }
        }
        let level = noiseLevel, k = sharpness
        for y in 0..<out.height {
            let d = out.row(y)
            // Rows ascend in y: the row below (dy = -1) first, as in the definition.
            let p0 = src.row(y), p1 = src.row(y + 1), p2 = src.row(y + 2)
            let l0 = UnsafePointer(lumas + y * W), l1 = l0 + W, l2 = l1 + W
            for x in 0..<out.width {
                let yp = l1[x + 1]
                var sum = SIMD4<Float>.zero, all = SIMD4<Float>.zero
                var count: Float = 0
                @inline(__always) func take(_ q: SIMD4<Float>, _ lq: Float) {
                    all += q
                    let near = abs(lq - yp) <= level
                    sum += near ? q : .zero
                    count += near ? 1 : 0
                }
                take(p0[x], l0[x]); take(p0[x + 1], l0[x + 1]); take(p0[x + 2], l0[x + 2])
                take(p1[x], l1[x]); take(p1[x + 1], l1[x + 1]); take(p1[x + 2], l1[x + 2])
                take(p2[x], l2[x]); take(p2[x + 1], l2[x + 1]); take(p2[x + 2], l2[x + 2])
                let smooth = sum / count, mean = all / 9
                d[x] = smooth + k * (smooth - mean)
            }
        }
    }

    var label: String { "noise reduction \(noiseLevel) sharpness \(sharpness)" }
}
