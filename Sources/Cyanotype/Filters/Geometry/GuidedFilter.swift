// CIGuidedFilter: He, Sun and Tang's guided filter ("Guided Image Filtering", ECCV 2010 and
// TPAMI 2013, Algorithm 1), every mean a box filter of constant cost per pixel (anchored
// prefix sums along rows, anchored running sums down columns: `AnchoredSums`).

extension FilterInputLimit {
    /// CIGuidedFilter's radius: a tile reads its inputs with a halo of twice the radius.
    static let guidedRadius = FilterInputLimit(
        minimum: 0, maximum: 250, reason: "a tile reads its inputs with a halo of twice the radius, and past 250 pixels that halo outgrows memory")
    /// CIGuidedFilter's epsilon: it is added to each window's variance before dividing by it.
    static let guidedEpsilon = FilterInputLimit(minimum: 1e-12, reason: "each window's covariance is divided by its variance plus epsilon, and a flat window's variance is 0")
}

extension BuiltinFilters {
    /// CIGuidedFilter: Edge-aware guided filter that upsamples a small image using a guide image.
    static let guidedFilter = BuiltinFilter(
        FilterDescriptor(
            "CIGuidedFilter", "Guided Filter", "Edge-aware guided filter that upsamples a small image using a guide image.",
            categories: [.builtIn, .geometryAdjustment, .highDynamicRange, .stillImage, .video], macOS: "10.14", iOS: "12",
            doc: """
                He, Sun and Tang's guided filter, which smooths the input while
                following the guide's edges, and upsamples a small input to the guide's size (Apple:
                "upsamples a small image using a guide image"). The input is first stretched over the
                guide's extent (read clamped to its own extent, bilinear) when the two extents
                differ. Then, as the paper's Algorithm 1 with the guide's Rec. 709 luma as the guide
                I (a grey guide) and each premultiplied component of the input as p: with f_mean the
                mean over the (2r + 1)² window, clipped to the guide's extent (the window's pixels
                inside it are averaged, as the paper's box filter does at borders),
                `a = (f_mean(I p) - f_mean(I) f_mean(p)) / (f_mean(I²) - f_mean(I)² + epsilon)`,
                `b = f_mean(p) - a f_mean(I)`, `q = f_mean(a) I + f_mean(b)`. The extent is the guide's.
                """,
            inputs: [
                .image(),
                .image("inputGuideImage", "A larger image to use as a guide.", "The guide: its luma's edges are kept; its extent is the output's."),
                .number("inputRadius", "Radius", .scalar, default: 1, slider: 1...10, limit: .guidedRadius, "The window's radius r, in pixels (rounded): windows are 2r + 1 wide."),
                .number(
                    "inputEpsilon", "Epsilon", .scalar, default: 0.0001, slider: 1e-09...0.1, limit: .guidedEpsilon,
                    "The regularisation: larger values smooth more, across weaker edges."),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let guide = try args.image("inputGuideImage")
        let r = Int(try args.number(kCIInputRadiusKey).rounded())
        let epsilon = try args.float("inputEpsilon")
        let g = guide.extent
        if g.isEmpty || image.extent.isEmpty { return .empty() }
        var p = image
        let e = image.extent
        if !g.isInfinite && e != g {
            if e.isInfinite {
                p = image.cropped(to: g)
            } else {
                let t = CGAffineTransform(translationX: -e.minX, y: -e.minY)
                    .concatenating(CGAffineTransform(scaleX: g.width / e.width, y: g.height / e.height))
                    .concatenating(CGAffineTransform(translationX: g.minX, y: g.minY))
                p = image.clampedToExtent().transformed(by: t).cropped(to: g)
            }
        }
        let op = GuidedFilter(radius: r, epsilon: epsilon, region: g.isInfinite ? nil : PixelRect(covering: g), outputExtent: g)
        return CIImage(node: NeighbourhoodNode(input: p.node, auxiliary: [guide.node], operation: op))
    }
}

/// CIGuidedFilter's operation (see the declaration). Input 0 is p (already over the guide's
/// extent), auxiliary input 1 the guide. Each tile is computed in sub-tiles; every sum is
/// anchored to absolute coordinates, so sub-tiles and tiles agree to the bit.
struct GuidedFilter: NeighbourhoodOperation {
    let radius: Int
    let epsilon: Float
    /// The guide's pixels: windows are clipped to them (nil: an infinite guide).
    let region: PixelRect?
    let outputExtent: CGRect

    static var auxiliaryCount: Int { 1 }
    var reach: NeighbourhoodReach {
        let r = 2 * radius, s = 2 * AnchoredSums.slack
        return NeighbourhoodReach(left: r + s, right: r, below: r + s, above: r)
    }
    func extent(of input: CGRect) -> CGRect { outputExtent }

    func apply(_ input: NeighbourhoodInput, into out: TileBuffer) {
        let side = 256
        var y = 0
        while y < out.height {
            var x = 0
            let h = min(side, out.height - y)
            while x < out.width {
                let w = min(side, out.width - x)
                let rect = PixelRect(x: input.rect.minX + x, y: input.rect.minY + y, width: w, height: h)
                filter(input, rect, out.view(x: x, y: y, width: w, height: h))
                x += w
            }
            y += h
        }
    }

    /// Pixels of `lo ... hi` inside `min ..< max` (all of them when there is no region).
    @inline(__always) private func inside(_ lo: Int, _ hi: Int, _ min: Int, _ max: Int) -> Int {
        Swift.max(0, Swift.min(hi, max - 1) - Swift.max(lo, min) + 1)
    }

    /// The window count at (x, y): the (2r + 1)² window's pixels inside the region. Means
    /// divide by it (rather than multiply by its reciprocal), so a constant channel, an
    /// opaque alpha above all, comes out exactly.
    @inline(__always) private func windowCount(_ x: Int, _ y: Int) -> Float {
        let r = radius
        guard let g = region else { return Float((2 * r + 1) * (2 * r + 1)) }
        return Float(inside(x - r, x + r, g.minX, g.maxX) * inside(y - r, y + r, g.minY, g.maxY))
    }

    private func filter(_ input: NeighbourhoodInput, _ rect: PixelRect, _ out: TileBuffer) {
        let r = radius, taps = 2 * r + 1
        let X = rect.minX, Y = rect.minY, w = rect.width, h = rect.height
        let src = input.pixels, guide = input.auxiliary[0].buffer
        let ox = input.originX, oy = input.originY
        let luma = lumaWeights
        // Region A, where a and b are needed: what the second stage's anchored sums read.
        let ax0 = AnchoredSums.blockStart(X - r), ax1 = X + w + r
        let ay0 = AnchoredSums.blockStart(Y) - r, ay1 = Y + h + r
        let aw = ax1 - ax0, ah = ay1 - ay0
        // First stage: rows of horizontal window sums of (I, I², 0, 0), p and I p, for the
        // input rows the first stage's anchored column sums read.
        let hy0 = AnchoredSums.blockStart(ay0) - r, hy1 = ay1 + r, hh = hy1 - hy0
        let px0 = AnchoredSums.blockStart(ax0 - r), pn = ax1 + r - px0
        let rowSums = PixelBlock(rect: PixelRect(x: 0, y: 0, width: aw, height: 3 * hh))
        let line = PixelBlock(rect: PixelRect(x: 0, y: 0, width: pn, height: 3))
        let prefix = PixelBlock(rect: PixelRect(x: 0, y: 0, width: AnchoredSums.prefixCapacity(pn) + AnchoredSums.totalsCapacity(pn), height: 1))
        let e = prefix.pixels, t = e + AnchoredSums.prefixCapacity(pn)
        for j in 0..<hh {
            let s = src.row(hy0 + j - oy) + (px0 - ox), gd = guide.row(hy0 + j - oy) + (px0 - ox)
            let q0 = line.pixels, q1 = q0 + pn, q2 = q1 + pn
            for i in 0..<pn {
                let c = gd[i], v = c.x * luma.x + c.y * luma.y + c.z * luma.z
                q0[i] = SIMD4(v, v * v, 0, 0)
                q1[i] = s[i]
                q2[i] = s[i] * v
            }
            for k in 0..<3 {
                AnchoredSums.prefix(line.pixels + k * pn, count: pn, e: e, t: t)
                let d = rowSums.pixels + (k * hh + j) * aw
                d.update(repeating: .zero, count: aw)
                AnchoredSums.addWindows(e, t, from: ax0 - r - px0, length: taps, count: aw, into: d)
            }
        }
        // Column sums over region A, then a and b there (0 outside the guide).
        let means = PixelBlock(rect: PixelRect(x: 0, y: 0, width: aw, height: 3 * ah))
        for k in 0..<3 {
            AnchoredSums.columnWindows(
                width: aw, origin: hy0, first: ay0 - hy0, count: ah, lo: -r, hi: r + 1,
                row: { UnsafePointer(rowSums.pixels + (k * hh + $0) * aw) },
                emit: { y, v in (means.pixels + (k * ah + y - (ay0 - hy0)) * aw).update(from: v, count: aw) })
        }
        let ab = PixelBlock(rect: PixelRect(x: 0, y: 0, width: aw, height: 2 * ah))
        let eps = epsilon
        for j in 0..<ah {
            let y = ay0 + j
            let m0 = means.pixels + j * aw, m1 = means.pixels + (ah + j) * aw, m2 = means.pixels + (2 * ah + j) * aw
            let a = ab.pixels + j * aw, b = ab.pixels + (ah + j) * aw
            for i in 0..<aw {
                let x = ax0 + i
                if let g = region, x < g.minX || x >= g.maxX || y < g.minY || y >= g.maxY {
                    a[i] = .zero; b[i] = .zero
                    continue
                }
                let n = windowCount(x, y)
                let mI = m0[i].x / n, mII = m0[i].y / n
                let mp = m1[i] / n, mIp = m2[i] / n
                let variance = mII - mI * mI
                let ai = (mIp - mp * mI) / (variance + eps)
                a[i] = ai
                b[i] = mp - ai * mI
            }
        }
        // Second stage: the means of a and b over the output's windows, and q.
        let rowsAB = PixelBlock(rect: PixelRect(x: 0, y: 0, width: w, height: 2 * ah))
        let pn2 = aw
        let prefix2 = PixelBlock(rect: PixelRect(x: 0, y: 0, width: AnchoredSums.prefixCapacity(pn2) + AnchoredSums.totalsCapacity(pn2), height: 1))
        let e2 = prefix2.pixels, t2 = e2 + AnchoredSums.prefixCapacity(pn2)
        for k in 0..<2 {
            for j in 0..<ah {
                AnchoredSums.prefix(ab.pixels + (k * ah + j) * aw, count: pn2, e: e2, t: t2)
                let d = rowsAB.pixels + (k * ah + j) * w
                d.update(repeating: .zero, count: w)
                AnchoredSums.addWindows(e2, t2, from: X - r - ax0, length: taps, count: w, into: d)
            }
        }
        let meanA = PixelBlock(rect: PixelRect(x: 0, y: 0, width: w, height: h))
        AnchoredSums.columnWindows(
            width: w, origin: ay0, first: Y - ay0, count: h, lo: -r, hi: r + 1,
            row: { UnsafePointer(rowsAB.pixels + $0 * w) },
            emit: { y, v in (meanA.pixels + (y - (Y - ay0)) * w).update(from: v, count: w) })
        AnchoredSums.columnWindows(
            width: w, origin: ay0, first: Y - ay0, count: h, lo: -r, hi: r + 1,
            row: { UnsafePointer(rowsAB.pixels + (ah + $0) * w) },
            emit: { y, v in
                let row = y - (Y - ay0)
                let d = out.row(row), sa = meanA.pixels + row * w
                let gd = guide.row(Y + row - oy) + (X - ox)
                for i in 0..<w {
                    let n = windowCount(X + i, Y + row)
                    let c = gd[i], I = c.x * luma.x + c.y * luma.y + c.z * luma.z
                    d[i] = (sa[i] / n) * I + v[i] / n
                }
            })
    }

    var label: String { "guided filter (radius \(radius), epsilon \(epsilon), box sums)" }
}
