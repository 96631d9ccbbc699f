// Core Image's CISampler: an image with how a kernel reads it (nearest or linear, what lies
// outside). Older kernel code builds its arguments from these.

/// `CISampler`'s option: the sampling filter, `kCISamplerFilterNearest` or `kCISamplerFilterLinear`.
public let kCISamplerFilterMode = "kCISamplerFilterMode"
/// `CISampler`'s option: what lies outside the image, `kCISamplerWrapBlack` or `kCISamplerWrapClamp`.
public let kCISamplerWrapMode = "kCISamplerWrapMode"
/// `CISampler`'s option: a `CGAffineTransform` (or a 6-entry `CIVector`) applied to the image.
public let kCISamplerAffineMatrix = "kCISamplerAffineMatrix"
/// `CISampler`'s option: accepted for compatibility (the colour space samples are read in).
public let kCISamplerColorSpace = "kCISamplerColorSpace"
/// Filter mode: the nearest pixel.
public let kCISamplerFilterNearest = "nearest"
/// Filter mode: bilinear interpolation (the default).
public let kCISamplerFilterLinear = "linear"
/// Wrap mode: transparent black outside the image (the default).
public let kCISamplerWrapBlack = "black"
/// Wrap mode: the nearest edge pixel outside the image.
public let kCISamplerWrapClamp = "clamp"

/// An image as a kernel samples it (Core Image's `CISampler`): options applied to the image
/// (affine matrix, clamping, nearest sampling) give `image`, which kernels read.
public final class CISampler: @unchecked Sendable {
    /// The image with the options applied: what samples read.
    public let image: CIImage
    /// The options the sampler was made with.
    public let options: [String: Any]

    /// A sampler reading `image` linearly, black outside it.
    public convenience init(image: CIImage) { self.init(image: image, options: nil) }

    /// A sampler with `options` (`kCISamplerFilterMode`, `kCISamplerWrapMode`,
    /// `kCISamplerAffineMatrix`); unknown keys are ignored.
    public init(image: CIImage, options: [String: Any]?) {
        let o = options ?? [:]
        var sampled = image
        if let t = o[kCISamplerAffineMatrix] as? CGAffineTransform {
            sampled = sampled.transformed(by: t)
        } else if let v = o[kCISamplerAffineMatrix] as? CIVector, v.count == 6 {
            sampled = sampled.transformed(by: v.cgAffineTransformValue)
        }
        if (o[kCISamplerWrapMode] as? String) == kCISamplerWrapClamp { sampled = sampled.clampedToExtent() }
        if (o[kCISamplerFilterMode] as? String) == kCISamplerFilterNearest { sampled = sampled.samplingNearest() }
        self.image = sampled
        self.options = o
    }

    /// The sampled image's extent (infinite when clamped).
    public var extent: CGRect { image.extent }
    /// The image the sampler reads (Core Image's `definition`, a recipe).
    public var definition: CIImage { image }
}
