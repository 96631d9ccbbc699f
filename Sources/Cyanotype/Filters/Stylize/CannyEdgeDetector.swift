// CICannyEdgeDetector: Canny's detector. The luma is blurred by a Gaussian (the engine's
// separable blur), then one neighbourhood operation takes the Sobel gradient, keeps the
// local maxima across each edge (non-maximum suppression), splits them by the two thresholds
// and grows the strong edges into the weak ones for the given number of hysteresis passes.
// The passes are Apple's parameter, and each reaches one pixel further, so the whole chain is
// a bounded neighbourhood: a crop reads only its own surroundings.

extension BuiltinFilters {
    /// CICannyEdgeDetector: Canny edge detection with Gaussian pre-blur, dual thresholds and hysteresis passes.
    static let cannyEdgeDetector = BuiltinFilter(
        FilterDescriptor(
            "CICannyEdgeDetector", "Canny Edge Detector", "Canny edge detection with Gaussian pre-blur, dual thresholds and hysteresis passes.",
            categories: [.builtIn, .highDynamicRange, .stillImage, .stylize, .video], macOS: "14.0", iOS: "17", factory: "cannyEdgeDetector",
            doc: """
                Canny's edge detector, black with white edges one pixel wide,
                opaque. Apple names the steps but publishes no formula; ours, on the input read
                clamped to its extent: (1) Y, the Rec. 709 luma of the premultiplied colour, encoded
                with the sRGB curve when `perceptual` is on (so thresholds follow lightness rather than
                light); (2) a Gaussian blur of Y with standard deviation `gaussianSigma` (CIGaussianBlur's:
                out to 3 sigma; none at 0); (3) the Sobel gradient divided by 8 (a ramp of slope s per
                pixel gives s), magnitude M; (4) non-maximum suppression: a pixel stays when M is above
                its neighbour on the negative side of the gradient's direction (rounded to 0, 45, 90 or
                135 degrees) and at least its neighbour on the positive side, which keeps a ridge one
                pixel wide; (5) kept pixels with M >= thresholdHigh are edges, those with
                M >= thresholdLow candidates; (6) each hysteresis pass turns every candidate next to an
                edge (8-neighbourhood) into an edge, all at once. Edges are white (1, 1, 1, 1),
                everything else black (0, 0, 0, 1). The extent is the input's.
                """,
            inputs: [
                .image(),
                .number(
                    "inputGaussianSigma", "Gaussian Sigma", .scalar, default: 1.6, min: 0, slider: 0...5, limit: .gaussianSigma,
                    """
                    The standard deviation, in pixels, of the blur before the
                    gradient (0: none).
                    """),
                .bool(
                    "inputPerceptual", "Perceptual", default: false, min: 0, max: 1,
                    """
                    Whether the gradient is taken of the sRGB-encoded luma (on) or of
                    linear luma (off).
                    """),
                .number(
                    "inputThresholdHigh", "Threshold High", .scalar, default: 0.05, min: 0, slider: 0...0.4,
                    """
                    The gradient magnitude (luma per pixel) from which a ridge is an
                    edge.
                    """),
                .number(
                    "inputThresholdLow", "Threshold Low", .scalar, default: 0.02, min: 0, slider: 0...0.2,
                    """
                    The gradient magnitude from which a ridge is an edge when it
                    touches one, through hysteresis.
                    """),
                .number(
                    "inputHysteresisPasses", "Hysteresis Passes", .integer, default: 1, min: 0, max: 20, slider: 0...5,
                    """
                    How many times candidates next to edges become edges: each
                    pass reaches one pixel further along a weak ridge.
                    """),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let sigma = try args.number("inputGaussianSigma")
        let perceptual = try args.bool("inputPerceptual")
        let high = try args.float("inputThresholdHigh"), low = try args.float("inputThresholdLow")
        let passes = Int(try args.number("inputHysteresisPasses").rounded())
        if image.extent.isEmpty { return image }
        let clamped = image.extent.isInfinite ? image : image.clampedToExtent()
        let luma = clamped.applying(LumaStage(perceptual: perceptual))
        let blurred = sigma > 0 ? gaussianBlurred(luma, sigma: sigma) : luma
        let edges = CannyEdges(low: low, high: high, passes: passes, outputExtent: image.extent)
        return CIImage(node: NeighbourhoodNode(input: blurred.node, operation: edges))
    }
}

/// Rec. 709 luma of the premultiplied colour into red, green and blue, alpha 1; encoded with
/// the sRGB curve (odd-symmetric) when `perceptual`.
struct LumaStage: ColorStage {
    let perceptual: Bool
    var wantsUnpremultiplied: Bool { false }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let w = lumaWeights
        for i in 0..<count {
            let p = row[i]
            var v = p.x * w.x + p.y * w.y + p.z * w.z
            if perceptual { v = linearToSRGB(v) }
            row[i] = SIMD4(v, v, v, 1)
        }
    }
    var label: String { perceptual ? "luma (sRGB-encoded)" : "luma" }
}

/// Canny's steps after the blur (see the declaration), on the red channel of the input: the
/// Sobel gradient over the tile grown by `passes + 1`, non-maximum suppression and the
/// thresholds over the tile grown by `passes`, then `passes` hysteresis passes, each
/// shrinking the region by a pixel.
struct CannyEdges: NeighbourhoodOperation {
    let low: Float, high: Float, passes: Int
    let outputExtent: CGRect
    var reach: NeighbourhoodReach { NeighbourhoodReach(passes + 2) }
    func extent(of input: CGRect) -> CGRect { outputExtent }

    func apply(_ input: NeighbourhoodInput, into out: TileBuffer) {
        let src = input.pixels, W = src.width, H = src.height
        // Gradient over the input less its outermost ring.
        let gw = W - 2, gh = H - 2
        let gx = UnsafeMutablePointer<Float>.allocate(capacity: gw * gh), gy = UnsafeMutablePointer<Float>.allocate(capacity: gw * gh)
        let mag = UnsafeMutablePointer<Float>.allocate(capacity: gw * gh)
        defer { gx.deallocate(); gy.deallocate(); mag.deallocate() }
        for j in 0..<gh {
            let s = src.row(j), m = src.row(j + 1), n = src.row(j + 2)
            let o = j * gw
            for i in 0..<gw {
                // Rows ascend in y: n is above.
                let x = ((n[i + 2].x + 2 * m[i + 2].x + s[i + 2].x) - (n[i].x + 2 * m[i].x + s[i].x)) * 0.125
                let y = ((n[i].x + 2 * n[i + 1].x + n[i + 2].x) - (s[i].x + 2 * s[i + 1].x + s[i + 2].x)) * 0.125
                gx[o + i] = x
                gy[o + i] = y
                mag[o + i] = (x * x + y * y).squareRoot()
            }
        }
        // Classes (0 none, 1 candidate, 2 edge) over the gradient region less its ring.
        let cw = gw - 2, ch = gh - 2
        var cls = [UInt8](repeating: 0, count: cw * ch), next = cls
        let tan22: Float = 0.41421356, tan67: Float = 2.41421356
        for j in 0..<ch {
            for i in 0..<cw {
                let c = (j + 1) * gw + i + 1
                let m = mag[c]
                if !(m >= low) { continue }
                let ax = abs(gx[c]), ay = abs(gy[c])
                // The neighbour one step along the gradient (positive side) and against it.
                let step: Int
                if ay <= tan22 * ax {
                    step = 1
                } else if ay >= tan67 * ax {
                    step = gw
                } else {
                    step = (gx[c] > 0) == (gy[c] > 0) ? gw + 1 : gw - 1
                }
                // The positive side is the one the gradient points to.
                let forward = (step == 1 ? gx[c] : gy[c]) >= 0
                let pos = forward ? mag[c + step] : mag[c - step], neg = forward ? mag[c - step] : mag[c + step]
                if m > neg && m >= pos { cls[j * cw + i] = m >= high ? 2 : 1 }
            }
        }
        // Hysteresis: each pass turns candidates next to an edge into edges, from the previous
        // pass's classes (so the result does not depend on the scan order).
        var lo = 0, hiX = cw, hiY = ch
        for _ in 0..<passes {
            next = cls
            for j in (lo + 1)..<(hiY - 1) {
                for i in (lo + 1)..<(hiX - 1) where cls[j * cw + i] == 1 {
                    var touches = false
                    for dj in -1...1 where !touches {
                        let r = (j + dj) * cw + i
                        if cls[r - 1] == 2 || cls[r] == 2 || cls[r + 1] == 2 { touches = true }
                    }
                    if touches { next[j * cw + i] = 2 }
                }
            }
            swap(&cls, &next)
            lo += 1; hiX -= 1; hiY -= 1
        }
        // The output is the class region less `passes` on each side.
        let white = SIMD4<Float>(1, 1, 1, 1), black = SIMD4<Float>(0, 0, 0, 1)
        for y in 0..<out.height {
            let d = out.row(y)
            let r = (y + passes) * cw + passes
            for x in 0..<out.width { d[x] = cls[r + x] == 2 ? white : black }
        }
    }

    var label: String { "canny edges (thresholds \(low), \(high), \(passes) hysteresis passes)" }
}
