// Preset looks (the photo effects, thermal, X-ray, document enhancer) and the filters that
// read a second, small image as a table (colour map, palettes).
//
// Apple does not publish the preset looks; each one here is a documented recipe (a colour
// matrix and per-channel tone curves on sRGB-encoded colour) built to match the character of
// Apple's reference images, not their exact values.

import Foundation

extension BuiltinFilters {
    /// The family of CIPhotoEffectChrome, CIPhotoEffectFade, CIPhotoEffectInstant and 5 more: one implementation, a table per filter.
    static let photoEffects = BuiltinFilter.family(
        doc: """
            The photo effects. Apple does not publish them; each is a documented recipe built to
            match the character of Apple's reference images, not their exact values: a 3x3 colour
            matrix plus offset on sRGB-encoded straight colour, then a monotone tone curve
            (Fritsch-Carlson) per channel through the points of its `PhotoLook`; alpha is kept.
            """,
        categories: [.builtIn, .colorEffect, .highDynamicRange, .interlaced, .nonSquarePixels, .stillImage, .video, .xmpSerializable],
        inputs: [
            .image(),
            .bool(
                "inputExtrapolate", nil, default: false, min: 0, max: 1,
                """
                When true, values outside 0...1 are not clamped before and after
                the matrix, and the curves continue along their end tangents (for extended-range
                colour).
                """),
        ],
        [
            (
                FilterDescriptor(
                    "CIPhotoEffectChrome", "Photo Effect Chrome", "Apple preset photo look \"Chrome\" (punchy, higher contrast).",
                    macOS: "10.9", iOS: "7", factory: "photoEffectChrome", protocol: "CIPhotoEffect",
                    doc: """
                        CIPhotoEffectChrome (approximation): saturation x1.3 and an S-shaped contrast curve
                        with slightly lifted blue shadows: punchy, high-contrast colour.
                        """,
                ),
                PhotoLook.chrome
            ),
            (
                FilterDescriptor(
                    "CIPhotoEffectFade", "Photo Effect Fade", "Apple preset photo look \"Fade\" (washed-out, lower contrast).",
                    macOS: "10.9", iOS: "7", factory: "photoEffectFade", protocol: "CIPhotoEffect",
                    doc: """
                        CIPhotoEffectFade (approximation): saturation x0.6, blacks lifted to 0.12 and whites
                        lowered to 0.92, a touch warm: washed-out, faded colour.
                        """,
                ),
                PhotoLook.fade
            ),
            (
                FilterDescriptor(
                    "CIPhotoEffectInstant", "Photo Effect Instant", "Apple preset photo look \"Instant\" (vintage instant-film tones).",
                    macOS: "10.9", iOS: "7", factory: "photoEffectInstant", protocol: "CIPhotoEffect",
                    doc: """
                        CIPhotoEffectInstant (approximation): saturation x0.8, lifted blacks, yellowed
                        highlights (blue lowered at the top): an instant-film print.
                        """,
                ),
                PhotoLook.instant
            ),
            (
                FilterDescriptor(
                    "CIPhotoEffectMono", "Photo Effect Mono", "Apple preset black-and-white look \"Mono\".",
                    macOS: "10.9", iOS: "7", factory: "photoEffectMono", protocol: "CIPhotoEffect",
                    doc: """
                        CIPhotoEffectMono (approximation): Rec. 709 luma of the encoded colour with a gentle
                        curve (blacks at 0.02, mid-tones slightly raised): plain black and white.
                        """,
                ),
                PhotoLook.mono
            ),
            (
                FilterDescriptor(
                    "CIPhotoEffectNoir", "Photo Effect Noir", "Apple preset high-contrast black-and-white look \"Noir\".",
                    macOS: "10.9", iOS: "7", factory: "photoEffectNoir", protocol: "CIPhotoEffect",
                    doc: """
                        CIPhotoEffectNoir (approximation): luma with a strong S-curve (deep shadows, bright
                        highlights): dramatic, high-contrast black and white.
                        """,
                ),
                PhotoLook.noir
            ),
            (
                FilterDescriptor(
                    "CIPhotoEffectProcess", "Photo Effect Process", "Apple preset photo look \"Process\" (cool cross-processed tones).",
                    macOS: "10.9", iOS: "7", factory: "photoEffectProcess", protocol: "CIPhotoEffect",
                    doc: """
                        CIPhotoEffectProcess (approximation): saturation x0.9, cyan-blue shadows and warm,
                        greenish highlights, as cross-processed film.
                        """,
                ),
                PhotoLook.process
            ),
            (
                FilterDescriptor(
                    "CIPhotoEffectTonal", "Photo Effect Tonal", "Apple preset black-and-white look \"Tonal\" (soft gray tones).",
                    macOS: "10.9", iOS: "7", factory: "photoEffectTonal", protocol: "CIPhotoEffect",
                    doc: """
                        CIPhotoEffectTonal (approximation): luma with a flat curve (blacks at 0.06, whites at
                        0.94): soft, low-contrast black and white.
                        """,
                ),
                PhotoLook.tonal
            ),
            (
                FilterDescriptor(
                    "CIPhotoEffectTransfer", "Photo Effect Transfer", "Apple preset photo look \"Transfer\" (warm vintage tones).",
                    macOS: "10.9", iOS: "7", factory: "photoEffectTransfer", protocol: "CIPhotoEffect",
                    doc: """
                        CIPhotoEffectTransfer (approximation): saturation x1.1, warm mid-tones and highlights,
                        blue lowered: a warm, vintage transfer print.
                        """,
                ),
                PhotoLook.transfer
            ),
        ]
    ) { args, look throws(CIFilterError) in
        try photoEffect(args, look)
    }
    /// The family of CIThermal and CIXRay: the sRGB-encoded luma picks a colour on a ramp.
    static let rampLooks = BuiltinFilter.family(
        categories: [.builtIn, .colorEffect, .interlaced, .nonSquarePixels, .stillImage, .video], macOS: "10.11", iOS: "10",
        inputs: [.image()],
        [
            (
                FilterDescriptor(
                    "CIThermal", "Thermal", "Preset false-color \"thermal camera\" look.", factory: "thermal",
                    doc: """
                        CIThermal (approximation): the sRGB-encoded luma picks a colour on a thermal-camera
                        ramp: dark blue, violet, magenta, red, orange, yellow, near white; alpha kept.
                        """),
                RampStage(
                    table: rampTable([
                        (0.0, SIMD3(0.0, 0.0, 0.18)), (0.2, SIMD3(0.25, 0.0, 0.6)), (0.4, SIMD3(0.75, 0.0, 0.55)),
                        (0.6, SIMD3(1.0, 0.2, 0.1)), (0.8, SIMD3(1.0, 0.7, 0.0)), (1.0, SIMD3(1.0, 1.0, 0.85)),
                    ]), name: "thermal")
            ),
            (
                FilterDescriptor(
                    "CIXRay", "X-Ray", "Preset inverted, x-ray style look.", factory: "xRay",
                    doc: """
                        CIXRay (approximation): the inverted sRGB-encoded luma, tinted pale cyan-blue
                        (encoded colour `0.04 + 0.96 * (1 - luma) * (0.82, 0.94, 1)`); alpha kept.
                        """),
                RampStage(
                    table: rampTable([
                        (0.0, SIMD3(0.04 + 0.96 * 0.82, 0.04 + 0.96 * 0.94, 1.0)), (1.0, SIMD3(0.04, 0.04, 0.04)),
                    ]), name: "x-ray")
            ),
        ]
    ) { args, ramp throws(CIFilterError) in
        try args.image().applying(ramp)
    }

    /// CIColorMap: Maps source colors through a gradient image used as a lookup table.
    static let colorMap = BuiltinFilter(
        FilterDescriptor(
            "CIColorMap", "Color Map", "Maps source colors through a gradient image used as a lookup table.",
            categories: [.builtIn, .colorEffect, .interlaced, .nonSquarePixels, .stillImage, .video], macOS: "10.4", iOS: "6", factory: "colorMap",
            doc: """
                The gradient image used as a 1D lookup table by luma. Straight colour's
                Rec. 709 luma `l`, clamped to [0, 1], reads the middle row of `inputGradientImage` at
                `minX + l * (width - 1)` (linear interpolation between pixel centres); the result is
                that colour, its alpha times the pixel's.
                """,
            inputs: [
                .image(),
                .image("inputGradientImage", "Gradient Image", type: .gradient),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image(), gradient = try args.image(kCIInputGradientImageKey)
        try checkTable(gradient, args, kCIInputGradientImageKey)
        return CIImage(node: TableLookupNode(input: image.node, table: gradient.node, stage: ColorMapStage(), extent: image.extent))
    }

    /// CIPalettize: Repaints the image using only the colors of a palette image.
    static let palettize = BuiltinFilter(
        FilterDescriptor(
            "CIPalettize", "Palettize", "Repaints the image using only the colors of a palette image.",
            categories: [.builtIn, .colorEffect, .stillImage, .video], macOS: "10.15", iOS: "13", factory: "palettize",
            doc: """
                Each pixel becomes the nearest colour of `inputPaletteImage` (all its
                pixels, straight colour; distance in linear working space, or on sRGB-encoded values
                with `perceptual`); the pixel's alpha is kept.
                """,
            inputs: [
                .image(),
                .image("inputPaletteImage", "Palette Image"),
                .bool("inputPerceptual", "Perceptual", default: false, min: 0, max: 1),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image(), palette = try args.image("inputPaletteImage")
        try checkTable(palette, args, "inputPaletteImage")
        return CIImage(node: TableLookupNode(input: image.node, table: palette.node, stage: PalettizeStage(perceptual: try args.bool("inputPerceptual")), extent: image.extent))
    }

    /// CIPaletteCentroid: Computes mean image coordinates for each color of a palette.
    static let paletteCentroid = BuiltinFilter(
        FilterDescriptor(
            "CIPaletteCentroid", "Palette Centroid", "Computes mean image coordinates for each color of a palette.",
            categories: [.builtIn, .colorEffect, .stillImage, .video], macOS: "10.15", iOS: "13", factory: "paletteCentroid",
            doc: """
                For each colour of `inputPaletteImage` (its pixels in order, bottom
                row first), the centroid of the image pixels nearest to it (as CIPalettize decides):
                an N x 1 image at the origin with red = mean x and green = mean y of the pixel centres
                (image coordinates), blue = the share of the image's pixels, alpha 1. A colour no
                pixel is nearest to gives (0, 0, 0, 1). The input must be finite.
                """,
            inputs: [
                .image(),
                .image("inputPaletteImage", "Palette Image"),
                .bool("inputPerceptual", "Perceptual", default: false, min: 0, max: 1),
            ]),
        reach: .wholeImage
    ) { args throws(CIFilterError) in
        let image = try args.image(), palette = try args.image("inputPaletteImage")
        try checkTable(palette, args, "inputPaletteImage")
        guard !image.extent.isInfiniteOrHuge else {
            throw .invalidValue(filter: args.descriptor.name, key: kCIInputImageKey, reason: "the image must be finite: crop it first")
        }
        let n = PixelRect(covering: palette.extent).area
        return reduced(image, PixelRect(covering: image.extent), PaletteCentroidReduction(count: n, perceptual: try args.bool("inputPerceptual")), auxiliary: [palette])
    }

    /// CIDocumentEnhancer: Cleans up photographed documents (shadow removal, whiter paper, more contrast).
    static let documentEnhancer = BuiltinFilter(
        FilterDescriptor(
            "CIDocumentEnhancer", "Document Enhancer", "Cleans up photographed documents (shadow removal, whiter paper, more contrast).",
            categories: [.builtIn, .colorEffect, .nonSquarePixels, .stillImage], macOS: "10.15", iOS: "13", factory: "documentEnhancer",
            doc: """
                CIDocumentEnhancer (approximation of Apple's proprietary algorithm): a global levels
                stretch from the image's own statistics. The black point is the 2nd and the white
                point the 85th percentile of sRGB-encoded luma (paper is most of a document); with
                `a = min(amount, 1)` the encoded colour maps `[black * a, 1 - (1 - white) * a]` to
                [0, 1], then amounts above 1 darken the ink with the power `1 + 0.15 * (amount - 1)`.
                No shadow removal or perspective work; amount 0 is the identity.
                """,
            inputs: [
                .image(),
                .number("inputAmount", "Amount", .scalar, default: 1, min: 0, max: 10, slider: 0...2),
            ]),
        reach: .wholeImage
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let amount = try args.float(kCIInputAmountKey)
        if amount == 0 { return image }
        guard !image.extent.isInfiniteOrHuge else {
            throw .invalidValue(filter: args.descriptor.name, key: kCIInputImageKey, reason: "the image must be finite: crop it first")
        }
        let stats = reduced(image, PixelRect(covering: image.extent), LumaPercentileReduction(low: 0.02, high: 0.85))
        return CIImage(node: TableLookupNode(input: image.node, table: stats.node, stage: LevelsStage(amount: amount), extent: image.extent))
    }
}

func checkTable(_ table: CIImage, _ args: FilterArguments, _ key: String) throws(CIFilterError) {
    let e = table.extent
    guard !e.isInfiniteOrHuge, !e.isEmpty, PixelRect(covering: e).area <= 1 << 16 else {
        throw .invalidValue(filter: args.descriptor.name, key: key, reason: "expects a small finite image (at most 65536 pixels): crop it")
    }
}

// MARK: - Photo looks

/// A look: a 3x3 matrix plus offset on sRGB-encoded straight colour, then a monotone tone
/// curve per channel through the given points.
struct PhotoLook: Sendable {
    var matrix: [Float]
    var bias: SIMD3<Float> = .zero
    var curves: [[(Float, Float)]]

    static func saturation(_ s: Float) -> [Float] {
        let w = lumaWeights
        return (0..<9).map { i in (i % 4 == 0 ? s : 0) + (1 - s) * w[i % 3] }
    }
    static let grey: [Float] = saturation(0)

    static let chrome = PhotoLook(
        matrix: saturation(1.3),
        curves: [
            [(0, 0), (0.25, 0.19), (0.5, 0.5), (0.75, 0.81), (1, 1)],
            [(0, 0), (0.25, 0.19), (0.5, 0.5), (0.75, 0.81), (1, 1)],
            [(0, 0.03), (0.25, 0.21), (0.5, 0.5), (0.75, 0.8), (1, 1)],
        ])
    static let fade = PhotoLook(
        matrix: saturation(0.6), bias: SIMD3(0.015, 0.005, -0.01),
        curves: [
            [(0, 0.12), (0.5, 0.53), (1, 0.92)]
        ])
    static let instant = PhotoLook(
        matrix: saturation(0.8),
        curves: [
            [(0, 0.07), (0.5, 0.56), (1, 0.98)],
            [(0, 0.06), (0.5, 0.53), (1, 0.95)],
            [(0, 0.09), (0.5, 0.46), (1, 0.84)],
        ])
    static let mono = PhotoLook(matrix: grey, curves: [[(0, 0.02), (0.5, 0.53), (1, 1)]])
    static let noir = PhotoLook(matrix: grey, curves: [[(0, 0), (0.25, 0.1), (0.5, 0.5), (0.75, 0.9), (1, 1)]])
    static let tonal = PhotoLook(matrix: grey, curves: [[(0, 0.06), (0.5, 0.5), (1, 0.94)]])
    static let process = PhotoLook(
        matrix: saturation(0.9),
        curves: [
            [(0, 0.02), (0.5, 0.5), (1, 0.97)],
            [(0, 0.03), (0.5, 0.53), (1, 1)],
            [(0, 0.12), (0.5, 0.5), (1, 0.84)],
        ])
    static let transfer = PhotoLook(
        matrix: saturation(1.1),
        curves: [
            [(0, 0.03), (0.5, 0.56), (1, 1)],
            [(0, 0.02), (0.5, 0.51), (1, 0.97)],
            [(0, 0), (0.5, 0.42), (1, 0.85)],
        ])
}

func photoEffect(_ args: FilterArguments, _ look: PhotoLook) throws(CIFilterError) -> CIImage {
    let image = try args.image()
    let extrapolate = try args.bool("inputExtrapolate")
    let curves = (0..<3).map { c in MonotoneCurve(look.curves[min(c, look.curves.count - 1)]) }
    return image.applying(PhotoLookStage(matrix: look.matrix, bias: look.bias, curves: curves, extrapolate: extrapolate))
}

/// A monotone cubic (Fritsch-Carlson) through points on [0, 1], tabulated; beyond [0, 1] it
/// continues along its end tangents.
struct MonotoneCurve: Sendable {
    static let size = 1024
    let table: [Float]
    let slope0: Float, slope1: Float

    init(_ pts: [(Float, Float)]) {
        let x = pts.map(\.0), y = pts.map(\.1)
        let n = pts.count
        let d: [Float] = (0..<(n - 1)).map { (y[$0 + 1] - y[$0]) / (x[$0 + 1] - x[$0]) }
        var m = [Float](repeating: 0, count: n)
        m[0] = d[0]; m[n - 1] = d[n - 2]
        for i in 1..<max(1, n - 1) { m[i] = d[i - 1] * d[i] <= 0 ? 0 : (d[i - 1] + d[i]) / 2 }
        for i in 0..<(n - 1) where d[i] != 0 {
            let a = m[i] / d[i], b = m[i + 1] / d[i]
            let s: Float = a * a + b * b
            if s > 9 {
                let t: Float = 3 / s.squareRoot()
                m[i] = t * a * d[i]
                m[i + 1] = t * b * d[i]
            }
        }
        var t = [Float](repeating: 0, count: MonotoneCurve.size + 1)
        var seg = 0
        for k in 0...MonotoneCurve.size {
            let u = Float(k) / Float(MonotoneCurve.size)
            while seg < n - 2 && u > x[seg + 1] { seg += 1 }
            let h = x[seg + 1] - x[seg]
            let s = (u - x[seg]) / h
            let s1: Float = 1 - s
            let h00: Float = (1 + 2 * s) * s1 * s1
            let h10: Float = s * s1 * s1
            let h01: Float = s * s * (3 - 2 * s)
            let h11: Float = s * s * (s - 1)
            var value: Float = h00 * y[seg] + h01 * y[seg + 1]
            value += h10 * h * m[seg]
            value += h11 * h * m[seg + 1]
            t[k] = value
        }
        table = t
        slope0 = m[0]; slope1 = m[n - 1]
    }

    @inline(__always) func callAsFunction(_ v: Float, _ t: UnsafeBufferPointer<Float>) -> Float {
        if v < 0 { return t[0] + slope0 * v }
        if v > 1 { return t[MonotoneCurve.size] + slope1 * (v - 1) }
        if v.isNaN { return t[0] }  // never Int(NaN)
        let pos = v * Float(MonotoneCurve.size)
        let i = min(Int(pos), MonotoneCurve.size - 1)
        let f = pos - Float(i)
        return t[i] + (t[i + 1] - t[i]) * f
    }
}

struct PhotoLookStage: ColorStage {
    let matrix: [Float]
    let bias: SIMD3<Float>
    let curves: [MonotoneCurve]
    let extrapolate: Bool
    var wantsUnpremultiplied: Bool { true }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let m = matrix
        let r0 = SIMD3(m[0], m[1], m[2]), r1 = SIMD3(m[3], m[4], m[5]), r2 = SIMD3(m[6], m[7], m[8])
        let cr = curves[0], cg = curves[1], cb = curves[2]
        cr.table.withUnsafeBufferPointer { tr in
            cg.table.withUnsafeBufferPointer { tg in
                cb.table.withUnsafeBufferPointer { tb in
                    for i in 0..<count {
                        let p = row[i]
                        var e = SIMD3(linearToSRGB(p.x), linearToSRGB(p.y), linearToSRGB(p.z))
                        if !extrapolate { e = SIMD3(clamp01(e.x), clamp01(e.y), clamp01(e.z)) }
                        var o = SIMD3((r0 * e).sum(), (r1 * e).sum(), (r2 * e).sum()) + bias
                        if !extrapolate { o = SIMD3(clamp01(o.x), clamp01(o.y), clamp01(o.z)) }
                        row[i] = SIMD4(sRGBToLinear(cr(o.x, tr)), sRGBToLinear(cg(o.y, tg)), sRGBToLinear(cb(o.z, tb)), p.w)
                    }
                }
            }
        }
    }
    var label: String { "photo look" }
}

/// 257 linear colours interpolated (in sRGB encoding) between stops on [0, 1].
func rampTable(_ stops: [(Float, SIMD3<Float>)]) -> [SIMD3<Float>] {
    (0...256).map { k in
        let t = Float(k) / 256
        var i = 0
        while i < stops.count - 2 && t > stops[i + 1].0 { i += 1 }
        let (t0, c0) = stops[i], (t1, c1) = stops[i + 1]
        let f = clamp01((t - t0) / (t1 - t0))
        let e = c0 + (c1 - c0) * f
        return SIMD3(sRGBToLinear(e.x), sRGBToLinear(e.y), sRGBToLinear(e.z))
    }
}

/// Straight luma, sRGB-encoded and clamped, looked up in a 257-entry linear colour ramp.
struct RampStage: ColorStage {
    let table: [SIMD3<Float>]
    let name: String
    var wantsUnpremultiplied: Bool { true }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let w = lumaWeights
        table.withUnsafeBufferPointer { t in
            for i in 0..<count {
                let p = row[i]
                let l = clamp01(linearToSRGB(w.x * p.x + w.y * p.y + w.z * p.z)) * 256
                let k = min(Int(l), 255)
                let f = l - Float(k)
                let c = t[k] + (t[k + 1] - t[k]) * f
                row[i] = SIMD4(c, p.w)
            }
        }
    }
    var label: String { name }
}

// MARK: - Table lookups

struct ColorMapStage: TableStage {
    func run(_ tile: TileBuffer, origin: (x: Int, y: Int), table: TileBuffer) {
        let g = table.row(table.height / 2)
        let last = table.width - 1
        let w = lumaWeights
        for r in 0..<tile.height {
            let row = tile.row(r)
            for i in 0..<tile.width {
                let p = row[i]
                let inv: Float = p.w > 0 ? 1 / p.w : 0
                let l = clamp01((w.x * p.x + w.y * p.y + w.z * p.z) * inv) * Float(last)
                let k = min(Int(l), max(0, last - 1))
                let f = last > 0 ? l - Float(k) : 0
                let c = last > 0 ? g[k] + (g[k + 1] - g[k]) * f : g[0]
                row[i] = c * p.w
            }
        }
    }
    var label: String { "color map" }
}

/// The palette's straight colours in the space distances are measured in.
func paletteColors(_ table: TileBuffer, perceptual: Bool) -> (space: [SIMD3<Float>], linear: [SIMD3<Float>]) {
    var s: [SIMD3<Float>] = [], l: [SIMD3<Float>] = []
    for r in 0..<table.height {
        for i in 0..<table.width {
            let p = table.row(r)[i]
            let inv: Float = p.w > 0 ? 1 / p.w : 0
            let c = SIMD3(p.x * inv, p.y * inv, p.z * inv)
            l.append(c)
            s.append(perceptual ? SIMD3(linearToSRGB(c.x), linearToSRGB(c.y), linearToSRGB(c.z)) : c)
        }
    }
    return (s, l)
}

@inline(__always) func nearestColor(_ c: SIMD3<Float>, _ pal: UnsafeBufferPointer<SIMD3<Float>>) -> Int {
    var best = 0
    var bd = Float.infinity
    for k in 0..<pal.count {
        let d = simdDistance2(c, pal[k])
        if d < bd { bd = d; best = k }
    }
    return best
}

struct PalettizeStage: TableStage {
    let perceptual: Bool
    func run(_ tile: TileBuffer, origin: (x: Int, y: Int), table: TileBuffer) {
        let (space, linear) = paletteColors(table, perceptual: perceptual)
        space.withUnsafeBufferPointer { pal in
            for r in 0..<tile.height {
                let row = tile.row(r)
                for i in 0..<tile.width {
                    let p = row[i]
                    let inv: Float = p.w > 0 ? 1 / p.w : 0
                    var c = SIMD3(p.x * inv, p.y * inv, p.z * inv)
                    if perceptual { c = SIMD3(linearToSRGB(c.x), linearToSRGB(c.y), linearToSRGB(c.z)) }
                    row[i] = SIMD4(linear[nearestColor(c, pal)] * p.w, p.w)
                }
            }
        }
    }
    var label: String { "palettize" }
}

/// Partial: [sum x, sum y, count] per palette colour.
struct PaletteCentroidReduction: Reduction {
    let count: Int
    let perceptual: Bool
    var palette: [SIMD3<Float>] = []
    init(count: Int, perceptual: Bool) { self.count = count; self.perceptual = perceptual }
    var outputWidth: Int { max(1, count) }
    var outputHeight: Int { 1 }
    func partialCount(_ region: PixelRect) -> Int { 3 * max(1, count) }
    func prepared(with auxiliary: [PixelBlock]) -> PaletteCentroidReduction {
        var r = self
        if let t = auxiliary.first { r.palette = paletteColors(t.buffer, perceptual: perceptual).space }
        return r
    }
    func accumulate(_ row: UnsafePointer<SIMD4<Float>>, count n: Int, x: Int, y: Int, region: PixelRect, into p: UnsafeMutablePointer<Double>) {
        if palette.isEmpty { return }
        palette.withUnsafeBufferPointer { pal in
            for i in 0..<n {
                let q = row[i]
                let inv: Float = q.w > 0 ? 1 / q.w : 0
                var c = SIMD3(q.x * inv, q.y * inv, q.z * inv)
                if perceptual { c = SIMD3(linearToSRGB(c.x), linearToSRGB(c.y), linearToSRGB(c.z)) }
                let k = nearestColor(c, pal)
                p[3 * k] += Double(x + i) + 0.5; p[3 * k + 1] += Double(y) + 0.5; p[3 * k + 2] += 1
            }
        }
    }
    func finish(_ p: UnsafePointer<Double>, region: PixelRect) -> [SIMD4<Float>] {
        let area = Double(max(1, region.area))
        return (0..<max(1, count)).map { k in
            let c = p[3 * k + 2]
            return c > 0 ? SIMD4(Float(p[3 * k] / c), Float(p[3 * k + 1] / c), Float(c / area), 1) : SIMD4(0, 0, 0, 1)
        }
    }
    var label: String { "palette centroid" }
}

/// Percentiles of sRGB-encoded straight luma (1024 bins): output (low, high, 0, 1).
struct LumaPercentileReduction: Reduction {
    let low: Double, high: Double
    static let bins = 1024
    var outputWidth: Int { 1 }
    var outputHeight: Int { 1 }
    func partialCount(_ region: PixelRect) -> Int { Self.bins }
    func accumulate(_ row: UnsafePointer<SIMD4<Float>>, count: Int, x: Int, y: Int, region: PixelRect, into p: UnsafeMutablePointer<Double>) {
        let w = lumaWeights
        for i in 0..<count {
            let q = row[i]
            let inv: Float = q.w > 0 ? 1 / q.w : 0
            let l = clamp01(linearToSRGB((w.x * q.x + w.y * q.y + w.z * q.z) * inv))
            p[min(Int(l * Float(Self.bins)), Self.bins - 1)] += 1
        }
    }
    func finish(_ p: UnsafePointer<Double>, region: PixelRect) -> [SIMD4<Float>] {
        let total = (0..<Self.bins).reduce(0.0) { $0 + p[$1] }
        func percentile(_ q: Double) -> Float { histogramPercentile(p, bins: Self.bins, total: total, q) }
        return [SIMD4(percentile(low), percentile(high), 0, 1)]
    }
    var label: String { "luma percentiles" }
}

struct LevelsStage: TableStage {
    let amount: Float
    func run(_ tile: TileBuffer, origin: (x: Int, y: Int), table: TileBuffer) {
        let s = table.row(0)[0]
        let a = min(amount, 1)
        let black = s.x * a, white = max(black + 1e-3, 1 - (1 - s.y) * a)
        let inv = 1 / (white - black)
        let gamma = 1 + 0.15 * max(0, amount - 1)
        @inline(__always) func level(_ v: Float) -> Float {
            var t = clamp01((linearToSRGB(v) - black) * inv)
            if gamma != 1 { t = powf(t, gamma) }
            return sRGBToLinear(t)
        }
        for r in 0..<tile.height {
            let row = tile.row(r)
            for i in 0..<tile.width {
                let p = row[i]
                let inv: Float = p.w > 0 ? 1 / p.w : 0
                row[i] = SIMD4(level(p.x * inv) * p.w, level(p.y * inv) * p.w, level(p.z * inv) * p.w, p.w)
            }
        }
    }
    var label: String { "document levels" }
}
