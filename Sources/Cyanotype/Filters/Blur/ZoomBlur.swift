// CIZoomBlur: radial streaks, each pixel the mean of the input along the ray from the centre
// through it, sampled bilinearly (a neighbourhood operation whose reach is half the streak).

extension FilterInputLimit {
    /// CIZoomBlur's amount: a tile reads its input with a halo of half the streak, and each
    /// pixel takes about one sample per pixel of streak.
    static let zoomAmount = FilterInputLimit(
        minimum: -500, maximum: 500, reason: "a tile reads its input with a halo of half the streak, and past 500 pixels that halo outgrows memory")
}

extension BuiltinFilters {
    /// CIZoomBlur: Radial blur simulating a zoom during exposure.
    static let zoomBlur = BuiltinFilter(
        FilterDescriptor(
            "CIZoomBlur", "Zoom Blur", "Radial blur simulating a zoom during exposure.",
            categories: [.blur, .builtIn, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "8.3", factory: "zoomBlur",
            doc: """
                Streaks along the rays from `center`, as a zoom during the exposure draws
                them. Apple publishes no formula; ours gives every pixel at distance d from the
                centre the mean of the input over the segment of the ray through it that is centred
                on the pixel and |amount| pixels long (2d long when that is shorter, so the centre
                stays sharp), sampled at N = ceil(length) evenly spaced points (the middles of N equal
                parts) with bilinear interpolation. The streak is centred on the pixel, so a zoom in
                and a zoom out (amount and -amount) look the same, and the image's total is kept: the
                rays fan out, but a centred streak gathers as much from beyond the pixel as from
                before it (on the pixel grid, to within about (amount / d)² / 12 at distance d).
                Premultiplied pixels, clear outside the input; the extent grows by half the streak.
                Amount 0 is the image itself.
                """,
            inputs: [
                .image(),
                .vector("inputCenter", "Center", .position, default: [150, 150], "The centre of the zoom: its rays carry the streaks."),
                .number("inputAmount", "Amount", .distance, default: 20, identity: 0, slider: -200...200, limit: .zoomAmount, "The streaks' length, in pixels."),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let c = try args.point(kCIInputCenterKey)
        let amount = abs(try args.number("inputAmount"))
        if amount < 1e-6 || image.extent.isEmpty { return image }
        return CIImage(node: NeighbourhoodNode(input: image.node, operation: ZoomBlur(cx: Double(c.x), cy: Double(c.y), length: amount)))
    }
}

/// CIZoomBlur's operation: the mean of bilinear samples along the ray through each pixel
/// centre, over a segment centred on the pixel of length `min(length, 2 d)`.
struct ZoomBlur: NeighbourhoodOperation {
    let cx: Double, cy: Double, length: Double

    /// Half the streak, plus the sampler's pixel.
    private var halfReach: Int { Int((length / 2).rounded(.up)) + 1 }
    var reach: NeighbourhoodReach { NeighbourhoodReach(halfReach) }

    func extent(of input: CGRect) -> CGRect {
        let r = CGFloat(halfReach)
        return input.isInfinite ? .infinite : input.insetBy(dx: -r, dy: -r)
    }

    func apply(_ input: NeighbourhoodInput, into out: TileBuffer) {
        let src = input.pixels, ox = input.originX, oy = input.originY
        let rect = input.rect
        for r in 0..<out.height {
            let d = out.row(r)
            let py = Double(rect.minY + r) + 0.5
            for k in 0..<out.width {
                let px = Double(rect.minX + k) + 0.5
                let dx = px - cx, dy = py - cy
                let dist = (dx * dx + dy * dy).squareRoot()
                let streak = min(length, 2 * dist)
                // Below a hundredth of a pixel the streak is the pixel.
                if !(streak > 0.01) {
                    d[k] = src.row(rect.minY + r - oy)[rect.minX + k - ox]
                    continue
                }
                let ux = dx / dist, uy = dy / dist
                let n = max(1, Int(streak.rounded(.up)))
                let step = streak / Double(n)
                var acc = SIMD4<Float>.zero
                var t = -streak / 2 + step / 2
                for _ in 0..<n {
                    acc += src.bilinearClear(u: px + t * ux - 0.5, v: py + t * uy - 0.5, originX: ox, originY: oy)
                    t += step
                }
                d[k] = acc / Float(n)
            }
        }
    }

    var label: String { "zoom blur (centre \(cx), \(cy), streak \(length))" }
}
