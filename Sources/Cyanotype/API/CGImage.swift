#if !canImport(CoreGraphics)
/// A minimal portable bitmap image, what `CIContext.createCGImage(_:from:)` returns where
/// CoreGraphics is missing: rows top-down, interleaved components in `format`.
public final class CGImage: @unchecked Sendable {
    public let width: Int
    public let height: Int
    public let bytesPerRow: Int
    public let format: CIFormat
    public let colorSpace: CGColorSpace?
    /// Whether colour components are premultiplied by alpha.
    public let isPremultiplied: Bool
    public let data: Data

    public init(width: Int, height: Int, bytesPerRow: Int, format: CIFormat, colorSpace: CGColorSpace?, premultiplied: Bool, data: Data) {
        self.width = width; self.height = height; self.bytesPerRow = bytesPerRow; self.format = format
        self.colorSpace = colorSpace; self.isPremultiplied = premultiplied; self.data = data
    }
    public var bitsPerPixel: Int { (format.bytesPerPixel ?? 4) * 8 }
    public var bitsPerComponent: Int { bitsPerPixel / (format.info?.channels ?? 4) }
}
#endif
