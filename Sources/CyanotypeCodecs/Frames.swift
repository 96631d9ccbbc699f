import Foundation

/// What happens to a frame's rectangle before the next frame is drawn (GIF's and APNG's
/// disposal; WebP knows `none` and `background`).
public enum FrameDisposal: String, Sendable, CaseIterable {
    /// The frame stays on the canvas.
    case none
    /// The frame's rectangle is cleared to transparent.
    case background
    /// The canvas goes back to what it was before the frame was drawn.
    case previous
}

/// How a frame's pixels meet the canvas.
public enum FrameBlend: String, Sendable, CaseIterable {
    /// The frame's pixels replace the canvas's (alpha included).
    case source
    /// Source-over: transparent parts of the frame show the canvas.
    case over
}

/// One frame of an animation (or page of a TIFF) as the file describes it, read without
/// decoding pixels.
public struct FrameInfo: Sendable, Equatable {
    /// The frame's rectangle on the canvas, top-left origin, in pixels (a TIFF page: 0, 0 and
    /// its own size).
    public var x: Int, y: Int, width: Int, height: Int
    /// Seconds the frame shows, as stored (0 for TIFF pages and still images).
    public var delay: Double
    /// What happens to the frame's rectangle before the next frame is drawn.
    public var disposal: FrameDisposal
    /// How the frame's pixels meet the canvas.
    public var blend: FrameBlend

    /// A frame at (`x`, `y`) of `width` x `height` pixels showing for `delay` seconds; by default
    /// it stays on the canvas and is drawn source-over.
    public init(x: Int, y: Int, width: Int, height: Int, delay: Double, disposal: FrameDisposal = .none, blend: FrameBlend = .over) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.delay = delay
        self.disposal = disposal
        self.blend = blend
    }
}

/// The frames or pages a file holds, read without decoding pixels.
public struct FrameSequence: Sendable {
    /// The file's format.
    public var format: ImageFileFormat
    /// The canvas every frame is composited onto (a TIFF: its first page's size).
    public var canvasWidth: Int
    /// The canvas's height in pixels (`canvasWidth` is its width).
    public var canvasHeight: Int
    /// Plays of the animation; 0 means forever. nil when the file does not say (a still image,
    /// a TIFF, a GIF without a NETSCAPE2.0 block: it plays once).
    public var loopCount: Int?
    /// Each frame's rectangle, timing, disposal and blending, in file order.
    public var frames: [FrameInfo]
    /// True for GIF, APNG and animated WebP files (even with one frame); false for TIFF pages
    /// and still images.
    public var isAnimation: Bool
    /// GIF: whether the file has a global colour table.
    public var hasGlobalColorMap: Bool = false
    /// What the file says about its pixels: one header for the whole file, or (TIFF) one per page.
    public var headers: [ImageHeader]

    /// The number of frames (or pages).
    public var frameCount: Int { frames.count }

    /// The header for frame `index`: the page's own (TIFF) or the file's.
    public func header(at index: Int) -> ImageHeader {
        headers.count == frames.count && index >= 0 && index < headers.count ? headers[index] : headers[0]
    }

    /// A sequence from its parts (`hasGlobalColorMap` starts false).
    public init(
        format: ImageFileFormat, canvasWidth: Int, canvasHeight: Int, loopCount: Int?, frames: [FrameInfo],
        isAnimation: Bool, headers: [ImageHeader]
    ) {
        self.format = format
        self.canvasWidth = canvasWidth
        self.canvasHeight = canvasHeight
        self.loopCount = loopCount
        self.frames = frames
        self.isAnimation = isAnimation
        self.headers = headers
    }
}

extension DecodeLimits {
    /// Throws when `count` frames of `canvasPixels` each pass the frame limits.
    func checkFrames(_ count: Int, canvasPixels: Int) throws(ImageFileError) {
        let limit = frameLimit(pixelsPerFrame: canvasPixels)
        if count > limit { throw .tooManyFrames(count: count, limit: limit) }
    }
    /// Throws when a canvas or frame of `width` x `height` passes the per-image limits.
    func checkPixels(_ width: Int, _ height: Int, bytesPerPixel: Int = 4) throws(ImageFileError) {
        let limit = pixelLimit(bytesPerPixel: bytesPerPixel)
        let (n, overflow) = width.multipliedReportingOverflow(by: height)
        guard width > 0, height > 0 else { throw .corrupt(detail: "image size \(width)x\(height)") }
        guard !overflow, n <= limit else { throw .tooLarge(width: width, height: height, limit: limit) }
    }
}

/// Decodes the frames of a file in order, each composited onto the canvas as a viewer would
/// show it (GIF and APNG disposal and blending; libwebp composites WebP). Frames come out as
/// `DecodedBitmap`s of the canvas size (TIFF: each page at its own size and depth). Not
/// thread-safe: one decoder per thread. Asking for an earlier frame starts again from the first.
public final class FrameDecoder {
    /// The file's frame table, read by `init`.
    public let sequence: FrameSequence
    /// The index the next `next()` returns.
    public private(set) var nextIndex = 0
    private var source: any FrameSource
    private let data: Data

    /// Reads the file's frame table (no pixels yet); frame counts and sizes are checked
    /// against `limits` here, before any pixel is allocated.
    public init(data: Data, limits: DecodeLimits = .default, strict: Bool = true) throws(ImageFileError) {
        self.data = data
        source = try withBytes(data) { (b) throws(ImageFileError) -> any FrameSource in
            try makeFrameSource(b, data: data, limits: limits, strict: strict)
        }
        sequence = source.sequence
    }

    /// The next frame, or nil after the last.
    public func next() throws(ImageFileError) -> DecodedBitmap? {
        guard nextIndex < sequence.frameCount else { return nil }
        let b = try source.decode(nextIndex)
        nextIndex += 1
        return b
    }

    /// Frame `index` (0-based), composited. Frames are decoded in order: an index below the
    /// next one restarts from the first frame.
    public func frame(at index: Int) throws(ImageFileError) -> DecodedBitmap {
        guard index >= 0, index < sequence.frameCount else {
            throw .invalidArgument("frame \(index) does not exist (the file has \(sequence.frameCount))")
        }
        if index < nextIndex || !source.isSequential {
            if source.isSequential { source.reset() }
            nextIndex = source.isSequential ? 0 : index
        }
        while nextIndex < index {
            _ = try source.decode(nextIndex)  // composited and dropped: later frames draw over it
            nextIndex += 1
        }
        let b = try source.decode(index)
        nextIndex = index + 1
        return b
    }
}

/// One format's frames. `decode(i)` is called with 0, 1, 2, ... in order for sequential
/// sources (after `reset()` from 0 again); others take any index.
protocol FrameSource {
    var sequence: FrameSequence { get }
    var isSequential: Bool { get }
    mutating func reset()
    mutating func decode(_ index: Int) throws(ImageFileError) -> DecodedBitmap
}

/// The frame source for a file: GIF, APNG, animated WebP and multi-page TIFF have their own;
/// every other image is one frame.
func makeFrameSource(_ b: UnsafeRawBufferPointer, data: Data, limits: DecodeLimits, strict: Bool) throws(ImageFileError) -> any FrameSource {
    let format = try ImageCodecs.identify(b)
    switch format {
    case .gif: return try GIFFrames(data: data, limits: limits, strict: strict)
    case .png where APNG.isAnimated(b): return try APNGFrames(data: data, limits: limits, strict: strict)
    case .webp where AnimatedWebP.isAnimated(b): return try AnimatedWebP.Frames(data: data, limits: limits)
    case .tiff: return try TIFFPages(data: data, limits: limits, strict: strict)
    default: return try StillFrame(data: data, format: format, limits: limits, strict: strict)
    }
}

/// A still image as a sequence of one frame.
struct StillFrame: FrameSource {
    let sequence: FrameSequence
    let data: Data
    let limits: DecodeLimits
    let strict: Bool
    var isSequential: Bool { false }

    init(data: Data, format: ImageFileFormat, limits: DecodeLimits, strict: Bool) throws(ImageFileError) {
        let h = try ImageCodecs.readHeader(data)
        sequence = FrameSequence(
            format: format, canvasWidth: h.width, canvasHeight: h.height, loopCount: nil,
            frames: [FrameInfo(x: 0, y: 0, width: h.width, height: h.height, delay: 0)], isAnimation: false, headers: [h])
        self.data = data
        self.limits = limits
        self.strict = strict
    }
    mutating func reset() {}
    mutating func decode(_ index: Int) throws(ImageFileError) -> DecodedBitmap {
        try ImageCodecs.decode(data, limits: limits, strict: strict)
    }
}

/// A full-canvas RGBA buffer (8-bit samples for GIF and APNG, 16-bit for 16-bit APNGs) that
/// frames are drawn onto, with GIF's and APNG's disposal.
struct Canvas<Sample: FixedWidthInteger & UnsignedInteger> {
    let width: Int, height: Int
    var pixels: [Sample]
    /// The canvas before the last frame was drawn, kept only when that frame's disposal is
    /// `previous`.
    private var saved: [Sample] = []
    /// The last frame's rectangle and disposal, applied before the next frame is drawn.
    private var pending: (x: Int, y: Int, w: Int, h: Int, disposal: FrameDisposal)?

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        pixels = [Sample](repeating: 0, count: width * height * 4)
    }

    mutating func clear() {
        pixels.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        pending = nil
        saved = []
    }

    /// Disposes of the previous frame, then prepares for a frame at the (clipped) rectangle
    /// with `disposal`; returns the rectangle clipped to the canvas.
    mutating func begin(x: Int, y: Int, w: Int, h: Int, disposal: FrameDisposal) -> (x: Int, y: Int, w: Int, h: Int) {
        if let p = pending {
            switch p.disposal {
            case .none: break
            case .background: fill(p.x, p.y, p.w, p.h)
            case .previous: if saved.count == pixels.count { pixels = saved }
            }
        }
        let x0 = min(max(x, 0), width), y0 = min(max(y, 0), height)
        let x1 = min(max(x + w, x0), width), y1 = min(max(y + h, y0), height)
        let r = (x: x0, y: y0, w: x1 - x0, h: y1 - y0)
        if disposal == .previous { saved = pixels } else { saved = [] }
        pending = (r.x, r.y, r.w, r.h, disposal)
        return r
    }

    private mutating func fill(_ x: Int, _ y: Int, _ w: Int, _ h: Int) {
        guard w > 0, h > 0 else { return }
        let width = self.width
        pixels.withUnsafeMutableBufferPointer { p in
            for row in y..<(y + h) {
                (p.baseAddress! + (row * width + x) * 4).update(repeating: 0, count: w * 4)
            }
        }
    }
}

extension Canvas where Sample == UInt8 {
    /// The canvas as a decoded 8-bit bitmap with `header`.
    func bitmap(_ header: ImageHeader) -> DecodedBitmap {
        DecodedBitmap(header: header, width: width, height: height, bitDepth: 8, pixels: pixels, pixels16: [])
    }

    /// Draws RGBA8 rows (`rowBytes` apart) at the rectangle `r` (already clipped), reading the
    /// source from (`sx`, `sy`); `over` blends source-over on straight alpha, else replaces.
    mutating func draw(_ src: UnsafePointer<UInt8>, rowBytes: Int, sx: Int, sy: Int, at r: (x: Int, y: Int, w: Int, h: Int), over: Bool) {
        guard r.w > 0, r.h > 0 else { return }
        let width = self.width
        pixels.withUnsafeMutableBufferPointer { p in
            for row in 0..<r.h {
                let s = src + (sy + row) * rowBytes + sx * 4
                let d = p.baseAddress! + ((r.y + row) * width + r.x) * 4
                if !over {
                    d.update(from: s, count: r.w * 4)
                    continue
                }
                for i in 0..<r.w {
                    let k = i * 4
                    let a = Int(s[k + 3])
                    if a == 255 {
                        d[k] = s[k]; d[k + 1] = s[k + 1]; d[k + 2] = s[k + 2]; d[k + 3] = 255
                    } else if a > 0 {
                        // Straight-alpha source-over: ao = as + ad(1 - as), co = (cs as + cd ad (1 - as)) / ao.
                        let da = Int(d[k + 3]) * (255 - a)  // / 255 later
                        let ao = a * 255 + da  // alpha * 255
                        for c in 0..<3 {
                            let v = (Int(s[k + c]) * a * 255 + Int(d[k + c]) * da + ao / 2) / ao
                            d[k + c] = UInt8(min(v, 255))
                        }
                        d[k + 3] = UInt8((ao + 127) / 255)
                    }
                }
            }
        }
    }
}

extension Canvas where Sample == UInt16 {
    /// The canvas as a decoded 16-bit bitmap with `header`.
    func bitmap(_ header: ImageHeader) -> DecodedBitmap {
        DecodedBitmap(header: header, width: width, height: height, bitDepth: 16, pixels: [], pixels16: pixels)
    }

    /// Draws RGBA16 rows (`rowSamples` apart) at the rectangle `r` (already clipped);
    /// `over` blends source-over on straight alpha, else replaces.
    mutating func draw(_ src: UnsafePointer<UInt16>, rowSamples: Int, at r: (x: Int, y: Int, w: Int, h: Int), over: Bool) {
        for row in 0..<r.h {
            for i in 0..<r.w {
                let s = src + row * rowSamples + i * 4
                let d = ((r.y + row) * width + r.x + i) * 4
                let a = Double(s[3]) / 65535
                if !over || a >= 1 {
                    for c in 0..<4 { pixels[d + c] = s[c] }
                } else if a > 0 {
                    let da = Double(pixels[d + 3]) / 65535 * (1 - a)
                    let ao = a + da
                    for c in 0..<3 { pixels[d + c] = UInt16(((Double(s[c]) * a + Double(pixels[d + c]) * da) / ao).rounded()) }
                    pixels[d + 3] = UInt16((ao * 65535).rounded())
                }
            }
        }
    }
}

/// Writes frames (animations) or pages (TIFF) one at a time: GIF (a palette per frame, from a
/// colour quantiser, optionally dithered), APNG, animated WebP and multi-page TIFF. Frames of
/// an animation must all have the first frame's size; TIFF pages may differ. The loop count
/// is given at the end, so frames can be encoded as they arrive.
public final class FrameEncoder {
    /// The format being written.
    public let format: ImageFileFormat
    private var sink: any FrameSink
    /// Frames (or pages) added so far.
    public private(set) var frameCount = 0

    /// Whether `format` holds more than one frame here (GIF, PNG as APNG, WebP, TIFF).
    public static func canWriteFrames(_ format: ImageFileFormat) -> Bool {
        [.gif, .png, .webp, .tiff].contains(format)
    }

    /// An encoder for `format` (one of `canWriteFrames`'s); `pageCount` (TIFF) numbers the
    /// pages when known; `dithering` (GIF) diffuses the palette's error (Floyd-Steinberg).
    public init(format: ImageFileFormat, options: EncodeOptions, pageCount: Int = 0, dithering: Bool = true) throws(ImageFileError) {
        self.format = format
        switch format {
        case .gif: sink = GIFWriter(dithering: dithering)
        case .png: sink = APNGWriter(options: options)
        case .webp: sink = try AnimatedWebP.Writer(options: options)
        case .tiff: sink = try TIFFPageWriter(options: options, pageCount: pageCount)
        default: throw .invalidArgument("\(format.rawValue) files hold one image; frames need gif, png, webp or tiff")
        }
    }

    /// Adds a frame of 8-bit RGBA rows (straight alpha) shown for `delay` seconds.
    public func add(rgba8: UnsafeBufferPointer<UInt8>, width: Int, height: Int, hasAlpha: Bool, delay: Double) throws(ImageFileError) {
        try ImageCodecs.checkBuffer(count: rgba8.count, width: width, height: height, name: "rgba8")
        try sink.add(.u8(rgba8), width: width, height: height, hasAlpha: hasAlpha, delay: sanitized(delay))
        frameCount += 1
    }
    /// Adds 16-bit RGBA rows: PNG and TIFF keep 16 bits, GIF and WebP get 8.
    public func add(rgba16: UnsafeBufferPointer<UInt16>, width: Int, height: Int, hasAlpha: Bool, delay: Double) throws(ImageFileError) {
        try ImageCodecs.checkBuffer(count: rgba16.count, width: width, height: height, name: "rgba16")
        try sink.add(.u16(rgba16), width: width, height: height, hasAlpha: hasAlpha, delay: sanitized(delay))
        frameCount += 1
    }
    /// Adds float RGBA rows: TIFF keeps them; the others get 16 or 8 bits.
    public func add(rgbaF: UnsafeBufferPointer<Float>, width: Int, height: Int, hasAlpha: Bool, delay: Double) throws(ImageFileError) {
        try ImageCodecs.checkBuffer(count: rgbaF.count, width: width, height: height, name: "rgbaF")
        try sink.add(.f32(rgbaF), width: width, height: height, hasAlpha: hasAlpha, delay: sanitized(delay))
        frameCount += 1
    }

    /// The file: `loopCount` plays (0 forever; nil: GIF plays once with no loop block, APNG and
    /// WebP store 0); ignored for TIFF.
    public func finish(loopCount: Int? = 0) throws(ImageFileError) -> Data {
        guard frameCount > 0 else { throw .invalidArgument("no frames were added") }
        if let l = loopCount, !(0...65535).contains(l) { throw .invalidArgument("loop count must be 0...65535, got \(l)") }
        return try sink.finish(loopCount: loopCount)
    }

    private func sanitized(_ d: Double) -> Double { d.isFinite ? min(max(d, 0), 655.35) : 0 }
}

/// Pixels handed to a frame writer.
enum FramePixels {
    case u8(UnsafeBufferPointer<UInt8>)
    case u16(UnsafeBufferPointer<UInt16>)
    case f32(UnsafeBufferPointer<Float>)

    /// The pixels as 8-bit samples (a copy unless already 8-bit).
    func withEightBit<R>(_ body: (UnsafeBufferPointer<UInt8>) throws(ImageFileError) -> R) throws(ImageFileError) -> R {
        switch self {
        case .u8(let p): return try body(p)
        case .u16(let p):
            let eight = [UInt8](unsafeUninitializedCapacity: p.count) { out, n in
                for i in 0..<p.count { out[i] = UInt8(truncatingIfNeeded: (UInt32(p[i]) &* 255 &+ 32767) / 65535) }
                n = p.count
            }
            return try eight.withUnsafeBufferPointer { (b) throws(ImageFileError) in try body(b) }
        case .f32(let p):
            let eight = [UInt8](unsafeUninitializedCapacity: p.count) { out, n in
                for i in 0..<p.count {
                    let v = p[i]
                    out[i] = v.isNaN ? 0 : UInt8((min(max(v, 0), 1) * 255).rounded())
                }
                n = p.count
            }
            return try eight.withUnsafeBufferPointer { (b) throws(ImageFileError) in try body(b) }
        }
    }
}

protocol FrameSink {
    mutating func add(_ pixels: FramePixels, width: Int, height: Int, hasAlpha: Bool, delay: Double) throws(ImageFileError)
    mutating func finish(loopCount: Int?) throws(ImageFileError) -> Data
}
