// Core Image's render destinations and tasks (`CIContext.startTask(toRender:to:)`), for
// memory the caller owns. Renders run when the task starts; `waitUntilCompleted()` returns
// at once with what the render did.

/// How a `CIRenderDestination` stores alpha.
public enum CIRenderDestinationAlphaMode: Int, Sendable {
    /// Alpha is not stored (the fourth component, if any, is opaque).
    case none = 0
    /// Colour is premultiplied by alpha (Core Image's default).
    case premultiplied = 1
    /// Colour is straight (unpremultiplied).
    case unpremultiplied = 2
}

/// Caller-owned memory to render into, as Core Image's `CIRenderDestination(bitmapData:...)`.
/// Row 0 of the memory is the top of the picture, as `render(_:toBitmap:...)` writes it,
/// unless `isFlipped` is set (then row 0 is the bottom).
public final class CIRenderDestination: @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    /// The destination's size in pixels.
    public let width: Int
    /// The destination's size in pixels.
    public let height: Int
    /// Bytes from one row to the next.
    public let bytesPerRow: Int
    /// How pixels are laid out (`CIFormat.RGBA8`, ...).
    public let format: CIFormat
    /// The colour space pixels are written in; nil (the default) uses the context's output
    /// colour space.
    public var colorSpace: CGColorSpace?
    /// Premultiplied (the default), straight, or no alpha.
    public var alphaMode: CIRenderDestinationAlphaMode = .premultiplied
    /// Whether row 0 of the memory is the bottom of the picture (default false: the top).
    public var isFlipped = false
    /// Accepted for compatibility: renders here are not dithered.
    public var isDithered = false
    /// Whether values are clamped to 0...1 (renders into integer formats always are).
    public var isClamped = true
    /// Accepted for compatibility: renders here run on the CPU.
    public var blendKernel: AnyObject?

    /// A destination over `data`, at least `bytesPerRow * height` bytes, owned by the caller
    /// for as long as renders into it run.
    public init(bitmapData data: UnsafeMutableRawPointer, width: Int, height: Int, bytesPerRow: Int, format: CIFormat) {
        base = data
        self.width = width
        self.height = height
        self.bytesPerRow = bytesPerRow
        self.format = format
    }
}

/// What a finished render did (Core Image's `CIRenderInfo`).
public final class CIRenderInfo: @unchecked Sendable {
    /// Seconds the render's tile work took.
    public let kernelExecutionTime: TimeInterval
    /// Always 0: nothing is compiled at render time here.
    public let kernelCompileTime: TimeInterval = 0
    /// Render passes (1: one tiled pass).
    public let passCount: Int
    /// Pixels written to the destination.
    public let pixelsProcessed: Int
    init(seconds: TimeInterval, pixels: Int) {
        kernelExecutionTime = seconds
        passCount = 1
        pixelsProcessed = pixels
    }
}

/// A render started by `CIContext.startTask(toRender:...)` (Core Image's `CIRenderTask`).
public final class CIRenderTask: @unchecked Sendable {
    private let info: CIRenderInfo
    init(info: CIRenderInfo) { self.info = info }
    /// Waits for the render (already done here) and says what it did.
    @discardableResult public func waitUntilCompleted() throws -> CIRenderInfo { info }
}

extension CIContext {
    /// Renders the whole destination from the image's lower-left region of the same size
    /// (the image's pixels at (0, 0) land at the destination's lower-left pixel); throws
    /// `CIRenderError` when the render cannot run.
    public func startTask(toRender image: CIImage, to destination: CIRenderDestination) throws -> CIRenderTask {
        try startTask(
            toRender: image, from: CGRect(x: 0, y: 0, width: destination.width, height: destination.height), to: destination, at: .zero)
    }

    /// Renders `fromRect` of `image` into the destination with its lower-left corner at
    /// `atPoint` (destination pixels, y up from the bottom); the rest of the destination is
    /// left as it is.
    public func startTask(toRender image: CIImage, from fromRect: CGRect, to destination: CIRenderDestination, at atPoint: CGPoint) throws
        -> CIRenderTask
    {
        let source = PixelRect(covering: fromRect)
        let x = Int(atPoint.x.rounded()), y = Int(atPoint.y.rounded())
        guard !source.isEmpty, x >= 0, y >= 0, x + source.width <= destination.width, y + source.height <= destination.height else {
            throw CIRenderError.emptyBounds
        }
        guard let bpp = destination.format.bytesPerPixel else { throw CIRenderError.unsupportedFormat(destination.format) }
        guard destination.bytesPerRow >= source.width * bpp else {
            throw CIRenderError.bufferTooSmall(needed: source.width * bpp * source.height, given: destination.bytesPerRow * source.height)
        }
        // A flipped destination holds the bottom row first: the region, turned upside down
        // (an exact permutation of rows), is written top row first from its lowest row.
        let rowFromTop = destination.isFlipped ? y : destination.height - y - source.height
        let start = destination.base + rowFromTop * destination.bytesPerRow + x * bpp
        var rendered = destination.alphaMode == .none ? image.settingAlphaOne(in: source.cgRect) : image
        if destination.isFlipped {
            rendered = rendered.transformed(by: CGAffineTransform(a: 1, b: 0, c: 0, d: -1, tx: 0, ty: CGFloat(source.minY + source.maxY)))
        }
        let clock = ContinuousClock.now
        try renderChecked(
            rendered, toBitmap: start, rowBytes: destination.bytesPerRow, bounds: source.cgRect, format: destination.format,
            colorSpace: destination.colorSpace, premultiplied: destination.alphaMode != .unpremultiplied)
        let elapsed = ContinuousClock.now - clock
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        return CIRenderTask(info: CIRenderInfo(seconds: seconds, pixels: source.area))
    }
}
