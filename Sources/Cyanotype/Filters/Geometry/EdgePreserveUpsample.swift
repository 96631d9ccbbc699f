// CIEdgePreserveUpsampleFilter: joint bilateral upsampling (Kopf, Cohen, Lischinski and
// Uyttendaele, "Joint Bilateral Upsampling", SIGGRAPH 2007): each output pixel averages the
// small image's pixels near it, weighted by distance on the small grid and by how close the
// guide's luma there is to the guide's luma at the pixel.

extension BuiltinFilters {
    /// CIEdgePreserveUpsampleFilter: Upsamples a small image to the size of a guide image, preserving the guide's edges.
    static let edgePreserveUpsample = BuiltinFilter(
        FilterDescriptor(
            "CIEdgePreserveUpsampleFilter", "Edge Preserve Upsample Filter", "Upsamples a small image to the size of a guide image, preserving the guide's edges.",
            categories: [.builtIn, .geometryAdjustment, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
            macOS: "10.12", iOS: "10", factory: "edgePreserveUpsample", protocol: "CIEdgePreserveUpsample",
            doc: """
                Upsamples `smallImage` to the extent of `inputImage`,
                keeping the large image's edges, by Kopf et al.'s joint bilateral upsampling:
                `out(p) = sum_q S(q) f(|p' - q|) g(|Y(p) - Y(q)|) / sum_q f g`, where p' is p's
                position on the small image's grid (the small extent stretched over the large one),
                q runs over the small image's pixels whose centres lie within max(2 * spatialSigma, 1)
                of p' in x and in y, f and g are Gaussians of standard deviations `spatialSigma`
                (small-image pixels) and `lumaSigma`, and Y is the Rec. 709 luma of the large image
                (linear, premultiplied), read at p and at q's centre (bilinearly). Spatial sigma 0
                takes the small pixel under p' alone; luma sigma 0 only small pixels whose guide luma
                equals p's. Where every weight vanishes, the spatial weights alone are used. Both
                images must be finite; the extent is the large image's.
                """,
            inputs: [
                .image(),
                .image("inputSmallImage", "Small Image", "The image to upsample; its extent is stretched over the large one's."),
                .number(
                    "inputSpatialSigma", "Spatial Sigma", .scalar, default: 3, min: 0, max: 5,
                    """
                    The standard deviation of the spatial weights, in pixels of the
                    small image.
                    """),
                .number("inputLumaSigma", "Luma Sigma", .scalar, default: 0.15, min: 0, max: 1, "The standard deviation of the luma weights (0 to 1 is black to white)."),
            ])
    ) { args throws(CIFilterError) in
        let guide = try args.image()
        let small = try args.image("inputSmallImage")
        let spatial = try args.number("inputSpatialSigma"), lumaSigma = try args.number("inputLumaSigma")
        if guide.extent.isEmpty || small.extent.isEmpty { return .empty() }
        guard !guide.extent.isInfinite else {
            throw .invalidValue(filter: args.descriptor.name, key: kCIInputImageKey, reason: "the image must be finite: crop it first")
        }
        guard !small.extent.isInfinite else {
            throw .invalidValue(filter: args.descriptor.name, key: "inputSmallImage", reason: "the small image must be finite: crop it first")
        }
        let op = JointBilateralUpsample(guide: guide.extent, small: small.extent, spatialSigma: spatial, lumaSigma: lumaSigma)
        // The guide at the small pixels' centres: the guide mapped onto the small grid (a
        // bilinear sample at each centre).
        let g = guide.extent, s = small.extent
        let toSmall = CGAffineTransform(translationX: -g.minX, y: -g.minY)
            .concatenating(CGAffineTransform(scaleX: s.width / g.width, y: s.height / g.height))
            .concatenating(CGAffineTransform(translationX: s.minX, y: s.minY))
        let guideOnSmall = guide.transformed(by: toSmall)
        return CIImage(node: NeighbourhoodNode(input: guide.node, auxiliary: [small.node, guideOnSmall.node], operation: op))
    }
}

/// CIEdgePreserveUpsampleFilter's operation: input 0 is the large guide (read at the output
/// pixels only), auxiliary input 1 the small image, auxiliary input 2 the guide sampled at
/// the small pixels' centres.
struct JointBilateralUpsample: NeighbourhoodOperation {
    let guide: CGRect, small: CGRect
    let spatialSigma: Double, lumaSigma: Double
    /// Small pixels per large pixel, in x and y.
    let sx: Double, sy: Double
    /// Half the window on the small grid, in small pixels.
    let window: Double
    /// The small image's pixels.
    let smallPixels: PixelRect

    init(guide: CGRect, small: CGRect, spatialSigma: Double, lumaSigma: Double) {
        self.guide = guide
        self.small = small
        self.spatialSigma = spatialSigma
        self.lumaSigma = lumaSigma
        sx = Double(small.width / guide.width)
        sy = Double(small.height / guide.height)
        window = spatialSigma > 0 ? max(2 * spatialSigma, 1) : 0.5
        smallPixels = PixelRect(covering: small)
    }

    static var auxiliaryCount: Int { 2 }
    var reach: NeighbourhoodReach { NeighbourhoodReach(0) }
    func extent(of input: CGRect) -> CGRect { guide }

    /// p's position on the small grid, for the large pixel centre (x, y).
    @inline(__always) private func onSmall(_ x: Double, _ y: Double) -> (Double, Double) {
        (Double(small.minX) + (x - Double(guide.minX)) * sx, Double(small.minY) + (y - Double(guide.minY)) * sy)
    }

    /// The small pixels the window of any pixel of `rect` covers (for both auxiliary inputs).
    func auxiliaryRect(_ index: Int, for rect: PixelRect) -> PixelRect {
        let (x0, y0) = onSmall(Double(rect.minX), Double(rect.minY)), (x1, y1) = onSmall(Double(rect.maxX), Double(rect.maxY))
        let lim = Double(PixelRect.limit)
        func cl(_ v: Double) -> Int { Int(min(max(v, -lim), lim)) }
        let r = PixelRect(
            minX: cl((x0 - window - 0.5).rounded(.down)) - 1, minY: cl((y0 - window - 0.5).rounded(.down)) - 1,
            maxX: cl((x1 + window + 0.5).rounded(.up)) + 1, maxY: cl((y1 + window + 0.5).rounded(.up)) + 1)
        return r.intersection(smallPixels)
    }

    func apply(_ input: NeighbourhoodInput, into out: TileBuffer) {
        let block = input.auxiliary[0], guideBlock = input.auxiliary[1]
        let q = block.rect
        let rect = input.rect, src = input.pixels, ox = input.originX, oy = input.originY
        let luma = lumaWeights
        if q.isEmpty { out.zero(); return }
        // The guide's luma at every small pixel's centre.
        var lumaAt = [Float](repeating: 0, count: q.area)
        for j in 0..<q.height {
            let g = guideBlock.buffer.row(j)
            for i in 0..<q.width { lumaAt[j * q.width + i] = g[i].x * luma.x + g[i].y * luma.y + g[i].z * luma.z }
        }
        let spatial = spatialSigma, range = lumaSigma
        let sk = spatial > 0 ? -1 / (2 * spatial * spatial) : 0, rk = range > 0 ? Float(-1 / (2 * range * range)) : 0
        let smallBuffer = block.buffer
        lumaAt.withUnsafeBufferPointer { la in
            for y in 0..<out.height {
                let d = out.row(y), g = src.row(rect.minY + y - oy) + (rect.minX - ox)
                let (_, py) = onSmall(0, Double(rect.minY + y) + 0.5)
                let j0 = max(q.minY, Int((py - 0.5 - window).rounded(.up))), j1 = min(q.maxY - 1, Int((py - 0.5 + window).rounded(.down)))
                for x in 0..<out.width {
                    let (px, _) = onSmall(Double(rect.minX + x) + 0.5, 0)
                    let i0 = max(q.minX, Int((px - 0.5 - window).rounded(.up))), i1 = min(q.maxX - 1, Int((px - 0.5 + window).rounded(.down)))
                    let c = g[x], yp = c.x * luma.x + c.y * luma.y + c.z * luma.z
                    var sum = SIMD4<Float>.zero, total: Float = 0
                    var spatialSum = SIMD4<Float>.zero, spatialTotal: Float = 0
                    if i0 <= i1 && j0 <= j1 {
                        for j in j0...j1 {
                            let dy = Double(j) + 0.5 - py
                            let row = smallBuffer.row(j - q.minY)
                            for i in i0...i1 {
                                let dx = Double(i) + 0.5 - px
                                let f = spatial > 0 ? Float(exp((dx * dx + dy * dy) * sk)) : 1
                                let diff = yp - la[(j - q.minY) * q.width + (i - q.minX)]
                                let gw: Float = range > 0 ? expf(diff * diff * rk) : (diff == 0 ? 1 : 0)
                                let s = row[i - q.minX]
                                sum += s * (f * gw); total += f * gw
                                spatialSum += s * f; spatialTotal += f
                            }
                        }
                    }
                    if total > 1e-30 {
                        d[x] = sum / total
                    } else if spatialTotal > 0 {
                        d[x] = spatialSum / spatialTotal
                    } else {
                        d[x] = .zero
                    }
                }
            }
        }
    }

    var label: String { "joint bilateral upsample (spatial sigma \(spatialSigma), luma sigma \(lumaSigma))" }
}
