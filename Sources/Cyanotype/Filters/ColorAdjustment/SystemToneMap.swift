import Foundation

extension BuiltinFilters {
    /// CISystemToneMap: Tone-maps HDR content to a display headroom using the system's tone curve.
    static let systemToneMap = BuiltinFilter(
        FilterDescriptor(
            "CISystemToneMap", "System Tone Map", "Tone-maps HDR content to a display headroom using the system's tone curve.",
            categories: [.builtIn, .colorAdjustment, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
            macOS: "26.0", iOS: "26", factory: "systemToneMap",
            doc: """
                Maps extended-range (HDR) values into the range a display shows.
                Apple's curve is the system's own and undocumented, and the content headroom it reads
                from image metadata does not exist here; ours measures it. The content headroom `S` is
                the image's largest straight colour component (a reduction over its extent; `S = 1`
                or less is SDR). The target headroom `T` is `displayHeadroom` for
                `preferredDynamicRange` high (the default, also when not set), `sqrt(displayHeadroom)`
                (half the stops) for constrained high, and 1 for standard. When `S <= T` the image is
                returned unchanged (SDR input always is). Otherwise, on each pixel's largest straight
                component m, values up to the knee `k = 0.75 min(T, 1)` are kept and the rest rolls
                off exponentially so that S lands exactly on T:
                `m' = k + (T - k) (1 - exp(-(m - k) / (T - k))) / (1 - exp(-(S - k) / (T - k)))`,
                strictly increasing and continuous at the knee; RGB are scaled together
                by m'/m, so hues are kept, alpha is unchanged. An image without a finite extent uses
                `S = infinity` (the curve's asymptote is T). Output extent: the input's.
                """,
            inputs: [
                .image(),
                .number(
                    "inputDisplayHeadroom", "Display Headroom", .scalar, default: 1, min: 1, max: 32, slider: 1...8,
                    "The display's headroom: its brightest value over SDR white."),
                .other(
                    "NSString", "inputPreferredDynamicRange", "Preferred Dynamic Range", nil,
                    """
                    "standard", "constrainedHigh" or "high" (Core Image's
                    `CIDynamicRangeOption` names, with or without the `CIDynamicRange` prefix); not set
                    is high.
                    """),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let display = try args.float("inputDisplayHeadroom")
        var target = display
        if args.values["inputPreferredDynamicRange"] != nil, !(args.values["inputPreferredDynamicRange"] is NSNull) {
            let option = try args.string("inputPreferredDynamicRange")
            switch option.lowercased().replacingOccurrences(of: "cidynamicrange", with: "") {
            case "standard": target = 1
            case "constrainedhigh": target = display.squareRoot()
            case "high", "": target = display
            default:
                throw .invalidValue(
                    filter: "CISystemToneMap", key: "inputPreferredDynamicRange",
                    reason: "'\(option)' is not a dynamic range: use standard, constrainedHigh or high")
            }
        }
        let e = image.extent
        if e.isEmpty { return .empty() }
        if e.isInfiniteOrHuge {
            return image.applying(SystemToneMapStage(target: target, measured: false))
        }
        let peak = ReductionNode(input: image.node, region: image.node.pixelExtent, reduction: LargestStraightComponent())
        let everywhere = CIImage(node: ClampNode(input: peak, rect: CGRect(x: 0, y: 0, width: 1, height: 1)))
        return image.applying(SystemToneMapStage(target: target, measured: true), extras: [everywhere])
    }
}

/// The largest straight colour component over the region (at least 0; pixels with alpha 0
/// and NaN values count for nothing), as a 1x1 grey pixel.
struct LargestStraightComponent: Reduction {
    var outputWidth: Int { 1 }
    var outputHeight: Int { 1 }
    func partialCount(_ region: PixelRect) -> Int { 1 }
    func accumulate(_ row: UnsafePointer<SIMD4<Float>>, count: Int, x: Int, y: Int, region: PixelRect, into p: UnsafeMutablePointer<Double>) {
        var best = Float(p[0])
        for i in 0..<count {
            let q = row[i]
            guard q.w > 0 else { continue }
            let m = max(q.x, max(q.y, q.z)) / q.w
            if m > best { best = m }
        }
        p[0] = Double(best)
    }
    func merge(_ into: UnsafeMutablePointer<Double>, _ other: UnsafePointer<Double>, _ region: PixelRect) {
        if other[0] > into[0] { into[0] = other[0] }
    }
    func finish(_ p: UnsafePointer<Double>, region: PixelRect) -> [SIMD4<Float>] {
        let v = Float(p[0])
        return [SIMD4(v, v, v, 1)]
    }
    var label: String { "largest straight component" }
}

/// CISystemToneMap's roll-off (see the declaration), on premultiplied colour: m is the
/// largest straight component, and RGB scale by m'/m. `extra[0]` holds the content headroom
/// when `measured`.
struct SystemToneMapStage: ColorStage {
    let target: Float
    let measured: Bool

    var extraInputCount: Int { measured ? 1 : 0 }
    var wantsUnpremultiplied: Bool { false }
    var preservesAlpha: Bool { true }

    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        guard count > 0 else { return }
        let source: Float = measured ? extra[0][0].x : .infinity
        let t = target
        guard source > t else { return }
        let knee = 0.75 * min(t, 1)
        let span = t - knee
        let norm = 1 / (1 - expf(-(source - knee) / span))
        for i in 0..<count {
            let p = row[i]
            guard p.w > 0 else { continue }
            let m = max(p.x, max(p.y, p.z)) / p.w
            guard m > knee else { continue }
            let mapped = knee + span * (1 - expf(-(min(m, source) - knee) / span)) * norm
            let k = mapped / m
            row[i] = SIMD4(p.x * k, p.y * k, p.z * k, p.w)
        }
    }
    var label: String { measured ? "system tone map to \(target)" : "system tone map to \(target) (unbounded source)" }
}
