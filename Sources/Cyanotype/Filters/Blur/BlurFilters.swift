// Blurs and sharpening: neighbourhood operations (the engine's `NeighbourhoodNode` tiles them
// with a halo).
import CCyanotypeKernels

extension BuiltinFilters {
    /// CIGaussianBlur: Blurs with a Gaussian kernel of a given radius (sigma).
    static let gaussianBlur = BuiltinFilter(
        FilterDescriptor(
            "CIGaussianBlur", "Gaussian Blur", "Blurs with a Gaussian kernel of a given radius (sigma).",
            categories: [.blur, .builtIn, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "6", factory: "gaussianBlur",
            doc: """
                A true Gaussian of standard deviation `radius`, out to 3 sigma
                (renormalised), separable. Outside the input is clear, so edges fade: clamp the input
                (`clampedToExtent()`) first for solid edges, as with Core Image. The extent grows by
                the kernel's reach.
                """,
            inputs: [
                .image(),
                .number(
                    "inputRadius", "Radius", .scalar, default: 10, identity: 0, min: 0, slider: 0...100, limit: .gaussianSigma,
                    """
                    The standard deviation (sigma) of the Gaussian, in pixels; 0 returns
                    the image as it is.
                    """),
            ]),
        reach: .gaussian
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let sigma = try args.number(kCIInputRadiusKey)
        return gaussianBlurred(image, sigma: sigma)
    }

    /// CIBoxBlur: Blurs with a square (box) averaging kernel.
    static let boxBlur = BuiltinFilter(
        FilterDescriptor(
            "CIBoxBlur", "Box Blur", "Blurs with a square (box) averaging kernel.",
            categories: [.blur, .builtIn, .highDynamicRange, .stillImage, .video], macOS: "10.5", iOS: "9", factory: "boxBlur",
            doc: "The mean over a square of side `2 * round(radius) + 1`.",
            inputs: [
                .image(),
                .number("inputRadius", "Radius", .distance, default: 10, min: 1, slider: 1...100, limit: .boxBlurRadius, "Half the square's side, rounded to whole pixels."),
            ]),
        reach: .halo(kCIInputRadiusKey, plus: 1)
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let r = Int(try args.number(kCIInputRadiusKey).rounded())
        if r < 1 { return image }
        return CIImage(node: NeighbourhoodNode(input: image.node, operation: BoxBlur(radius: r)))
    }

    /// CIUnsharpMask: Sharpens by adding back the difference from a blurred copy.
    static let unsharpMask = BuiltinFilter(
        FilterDescriptor(
            "CIUnsharpMask", "Unsharp Mask", "Sharpens by adding back the difference from a blurred copy.",
            categories: [.builtIn, .highDynamicRange, .sharpen, .stillImage, .video], macOS: "10.4", iOS: "6", factory: "unsharpMask",
            doc: """
                `image + intensity * (image - gaussian(image, radius))`, cropped to
                the input's extent.
                """,
            inputs: [
                .image(),
                .number(
                    "inputRadius", "Radius", .distance, default: 2.5, identity: 0, min: 0, slider: 0...100, limit: .gaussianSigma,
                    "The standard deviation of the Gaussian blur, in pixels."),
                .number(
                    "inputIntensity", "Intensity", .scalar, default: 0.5, identity: 0, min: 0, slider: 0...1,
                    "How much of the detail (the image minus its blur) is added back."),
            ]),
        reach: .gaussian
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let sigma = try args.number(kCIInputRadiusKey), k = try args.float(kCIInputIntensityKey)
        if sigma == 0 || k == 0 { return image }
        let blurred = gaussianBlurred(image, sigma: sigma)
        return image.applying(DetailStage(mode: .unsharp, amount: k), extras: [blurred], extent: image.extent)
    }

    /// CIBloom: Adds a soft glow by blurring and brightening highlights.
    static let bloom = BuiltinFilter(
        FilterDescriptor(
            "CIBloom", "Bloom", "Adds a soft glow by blurring and brightening highlights.",
            categories: [.builtIn, .highDynamicRange, .stillImage, .stylize, .video], macOS: "10.4", iOS: "6", factory: "bloom",
            doc: """
                A soft glow. Apple publishes no formula; ours screens a Gaussian blur of the
                image (sigma `radius`) over it, weighted by `intensity`:
                `out = image + intensity * blur * (1 - image)` on straight colour, cropped to the input.
                """,
            inputs: [
                .image(),
                .number(
                    "inputRadius", "Radius", .distance, default: 10, identity: 0, min: 0, slider: 0...100, limit: .gaussianSigma,
                    """
                    The standard deviation of the Gaussian blur, in pixels (the input
                    clamped to its extent is blurred).
                    """),
                .number("inputIntensity", "Intensity", .scalar, default: 0.5, identity: 0, min: 0, slider: 0...1, "How strongly the glow is screened over the image."),
            ]),
        reach: .gaussian
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let sigma = try args.number(kCIInputRadiusKey), k = try args.float(kCIInputIntensityKey)
        if k == 0 { return image }
        let blurred = sigma == 0 ? image : gaussianBlurred(image.clampedToExtent(), sigma: sigma).cropped(to: image.extent)
        return image.applying(DetailStage(mode: .bloom, amount: k), extras: [blurred], extent: image.extent)
    }
}

extension FilterInputLimit {
    /// Every Gaussian blur's sigma (CIGaussianBlur and the filters built on a blur). A tile
    /// reads its input with a 3-sigma halo on every side (1.4 GB of float pixels per tile at
    /// sigma 1000); Core Image's slider stops at 100.
    static let gaussianSigma = FilterInputLimit(maximum: 250, reason: "a tile reads its input with a 3-sigma halo, and past sigma 250 that halo outgrows memory")
    /// CIBoxBlur's radius: the square and its halo stay within memory.
    static let boxBlurRadius = FilterInputLimit(maximum: 2000, reason: "a tile reads its input with a halo of the radius, and past 2000 pixels that halo outgrows memory")
}

extension FilterReach {
    /// A Gaussian blur of standard deviation `inputRadius`: its kernel reaches 3 sigma, rounded
    /// up to whole pixels (`gaussianBlurred`).
    static let gaussian = FilterReach.halo(kCIInputRadiusKey, times: 3, plus: 1)
}

/// The Gaussian blur recipe shared by the blur-based filters. `sigma` comes from an input
/// declared with the `gaussianSigma` limit (at most 250).
func gaussianBlurred(_ image: CIImage, sigma: Double) -> CIImage {
    if sigma <= 0 { return image }
    return CIImage(
        node: NeighbourhoodNode(input: image.node, operation: SeparableConvolution(weights: SeparableConvolution.gaussianWeights(sigma: sigma), name: "gaussian blur \(sigma)")))
}

/// Combines an image (the row) with its blur (`extra[0]`).
struct DetailStage: ColorStage {
    enum Mode { case unsharp, bloom }
    let mode: Mode
    let amount: Float
    var extraInputCount: Int { 1 }
    var wantsUnpremultiplied: Bool { mode == .bloom }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let b = extra[0], k = amount
        switch mode {
        case .unsharp:
            for i in 0..<count { let p = row[i]; var o = p + (p - b[i]) * k; o.w = p.w; row[i] = o }
        case .bloom:
            for i in 0..<count {
                let p = row[i], q = b[i]
                row[i] = SIMD4(p.x + k * q.x * (1 - p.x), p.y + k * q.y * (1 - p.y), p.z + k * q.z * (1 - p.z), p.w)
            }
        }
    }
    var label: String { mode == .unsharp ? "unsharp combine" : "bloom combine" }
}

/// A separable, symmetric convolution: `weights[0]` is the centre tap, `weights[k]` the taps
/// at ±k. Used by CIGaussianBlur (a true Gaussian to 3 sigma, renormalised) and the filters
/// built on it. A horizontal and a vertical pass on cache-resident rows. The extent grows by
/// the radius.
struct SeparableConvolution: NeighbourhoodOperation {
    let weights: [Float]
    let name: String
    var radius: Int { weights.count - 1 }
    var reach: NeighbourhoodReach { NeighbourhoodReach(radius) }

    func extent(of input: CGRect) -> CGRect {
        let r = CGFloat(weights.count - 1)
        return input.isInfinite ? .infinite : input.insetBy(dx: -r, dy: -r)
    }

    /// Normalised Gaussian taps for `sigma`, out to ceil(3 sigma), with the outermost tap set
    /// (a change of about 1e-7) so that the taps summed as the passes sum them give exactly 1:
    /// alpha 1 in gives alpha exactly 1 out, so an opaque picture stays opaque and every later
    /// stage, and the 8-bit write, takes its opaque path (no division by 0.99999994).
    static func gaussianWeights(sigma: Double) -> [Float] {
        let r = max(1, Int((3 * sigma).rounded(.up)))
        var w = (0...r).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = w[0] + 2 * w.dropFirst().reduce(0, +)
        w = w.map { $0 / total }
        var taps = w.map { Float($0) }
        // Both passes compute, for a constant 1: the centre product, then each pair's sum
        // times its tap added in order, every operation rounded to Float (the C and Swift
        // loops never fuse a multiply and an add). With x the sum before the last pair, the
        // last tap (1 - x) / 2 makes it 1: 1 - x is exact for x near 1, halving is exact,
        // and x + (1 - x) is 1.
        var x: Float = 1 * taps[0]
        for k in 1..<r { x += (1 + 1) * taps[k] }
        let last = (1 - x) / 2
        if last > 0 { taps[r] = last }
        return taps
    }

    func apply(_ input: NeighbourhoodInput, into out: TileBuffer) {
        let r = radius, rect = input.rect, src = input.pixels
        let w = rect.width
        // Horizontal pass in place: input row y's w results go one row down, into row y - 1
        // (the spare row before the input for y = 0), whose input the pass has already read:
        // rows run top to bottom in both loops below. The tile then holds one float block,
        // not a second of the same size; the vertical pass reads the results at the input's
        // row stride, which spreads over the cache sets (`NeighbourhoodInput.pixels`).
        let results = src.row(-1)
        weights.withUnsafeBufferPointer { wp in
            let wt = wp.baseAddress!
            // The C loops (AVX-512 or AVX2, chosen at run time; the same sums in the same
            // order, so the same bits), else the Swift ones below.
            let bits = cyan_vector_bits()
            if cyan_convolve_rows_rgbaf(
                floats(results), src.rowStride, floats(src.row(0) + r), src.rowStride,
                w, src.height, wt, Int32(r), bits) == 0
            {
                for row in 0..<src.height {
                    convolveRow(src.row(row) + r, src.row(row - 1), w, wt, r)
                }
            }
            // Output row j's centre is input row j + r, whose results are in row j + r - 1.
            if cyan_convolve_columns_rgbaf(
                floats(out.base), out.rowStride, floats(src.row(r - 1)), src.rowStride,
                w, rect.height, wt, Int32(r), bits) == 0
            {
                for row in 0..<rect.height {
                    convolveColumns(src.row(row + r - 1), src.rowStride, out.row(row), w, wt, r)
                }
            }
        }
    }

    @inline(__always) private func floats(_ p: UnsafeMutablePointer<SIMD4<Float>>) -> UnsafeMutablePointer<Float> {
        UnsafeMutableRawPointer(p).assumingMemoryBound(to: Float.self)
    }

    // Two pixels per SIMD8 (one AVX register in tuned builds, two SSE registers otherwise),
    // read unaligned straight from the SIMD4 rows; the symmetric taps are paired.

    @inline(__always) private func load8(_ p: UnsafeMutablePointer<SIMD4<Float>>) -> SIMD8<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
    }
    @inline(__always) private func store8(_ v: SIMD8<Float>, _ p: UnsafeMutablePointer<SIMD4<Float>>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD8<Float>.self)
    }

    /// d[x] = sum_k w[|k|] * s[x + k], k in -r...r (`s` points at the centre of pixel 0).
    private func convolveRow(
        _ s: UnsafeMutablePointer<SIMD4<Float>>, _ d: UnsafeMutablePointer<SIMD4<Float>>, _ w: Int,
        _ wt: UnsafePointer<Float>, _ r: Int
    ) {
        var x = 0
        while x + 2 <= w {
            var acc = load8(s + x) * wt[0]
            var k = 1
            while k <= r {
                acc += (load8(s + x - k) + load8(s + x + k)) * wt[k]
                k += 1
            }
            store8(acc, d + x)
            x += 2
        }
        if x < w {
            var acc = s[x] * wt[0]
            for k in 1...r { acc += (s[x - k] + s[x + k]) * wt[k] }
            d[x] = acc
        }
    }

    /// Output row from the 2r+1 rows of `tmp` centred on `c` (stride `stride` pixels), four
    /// pixels per step so the accumulators stay in registers across all taps.
    private func convolveColumns(
        _ c: UnsafeMutablePointer<SIMD4<Float>>, _ stride: Int, _ d: UnsafeMutablePointer<SIMD4<Float>>,
        _ w: Int, _ wt: UnsafePointer<Float>, _ r: Int
    ) {
        var x = 0
        while x + 4 <= w {
            var a0 = load8(c + x) * wt[0], a1 = load8(c + x + 2) * wt[0]
            var k = 1
            while k <= r {
                let up = c + x - k * stride, down = c + x + k * stride
                a0 += (load8(up) + load8(down)) * wt[k]
                a1 += (load8(up + 2) + load8(down + 2)) * wt[k]
                k += 1
            }
            store8(a0, d + x); store8(a1, d + x + 2)
            x += 4
        }
        while x < w {
            var acc = c[x] * wt[0]
            for k in 1...r { acc += (c[x - k * stride] + c[x + k * stride]) * wt[k] }
            d[x] = acc
            x += 1
        }
    }

    var label: String { "\(name) (separable, radius \(radius))" }
}

/// CIBoxBlur: a square box of side 2r+1, by running sums (cost independent of r). The extent
/// grows by r.
struct BoxBlur: NeighbourhoodOperation {
    let radius: Int
    var reach: NeighbourhoodReach { NeighbourhoodReach(radius) }

    func extent(of input: CGRect) -> CGRect {
        let r = CGFloat(radius)
        return input.isInfinite ? .infinite : input.insetBy(dx: -r, dy: -r)
    }

    func apply(_ input: NeighbourhoodInput, into out: TileBuffer) {
        let r = radius, rect = input.rect, src = input.pixels
        let w = rect.width
        let n = Float(2 * r + 1)
        let inv = 1 / n
        let tmp = PixelBlock(rect: PixelRect(x: rect.minX, y: rect.minY - r, width: w, height: src.height))
        // Running sums in Double-free float are fine at these sizes; restart per row.
        for row in 0..<src.height {
            let s = src.row(row), d = tmp.buffer.row(row)
            var acc = SIMD4<Float>.zero
            for k in 0..<(2 * r + 1) { acc += s[k] }
            d[0] = acc * inv
            if w > 1 {
                for x in 1..<w {
                    acc += s[x + 2 * r] - s[x - 1]
                    d[x] = acc * inv
                }
            }
        }
        let sums = PixelBlock(rect: PixelRect(x: 0, y: 0, width: w, height: 1), zeroed: true)
        let acc = sums.pixels
        for k in 0..<(2 * r + 1) { let s = tmp.buffer.row(k); for x in 0..<w { acc[x] += s[x] } }
        for row in 0..<rect.height {
            if row > 0 {
                let add = tmp.buffer.row(row + 2 * r), sub = tmp.buffer.row(row - 1)
                for x in 0..<w { acc[x] += add[x] - sub[x] }
            }
            let d = out.row(row)
            for x in 0..<w { d[x] = acc[x] * inv }
        }
    }
    var label: String { "box blur (radius \(radius))" }
}
