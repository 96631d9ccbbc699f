// Edge filters: the Sobel operator (SobelNode) in the outputs Apple's edge filters describe.
// Apple publishes no formulas; each doc comment states ours.
//
// Shared choices: the 3x3 Sobel sums run on premultiplied working-space pixels and are not
// normalised (a unit step gives 4):
//   gx = (ne + 2 e + se) - (nw + 2 w + sw),  gy = (nw + 2 n + ne) - (sw + 2 s + se)
// with n the pixel above (y + 1 in Core Image's y-up coordinates). The input is read clamped
// to its extent (edge pixels repeat), so an image's border is not an edge; the output extent
// is the input's (infinite stays infinite). "Luma" is Rec. 709 (0.2125, 0.7154, 0.0721), as in
// the colour filters.

extension BuiltinFilters {
    /// CIEdges: per colour channel, `intensity * sqrt(gx² + gy²)`, opaque (alpha 1). Flat
    /// areas are black; edges take the colour of the channels that change. Not clamped
    /// (Core Image lists it as high-dynamic-range). Intensity 0 gives opaque black.
    static let edges = BuiltinFilter(Catalog.CIEdges) { args throws(CIFilterError) in
        let image = try args.image()
        let k = try args.float(kCIInputIntensityKey)
        return sobel(image, .magnitude(intensity: k))
    }

    /// CISobelGradients: Apple's "maximum horizontal gradient in the red channel and maximum
    /// vertical gradient in the green channel", signed: red is the gx of largest magnitude
    /// over red, green and blue (the first on ties), green the same for gy, blue 0, alpha 1.
    /// Values may be negative or above 1: render to a float format to keep them.
    static let sobelGradients = BuiltinFilter(Catalog.CISobelGradients) { args throws(CIFilterError) in
        sobel(try args.image(), .signedGradients)
    }

    /// CIEdgeWork: a black-and-white woodcut. The input, clamped to its extent, is blurred
    /// by a Gaussian of standard deviation `radius` (not at all at radius 0: a larger radius
    /// gives thicker strokes); E is the Sobel magnitude of the blur's luma; black ink covers
    /// `ink = clamp((E - 0.1) / 0.1, 0, 1)` of each pixel over white paper:
    /// `out = (1 - ink, 1 - ink, 1 - ink, 1)`. Flat areas are white.
    ///
    /// - inputRadius: The standard deviation of the blur before the edges are found, in pixels.
    static let edgeWork = BuiltinFilter(Catalog.CIEdgeWork, limits: [kCIInputRadiusKey: .gaussianSigma]) { args throws(CIFilterError) in
        let image = try args.image()
        let sigma = try args.number(kCIInputRadiusKey)
        let clamped = image.extent.isInfinite ? image : image.clampedToExtent()
        let blurred = sigma > 0 ? gaussianBlurred(clamped, sigma: sigma) : clamped
        return CIImage(node: SobelNode(input: blurred.node, output: .ink(low: edgeWorkLow, high: edgeWorkHigh), extent: image.extent))
    }

    /// CILineOverlay: black lines over clear, Apple's documented pipeline (noise reduction,
    /// Sobel edges, threshold, contrast). Noise reduction (NoiseReductionNode), on the input
    /// clamped to its extent: `smooth` is the mean of the 3x3 neighbours whose luma is within
    /// `NRNoiseLevel` of the pixel's, `mean` the mean of all nine, and
    /// `N = smooth + NRSharpness * (smooth - mean)`. Then with E the Sobel magnitude of N's
    /// luma, `alpha = clamp(contrast * (edgeIntensity * E - threshold), 0, 1)`, colour black
    /// (premultiplied (0, 0, 0, alpha)). Composite it over an image to see it.
    static let lineOverlay = BuiltinFilter(Catalog.CILineOverlay) { args throws(CIFilterError) in
        let image = try args.image()
        return try lineOverlayImage(image, noise: args.float("inputNRNoiseLevel"), sharpness: args.float("inputNRSharpness"),
                                    intensity: args.float("inputEdgeIntensity"), threshold: args.float("inputThreshold"),
                                    contrast: args.float("inputContrast"))
    }

    /// CIComicEffect: Apple describes "outlining edges and applying a color halftone effect".
    /// Ours reduces the colours instead of half-toning them: CILineOverlay at its defaults
    /// (noise 0.07, sharpness 0.71, edge intensity 1, threshold 0.1, contrast 50) composited
    /// source-over CIColorPosterize at its default 6 levels (`floor(v * 6 + 0.5) / 6` per
    /// straight channel), cropped to the input's extent.
    static let comicEffect = BuiltinFilter(Catalog.CIComicEffect) { args throws(CIFilterError) in
        let image = try args.image()
        let lines = lineOverlayImage(image, noise: 0.07, sharpness: 0.71, intensity: 1, threshold: 0.1, contrast: 50)
        let flat = image.applying(PosterizeStage(levels: 6))
        return lines.composited(over: flat).cropped(to: image.extent)
    }
}

/// CIEdgeWork's ink ramp on the luma gradient magnitude.
let edgeWorkLow: Float = 0.1, edgeWorkHigh: Float = 0.2

/// A Sobel node over the image clamped to its extent, with the image's extent.
private func sobel(_ image: CIImage, _ output: SobelOutput) -> CIImage {
    let clamped = image.extent.isInfinite ? image : image.clampedToExtent()
    return CIImage(node: SobelNode(input: clamped.node, output: output, extent: image.extent))
}

/// CILineOverlay's pipeline (see `BuiltinFilters.lineOverlay`).
private func lineOverlayImage(_ image: CIImage, noise: Float, sharpness: Float, intensity: Float, threshold: Float, contrast: Float) -> CIImage {
    let clamped = image.extent.isInfinite ? image : image.clampedToExtent()
    let reduced = NoiseReductionNode(input: clamped.node, noiseLevel: noise, sharpness: sharpness)
    return CIImage(node: SobelNode(input: reduced, output: .lines(intensity: intensity, threshold: threshold, contrast: contrast), extent: image.extent))
}
