import Foundation

// Light effects: star shine, sun beams, lenticular halo. Apple does not publish these
// formulas; each is a documented look with the same inputs and character. Output is
// `color * intensity` (premultiplied), intensity clamped to [0, 1], infinite extent.

extension BuiltinFilters {
    /// CIStarShineGenerator: Generates a star-burst highlight with cross rays.
    static let starShineGenerator = BuiltinFilter(
        FilterDescriptor(
            "CIStarShineGenerator", "Star Shine", "Generates a star-burst highlight with cross rays.",
            categories: [.builtIn, .generator, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "6", factory: "starShineGenerator",
            doc: """
                A bright core `exp(-4 (r/radius)^2)`, a faint wide glow
                `10^epsilon * radius / (r + radius)` and two perpendicular rays at `crossAngle`,
                each `10^(crossOpacity/4) * exp(-|v| / crossWidth) * exp(-|u| / (radius * crossScale / 4))`
                (u along the ray, v across it).
                """,
            inputs: [
                .vector("inputCenter", "Center", .position, default: [150, 150]),
                .color("inputColor", "Color", .color, default: [1, 0.8, 0.6, 1]),
                .number("inputRadius", "Radius", .distance, default: 50, min: 0, slider: 0...300, limit: .lightSize, "The core's radius, in pixels."),
                .number("inputCrossScale", "Cross Scale", .scalar, default: 15, identity: 15, min: 0, slider: 0...100),
                .number("inputCrossAngle", "Cross Angle", .angle, default: 0.6, slider: -3.141592653589793...3.141592653589793),
                .number("inputCrossOpacity", "Cross Opacity", .scalar, default: -2, identity: -2, min: -8, slider: -8...0),
                .number(
                    "inputCrossWidth", "Cross Width", .distance, default: 2.5, min: 0, slider: 0.5...10, limit: .lightSize,
                    "How fast the rays fade across their length, in pixels."),
                .number("inputEpsilon", "Epsilon", .scalar, default: -2, identity: -2, min: -8, slider: -8...0),
            ])
    ) { args throws(CIFilterError) in
        let c = try args.point(kCIInputCenterKey)
        let s = StarShineStage(
            center: SIMD2(Float(c.x), Float(c.y)), color: try args.color(kCIInputColorKey).workingValue,
            radius: try args.float(kCIInputRadiusKey), crossScale: try args.float("inputCrossScale"),
            crossAngle: try args.float("inputCrossAngle"), crossOpacity: try args.float("inputCrossOpacity"),
            crossWidth: try args.float("inputCrossWidth"), epsilon: try args.float("inputEpsilon"))
        return CIImage(node: GeneratorNode(stage: s))
    }

    /// CISunbeamsGenerator: Generates a sun disc with radiating beams.
    static let sunbeamsGenerator = BuiltinFilter(
        FilterDescriptor(
            "CISunbeamsGenerator", "Sunbeams", "Generates a sun disc with radiating beams.",
            categories: [.builtIn, .generator, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "9", factory: "sunbeamsGenerator",
            doc: """
                A sun disc of `sunRadius` (antialiased) and beams beyond it whose
                brightness varies with angle, `striationStrength * s(theta)^striationContrast *
                falloff`, where s mixes three angular sine waves shifted by `time` and the falloff
                reaches 0 at `sunRadius * (1 + maxStriationRadius)`.
                """,
            inputs: [
                .vector("inputCenter", "Center", .position, default: [150, 150]),
                .color("inputColor", "Color", .color, default: [1, 0.5, 0, 1]),
                .number("inputSunRadius", "Sun Radius", .distance, default: 40, identity: 40, min: 0, slider: 0...800),
                .number("inputMaxStriationRadius", "Maximum Striation Radius", .scalar, default: 2.58, identity: 2.58, min: 0, slider: 0...10),
                .number("inputStriationStrength", "Striation Strength", .scalar, default: 0.5, identity: 0.5, min: 0, slider: 0...3),
                .number("inputStriationContrast", "Striation Contrast", .scalar, default: 1.375, identity: 1.375, min: 0, slider: 0...5),
                .number("inputTime", "Time", .scalar, default: 0, identity: 0, min: 0, max: 1, slider: 0...1),
            ])
    ) { args throws(CIFilterError) in
        let c = try args.point(kCIInputCenterKey)
        let s = SunbeamsStage(
            center: SIMD2(Float(c.x), Float(c.y)), color: try args.color(kCIInputColorKey).workingValue,
            sunRadius: try args.float("inputSunRadius"), maxStriationRadius: try args.float("inputMaxStriationRadius"),
            strength: try args.float("inputStriationStrength"), contrast: try args.float("inputStriationContrast"),
            time: try args.float(kCIInputTimeKey))
        return CIImage(node: GeneratorNode(stage: s))
    }

    /// CILenticularHaloGenerator: Generates a lens-flare style halo ring.
    static let lenticularHaloGenerator = BuiltinFilter(
        FilterDescriptor(
            "CILenticularHaloGenerator", "Lenticular Halo", "Generates a lens-flare style halo ring.",
            categories: [.builtIn, .generator, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "9", factory: "lenticularHaloGenerator",
            doc: """
                A ring of radius `haloRadius` and width `haloWidth`, its
                red, green and blue rings spread apart by `(1 - haloOverlap) * haloWidth / 2` (lens
                dispersion), modulated by angular striations of `striationStrength` and
                `striationContrast` shifted by `time`.
                """,
            inputs: [
                .vector("inputCenter", "Center", .position, default: [150, 150]),
                .color("inputColor", "Color", .color, default: [1, 0.9, 0.8, 1]),
                .number("inputHaloRadius", "Halo Radius", .distance, default: 70, min: 0, slider: 0...1000),
                .number("inputHaloWidth", "Halo Width", .distance, default: 87, min: 0, slider: 0...300, limit: .lightSize, "The ring's width, in pixels."),
                .number("inputHaloOverlap", "Halo Overlap", .scalar, default: 0.77, min: 0, slider: 0...1),
                .number("inputStriationStrength", "Striation Strength", .scalar, default: 0.5, min: 0, slider: 0...3),
                .number("inputStriationContrast", "Striation Contrast", .scalar, default: 1, min: 0, slider: 0...5),
                .number("inputTime", "Time", .scalar, default: 0, identity: 0, min: 0, max: 1, slider: 0...1),
            ])
    ) { args throws(CIFilterError) in
        let c = try args.point(kCIInputCenterKey)
        let s = HaloStage(
            center: SIMD2(Float(c.x), Float(c.y)), color: try args.color(kCIInputColorKey).workingValue,
            radius: try args.float("inputHaloRadius"), width: try args.float("inputHaloWidth"),
            overlap: try args.float("inputHaloOverlap"), strength: try args.float("inputStriationStrength"),
            contrast: try args.float("inputStriationContrast"), time: try args.float(kCIInputTimeKey))
        return CIImage(node: GeneratorNode(stage: s))
    }
}

extension FilterInputLimit {
    /// A light's size that divides a distance (star shine radius and cross width, halo width):
    /// at least 0.001 pixels (Apple's ranges start at 0).
    static let lightSize = FilterInputLimit(minimum: 0.001, reason: "distances are divided by it")
}

/// Angular striation pattern in [0, 1]: three incommensurate sine waves, shifted by `time`.
@inline(__always) func striation(_ theta: Float, _ time: Float) -> Float {
    let t = 2 * Float.pi * time
    let v = sinf(7 * theta + t) + sinf(13 * theta - 2 * t + 1.3) + sinf(29 * theta + 3 * t + 2.1)
    return clamp01(0.5 + v / 6)
}

struct StarShineStage: GeneratorStage {
    let center: SIMD2<Float>, color: SIMD4<Float>
    let radius: Float, crossScale: Float, crossAngle: Float, crossOpacity: Float, crossWidth: Float, epsilon: Float

    static func intensity(dx: Float, dy: Float, radius: Float, crossScale: Float, crossAngle: Float, crossOpacity: Float, crossWidth: Float, epsilon: Float) -> Float {
        let r = (dx * dx + dy * dy).squareRoot()
        var i = expf(-4 * (r / radius) * (r / radius)) + powf(10, epsilon) * radius / (r + radius)
        let ca = cosf(crossAngle), sa = sinf(crossAngle)
        let u = dx * ca + dy * sa, v = -dx * sa + dy * ca
        let amp = powf(10, crossOpacity / 4), length = max(1e-3, radius * crossScale / 4)
        i += amp * expf(-abs(v) / crossWidth) * expf(-abs(u) / length)
        i += amp * expf(-abs(u) / crossWidth) * expf(-abs(v) / length)
        return clamp01(i)
    }

    func generate(_ out: UnsafeMutablePointer<SIMD4<Float>>, count: Int, x: Int, y: Int) {
        let dy = Float(y) + 0.5 - center.y
        for i in 0..<count {
            out[i] =
                color
                * Self.intensity(
                    dx: Float(x + i) + 0.5 - center.x, dy: dy, radius: radius, crossScale: crossScale, crossAngle: crossAngle,
                    crossOpacity: crossOpacity, crossWidth: crossWidth, epsilon: epsilon)
        }
    }
    var label: String { "star shine" }
}

struct SunbeamsStage: GeneratorStage {
    let center: SIMD2<Float>, color: SIMD4<Float>
    let sunRadius: Float, maxStriationRadius: Float, strength: Float, contrast: Float, time: Float

    static func intensity(dx: Float, dy: Float, sunRadius: Float, maxStriationRadius: Float, strength: Float, contrast: Float, time: Float) -> Float {
        let r = (dx * dx + dy * dy).squareRoot()
        let disc = clamp01(sunRadius + 0.5 - r)
        let reach = max(1e-3, sunRadius * maxStriationRadius)
        let falloff = clamp01(1 - (r - sunRadius) / reach)
        let beams = strength * powf(striation(atan2f(dy, dx), time), contrast) * falloff * falloff
        return clamp01(disc + beams)
    }

    func generate(_ out: UnsafeMutablePointer<SIMD4<Float>>, count: Int, x: Int, y: Int) {
        let dy = Float(y) + 0.5 - center.y
        for i in 0..<count {
            out[i] =
                color
                * Self.intensity(
                    dx: Float(x + i) + 0.5 - center.x, dy: dy, sunRadius: sunRadius, maxStriationRadius: maxStriationRadius,
                    strength: strength, contrast: contrast, time: time)
        }
    }
    var label: String { "sunbeams" }
}

struct HaloStage: GeneratorStage {
    let center: SIMD2<Float>, color: SIMD4<Float>
    let radius: Float, width: Float, overlap: Float, strength: Float, contrast: Float, time: Float

    /// Per-channel ring intensity (r, g, b, and their maximum as alpha).
    static func intensity(dx: Float, dy: Float, radius: Float, width: Float, overlap: Float, strength: Float, contrast: Float, time: Float) -> SIMD4<Float> {
        let r = (dx * dx + dy * dy).squareRoot()
        let spread = (1 - overlap) * width / 2
        let s = 1 - strength + strength * powf(striation(atan2f(dy, dx), time), contrast)
        func ring(_ rr: Float) -> Float { let t = (r - rr) / (width / 2); return clamp01(expf(-4 * t * t) * s) }
        let red = ring(radius + spread), green = ring(radius), blue = ring(radius - spread)
        return SIMD4(red, green, blue, max(red, max(green, blue)))
    }

    func generate(_ out: UnsafeMutablePointer<SIMD4<Float>>, count: Int, x: Int, y: Int) {
        let dy = Float(y) + 0.5 - center.y
        for i in 0..<count {
            let k = Self.intensity(
                dx: Float(x + i) + 0.5 - center.x, dy: dy, radius: radius, width: width, overlap: overlap,
                strength: strength, contrast: contrast, time: time)
            // Colour per channel, alpha from the strongest ring: premultiplied, colour <= alpha.
            out[i] = SIMD4(color.x * k.x, color.y * k.y, color.z * k.z, color.w * k.w)
        }
    }
    var label: String { "lenticular halo" }
}
