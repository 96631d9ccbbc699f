// Perspective: homographies through four corner points, and the straighten rotation.

/// The four corner inputs every four-point geometry filter shares.
private func corners(_ args: FilterArguments) throws(CIFilterError) -> (bl: CGPoint, br: CGPoint, tr: CGPoint, tl: CGPoint) {
    (
        try args.point("inputBottomLeft"), try args.point("inputBottomRight"),
        try args.point("inputTopRight"), try args.point("inputTopLeft")
    )
}

/// `image` through `h` (input to output): its extent is the image of the input's extent.
func projected(_ image: CIImage, _ h: Homography) -> CIImage {
    if h == .identity { return image }
    let e = image.extent
    let out = e.isInfiniteOrHuge ? CGRect.infinite : h.mappedExtent(e)
    if out.isEmpty { return .empty() }
    return CIImage(node: WarpNode(input: image.node, map: ProjectiveMap(forward: h), extent: out))
}

extension BuiltinFilters {
    /// CIPerspectiveTransform: the projective map taking the image's extent corners to the
    /// four points (bottom-left to `inputBottomLeft`, and so on; y up). Output extent: the
    /// bounding box of the four points. Collinear or coincident points, or an infinite
    /// image (no corners to move), give an empty image.
    static let perspectiveTransform = BuiltinFilter(Catalog.CIPerspectiveTransform) { args throws(CIFilterError) in
        let image = try args.image()
        let c = try corners(args)
        guard !image.extent.isInfiniteOrHuge,
            let h = Homography(rect: image.extent, bottomLeft: c.bl, bottomRight: c.br, topRight: c.tr, topLeft: c.tl)
        else { return .empty() }
        return projected(image, h)
    }

    /// CIPerspectiveTransformWithExtent: the projective map taking the corners of
    /// `inputExtent` to the four points, applied to the whole image (which may be larger than
    /// the rectangle, or infinite). Output extent: the image of the input's extent.
    static let perspectiveTransformWithExtent = BuiltinFilter(Catalog.CIPerspectiveTransformWithExtent) { args throws(CIFilterError) in
        let image = try args.image()
        let rect = try args.rect(kCIInputExtentKey).standardized
        let c = try corners(args)
        guard let h = Homography(rect: rect, bottomLeft: c.bl, bottomRight: c.br, topRight: c.tr, topLeft: c.tl)
        else { return .empty() }
        return projected(image, h)
    }

    /// CIPerspectiveCorrection: the inverse map, taking the quadrilateral of the four points
    /// to an upright rectangle whose width is the longer of the top and bottom edges and
    /// height the longer of the left and right edges, with its bottom-left corner at
    /// `inputBottomLeft`. With `inputCrop` the output is that rectangle; without it, the whole
    /// image goes through the same map.
    static let perspectiveCorrection = BuiltinFilter(Catalog.CIPerspectiveCorrection, geometry: .uprightRectangle) { args throws(CIFilterError) in
        let image = try args.image()
        let c = try corners(args)
        let crop = try args.bool("inputCrop")
        func dist(_ p: CGPoint, _ q: CGPoint) -> Double { Double(hypot(p.x - q.x, p.y - q.y)) }
        let width = max(dist(c.tl, c.tr), dist(c.bl, c.br)), height = max(dist(c.bl, c.tl), dist(c.br, c.tr))
        let rect = CGRect(x: c.bl.x, y: c.bl.y, width: width, height: height)
        guard width.isFinite, height.isFinite,
            let toQuad = Homography(rect: rect, bottomLeft: c.bl, bottomRight: c.br, topRight: c.tr, topLeft: c.tl)
        else { return .empty() }
        let h = toQuad.inverse
        guard h.isInvertible else { return .empty() }
        if !crop { return projected(image, h) }
        return CIImage(node: WarpNode(input: image.node, map: ProjectiveMap(forward: h), extent: rect))
    }

    /// CIStraightenFilter: rotates the image about its centre by `inputAngle` (radians,
    /// counter-clockwise) and scales it up just enough that it covers its own extent with no
    /// empty corners; the output keeps the input's extent. The edges are clamped before the
    /// rotation, so the corners carry no soft clear fringe. An infinite image is only rotated
    /// (about the origin).
    static let straighten = BuiltinFilter(Catalog.CIStraightenFilter, geometry: .uprightRectangle) { args throws(CIFilterError) in
        let image = try args.image()
        let angle = try args.number(kCIInputAngleKey)
        if angle == 0 { return image }
        let e = image.extent
        if e.isInfiniteOrHuge { return image.transformed(by: CGAffineTransform(rotationAngle: angle)) }
        if e.isEmpty { return .empty() }
        let t = straightenTransform(extent: e, angle: angle)
        return image.clampedToExtent().transformed(by: t).cropped(to: e)
    }
}

/// Rotation by `angle` about the centre of `extent`, scaled by |cos| + max(w/h, h/w) |sin|:
/// the smallest scale at which the rotated rectangle still covers the upright one.
func straightenTransform(extent e: CGRect, angle: Double) -> CGAffineTransform {
    let w = Double(e.width), h = Double(e.height)
    let s = abs(cos(angle)) + max(w / h, h / w) * abs(sin(angle))
    return CGAffineTransform(translationX: -e.midX, y: -e.midY)
        .concatenating(CGAffineTransform(scaleX: s, y: s))
        .concatenating(CGAffineTransform(rotationAngle: angle))
        .concatenating(CGAffineTransform(translationX: e.midX, y: e.midY))
}

extension BuiltinFilters {
    /// CIBicubicScaleTransform: scales by `inputScale` vertically and `inputScale *
    /// inputAspectRatio` horizontally with the Mitchell-Netravali cubic of `inputB` and
    /// `inputC` (widened when shrinking, so no aliasing). Output extent: the input's, scaled.
    /// A zero scale gives an empty image.
    static let bicubicScaleTransform = BuiltinFilter(Catalog.CIBicubicScaleTransform, geometry: .uprightRectangle) { args throws(CIFilterError) in
        let image = try args.image()
        let s = try args.number(kCIInputScaleKey), a = try args.number(kCIInputAspectRatioKey)
        let b = try args.number("inputB"), c = try args.number("inputC")
        if s <= 0 || a <= 0 || image.extent.isEmpty { return .empty() }
        // B = 0 interpolates: at scale 1 every output pixel is its source pixel.
        if s == 1 && a == 1 && b == 0 { return image }
        return CIImage(node: bicubicScaled(image.node, sx: s * a, sy: s, b: b, c: c))
    }
}

/// CIBicubicScaleTransform's resampling, in stages of at most 16x per axis (one output pixel
/// never reads more than about 64x64 source pixels).
func bicubicScaled(_ node: RecipeNode, sx: Double, sy: Double, b: Double, c: Double) -> RecipeNode {
    BicubicScaleNode.staged(node, kernel: MitchellNetravali(b: b, c: c), sx: sx, sy: sy)
}

/// A single bicubic resampling.
typealias BicubicScaleNode = ResamplingNode<MitchellNetravali>

extension ResamplingNode where Kernel == MitchellNetravali {
    convenience init(input: RecipeNode, scaleX: Double, scaleY: Double, b: Double, c: Double) {
        self.init(input: input, kernel: MitchellNetravali(b: b, c: c), scaleX: scaleX, scaleY: scaleY)
    }
}

/// The Mitchell-Netravali cubic with parameters B and C (B = 0, C = 0.5 is Catmull-Rom;
/// B = C = 1/3 is Mitchell's recommendation); support [-2, 2].
struct MitchellNetravali: ResamplingKernel {
    let b: Double, c: Double
    var support: Double { 2 }
    @inline(__always) func weight(_ x: Double) -> Double {
        let t = abs(x)
        if t < 1 { return ((12 - 9 * b - 6 * c) * t * t * t + (-18 + 12 * b + 6 * c) * t * t + (6 - 2 * b)) / 6 }
        if t < 2 { return ((-b - 6 * c) * t * t * t + (6 * b + 30 * c) * t * t + (-12 * b - 48 * c) * t + (8 * b + 24 * c)) / 6 }
        return 0
    }
    var label: String { "bicubic B=\(b) C=\(c)" }
}
