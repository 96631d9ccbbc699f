// Blurs and sharpening: neighbourhood nodes the renderer tiles with a halo.

extension BuiltinFilters {
    /// CIGaussianBlur: a true Gaussian of standard deviation `radius` (at most 250), out to
    /// 3 sigma (renormalised), separable. Outside the input is clear, so edges fade: clamp the input
    /// (`clampedToExtent()`) first for solid edges, as with Core Image. The extent grows by
    /// the kernel's reach.
    static let gaussianBlur = BuiltinFilter(Catalog.CIGaussianBlur) { args throws(CIFilterError) in
        let image = try args.image()
        let sigma = try args.number(kCIInputRadiusKey)
        return gaussianBlurred(image, sigma: sigma)
    }

    /// CIBoxBlur: the mean over a square of side `2 * round(radius) + 1`.
    static let boxBlur = BuiltinFilter(Catalog.CIBoxBlur) { args throws(CIFilterError) in
        let image = try args.image()
        let r = Int(try args.number(kCIInputRadiusKey).rounded())
        if r < 1 { return image }
        return CIImage(node: BoxBlurNode(input: image.node, radius: min(r, 2000)))
    }

    /// CIUnsharpMask: `image + intensity * (image - gaussian(image, radius))`, cropped to
    /// the input's extent.
    static let unsharpMask = BuiltinFilter(Catalog.CIUnsharpMask) { args throws(CIFilterError) in
        let image = try args.image()
        let sigma = try args.number(kCIInputRadiusKey), k = try args.float(kCIInputIntensityKey)
        if sigma == 0 || k == 0 { return image }
        let blurred = gaussianBlurred(image, sigma: sigma)
        return image.applying(DetailStage(mode: .unsharp, amount: k), extras: [blurred], extent: image.extent)
    }

    /// CIBloom: a soft glow. Apple publishes no formula; ours screens a Gaussian blur of the
    /// image (sigma `radius`) over it, weighted by `intensity`:
    /// `out = image + intensity * blur * (1 - image)` on straight colour, cropped to the input.
    static let bloom = BuiltinFilter(Catalog.CIBloom) { args throws(CIFilterError) in
        let image = try args.image()
        let sigma = try args.number(kCIInputRadiusKey), k = try args.float(kCIInputIntensityKey)
        if k == 0 { return image }
        let blurred = sigma == 0 ? image : gaussianBlurred(image.clampedToExtent(), sigma: sigma).cropped(to: image.extent)
        return image.applying(DetailStage(mode: .bloom, amount: k), extras: [blurred], extent: image.extent)
    }
}

/// The Gaussian blur recipe shared by the blur-based filters.
func gaussianBlurred(_ image: CIImage, sigma: Double) -> CIImage {
    if sigma <= 0 { return image }
    // A tile reads its input with a 3-sigma halo on every side; past sigma 250 that halo
    // (1.4 GB of float pixels per tile at sigma 1000) outgrows memory, so larger radii are
    // treated as 250. Core Image's slider stops at 100.
    let s = min(sigma, 250)
    return CIImage(node: SeparableConvolutionNode(input: image.node, weights: SeparableConvolutionNode.gaussianWeights(sigma: s), name: "gaussian blur \(s)"))
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
