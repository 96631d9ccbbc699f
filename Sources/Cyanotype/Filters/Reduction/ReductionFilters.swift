// Reductions: small images summarising a region of the input, computed in parallel over tiles
// with Double partial sums (see Engine/ReductionNode.swift). As in Core Image they run on
// premultiplied working-space values (linear sRGB), and their outputs have their origin at
// (0, 0): CIAreaAverage is the 1x1 image [0, 0, 1, 1], CIAreaHistogram the N x 1 image
// [0, 0, N, 1]. `inputExtent` [0, 0, 0, 0] (the default) means the input's own extent.
// Read the numbers with `CIContext.reduce(_:)`.

import Foundation

extension CIContext {
    /// The working-space values of a small image such as a reduction's output: premultiplied,
    /// unconverted linear sRGB floats, pixel (x, y) of the extent at index
    /// `(y - minY) * width + (x - minX)` (bottom row first, y up as in Core Image).
    public func reduce(_ image: CIImage) throws -> [SIMD4<Float>] {
        let rect = try renderablePixels(image.extent)
        let out = PixelBlock(rect: rect, zeroed: true)
        try Render(node: image.node, rect: rect, delivery: .tiles { tile, tr in out.view(tr).copy(from: tile) }, environment: environment).run()
        return Array(UnsafeBufferPointer(start: out.pixels, count: rect.area))
    }
}

/// The region a reduction reads: `inputExtent`, or the image's extent when that is empty.
func reductionRegion(_ args: FilterArguments, _ image: CIImage) throws(CIFilterError) -> PixelRect {
    var r = try args.rect(kCIInputExtentKey)
    if r.isEmpty || r.isNull || r.width <= 0 || r.height <= 0 { r = image.extent }
    guard !r.isInfiniteOrHuge, !r.isNull else {
        throw .invalidValue(filter: args.descriptor.name, key: kCIInputExtentKey, reason: "the region is infinite: set inputExtent to a finite rectangle")
    }
    let p = PixelRect(covering: r)
    guard p.area <= 1 << 32 else {
        throw .invalidValue(filter: args.descriptor.name, key: kCIInputExtentKey, reason: "the region is too large to reduce")
    }
    return p
}

/// How an area histogram spaces its bins.
enum HistogramBins: Sendable { case linear, logarithmic, alphaWeighted }

func reduced(_ image: CIImage, _ region: PixelRect, _ r: any Reduction, auxiliary: [CIImage] = []) -> CIImage {
    CIImage(node: ReductionNode(input: image.node, auxiliary: auxiliary.map(\.node), region: region, reduction: r))
}

extension BuiltinFilters {
    /// The family of CIAreaAverage, CIAreaMaximum, CIAreaMinimum and 6 more: one implementation, a table per filter.
    static let areaReductions = BuiltinFilter.family(
        doc: """
            The area reductions: one small image summarising the region `inputExtent` of the
            input (the whole input when that is empty, the default), each with its own
            reduction.
            """,
        categories: [.builtIn, .highDynamicRange, .reduction, .stillImage, .video],
        inputs: [
            .image(),
            .vector("inputExtent", "Extent", .rectangle, default: [0, 0, 0, 0], "The region to reduce; [0, 0, 0, 0] (the default) for the input's extent."),
        ],
        [
            (
                FilterDescriptor(
                    "CIAreaAverage", "Area Average", "Reduces a region to a single pixel holding its mean color.",
                    macOS: "10.5", iOS: "9", factory: "areaAverage", outputKeys: ["outputImage", "outputImageNonMPS:"],
                    doc: """
                        The mean of every component over the region, as a 1x1 image. Pixels of
                        the region outside the image count as clear.
                        """,
                ),
                AverageReduction()
            ),
            (
                FilterDescriptor(
                    "CIAreaMaximum", "Area Maximum", "Reduces a region to one pixel holding the per-channel maximum.",
                    macOS: "10.5", iOS: "9", factory: "areaMaximum",
                    doc: "The per-component maximum over the region (1x1).",
                ),
                MinMaxReduction(output: .maximum)
            ),
            (
                FilterDescriptor(
                    "CIAreaMinimum", "Area Minimum", "Reduces a region to one pixel holding the per-channel minimum.",
                    macOS: "10.5", iOS: "9", factory: "areaMinimum",
                    doc: "The per-component minimum over the region (1x1).",
                ),
                MinMaxReduction(output: .minimum)
            ),
            (
                FilterDescriptor(
                    "CIAreaMinMax", "Area Min and Max", "Reduces a region to a 2x1 image with per-channel minimum and maximum.",
                    macOS: "10.14", iOS: "12", factory: "areaMinMax", outputKeys: ["outputImage", "outputImageMPS:", "outputImageNonMPS"],
                    doc: "A 2x1 image, the per-component minimum on the left, maximum on the right.",
                ),
                MinMaxReduction(output: .both)
            ),
            (
                FilterDescriptor(
                    "CIAreaMinMaxRed", "Area Min and Max Red", "Reduces a region to one pixel with the red channel's minimum and maximum.",
                    macOS: "10.13", iOS: "11", factory: "areaMinMaxRed",
                    doc: "1x1, red = the smallest red, green = the largest red (blue 0, alpha 1).",
                ),
                MinMaxReduction(output: .red)
            ),
            (
                FilterDescriptor(
                    "CIAreaMaximumAlpha", "Area Maximum Alpha", "Returns the pixel of the region whose alpha is largest.",
                    macOS: "10.5", iOS: "9", factory: "areaMaximumAlpha",
                    doc: """
                        The pixel (all four components) with the largest alpha; ties go to
                        the first in scan order (bottom row first, left to right).
                        """,
                ),
                AlphaExtremeReduction(maximum: true)
            ),
            (
                FilterDescriptor(
                    "CIAreaMinimumAlpha", "Area Minimum Alpha", "Returns the pixel of the region whose alpha is smallest.",
                    macOS: "10.5", iOS: "9", factory: "areaMinimumAlpha",
                    doc: "The pixel with the smallest alpha, ties as CIAreaMaximumAlpha.",
                ),
                AlphaExtremeReduction(maximum: false)
            ),
            (
                FilterDescriptor(
                    "CIAreaAverageMaximumRed", "Area Average and Maximum Red", "Reduces a region to one pixel carrying the mean and the maximum of the red channel.",
                    macOS: "26.0", iOS: "26", factory: "areaAverageMaximumRed",
                    doc: """
                        1x1, red = the mean red, green = the largest red (blue 0,
                        alpha 1).
                        """,
                ),
                AverageMaximumRedReduction()
            ),
            (
                FilterDescriptor(
                    "CIAreaBoundsRed", "Area Bounds Red", "Finds the approximate bounding box of non-zero red pixels in a region (normalized rect in one pixel).",
                    macOS: "15.0", iOS: "18", factory: "areaBoundsRed",
                    doc: """
                        1x1, the bounding box of the pixels whose red is above 0, normalised
                        to the region: (x, y, width, height) as fractions of the region's size, measured from
                        its lower-left corner. All zero when no pixel qualifies.
                        """,
                ),
                BoundsRedReduction()
            ),
        ] as [(FilterDescriptor, any Reduction)]
    ) { args, reduction throws(CIFilterError) in
        let image = try args.image()
        return reduced(image, try reductionRegion(args, image), reduction)
    }

    /// The family of CIAreaHistogram, CIAreaLogarithmicHistogram, CIAreaAlphaWeightedHistogram: one implementation, a table per filter.
    static let areaHistograms = BuiltinFilter.family(
        doc: """
            The area histograms: `inputCount` x 1 images whose bin i of each channel holds the
            fraction of the region's pixels in that bin, times `inputScale`, so each channel sums to
            `inputScale` (see each filter for its bins).
            """,
        [
            (
                FilterDescriptor(
                    "CIAreaHistogram", "Area Histogram", "Computes an RGBA histogram of a region as a 1-pixel-tall image with N bins.",
                    categories: [.builtIn, .reduction, .stillImage, .video],
                    macOS: "10.5", iOS: "8", factory: "areaHistogram", outputKeys: ["outputImage", "outputData", "outputImageMPS", "outputImageNonMPS"],
                    doc: """
                        Bin i of each channel counts the pixels whose component v (clamped
                        to [0, 1]) has `min(floor(v * count), count - 1) == i`.
                        """,
                    inputs: [
                        .image(),
                        .vector("inputExtent", "Extent", .rectangle, default: [0, 0, 0, 0], "The region to reduce; [0, 0, 0, 0] (the default) for the input's extent."),
                        .number("inputScale", "Scale", .scalar, default: 1, min: 0, slider: 0...1, "What each channel's bins sum to."),
                        .number("inputCount", "Count", .scalar, default: 64, min: 1, max: 2048, slider: 10...1000, "The number of bins (rounded)."),
                    ]),
                HistogramBins.linear
            ),
            (
                FilterDescriptor(
                    "CIAreaLogarithmicHistogram", "Area Logarithmic Histogram", "Histogram of a region with RGB values binned on a log2 (stops) scale.",
                    categories: [.builtIn, .highDynamicRange, .reduction, .stillImage, .video],
                    macOS: "13.0", iOS: "16", factory: "areaLogarithmicHistogram", outputKeys: ["outputImage", "outputData", "outputImageMPS", "outputImageNonMPS"],
                    doc: """
                        As CIAreaHistogram with bins equally spaced in stops:
                        bin = floor((log2(v) - minimumStop) / (maximumStop - minimumStop) * count), clamped
                        to the first and last bins (values at or below 0 land in the first), for all four
                        components.
                        """,
                    inputs: [
                        .image(),
                        .vector("inputExtent", "Extent", .rectangle, default: [0, 0, 0, 0], "The region to reduce; [0, 0, 0, 0] (the default) for the input's extent."),
                        .number("inputScale", "Scale", .scalar, default: 1, min: 0, slider: 0...1, "What each channel's bins sum to."),
                        .number("inputCount", "Count", .scalar, default: 64, min: 1, max: 2048, slider: 10...1000, "The number of bins (rounded)."),
                        .number("inputMinimumStop", "Minimum Stop", .scalar, default: -10, slider: -12...(-4)),
                        .number("inputMaximumStop", "Maximum Stop", .scalar, default: 4, slider: 0...8),
                    ]),
                .logarithmic
            ),
            (
                FilterDescriptor(
                    "CIAreaAlphaWeightedHistogram", "Area Alpha Weighted Histogram", "Per-channel RGB histogram of a region with each pixel weighted by its alpha.",
                    categories: [.builtIn, .reduction, .stillImage, .video],
                    macOS: "15.0", iOS: "18", factory: "areaAlphaWeightedHistogram", protocol: "CIAreaHistogram",
                    outputKeys: ["outputImage", "outputImageMPS", "outputImageNonMPS", "outputData"],
                    doc: """
                        Red, green and blue histograms of straight
                        (unpremultiplied) colour where each pixel counts its alpha instead of 1; alpha holds
                        the plain alpha histogram. Normalised by the pixel count, so an opaque image gives
                        CIAreaHistogram's result and translucent pixels weigh less.
                        """,
                    inputs: [
                        .image(),
                        .vector("inputExtent", "Extent", .rectangle, default: [0, 0, 0, 0], "The region to reduce; [0, 0, 0, 0] (the default) for the input's extent."),
                        .number("inputScale", "Scale", .scalar, default: 1, min: 0, slider: 0...1, "What each channel's bins sum to."),
                        .number("inputCount", "Count", .scalar, default: 64, min: 1, max: 2048, slider: 10...1000, "The number of bins (rounded)."),
                    ]),
                .alphaWeighted
            ),
        ]
    ) { args, bins throws(CIFilterError) in
        let image = try args.image()
        let n = Int(try args.number("inputCount").rounded())
        let kind: HistogramReduction.Kind
        switch bins {
        case .linear: kind = .linear
        case .logarithmic: kind = .logarithmic(min: try args.number("inputMinimumStop"), max: try args.number("inputMaximumStop"))
        case .alphaWeighted: kind = .alphaWeighted
        }
        return reduced(image, try reductionRegion(args, image), HistogramReduction(count: max(1, n), scale: try args.number(kCIInputScaleKey), kind: kind))
    }
    /// The family of CIColumnAverage and CIRowAverage: the mean of each column, or each row, of the region.
    static let lineAverages = BuiltinFilter.family(
        categories: [.builtIn, .highDynamicRange, .reduction, .stillImage, .video], macOS: "10.5", iOS: "9",
        inputs: [
            .image(),
            .vector("inputExtent", "Extent", .rectangle, default: [0, 0, 0, 0]),
        ],
        [
            (
                FilterDescriptor(
                    "CIColumnAverage", "Column Average", "Reduces a region to a 1-pixel-tall row of per-column mean colors.",
                    factory: "columnAverage", doc: "Width x 1, the mean of each column of the region."),
                true
            ),
            (
                FilterDescriptor(
                    "CIRowAverage", "Row Average", "Reduces a region to a 1-pixel-wide column of per-row mean colors.",
                    factory: "rowAverage", doc: "1 x height, the mean of each row of the region (bottom row first)."),
                false
            ),
        ]
    ) { args, columns throws(CIFilterError) in
        let image = try args.image()
        let region = try reductionRegion(args, image)
        return reduced(image, region, LineAverageReduction(columns: columns, length: columns ? region.width : region.height))
    }

    /// CIKMeans: Clusters the colors of a region into K representative colors (palette).
    static let kMeans = BuiltinFilter(
        FilterDescriptor(
            "CIKMeans", "KMeans", "Clusters the colors of a region into K representative colors (palette).",
            categories: [.builtIn, .highDynamicRange, .reduction, .stillImage, .video], macOS: "10.15", iOS: "13", factory: "kMeans",
            doc: """
                `count` x 1, the k-means clusters of the region's straight colours (Lloyd's
                algorithm, `passes` iterations, pixels weighted by alpha): rgb = the cluster's mean
                (linear working space), alpha = its weight (share of the region's alpha). Seeds: the
                pixels of `inputMeans` when given (its count wins when `inputCount` is 0), else
                deterministic farthest-point seeds from a sample of the region. `perceptual` clusters
                on sRGB-encoded values. Empty clusters keep their seed with weight 0.
                """,
            inputs: [
                .image(),
                .vector("inputExtent", "Extent", .rectangle, default: [0, 0, 0, 0]),
                .image("inputMeans", "Means"),
                .number("inputCount", "Count", .count, default: 8, identity: 0, min: 0, max: 128),
                .number("inputPasses", "Passes", .count, default: 5, identity: 0, min: 0, max: 20),
                .bool("inputPerceptual", "Perceptual", default: false, min: 0, max: 1),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let region = try reductionRegion(args, image)
        var k = Int(try args.number("inputCount").rounded())
        let passes = Int(try args.number("inputPasses").rounded())
        let perceptual = try args.bool("inputPerceptual")
        let means = try args.optionalImage("inputMeans")
        if let m = means {
            guard !m.extent.isInfiniteOrHuge else {
                throw .invalidValue(filter: args.descriptor.name, key: "inputMeans", reason: "the means image must be finite (a small N x 1 image of colours)")
            }
            if k == 0 { k = PixelRect(covering: m.extent).area }
        }
        guard k > 0 else { return CIImage(node: CIImage.emptyNode) }
        let count = min(k, 128)
        let meansNode = means?.node
        let node = WholeImageNode(
            input: image.node, auxiliary: meansNode.map { [$0] } ?? [], region: region,
            extent: CGRect(x: 0, y: 0, width: count, height: 1), name: "k-means (\(count))", isData: true
        ) { block, aux, executor in
            kMeansClusters(block, seeds: aux.first, count: count, passes: passes, perceptual: perceptual, executor: executor)
        }
        return CIImage(node: node)
    }

    /// CIHistogramDisplayFilter: Draws a visual histogram chart from the output of an area histogram.
    static let histogramDisplayFilter = BuiltinFilter(
        FilterDescriptor(
            "CIHistogramDisplayFilter", "Histogram Display", "Draws a visual histogram chart from the output of an area histogram.",
            categories: [.builtIn, .reduction, .stillImage, .video], iOS: "8", factory: "histogramDisplay", protocol: "CIHistogramDisplay",
            doc: """
                Draws a histogram (an N x 1 image such as CIAreaHistogram's)
                as an N x `height` chart at the origin: in column i, each of red, green and blue is 1
                below that channel's bar and 0 above, alpha 1. Bars are scaled by the largest red,
                green or blue bin m: the bar of value v reaches `(v / m - lowLimit) / (highLimit -
                lowLimit)` of the height, so the limits choose the band of values shown.
                """,
            inputs: [
                .image(),
                .number("inputHeight", "Height", .scalar, default: 100, min: 1, max: 200, slider: 1...100),
                .number("inputHighLimit", "High Limit", .scalar, default: 1, min: 0, max: 1, slider: 0...1),
                .number("inputLowLimit", "Low Limit", .scalar, default: 0, min: 0, max: 1, slider: 0...1),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        guard !image.extent.isInfiniteOrHuge, PixelRect(covering: image.extent).area <= 1 << 16 else {
            throw .invalidValue(filter: args.descriptor.name, key: kCIInputImageKey, reason: "expects a histogram: a finite N x 1 image (CIAreaHistogram's output)")
        }
        let h = Int(try args.number("inputHeight").rounded())
        let hi = try args.float("inputHighLimit"), lo = try args.float("inputLowLimit")
        let src = PixelRect(covering: image.extent)
        let node = WholeImageNode(input: image.node, region: src, extent: CGRect(x: 0, y: 0, width: src.width, height: max(1, h)), name: "histogram display") { block, _ in
            histogramChart(block, height: max(1, h), low: lo, high: hi)
        }
        return CIImage(node: node)
    }
}

// MARK: - The reductions

struct AverageReduction: Reduction {
    var outputWidth: Int { 1 }
    var outputHeight: Int { 1 }
    func partialCount(_ region: PixelRect) -> Int { 4 }
    func accumulate(_ row: UnsafePointer<SIMD4<Float>>, count: Int, x: Int, y: Int, region: PixelRect, into p: UnsafeMutablePointer<Double>) {
        var s = SIMD4<Double>(p[0], p[1], p[2], p[3])
        for i in 0..<count {
            let v = row[i]
            s += SIMD4<Double>(Double(v.x), Double(v.y), Double(v.z), Double(v.w))
        }
        p[0] = s.x; p[1] = s.y; p[2] = s.z; p[3] = s.w
    }
    func finish(_ p: UnsafePointer<Double>, region: PixelRect) -> [SIMD4<Float>] {
        let n = Double(max(1, region.area))
        return [SIMD4(Float(p[0] / n), Float(p[1] / n), Float(p[2] / n), Float(p[3] / n))]
    }
    var label: String { "area average" }

    /// 8-bit RGBA bitmaps are summed from counts of their codes (see `Bitmap8HistogramReader`).
    func directReader(_ bitmap: BitmapNode, _ ev: Evaluator) -> (any DirectTileReader)? {
        Bitmap8HistogramReader.sums(bitmap, ev: ev)
    }
}

struct MinMaxReduction: Reduction {
    enum Output { case minimum, maximum, both, red }
    let output: Output
    var outputWidth: Int { output == .both ? 2 : 1 }
    var outputHeight: Int { 1 }
    func partialCount(_ region: PixelRect) -> Int { 8 }
    func initialize(_ p: UnsafeMutablePointer<Double>, _ region: PixelRect) {
        for i in 0..<4 { p[i] = .infinity; p[4 + i] = -.infinity }
    }
    func accumulate(_ row: UnsafePointer<SIMD4<Float>>, count: Int, x: Int, y: Int, region: PixelRect, into p: UnsafeMutablePointer<Double>) {
        var lo = SIMD4<Float>(Float(p[0]), Float(p[1]), Float(p[2]), Float(p[3]))
        var hi = SIMD4<Float>(Float(p[4]), Float(p[5]), Float(p[6]), Float(p[7]))
        for i in 0..<count {
            let v = row[i]
            lo = lo.replacing(with: v, where: v .< lo)
            hi = hi.replacing(with: v, where: v .> hi)
        }
        for k in 0..<4 { p[k] = Double(lo[k]); p[4 + k] = Double(hi[k]) }
    }
    func merge(_ into: UnsafeMutablePointer<Double>, _ other: UnsafePointer<Double>, _ region: PixelRect) {
        for k in 0..<4 { into[k] = min(into[k], other[k]); into[4 + k] = max(into[4 + k], other[4 + k]) }
    }
    func finish(_ p: UnsafePointer<Double>, region: PixelRect) -> [SIMD4<Float>] {
        if region.isEmpty { return [SIMD4<Float>](repeating: .zero, count: outputWidth) }
        let lo = SIMD4(Float(p[0]), Float(p[1]), Float(p[2]), Float(p[3]))
        let hi = SIMD4(Float(p[4]), Float(p[5]), Float(p[6]), Float(p[7]))
        switch output {
        case .minimum: return [lo]
        case .maximum: return [hi]
        case .both: return [lo, hi]
        case .red: return [SIMD4(lo.x, hi.x, 0, 1)]
        }
    }
    var label: String { "area \(output)" }
}

/// The pixel of extreme alpha; partial = [alpha, r, g, b, a, scan index].
struct AlphaExtremeReduction: Reduction {
    let maximum: Bool
    var outputWidth: Int { 1 }
    var outputHeight: Int { 1 }
    func partialCount(_ region: PixelRect) -> Int { 6 }
    func initialize(_ p: UnsafeMutablePointer<Double>, _ region: PixelRect) {
        p.update(repeating: 0, count: 6)
        p[0] = maximum ? -.infinity : .infinity
        p[5] = .infinity
    }
    @inline(__always) private func better(_ a: Double, _ ia: Double, than b: Double, _ ib: Double) -> Bool {
        if a == b { return ia < ib }
        return maximum ? a > b : a < b
    }
    func accumulate(_ row: UnsafePointer<SIMD4<Float>>, count: Int, x: Int, y: Int, region: PixelRect, into p: UnsafeMutablePointer<Double>) {
        var best = -1
        var ba = p[0]
        for i in 0..<count {
            let a = Double(row[i].w)
            if maximum ? a > ba : a < ba { ba = a; best = i }
        }
        guard best >= 0 || ba == p[0] else { return }
        if best < 0 {
            // Equal to the stored best: keep the earlier pixel in scan order.
            for i in 0..<count where Double(row[i].w) == ba { best = i; break }
            if best < 0 { return }
        }
        let index = Double((y - region.minY) * region.width + (x + best - region.minX))
        if better(ba, index, than: p[0], p[5]) {
            let v = row[best]
            p[0] = ba; p[1] = Double(v.x); p[2] = Double(v.y); p[3] = Double(v.z); p[4] = Double(v.w); p[5] = index
        }
    }
    func merge(_ into: UnsafeMutablePointer<Double>, _ other: UnsafePointer<Double>, _ region: PixelRect) {
        if better(other[0], other[5], than: into[0], into[5]) { for k in 0..<6 { into[k] = other[k] } }
    }
    func finish(_ p: UnsafePointer<Double>, region: PixelRect) -> [SIMD4<Float>] {
        [SIMD4(Float(p[1]), Float(p[2]), Float(p[3]), Float(p[4]))]
    }
    var label: String { maximum ? "area maximum alpha" : "area minimum alpha" }
}

struct AverageMaximumRedReduction: Reduction {
    var outputWidth: Int { 1 }
    var outputHeight: Int { 1 }
    func partialCount(_ region: PixelRect) -> Int { 2 }
    func initialize(_ p: UnsafeMutablePointer<Double>, _ region: PixelRect) { p[0] = 0; p[1] = -.infinity }
    func accumulate(_ row: UnsafePointer<SIMD4<Float>>, count: Int, x: Int, y: Int, region: PixelRect, into p: UnsafeMutablePointer<Double>) {
        var s = p[0], m = p[1]
        for i in 0..<count {
            let r = Double(row[i].x)
            s += r
            if r > m { m = r }
        }
        p[0] = s; p[1] = m
    }
    func merge(_ into: UnsafeMutablePointer<Double>, _ other: UnsafePointer<Double>, _ region: PixelRect) {
        into[0] += other[0]; into[1] = max(into[1], other[1])
    }
    func finish(_ p: UnsafePointer<Double>, region: PixelRect) -> [SIMD4<Float>] {
        [SIMD4(Float(p[0] / Double(max(1, region.area))), region.isEmpty ? 0 : Float(p[1]), 0, 1)]
    }
    var label: String { "area average maximum red" }
}

/// Partial = [minX, minY, maxX, maxY] of the pixels with red > 0, in pixels.
struct BoundsRedReduction: Reduction {
    var outputWidth: Int { 1 }
    var outputHeight: Int { 1 }
    /// A rectangle in RGBA: alpha is its height, not coverage.
    var producesData: Bool { true }
    func partialCount(_ region: PixelRect) -> Int { 4 }
    func initialize(_ p: UnsafeMutablePointer<Double>, _ region: PixelRect) {
        p[0] = .infinity; p[1] = .infinity; p[2] = -.infinity; p[3] = -.infinity
    }
    func accumulate(_ row: UnsafePointer<SIMD4<Float>>, count: Int, x: Int, y: Int, region: PixelRect, into p: UnsafeMutablePointer<Double>) {
        var first = -1, last = -1
        for i in 0..<count where row[i].x > 0 {
            if first < 0 { first = i }
            last = i
        }
        if first < 0 { return }
        p[0] = min(p[0], Double(x + first)); p[2] = max(p[2], Double(x + last + 1))
        p[1] = min(p[1], Double(y)); p[3] = max(p[3], Double(y + 1))
    }
    func merge(_ into: UnsafeMutablePointer<Double>, _ other: UnsafePointer<Double>, _ region: PixelRect) {
        into[0] = min(into[0], other[0]); into[1] = min(into[1], other[1])
        into[2] = max(into[2], other[2]); into[3] = max(into[3], other[3])
    }
    func finish(_ p: UnsafePointer<Double>, region: PixelRect) -> [SIMD4<Float>] {
        guard p[0].isFinite, !region.isEmpty else { return [.zero] }
        let w = Double(region.width), h = Double(region.height)
        return [
            SIMD4(
                Float((p[0] - Double(region.minX)) / w), Float((p[1] - Double(region.minY)) / h),
                Float((p[2] - p[0]) / w), Float((p[3] - p[1]) / h))
        ]
    }
    var label: String { "area bounds red" }
}

struct HistogramReduction: Reduction {
    enum Kind: Sendable { case linear, logarithmic(min: Double, max: Double), alphaWeighted }
    let count: Int
    let scale: Double
    let kind: Kind
    /// Bins by a float's top bits, for the linear kind when one is exact for `count` (set by
    /// `prepared`; see HistogramKernels.swift).
    var table: HistogramBinTable? = nil
    var outputWidth: Int { count }
    var outputHeight: Int { 1 }
    /// Bins are counts: the alpha bin is not the colour bins' coverage.
    var producesData: Bool { true }
    func partialCount(_ region: PixelRect) -> Int { 4 * count }

    func prepared(with auxiliary: [PixelBlock]) -> HistogramReduction {
        guard case .linear = kind else { return self }
        var r = self
        r.table = HistogramBinTable.shared(count)
        return r
    }

    /// 8-bit RGBA and working-space float bitmaps are counted straight from memory.
    func directReader(_ bitmap: BitmapNode, _ ev: Evaluator) -> (any DirectTileReader)? {
        guard case .linear = kind else { return nil }
        if let r = FloatBitmapHistogramReader(bitmap, count: count, table: table, colorManaged: ev.colorManaged) { return r }
        return Bitmap8HistogramReader(bitmap, count: count, table: table, ev: ev)
    }

    /// The plain histogram counts in 32-bit counters (HistogramCounters), added to the
    /// partial per tile.
    func accumulateTile(_ tile: TileBuffer, x: Int, y: Int, region: PixelRect, into p: UnsafeMutablePointer<Double>) {
        guard case .linear = kind else {
            for r in 0..<tile.height { accumulate(UnsafePointer(tile.row(r)), count: tile.width, x: x, y: y + r, region: region, into: p) }
            return
        }
        let c = HistogramCounters(count: count)
        defer { c.deallocate() }
        c.countFloatRows(tile.height, tile.width, stride: 16, table: table) { r in UnsafeRawPointer(tile.row(r)) }
        c.flush(into: p)
    }

    func accumulate(_ row: UnsafePointer<SIMD4<Float>>, count n: Int, x: Int, y: Int, region: PixelRect, into p: UnsafeMutablePointer<Double>) {
        let bins = Float(count), last = count - 1
        @inline(__always) func bin(_ v: Float) -> Int { histogramBin(v, bins, last) }
        switch kind {
        case .linear:
            for i in 0..<n {
                let v = row[i]
                p[4 * bin(v.x)] += 1; p[4 * bin(v.y) + 1] += 1; p[4 * bin(v.z) + 2] += 1; p[4 * bin(v.w) + 3] += 1
            }
        case .logarithmic(let lo, let hi):
            let span = hi - lo
            let inv: Float = span > 0 ? Float(1 / span) : 0
            let flo = Float(lo)
            @inline(__always) func logBin(_ v: Float) -> Int {
                if !(v > 0) { return 0 }
                if span <= 0 { return log2f(v) < flo ? 0 : last }
                return bin((log2f(v) - flo) * inv)
            }
            for i in 0..<n {
                let v = row[i]
                p[4 * logBin(v.x)] += 1; p[4 * logBin(v.y) + 1] += 1; p[4 * logBin(v.z) + 2] += 1; p[4 * logBin(v.w) + 3] += 1
            }
        case .alphaWeighted:
            for i in 0..<n {
                let v = row[i]
                let a = v.w
                let inv: Float = a > 0 ? 1 / a : 0
                let w = Double(clamp01(a))
                p[4 * bin(v.x * inv)] += w; p[4 * bin(v.y * inv) + 1] += w; p[4 * bin(v.z * inv) + 2] += w; p[4 * bin(a) + 3] += 1
            }
        }
    }
    func finish(_ p: UnsafePointer<Double>, region: PixelRect) -> [SIMD4<Float>] {
        let k = scale / Double(max(1, region.area))
        return (0..<count).map { i in SIMD4(Float(p[4 * i] * k), Float(p[4 * i + 1] * k), Float(p[4 * i + 2] * k), Float(p[4 * i + 3] * k)) }
    }
    var label: String { "histogram (\(count) bins, \(kind))" }
}

/// Means of each column (`columns`) or each row of the region.
struct LineAverageReduction: Reduction {
    let columns: Bool
    let length: Int
    var outputWidth: Int { columns ? max(1, length) : 1 }
    var outputHeight: Int { columns ? 1 : max(1, length) }
    func partialCount(_ region: PixelRect) -> Int { 4 * max(1, length) }
    func accumulate(_ row: UnsafePointer<SIMD4<Float>>, count: Int, x: Int, y: Int, region: PixelRect, into p: UnsafeMutablePointer<Double>) {
        if columns {
            var q = p + 4 * (x - region.minX)
            for i in 0..<count {
                let v = row[i]
                q[0] += Double(v.x); q[1] += Double(v.y); q[2] += Double(v.z); q[3] += Double(v.w)
                q += 4
            }
        } else {
            var s = SIMD4<Double>.zero
            for i in 0..<count {
                let v = row[i]
                s += SIMD4<Double>(Double(v.x), Double(v.y), Double(v.z), Double(v.w))
            }
            let q = p + 4 * (y - region.minY)
            q[0] += s.x; q[1] += s.y; q[2] += s.z; q[3] += s.w
        }
    }
    func finish(_ p: UnsafePointer<Double>, region: PixelRect) -> [SIMD4<Float>] {
        let n = Double(max(1, columns ? region.height : region.width))
        return (0..<max(1, length)).map { i in SIMD4(Float(p[4 * i] / n), Float(p[4 * i + 1] / n), Float(p[4 * i + 2] / n), Float(p[4 * i + 3] / n)) }
    }
    var label: String { columns ? "column average" : "row average" }
}

// MARK: - K-means and the histogram chart

/// Lloyd's k-means on straight colour weighted by alpha; returns the count x 1 result block.
func kMeansClusters(_ block: PixelBlock, seeds: PixelBlock?, count: Int, passes: Int, perceptual: Bool, executor: Executor) -> PixelBlock {
    let n = block.rect.area
    @Sendable @inline(__always) func space(_ p: SIMD4<Float>) -> SIMD3<Float> {
        let inv: Float = p.w > 0 ? 1 / p.w : 0
        let c = SIMD3(p.x * inv, p.y * inv, p.z * inv)
        return perceptual ? SIMD3(linearToSRGB(c.x), linearToSRGB(c.y), linearToSRGB(c.z)) : c
    }
    var means: [SIMD3<Float>] = []
    if let s = seeds {
        for i in 0..<min(count, s.rect.area) { means.append(space(SIMD4(s.pixels[i].x, s.pixels[i].y, s.pixels[i].z, 1))) }
    }
    if means.count < count, n > 0 {
        // Farthest-point seeds over an even sample of at most 4096 opaque-ish pixels.
        let step = max(1, n / 4096)
        var sample: [SIMD3<Float>] = []
        var i = 0
        while i < n { if block.pixels[i].w > 0 { sample.append(space(block.pixels[i])) }; i += step }
        if sample.isEmpty { sample = [.zero] }
        if means.isEmpty { means.append(sample.reduce(.zero, +) / Float(sample.count)) }
        var d2 = sample.map { s in means.map { simdDistance2(s, $0) }.min()! }
        while means.count < count {
            var bi = 0
            for j in 1..<d2.count where d2[j] > d2[bi] { bi = j }
            let c = sample[bi]
            means.append(c)
            for j in 0..<d2.count { d2[j] = min(d2[j], simdDistance2(sample[j], c)) }
        }
    }
    var weights = [Double](repeating: 0, count: count)
    // Each pass: assign every pixel to its nearest mean, in fixed chunks over the executor's
    // width, each chunk summing into its own slots (merged in chunk order, so results do not
    // depend on timing), then move the means to their clusters' centroids.
    let chunks = max(1, min(executor.width, n / 4096))
    let slots = UnsafeMutablePointer<Double>.allocate(capacity: chunks * count * 4)
    defer { slots.deallocate() }
    let shared = SendablePointer(slots)
    for pass in 0...max(0, passes) {
        slots.update(repeating: 0, count: chunks * count * 4)
        let frozen = means
        let work: @Sendable (Int) -> Void = { c in
            let mine = shared.p + c * count * 4
            frozen.withUnsafeBufferPointer { m in
                for i in (n * c / chunks)..<(n * (c + 1) / chunks) {
                    let p = block.pixels[i]
                    guard p.w > 0 else { continue }
                    let col = space(p)
                    let best = nearestColor(col, m)
                    let a = Double(p.w)
                    let q = mine + 4 * best
                    q[0] += Double(col.x) * a; q[1] += Double(col.y) * a; q[2] += Double(col.z) * a; q[3] += a
                }
            }
        }
        executor.parallelFor(chunks, work)
        var sums = [SIMD3<Double>](repeating: .zero, count: count)
        var w = [Double](repeating: 0, count: count)
        for c in 0..<chunks {
            for k in 0..<count {
                let q = slots + (c * count + k) * 4
                sums[k] += SIMD3(q[0], q[1], q[2]); w[k] += q[3]
            }
        }
        weights = w
        // A cancelled job stops between passes (its render throws once this returns).
        if pass == max(0, passes) || passes == 0 || executor.isCancelled { break }
        for k in 0..<count where w[k] > 0 {
            let m = sums[k] / w[k]
            means[k] = SIMD3(Float(m.x), Float(m.y), Float(m.z))
        }
    }
    let total = max(1e-300, weights.reduce(0, +))
    let out = PixelBlock(rect: PixelRect(x: 0, y: 0, width: count, height: 1))
    for k in 0..<count {
        var m = means[k]
        if perceptual { m = SIMD3(sRGBToLinear(m.x), sRGBToLinear(m.y), sRGBToLinear(m.z)) }
        out.pixels[k] = SIMD4(m, Float(weights[k] / total))
    }
    return out
}

@inline(__always) func simdDistance2(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> Float {
    let d = a - b
    return d.x * d.x + d.y * d.y + d.z * d.z
}

/// The chart of CIHistogramDisplayFilter from the histogram's first row.
func histogramChart(_ hist: PixelBlock, height: Int, low: Float, high: Float) -> PixelBlock {
    let w = hist.rect.width
    var m: Float = 0
    for i in 0..<w { let v = hist.pixels[i]; m = max(m, v.x, v.y, v.z) }
    let out = PixelBlock(rect: PixelRect(x: 0, y: 0, width: w, height: height))
    let span = high - low
    for i in 0..<w {
        let v = hist.pixels[i]
        func bar(_ x: Float) -> Float {
            let t = m > 0 ? x / m : 0
            return span > 0 ? (t - low) / span * Float(height) : (t >= low ? Float(height) : 0)
        }
        let br = bar(v.x), bg = bar(v.y), bb = bar(v.z)
        for y in 0..<height {
            let c = Float(y) + 0.5
            out.pixels[y * w + i] = SIMD4(c < br ? 1 : 0, c < bg ? 1 : 0, c < bb ? 1 : 0, 1)
        }
    }
    return out
}
