// Colour adjustments whose parameters come from the image itself.

extension BuiltinFilters {
    /// CIColorThresholdOtsu: Binarizes the image using an automatically computed (Otsu) threshold.
    static let colorThresholdOtsu = BuiltinFilter(
        FilterDescriptor(
            "CIColorThresholdOtsu", "Color Threshold Otsu", "Binarizes the image using an automatically computed (Otsu) threshold.",
            categories: [.builtIn, .colorAdjustment, .interlaced, .nonSquarePixels, .stillImage, .video], macOS: "11.0", iOS: "14", factory: "colorThresholdOtsu",
            doc: """
                CIColorThreshold with the threshold chosen by Otsu's method
                (the split that maximises the between-class variance) over a 256-bin histogram of the
                image's straight Rec. 709 luma, on working-space values. The image needs a finite
                extent; each channel becomes 1 above the threshold and 0 otherwise, alpha kept.
                """,
            inputs: [
                .image()
            ]),
        reach: .wholeImage
    ) { args throws(CIFilterError) in
        let image = try args.image()
        guard !image.extent.isInfinite, !image.extent.isEmpty else {
            throw .invalidValue(filter: "CIColorThresholdOtsu", key: kCIInputImageKey, reason: "the image needs a finite extent (crop it first)")
        }
        let threshold = WholeImageNode(
            input: image.node, region: image.node.pixelExtent, extent: CGRect(x: 0, y: 0, width: 1, height: 1),
            name: "otsu threshold"
        ) { input, _ in
            let out = PixelBlock(rect: PixelRect(x: 0, y: 0, width: 1, height: 1))
            let t = otsuThreshold(input)
            out.pixels[0] = SIMD4(t, t, t, 1)
            return out
        }
        let everywhere = CIImage(node: ClampNode(input: threshold, rect: CGRect(x: 0, y: 0, width: 1, height: 1)))
        return image.applying(ImageThresholdStage(), extras: [everywhere])
    }

    /// CIToneMapHeadroom: Tone-maps from a source HDR headroom to a target headroom with a global curve.
    static let toneMapHeadroom = BuiltinFilter(
        FilterDescriptor(
            "CIToneMapHeadroom", "Tone Map Headroom", "Tone-maps from a source HDR headroom to a target headroom with a global curve.",
            categories: [.builtIn, .colorAdjustment, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
            macOS: "15.0", iOS: "18", factory: "toneMapHeadroom", outputKeys: ["outputImage", "outputValue:"],
            doc: """
                Fits values up to `inputSourceHeadroom` (1 = SDR white) into
                `inputTargetHeadroom`. Apple does not document its curve; ours keeps values below a
                knee (0.75 of SDR white, or of the target when that is lower) unchanged and rolls the
                rest off exponentially so the source headroom lands exactly on the target. It acts
                on the largest channel and scales RGB together, so hues are kept. A source headroom at
                or below the target is the identity.
                """,
            inputs: [
                .image(),
                .number("inputSourceHeadroom", nil, .scalar, min: 1, max: 32, slider: 1...8),
                .number("inputTargetHeadroom", nil, .scalar, default: 1, min: 1, max: 32, slider: 1...8),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let target = try args.float("inputTargetHeadroom")
        let source = args.values["inputSourceHeadroom"] == nil ? target : try args.float("inputSourceHeadroom")
        if source <= target { return image }
        return image.applying(HeadroomStage(source: source, target: target))
    }
}

/// Otsu's threshold over a 256-bin luma histogram of the block (straight colour).
func otsuThreshold(_ block: PixelBlock) -> Float {
    var hist = [Double](repeating: 0, count: 256)
    let w = lumaWeights
    let n = block.rect.area
    for i in 0..<n {
        let p = block.pixels[i]
        guard p.w > 0 else { continue }
        let l = clamp01((w.x * p.x + w.y * p.y + w.z * p.z) / p.w)
        hist[min(Int(l * 256), 255)] += 1
    }
    let total = hist.reduce(0, +)
    guard total > 0 else { return 0.5 }
    let sumAll = hist.enumerated().reduce(0.0) { $0 + Double($1.offset) * $1.element }
    var weightBelow = 0.0, sumBelow = 0.0, best = -1.0, split = 127
    for t in 0..<256 {
        weightBelow += hist[t]
        if weightBelow == 0 { continue }
        let weightAbove = total - weightBelow
        if weightAbove == 0 { break }
        sumBelow += Double(t) * hist[t]
        let meanBelow = sumBelow / weightBelow, meanAbove = (sumAll - sumBelow) / weightAbove
        let between = weightBelow * weightAbove * (meanBelow - meanAbove) * (meanBelow - meanAbove)
        if between > best { best = between; split = t }
    }
    // Values in bins 0...split are the dark class: the threshold is the top of that bin.
    return Float(split + 1) / 256
}

/// Thresholds each channel of the row against the matching channel of `extra[0]`.
struct ImageThresholdStage: ColorStage {
    var extraInputCount: Int { 1 }
    var wantsUnpremultiplied: Bool { true }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let t = extra[0]
        for i in 0..<count {
            let p = row[i], q = t[i]
            row[i] = SIMD4(p.x >= q.x ? 1 : 0, p.y >= q.y ? 1 : 0, p.z >= q.z ? 1 : 0, p.w)
        }
    }
    var label: String { "threshold (Otsu)" }
}

struct HeadroomStage: ColorStage {
    let source: Float, target: Float
    var wantsUnpremultiplied: Bool { true }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let knee = 0.75 * min(target, 1)
        let span = target - knee
        let norm = 1 / (1 - expf(-(source - knee) / span))
        for i in 0..<count {
            let p = row[i]
            let m = max(p.x, max(p.y, p.z))
            guard m > knee else { continue }
            let mapped = knee + span * (1 - expf(-(min(m, source) - knee) / span)) * norm
            let k = mapped / m
            row[i] = SIMD4(p.x * k, p.y * k, p.z * k, p.w)
        }
    }
    var label: String { "tone map headroom \(source) -> \(target)" }
}
