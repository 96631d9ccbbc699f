// Halftone screens: CIDotScreen, CILineScreen, CICircularScreen, CIHatchedScreen (one family)
// and CICMYKHalftone. Apple publishes no formulas; ours are the textbook threshold screens,
// stated in the family's declaration.

import Foundation

extension FilterInputLimit {
    /// A screen's cell width: at least 1 pixel (CICMYKHalftone's range starts at -2; the
    /// other screens' at 1).
    static let screenWidth = FilterInputLimit(minimum: 1, reason: "the screen's period must be positive, and below a pixel its dots alias away")
    /// A screen's sharpness: at most 1, a hard edge (Apple's range for the other screens).
    static let screenSharpness = FilterInputLimit(maximum: 1, reason: "sharpness 1 is already a hard edge between ink and paper")
}

extension BuiltinFilters {
    /// The family of CIDotScreen, CILineScreen, CICircularScreen and 1 more: one implementation, a table per filter.
    static let monochromeScreens = BuiltinFilter.family(
        doc: """
            The threshold screens. Every screen compares a tone `l` in [0, 1] with a periodic
            threshold pattern `t(x, y)` in [0, 1] (each screen's is given with it) and paints
            paper (white) where the tone is above the threshold and ink (black) where it is below:

                e = max(1 - sharpness, 1/256)                  (width of the soft edge, in tone units)
                z = clamp01((l - (1 - e) * t) / e)
                s = z * z * (3 - 2 * z)                        (smoothstep: 1 paper, 0 ink)

            so white (l = 1) is always all paper and black (l = 0) all ink, whatever the sharpness,
            and sharpness 1 is a hard edge. Positions are pixel centres `(x + 0.5, y + 0.5)`
            relative to `inputCenter`, rotated by `-inputAngle` into the screen's frame `(u, v)`, in
            cells of `inputWidth` pixels: each pixel is a function of its own coordinates (tiles
            render the same bits as a whole image).

            The tone is the sRGB encoding of the pixel's relative luminance (Rec. 709 weights on the
            straight linear working colour): screens are computed on encoded values, as a printer's
            dot gain curve would be, so a mid grey (sRGB 0.5) covers about half of the paper. The
            screen value `s` is encoded too: the output is the grey `sRGBToLinear(s)` in the working
            space (exactly 0 or 1 away from edges), with the input's alpha. The extent is the input's.
            """,
        categories: [.builtIn, .halftoneEffect, .stillImage, .video],
        inputs: [
            .number("inputWidth", "Width", .distance, default: 6, min: 1, slider: 2...50, "The period of the pattern, in pixels."),
            .number(
                "inputSharpness", "Sharpness", .scalar, default: 0.7, min: 0, max: 1, slider: 0...1,
                """
                1 for a hard edge between ink and paper; lower values soften it over
                `1 - sharpness` of the tone range.
                """),
        ],
        [
            (
                FilterDescriptor(
                    "CIDotScreen", "Dot Screen", "Halftone screen made of dots.",
                    macOS: "10.4", iOS: "6", factory: "dotScreen",
                    doc: """
                        Round dots on a square grid at `angle`, one per `width` pixels; dots grow
                        as the tone darkens. Threshold `t = 0.5 + (cos 2πu/w + cos 2πv/w) / 4` (the classic
                        "cosine" dot: dot centres at `center + k * width` along the rotated axes).
                        """,
                    inputs: [
                        .image(),
                        .vector("inputCenter", "Center", .position, default: [150, 150], "Where the pattern's origin lies."),
                        .number("inputAngle", "Angle", .angle, default: 0, identity: 0, slider: -3.141592653589793...3.141592653589793),
                    ]),
                ScreenStage.Kind.dot
            ),
            (
                FilterDescriptor(
                    "CILineScreen", "Line Screen", "Halftone screen made of parallel lines.",
                    macOS: "10.4", iOS: "6", factory: "lineScreen",
                    doc: """
                        Lines parallel to the direction `angle` (angle 0: horizontal lines), one
                        per `width` pixels; lines thicken as the tone darkens. Threshold
                        `t = 0.5 + cos(2πv/w) / 2`.
                        """,
                    inputsLike: "CIDotScreen"),
                .line
            ),
            (
                FilterDescriptor(
                    "CICircularScreen", "Circular Screen", "Halftone screen made of concentric circles.",
                    macOS: "10.4", iOS: "6", factory: "circularScreen",
                    doc: """
                        Rings concentric about `center`, one per `width` pixels; rings
                        thicken as the tone darkens. Threshold `t = 0.5 + cos(2πr/w) / 2`, `r` the distance
                        from the centre.
                        """,
                    inputs: [
                        .image(),
                        .vector("inputCenter", "Center", .position, default: [150, 150], "Where the pattern's origin lies."),
                    ]),
                .circular
            ),
            (
                FilterDescriptor(
                    "CIHatchedScreen", "Hatched Screen", "Halftone screen made of hatched lines.",
                    macOS: "10.4", iOS: "6", factory: "hatchedScreen",
                    doc: """
                        Cross-hatching. Lines along `angle` carry the light half of the tone
                        range and the perpendicular lines join in the dark half: threshold
                        `t = max(t1, t2 / 2)` with `t1 = 0.5 + cos(2πv/w) / 2`, `t2 = 0.5 + cos(2πu/w) / 2`.
                        """,
                    inputsLike: "CIDotScreen"),
                .hatched
            ),
        ]
    ) { args, kind throws(CIFilterError) in
        try monochromeScreen(args, kind, hasAngle: kind != .circular)
    }

    /// CICMYKHalftone: Simulates a four-ink CMYK halftone print.
    static let cmykHalftone = BuiltinFilter(
        FilterDescriptor(
            "CICMYKHalftone", "CMYK Halftone", "Simulates a four-ink CMYK halftone print.",
            categories: [.builtIn, .halftoneEffect, .stillImage, .video], macOS: "10.4", iOS: "9", factory: "cmykHalftone",
            doc: """
                Four dot screens (the CIDotScreen pattern) of cyan, magenta, yellow and
                black ink at the printers' angles `angle + 15°` (C), `angle + 75°` (M), `angle` (Y),
                `angle + 45°` (K), on white paper. From the straight sRGB-encoded colour `(r, g, b)`:
                `c = 1 - r, m = 1 - g, y = 1 - b`, black generation `k = gcr * min(c, m, y)`, under
                colour removal `c -= ucr * k` (same for m, y). Each ink is screened with tone
                `1 - ink`, giving paper fractions `sC, sM, sY, sK`, and the inks multiply:
                encoded `(sC * sK, sM * sK, sY * sK)`, decoded to the working space; alpha is kept.
                """,
            inputs: [
                .image(),
                .vector("inputCenter", "Center", .position, default: [150, 150]),
                .number("inputWidth", "Width", .distance, default: 6, identity: 6, min: -2, slider: 2...100, limit: .screenWidth, "The period of each ink's dot grid, in pixels."),
                .number("inputAngle", "Angle", .angle, default: 0, identity: 0, slider: -3.141592653589793...3.141592653589793),
                .number("inputSharpness", "Sharpness", .distance, default: 0.7, min: 0, slider: 0...1, limit: .screenSharpness, "1 for hard dot edges; lower values soften them."),
                .number(
                    "inputGCR", "Gray Component Replacement", .scalar, default: 1, identity: 1, min: 0, slider: 0...1,
                    "Gray component replacement: how much of the inks' common part becomes black."),
                .number(
                    "inputUCR", "Under Color Removal", .scalar, default: 0.5, identity: 0.5, min: 0, slider: 0...1,
                    "Under colour removal: how much of the black is taken out of the other inks."),
            ])
    ) {
        args throws(CIFilterError) in
        let image = try args.image()
        let c = try args.point(kCIInputCenterKey)
        let a = try args.float(kCIInputAngleKey), w = try args.float(kCIInputWidthKey)
        let sharp = try args.float(kCIInputSharpnessKey)
        let gcr = try args.float("inputGCR"), ucr = try args.float("inputUCR")
        let geometry = ScreenGeometry(center: c, angle: a, width: w, sharpness: sharp)
        return image.applying(CMYKHalftoneStage(g: geometry, gcr: gcr, ucr: ucr))
    }
}

private func monochromeScreen(_ args: FilterArguments, _ kind: ScreenStage.Kind, hasAngle: Bool) throws(CIFilterError) -> CIImage {
    let image = try args.image()
    let c = try args.point(kCIInputCenterKey)
    let a = hasAngle ? try args.float(kCIInputAngleKey) : 0
    let w = try args.float(kCIInputWidthKey), sharp = try args.float(kCIInputSharpnessKey)
    return image.applying(ScreenStage(kind: kind, g: ScreenGeometry(center: c, angle: a, width: w, sharpness: sharp)))
}

/// Where a screen's cells lie and how soft their edges are. The width is at least 1 and the
/// sharpness in 0...1, as the screens declare (Apple's ranges and `screenWidth`,
/// `screenSharpness`).
struct ScreenGeometry: Sendable {
    let cx: Float, cy: Float, cosA: Float, sinA: Float
    /// `2π / width`: the phase per pixel.
    let frequency: Float
    /// The soft edge `e`, in tone units.
    let edge: Float

    init(center: CGPoint, angle: Float, width: Float, sharpness: Float) {
        cx = Float(center.x); cy = Float(center.y)
        cosA = Foundation.cos(angle); sinA = Foundation.sin(angle)
        frequency = 2 * Float.pi / width
        edge = max(1 - sharpness, 1 / 256)
    }

    /// The same geometry turned by `delta` radians.
    func rotated(by delta: Float) -> ScreenGeometry {
        ScreenGeometry(
            cx: cx, cy: cy, cosA: cosA * Foundation.cos(delta) - sinA * Foundation.sin(delta),
            sinA: sinA * Foundation.cos(delta) + cosA * Foundation.sin(delta), frequency: frequency, edge: edge)
    }
    private init(cx: Float, cy: Float, cosA: Float, sinA: Float, frequency: Float, edge: Float) {
        self.cx = cx; self.cy = cy; self.cosA = cosA; self.sinA = sinA; self.frequency = frequency; self.edge = edge
    }

    /// The cosine dot threshold at offset (dx, dy) from the centre.
    @inline(__always) func dotThreshold(_ dx: Float, _ dy: Float) -> Float {
        let u = dx * cosA + dy * sinA, v = dy * cosA - dx * sinA
        return 0.5 + (Foundation.cos(u * frequency) + Foundation.cos(v * frequency)) * 0.25
    }
    /// Paper (1) or ink (0) for tone `l` against threshold `t`, smoothed by the edge.
    @inline(__always) func paper(_ l: Float, _ t: Float) -> Float {
        let z = clamp01((l - (1 - edge) * t) / edge)
        return z * z * (3 - 2 * z)
    }
}

/// The four monochrome screens (straight colour in, straight grey out, alpha kept).
struct ScreenStage: ColorStage {
    enum Kind: String, Sendable { case dot, line, circular, hatched }
    let kind: Kind
    let g: ScreenGeometry
    var wantsUnpremultiplied: Bool { true }
    var preservesAlpha: Bool { true }

    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        switch kind {
        case .dot: screenRow(DotPattern.self, row, count, x, y)
        case .line: screenRow(LinePattern.self, row, count, x, y)
        case .circular: screenRow(CircularPattern.self, row, count, x, y)
        case .hatched: screenRow(HatchedPattern.self, row, count, x, y)
        }
    }

    /// One specialised loop per pattern (no per-pixel dispatch).
    @inline(__always) private func screenRow<P: ScreenPattern>(_: P.Type, _ row: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int, _ x: Int, _ y: Int) {
        let w = lumaWeights
        let dy = Float(y) + 0.5 - g.cy
        for i in 0..<count {
            let p = row[i]
            let l = linearToSRGB(clamp01(w.x * p.x + w.y * p.y + w.z * p.z))
            let dx = Float(x + i) + 0.5 - g.cx
            let s = sRGBToLinear(g.paper(l, P.threshold(g, dx, dy)))
            row[i] = SIMD4(s, s, s, p.w)
        }
    }
    var label: String { "\(kind.rawValue) screen" }
}

/// A screen's threshold pattern at an offset from the centre.
protocol ScreenPattern { static func threshold(_ g: ScreenGeometry, _ dx: Float, _ dy: Float) -> Float }

enum DotPattern: ScreenPattern {
    @inline(__always) static func threshold(_ g: ScreenGeometry, _ dx: Float, _ dy: Float) -> Float { g.dotThreshold(dx, dy) }
}
enum LinePattern: ScreenPattern {
    @inline(__always) static func threshold(_ g: ScreenGeometry, _ dx: Float, _ dy: Float) -> Float {
        0.5 + 0.5 * Foundation.cos((dy * g.cosA - dx * g.sinA) * g.frequency)
    }
}
enum CircularPattern: ScreenPattern {
    @inline(__always) static func threshold(_ g: ScreenGeometry, _ dx: Float, _ dy: Float) -> Float {
        0.5 + 0.5 * Foundation.cos((dx * dx + dy * dy).squareRoot() * g.frequency)
    }
}
enum HatchedPattern: ScreenPattern {
    @inline(__always) static func threshold(_ g: ScreenGeometry, _ dx: Float, _ dy: Float) -> Float {
        let t1 = 0.5 + 0.5 * Foundation.cos((dy * g.cosA - dx * g.sinA) * g.frequency)
        let t2 = 0.5 + 0.5 * Foundation.cos((dx * g.cosA + dy * g.sinA) * g.frequency)
        return max(t1, 0.5 * t2)
    }
}

/// CMYK separation and four rotated dot screens (straight colour in and out, alpha kept).
struct CMYKHalftoneStage: ColorStage {
    let cyan: ScreenGeometry, magenta: ScreenGeometry, yellow: ScreenGeometry, black: ScreenGeometry
    let gcr: Float, ucr: Float

    init(g: ScreenGeometry, gcr: Float, ucr: Float) {
        let degree = Float.pi / 180
        cyan = g.rotated(by: 15 * degree); magenta = g.rotated(by: 75 * degree)
        yellow = g; black = g.rotated(by: 45 * degree)
        self.gcr = gcr; self.ucr = ucr
    }
    var wantsUnpremultiplied: Bool { true }
    var preservesAlpha: Bool { true }

    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let dy = Float(y) + 0.5 - yellow.cy
        for i in 0..<count {
            let p = row[i]
            let dx = Float(x + i) + 0.5 - yellow.cx
            var c = 1 - linearToSRGB(clamp01(p.x)), m = 1 - linearToSRGB(clamp01(p.y)), ye = 1 - linearToSRGB(clamp01(p.z))
            let k = gcr * min(c, m, ye)
            c -= ucr * k; m -= ucr * k; ye -= ucr * k
            let sK = black.paper(1 - k, black.dotThreshold(dx, dy))
            let sC = cyan.paper(1 - c, cyan.dotThreshold(dx, dy))
            let sM = magenta.paper(1 - m, magenta.dotThreshold(dx, dy))
            let sY = yellow.paper(1 - ye, yellow.dotThreshold(dx, dy))
            row[i] = SIMD4(sRGBToLinear(sC * sK), sRGBToLinear(sM * sK), sRGBToLinear(sY * sK), p.w)
        }
    }
    var label: String { "CMYK halftone" }
}
