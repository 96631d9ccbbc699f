#if !canImport(CoreGraphics)
/// A minimal portable bitmap image, what `CIContext.createCGImage(_:from:)` returns where
/// CoreGraphics is missing: rows top-down, interleaved components in `format`.
public final class CGImage: @unchecked Sendable {
    /// The width in pixels.
    public let width: Int
    /// The height in pixels.
    public let height: Int
    /// The distance in bytes from one row's start to the next (at least `width` pixels).
    public let bytesPerRow: Int
    /// How each pixel is stored: the component order and size.
    public let format: CIFormat
    /// The space the components are in; nil when the context had no colour management.
    public let colorSpace: CGColorSpace?
    /// Whether colour components are premultiplied by alpha.
    public let isPremultiplied: Bool
    /// The pixels: `height` rows of `bytesPerRow` bytes, top row first.
    public let data: Data

    /// An image of `data`, laid out as the other arguments say.
    public init(width: Int, height: Int, bytesPerRow: Int, format: CIFormat, colorSpace: CGColorSpace?, premultiplied: Bool, data: Data) {
        self.width = width; self.height = height; self.bytesPerRow = bytesPerRow; self.format = format
        self.colorSpace = colorSpace; self.isPremultiplied = premultiplied; self.data = data
    }
    /// The bits one pixel takes, all components together.
    public var bitsPerPixel: Int { (format.bytesPerPixel ?? 4) * 8 }
    /// The bits one component takes (8, 16 or 32).
    public var bitsPerComponent: Int { bitsPerPixel / (format.info?.channels ?? 4) }
}
#endif
