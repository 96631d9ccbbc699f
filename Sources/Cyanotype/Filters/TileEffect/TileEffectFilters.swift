import Foundation

// Tile effects: the image inside one cell at `inputCenter` repeated over the infinite plane by
// a wallpaper group's operations: the engine's fold kind (`FoldNode`), each filter's file
// supplying its `PlaneFold`. Apple publishes no formulas; ours are
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
    static let kaleidoscopeCount = FilterInputLimit(
        maximum: 4096, reason: "the count is read as a whole number, and 4096 wedges are already narrower than a pixel out to 1300 pixels from the centre")
    /// CITriangleKaleidoscope's fade per triangle size: 1e-12 ... 1.
    static let triangleDecay = FilterInputLimit(
        minimum: 1e-12, maximum: 1, reason: "the colour fades by decay^(distance / size), which needs a positive decay, and above 1 would brighten")
    /// CIOpTile's scale: at most 2^20.
    static let opTileScale = FilterInputLimit(maximum: 1_048_576, reason: "beyond it, a square's sample points leave the pixel coordinates the renderer addresses")
}

/// The input, centre, angle and width every tile effect takes (centre and width limited as
/// each declares: `cellCentre`, `tileWidth`).
func tileParameters(_ args: FilterArguments) throws(CIFilterError) -> (CIImage, SIMD2<Double>, Double, Double) {
    let image = try args.image()
    let c = try args.point(kCIInputCenterKey)
    let angle = try args.number(kCIInputAngleKey)
    let width = try args.number(kCIInputWidthKey)
    return (image, SIMD2(Double(c.x), Double(c.y)), angle, width)
}

/// The tile effects that take only the common parameters: `fold` makes the fold for the width.
func tiled<Fold: PlaneFold>(_ args: FilterArguments, _ fold: (Double) -> Fold) throws(CIFilterError) -> CIImage {
    let (image, center, angle, width) = try tileParameters(args)
    return tile(image, fold(width), center, angle)
}

/// The infinite tiling of `image` by `symmetry`, its cell frame at `center` turned by `angle`.
func tile<S: PlaneFold>(_ image: CIImage, _ symmetry: S, _ center: SIMD2<Double>, _ angle: Double) -> CIImage {
    if image.extent.isEmpty { return .empty() }
    return CIImage(node: FoldNode(input: image.node, map: symmetry.placed(at: center, angle: angle), extent: .infinite))
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
    /// The family of CIFourfoldTranslatedTile, CIFourfoldReflectedTile, CIFourfoldRotatedTile and 7 more: one implementation, a table per filter.
    static let wallpaperTiles = BuiltinFilter.family(
        doc: """
            The wallpaper tiles, one family (each group's fold in its own file): the image inside one cell at `inputCenter`, `inputWidth` across
            and turned by `inputAngle`, repeated over the infinite plane by a wallpaper group's
            operations. Every output pixel centre p is taken into the cell frame,
            q = R(-angle) (p - center), folded into the fundamental cell, taken back by
            center + R(angle) q', and the input is sampled there bilinearly (premultiplied, clear
            outside the input: clamp the input with `clampedToExtent()` for a cell reaching past its
            edge). The output extent is infinite, as Apple's.
            """,
        categories: [.builtIn, .highDynamicRange, .stillImage, .tileEffect, .video],
        [
            (
                FilterDescriptor(
                    "CIFourfoldTranslatedTile", "Fourfold Translated Tile", "Tiles the image using four translated copies.",
                    macOS: "10.5", iOS: "6", factory: "fourfoldTranslatedTile",
                    doc: """
                        CIFourfoldTranslatedTile (p1): the parallelogram cell {s a + t b : s, t in [-1/2, 1/2)}
                        centred on `center`, with a = width (1, 0) and b = width (cos acute, sin acute) in the
                        cell frame, repeated by the lattice translations (s and t reduced modulo 1).
                        """,
                    inputs: [
                        .image(),
                        .vector("inputCenter", "Center", .position, default: [150, 150], limit: .cellCentre, "The centre of the cell that holds the image."),
                        .number("inputAngle", "Angle", .angle, default: 0, identity: 0, slider: -3.141592653589793...3.141592653589793, "The cell's rotation, in radians."),
                        .number("inputWidth", "Width", .distance, default: 100, identity: 100, min: 0, slider: 1...200, limit: .tileWidth, "The cell\'s size, in pixels."),
                        .number("inputAcuteAngle", "Acute Angle", .angle, default: 1.5707963267948966, identity: 1.570796326794897, slider: -3.141592653589793...3.141592653589793),
                    ]),
                WallpaperGroup.parallelogram(reflected: false)
            ),
            (
                FilterDescriptor(
                    "CIFourfoldReflectedTile", "Fourfold Reflected Tile", "Tiles the image with 4-way reflective symmetry.",
                    macOS: "10.5", iOS: "6", factory: "fourfoldReflectedTile",
                    doc: """
                        The same parallelogram cell as CIFourfoldTranslatedTile, reflected
                        in its sides: each lattice coordinate s, t folded by a triangle wave into [-1/2, 1/2]
                        (mirrors at every half-integer). With the default right acute angle this is pmm, four
                        copies (identity, mirrored left-right, top-bottom, both) in each 2 x 2 block of cells.
                        """,
                    inputsLike: "CIFourfoldTranslatedTile"),
                .parallelogram(reflected: true)
            ),
            (
                FilterDescriptor(
                    "CIFourfoldRotatedTile", "Fourfold Rotated Tile", "Tiles the image by rotating copies in 90-degree steps.",
                    macOS: "10.5", iOS: "6", factory: "fourfoldRotatedTile",
                    doc: """
                        CIFourfoldRotatedTile (p4): square cells of side `width`, the one at the centre holding
                        the image; four cells meet at each cell corner, each a quarter-turn from its neighbour
                        about that corner (period 2 width).
                        """,
                    inputs: [
                        .image(),
                        .vector("inputCenter", "Center", .position, default: [150, 150], limit: .cellCentre, "The centre of the cell that holds the image."),
                        .number("inputAngle", "Angle", .angle, default: 0, identity: 0, slider: -3.141592653589793...3.141592653589793, "The cell's rotation, in radians."),
                        .number("inputWidth", "Width", .distance, default: 100, identity: 100, min: 0, slider: 1...200, limit: .tileWidth, "The cell\'s size, in pixels."),
                    ]),
                .fourfoldRotated
            ),
            (
                FilterDescriptor(
                    "CIEightfoldReflectedTile", "Eightfold Reflected Tile", "Tiles the image with 8-way reflective symmetry.",
                    macOS: "10.5", iOS: "6", factory: "eightfoldReflectedTile",
                    doc: """
                        CIEightfoldReflectedTile (p4m): the square of side `width` centred on `center`, folded by
                        its mirrors (its axes and diagonals, the dihedral group of order 8) into the triangle
                        (0, 0), (w/2, 0), (w/2, w/2) of the cell frame, and mirrored in its sides (period width).
                        """,
                    inputsLike: "CIFourfoldRotatedTile"),
                .eightfoldReflected
            ),
            (
                FilterDescriptor(
                    "CISixfoldRotatedTile", "Sixfold Rotated Tile", "Tiles the image by rotating copies in 60-degree steps.",
                    macOS: "10.5", iOS: "6", factory: "sixfoldRotatedTile",
                    doc: """
                        CISixfoldRotatedTile (p6): hexagons of circumradius `width` (6-fold centres `width` *
                        sqrt(3) apart, one at `center`), each the equilateral triangle (0, 0), (w, 0),
                        w (1/2, sqrt(3)/2) of the cell frame turned six times by 60 degrees about its hexagon's
                        centre.
                        """,
                    inputsLike: "CIFourfoldRotatedTile"),
                .hexagonal(.p6)
            ),
            (
                FilterDescriptor(
                    "CISixfoldReflectedTile", "Sixfold Reflected Tile", "Tiles the image with 6-way reflective symmetry.",
                    macOS: "10.5", iOS: "6", factory: "sixfoldReflectedTile",
                    doc: """
                        CISixfoldReflectedTile (p3m1): the equilateral triangle (0, 0), (w, 0), w (1/2, sqrt(3)/2)
                        of the cell frame reflected in its sides; six copies, alternately mirrored, meet at every
                        vertex (the hexagons of CISixfoldRotatedTile, with mirrors at 0, 60 and 120 degrees).
                        """,
                    inputsLike: "CIFourfoldRotatedTile"),
                .hexagonal(.p3m1)
            ),
            (
                FilterDescriptor(
                    "CITwelvefoldReflectedTile", "Twelvefold Reflected Tile", "Tiles the image with 12-way reflective symmetry.",
                    macOS: "10.5", iOS: "6", factory: "twelvefoldReflectedTile",
                    doc: """
                        CITwelvefoldReflectedTile (p6m): the 30-60-90 triangle (0, 0), (w, 0), w (3/4, sqrt(3)/4)
                        of the cell frame reflected in its sides; twelve copies (mirrors every 30 degrees) fill
                        each hexagon of CISixfoldRotatedTile.
                        """,
                    inputsLike: "CIFourfoldRotatedTile"),
                .hexagonal(.p6m)
            ),
            (
                FilterDescriptor(
                    "CIGlideReflectedTile", "Glide Reflected Tile", "Tiles the image with glide-reflection symmetry.",
                    macOS: "10.5", iOS: "6", factory: "glideReflectedTile",
                    doc: """
                        CIGlideReflectedTile (pg): square cells of side `width` centred on (i w, j w) in the cell
                        frame, translated; the cells of odd columns are mirrored top to bottom (a glide
                        reflection: a step of `width` along the angle with a flip across it).
                        """,
                    inputsLike: "CIFourfoldRotatedTile"),
                .glideReflected
            ),
            (
                FilterDescriptor(
                    "CIParallelogramTile", "Parallelogram Tile", "Reflects the image within a parallelogram and tiles it.",
                    macOS: "10.4", iOS: "9", factory: "parallelogramTile",
                    doc: """
                        The parallelogram of CIFourfoldReflectedTile (sides `width` along the
                        angle and `width` at `inputAcuteAngle` to it, centred on `center`) reflected in its sides
                        and so repeated over the plane; the same construction as CIFourfoldReflectedTile.
                        """,
                    inputs: [
                        .image(),
                        .vector("inputCenter", "Center", .position, default: [150, 150], limit: .cellCentre, "The centre of the cell that holds the image."),
                        .number("inputAngle", "Angle", .angle, default: 0, identity: 0, slider: -3.141592653589793...3.141592653589793, "The cell's rotation, in radians."),
                        .number("inputAcuteAngle", "Acute Angle", .angle, default: 1.5707963267948966, identity: 1.570796326794897, slider: -3.141592653589793...3.141592653589793),
                        .number("inputWidth", "Width", .distance, default: 100, identity: 100, min: 0, slider: 1...200, limit: .tileWidth, "The cell\'s size, in pixels."),
                    ]),
                .parallelogram(reflected: true)
            ),
            (
                FilterDescriptor(
                    "CITriangleTile", "Triangle Tile", "Tiles a triangular region of the image.",
                    macOS: "10.4", iOS: "9", factory: "triangleTile",
                    doc: """
                        CITriangleTile (p2): the equilateral triangle of side `width` with its centroid on
                        `center`, one side along the angle, repeated by the translations of its sides' vectors;
                        the triangles between, pointing the other way, are its half-turns about its sides'
                        midpoints.
                        """,
                    inputs: [
                        .image(),
                        .vector("inputCenter", "Center", .position, default: [150, 150], limit: .cellCentre, "The centre of the cell that holds the image."),
                        .number("inputAngle", "Angle", .angle, default: 0, identity: 0, slider: -3.141592653589793...3.141592653589793, "The cell's rotation, in radians."),
                        .number("inputWidth", "Width", .distance, default: 100, min: 0, slider: 1...200, limit: .tileWidth, "The cell\'s size, in pixels."),
                    ]),
                .triangle
            ),
        ]
    ) { args, group throws(CIFilterError) in
        switch group {
        case .parallelogram(let reflected): try parallelogramCells(args, reflected: reflected)
        case .fourfoldRotated: try tiled(args) { FourfoldRotatedSymmetry(width: $0) }
        case .eightfoldReflected: try tiled(args) { EightfoldReflectedSymmetry(width: $0) }
        case .hexagonal(let kind): try tiled(args) { HexagonalSymmetry(width: $0, kind: kind) }
        case .glideReflected: try tiled(args) { GlideReflectedSymmetry(width: $0) }
        case .triangle: try tiled(args) { TriangleTileSymmetry(width: $0) }
        }
    }
}
