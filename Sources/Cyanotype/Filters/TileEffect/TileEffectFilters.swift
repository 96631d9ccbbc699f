import Foundation

// Tile effects: the image inside one cell at `inputCenter` repeated over the infinite plane by
// a wallpaper group's operations (`SymmetryTileNode`). Apple publishes no formulas; ours are
// the standard constructions, stated per filter. Every output pixel centre p is taken into the
// cell frame, q = R(-angle) (p - center), folded into the fundamental cell, taken back by
// center + R(angle) q', and the input is sampled there bilinearly (premultiplied, clear
// outside the input: clamp the input with `clampedToExtent()` for a cell reaching past its
// edge). The output extent is infinite, as Apple's.
//
// Parameters: NaN or infinite values are a `CIFilterError.nonFinite`; the centre and
// `inputWidth` have declared limits (`cellCentre`, `tileWidth`). An acute angle whose sine is
// below 1e-6 (a flat parallelogram, no lattice) gives an empty image.

extension FilterInputLimit {
    /// A tile's width: 2^-10 ... 2^30 pixels (Apple's minimum is 0, a cell with no size).
    static let tileWidth = FilterInputLimit(minimum: 0x1p-10, maximum: 1_073_741_824, reason: "a cell needs a size, and the renderer addresses pixels within ±2^30")
    /// CIKaleidoscope's mirror count: at most 4096.
    static let kaleidoscopeCount = FilterInputLimit(maximum: 4096, reason: "the count is read as a whole number, and 4096 wedges are already narrower than a pixel out to 1300 pixels from the centre")
    /// CITriangleKaleidoscope's fade per triangle size: 1e-12 ... 1.
    static let triangleDecay = FilterInputLimit(minimum: 1e-12, maximum: 1, reason: "the colour fades by decay^(distance / size), which needs a positive decay, and above 1 would brighten")
    /// CIOpTile's scale: at most 2^20.
    static let opTileScale = FilterInputLimit(maximum: 1_048_576, reason: "beyond it, a square's sample points leave the pixel coordinates the renderer addresses")
}

/// The symmetry a wallpaper tile folds the plane by.
enum WallpaperGroup: Sendable {
    /// The parallelogram cell of `inputAcuteAngle`, translated (p1) or reflected in its sides.
    case parallelogram(reflected: Bool)
    case fourfoldRotated, eightfoldReflected, glideReflected, triangle
    /// Hexagonal cells: p6, p3m1 or p6m.
    case hexagonal(HexagonalSymmetry.Kind)
}

extension BuiltinFilters {
    /// The wallpaper tiles: the image inside one cell at `inputCenter`, `inputWidth` across
    /// and turned by `inputAngle`, repeated over the infinite plane by a wallpaper group's
    /// operations. Every output pixel centre p is taken into the cell frame,
    /// q = R(-angle) (p - center), folded into the fundamental cell, taken back by
    /// center + R(angle) q', and the input is sampled there bilinearly (premultiplied, clear
    /// outside the input: clamp the input with `clampedToExtent()` for a cell reaching past its
    /// edge). The output extent is infinite, as Apple's.
    ///
    /// - inputCenter: The centre of the cell that holds the image.
    /// - inputWidth: The cell's size, in pixels.
    /// - inputAngle: The cell's rotation, in radians.
    static let wallpaperTiles = BuiltinFilter.family([
        /// CIFourfoldTranslatedTile (p1): the parallelogram cell {s a + t b : s, t in [-1/2, 1/2)}
        /// centred on `center`, with a = width (1, 0) and b = width (cos acute, sin acute) in the
        /// cell frame, repeated by the lattice translations (s and t reduced modulo 1).
        (Catalog.CIFourfoldTranslatedTile, WallpaperGroup.parallelogram(reflected: false)),
        /// CIFourfoldReflectedTile: the same parallelogram cell as CIFourfoldTranslatedTile, reflected
        /// in its sides: each lattice coordinate s, t folded by a triangle wave into [-1/2, 1/2]
        /// (mirrors at every half-integer). With the default right acute angle this is pmm, four
        /// copies (identity, mirrored left-right, top-bottom, both) in each 2 x 2 block of cells.
        (Catalog.CIFourfoldReflectedTile, .parallelogram(reflected: true)),
        /// CIFourfoldRotatedTile (p4): square cells of side `width`, the one at the centre holding
        /// the image; four cells meet at each cell corner, each a quarter-turn from its neighbour
        /// about that corner (period 2 width).
        (Catalog.CIFourfoldRotatedTile, .fourfoldRotated),
        /// CIEightfoldReflectedTile (p4m): the square of side `width` centred on `center`, folded by
        /// its mirrors (its axes and diagonals, the dihedral group of order 8) into the triangle
        /// (0, 0), (w/2, 0), (w/2, w/2) of the cell frame, and mirrored in its sides (period width).
        (Catalog.CIEightfoldReflectedTile, .eightfoldReflected),
        /// CISixfoldRotatedTile (p6): hexagons of circumradius `width` (6-fold centres `width` *
        /// sqrt(3) apart, one at `center`), each the equilateral triangle (0, 0), (w, 0),
        /// w (1/2, sqrt(3)/2) of the cell frame turned six times by 60 degrees about its hexagon's
        /// centre.
        (Catalog.CISixfoldRotatedTile, .hexagonal(.p6)),
        /// CISixfoldReflectedTile (p3m1): the equilateral triangle (0, 0), (w, 0), w (1/2, sqrt(3)/2)
        /// of the cell frame reflected in its sides; six copies, alternately mirrored, meet at every
        /// vertex (the hexagons of CISixfoldRotatedTile, with mirrors at 0, 60 and 120 degrees).
        (Catalog.CISixfoldReflectedTile, .hexagonal(.p3m1)),
        /// CITwelvefoldReflectedTile (p6m): the 30-60-90 triangle (0, 0), (w, 0), w (3/4, sqrt(3)/4)
        /// of the cell frame reflected in its sides; twelve copies (mirrors every 30 degrees) fill
        /// each hexagon of CISixfoldRotatedTile.
        (Catalog.CITwelvefoldReflectedTile, .hexagonal(.p6m)),
        /// CIGlideReflectedTile (pg): square cells of side `width` centred on (i w, j w) in the cell
        /// frame, translated; the cells of odd columns are mirrored top to bottom (a glide
        /// reflection: a step of `width` along the angle with a flip across it).
        (Catalog.CIGlideReflectedTile, .glideReflected),
        /// CIParallelogramTile: the parallelogram of CIFourfoldReflectedTile (sides `width` along the
        /// angle and `width` at `inputAcuteAngle` to it, centred on `center`) reflected in its sides
        /// and so repeated over the plane; the same construction as CIFourfoldReflectedTile.
        (Catalog.CIParallelogramTile, .parallelogram(reflected: true)),
        /// CITriangleTile (p2): the equilateral triangle of side `width` with its centroid on
        /// `center`, one side along the angle, repeated by the translations of its sides' vectors;
        /// the triangles between, pointing the other way, are its half-turns about its sides'
        /// midpoints.
        (Catalog.CITriangleTile, .triangle),
    ], limits: [kCIInputCenterKey: .cellCentre, kCIInputWidthKey: .tileWidth]) { args, group throws(CIFilterError) in
        let (image, center, angle, width) = try tileParameters(args)
        switch group {
        case .parallelogram(let reflected):
            let acute = try args.number("inputAcuteAngle")
            let sinA = sin(acute), cosA = cos(acute)
            guard abs(sinA) >= 1e-6 else { return .empty() }
            return tile(image, ParallelogramSymmetry(width: width, cosA: cosA, sinA: sinA, reflected: reflected), center, angle)
        case .fourfoldRotated: return tile(image, FourfoldRotatedSymmetry(width: width), center, angle)
        case .eightfoldReflected: return tile(image, EightfoldReflectedSymmetry(width: width), center, angle)
        case .hexagonal(let kind): return tile(image, HexagonalSymmetry(width: width, kind: kind), center, angle)
        case .glideReflected: return tile(image, GlideReflectedSymmetry(width: width), center, angle)
        case .triangle: return tile(image, TriangleTileSymmetry(width: width), center, angle)
        }
    }

    /// CIKaleidoscope: mirrors through `center` every 180 / count degrees (the dihedral group of
    /// order 2 count); each pixel's polar angle, measured from `angle`, is reflected into the
    /// wedge [0, 180 / count] degrees, its distance from the centre kept.
    ///
    /// - inputCount: The number of mirrors, rounded to a whole number.
    static let kaleidoscope = BuiltinFilter(Catalog.CIKaleidoscope, limits: ["inputCount": .kaleidoscopeCount, kCIInputCenterKey: .cellCentre]) { args throws(CIFilterError) in
        let image = try args.image()
        let c = try args.point(kCIInputCenterKey)
        let angle = try args.number(kCIInputAngleKey)
        let count = Int(try args.number("inputCount").rounded())
        return tile(image, KaleidoscopeSymmetry(count: count), SIMD2(Double(c.x), Double(c.y)), angle)
    }

    /// CITriangleKaleidoscope: the equilateral triangle of side `inputSize` with its centroid
    /// on `inputPoint`, rotated by `inputRotation`, reflected in its sides (the p3m1 group of
    /// CISixfoldReflectedTile); the colour (not the alpha) is then scaled by
    /// `decay^(d / size)`, d the pixel's distance from `inputPoint`, so it fades away from the
    /// central triangle.
    ///
    /// - inputPoint: The central triangle's centroid.
    /// - inputSize: The triangle's side, in pixels.
    /// - inputDecay: How much the colour keeps per triangle size of distance (1: no fade).
    static let triangleKaleidoscope = BuiltinFilter(Catalog.CITriangleKaleidoscope,
                                                    limits: ["inputPoint": .cellCentre, "inputSize": .tileWidth, "inputDecay": .triangleDecay]) { args throws(CIFilterError) in
        let image = try args.image()
        let p = try args.point("inputPoint")
        let size = try args.number("inputSize")
        let rotation = try args.number("inputRotation")
        let decay = try args.number("inputDecay")
        if image.extent.isEmpty { return .empty() }
        let point = SIMD2(Double(p.x), Double(p.y))
        // The p3m1 cell's triangle has a vertex at the origin and its centroid at
        // (size / 2, size sqrt(3) / 6): put that centroid on the point.
        let gx = size / 2, gy = size * 3.0.squareRoot() / 6
        let origin = point - SIMD2(cos(rotation) * gx - sin(rotation) * gy, sin(rotation) * gx + cos(rotation) * gy)
        return CIImage(node: SymmetryTileNode(input: image.node, symmetry: HexagonalSymmetry(width: size, kind: .p3m1),
                                              center: origin, angle: rotation, fadeRate: -log(decay) / size, fadeCenter: point))
    }

    /// CIOpTile: squares of side `width` on a grid through `center` along the angle; each shows
    /// the image around its own centre m scaled by 1 / `inputScale` (pixel m + o reads the input
    /// at m + scale o, so scale 1 is the image itself and 0 fills each square with the colour at
    /// its centre).
    static let opTile = BuiltinFilter(Catalog.CIOpTile, limits: [kCIInputCenterKey: .cellCentre, kCIInputWidthKey: .tileWidth, kCIInputScaleKey: .opTileScale]) { args throws(CIFilterError) in
        let (image, center, angle, width) = try tileParameters(args)
        let scale = try args.number(kCIInputScaleKey)
        return tile(image, OpTileSymmetry(width: width, scale: scale), center, angle)
    }
}

/// The input, centre, angle and width every tile effect takes (centre and width limited as
/// each declares: `cellCentre`, `tileWidth`).
private func tileParameters(_ args: FilterArguments) throws(CIFilterError) -> (CIImage, SIMD2<Double>, Double, Double) {
    let image = try args.image()
    let c = try args.point(kCIInputCenterKey)
    let angle = try args.number(kCIInputAngleKey)
    let width = try args.number(kCIInputWidthKey)
    return (image, SIMD2(Double(c.x), Double(c.y)), angle, width)
}

private func tile<S: TileSymmetry>(_ image: CIImage, _ symmetry: S, _ center: SIMD2<Double>, _ angle: Double) -> CIImage {
    if image.extent.isEmpty { return .empty() }
    return CIImage(node: SymmetryTileNode(input: image.node, symmetry: symmetry, center: center, angle: angle))
}
