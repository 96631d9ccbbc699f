// Nine-part (nine-slice) scaling: the breakpoints cut the image into a 3x3 grid; the corners
// keep their size, the middle band of each axis grows by the grow amount, stretched or tiled.
// One warp, separable: each output coordinate's source coordinate from its own value.

/// One axis of a nine-part map: output coordinate -> source coordinate.
struct NinePartAxis: Sendable, Equatable {
    /// The middle band in the source: [a, a + m).
    let a: Double, m: Double
    /// The middle band's width in the output: [a, a + grown).
    let grown: Double
    /// Repeat the band instead of stretching it.
    let tiled: Bool
    /// Mirror every other repeat (tiled only).
    let mirrored: Bool

    /// Breakpoints `p0`, `p1` (in either order, limited to `lo...hi`) and the growth `grow`
    /// (the band cannot shrink below nothing).
    init(_ p0: Double, _ p1: Double, lo: Double, hi: Double, grow: Double, tiled: Bool, mirrored: Bool) {
        let s = min(max(min(p0, p1), lo), hi), e = min(max(max(p0, p1), lo), hi)
        a = s; m = e - s
        grown = max(0, m + grow)
        self.tiled = tiled; self.mirrored = mirrored
    }

    /// How much longer the axis gets.
    var growth: Double { grown - m }

    @inline(__always) func source(_ v: Double) -> Double {
        let d = v - a
        if d < 0 { return v }
        if d >= grown { return v - growth }
        if grown == m { return v }  // no growth: the band as it is
        if !tiled || m <= 0 { return grown > 0 ? a + d * (m / grown) : a }
        let k = (d / m).rounded(.down)
        var f = d - k * m
        if f >= m { f = 0 }
        if mirrored, Int(k.truncatingRemainder(dividingBy: 2)) != 0 { f = m - f }
        return a + f
    }

    /// Bounds of the source coordinates of [lo, hi]: the ends' when the map is monotone over
    /// it (stretched, or within one repeat), else the band's too.
    func bounds(_ lo: Double, _ hi: Double) -> (Double, Double) {
        var s0 = min(source(lo), source(hi)), s1 = max(source(lo), source(hi))
        if tiled, m > 0, hi >= a, lo < a + grown, grown != m {
            let k0 = ((max(lo, a) - a) / m).rounded(.down), k1 = ((min(hi, a + grown) - a) / m).rounded(.down)
            if k0 != k1 || lo < a || hi >= a + grown { s0 = min(s0, a); s1 = max(s1, a + m) }
        }
        return (s0, s1)
    }
}

/// CINinePartStretched and CINinePartTiled: one `NinePartAxis` per axis.
struct NinePartMap: WarpMap {
    let x: NinePartAxis, y: NinePartAxis

    @inline(__always) func source(_ px: Double, _ py: Double) -> (Double, Double)? { (x.source(px), y.source(py)) }

    func sourceBounds(_ box: PointBox) -> PointBox? {
        let (x0, x1) = x.bounds(box.minX, box.maxX), (y0, y1) = y.bounds(box.minY, box.maxY)
        return PointBox(minX: x0, minY: y0, maxX: x1, maxY: y1)
    }

    var label: String {
        "nine-part \(x.tiled ? "tiled" : "stretched") x [\(x.a), +\(x.m) -> \(x.grown)] y [\(y.a), +\(y.m) -> \(y.grown)]"
            + (y.mirrored ? " flipped y" : "")
    }
}

extension FilterInputLimit {
    /// The nine-part filters' grow amount, per axis.
    static let ninePartGrowth = FilterInputLimit(
        minimum: -1_073_741_824, maximum: 1_073_741_824,
        reason: "the renderer addresses pixels within ±2^30, and a larger growth would leave them")
}

extension BuiltinFilters {
    /// The family of CINinePartStretched, CINinePartTiled: one implementation, a table per filter.
    static let nineParts = BuiltinFilter.family(
        doc: """
            The nine-part filters: the breakpoints (limited to the image's extent) cut the image
            into a 3x3 grid: columns left of `breakpoint0.x`, between the two, right of
            `breakpoint1.x`, and rows likewise. The middle column grows by `growAmount.x` and the
            middle row by `growAmount.y` (a negative amount shrinks them, at most to nothing); the
            corners keep their pixels and the outer columns and rows move out by the growth. Output
            extent: the input's, with the growth added to its width and height (right and top
            edges move). Pixels are sampled bilinearly, so whole-pixel breakpoints keep the
            corners exact and zero growth is the identity. An image without a finite extent is
            returned unchanged.
            """,
        categories: [.builtIn, .distortionEffect, .highDynamicRange, .stillImage, .video],
        [
            (
                FilterDescriptor(
                    "CINinePartStretched", "Nine Part Stretched", "Nine-slice scaling that stretches the middle regions between two breakpoints.",
                    macOS: "10.12", iOS: "10", factory: "ninePartStretched",
                    doc: """
                        The middle column and row are stretched (a linear map from
                        the grown band onto the band).
                        """,
                    inputs: [
                        .image(),
                        .vector("inputBreakpoint0", "Breakpoint0", .position, default: [50, 50], "The lower-left corner of the middle part."),
                        .vector("inputBreakpoint1", "Breakpoint1", .position, default: [150, 150], "The upper-right corner of the middle part."),
                        .vector(
                            "inputGrowAmount", "Grow Amount", .offset, default: [100, 100], limit: .ninePartGrowth,
                            "How much wider (x) and taller (y) the middle part gets, in pixels."),
                    ]),
                false
            ),
            (
                FilterDescriptor(
                    "CINinePartTiled", "Nine Part Tiled", "Nine-slice scaling that tiles the middle regions between two breakpoints.",
                    macOS: "10.12", iOS: "10", factory: "ninePartTiled",
                    doc: """
                        The middle column and row are repeated from their start (whole
                        repeats first, the last one cut); with `flipYTiles`, every other repeat along y is
                        mirrored, so neighbouring repeats meet without a seam.
                        """,
                    inputs: [
                        .image(),
                        .vector("inputBreakpoint0", "Breakpoint0", .position, default: [50, 50], "The lower-left corner of the middle part."),
                        .vector("inputBreakpoint1", "Breakpoint1", .position, default: [150, 150], "The upper-right corner of the middle part."),
                        .vector(
                            "inputGrowAmount", "Grow Amount", .offset, default: [100, 100], limit: .ninePartGrowth,
                            "How much wider (x) and taller (y) the middle part gets, in pixels."),
                        .bool("inputFlipYTiles", "Flip Y Tiles", default: true, min: 0, max: 1),
                    ]),
                true
            ),
        ]
    ) { args, tiled throws(CIFilterError) in
        let image = try args.image()
        let e = image.extent
        if e.isEmpty { return .empty() }
        if e.isInfiniteOrHuge { return image }
        let b0 = try args.point("inputBreakpoint0"), b1 = try args.point("inputBreakpoint1"), g = try args.point("inputGrowAmount")
        let flip = tiled && args.descriptor.input("inputFlipYTiles") != nil ? try args.bool("inputFlipYTiles") : false
        let x = NinePartAxis(Double(b0.x), Double(b1.x), lo: Double(e.minX), hi: Double(e.maxX), grow: Double(g.x), tiled: tiled, mirrored: false)
        let y = NinePartAxis(Double(b0.y), Double(b1.y), lo: Double(e.minY), hi: Double(e.maxY), grow: Double(g.y), tiled: tiled, mirrored: flip)
        let out = CGRect(x: e.minX, y: e.minY, width: e.width + CGFloat(x.growth), height: e.height + CGFloat(y.growth))
        if out.isEmpty { return .empty() }
        return warped(image, NinePartMap(x: x, y: y), extent: out)
    }
}
