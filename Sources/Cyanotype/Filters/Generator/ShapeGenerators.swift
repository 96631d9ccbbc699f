import Foundation

// Shape and pattern generators: stripes, (blurred) rounded rectangles, random noise, line
// meshes. Coverage is computed analytically per pixel centre (x + 0.5, y + 0.5): a shape edge
// is antialiased over one pixel, `colour * coverage` premultiplied in the working space.

extension BuiltinFilters {
    /// The family of CIStripesGenerator and CICheckerboardGenerator: two colours alternating
    /// every `width` pixels, in stripes or in squares.
    static let twoColorPatterns = BuiltinFilter.family(
        categories: [.builtIn, .generator, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "5",
        inputs: [
            .vector("inputCenter", "Center", .position, default: [150, 150]),
            .color("inputColor0", "Color 1", .color, default: [1, 1, 1, 1]),
            .color("inputColor1", "Color 2", .color, default: [0, 0, 0, 1]),
            .number("inputWidth", "Width", .distance, default: 80, slider: 0...800),
            .number("inputSharpness", "Sharpness", .scalar, default: 1, min: 0, max: 1, slider: 0...1),
        ],
        [
            (
                FilterDescriptor(
                    "CIStripesGenerator", "Stripes", "Generates an infinite pattern of two-color stripes.", factory: "stripesGenerator",
                    doc: """
                        Vertical stripes `width` wide, `color0` on the stripe starting at
                        `center.x`, alternating with `color1`; `sharpness` 1 gives hard edges, lower values
                        blend each edge towards the mean over `(1 - sharpness) * width / 2` pixels.
                        """),
                TwoColorPattern.stripes
            ),
            (
                FilterDescriptor(
                    "CICheckerboardGenerator", "Checkerboard", "Generates an infinite two-color checkerboard pattern.", factory: "checkerboardGenerator",
                    doc: """
                        Squares of side `width` aligned on `center`, `color0` on the
                        square whose lower-left corner is the centre. `sharpness` 1 gives hard edges; lower
                        values blend each edge towards the mean over `(1 - sharpness) * width / 2` pixels.
                        """),
                TwoColorPattern.checkerboard
            ),
        ]
    ) { args, pattern throws(CIFilterError) in
        let c = try args.point(kCIInputCenterKey)
        let w = try args.float(kCIInputWidthKey), s = try args.float(kCIInputSharpnessKey)
        let c0 = try args.color("inputColor0").workingValue, c1 = try args.color("inputColor1").workingValue
        guard w > 0 else { return CIImage(color: CIColor(red: 0, green: 0, blue: 0, alpha: 0)) }
        switch pattern {
        case .stripes:
            return CIImage(node: GeneratorNode(stage: StripesStage(centerX: Float(c.x), width: w, sharpness: s, c0: c0, c1: c1)))
        case .checkerboard:
            return CIImage(node: GeneratorNode(stage: CheckerboardStage(center: SIMD2(Float(c.x), Float(c.y)), width: w, sharpness: s, c0: c0, c1: c1)))
        }
    }

    /// The family of CIRoundedRectangleGenerator and CIRoundedRectangleStrokeGenerator: a
    /// rounded rectangle filled, or its outline (variant: whether it reads a stroke width).
    static let roundedRectangles = BuiltinFilter.family(
        categories: [.builtIn, .generator, .highDynamicRange, .stillImage],
        [
            (
                FilterDescriptor(
                    "CIRoundedRectangleGenerator", "Rounded Rectangle Generator", "Generates a solid rounded rectangle.",
                    macOS: "10.15", iOS: "13", factory: "roundedRectangleGenerator",
                    doc: """
                        `extent` filled with `color`, corners rounded with
                        `radius` (at most half the shorter side). `smoothness` 0 gives circular corners;
                        towards 1 the corner becomes a superellipse of exponent `2 + 2 * smoothness`
                        (continuous-curvature look). Edges antialiased over one pixel; output extent `extent`.
                        """,
                    inputs: [
                        .vector("inputExtent", "Extent", .rectangle, default: [0, 0, 100, 100]),
                        .number("inputRadius", "Radius", .distance, default: 10, min: 0, slider: 0...100),
                        .number("inputSmoothness", "Smoothness", .distance, default: 0, min: 0, max: 1, slider: 0...1),
                        .color("inputColor", "Color", .color, default: [1, 1, 1, 1]),
                    ]),
                false
            ),
            (
                FilterDescriptor(
                    "CIRoundedRectangleStrokeGenerator", "Rounded Rectangle Stroke Generator", "Generates the outline (stroke) of a rounded rectangle.",
                    macOS: "14.0", iOS: "17", factory: "roundedRectangleStrokeGenerator",
                    doc: """
                        The outline of the rounded rectangle, `width`
                        pixels wide, lying inside `extent` (its outer edge is the filled shape's edge).
                        """,
                    inputs: [
                        .vector("inputExtent", "Extent", .rectangle, default: [0, 0, 100, 100]),
                        .number("inputRadius", "Radius", .distance, default: 10, min: 0, slider: 0...100),
                        .number("inputSmoothness", "Smoothness", .distance, default: 0, min: 0, max: 1, slider: 0...1),
                        .color("inputColor", "Color", .color, default: [1, 1, 1, 1]),
                        .number("inputWidth", "Width", .distance, default: 10, min: 0, slider: 0...100),
                    ]),
                true
            ),
        ]
    ) { args, stroked throws(CIFilterError) in
        let shape = try RoundedRect(args)
        let color = try args.color(kCIInputColorKey).workingValue
        let width: Float? = stroked ? try args.float(kCIInputWidthKey) : nil
        return CIImage(
            node: GeneratorNode(
                stage: RoundedRectStage(shape: shape, color: color, strokeWidth: width, sigma: 0),
                extent: shape.rect.integral))
    }

    /// CIBlurredRectangleGenerator: Generates a solid-color rectangle with Gaussian-blurred edges.
    static let blurredRectangleGenerator = BuiltinFilter(
        FilterDescriptor(
            "CIBlurredRectangleGenerator", "Blurred Rectangle Generator", "Generates a solid-color rectangle with Gaussian-blurred edges.",
            categories: [.builtIn, .generator, .highDynamicRange, .stillImage], macOS: "14.0", iOS: "17", factory: "blurredRectangleGenerator",
            doc: """
                `extent` filled with `color`, convolved with a Gaussian
                of standard deviation `sigma` — exactly, as the product of two erf edge profiles.
                Output extent: `extent` grown by 3 sigma.
                """,
            inputs: [
                .vector("inputExtent", "Extent", .rectangle, default: [0, 0, 100, 100]),
                .number("inputSigma", "Sigma", .distance, default: 10, min: 0, slider: 0...100),
                .color("inputColor", "Color", .color, default: [1, 1, 1, 1]),
            ])
    ) { args throws(CIFilterError) in
        let r = try args.rect(kCIInputExtentKey).standardized
        let sigma = try args.float("inputSigma")
        let color = try args.color(kCIInputColorKey).workingValue
        let shape = RoundedRect(rect: r, radius: 0, exponent: 2)
        return CIImage(
            node: GeneratorNode(
                stage: BlurredRectStage(rect: shape, sigma: sigma, color: color),
                extent: r.insetBy(dx: CGFloat(-3 * sigma), dy: CGFloat(-3 * sigma)).integral))
    }

    /// CIBlurredRoundedRectangleGenerator: Generates a solid-color rounded rectangle with Gaussian-blurred edges.
    static let blurredRoundedRectangleGenerator = BuiltinFilter(
        FilterDescriptor(
            "CIBlurredRoundedRectangleGenerator", "Blurred Rounded Rectangle Generator", "Generates a solid-color rounded rectangle with Gaussian-blurred edges.",
            categories: [.builtIn, .generator, .highDynamicRange, .stillImage], macOS: "26.0", iOS: "26", factory: "blurredRoundedRectangleGenerator",
            doc: """
                The rounded rectangle with its edge blurred by a
                Gaussian of `sigma`: coverage is the normal CDF of the signed distance to the edge
                (exact along straight edges, a close approximation around corners). Output extent:
                `extent` grown by 3 sigma.
                """,
            inputs: [
                .vector("inputExtent", "Extent", .rectangle, default: [0, 0, 100, 100]),
                .number("inputRadius", "Radius", .distance, default: 10, min: 0, slider: 0...100),
                .number("inputSmoothness", "Smoothness", .distance, default: 0, min: 0, max: 1, slider: 0...1),
                .number("inputSigma", "Sigma", .distance, default: 10, min: 0, slider: 0...100),
                .color("inputColor", "Color", .color, default: [1, 1, 1, 1]),
            ])
    ) { args throws(CIFilterError) in
        let shape = try RoundedRect(args)
        let sigma = try args.float("inputSigma")
        let color = try args.color(kCIInputColorKey).workingValue
        return CIImage(
            node: GeneratorNode(
                stage: RoundedRectStage(shape: shape, color: color, strokeWidth: nil, sigma: sigma),
                extent: shape.rect.insetBy(dx: CGFloat(-3 * sigma), dy: CGFloat(-3 * sigma)).integral))
    }

    /// CIRandomGenerator: Generates infinite uniform random noise in all four channels.
    static let randomGenerator = BuiltinFilter(
        FilterDescriptor(
            "CIRandomGenerator", "Random Generator", "Generates infinite uniform random noise in all four channels.",
            categories: [.builtIn, .generator, .stillImage, .video], macOS: "10.4", iOS: "6", factory: "randomGenerator",
            doc: """
                Infinite noise, each of the four channels an independent uniform
                value in [0, 1) hashed from the pixel coordinates and channel, the same on every run,
                tile and thread. Values are written as they are (like Core Image, colour may exceed
                alpha).
                """,
            inputs: [])
    ) { _ throws(CIFilterError) in
        CIImage(node: GeneratorNode(stage: RandomStage()))
    }

    /// CIMeshGenerator: Draws a set of line segments (a mesh) in one color.
    static let meshGenerator = BuiltinFilter(
        FilterDescriptor(
            "CIMeshGenerator", "Mesh Generator", "Draws a set of line segments (a mesh) in one color.",
            categories: [.builtIn, .generator, .highDynamicRange, .stillImage, .video], macOS: "10.14", iOS: "12", factory: "meshGenerator",
            doc: """
                Line segments `width` pixels wide in `color`, antialiased over one
                pixel. `inputMesh` is an array of `CIVector(x: x0, y: y0, z: x1, w: y1)`, one per
                segment (also `[CGFloat]`/`[Double]` of 4 values each). Output extent: the segments'
                bounds grown by the width; an empty mesh gives an empty image.
                """,
            inputs: [
                .number("inputWidth", "Width", .distance, default: 1.5, min: 0, slider: 1...10),
                .color("inputColor", "Color", .color, default: [1, 1, 1, 1]),
                .other("NSArray", "inputMesh", "Mesh", nil),
            ])
    ) { args throws(CIFilterError) in
        let width = try args.float(kCIInputWidthKey)
        let color = try args.color(kCIInputColorKey).workingValue
        let segments = try meshSegments(args)
        guard !segments.isEmpty else { return CIImage(node: CIImage.emptyNode) }
        var lo = SIMD2<Float>(repeating: .infinity), hi = SIMD2<Float>(repeating: -.infinity)
        for s in segments { lo = pointwiseMin(lo, pointwiseMin(s.a, s.b)); hi = pointwiseMax(hi, pointwiseMax(s.a, s.b)) }
        let pad = width / 2 + 1
        let extent = CGRect(x: CGFloat(lo.x - pad), y: CGFloat(lo.y - pad), width: CGFloat(hi.x - lo.x + 2 * pad), height: CGFloat(hi.y - lo.y + 2 * pad)).integral
        return CIImage(node: GeneratorNode(stage: MeshStage(segments: segments, halfWidth: width / 2, color: color), extent: extent))
    }

    static func meshSegments(_ args: FilterArguments) throws(CIFilterError) -> [MeshStage.Segment] {
        let key = "inputMesh"
        guard let raw = args.values[key] else { throw .missingInput(filter: args.descriptor.name, key: key) }
        guard let list = raw as? [Any] else { throw .wrongType(filter: args.descriptor.name, key: key, expected: "an array of CIVector (x0, y0, x1, y1)", got: typeName(raw)) }
        var out: [MeshStage.Segment] = []
        for item in list {
            let v: [CGFloat]
            switch item {
            case let x as CIVector: v = (0..<x.count).map { x.value(at: $0) }
            case let x as [CGFloat]: v = x
            case let x as [Double]: v = x.map { CGFloat($0) }
            default: throw .wrongType(filter: args.descriptor.name, key: key, expected: "an array of CIVector (x0, y0, x1, y1)", got: "an array holding \(typeName(item))")
            }
            guard v.count >= 4 else { throw .invalidValue(filter: args.descriptor.name, key: key, reason: "each segment needs 4 values (x0, y0, x1, y1), got \(v.count)") }
            guard v.prefix(4).allSatisfy(\.isFinite) else { throw .nonFinite(filter: args.descriptor.name, key: key) }
            out.append(.init(a: SIMD2(Float(v[0]), Float(v[1])), b: SIMD2(Float(v[2]), Float(v[3]))))
        }
        return out
    }
}

/// What sets CIStripesGenerator and CICheckerboardGenerator apart.
enum TwoColorPattern: Sendable { case stripes, checkerboard }

struct StripesStage: GeneratorStage {
    let centerX: Float, width: Float, sharpness: Float, c0: SIMD4<Float>, c1: SIMD4<Float>
    func generate(_ out: UnsafeMutablePointer<SIMD4<Float>>, count: Int, x: Int, y: Int) {
        let blend = (1 - sharpness) * 0.5
        for i in 0..<count {
            let u = (Float(x + i) + 0.5 - centerX) / width
            let cell = u.rounded(.down)
            let parity: Float = Int(cell) & 1 == 0 ? 1 : -1
            var s = parity
            if blend > 0 { let f = u - cell; s = parity * min(1, min(f, 1 - f) / blend) }
            out[i] = c1 + (c0 - c1) * (0.5 + 0.5 * s)
        }
    }
    var label: String { "stripes" }
}

struct CheckerboardStage: GeneratorStage {
    let center: SIMD2<Float>, width: Float, sharpness: Float, c0: SIMD4<Float>, c1: SIMD4<Float>
    /// +1 or -1 by the parity of the cell along one axis, eased to 0 near the cell's edges.
    @inline(__always) private func wave(_ v: Float) -> Float {
        let u = v / width
        let cell = u.rounded(.down)
        let f = u - cell
        let parity: Float = Int(cell) & 1 == 0 ? 1 : -1
        let blend = (1 - sharpness) * 0.5
        if blend <= 0 { return parity }
        let edge = min(f, 1 - f)  // distance to the nearest edge, in cells
        return parity * min(1, edge / blend)
    }
    func generate(_ out: UnsafeMutablePointer<SIMD4<Float>>, count: Int, x: Int, y: Int) {
        let wy = wave(Float(y) + 0.5 - center.y)
        for i in 0..<count {
            let s = wave(Float(x + i) + 0.5 - center.x) * wy
            let t = 0.5 + 0.5 * s  // 1 -> color0, 0 -> color1
            out[i] = c1 + (c0 - c1) * t
        }
    }
    var label: String { "checkerboard" }
}

/// A rectangle with rounded corners, as a signed distance (negative inside).
struct RoundedRect: Sendable {
    let rect: CGRect
    let minX: Float, minY: Float, maxX: Float, maxY: Float, radius: Float, exponent: Float

    init(rect: CGRect, radius: Float, exponent: Float) {
        self.rect = rect
        minX = Float(rect.minX); minY = Float(rect.minY); maxX = Float(rect.maxX); maxY = Float(rect.maxY)
        self.radius = max(0, min(radius, Float(min(rect.width, rect.height)) / 2))
        self.exponent = exponent
    }

    init(_ args: FilterArguments) throws(CIFilterError) {
        let r = try args.rect(kCIInputExtentKey).standardized
        let smooth = args.descriptor.input("inputSmoothness") != nil ? try args.float("inputSmoothness") : 0
        self.init(rect: r, radius: try args.float(kCIInputRadiusKey), exponent: 2 + 2 * smooth)
    }

    /// Signed distance from (px, py) to the edge; negative inside.
    @inline(__always) func distance(_ px: Float, _ py: Float) -> Float {
        let cx = (minX + maxX) / 2, cy = (minY + maxY) / 2
        let hx = (maxX - minX) / 2 - radius, hy = (maxY - minY) / 2 - radius
        let qx = abs(px - cx) - hx, qy = abs(py - cy) - hy
        if qx <= 0 || qy <= 0 { return max(qx, qy) - radius }
        let len = exponent == 2 ? (qx * qx + qy * qy).squareRoot() : powf(powf(qx, exponent) + powf(qy, exponent), 1 / exponent)
        return len - radius
    }
}

struct RoundedRectStage: GeneratorStage {
    let shape: RoundedRect, color: SIMD4<Float>, strokeWidth: Float?, sigma: Float
    func generate(_ out: UnsafeMutablePointer<SIMD4<Float>>, count: Int, x: Int, y: Int) {
        let py = Float(y) + 0.5
        let k = sigma > 0 ? 1 / (sigma * Float(2).squareRoot()) : 0
        for i in 0..<count {
            let d = shape.distance(Float(x + i) + 0.5, py)
            var a: Float
            if sigma > 0 {
                a = 0.5 * erfcf(d * k)
            } else {
                a = clamp01(0.5 - d)
                if let w = strokeWidth { a -= clamp01(0.5 - (d + w)) }
            }
            out[i] = color * a
        }
    }
    var label: String { strokeWidth != nil ? "rounded rectangle stroke" : sigma > 0 ? "blurred rounded rectangle" : "rounded rectangle" }
}

struct BlurredRectStage: GeneratorStage {
    let rect: RoundedRect, sigma: Float, color: SIMD4<Float>
    /// The fraction of a unit Gaussian around `p` that lies in [lo, hi].
    @inline(__always) func profile(_ p: Float, _ lo: Float, _ hi: Float) -> Float {
        if sigma <= 0 { return clamp01(min(p - lo + 0.5, hi - p + 0.5)) }
        let k = 1 / (sigma * Float(2).squareRoot())
        return 0.5 * (erff((hi - p) * k) - erff((lo - p) * k))
    }
    func generate(_ out: UnsafeMutablePointer<SIMD4<Float>>, count: Int, x: Int, y: Int) {
        let fy = profile(Float(y) + 0.5, rect.minY, rect.maxY)
        for i in 0..<count { out[i] = color * (profile(Float(x + i) + 0.5, rect.minX, rect.maxX) * fy) }
    }
    var label: String { "blurred rectangle" }
}

struct RandomStage: GeneratorStage {
    /// A 32-bit integer hash (lowbias32 by Chris Wellons), well mixed for sequential inputs.
    @inline(__always) static func hash(_ v: UInt32) -> UInt32 {
        var h = v
        h ^= h >> 16; h &*= 0x7FEB_352D
        h ^= h >> 15; h &*= 0x846C_A68B
        h ^= h >> 16
        return h
    }
    /// Uniform in [0, 1) for pixel (x, y), channel c.
    @inline(__always) static func value(_ x: Int, _ y: Int, _ c: Int) -> Float {
        let h = hash(UInt32(truncatingIfNeeded: x) &+ hash(UInt32(truncatingIfNeeded: y) &+ hash(UInt32(c) &+ 0x9E37_79B9)))
        return Float(h >> 8) * (1 / 16_777_216)
    }
    func generate(_ out: UnsafeMutablePointer<SIMD4<Float>>, count: Int, x: Int, y: Int) {
        for i in 0..<count {
            out[i] = SIMD4(Self.value(x + i, y, 0), Self.value(x + i, y, 1), Self.value(x + i, y, 2), Self.value(x + i, y, 3))
        }
    }
    var label: String { "random" }
}

struct MeshStage: GeneratorStage {
    struct Segment: Sendable { let a: SIMD2<Float>, b: SIMD2<Float> }
    let segments: [Segment], halfWidth: Float, color: SIMD4<Float>

    /// Distance from p to the segment.
    @inline(__always) static func distance(_ p: SIMD2<Float>, _ s: Segment) -> Float {
        let d = s.b - s.a, q = p - s.a
        let len2 = (d * d).sum()
        let t = len2 > 0 ? clamp01((q * d).sum() / len2) : 0
        let e = q - d * t
        return (e * e).sum().squareRoot()
    }
    func generate(_ out: UnsafeMutablePointer<SIMD4<Float>>, count: Int, x: Int, y: Int) {
        let py = Float(y) + 0.5
        // Only segments whose band reaches this row.
        let row = segments.filter { min($0.a.y, $0.b.y) - halfWidth - 1 <= py && max($0.a.y, $0.b.y) + halfWidth + 1 >= py }
        for i in 0..<count {
            let p = SIMD2(Float(x + i) + 0.5, py)
            var cover: Float = 0
            for s in row { cover = max(cover, clamp01(halfWidth + 0.5 - Self.distance(p, s))); if cover >= 1 { break } }
            out[i] = color * cover
        }
    }
    var label: String { "mesh of \(segments.count) segments" }
}
