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
// Parameters: NaN or infinite values are a `CIFilterError.nonFinite`; the centre is limited to
// ±2^40; `inputWidth` below 2^-10 (the spec's minimum is 0, a cell with no size) is 2^-10,
// above 2^30 it is 2^30. An acute angle whose sine is below 1e-6 (a flat parallelogram, no
// lattice) gives an empty image.

/// The input, centre (±2^40), angle and width (2^-10 ... 2^30) every tile effect takes.
func tileParameters(_ args: FilterArguments) throws(CIFilterError) -> (CIImage, SIMD2<Double>, Double, Double) {
    let image = try args.image()
    let c = try args.point(kCIInputCenterKey)
    let angle = try args.number(kCIInputAngleKey)
    let width = min(max(try args.number(kCIInputWidthKey), 1.0 / 1024), Double(PixelRect.limit))
    return (image, SIMD2(cellCoordinate(Double(c.x)), cellCoordinate(Double(c.y))), angle, width)
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
