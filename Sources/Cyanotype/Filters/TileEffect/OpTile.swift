import Foundation

extension BuiltinFilters {
    /// CIOpTile: squares of side `width` on a grid through `center` along the angle; each shows
    /// the image around its own centre m scaled by 1 / `inputScale` (pixel m + o reads the input
    /// at m + scale o, so scale 1 is the image itself and 0 fills each square with the colour at
    /// its centre). `inputScale` is limited to [0, 2^20].
    static let opTile = BuiltinFilter(Catalog.CIOpTile, limits: [kCIInputCenterKey: .cellCentre, kCIInputWidthKey: .tileWidth, kCIInputScaleKey: .opTileScale]) {
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
