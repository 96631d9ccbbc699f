// Transitions from `inputImage` (time 0) to `inputTargetImage` (time 1).
//
// Each is one colour stage over the input with the target as an extra input, on
// premultiplied working-space colour (linear sRGB): every pixel is a function of its own
// coordinates, both images' pixels there and the time, so tiled renders equal whole ones.
// Time is limited to 0...1 (the spec's range); at time 0 every filter gives exactly the
// input image and at time 1 exactly the target image (outside an image's extent that image
// is clear). The output extent is the union of both images' extents. Apple publishes no
// formulas for these effects; each declaration states ours.
//
// The sweeping transitions (swipe, copy machine, bars) move a straight edge along the
// direction `n = (cos angle, sin angle)`: with `p = dot(pixel centre, n)` and `[p0, p1]` the
// range of `p` over the sweep's rectangle, the edge runs from `p0` at time 0 past `p1` at
// time 1. Ahead of the edge (`p >= edge`) is the input image, behind it the target.

import Foundation

extension BuiltinFilters {
    /// CIDissolveTransition: Cross-fades from the source to the target image.
    static let dissolveTransition = BuiltinFilter(
        FilterDescriptor(
            "CIDissolveTransition", "Dissolve", "Cross-fades from the source to the target image.",
            categories: [.builtIn, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .transition, .video],
            macOS: "10.4", iOS: "6", factory: "dissolveTransition",
            doc: """
                The cross-fade `input * (1 - time) + target * time` on
                premultiplied colour, alpha included.
                """,
            inputs: [
                .image(),
                .image("inputTargetImage", "Target Image"),
                .number("inputTime", "Time", .time, default: 0, identity: 0, min: 0, max: 1, slider: 0...1),
            ])
    ) { args throws(CIFilterError) in
        let (image, target, t) = try transitionInputs(args)
        return image.applying(DissolveStage(time: t), extras: [target], extent: image.extent.union(target.extent))
    }

    /// The family of CISwipeTransition, CICopyMachineTransition: one implementation, a table per filter.
    static let sweeps = BuiltinFilter.family(
        doc: """
            The sweeping transitions: a straight edge moves along the direction
            `n = (cos angle, sin angle)`. With `p = dot(pixel centre, n)` and `[p0, p1]` the range
            of `p` over the rectangle `extent`, the edge runs from `p0` at time 0 past `p1` at
            time 1, with a band `width` pixels wide behind it: `edge = p0 + time * (p1 - p0 +
            width)` and `u = (p - edge + width) / width`. `u >= 1` (ahead of the band) is the
            input, `u <= 0` (behind it) the target; each filter says what the band shows.
            """,
        categories: [.builtIn, .highDynamicRange, .stillImage, .transition, .video],
        [
            (
                FilterDescriptor(
                    "CISwipeTransition", "Swipe", "Transition that swipes a soft-edged band across to reveal the target.",
                    macOS: "10.4", iOS: "6", factory: "swipeTransition",
                    doc: """
                        A soft band sweeps across `extent` at `angle` (angle 0: left to
                        right), revealing the target behind it: inside the band `mix(target, input, u)`,
                        tinted towards `color` by `k = min(1, opacity * 4u(1 - u))`
                        (`rgb = rgb * (1 - k) + color * a * k`, alpha kept). Opacity 0 (the default) is a
                        plain soft wipe.
                        """,
                    inputs: [
                        .image(),
                        .image("inputTargetImage", "Target Image"),
                        .vector("inputExtent", "Extent", .rectangle, default: [0, 0, 300, 300], "The rectangle the edge sweeps across."),
                        .color("inputColor", "Color", .opaqueColor, default: [1, 1, 1, 1], "The band's colour."),
                        .number("inputTime", "Time", .time, default: 0, identity: 0, min: 0, max: 1, slider: 0...1),
                        .number("inputAngle", "Angle", .angle, default: 0, identity: 0, slider: -3.141592653589793...3.141592653589793),
                        .number("inputWidth", "Width", .distance, default: 300, min: 0.1, slider: 0.1...800, "The band's width, in pixels."),
                        .number("inputOpacity", "Opacity", .scalar, default: 0, identity: 0, min: 0, slider: 0...1, "How strongly the band shows its colour."),
                    ]),
                SweepStage.Kind.swipe
            ),
            (
                FilterDescriptor(
                    "CICopyMachineTransition", "Copy Machine", "Transition imitating a photocopier light bar sweeping across.",
                    macOS: "10.4", iOS: "6", factory: "copyMachineTransition",
                    doc: """
                        A photocopier's light bar sweeps across `extent` at `angle`,
                        leaving the target behind it: inside the bar the target lit by the opaque `color`,
                        `out = target * (1 - k) + (color, 1) * k`, `k = min(1, opacity * sin(πu))` (so the
                        default opacity 1.3 saturates the bar's core).
                        """,
                    inputs: [
                        .image(),
                        .image("inputTargetImage", "Target Image"),
                        .vector("inputExtent", "Extent", .rectangle, default: [0, 0, 300, 300], "The rectangle the edge sweeps across."),
                        .color("inputColor", "Color", .opaqueColor, default: [0.6, 1, 0.8, 1], "The band's colour."),
                        .number("inputTime", "Time", .time, default: 0, identity: 0, min: 0, max: 1, slider: 0...1),
                        .number("inputAngle", "Angle", .angle, default: 0, identity: 0, min: 0, slider: 0...6.283185307179586),
                        .number("inputWidth", "Width", .distance, default: 200, identity: 200, min: 0.1, slider: 0.1...500, "The band's width, in pixels."),
                        .number("inputOpacity", "Opacity", .scalar, default: 1.3, identity: 1.3, min: 0, slider: 0...3, "How strongly the band shows its colour."),
                    ]),
                .copyMachine
            ),
        ]
    ) { args, kind throws(CIFilterError) in
        let (image, target, t) = try transitionInputs(args)
        let sweep = try Sweep(args, rect: try args.rect(kCIInputExtentKey), time: t, band: try args.float(kCIInputWidthKey))
        let color = straightWorking(try args.color(kCIInputColorKey))
        return image.applying(
            SweepStage(kind: kind, sweep: sweep, color: color, opacity: try args.float("inputOpacity")),
            extras: [target], extent: image.extent.union(target.extent))
    }

    /// CIBarsSwipeTransition: Transition that wipes to the target image in a series of angled bars.
    static let barsSwipeTransition = BuiltinFilter(
        FilterDescriptor(
            "CIBarsSwipeTransition", "Bars Swipe Transition", "Transition that wipes to the target image in a series of angled bars.",
            categories: [.builtIn, .highDynamicRange, .stillImage, .transition, .video], macOS: "10.5", iOS: "6", factory: "barsSwipeTransition",
            doc: """
                The input is wiped away in bars `width` pixels wide that run
                along `angle` (the default π wipes right to left); odd bars (`floor(q / width)`, `q`
                the position across the bars) trail even ones by `barOffset` pixels. Over the union
                of both extents, bar `i`'s edge is `p0 + time * (p1 - p0 + barOffset) - barOffset *
                (i mod 2)`; ahead of it the input, behind it the target (hard edges).
                """,
            inputs: [
                .image(),
                .image("inputTargetImage", "Target Image"),
                .number("inputAngle", "Angle", .angle, default: 3.141592653589793, identity: 0, slider: 0...6.283185307179586),
                .number("inputWidth", "Width", .distance, default: 30, min: 2, slider: 2...300),
                .number("inputBarOffset", "Bar Offset", .scalar, default: 10, min: 1, slider: 1...100),
                .number("inputTime", "Time", .time, default: 0, identity: 0, min: 0, max: 1, slider: 0...1),
            ])
    ) { args throws(CIFilterError) in
        let (image, target, t) = try transitionInputs(args)
        let e = image.extent.union(target.extent)
        let a = try args.float(kCIInputAngleKey), w = try args.float(kCIInputWidthKey), off = try args.float("inputBarOffset")
        return image.applying(
            BarsStage(sweep: Sweep(rect: e, angle: a, time: t, band: off), width: w, offset: off),
            extras: [target], extent: e)
    }

    /// CIModTransition: Transition revealing the target through irregular expanding holes.
    static let modTransition = BuiltinFilter(
        FilterDescriptor(
            "CIModTransition", "Mod", "Transition revealing the target through irregular expanding holes.",
            categories: [.builtIn, .highDynamicRange, .stillImage, .transition, .video], macOS: "10.4", iOS: "6", factory: "modTransition",
            doc: """
                The target shows through holes that grow with time. Relative to
                `center` and turned by `-angle` into `(u, v)`, the hole field is the product of two
                saw waves, `m = fract(u / radius) * fract(v / compression)` in [0, 1); a pixel is the
                target where `m < time` and the input elsewhere (hard edges), so the holes open along
                the cell borders as irregular crosses and cover everything at time 1.
                """,
            inputs: [
                .image(),
                .image("inputTargetImage", "Target Image"),
                .vector("inputCenter", "Center", .position, default: [150, 150]),
                .number("inputTime", "Time", .time, default: 0, identity: 0, min: 0, max: 1, slider: 0...1),
                .number("inputAngle", "Angle", .angle, default: 2, identity: 0, slider: -6.283185307179586...6.283185307179586),
                .number("inputRadius", "Radius", .distance, default: 150, min: 1, slider: 1...200),
                .number("inputCompression", "Compression", .distance, default: 300, min: 1, slider: 100...800),
            ])
    ) { args throws(CIFilterError) in
        let (image, target, t) = try transitionInputs(args)
        let c = try args.point(kCIInputCenterKey)
        let a = try args.float(kCIInputAngleKey), r = try args.float(kCIInputRadiusKey), k = try args.float("inputCompression")
        return image.applying(
            ModStage(cx: Float(c.x), cy: Float(c.y), cosA: cos(a), sinA: sin(a), radius: r, compression: k, time: t),
            extras: [target], extent: image.extent.union(target.extent))
    }

    /// CIFlashTransition: Transition through a bright flash with radial striations.
    static let flashTransition = BuiltinFilter(
        FilterDescriptor(
            "CIFlashTransition", "Flash", "Transition through a bright flash with radial striations.",
            categories: [.builtIn, .highDynamicRange, .stillImage, .transition, .video], macOS: "10.4", iOS: "6", factory: "flashTransition",
            doc: """
                The input brightens into a flash of `color`, which then fades to
                reveal the target. Flash strength `f = 1 - |2 time - 1|`; radial striations about
                `center`, `g(θ) = 0.5 + 0.25 cos 13θ + 0.25 cos(29θ + 1)`, add
                `s = striationStrength * g^striationContrast * max(0, 1 - r / (maxStriationRadius * R))`
                (`R` half the diagonal of `extent`); the flash covers
                `k = min(1, f * (1 + s) / fadeThreshold)` of the pixel:
                `out = base * (1 - k) + color * k`, `base` the input before time 0.5 and the target
                from 0.5 on (where the flash covers everything).
                """,
            inputs: [
                .image(),
                .image("inputTargetImage", "Target Image"),
                .vector("inputCenter", "Center", .position, default: [150, 150]),
                .vector("inputExtent", "Extent", .rectangle, default: [0, 0, 300, 300]),
                .color("inputColor", "Color", .color, default: [1, 0.8, 0.6, 1]),
                .number("inputTime", "Time", .time, default: 0, identity: 0, min: 0, max: 1, slider: 0...1),
                .number("inputMaxStriationRadius", "Maximum Striation Radius", .scalar, default: 2.58, min: 0, slider: 0...10),
                .number("inputStriationStrength", "Striation Strength", .scalar, default: 0.5, min: 0, slider: 0...3),
                .number("inputStriationContrast", "Striation Contrast", .scalar, default: 1.375, min: 0, slider: 0...5),
                .number("inputFadeThreshold", "Fade Threshold", .scalar, default: 0.85, min: 0, max: 1, slider: 0...1, limit: .flashFadeThreshold),
            ])
    ) { args throws(CIFilterError) in
        let (image, target, t) = try transitionInputs(args)
        let c = try args.point(kCIInputCenterKey)
        let e = try args.rect(kCIInputExtentKey)
        let color = try args.color(kCIInputColorKey).workingValue
        let halfDiagonal = e.isInfinite || e.isNull ? 1 : Float((e.width * e.width + e.height * e.height).squareRoot() / 2)
        let stage = FlashStage(
            cx: Float(c.x), cy: Float(c.y), color: color, time: t,
            striationRadius: try args.float("inputMaxStriationRadius") * halfDiagonal,
            strength: try args.float("inputStriationStrength"), contrast: try args.float("inputStriationContrast"),
            threshold: try args.float("inputFadeThreshold"))
        return image.applying(stage, extras: [target], extent: image.extent.union(target.extent))
    }
}

extension FilterInputLimit {
    /// CIFlashTransition's fade threshold: at least 0.001 (Apple's range starts at 0).
    static let flashFadeThreshold = FilterInputLimit(minimum: 0.001, reason: "the flash's strength is divided by the threshold")
}

/// The input, the target and the time (limited to 0...1).
private func transitionInputs(_ args: FilterArguments) throws(CIFilterError) -> (CIImage, CIImage, Float) {
    let image = try args.image(), target = try args.image(kCIInputTargetImageKey)
    return (image, target, try args.float(kCIInputTimeKey))
}

/// A straight edge sweeping along `n = (cos angle, sin angle)` across a rectangle, with a
/// band of `band` pixels behind it: `edge = p0 + time * (p1 - p0 + band)`.
struct Sweep: Sendable {
    let nx: Float, ny: Float, edge: Float, band: Float

    init(rect: CGRect, angle: Float, time: Float, band: Float) {
        nx = cos(angle); ny = sin(angle)
        let r = rect.isNull || rect.isInfinite ? CGRect(x: 0, y: 0, width: 0, height: 0) : rect.standardized
        let xs = [Float(r.minX), Float(r.maxX)], ys = [Float(r.minY), Float(r.maxY)]
        var lo = Float.infinity, hi = -Float.infinity
        for x in xs { for y in ys { let p = x * nx + y * ny; lo = min(lo, p); hi = max(hi, p) } }
        self.band = band
        edge = lo + time * (hi - lo + band)
    }
    init(_ args: FilterArguments, rect: CGRect, time: Float, band: Float) throws(CIFilterError) {
        self.init(rect: rect, angle: try args.float(kCIInputAngleKey), time: time, band: band)
    }
}

struct DissolveStage: ColorStage {
    let time: Float
    var extraInputCount: Int { 1 }
    var wantsUnpremultiplied: Bool { false }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let target = extra[0], t = time, u = 1 - time
        for i in 0..<count { row[i] = row[i] * u + target[i] * t }
    }
    var label: String { "dissolve \(time)" }
}

/// The swipe and copy-machine transitions: one sweep, two ways of painting its band.
struct SweepStage: ColorStage {
    enum Kind: String, Sendable { case swipe, copyMachine }
    let kind: Kind
    let sweep: Sweep
    /// Straight working-space colour.
    let color: SIMD4<Float>
    let opacity: Float
    var extraInputCount: Int { 1 }
    var wantsUnpremultiplied: Bool { false }

    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let target = extra[0]
        let s = sweep, py = (Float(y) + 0.5) * s.ny
        let start = s.edge - s.band, inv = 1 / s.band
        let c = color, k0 = opacity
        for i in 0..<count {
            let p = (Float(x + i) + 0.5) * s.nx + py
            if p >= s.edge { continue }  // ahead of the edge: the input
            if p <= start { row[i] = target[i]; continue }  // behind the band: the target
            let u = (p - start) * inv
            switch kind {
            case .swipe:
                let m = target[i] * (1 - u) + row[i] * u
                let k = min(1, k0 * 4 * u * (1 - u))
                row[i] = SIMD4(m.x * (1 - k) + c.x * m.w * k, m.y * (1 - k) + c.y * m.w * k, m.z * (1 - k) + c.z * m.w * k, m.w)
            case .copyMachine:
                let k = min(1, k0 * Foundation.sin(Float.pi * u))
                row[i] = target[i] * (1 - k) + SIMD4(c.x, c.y, c.z, 1) * k
            }
        }
    }
    var label: String { kind == .swipe ? "swipe" : "copy machine" }
}

/// Bars wiping the input away, odd bars trailing by `offset` pixels.
struct BarsStage: ColorStage {
    let sweep: Sweep
    let width: Float, offset: Float
    var extraInputCount: Int { 1 }
    var wantsUnpremultiplied: Bool { false }

    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let target = extra[0]
        let s = sweep, fy = Float(y) + 0.5
        // The edge of the leading bars; trailing bars' edge is `offset` behind.
        let lead = s.edge, inv = 1 / width
        for i in 0..<count {
            let fx = Float(x + i) + 0.5
            let p = fx * s.nx + fy * s.ny
            let q = fy * s.nx - fx * s.ny
            let bar = (q * inv).rounded(.down)
            let odd = bar - 2 * (bar * 0.5).rounded(.down) != 0
            let edge = odd ? lead - offset : lead
            if p < edge { row[i] = target[i] }
        }
    }
    var label: String { "bars swipe" }
}

struct ModStage: ColorStage {
    let cx: Float, cy: Float, cosA: Float, sinA: Float, radius: Float, compression: Float, time: Float
    var extraInputCount: Int { 1 }
    var wantsUnpremultiplied: Bool { false }

    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let target = extra[0]
        let dy = Float(y) + 0.5 - cy
        let ir = 1 / radius, ic = 1 / compression, t = time
        let below1 = Float(1).nextDown
        for i in 0..<count {
            let dx = Float(x + i) + 0.5 - cx
            let u = (dx * cosA + dy * sinA) * ir, v = (dy * cosA - dx * sinA) * ic
            let fu = min(u - u.rounded(.down), below1), fv = min(v - v.rounded(.down), below1)
            if fu * fv < t { row[i] = target[i] }
        }
    }
    var label: String { "mod transition" }
}

struct FlashStage: ColorStage {
    let cx: Float, cy: Float
    /// Premultiplied working-space colour.
    let color: SIMD4<Float>
    let time: Float, striationRadius: Float, strength: Float, contrast: Float, threshold: Float
    var extraInputCount: Int { 1 }
    var wantsUnpremultiplied: Bool { false }

    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let target = extra[0]
        let f = 1 - abs(2 * time - 1)
        let useTarget = time >= 0.5
        if f <= 0 {
            if useTarget { for i in 0..<count { row[i] = target[i] } }
            return
        }
        let dy = Float(y) + 0.5 - cy
        let scale = f / threshold, invR = striationRadius > 0 ? 1 / striationRadius : 0
        for i in 0..<count {
            let dx = Float(x + i) + 0.5 - cx
            let theta = Foundation.atan2(dy, dx)
            let r = (dx * dx + dy * dy).squareRoot()
            let g = max(0, 0.5 + 0.25 * Foundation.cos(13 * theta) + 0.25 * Foundation.cos(29 * theta + 1))
            let fall = max(0, 1 - r * invR)
            let s = fall > 0 ? strength * Foundation.pow(g, contrast) * fall : 0
            let k = min(1, scale * (1 + s))
            let base = useTarget ? target[i] : row[i]
            row[i] = base * (1 - k) + color * k
        }
    }
    var label: String { "flash" }
}

extension BuiltinFilters {
    /// CIDisintegrateWithMaskTransition: Transition in which the source dissolves following the shape of a mask, with a drop shadow.
    static let disintegrateWithMaskTransition = BuiltinFilter(
        FilterDescriptor(
            "CIDisintegrateWithMaskTransition", "Disintegrate With Mask", "Transition in which the source dissolves following the shape of a mask, with a drop shadow.",
            categories: [.builtIn, .highDynamicRange, .stillImage, .transition, .video], macOS: "10.4", iOS: "6", factory: "disintegrateWithMaskTransition",
            doc: """
                The input falls away in the order the mask gives,
                dark parts first, and what is left casts a drop shadow on the target. With `m` the
                mask's luminance (Rec. 709 weights on its working-space values, limited to 0...1;
                clear outside the mask's extent), the input remains where `m >= time` (nothing remains
                at time 1). The shadow is that coverage blurred by a Gaussian of sigma `shadowRadius`
                (none at radius 0) and moved by `shadowOffset`; where the target shows,
                `out = target * (1 - shadowDensity * shadow)` (colour and alpha, as a dark veil).
                """,
            inputs: [
                .image(),
                .image("inputTargetImage", "Target Image"),
                .image("inputMaskImage", "Mask Image"),
                .number("inputTime", "Time", .time, default: 0, identity: 0, min: 0, max: 1, slider: 0...1),
                .number(
                    "inputShadowRadius", "Shadow Radius", .distance, default: 8, min: 0, slider: 0...50, limit: .gaussianSigma,
                    "The standard deviation of the shadow's Gaussian blur, in pixels."),
                .number("inputShadowDensity", "Shadow Density", .scalar, default: 0.65, identity: 0, min: 0, max: 1, slider: 0...1),
                .vector("inputShadowOffset", "Shadow Offset", .offset, default: [0, -10], identity: [0, 0]),
            ]),
        reach: .unbounded
    ) { args throws(CIFilterError) in
        let (image, target, t) = try transitionInputs(args)
        let mask = try args.image(kCIInputMaskImageKey)
        let radius = try args.float("inputShadowRadius"), density = try args.float("inputShadowDensity")
        let offset = try args.vector("inputShadowOffset")
        let dx = offset.count > 0 && offset.x.isFinite ? offset.x : 0, dy = offset.count > 1 && offset.y.isFinite ? offset.y : 0
        var shadow = mask.applying(DisintegrateCoverageStage(time: t))
        if radius > 0 { shadow = shadow.applyingGaussianBlur(sigma: Double(radius)) }
        shadow = shadow.transformed(by: CGAffineTransform(translationX: dx, y: dy))
        return image.applying(DisintegrateStage(time: t, density: density), extras: [target, mask, shadow], extent: image.extent.union(target.extent))
    }
}

/// The mask's luminance, limited to 0...1 (NaN is 0).
@inline(__always) func maskLuminance(_ m: SIMD4<Float>) -> Float {
    let w = lumaWeights
    return clamp01(w.x * m.x + w.y * m.y + w.z * m.z)
}

/// Where the input still stands at `time`: opaque white, else clear.
struct DisintegrateCoverageStage: ColorStage {
    let time: Float
    var wantsUnpremultiplied: Bool { false }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let t = time
        for i in 0..<count {
            row[i] = t < 1 && maskLuminance(row[i]) >= t ? SIMD4(repeating: 1) : .zero
        }
    }
    var label: String { "disintegrate coverage" }
}

/// The input where the mask is at least `time`, else the target under the shadow's veil.
/// Extras: target, mask, shadow coverage.
struct DisintegrateStage: ColorStage {
    let time: Float, density: Float
    var extraInputCount: Int { 3 }
    var wantsUnpremultiplied: Bool { false }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let target = extra[0], mask = extra[1], shadow = extra[2]
        let t = time, d = density
        for i in 0..<count {
            if t < 1 && maskLuminance(mask[i]) >= t { continue }
            row[i] = target[i] * (1 - d * clamp01(shadow[i].w))
        }
    }
    var label: String { "disintegrate with mask" }
}
