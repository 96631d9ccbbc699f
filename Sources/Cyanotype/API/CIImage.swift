/// EXIF orientations, with Core Graphics' names.
public enum CGImagePropertyOrientation: UInt32, Sendable, CaseIterable {
    /// 1: the stored pixels are upright as they are.
    case up = 1
    /// 2: the stored pixels are mirrored left to right.
    case upMirrored = 2
    /// 3: the stored pixels are turned 180 degrees.
    case down = 3
    /// 4: the stored pixels are mirrored top to bottom.
    case downMirrored = 4
    /// 5: the stored pixels are mirrored left to right and turned 90 degrees anticlockwise.
    case leftMirrored = 5
    /// 6: the stored pixels are turned 90 degrees anticlockwise (shown turned clockwise).
    case right = 6
    /// 7: the stored pixels are mirrored left to right and turned 90 degrees clockwise.
    case rightMirrored = 7
    /// 8: the stored pixels are turned 90 degrees clockwise (shown turned anticlockwise).
    case left = 8
}

/// An image as an immutable, lazy recipe: a source, or operations over other images. Nothing
/// is computed until a `CIContext` renders it, and then only the pixels asked for.
/// Coordinates are Core Image's: origin at the bottom left, y up.
public final class CIImage: @unchecked Sendable, CustomStringConvertible {
    let node: RecipeNode
    private let storedProperties: [String: Any]
    /// The file the image was read from, if any.
    public let url: URL?

    init(node: RecipeNode, properties: [String: Any] = [:], url: URL? = nil) {
        self.node = node
        self.storedProperties = properties
        self.url = url
    }

    /// The rectangle the image covers; `CGRect.infinite` for generators and clamped images.
    public var extent: CGRect { node.extent }
    /// Metadata from the file (pixel size, orientation, DPI, profile, EXIF ...).
    public var properties: [String: Any] { storedProperties }
    /// The extent and the recipe's top node, as the optimiser renders it.
    public var description: String {
        let shown = (try? Optimizer.optimize(node, Optimizer.Options(loadSources: false)))?.root ?? node
        return "CIImage(extent: \(extent), \(shown.label))"
    }

    // MARK: Sources

    /// An infinite image of one colour.
    public convenience init(color: CIColor) {
        self.init(node: ConstantColorNode(color: color.workingValue, unmanaged: color.unmanagedValue))
    }
    /// Pixels in memory, top row first, in `format` (premultiplied, Core Image's convention)
    /// and `colorSpace` (nil: no colour conversion). An unusable buffer gives an empty image.
    public convenience init(bitmapData data: Data, bytesPerRow: Int, size: CGSize, format: CIFormat, colorSpace: CGColorSpace?) {
        self.init(node: CIImage.bitmap(data, bytesPerRow, size, format, colorSpace, premultiplied: true))
    }
    /// Pixels in memory with straight (unpremultiplied) alpha, as files store them.
    public convenience init(unpremultipliedBitmapData data: Data, bytesPerRow: Int, size: CGSize, format: CIFormat, colorSpace: CGColorSpace?) {
        self.init(node: CIImage.bitmap(data, bytesPerRow, size, format, colorSpace, premultiplied: false))
    }

    /// A bitmap source, or the empty image for a size or buffer that cannot be used (NaN,
    /// negative or absurd sizes, short buffers) -- never a trap.
    private static func bitmap(_ data: Data, _ bytesPerRow: Int, _ size: CGSize, _ format: CIFormat, _ colorSpace: CGColorSpace?, premultiplied: Bool) -> RecipeNode {
        let limit = CGFloat(PixelRect.limit)
        guard size.width.isFinite, size.height.isFinite, size.width >= 1, size.height >= 1, size.width <= limit, size.height <= limit
        else { return emptyNode }
        return BitmapNode(
            data: data, bytesPerRow: bytesPerRow, width: Int(size.width), height: Int(size.height), format: format,
            colorSpace: colorSpace, premultiplied: premultiplied) ?? emptyNode
    }
    #if !canImport(CoreGraphics)
    /// The pixels of a bitmap made by `CIContext.createCGImage` (or a `CGContext`, or bytes).
    public convenience init(cgImage: CGImage) { self.init(cgImage: cgImage, options: nil) }
    /// The pixels of `cgImage`; `options[.colorSpace]` says which space they are in instead of
    /// the image's own (a `CGColorSpace`, or `NSNull()`: no colour management, values as stored).
    public convenience init(cgImage: CGImage, options: [CIImageOption: Any]?) {
        var space = cgImage.colorSpace
        if let given = options?[.colorSpace] {
            if given is NSNull { space = nil } else if let s = given as? CGColorSpace { space = s }
        }
        if let n = BitmapNode(
            data: cgImage.data, bytesPerRow: cgImage.bytesPerRow, width: cgImage.width, height: cgImage.height,
            format: cgImage.format, colorSpace: space, premultiplied: cgImage.isPremultiplied)
        {
            self.init(node: n)
        } else {
            self.init(node: CIImage.emptyNode)
        }
    }
    #endif

    static let emptyNode = CropNode(input: ConstantColorNode(color: .zero), rect: .zero)
    /// An image with no pixels (empty extent).
    public static func empty() -> CIImage { CIImage(node: emptyNode) }

    /// An infinite image of opaque black.
    public static var black: CIImage { CIImage(color: .black) }
    /// An infinite image of opaque white.
    public static var white: CIImage { CIImage(color: .white) }
    /// An infinite image of opaque mid grey.
    public static var gray: CIImage { CIImage(color: .gray) }
    /// An infinite image of opaque red.
    public static var red: CIImage { CIImage(color: .red) }
    /// An infinite image of opaque green.
    public static var green: CIImage { CIImage(color: .green) }
    /// An infinite image of opaque blue.
    public static var blue: CIImage { CIImage(color: .blue) }
    /// An infinite image of opaque cyan.
    public static var cyan: CIImage { CIImage(color: .cyan) }
    /// An infinite image of opaque magenta.
    public static var magenta: CIImage { CIImage(color: .magenta) }
    /// An infinite image of opaque yellow.
    public static var yellow: CIImage { CIImage(color: .yellow) }
    /// An infinite image of transparent black.
    public static var clear: CIImage { CIImage(color: .clear) }

    /// The same image with `properties` replaced (Core Image's `settingProperties(_:)`).
    public func settingProperties(_ properties: [String: Any]) -> CIImage {
        CIImage(node: node, properties: properties, url: url)
    }

    // MARK: Geometry

    /// The part of the image inside `rect`: an infinite `rect` keeps the whole image, an empty or
    /// non-finite one gives the empty image. A crop of a crop is one crop.
    public func cropped(to rect: CGRect) -> CIImage {
        if rect.isInfinite { return self }
        if rect.isNull || rect.isEmpty || !rect.origin.x.isFinite || !rect.origin.y.isFinite { return .empty() }
        // Nothing to cut: the same recipe, so colour work on either side still fuses.
        if !extent.isInfinite && !extent.isNull && rect.contains(extent) { return self }
        // A crop of a crop is one crop, merged as the image is made (the optimiser's
        // `mergeCrops`), as the extent of the result (an empty one's too) is public.
        return CIImage(node: Optimizer.cropped(node, to: rect), properties: storedProperties, url: url)
    }

    /// The image through an affine transform, sampled bilinearly (or nearest after
    /// `samplingNearest()`). Consecutive transforms are concatenated into one resampling.
    public func transformed(by t: CGAffineTransform) -> CIImage {
        guard [t.a, t.b, t.c, t.d, t.tx, t.ty].allSatisfy(\.isFinite), t.a * t.d - t.b * t.c != 0 else { return .empty() }
        if t.isIdentity { return self }
        // Concatenated as the image is made (the optimiser's `mergeTransforms`), as the extent
        // of the result is that of the concatenated transform.
        return CIImage(node: Optimizer.transformed(node, by: t), properties: storedProperties, url: url)
    }
    /// As `transformed(by:)`; downsampling by more than 2x uses a Lanczos filter when asked.
    public func transformed(by t: CGAffineTransform, highQualityDownsample: Bool) -> CIImage {
        if highQualityDownsample, t.b == 0, t.c == 0, t.a > 0, t.d > 0, t.a < 0.5 || t.d < 0.5 {
            let scaled = CIImage(node: LanczosScaleNode(input: node, scaleX: Double(t.a), scaleY: Double(t.d)), properties: storedProperties, url: url)
            return scaled.transformed(by: CGAffineTransform(translationX: t.tx, y: t.ty))
        }
        return transformed(by: t)
    }

    /// Edge pixels repeated out to infinity (use before blurs to avoid clear borders).
    public func clampedToExtent() -> CIImage { clamped(to: extent) }
    /// The pixels inside `rect` with its edge pixels repeated out to infinity (an infinite `rect`
    /// clamps to the image's extent).
    public func clamped(to rect: CGRect) -> CIImage {
        if extent.isInfinite && rect.isInfinite { return self }
        return CIImage(node: ClampNode(input: node, rect: rect.isInfinite ? extent : rect), properties: storedProperties, url: url)
    }

    /// The same image, sampled by nearest neighbour where a later transform or warp resamples it.
    public func samplingNearest() -> CIImage { CIImage(node: SamplingNode(input: unwrappedSampling, mode: .nearest), properties: storedProperties, url: url) }
    /// The same image, sampled bilinearly where a later transform or warp resamples it (the default).
    public func samplingLinear() -> CIImage { CIImage(node: SamplingNode(input: unwrappedSampling, mode: .linear), properties: storedProperties, url: url) }
    private var unwrappedSampling: RecipeNode { node is any SamplingMark ? node.inputs[0] : node }

    /// The transform that displays an image stored with `orientation` upright, for an image
    /// whose extent starts at the origin.
    public func orientationTransform(for orientation: CGImagePropertyOrientation) -> CGAffineTransform {
        .upright(orientation, width: extent.width, height: extent.height)
    }
    /// The image turned upright from EXIF `orientation` (mirrored ones too); exact pixels.
    public func oriented(_ orientation: CGImagePropertyOrientation) -> CIImage {
        if orientation == .up { return self }
        let toOrigin = CGAffineTransform(translationX: -extent.minX, y: -extent.minY)
        return transformed(by: toOrigin.concatenating(orientationTransform(for: orientation)))
    }
    /// `orientationTransform(for:)` for an EXIF orientation number (1...8); identity otherwise.
    public func orientationTransform(forExifOrientation orientation: Int32) -> CGAffineTransform {
        guard let o = CGImagePropertyOrientation(rawValue: UInt32(clamping: max(1, orientation))) else { return .identity }
        return orientationTransform(for: o)
    }
    /// `oriented(_:)` for an EXIF orientation number (1...8); the image unchanged otherwise.
    public func oriented(forExifOrientation orientation: Int32) -> CIImage {
        guard let o = CGImagePropertyOrientation(rawValue: UInt32(clamping: max(1, orientation))) else { return self }
        return oriented(o)
    }

    // MARK: Compositing and alpha

    /// `self` source-over `dest`.
    public func composited(over dest: CIImage) -> CIImage {
        CIImage(node: ColorKernelNode(stage: BlendStage.sourceOver, inputs: [node, dest.node], extent: extent.union(dest.extent)))
    }
    /// The colour components multiplied by alpha, for an image whose pixels hold straight alpha.
    public func premultiplyingAlpha() -> CIImage { applying(AlphaStage(kind: .premultiply)) }
    /// The colour components divided by alpha, giving straight alpha (where alpha is not 0).
    public func unpremultiplyingAlpha() -> CIImage { applying(AlphaStage(kind: .unpremultiply)) }
    /// Opaque inside `extent` (colour kept as stored), clear outside.
    public func settingAlphaOne(in rect: CGRect) -> CIImage {
        let opaque = CIImage(node: ColorKernelNode(stage: AlphaStage(kind: .setOne), inputs: [ClampNode(input: node, rect: extent.isInfinite ? rect : extent)], extent: .infinite))
        return opaque.cropped(to: rect)
    }

    /// Materialise this image once when rendered (and keep it in the context's cache).
    public func insertingIntermediate() -> CIImage { insertingIntermediate(cache: true) }
    /// Materialise this image once when rendered; with `cache` false, the result is not kept in
    /// the context's cache after the render.
    public func insertingIntermediate(cache: Bool) -> CIImage {
        CIImage(node: IntermediateNode(input: node, cacheable: cache), properties: storedProperties, url: url)
    }

    // MARK: Filters

    /// The output of the filter `filterName` with this image as `inputImage` and `params` as its
    /// other inputs; the empty image for an unknown filter or a failed output.
    public func applyingFilter(_ filterName: String, parameters params: [String: Any]) -> CIImage {
        guard let f = CIFilter(name: filterName) else { return .empty() }
        f.setValue(self, forKey: kCIInputImageKey)
        for (k, v) in params { f.setValue(v, forKey: k) }
        return f.outputImage ?? .empty()
    }
    /// The output of the filter `filterName`, with its inputs at their defaults, over this image.
    public func applyingFilter(_ filterName: String) -> CIImage { applyingFilter(filterName, parameters: [:]) }
    /// A Gaussian blur of standard deviation `sigma` pixels (`CIGaussianBlur`). Clamp the image
    /// first (`clampedToExtent()`) to avoid fading edges.
    public func applyingGaussianBlur(sigma: Double) -> CIImage {
        applyingFilter("CIGaussianBlur", parameters: [kCIInputRadiusKey: sigma])
    }

    /// Apple's older spelling of `cropped(to:)`.
    @available(*, deprecated, renamed: "cropped(to:)")
    public func cropping(to rect: CGRect) -> CIImage { cropped(to: rect) }
    /// Apple's older spelling of `applyingFilter(_:parameters:)`.
    @available(*, deprecated, renamed: "applyingFilter(_:parameters:)")
    public func applyingFilter(_ filterName: String, withInputParameters params: [String: Any]?) -> CIImage {
        applyingFilter(filterName, parameters: params ?? [:])
    }
    /// Apple's older spelling of `clampedToExtent()`.
    @available(*, deprecated, renamed: "clampedToExtent()")
    public func clampingToExtent() -> CIImage { clampedToExtent() }
    /// Apple's older spelling of `transformed(by:)`.
    @available(*, deprecated, renamed: "transformed(by:)")
    public func applying(_ t: CGAffineTransform) -> CIImage { transformed(by: t) }

    /// A colour stage over this image (and `extras`, its other image inputs), covering
    /// `extent` (default: this image's). The optimiser fuses it with neighbouring colour stages
    /// at render time.
    func applying(_ stage: any ColorStage, extras: [CIImage] = [], extent: CGRect? = nil) -> CIImage {
        CIImage(
            node: ColorKernelNode(stage: stage, inputs: [node] + extras.map(\.node), extent: extent ?? self.extent),
            properties: storedProperties, url: url)
    }
}

/// Alpha bookkeeping stages.
struct AlphaStage: ColorStage {
    enum Kind { case premultiply, unpremultiply, setOne }
    let kind: Kind
    var wantsUnpremultiplied: Bool { false }
    func run(_ row: UnsafeMutablePointer<SIMD4<Float>>, extra: UnsafePointer<UnsafeMutablePointer<SIMD4<Float>>>, count: Int, x: Int, y: Int) {
        switch kind {
        case .premultiply: premultiplyRow(row, count)
        case .unpremultiply: unpremultiplyRow(row, count)
        case .setOne: for i in 0..<count { row[i].w = 1 }
        }
    }
    var label: String { "\(kind)" }
}

extension CGAffineTransform {
    /// The transform that displays a `width` x `height` picture (extent at the origin) stored
    /// with `orientation` upright: a whole-pixel flip or quarter turn, landing at the origin.
    static func upright(_ orientation: CGImagePropertyOrientation, width w: CGFloat, height h: CGFloat) -> CGAffineTransform {
        switch orientation {
        case .up: return .identity
        case .upMirrored: return CGAffineTransform(a: -1, b: 0, c: 0, d: 1, tx: w, ty: 0)
        case .down: return CGAffineTransform(a: -1, b: 0, c: 0, d: -1, tx: w, ty: h)
        case .downMirrored: return CGAffineTransform(a: 1, b: 0, c: 0, d: -1, tx: 0, ty: h)
        case .leftMirrored: return CGAffineTransform(a: 0, b: -1, c: -1, d: 0, tx: h, ty: w)
        case .right: return CGAffineTransform(a: 0, b: -1, c: 1, d: 0, tx: 0, ty: w)
        case .rightMirrored: return CGAffineTransform(a: 0, b: 1, c: 1, d: 0, tx: 0, ty: 0)
        case .left: return CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: h, ty: 0)
        }
    }

    /// The EXIF orientation (1...8) whose `upright` transform has this one's linear part (a
    /// whole-pixel flip or quarter turn, whatever its translation); nil for any other.
    var exifOrientation: Int? {
        (1...8).first { v in
            guard let o = CGImagePropertyOrientation(rawValue: UInt32(v)) else { return false }
            let t = CGAffineTransform.upright(o, width: 0, height: 0)
            return t.a == a && t.b == b && t.c == c && t.d == d
        }
    }
}
