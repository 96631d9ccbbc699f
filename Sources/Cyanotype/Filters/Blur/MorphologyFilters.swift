// Morphology (dilation, erosion, gradient) and the median: rank neighbourhood operations (the
// engine's `NeighbourhoodNode` runs them). The morphology filters are one family (formula and
// element shapes in its declaration); their reaches are limited to 250 pixels, as the Gaussian
// blur limits its sigma.

extension FilterInputLimit {
    /// A disc's radius: at most 250 pixels, so a tile and its halo stay within memory;
    /// Core Image's slider stops at 50. Negative radii are 0 (Apple sets no minimum).
    static let morphologyRadius = FilterInputLimit(
        minimum: 0, maximum: 250, reason: "a tile reads its input with a halo of the radius, and past 250 pixels that halo outgrows memory")
    /// A rectangle's side: at most 501 pixels (a reach of 250); Core Image's slider stops at 49.
    static let morphologySide = FilterInputLimit(maximum: 501, reason: "a tile reads its input with a halo of half the side, and past 501 pixels that halo outgrows memory")
}

/// The structuring element of a morphology filter, and what it computes.
enum MorphologyElement: Sendable {
    /// Every integer offset within `inputRadius` of the pixel.
    case disc(MorphologyOperation)
    /// `inputWidth` x `inputHeight` pixels (rounded to whole pixels; an even side reaches one
    /// pixel further right or up).
    case rectangle(isMaximum: Bool)
}

extension BuiltinFilters {
    /// The family of CIMorphologyMaximum, CIMorphologyMinimum, CIMorphologyGradient and 2 more: one implementation, a table per filter.
    static let morphology = BuiltinFilter.family(
        doc: """
            Morphology: the maximum (dilation), minimum (erosion) or their difference (gradient) of
            each component over a structuring element, on premultiplied working-space pixels.
            Apple documents the elements but no formula; ours are the standard ones:
            `maximum(x, y)` is the maximum over the offsets `(dx, dy)` of the element of
            `in(x + dx, y + dy)`, the minimum likewise; the disc is every integer offset with
            `dx² + dy² <= radius²` (radius below 1: the pixel alone, so maximum and minimum are the
            identity); the gradient is maximum minus minimum on red, green and blue, with the
            maximum's alpha (an opaque image gives opaque edges on black). Pixels outside the input
            read as clear (clamp the input first for solid edges, as with Core Image). Extents: a
            maximum or gradient grows by the element's reach, like a blur; a minimum keeps the
            input's extent (it is clear outside).
            """,
        categories: [.blur, .builtIn, .highDynamicRange, .stillImage, .video],
        [
            (
                FilterDescriptor(
                    "CIMorphologyMaximum", "Morphology Maximum", "Morphological dilation with a circular element.",
                    macOS: "10.13", iOS: "11", factory: "morphologyMaximum",
                    doc: "Dilation with a disc of `radius`.",
                    inputs: [
                        .image(),
                        .number("inputRadius", "Radius", .distance, default: 0, identity: 0, slider: 0...50, limit: .morphologyRadius, "The disc's radius, in pixels."),
                    ]),
                MorphologyElement.disc(.maximum)
            ),
            (
                FilterDescriptor(
                    "CIMorphologyMinimum", "Morphology Minimum", "Morphological erosion with a circular element.",
                    macOS: "10.13", iOS: "11", factory: "morphologyMinimum",
                    doc: "Erosion with a disc of `radius`.",
                    inputsLike: "CIMorphologyMaximum"),
                .disc(.minimum)
            ),
            (
                FilterDescriptor(
                    "CIMorphologyGradient", "Morphology Gradient", "Morphological gradient (dilation minus erosion) with a circular element; edge finder.",
                    macOS: "10.13", iOS: "11", factory: "morphologyGradient",
                    doc: "Dilation minus erosion with a disc of `radius` (an edge finder).",
                    inputs: [
                        .image(),
                        .number("inputRadius", "Radius", .distance, default: 5, identity: 0, min: 0, slider: 0...50, limit: .morphologyRadius, "The disc's radius, in pixels."),
                    ]),
                .disc(.gradient)
            ),
            (
                FilterDescriptor(
                    "CIMorphologyRectangleMaximum", "Morphology Rectangle Maximum", "Morphological dilation with a rectangular element.",
                    macOS: "10.15", iOS: "13", factory: "morphologyRectangleMaximum",
                    doc: "Dilation with a `width` x `height` rectangle.",
                    inputs: [
                        .image(),
                        .number(
                            "inputWidth", "Width", .integer, default: 5, identity: 1, min: 1, slider: 1...49, limit: .morphologySide,
                            "The rectangle's width, in pixels (rounded)."),
                        .number(
                            "inputHeight", "Height", .integer, default: 5, identity: 1, min: 1, slider: 1...49, limit: .morphologySide,
                            "The rectangle's height, in pixels (rounded)."),
                    ]),
                .rectangle(isMaximum: true)
            ),
            (
                FilterDescriptor(
                    "CIMorphologyRectangleMinimum", "Morphology Rectangle Minimum", "Morphological erosion with a rectangular element.",
                    macOS: "10.15", iOS: "13", factory: "morphologyRectangleMinimum",
                    doc: "Erosion with a `width` x `height` rectangle.",
                    inputsLike: "CIMorphologyRectangleMaximum"),
                .rectangle(isMaximum: false)
            ),
        ]
    ) { args, element throws(CIFilterError) in
        switch element {
        case .disc(let operation): try diskMorphology(args, operation)
        case .rectangle(let isMaximum): try rectangleMorphology(args, isMaximum: isMaximum)
        }
    }

    /// CIMedianFilter: Median filter over a small pixel neighbourhood (noise reduction).
    static let median = BuiltinFilter(
        FilterDescriptor(
            "CIMedianFilter", "Median", "Median filter over a small pixel neighbourhood (noise reduction).",
            categories: [.blur, .builtIn, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "9", factory: "median", protocol: "CIMedian",
            doc: """
                The per-component median of each pixel's 3x3 neighbourhood (Apple
                documents a median over a small neighbourhood; 3x3 is what it uses). The extent is the
                input's.
                """,
            inputs: [
                .image()
            ]),
        reach: .pixels(1)
    ) { args throws(CIFilterError) in
        let image = try args.image()
        return CIImage(node: NeighbourhoodNode(input: image.node, operation: Median3x3()))
    }
}

private func diskMorphology(_ args: FilterArguments, _ operation: MorphologyOperation) throws(CIFilterError) -> CIImage {
    let image = try args.image()
    let radius = try args.number(kCIInputRadiusKey)
    // Below 1 the disc is the pixel alone: maximum and minimum are the identity.
    if radius < 1 && operation != .gradient { return image }
    return CIImage(node: NeighbourhoodNode(input: image.node, operation: DiskMorphology(radius: radius, operation: operation)))
}

private func rectangleMorphology(_ args: FilterArguments, isMaximum: Bool) throws(CIFilterError) -> CIImage {
    let image = try args.image()
    func side(_ key: String) throws(CIFilterError) -> Int {
        Int(try args.number(key).rounded())
    }
    let w = try side(kCIInputWidthKey), h = try side("inputHeight")
    if w == 1 && h == 1 { return image }
    return CIImage(node: NeighbourhoodNode(input: image.node, operation: RectangleMorphology(width: w, height: h, isMaximum: isMaximum)))
}

/// Which extreme a morphology pass keeps; a generic parameter, so the loops specialise
/// (no closure or existential per pixel).
protocol RankExtreme {
    /// The identity of `pick` (the value every accumulator starts at).
    static var start: SIMD4<Float> { get }
    /// The per-component extreme of two pixels.
    static func pick(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float>
}

enum RankMaximum: RankExtreme {
    static var start: SIMD4<Float> { SIMD4(repeating: -.infinity) }
    // `replacing(with:where:)` compiles to compare + blend; `pointwiseMax` calls out per lane.
    @inline(__always) static func pick(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> { a.replacing(with: b, where: b .> a) }
}

enum RankMinimum: RankExtreme {
    static var start: SIMD4<Float> { SIMD4(repeating: .infinity) }
    @inline(__always) static func pick(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> { a.replacing(with: b, where: b .< a) }
}

/// What a morphology node outputs.
enum MorphologyOperation: Sendable {
    case maximum, minimum
    /// Maximum minus minimum on red, green and blue; alpha is the maximum's alpha.
    case gradient
}

/// Morphology with a disc: the structuring element is every offset (dx, dy) with
/// dx² + dy² <= radius², so radius 1 is a plus sign, 1.5 a 3x3 square.
///
/// Cost O(radius) per pixel: for each source row the horizontal extremes over half-widths
/// 0, 1, 2, ... are built incrementally (two comparisons per step), and each half-width is
/// folded into the output rows whose disc chord at that row has that half-width.
struct DiskMorphology: NeighbourhoodOperation {
    let radius: Double
    let operation: MorphologyOperation
    /// `halfWidths[a]`: half the chord of the disc `a` rows from its centre.
    let halfWidths: [Int]
    var reachInPixels: Int { halfWidths.count - 1 }
    var reach: NeighbourhoodReach { NeighbourhoodReach(reachInPixels) }

    init(radius: Double, operation: MorphologyOperation) {
        let reach = Int(radius.rounded(.down))
        self.radius = radius
        self.operation = operation
        self.halfWidths = (0...reach).map { a in Int((radius * radius - Double(a * a)).squareRoot().rounded(.down)) }
    }

    /// A minimum is clear wherever the disc reaches outside the input, so it stays inside it.
    func extent(of input: CGRect) -> CGRect {
        let r = CGFloat(reachInPixels)
        let grows = operation != .minimum && !input.isInfinite
        return grows ? input.insetBy(dx: -r, dy: -r) : input
    }

    func apply(_ input: NeighbourhoodInput, into out: TileBuffer) {
        let rect = input.rect
        switch operation {
        case .maximum: accumulate(RankMaximum.self, input.pixels, rect, out)
        case .minimum: accumulate(RankMinimum.self, input.pixels, rect, out)
        case .gradient:
            accumulate(RankMaximum.self, input.pixels, rect, out)
            let low = PixelBlock(rect: rect)
            accumulate(RankMinimum.self, input.pixels, rect, low.buffer)
            for oy in 0..<rect.height {
                let d = out.row(oy), m = low.buffer.row(oy)
                for x in 0..<rect.width {
                    var v = d[x] - m[x]
                    v.w = d[x].w
                    d[x] = v
                }
            }
        }
    }

    private func accumulate<E: RankExtreme>(_: E.Type, _ block: TileBuffer, _ rect: PixelRect, _ out: TileBuffer) {
        let r = reachInPixels, w = rect.width, h = rect.height, sw = block.rowStride
        for oy in 0..<h { out.row(oy).update(repeating: E.start, count: w) }
        let level = PixelBlock(rect: PixelRect(x: 0, y: 0, width: w, height: 1))
        let lv = level.pixels
        halfWidths.withUnsafeBufferPointer { hwp in
            for s in 0..<block.height {
                // Pixel of output column x in this source row: c[x].
                let c = block.base + s * sw + r
                lv.update(from: c, count: w)
                var hw = 0
                var a = r
                while a >= 0 {
                    let target = hwp[a]
                    while hw < target {
                        hw += 1
                        let left = c - hw, right = c + hw
                        for x in 0..<w { lv[x] = E.pick(E.pick(lv[x], left[x]), right[x]) }
                    }
                    // Source row s is `a` rows above output row s - r - a and below s - r + a.
                    let above = s - r - a, below = s - r + a
                    if above >= 0 && above < h {
                        let d = out.row(above)
                        for x in 0..<w { d[x] = E.pick(d[x], lv[x]) }
                    }
                    if a != 0 && below >= 0 && below < h {
                        let d = out.row(below)
                        for x in 0..<w { d[x] = E.pick(d[x], lv[x]) }
                    }
                    a -= 1
                }
            }
        }
    }

    var label: String { "morphology \(operation) (disc radius \(radius))" }
}

/// Morphology with a `width x height` rectangle, separably (a row pass, then a column pass).
/// The rectangle covers offsets `-left...right` across and `-down...up` in Core Image's y-up
/// coordinates, with `left = (width - 1) / 2`, `right = width / 2` (an even width reaches one
/// pixel further right) and likewise `down = (height - 1) / 2`, `up = height / 2`.
struct RectangleMorphology: NeighbourhoodOperation {
    let width: Int, height: Int
    let isMaximum: Bool
    var left: Int { (width - 1) / 2 }
    var right: Int { width / 2 }
    var down: Int { (height - 1) / 2 }
    var up: Int { height / 2 }
    var reach: NeighbourhoodReach { NeighbourhoodReach(left: left, right: right, below: down, above: up) }

    /// A maximum spreads each input pixel over the reflected rectangle; a minimum is clear
    /// wherever the rectangle reaches outside the input, so it stays inside it.
    func extent(of input: CGRect) -> CGRect {
        var e = input
        if isMaximum && !e.isInfinite {
            let l = CGFloat(width / 2), rt = CGFloat((width - 1) / 2), d = CGFloat(height / 2), u = CGFloat((height - 1) / 2)
            e = CGRect(x: e.minX - l, y: e.minY - d, width: e.width + l + rt, height: e.height + d + u)
        }
        return e
    }

    func apply(_ input: NeighbourhoodInput, into out: TileBuffer) {
        if isMaximum { run(RankMaximum.self, input, out) } else { run(RankMinimum.self, input, out) }
    }

    private func run<E: RankExtreme>(_: E.Type, _ input: NeighbourhoodInput, _ out: TileBuffer) {
        let rect = input.rect, src = input.pixels
        let w = rect.width, sw = src.rowStride, l = left, rt = right
        // Row pass into `across` (all source rows, output columns).
        let across = PixelBlock(rect: PixelRect(x: rect.minX, y: rect.minY - down, width: w, height: src.height))
        for s in 0..<src.height {
            let c = src.base + s * sw + l, d = across.buffer.row(s)
            d.update(from: c, count: w)
            var k = 1
            while k <= l { let p = c - k; for x in 0..<w { d[x] = E.pick(d[x], p[x]) }; k += 1 }
            k = 1
            while k <= rt { let p = c + k; for x in 0..<w { d[x] = E.pick(d[x], p[x]) }; k += 1 }
        }
        // Column pass: output row oy reads `across` rows oy ... oy + down + up.
        for oy in 0..<rect.height {
            let d = out.row(oy)
            d.update(from: across.buffer.row(oy), count: w)
            var k = 1
            while k < height { let p = across.buffer.row(oy + k); for x in 0..<w { d[x] = E.pick(d[x], p[x]) }; k += 1 }
        }
    }

    var label: String { "morphology \(isMaximum ? "maximum" : "minimum") (rectangle \(width)x\(height))" }
}

/// CIMedianFilter: the per-component median of the 3x3 neighbourhood, by Paeth's 19-exchange
/// network (each exchange a compare-and-blend on all four components at once).
struct Median3x3: NeighbourhoodRowOperation {
    var reach: NeighbourhoodReach { NeighbourhoodReach(1) }

    @inline(__always) private func order(_ a: inout SIMD4<Float>, _ b: inout SIMD4<Float>) {
        let swap = b .< a
        let lo = a.replacing(with: b, where: swap)
        b = b.replacing(with: a, where: swap)
        a = lo
    }

    func run(_ m: UnsafeMutablePointer<SIMD4<Float>>, stride sw: Int, into d: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
        let lo = m - sw, hi = m + sw
        for x in 0..<count {
            var p0 = lo[x - 1], p1 = lo[x], p2 = lo[x + 1]
            var p3 = m[x - 1], p4 = m[x], p5 = m[x + 1]
            var p6 = hi[x - 1], p7 = hi[x], p8 = hi[x + 1]
            order(&p1, &p2); order(&p4, &p5); order(&p7, &p8)
            order(&p0, &p1); order(&p3, &p4); order(&p6, &p7)
            order(&p1, &p2); order(&p4, &p5); order(&p7, &p8)
            order(&p0, &p3); order(&p5, &p8); order(&p4, &p7)
            order(&p3, &p6); order(&p1, &p4); order(&p2, &p5)
            order(&p4, &p7); order(&p4, &p2); order(&p6, &p4)
            order(&p4, &p2)
            d[x] = p4
        }
    }

    var label: String { "median 3x3" }
}
