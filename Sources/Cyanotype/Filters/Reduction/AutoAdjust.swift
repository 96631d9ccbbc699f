// Auto enhance, built from the reductions: exposure, vibrance and a tone curve chosen from
// the image's luma histogram and mean saturation.

import Foundation

/// Options for `CIImage.autoAdjustmentFilters(options:)`, with Core Image's names.
public struct CIImageAutoAdjustmentOption: RawRepresentable, Hashable, Sendable {
    /// The option's string key.
    public let rawValue: String
    /// The option with this key.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Bool (default true): return the enhancement filters.
    public static let enhance = CIImageAutoAdjustmentOption(rawValue: "CIImageAutoAdjustEnhance")
    /// Accepted for compatibility; red-eye correction is not supported and returns nothing.
    public static let redEye = CIImageAutoAdjustmentOption(rawValue: "CIImageAutoAdjustRedEye")
    /// Accepted for compatibility and ignored: Core Image's detected features (faces) to enhance
    /// and correct; this library has no feature detection.
    public static let features = CIImageAutoAdjustmentOption(rawValue: "CIImageAutoAdjustFeatures")
    /// Accepted for compatibility and ignored: Core Image's crop around detected features; no crop
    /// filter is returned.
    public static let crop = CIImageAutoAdjustmentOption(rawValue: "CIImageAutoAdjustCrop")
    /// Accepted for compatibility and ignored: Core Image's straightening of a tilted horizon; no
    /// rotation filter is returned.
    public static let level = CIImageAutoAdjustmentOption(rawValue: "CIImageAutoAdjustLevel")
}

/// What auto enhance measured, in the gamma-2 space CIToneCurve works in.
struct AutoStatistics: Equatable {
    /// 1st, 50th and 99th percentiles of `sqrt(luma)` (straight linear luma).
    var low: Float, median: Float, high: Float
    /// Mean of `max - min` of the sRGB-encoded straight colour.
    var saturation: Float
}

extension CIImage {
    /// Auto-enhance filters for this image, as Core Image's `autoAdjustmentFilters(options:)`:
    /// CIExposureAdjust (moving the median luma half-way, in stops, towards 18% grey, at most
    /// ±1.5 EV), CIVibrance (up to 0.5 for dull images) and CIToneCurve (black and white points
    /// from the 1st and 99th luma percentiles, with a gentle S-curve), each only when it would
    /// change something. Apply them in order, setting `inputImage` on each. The statistics
    /// are computed now, synchronously; an infinite image gets no filters.
    public func autoAdjustmentFilters(options: [CIImageAutoAdjustmentOption: Any]? = nil) -> [CIFilter] {
        if let e = options?[.enhance] as? Bool, !e { return [] }
        guard !extent.isInfiniteOrHuge, !extent.isEmpty, let s = try? autoStatistics() else { return [] }
        return autoFilters(for: s)
    }

    func autoStatistics(context: CIContext = CIContext(options: [.cacheIntermediates: false])) throws -> AutoStatistics {
        let r = reduced(self, PixelRect(covering: extent), AutoStatisticsReduction())
        let v = try context.reduce(r)[0]
        return AutoStatistics(low: v.x, median: v.y, high: v.z, saturation: v.w)
    }
}

func autoFilters(for s: AutoStatistics) -> [CIFilter] {
    var filters: [CIFilter] = []
    // Exposure: median (gamma 2) squared is linear luma.
    let medianLinear = max(1e-4, s.median * s.median)
    let ev = min(1.5, max(-1.5, 0.5 * log2f(0.18 / medianLinear)))
    if abs(ev) >= 0.05, let f = CIFilter(name: "CIExposureAdjust") {
        f.setValue(NSNumber(value: ev), forKey: kCIInputEVKey)
        filters.append(f)
    }
    if s.saturation < 0.25, let f = CIFilter(name: "CIVibrance") {
        let amount = min(0.5, (0.25 - s.saturation) * 2)
        if amount >= 0.02 {
            f.setValue(NSNumber(value: amount), forKey: kCIInputAmountKey)
            filters.append(f)
        }
    }
    // Tone curve on the exposed values: gamma-2 values scale by sqrt(2^ev).
    let k = abs(ev) >= 0.05 ? powf(2, ev / 2) : 1
    let black = min(0.15, s.low * k), white = max(0.85, min(1, s.high * k))
    if black > 0.01 || white < 0.99, white > black, let f = CIFilter(name: "CIToneCurve") {
        let ys: [Float] = [0, 0.235, 0.5, 0.765, 1]
        for i in 0..<5 {
            let x = black + (white - black) * Float(i) / 4
            f.setValue(CIVector(x: CGFloat(x), y: CGFloat(ys[i])), forKey: "inputPoint\(i)")
        }
        filters.append(f)
    }
    return filters
}

/// Partial: 1024 bins of sqrt(luma), then the saturation sum. Output (p1, p50, p99, mean
/// saturation).
struct AutoStatisticsReduction: Reduction {
    static let bins = 1024
    var outputWidth: Int { 1 }
    var outputHeight: Int { 1 }
    func partialCount(_ region: PixelRect) -> Int { Self.bins + 1 }
    func accumulate(_ row: UnsafePointer<SIMD4<Float>>, count: Int, x: Int, y: Int, region: PixelRect, into p: UnsafeMutablePointer<Double>) {
        let w = lumaWeights
        var sat = 0.0
        for i in 0..<count {
            let q = row[i]
            let inv: Float = q.w > 0 ? 1 / q.w : 0
            let c = SIMD3(q.x * inv, q.y * inv, q.z * inv)
            let l = clamp01(w.x * c.x + w.y * c.y + w.z * c.z).squareRoot()
            p[min(Int(l * Float(Self.bins)), Self.bins - 1)] += 1
            let hi = linearToSRGB(clamp01(max(c.x, c.y, c.z))), lo = linearToSRGB(clamp01(min(c.x, c.y, c.z)))
            sat += Double(hi - lo)
        }
        p[Self.bins] += sat
    }
    func finish(_ p: UnsafePointer<Double>, region: PixelRect) -> [SIMD4<Float>] {
        let total = (0..<Self.bins).reduce(0.0) { $0 + p[$1] }
        func percentile(_ q: Double) -> Float { histogramPercentile(p, bins: Self.bins, total: total, q) }
        return [SIMD4(percentile(0.01), percentile(0.5), percentile(0.99), Float(p[Self.bins] / max(1, total)))]
    }
    var label: String { "auto-adjust statistics" }
}

/// The centre (0...1) of the first of `bins` counts at which the running total reaches the
/// fraction `q` of `total`; 1 when it never does.
func histogramPercentile(_ p: UnsafePointer<Double>, bins: Int, total: Double, _ q: Double) -> Float {
    var acc = 0.0
    for i in 0..<bins {
        acc += p[i]
        if acc >= q * total { return (Float(i) + 0.5) / Float(bins) }
    }
    return 1
}
