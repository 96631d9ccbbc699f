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

    /// The layout as Core Graphics' flags: alpha position and premultiplication, byte order,
    /// float components.
    public var bitmapInfo: CGBitmapInfo {
        let p = isPremultiplied
        switch format {
        case .RGBA8: return CGBitmapInfo(alphaInfo: p ? .premultipliedLast : .last)
        case .ARGB8: return CGBitmapInfo(alphaInfo: p ? .premultipliedFirst : .first)
        case .BGRA8: return CGBitmapInfo(alphaInfo: p ? .premultipliedFirst : .first).union(.byteOrder32Little)
        case .ABGR8: return CGBitmapInfo(alphaInfo: p ? .premultipliedLast : .last).union(.byteOrder32Little)
        case .RGBA16, .RGBX16: return CGBitmapInfo(alphaInfo: p ? .premultipliedLast : .last).union(.byteOrder16Little)
        case .RGBAh: return CGBitmapInfo(alphaInfo: p ? .premultipliedLast : .last).union([.floatComponents, .byteOrder16Little])
        case .RGBAf: return CGBitmapInfo(alphaInfo: p ? .premultipliedLast : .last).union([.floatComponents, .byteOrder32Little])
        case .A8: return CGBitmapInfo(alphaInfo: .alphaOnly)
        default: return CGBitmapInfo(alphaInfo: .none)
        }
    }
    /// Where alpha is and whether colour is premultiplied by it.
    public var alphaInfo: CGImageAlphaInfo { bitmapInfo.alphaInfo ?? .none }
    /// The pixels' provider (`dataProvider?.data` gives the bytes, `bytesPerRow` apart).
    public var dataProvider: CGDataProvider? { CGDataProvider(data: data as NSData) }

    /// An image of the pixels `provider` holds, laid out as the other arguments say: 8-bit RGB
    /// with alpha or padding first or last (either 32-bit byte order) or 8-bit grey. Nil for
    /// other layouts (16-bit, float), sizes that do not fit the data, or grey data with an RGB
    /// space and the reverse. `decode`, `shouldInterpolate` and `intent` are accepted and ignored.
    public convenience init?(
        width: Int, height: Int, bitsPerComponent: Int, bitsPerPixel: Int, bytesPerRow: Int, space: CGColorSpace,
        bitmapInfo: CGBitmapInfo, provider: CGDataProvider, decode: UnsafePointer<CGFloat>?, shouldInterpolate: Bool,
        intent: CGColorRenderingIntent
    ) {
        guard width > 0, height > 0, bitsPerComponent == 8, !bitmapInfo.contains(.floatComponents),
            let alphaInfo = bitmapInfo.alphaInfo,
            let layout = CGContext.layout(space.model, alphaInfo, bitmapInfo.intersection(.byteOrderMask)),
            bitsPerPixel == layout.bytesPerPixel * 8, bytesPerRow >= width * layout.bytesPerPixel,
            let bytes = provider.data, bytes.length >= bytesPerRow * (height - 1) + width * layout.bytesPerPixel
        else { return nil }
        let source = Data(bytes: bytes.bytes, count: bytes.length)
        if layout.gray != nil {
            self.init(width: width, height: height, bytesPerRow: bytesPerRow, format: .L8, colorSpace: space, premultiplied: false, data: source)
        } else {
            let rgba = source.withUnsafeBytes {
                CGContext.rgba8($0.baseAddress!, width: width, height: height, bytesPerRow: bytesPerRow, layout: layout)
            }
            self.init(
                width: width, height: height, bytesPerRow: width * 4, format: .RGBA8, colorSpace: space, premultiplied: layout.premultiplied,
                data: rgba)
        }
    }

    /// The pixels inside `rect` (pixel units, origin at the top left as Core Graphics crops),
    /// or nil when it misses the image.
    public func cropping(to rect: CGRect) -> CGImage? {
        let r = rect.standardized.integral.intersection(CGRect(x: 0, y: 0, width: width, height: height))
        guard !r.isNull, r.width >= 1, r.height >= 1, let bpp = format.bytesPerPixel else { return nil }
        let x = Int(r.minX), y = Int(r.minY), w = Int(r.width), h = Int(r.height)
        var out = Data(count: w * bpp * h)
        out.withUnsafeMutableBytes { o in
            data.withUnsafeBytes { i in
                for row in 0..<h {
                    (o.baseAddress! + row * w * bpp).copyMemory(from: i.baseAddress! + (y + row) * bytesPerRow + x * bpp, byteCount: w * bpp)
                }
            }
        }
        return CGImage(width: w, height: h, bytesPerRow: w * bpp, format: format, colorSpace: colorSpace, premultiplied: isPremultiplied, data: out)
    }
}

/// Core Graphics' source of image bytes: here, bytes held in memory.
public final class CGDataProvider: @unchecked Sendable {
    /// The bytes.
    public let data: CFData?
    /// A provider of `data` (copied).
    public init?(data: CFData) { self.data = data.copy() as? NSData }
}

/// How Core Graphics maps colours between spaces (accepted; Cyanotype always converts
/// colorimetrically through linear light).
public enum CGColorRenderingIntent: Int32, Sendable {
    /// The space's default.
    case defaultIntent = 0
    /// Absolute colorimetric.
    case absoluteColorimetric = 1
    /// Relative colorimetric.
    case relativeColorimetric = 2
    /// Perceptual.
    case perceptual = 3
    /// Saturation.
    case saturation = 4
}
#endif
