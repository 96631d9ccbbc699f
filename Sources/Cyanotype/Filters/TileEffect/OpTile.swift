import Foundation

extension BuiltinFilters {
    /// CIOpTile: Op-art tiling: segments, scales and rotates pieces of the image.
    static let opTile = BuiltinFilter(
        FilterDescriptor(
            "CIOpTile", "Op Tile", "Op-art tiling: segments, scales and rotates pieces of the image.",
            categories: [.builtIn, .highDynamicRange, .stillImage, .tileEffect, .video], macOS: "10.4", iOS: "9", factory: "opTile",
            doc: """
                Squares of side `width` on a grid through `center` along the angle; each shows
                the image around its own centre m scaled by 1 / `inputScale` (pixel m + o reads the input
                at m + scale o, so scale 1 is the image itself and 0 fills each square with the colour at
                its centre). `inputScale` is limited to [0, 2^20].
                """,
            inputs: [
                .image(),
                .vector("inputCenter", "Center", .position, default: [150, 150], limit: .cellCentre),
                .number("inputScale", "Scale", .scalar, default: 2.8, identity: 1, min: 0, slider: 0.1...10, limit: .opTileScale),
                .number("inputAngle", "Angle", .angle, default: 0, identity: 0, slider: -3.141592653589793...3.141592653589793),
                .number("inputWidth", "Width", .distance, default: 65, identity: 65, min: 0, slider: 1...1000, limit: .tileWidth),
            ])
    ) {
        args throws(CIFilterError) in
        let (image, center, angle, width) = try tileParameters(args)
        let scale = try args.number(kCIInputScaleKey)
        return tile(image, OpTileSymmetry(width: width, scale: scale), center, angle)
    }
}

/// Op art tiles: squares of side w centred on (i w, j w); a pixel at offset o from its
/// square's centre m reads the input at m + scale * o (each square shows the image around its
/// own centre, scaled by 1 / scale). Not a symmetry group: every square reads its own region.
struct OpTileSymmetry: PlaneFold {
    var frame = FoldFrame()
    let width: Double, scale: Double

    @inline(__always) func fold(_ x: Double, _ y: Double) -> (Double, Double) {
        let mx = width * (x / width + 0.5).rounded(.down), my = width * (y / width + 0.5).rounded(.down)
        return (mx + scale * (x - mx), my + scale * (y - my))
    }
    var cellVertices: [(Double, Double)]? { nil }
    var reach: Double { (1 + scale) * width * 0.75 }
    var name: String { "op tile \(scale)" }
}
