// Gradients: generators computed from pixel coordinates (colours interpolated in the
// premultiplied linear working space, as Core Image does), and distance gradients computed
// from a whole mask image.

import Foundation

extension BuiltinFilters {
    /// The family of CILinearGradient and CISmoothLinearGradient: `color0` at `point0` to `color1` at `point1`.
    static let linearGradients = BuiltinFilter.family(
        categories: [.builtIn, .gradient, .highDynamicRange, .stillImage, .video],
        inputs: [
            .vector("inputPoint0", "Point 0", .position, default: [0, 0]),
            .vector("inputPoint1", "Point 1", .position, default: [200, 200]),
            .color("inputColor0", "Color 1", .color, default: [1, 1, 1, 1]),
            .color("inputColor1", "Color 2", .color, default: [0, 0, 0, 1]),
        ],
        [
            (
                FilterDescriptor(
                    "CILinearGradient", "Linear Gradient", "Generates a linear gradient between two points and two colors.",
                    macOS: "10.4", iOS: "5", factory: "linearGradient",
                    doc: """
                        `color0` at `point0` to `color1` at `point1`, constant beyond them
                        along the line between the points.
                        """),
                false
            ),
            (
                FilterDescriptor(
                    "CISmoothLinearGradient", "Smooth Linear Gradient", "Linear gradient between two points using a smooth (S-curve) interpolation.",
                    macOS: "10.10", iOS: "6", factory: "smoothLinearGradient",
                    doc: """
                        CILinearGradient with the ramp eased by smoothstep
                        (`t² (3 - 2t)`), so it starts and ends with zero slope.
                        """),
                true
            ),
        ]
    ) { args, smooth throws(CIFilterError) in
        let p0 = try args.point("inputPoint0"), p1 = try args.point("inputPoint1")
        let c0 = try args.color("inputColor0").workingValue, c1 = try args.color("inputColor1").workingValue
        return CIImage(
            node: GeneratorNode(stage: LinearGradientStage(p0: SIMD2(Float(p0.x), Float(p0.y)), p1: SIMD2(Float(p1.x), Float(p1.y)), c0: c0, c1: c1, smooth: smooth)))
    }

    /// CIGaussianGradient: Generates a radial gradient with a Gaussian falloff between two colors.
    static let gaussianGradient = BuiltinFilter(
        FilterDescriptor(
            "CIGaussianGradient", "Gaussian Gradient", "Generates a radial gradient with a Gaussian falloff between two colors.",
            categories: [.builtIn, .gradient, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "5", factory: "gaussianGradient",
            doc: """
                `color0` at `center` fading to `color1` along a Gaussian:
                `t = exp(-d² / (2σ²))` with σ = radius / 3 (so the blend is 99% `color1` at `radius`),
                colour = `color1 + (color0 - color1) * t`. Infinite extent.
                """,
            inputs: [
                .vector("inputCenter", "Center", .position, default: [150, 150]),
                .color("inputColor0", "Color 1", .color, default: [1, 1, 1, 1]),
                .color("inputColor1", "Color 2", .color, default: [0, 0, 0, 0]),
                .number("inputRadius", "Radius", .distance, default: 300, min: 0, slider: 0...800),
            ])
    ) { args throws(CIFilterError) in
        let c = try args.point(kCIInputCenterKey)
        let r = try args.float(kCIInputRadiusKey)
        let c0 = try args.color("inputColor0").workingValue, c1 = try args.color("inputColor1").workingValue
        return CIImage(node: GeneratorNode(stage: GaussianGradientStage(center: SIMD2(Float(c.x), Float(c.y)), radius: r, c0: c0, c1: c1)))
    }

    /// CIHueSaturationValueGradient: Generates a color wheel (hue by angle, saturation by radius) at a given value.
    static let hueSaturationValueGradient = BuiltinFilter(
        FilterDescriptor(
            "CIHueSaturationValueGradient", "Hue/Saturation/Value Gradient", "Generates a color wheel (hue by angle, saturation by radius) at a given value.",
            categories: [.builtIn, .gradient, .stillImage, .video], macOS: "10.12", iOS: "10", factory: "hueSaturationValueGradient",
            doc: """
                A colour wheel of `radius` centred on the origin, extent
                `[-r, -r, 2r, 2r]`: hue is the angle (0 = red on +x, counter-clockwise), saturation
                the distance over the radius, value `inputValue`, in `inputColorSpace` (sRGB by
                default; converted to the working space). The rim is anti-aliased over `softness`
                pixels (alpha ramps from 1 to 0 across [r - softness, r]); `dither` adds uniform noise
                of ±dither/255 to the encoded colour (from a coordinate hash, tile-independent).
                """,
            inputs: [
                .number("inputValue", "Value", .scalar, default: 1, min: 0, slider: 0...1),
                .number("inputRadius", "Radius", .distance, default: 300, min: 0, slider: 0...800),
                .number("inputSoftness", "Softness", .scalar, default: 1, min: 0, slider: 0...1),
                .number("inputDither", "Dither", .scalar, default: 1, min: 0, slider: 0...3),
                .other("NSObject", "inputColorSpace", "Color Space", nil, default: .colorSpace("sRGB")),
            ])
    ) { args throws(CIFilterError) in
        let v = try args.float("inputValue"), r = try args.float(kCIInputRadiusKey)
        let soft = try args.float("inputSoftness"), dither = try args.float("inputDither")
        let space = (args.values["inputColorSpace"] as? CGColorSpace) ?? CGColorSpace.sRGBSpace
        guard r > 0 else { return CIImage.empty() }
        let rr = CGFloat(r)
        return CIImage(
            node: GeneratorNode(
                stage: HSVWheelStage(value: v, radius: r, softness: soft, dither: dither / 255, space: space),
                extent: CGRect(x: -rr, y: -rr, width: 2 * rr, height: 2 * rr)))
    }

    /// CIDistanceGradientFromRedMask: Produces a field of normalized distance to the nearest red-mask pixel.
    static let distanceGradientFromRedMask = BuiltinFilter(
        FilterDescriptor(
            "CIDistanceGradientFromRedMask", "Distance Gradient From Red Mask", "Produces a field of normalized distance to the nearest red-mask pixel.",
            categories: [.builtIn, .gradient, .stillImage, .video], macOS: "15.0", iOS: "18", factory: "distanceGradientFromRedMask",
            doc: """
                Pixels whose red is above 0.5 are the mask; every other
                pixel gets its exact Euclidean distance (between pixel centres) to the nearest mask
                pixel, divided by `inputMaximumDistance` and clamped to [0, 1], in red, green and blue
                (alpha 1); mask pixels are 0. Computed over the input's whole (finite) extent with
                Felzenszwalb and Huttenlocher's separable distance transform; the output has the
                input's extent (Apple's is infinite: outside it we are clear). Without any mask pixel
                everything is 1. A maximum distance of 0 gives 0 on the mask and 1 elsewhere.
                """,
            inputs: [
                .image(),
                .number("inputMaximumDistance", nil, .distance, default: 10, min: 0, max: 1000, slider: 1...100),
            ]),
        reach: .wholeImage
    ) { args throws(CIFilterError) in
        try distanceGradient(args, signed: false)
    }

    /// CISignedDistanceGradientFromRedMask: Produces a signed normalized distance field to the edge of a red mask (negative inside).
    static let signedDistanceGradientFromRedMask = BuiltinFilter(
        FilterDescriptor(
            "CISignedDistanceGradientFromRedMask", "Signed Distance Gradient From Red Mask",
            "Produces a signed normalized distance field to the edge of a red mask (negative inside).",
            categories: [.builtIn, .gradient, .stillImage, .video], macOS: "26.0", iOS: "26", factory: "signedDistanceGradientFromRedMask",
            doc: """
                As CIDistanceGradientFromRedMask outside the mask
                (0 to 1); inside it, minus the distance to the nearest non-mask pixel over the maximum
                distance, clamped to [-1, 0].
                """,
            inputs: [
                .image(),
                .number("inputMaximumDistance", "Maximum Distance", .distance, default: 10, min: 0, max: 1000, slider: 1...100),
            ]),
        reach: .wholeImage
    ) { args throws(CIFilterError) in
        try distanceGradient(args, signed: true)
    }
}

struct GaussianGradientStage: GeneratorStage {
    let center: SIMD2<Float>, radius: Float, c0: SIMD4<Float>, c1: SIMD4<Float>
    func generate(_ out: UnsafeMutablePointer<SIMD4<Float>>, count: Int, x: Int, y: Int) {
        let sigma = radius / 3
        let k: Float = sigma > 0 ? -1 / (2 * sigma * sigma) : 0
        let dy = Float(y) + 0.5 - center.y
        for i in 0..<count {
            let dx = Float(x + i) + 0.5 - center.x
            let d2 = dx * dx + dy * dy
            let t: Float = sigma > 0 ? expf(d2 * k) : (d2 == 0 ? 1 : 0)
            out[i] = c1 + (c0 - c1) * t
        }
    }
    var label: String { "gaussian gradient" }
}

/// HSV to RGB (hue in turns), the textbook hexcone.
@inline(__always) func hsvToRGB(_ h: Float, _ s: Float, _ v: Float) -> SIMD3<Float> {
    let hh = (h - h.rounded(.down)) * 6
    let i = min(Int(hh), 5)
    let f = hh - Float(i)
    let p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f))
    switch i {
    case 0: return SIMD3(v, t, p)
    case 1: return SIMD3(q, v, p)
    case 2: return SIMD3(p, v, t)
    case 3: return SIMD3(p, q, v)
    case 4: return SIMD3(t, p, v)
    default: return SIMD3(v, p, q)
    }
}

struct HSVWheelStage: GeneratorStage {
    let value: Float, radius: Float, softness: Float, dither: Float
    let space: CGColorSpace
    func generate(_ out: UnsafeMutablePointer<SIMD4<Float>>, count: Int, x: Int, y: Int) {
        let py = Float(y) + 0.5
        for i in 0..<count {
            let px = Float(x + i) + 0.5
            let d = (px * px + py * py).squareRoot()
            let a: Float = softness > 0 ? clamp01((radius - d) / softness) : (d <= radius ? 1 : 0)
            if a <= 0 { out[i] = .zero; continue }
            let h = atan2f(py, px) / (2 * .pi)
            var e = hsvToRGB(h < 0 ? h + 1 : h, min(d / radius, 1), value)
            if dither > 0 {
                e += SIMD3(hashUnit(x + i, y, 0) - 0.5, hashUnit(x + i, y, 1) - 0.5, hashUnit(x + i, y, 2) - 0.5) * (2 * dither)
            }
            out[i] = SIMD4(space.toLinearSRGB(e) * a, a)
        }
    }
    var label: String { "hue/saturation/value wheel" }
}

// MARK: - Distance transform

func distanceGradient(_ args: FilterArguments, signed: Bool) throws(CIFilterError) -> CIImage {
    let image = try args.image()
    let maxDistance = try args.float("inputMaximumDistance")
    guard !image.extent.isInfiniteOrHuge else {
        throw .invalidValue(filter: args.descriptor.name, key: kCIInputImageKey, reason: "the mask must be finite: crop it first")
    }
    let region = PixelRect(covering: image.extent)
    if region.isEmpty { return CIImage.empty() }
    let node = WholeImageNode(input: image.node, region: region, extent: region.cgRect, name: signed ? "signed distance gradient" : "distance gradient") { block, _ in
        distanceImage(block, maxDistance: maxDistance, signed: signed)
    }
    return CIImage(node: node)
}

func distanceImage(_ block: PixelBlock, maxDistance: Float, signed: Bool) -> PixelBlock {
    let w = block.rect.width, h = block.rect.height, n = w * h
    var inside = [Bool](repeating: false, count: n)
    for i in 0..<n { inside[i] = block.pixels[i].x > 0.5 }
    let outside = squaredDistanceTransform(w, h) { inside[$0] }
    let inner = signed ? squaredDistanceTransform(w, h) { !inside[$0] } : []
    let out = PixelBlock(rect: block.rect)
    @inline(__always) func scaled(_ d2: Double) -> Float {
        let d = Float(d2.squareRoot())
        return maxDistance > 0 ? min(d / maxDistance, 1) : (d > 0 ? 1 : 0)
    }
    for i in 0..<n {
        let v: Float = inside[i] ? (signed ? -scaled(inner[i]) : 0) : scaled(outside[i])
        out.pixels[i] = SIMD4(v, v, v, 1)
    }
    return out
}

/// Squared Euclidean distance from each pixel to the nearest pixel where `isSource`, by
/// Felzenszwalb and Huttenlocher's lower envelope of parabolas: columns, then rows. Pixels
/// with no source get a huge value (above any real squared distance).
func squaredDistanceTransform(_ w: Int, _ h: Int, isSource: (Int) -> Bool) -> [Double] {
    let big = 1e20
    var g = [Double](repeating: 0, count: w * h)
    for i in 0..<(w * h) { g[i] = isSource(i) ? 0 : big }
    let m = max(w, h)
    var f = [Double](repeating: 0, count: m), d = [Double](repeating: 0, count: m)
    var v = [Int](repeating: 0, count: m), z = [Double](repeating: 0, count: m + 1)
    func transform1D(_ len: Int) {
        var k = 0
        v[0] = 0; z[0] = -.infinity; z[1] = .infinity
        if len > 1 {
            for q in 1..<len {
                var s = ((f[q] + Double(q * q)) - (f[v[k]] + Double(v[k] * v[k]))) / Double(2 * q - 2 * v[k])
                while s <= z[k] {
                    k -= 1
                    s = ((f[q] + Double(q * q)) - (f[v[k]] + Double(v[k] * v[k]))) / Double(2 * q - 2 * v[k])
                }
                k += 1
                v[k] = q; z[k] = s; z[k + 1] = .infinity
            }
        }
        k = 0
        for q in 0..<len {
            while z[k + 1] < Double(q) { k += 1 }
            let dq = Double(q - v[k])
            d[q] = dq * dq + f[v[k]]
        }
    }
    for x in 0..<w {
        for y in 0..<h { f[y] = g[y * w + x] }
        transform1D(h)
        for y in 0..<h { g[y * w + x] = min(d[y], big) }
    }
    for y in 0..<h {
        for x in 0..<w { f[x] = g[y * w + x] }
        transform1D(w)
        for x in 0..<w { g[y * w + x] = min(d[x], big) }
    }
    return g
}

/// CILinearGradient, and CISmoothLinearGradient with `smooth` (smoothstep on the ramp).
struct LinearGradientStage: GeneratorStage {
    let p0: SIMD2<Float>, p1: SIMD2<Float>, c0: SIMD4<Float>, c1: SIMD4<Float>
    var smooth = false
    func generate(_ out: UnsafeMutablePointer<SIMD4<Float>>, count: Int, x: Int, y: Int) {
        let d = p1 - p0
        let len2 = d.x * d.x + d.y * d.y
        let inv: Float = len2 > 0 ? 1 / len2 : 0
        let py = Float(y) + 0.5 - p0.y
        for i in 0..<count {
            let px = Float(x + i) + 0.5 - p0.x
            let t = clamp01((px * d.x + py * d.y) * inv)
            out[i] = c0 + (c1 - c0) * (smooth ? t * t * (3 - 2 * t) : t)
        }
    }
    var label: String { smooth ? "smooth linear gradient" : "linear gradient" }
}
