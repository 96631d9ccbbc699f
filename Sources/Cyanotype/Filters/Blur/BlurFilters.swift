// Blurs and sharpening: neighbourhood nodes the renderer tiles with a halo.

extension BuiltinFilters {
    /// CIGaussianBlur: a true Gaussian of standard deviation `radius`, out to 3 sigma
    /// (renormalised), separable. Outside the input is clear, so edges fade: clamp the input
    /// (`clampedToExtent()`) first for solid edges, as with Core Image. The extent grows by
    /// the kernel's reach.
    ///
    /// - inputRadius: The standard deviation (sigma) of the Gaussian, in pixels; 0 returns
    ///   the image as it is.
    static let gaussianBlur = BuiltinFilter(Catalog.CIGaussianBlur, limits: [kCIInputRadiusKey: .gaussianSigma]) { args throws(CIFilterError) in
        let image = try args.image()
        let sigma = try args.number(kCIInputRadiusKey)
        return gaussianBlurred(image, sigma: sigma)
    }

    /// CIBoxBlur: the mean over a square of side `2 * round(radius) + 1`.
    ///
    /// - inputRadius: Half the square's side, rounded to whole pixels.
    static let boxBlur = BuiltinFilter(Catalog.CIBoxBlur, limits: [kCIInputRadiusKey: .boxBlurRadius]) { args throws(CIFilterError) in
        let image = try args.image()
        let r = Int(try args.number(kCIInputRadiusKey).rounded())
        if r < 1 { return image }
        return CIImage(node: BoxBlurNode(input: image.node, radius: r))
    }

    /// CIUnsharpMask: `image + intensity * (image - gaussian(image, radius))`, cropped to
    /// the input's extent.
    ///
    /// - inputRadius: The standard deviation of the Gaussian blur, in pixels.
    /// - inputIntensity: How much of the detail (the image minus its blur) is added back.
    static let unsharpMask = BuiltinFilter(Catalog.CIUnsharpMask, limits: [kCIInputRadiusKey: .gaussianSigma]) { args throws(CIFilterError) in
        let image = try args.image()
        let sigma = try args.number(kCIInputRadiusKey), k = try args.float(kCIInputIntensityKey)
        if sigma == 0 || k == 0 { return image }
        let blurred = gaussianBlurred(image, sigma: sigma)
        return image.applying(DetailStage(mode: .unsharp, amount: k), extras: [blurred], extent: image.extent)
    }

    /// CIBloom: a soft glow. Apple publishes no formula; ours screens a Gaussian blur of the
    /// image (sigma `radius`) over it, weighted by `intensity`:
    /// `out = image + intensity * blur * (1 - image)` on straight colour, cropped to the input.
    ///
    /// - inputRadius: The standard deviation of the Gaussian blur, in pixels (the input
    ///   clamped to its extent is blurred).
    /// - inputIntensity: How strongly the glow is screened over the image.
    static let bloom = BuiltinFilter(Catalog.CIBloom, limits: [kCIInputRadiusKey: .gaussianSigma]) { args throws(CIFilterError) in
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

/// The Gaussian blur recipe shared by the blur-based filters. `sigma` comes from an input
/// declared with the `gaussianSigma` limit (at most 250).
func gaussianBlurred(_ image: CIImage, sigma: Double) -> CIImage {
    if sigma <= 0 { return image }
    return CIImage(node: SeparableConvolutionNode(input: image.node, weights: SeparableConvolutionNode.gaussianWeights(sigma: sigma), name: "gaussian blur \(sigma)"))
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
