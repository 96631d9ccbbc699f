import Cyanotype
import Foundation

/// Output file formats for `Renderer.export`.
public enum ExportFormat: Sendable, Equatable {
    /// JPEG, quality 0...1.
    case jpeg(compressionQuality: Double)
    /// Lossless 8-bit PNG.
    case png
    /// Lossy WebP, quality 0...1.
    case webp(quality: Double)
    /// Lossless WebP.
    case webpLossless
    /// HEIF (HEVC), quality 0...1, where libheif has an HEVC encoder.
    case heif(quality: Double)
    /// AVIF (AV1), quality 0...1, where libheif has an AV1 encoder.
    case avif(quality: Double)

    /// The usual file extension for the format (`jpg`, `png`, `webp`, `heic`, `avif`).
    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .png: return "png"
        case .webp, .webpLossless: return "webp"
        case .heif: return "heic"
        case .avif: return "avif"
        }
    }
}

/// Why an export failed.
public enum ExportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The image has no pixels.
    case emptyImage
    /// The image is infinite: crop it before exporting.
    case infiniteImage
    /// A `maxSize` below 1 pixel.
    case invalidMaxSize(Int)
    /// Encoding or writing the file failed.
    case io(ImageIOError)

    /// What went wrong, in words a user can act on.
    public var description: String {
        switch self {
        case .emptyImage: return "nothing to export: the image is empty"
        case .infiniteImage: return "cannot export an image of infinite extent: crop it first"
        case .invalidMaxSize(let n): return "maxSize must be at least 1 pixel (got \(n))"
        case .io(let e): return e.description
        }
    }
}

/// Renders and exports filtered images with one shared `CIContext` (linear sRGB working
/// space, sRGB output): safe to use from many threads at once.
public final class Renderer: Sendable {
    /// The shared renderer.
    public static let shared = Renderer()
    /// The context every render and export goes through.
    public let context: CIContext

    /// A renderer over `context` (default: a new context with the default options).
    public init(context: CIContext = CIContext()) { self.context = context }

    // MARK: Lazy renders

    /// `image` through `filter` (a chain or a single look), lazily, cropped to the input's
    /// extent. Empty or infinite inputs come back unchanged.
    public func render(image: CIImage, with filter: any Filter) -> CIImage {
        let e = image.extent
        guard !e.isEmpty, !e.isInfinite else { return image }
        let f = (filter as? FilterChain)?.snapshot
        let out = f?.apply(to: image) ?? filter.apply(to: image)
        return out.cropped(to: e)
    }

    /// The image upright from the EXIF orientation in its `properties` (1 when absent).
    public func uprighted(_ image: CIImage) -> CIImage {
        let raw = image.properties[kCGImagePropertyOrientation]
        let o = numberValue(raw).map { Int32($0) } ?? 1
        guard o > 1, o <= 8 else { return image }
        return image.oriented(forExifOrientation: o)
    }

    /// `image` scaled down with Lanczos so its long edge is at most `maxSize`, its origin at
    /// (0, 0), and its size whole pixels. Smaller images are returned (moved to the origin).
    public func downscaled(_ image: CIImage, maxSize: Int?) -> CIImage {
        let e = image.extent
        var img = image
        if e.minX != 0 || e.minY != 0 { img = img.transformed(by: CGAffineTransform(translationX: -e.minX, y: -e.minY)) }
        guard let maxSize, Double(max(e.width, e.height)) > Double(maxSize) else { return img }
        let longEdge = Double(max(e.width, e.height))
        let s = Double(maxSize) / longEdge
        let w = max(1, (Double(e.width) * s).rounded()), h = max(1, (Double(e.height) * s).rounded())
        let f = CIFilter.lanczosScaleTransform()
        f.inputImage = img.clampedToExtent().cropped(to: CGRect(x: -8, y: -8, width: Double(e.width) + 16, height: Double(e.height) + 16))
        // Scale for the height, and an aspect ratio that lands the width on whole pixels.
        f.scale = Float(h / Double(e.height))
        f.aspectRatio = Float((w / Double(e.width)) / (h / Double(e.height)))
        guard let scaled = f.outputImage else { return img }
        return scaled.cropped(to: CGRect(x: 0, y: 0, width: w, height: h))
    }

    // MARK: Export

    /// Encoded bytes of `image` through `filter`: EXIF orientation applied, downscaled to
    /// `maxSize` on the long edge (before the looks: cheaper, and the looks are per pixel or
    /// relative to the image box), written as 8-bit sRGB.
    public func export(image: CIImage, with filter: any Filter, format: ExportFormat, maxSize: Int? = nil) throws(ExportError) -> Data {
        let look = try prepared(image: image, with: filter, maxSize: maxSize)
        var options: [CIImageRepresentationOption: Any] = [:]
        let fileFormat: ImageFileFormat
        switch format {
        case .jpeg(let q):
            fileFormat = .jpeg; options[.lossyCompressionQuality] = min(max(q, 0), 1)
        case .png:
            fileFormat = .png
        case .webp(let q):
            fileFormat = .webp; options[.lossyCompressionQuality] = min(max(q, 0), 1)
        case .webpLossless:
            fileFormat = .webp; options[.lossless] = true
        case .heif(let q):
            fileFormat = .heif; options[.lossyCompressionQuality] = min(max(q, 0), 1)
        case .avif(let q):
            fileFormat = .avif; options[.lossyCompressionQuality] = min(max(q, 0), 1)
        }
        do {
            return try context.encode(look, as: fileFormat, depth: 8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB), options: options)
        } catch {
            throw .io(error)
        }
    }

    /// As `export(image:...)`, reading the image from a file (orientation from its EXIF).
    public func export(contentsOf url: URL, with filter: any Filter, format: ExportFormat, maxSize: Int? = nil) throws(ExportError) -> Data {
        let image: CIImage
        do { image = try CIImage.read(contentsOf: url, options: [.applyOrientationProperty: true]) } catch { throw .io(error) }
        return try export(image: image, with: filter, format: format, maxSize: maxSize)
    }

    /// Exports and writes to `url` atomically (a temporary file renamed into place).
    public func export(image: CIImage, with filter: any Filter, format: ExportFormat, maxSize: Int? = nil, to url: URL) throws(ExportError) {
        let data = try export(image: image, with: filter, format: format, maxSize: maxSize)
        do { try context.writeAtomically(data, to: url) } catch { throw .io(error) }
    }

    /// The lazily filtered image an export would encode (upright, downscaled, filtered).
    public func prepared(image: CIImage, with filter: any Filter, maxSize: Int?) throws(ExportError) -> CIImage {
        let e = image.extent
        guard !e.isInfinite else { throw .infiniteImage }
        guard !e.isEmpty else { throw .emptyImage }
        if let m = maxSize, m < 1 { throw .invalidMaxSize(m) }
        let upright = uprighted(image)
        return render(image: downscaled(upright, maxSize: maxSize), with: filter)
    }

    // MARK: Debugging

    /// The render plan (`CIContext.explain`) for `input` through `filter`: fused groups,
    /// intermediates, tiles and memory.
    public static func debugRender(_ filter: any Filter, input: CIImage) -> String {
        let out = shared.render(image: input, with: filter)
        return "Instafilter render of \(input.extent.width)x\(input.extent.height) through \(filter)\n" + shared.context.explain(out)
    }
}
