extension BuiltinFilters {
    /// CISpotColor: Replaces up to three color ranges with chosen spot colors.
    static let spotColor = BuiltinFilter(
        FilterDescriptor(
            "CISpotColor", "Spot Color", "Replaces up to three color ranges with chosen spot colors.",
            categories: [.builtIn, .highDynamicRange, .stillImage, .stylize, .video], macOS: "10.5", iOS: "9", factory: "spotColor",
            doc: """
                Replaces up to three colours with spot colours. On straight, sRGB-encoded
                colour, each pixel's Euclidean RGB distance d to `centerColor_i` gives the weight
                `w_i = 1` for `d <= closeness_i * contrast_i`, 0 for `d >= closeness_i`, and a
                smoothstep between (contrast 1: a hard edge; closeness 0: only the exact colour); the
                three pairs apply in order, `rgb = mix(rgb, replacementColor_i, w_i)`, each weight
                from the pixel's own colour. Alpha is kept. Output extent: the input's.
                """,
            inputs: [
                .image(),
                .color("inputCenterColor1", "Center Color 1", .color, default: [0.0784, 0.0627, 0.0706, 1], "The first colour to replace."),
                .color("inputReplacementColor1", "Replacement Color 1", .color, default: [0.4392, 0.1922, 0.1961, 1], "What the first colour becomes."),
                .number(
                    "inputCloseness1", "Closeness 1", .scalar, default: 0.22, min: 0, slider: 0...0.5,
                    """
                    How far (RGB distance, sRGB-encoded 0...1 components) from the
                    first colour a pixel still changes.
                    """),
                .number("inputContrast1", "Contrast 1", .scalar, default: 0.98, min: 0, slider: 0...1, "The share of that distance that changes fully (1: a hard edge)."),
                .color("inputCenterColor2", "Center Color 2", .color, default: [0.5255, 0.3059, 0.3451, 1], "The second colour to replace."),
                .color("inputReplacementColor2", "Replacement Color 2", .color, default: [0.9137, 0.5608, 0.5059, 1], "What the second colour becomes."),
                .number("inputCloseness2", "Closeness 2", .scalar, default: 0.15, min: 0, slider: 0...0.5, "As closeness 1, for the second colour."),
                .number("inputContrast2", "Contrast 2", .scalar, default: 0.98, min: 0, slider: 0...1, "As contrast 1, for the second colour."),
                .color("inputCenterColor3", "Center Color 3", .color, default: [0.9216, 0.4549, 0.3333, 1], "The third colour to replace."),
                .color("inputReplacementColor3", "Replacement Color 3", .color, default: [0.9098, 0.7529, 0.6078, 1], "What the third colour becomes."),
                .number("inputCloseness3", "Closeness 3", .scalar, default: 0.5, min: 0, slider: 0...0.5, "As closeness 1, for the third colour."),
                .number("inputContrast3", "Contrast 3", .scalar, default: 0.99, min: 0, slider: 0...1, "As contrast 1, for the third colour."),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        var spots: [SpotColorStage.Spot] = []
        for i in 1...3 {
            func encoded(_ key: String) throws(CIFilterError) -> SIMD3<Float> {
                let c = straightWorking(try args.color(key))
                return SIMD3(linearToSRGB(c.x), linearToSRGB(c.y), linearToSRGB(c.z))
            }
            let closeness = try args.float("inputCloseness\(i)"), contrast = try args.float("inputContrast\(i)")
            spots.append(
                SpotColorStage.Spot(
                    centre: try encoded("inputCenterColor\(i)"), replacement: try encoded("inputReplacementColor\(i)"),
                    inner: closeness * min(contrast, 1), outer: closeness))
        }
        return image.applyingInSRGB(SpotColorStage(spots: spots))
    }
}

/// CISpotColor on straight sRGB-encoded colour (see the declaration).
struct SpotColorStage: ColorStage {
    struct Spot: Sendable {
        let centre: SIMD3<Float>, replacement: SIMD3<Float>
        /// Full weight within `inner`, none from `outer` on.
        let inner: Float, outer: Float
    }
    let spots: [Spot]

    var wantsUnpremultiplied: Bool { true }
    var preservesAlpha: Bool { true }

    @inline(__always) private static func weight(_ d: Float, _ s: Spot) -> Float {
        if d <= s.inner { return 1 }
        if d >= s.outer { return 0 }
        let t = (s.outer - d) / (s.outer - s.inner)
        return t * t * (3 - 2 * t)
    }

    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let a = spots[0], b = spots[1], c = spots[2]
        for i in 0..<count {
            let p = row[i]
            let rgb = SIMD3(p.x, p.y, p.z)
            func distance(_ s: Spot) -> Float { let d = rgb - s.centre; return (d * d).sum().squareRoot() }
            var out = rgb
            let wa = Self.weight(distance(a), a), wb = Self.weight(distance(b), b), wc = Self.weight(distance(c), c)
            out = out + (a.replacement - out) * wa
            out = out + (b.replacement - out) * wb
            out = out + (c.replacement - out) * wc
            row[i] = SIMD4(out, p.w)
        }
    }
    var label: String { "spot colour" }
}
