// Colour effects on working-space values.

import CCyanotypeKernels

extension BuiltinFilters {
    /// CISepiaTone: Tints the image toward sepia brown.
    static let sepiaTone = BuiltinFilter(
        FilterDescriptor(
            "CISepiaTone", "Sepia Tone", "Tints the image toward sepia brown.",
            categories: [.builtIn, .colorEffect, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video, .xmpSerializable],
            macOS: "10.4", iOS: "5", factory: "sepiaTone",
            doc: """
                Mixes each pixel with its sepia version (the W3C sepia matrix) by
                `intensity`.
                """,
            inputs: [
                .image(),
                .number("inputIntensity", "Intensity", .scalar, default: 1, identity: 0, min: 0, slider: 0...1, "0 keeps the image, 1 gives the full sepia."),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let k = try args.float(kCIInputIntensityKey)
        if k == 0 { return image }
        return image.applying(MatrixStage(m: sepiaMatrix(intensity: k), wantsUnpremultiplied: false, name: "sepia"))
    }

    /// CIColorMonochrome: Tints the image toward shades of one chosen color.
    static let colorMonochrome = BuiltinFilter(
        FilterDescriptor(
            "CIColorMonochrome", "Color Monochrome", "Tints the image toward shades of one chosen color.",
            categories: [.builtIn, .colorEffect, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video],
            macOS: "10.4", iOS: "5", factory: "colorMonochrome",
            doc: "Luma times `color`, mixed with the original by `intensity`.",
            inputs: [
                .image(),
                .color("inputColor", "Color", .opaqueColor, default: [0.6, 0.45, 0.3, 1], "The tint the luma is multiplied by."),
                .number("inputIntensity", "Intensity", .scalar, default: 1, identity: 0, min: 0, slider: 0...1, "0 keeps the image, 1 gives the full monochrome."),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let c = try args.color(kCIInputColorKey).workingValue
        let k = try args.float(kCIInputIntensityKey)
        if k == 0 { return image }
        let w = lumaWeights
        let tint = SIMD3(c.x, c.y, c.z)
        var m = [Float](repeating: 0, count: 9)
        for r in 0..<3 {
            for col in 0..<3 {
                let mono = tint[r] * w[col]
                m[r * 3 + col] = (r == col ? 1 - k : 0) + k * mono
            }
        }
        return image.applying(MatrixStage(m: ColorMatrix(rgb: m), wantsUnpremultiplied: false, name: "monochrome"))
    }

    /// CIColorInvert: Inverts the color channels.
    static let colorInvert = BuiltinFilter(
        FilterDescriptor(
            "CIColorInvert", "Color Invert", "Inverts the color channels.",
            categories: [.builtIn, .colorEffect, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video], macOS: "10.4", iOS: "5", factory: "colorInvert",
            doc: "`rgb = 1 - rgb` on straight colour, alpha kept.",
            inputs: [
                .image()
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        return image.applying(
            MatrixStage(
                m: ColorMatrix(rgb: [-1, 0, 0, 0, -1, 0, 0, 0, -1], bias: SIMD3(repeating: 1)),
                wantsUnpremultiplied: true, name: "invert"))
    }

    /// CIVignette: Darkens (or lightens) the image corners.
    static let vignette = BuiltinFilter(
        FilterDescriptor(
            "CIVignette", "Vignette", "Darkens (or lightens) the image corners.",
            categories: [.builtIn, .colorEffect, .highDynamicRange, .interlaced, .stillImage, .video], macOS: "10.9", iOS: "5", factory: "vignette",
            doc: """
                Darkens towards the corners. Apple publishes no formula; ours: with `d` the
                distance from the centre of the extent over half its diagonal and
                `s = smoothstep(0, 1, d / radius)`, colour is scaled by `max(0, 1 - intensity * s^2)`.
                Radius 1 reaches full strength at the corners; intensity 0 is the identity and
                negative intensity brightens.
                """,
            inputs: [
                .image(),
                .number(
                    "inputIntensity", "Intensity", .scalar, default: 0, identity: 0, min: -1, max: 1, slider: -1...1,
                    "How strongly the corners darken (negative values brighten them)."),
                .number(
                    "inputRadius", "Radius", .scalar, default: 1, min: 0, max: 2, slider: 0...2, limit: .vignetteRadius,
                    """
                    Where the darkening reaches full strength, as a fraction of half the
                    extent's diagonal.
                    """),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let k = try args.float(kCIInputIntensityKey), r = try args.float(kCIInputRadiusKey)
        let e = image.extent
        if k == 0 || e.isInfinite || e.isEmpty { return image }
        return image.applying(
            VignetteStage(
                cx: Float(e.midX), cy: Float(e.midY), halfDiagonal: Float((e.width * e.width + e.height * e.height).squareRoot() / 2),
                intensity: k, radius: r))
    }
}

extension FilterInputLimit {
    /// CIVignette's radius: at least 0.001 (Apple's range starts at 0).
    static let vignetteRadius = FilterInputLimit(minimum: 0.001, reason: "the distance from the centre is divided by the radius")
}

/// The W3C sepia matrix, mixed with the identity by `intensity`.
func sepiaMatrix(intensity k: Float) -> ColorMatrix {
    let s: [Float] = [0.393, 0.769, 0.189, 0.349, 0.686, 0.168, 0.272, 0.534, 0.131]
    let id: [Float] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
    return ColorMatrix(rgb: (0..<9).map { id[$0] * (1 - k) + s[$0] * k })
}

struct VignetteStage: ColorStage {
    var preservesAlpha: Bool { true }
    let cx: Float, cy: Float, halfDiagonal: Float, intensity: Float, radius: Float
    var wantsUnpremultiplied: Bool { false }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let dy = Float(y) + 0.5 - cy
        let scale = 1 / (halfDiagonal * radius)
        let k = intensity
        // The same loop in C where it has a path (eight pixels a step with AVX2, four with
        // SSE2, picked at run time), bit for bit.
        let done = UnsafeMutableRawPointer(row).withMemoryRebound(to: Float.self, capacity: 4 * count) {
            cyan_vignette_rgbaf($0, count, Float(x) + 0.5 - cx, dy, scale, k) != 0
        }
        if done { return }
        // The factor of four pixels at once (one sqrtps), applied with alpha's factor 1.
        @inline(__always) func factors(_ dx: SIMD4<Float>) -> SIMD4<Float> {
            var d = (dx * dx + dy * dy).squareRoot() * scale
            d = d.replacing(with: 1, where: d .> 1)
            let s = d * d * (3 - 2 * d)
            return SIMD4<Float>.zero.replacing(with: 1 - k * s * s, where: 1 - k * s * s .> 0)
        }
        var i = 0
        var dx = SIMD4<Float>(0, 1, 2, 3) + (Float(x) + 0.5 - cx)
        while i + 4 <= count {
            let f = factors(dx)
            row[i] = row[i] * SIMD4(f[0], f[0], f[0], 1)
            row[i + 1] = row[i + 1] * SIMD4(f[1], f[1], f[1], 1)
            row[i + 2] = row[i + 2] * SIMD4(f[2], f[2], f[2], 1)
            row[i + 3] = row[i + 3] * SIMD4(f[3], f[3], f[3], 1)
            dx += 4
            i += 4
        }
        if i < count {
            let f = factors(dx)
            for j in 0..<(count - i) { row[i + j] = row[i + j] * SIMD4(f[j], f[j], f[j], 1) }
        }
    }
    var label: String { "vignette" }
}
