/// Porter-Duff and W3C blend modes over premultiplied colour: the row holds the source
/// (foreground), `extra[0]` the backdrop (background).
struct BlendStage: ColorStage {
    enum Mode: String { case sourceOver, multiply }
    let mode: Mode
    var extraInputCount: Int { 1 }
    var wantsUnpremultiplied: Bool { false }

    static let sourceOver = BlendStage(mode: .sourceOver)
    static let multiply = BlendStage(mode: .multiply)

    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        let bg = extra[0]
        switch mode {
        case .sourceOver:
            for i in 0..<count {
                let s = row[i], b = bg[i]
                row[i] = s + b * (1 - s.w)
            }
        case .multiply:
            // co = cs(1 - ab) + cb(1 - as) + cs*cb; alpha = as + ab - as*ab.
            for i in 0..<count {
                let s = row[i], b = bg[i]
                var o = s * (1 - b.w) + b * (1 - s.w) + s * b
                o.w = s.w + b.w - s.w * b.w
                row[i] = o
            }
        }
    }
    var label: String { mode.rawValue }
}

extension BuiltinFilters {
    /// CISourceOverCompositing: the image over the background (Porter-Duff source-over).
    static let sourceOverCompositing = BuiltinFilter(Catalog.CISourceOverCompositing) { args throws(CIFilterError) in
        let image = try args.image(), background = try args.image(kCIInputBackgroundImageKey)
        return image.applying(BlendStage.sourceOver, extras: [background], extent: image.extent.union(background.extent))
    }
    /// CIMultiplyBlendMode: W3C multiply, B(cb, cs) = cb * cs, with source-over alpha.
    static let multiplyBlendMode = BuiltinFilter(Catalog.CIMultiplyBlendMode) { args throws(CIFilterError) in
        let image = try args.image(), background = try args.image(kCIInputBackgroundImageKey)
        return image.applying(BlendStage.multiply, extras: [background], extent: image.extent.union(background.extent))
    }
}
