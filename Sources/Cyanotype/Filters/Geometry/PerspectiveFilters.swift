// Perspective: homographies through four corner points, and the straighten rotation.

/// The four corner inputs every four-point geometry filter shares.
private func corners(_ args: FilterArguments) throws(CIFilterError) -> (bl: CGPoint, br: CGPoint, tr: CGPoint, tl: CGPoint) {
    (
        try args.point("inputBottomLeft"), try args.point("inputBottomRight"),
        try args.point("inputTopRight"), try args.point("inputTopLeft")
    )
}

/// The projective map taking the corners of `rect` to the filter's four points (bottom-left to
/// `inputBottomLeft`, and so on); nil when the points are collinear or coincide.
func cornerHomography(_ args: FilterArguments, from rect: CGRect) throws(CIFilterError) -> Homography? {
    let c = try corners(args)
    return Homography(rect: rect, bottomLeft: c.bl, bottomRight: c.br, topRight: c.tr, topLeft: c.tl)
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
    /// CIPerspectiveTransform: Maps the image onto a quadrilateral given by four corners.
    static let perspectiveTransform = BuiltinFilter(
        FilterDescriptor(
            "CIPerspectiveTransform", "Perspective Transform", "Maps the image onto a quadrilateral given by four corners.",
            categories: [.builtIn, .geometryAdjustment, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "6", factory: "perspectiveTransform",
            doc: """
                The projective map taking the image's extent corners to the
                four points (bottom-left to `inputBottomLeft`, and so on; y up). Output extent: the
                bounding box of the four points. Collinear or coincident points, or an infinite
                image (no corners to move), give an empty image.
                """,
            inputs: [
                .image(),
                .vector("inputTopLeft", "Top Left", .position, default: [118, 484]),
                .vector("inputTopRight", "Top Right", .position, default: [646, 507]),
                .vector("inputBottomRight", "Bottom Right", .position, default: [548, 140]),
                .vector("inputBottomLeft", "Bottom Left", .position, default: [155, 153]),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let h = try cornerHomography(args, from: image.extent)
        guard !image.extent.isInfiniteOrHuge, let h else { return .empty() }
        return projected(image, h)
    }

    /// CIPerspectiveTransformWithExtent: Perspective transform where the mapping is defined relative to a given extent.
    static let perspectiveTransformWithExtent = BuiltinFilter(
        FilterDescriptor(
            "CIPerspectiveTransformWithExtent", "Perspective Transform with Extent", "Perspective transform where the mapping is defined relative to a given extent.",
            categories: [.builtIn, .geometryAdjustment, .highDynamicRange, .stillImage, .video], macOS: "10.4", iOS: "6", factory: "perspectiveTransformWithExtent",
            doc: """
                The projective map taking the corners of
                `inputExtent` to the four points, applied to the whole image (which may be larger than
                the rectangle, or infinite). Output extent: the image of the input's extent.
                """,
            inputs: [
                .image(),
                .vector("inputExtent", "Extent", .rectangle, default: [0, 0, 300, 300]),
                .vector("inputTopLeft", "Top Left", .position, default: [118, 484]),
                .vector("inputTopRight", "Top Right", .position, default: [646, 507]),
                .vector("inputBottomRight", "Bottom Right", .position, default: [548, 140]),
                .vector("inputBottomLeft", "Bottom Left", .position, default: [155, 153]),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let rect = try args.rect(kCIInputExtentKey).standardized
        guard let h = try cornerHomography(args, from: rect) else { return .empty() }
        return projected(image, h)
    }

    /// CIPerspectiveCorrection: Maps a quadrilateral given by four corners onto a rectangle (deskew).
    static let perspectiveCorrection = BuiltinFilter(
        FilterDescriptor(
            "CIPerspectiveCorrection", "Perspective Correction", "Maps a quadrilateral given by four corners onto a rectangle (deskew).",
            categories: [.builtIn, .geometryAdjustment, .highDynamicRange, .stillImage, .video], macOS: "10.10", iOS: "8", factory: "perspectiveCorrection",
            doc: """
                The inverse map, taking the quadrilateral of the four points
                to an upright rectangle whose width is the longer of the top and bottom edges and
                height the longer of the left and right edges, with its bottom-left corner at
                `inputBottomLeft`. With `inputCrop` the output is that rectangle; without it, the whole
                image goes through the same map.
                """,
            inputs: [
                .image(),
                .vector("inputTopLeft", "Top Left", .position, default: [118, 484]),
                .vector("inputTopRight", "Top Right", .position, default: [646, 507]),
                .vector("inputBottomRight", "Bottom Right", .position, default: [548, 140]),
                .vector("inputBottomLeft", "Bottom Left", .position, default: [155, 153]),
                .bool("inputCrop", "Crop", default: true, min: 0, max: 1),
            ]),
        geometry: .uprightRectangle
    ) { args throws(CIFilterError) in
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

    /// CIStraightenFilter: Rotates the image by an angle and scales it to avoid empty corners.
    static let straighten = BuiltinFilter(
        FilterDescriptor(
            "CIStraightenFilter", "Straighten", "Rotates the image by an angle and scales it to avoid empty corners.",
            categories: [.builtIn, .geometryAdjustment, .highDynamicRange, .stillImage, .video], macOS: "10.7", iOS: "5", factory: "straighten", protocol: "CIStraighten",
            doc: """
                Rotates the image about its centre by `inputAngle` (radians,
                counter-clockwise) and scales it up just enough that it covers its own extent with no
                empty corners; the output keeps the input's extent. The edges are clamped before the
                rotation, so the corners carry no soft clear fringe. An infinite image is only rotated
                (about the origin).
                """,
            inputs: [
                .image(),
                .number("inputAngle", "Angle", .angle, default: 0, identity: 0, slider: -3.141592653589793...3.141592653589793),
            ]),
        geometry: .uprightRectangle
    ) { args throws(CIFilterError) in
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
    /// CIBicubicScaleTransform: Resamples the image with a bicubic kernel controlled by B and C parameters.
    static let bicubicScaleTransform = BuiltinFilter(
        FilterDescriptor(
            "CIBicubicScaleTransform", "Bicubic Scale Transform", "Resamples the image with a bicubic kernel controlled by B and C parameters.",
            categories: [.builtIn, .geometryAdjustment, .highDynamicRange, .nonSquarePixels, .stillImage, .video],
            macOS: "10.13", iOS: "11", factory: "bicubicScaleTransform",
            doc: """
                Scales by `inputScale` vertically and `inputScale *
                inputAspectRatio` horizontally with the Mitchell-Netravali cubic of `inputB` and
                `inputC` (widened when shrinking, so no aliasing). Output extent: the input's, scaled.
                A zero scale gives an empty image.
                """,
            inputs: [
                .image(),
                .number("inputScale", "Scale", .scalar, default: 1, identity: 1, min: 0, slider: 0.05...100),
                .number("inputAspectRatio", "Aspect Ratio", .scalar, default: 1, identity: 1, min: 0, slider: 0.5...2),
                .number("inputB", "B", .scalar, default: 0, min: 0, max: 1, slider: 0...1),
                .number("inputC", "C", .scalar, default: 0.75, min: 0, max: 1, slider: 0...1),
            ]),
        geometry: .uprightRectangle
    ) { args throws(CIFilterError) in
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
