#if !canImport(CoreGraphics)
/// How a bitmap stores alpha (Core Graphics' `CGImageAlphaInfo`); the low bits of a bitmap info.
public enum CGImageAlphaInfo: UInt32, Sendable {
    /// No alpha: opaque pixels.
    case none = 0
    /// Alpha last (RGBA), colour premultiplied by it.
    case premultipliedLast = 1
    /// Alpha first (ARGB), colour premultiplied by it.
    case premultipliedFirst = 2
    /// Alpha last, straight colour.
    case last = 3
    /// Alpha first, straight colour.
    case first = 4
    /// A padding byte last (RGBX): opaque.
    case noneSkipLast = 5
    /// A padding byte first (XRGB): opaque.
    case noneSkipFirst = 6
    /// Alpha only, no colour.
    case alphaOnly = 7
}

/// Core Graphics' bitmap layout flags: the alpha info in the low bits, the byte order above.
public struct CGBitmapInfo: OptionSet, Sendable, Hashable {
    /// The flags as Core Graphics' `UInt32`.
    public let rawValue: UInt32
    /// Flags from their raw value.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// Flags holding only `alphaInfo`.
    public init(alphaInfo: CGImageAlphaInfo) { self.rawValue = alphaInfo.rawValue }
    /// The bits holding a `CGImageAlphaInfo`.
    public static let alphaInfoMask = CGBitmapInfo(rawValue: 0x1F)
    /// Float components.
    public static let floatComponents = CGBitmapInfo(rawValue: 1 << 8)
    /// The bits holding the byte order.
    public static let byteOrderMask = CGBitmapInfo(rawValue: 0x7000)
    /// The default byte order (big-endian: components in memory as named).
    public static let byteOrderDefault = CGBitmapInfo([])
    /// 16-bit little-endian words.
    public static let byteOrder16Little = CGBitmapInfo(rawValue: 1 << 12)
    /// 32-bit little-endian words: an ARGB pixel is stored B, G, R, A.
    public static let byteOrder32Little = CGBitmapInfo(rawValue: 2 << 12)
    /// 16-bit big-endian words.
    public static let byteOrder16Big = CGBitmapInfo(rawValue: 3 << 12)
    /// 32-bit big-endian words (components in memory as named).
    public static let byteOrder32Big = CGBitmapInfo(rawValue: 4 << 12)
    /// This machine's 32-bit byte order (little-endian on Linux's platforms).
    public static let byteOrder32Host = byteOrder32Little
    /// The alpha info these flags hold, nil for an unknown value.
    public var alphaInfo: CGImageAlphaInfo? { CGImageAlphaInfo(rawValue: rawValue & 0x1F) }
}

/// How `CGContext.draw(_:in:)` samples an image it scales.
public enum CGInterpolationQuality: Int32, Sendable {
    /// The default quality (bilinear here).
    case `default` = 0
    /// Nearest pixel, no smoothing.
    case none = 1
    /// Bilinear.
    case low = 2
    /// Bilinear.
    case medium = 4
    /// Bilinear (Core Graphics uses a better filter; downscales by large factors alias more here).
    case high = 3
}

/// How `fill` and `draw` combine with what the bitmap holds: source over it, or replacing it.
public enum CGBlendMode: Int32, Sendable {
    /// Source over destination.
    case normal = 0
    /// Source replaces destination.
    case copy = 17
    /// Clears the destination where the source is.
    case clear = 16
}

/// A Core Graphics bitmap context: 8-bit RGB (alpha premultiplied first or last, or a padding
/// byte, either byte order) or 8-bit grey, over memory it owns or the caller's. It fills
/// rectangles with a colour, draws images into rectangles (scaled, bilinear, colour-managed
/// into the context's space), clears, keeps a transform (`translateBy`, `scaleBy`, `rotate`)
/// and a graphics-state stack, and makes an image of what it holds. User space has its origin at
/// the bottom left, y up; `data` holds rows top row first, as on Apple's platforms. Paths, text
/// and clipping are not provided. Not thread-safe (as on Apple's platforms).
public final class CGContext {
    /// The width in pixels.
    public let width: Int
    /// The height in pixels.
    public let height: Int
    /// The bits per component (8).
    public let bitsPerComponent: Int
    /// The distance in bytes between rows.
    public let bytesPerRow: Int
    /// The context's colour space.
    public let colorSpace: CGColorSpace?
    /// The layout flags it was made with.
    public let bitmapInfo: CGBitmapInfo
    /// The pixels: the caller's buffer, or one the context owns (zeroed at creation).
    public let data: UnsafeMutableRawPointer?
    private let owned: Bool
    private let space: CGColorSpace
    private let layout: Layout
    /// How images are sampled when drawn scaled.
    public var interpolationQuality: CGInterpolationQuality {
        get { state.interpolation }
        set { state.interpolation = newValue }
    }

    /// Where each component sits in a pixel.
    struct Layout {
        var bytesPerPixel: Int
        var rgb: (Int, Int, Int)?
        var gray: Int?
        var alpha: Int?
        var premultiplied: Bool
        /// The padding byte of the skip layouts, written as 255 (opaque) as Core Graphics does.
        var padding: Int? = nil
    }
    struct GState {
        var ctm = CGAffineTransform.identity
        var fill = SIMD4<Float>(0, 0, 0, 1)  // straight, encoded in the context's space
        var alpha: Float = 1
        var interpolation = CGInterpolationQuality.default
        var blend = CGBlendMode.normal
    }
    private var state = GState()
    private var saved: [GState] = []

    /// A bitmap context, or nil for a layout it does not support (8 bits per component; RGB with
    /// `premultipliedLast`, `premultipliedFirst`, `noneSkipLast` or `noneSkipFirst`, in the
    /// default or 32-bit little byte order; grey with `none`), a too-small `bytesPerRow` or an
    /// impossible size. `data` nil: the context allocates (and frees) zeroed memory; otherwise it
    /// draws into the caller's buffer, which must outlive it. `bytesPerRow` 0: computed.
    public init?(
        data: UnsafeMutableRawPointer?, width: Int, height: Int, bitsPerComponent: Int, bytesPerRow: Int,
        space: CGColorSpace, bitmapInfo: UInt32
    ) {
        let info = CGBitmapInfo(rawValue: bitmapInfo)
        guard width > 0, height > 0, width <= PixelRect.limit, height <= PixelRect.limit, bitsPerComponent == 8,
            !info.contains(.floatComponents), let alphaInfo = info.alphaInfo,
            alphaInfo != .last, alphaInfo != .first,  // Core Graphics draws only into premultiplied alpha
            let layout = Self.layout(space.model, alphaInfo, info.intersection(.byteOrderMask))
        else { return nil }
        let minRow = width * layout.bytesPerPixel
        let rowBytes = bytesPerRow == 0 ? minRow : bytesPerRow
        guard rowBytes >= minRow else { return nil }
        self.width = width; self.height = height; self.bitsPerComponent = 8; self.bytesPerRow = rowBytes
        self.colorSpace = space; self.space = space; self.bitmapInfo = info; self.layout = layout
        if let data {
            self.data = data; owned = false
        } else {
            let p = UnsafeMutableRawPointer.allocate(byteCount: rowBytes * height, alignment: 16)
            p.initializeMemory(as: UInt8.self, repeating: 0, count: rowBytes * height)
            self.data = p; owned = true
        }
    }
    deinit { if owned { data?.deallocate() } }

    /// The component offsets of an 8-bit layout, nil when it is not one of the supported ones
    /// (grey without alpha; RGB with alpha or padding first or last, in either 32-bit byte order).
    static func layout(_ model: CGColorSpace.Model, _ a: CGImageAlphaInfo, _ order: CGBitmapInfo) -> Layout? {
        if model == .monochrome {
            return a == .none ? Layout(bytesPerPixel: 1, rgb: nil, gray: 0, alpha: nil, premultiplied: false) : nil
        }
        // Components as named in memory order for the default (big) order; reversed for 32Little.
        let little = order == .byteOrder32Little
        guard order == .byteOrderDefault || order == .byteOrder32Big || little else { return nil }
        let named: (rgb: (Int, Int, Int), alpha: Int?)
        switch a {
        case .premultipliedLast: named = ((0, 1, 2), 3)
        case .premultipliedFirst: named = ((1, 2, 3), 0)
        case .last: named = ((0, 1, 2), 3)
        case .first: named = ((1, 2, 3), 0)
        case .noneSkipLast: named = ((0, 1, 2), nil)
        case .noneSkipFirst: named = ((1, 2, 3), nil)
        default: return nil
        }
        func place(_ i: Int) -> Int { little ? 3 - i : i }
        return Layout(
            bytesPerPixel: 4, rgb: (place(named.rgb.0), place(named.rgb.1), place(named.rgb.2)), gray: nil,
            alpha: named.alpha.map(place), premultiplied: a == .premultipliedFirst || a == .premultipliedLast,
            padding: named.alpha == nil ? place(a == .noneSkipLast ? 3 : 0) : nil)
    }

    /// The bits per pixel (32 for RGB, 8 for grey).
    public var bitsPerPixel: Int { layout.bytesPerPixel * 8 }
    /// The alpha info of the layout.
    public var alphaInfo: CGImageAlphaInfo { bitmapInfo.alphaInfo ?? .none }

    // MARK: Graphics state

    /// The current transform from user space to the bitmap (origin bottom left, y up, in pixels).
    public var ctm: CGAffineTransform { state.ctm }
    /// Saves the transform, fill colour, alpha, blend mode and interpolation.
    public func saveGState() { saved.append(state) }
    /// Restores the state the matching `saveGState` saved (nothing when none is saved).
    public func restoreGState() { if let s = saved.popLast() { state = s } }
    /// Moves user space's origin by `tx`, `ty`.
    public func translateBy(x tx: CGFloat, y ty: CGFloat) { state.ctm = CGAffineTransform(translationX: tx, y: ty).concatenating(state.ctm) }
    /// Scales user space by `sx`, `sy` (`scaleBy(x: 1, y: -1)` after a translation flips it).
    public func scaleBy(x sx: CGFloat, y sy: CGFloat) { state.ctm = CGAffineTransform(scaleX: sx, y: sy).concatenating(state.ctm) }
    /// Rotates user space by `angle` radians (anticlockwise).
    public func rotate(by angle: CGFloat) { state.ctm = CGAffineTransform(rotationAngle: angle).concatenating(state.ctm) }
    /// Applies `transform` to user space.
    public func concatenate(_ transform: CGAffineTransform) { state.ctm = transform.concatenating(state.ctm) }
    /// A global alpha that multiplies everything drawn after (0...1).
    public func setAlpha(_ alpha: CGFloat) { state.alpha = Float(min(max(alpha, 0), 1)) }
    /// How later fills and draws combine with the bitmap.
    public func setBlendMode(_ mode: CGBlendMode) { state.blend = mode }
    /// The colour `fill` uses, converted into the context's space.
    public func setFillColor(_ color: CGColor) {
        let e = color.encoded(in: space)
        state.fill = space.model == .rgb ? SIMD4(e.rgb, e.alpha) : SIMD4(e.gray, e.gray, e.gray, e.alpha)
    }
    /// The fill colour from components in the context's RGB space (sRGB-like spaces) and alpha.
    public func setFillColor(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat) {
        setFillColor(CGColor(colorSpace: space.model == .rgb ? space : .sRGBSpace, components: [red, green, blue, alpha])!)
    }
    /// The fill colour as a grey (generic grey space) and alpha.
    public func setFillColor(gray: CGFloat, alpha: CGFloat) { setFillColor(CGColor(gray: gray, alpha: alpha)) }

    // MARK: Drawing

    /// Fills `rect` (user space) with the fill colour, composited as the blend mode says.
    /// Pixels are covered when their centres are inside the transformed rectangle.
    public func fill(_ rect: CGRect) {
        let c = state.fill
        let premultiplied = SIMD4(c.x * c.w, c.y * c.w, c.z * c.w, c.w) * state.alpha
        paint(rect) { _, _ in premultiplied }
    }
    /// Fills each rectangle in turn.
    public func fill(_ rects: [CGRect]) { for r in rects { fill(r) } }
    /// Sets `rect`'s pixels to transparent black (opaque black where the layout has no alpha).
    public func clear(_ rect: CGRect) {
        let mode = state.blend
        state.blend = .copy
        paint(rect) { _, _ in .zero }
        state.blend = mode
    }

    /// Draws `image` scaled into `rect` (user space): its top row at `rect.maxY`, colour-managed
    /// from the image's space into the context's, sampled as `interpolationQuality` says.
    public func draw(_ image: CGImage, in rect: CGRect) {
        guard image.width > 0, image.height > 0, rect.width != 0, rect.height != 0 else { return }
        let gray = space.model == .monochrome
        let target = gray ? CGColorSpace.linearSRGBSpace : space
        guard
            let r = try? ImageIOContext.shared.renderToData(
                CIImage(cgImage: image), from: CGRect(x: 0, y: 0, width: image.width, height: image.height), format: .RGBAf,
                colorSpace: target, premultiplied: true)
        else { return }
        let iw = r.width, ih = r.height
        var pixels = [SIMD4<Float>](repeating: .zero, count: iw * ih)
        pixels.withUnsafeMutableBytes { dst in
            r.data.withUnsafeBytes { src in
                for y in 0..<ih {
                    (dst.baseAddress! + y * iw * 16).copyMemory(from: src.baseAddress! + y * r.rowBytes, byteCount: iw * 16)
                }
            }
        }
        if gray {
            for i in pixels.indices {
                let p = pixels[i]
                guard p.w > 0 else { continue }
                let g = space.encode(linearLuminance(SIMD3(p.x, p.y, p.z) / p.w)) * p.w
                pixels[i] = SIMD4(g, g, g, p.w)
            }
        }
        let nearest = state.interpolation == .none
        let sx = CGFloat(iw) / rect.width, sy = CGFloat(ih) / rect.height
        let alpha = state.alpha
        paint(rect) { ux, uy in
            // Image coordinates, y down from the top row.
            let ix = Float((ux - rect.minX) * sx), iy = Float((rect.maxY - uy) * sy)
            let s: SIMD4<Float>
            if nearest {
                let x = min(max(Int(ix.rounded(.down)), 0), iw - 1), y = min(max(Int(iy.rounded(.down)), 0), ih - 1)
                s = pixels[y * iw + x]
            } else {
                let fx = ix - 0.5, fy = iy - 0.5
                let x0f = fx.rounded(.down), y0f = fy.rounded(.down)
                let tx = fx - x0f, ty = fy - y0f
                let x0 = min(max(Int(x0f), 0), iw - 1), x1 = min(max(Int(x0f) + 1, 0), iw - 1)
                let y0 = min(max(Int(y0f), 0), ih - 1), y1 = min(max(Int(y0f) + 1, 0), ih - 1)
                let top = pixels[y0 * iw + x0] * (1 - tx) + pixels[y0 * iw + x1] * tx
                let bottom = pixels[y1 * iw + x0] * (1 - tx) + pixels[y1 * iw + x1] * tx
                s = top * (1 - ty) + bottom * ty
            }
            return s * alpha
        }
    }

    /// An image of the bitmap as it is now (a copy: later drawing does not change it); nil only
    /// when the context has no pixels.
    public func makeImage() -> CGImage? {
        guard let data else { return nil }
        let l = layout
        if let g = l.gray {
            var out = Data(count: width * height)
            out.withUnsafeMutableBytes { (o: UnsafeMutableRawBufferPointer) in
                for y in 0..<height {
                    let row = data + y * bytesPerRow
                    for x in 0..<width { o[y * width + x] = row.load(fromByteOffset: x + g, as: UInt8.self) }
                }
            }
            return CGImage(width: width, height: height, bytesPerRow: width, format: .L8, colorSpace: space, premultiplied: false, data: out)
        }
        let out = Self.rgba8(data, width: width, height: height, bytesPerRow: bytesPerRow, layout: l)
        return CGImage(width: width, height: height, bytesPerRow: width * 4, format: .RGBA8, colorSpace: space, premultiplied: l.alpha != nil, data: out)
    }

    /// Pixels of an RGB `layout` as RGBA8 in memory order R, G, B, A, rows packed (padding
    /// becomes opaque alpha).
    static func rgba8(_ data: UnsafeRawPointer, width: Int, height: Int, bytesPerRow: Int, layout l: Layout) -> Data {
        var out = Data(count: width * height * 4)
        let (ri, gi, bi) = l.rgb!
        out.withUnsafeMutableBytes { (o: UnsafeMutableRawBufferPointer) in
            for y in 0..<height {
                let row = data + y * bytesPerRow
                for x in 0..<width {
                    let p = row + x * 4, d = (y * width + x) * 4
                    o[d] = p.load(fromByteOffset: ri, as: UInt8.self)
                    o[d + 1] = p.load(fromByteOffset: gi, as: UInt8.self)
                    o[d + 2] = p.load(fromByteOffset: bi, as: UInt8.self)
                    o[d + 3] = l.alpha.map { p.load(fromByteOffset: $0, as: UInt8.self) } ?? 255
                }
            }
        }
        return out
    }

    /// Runs `source` (premultiplied RGBA in the context's space, for a user-space point) at every
    /// pixel whose centre lies inside `rect` after the transform, and composites the result.
    private func paint(_ rect: CGRect, _ source: (CGFloat, CGFloat) -> SIMD4<Float>) {
        guard let data, rect.width.isFinite, rect.height.isFinite, !rect.isNull else { return }
        let r = rect.standardized
        let ctm = state.ctm
        let det = ctm.a * ctm.d - ctm.b * ctm.c
        guard det != 0, det.isFinite else { return }  // a singular transform draws nothing
        let inverse = ctm.inverted()
        // The pixels the transformed rectangle can touch.
        let corners = [CGPoint(x: r.minX, y: r.minY), CGPoint(x: r.maxX, y: r.minY), CGPoint(x: r.minX, y: r.maxY), CGPoint(x: r.maxX, y: r.maxY)]
            .map { $0.applying(ctm) }
        let minX = max(0, Int((corners.map(\.x).min()! - 1).rounded(.down)))
        let maxX = min(width, Int((corners.map(\.x).max()! + 1).rounded(.up)))
        let minY = max(0, Int((corners.map(\.y).min()! - 1).rounded(.down)))
        let maxY = min(height, Int((corners.map(\.y).max()! + 1).rounded(.up)))
        guard minX < maxX, minY < maxY else { return }
        let l = layout
        let blend = state.blend
        for dy in minY..<maxY {  // dy: device row counted from the bottom
            let row = data + (height - 1 - dy) * bytesPerRow
            for dx in minX..<maxX {
                let u = CGPoint(x: CGFloat(dx) + 0.5, y: CGFloat(dy) + 0.5).applying(inverse)
                guard u.x >= r.minX, u.x < r.maxX, u.y >= r.minY, u.y < r.maxY else { continue }
                let s = source(u.x, u.y)
                let p = row + dx * l.bytesPerPixel
                var d = read(p, l)
                switch blend {
                case .normal: d = s + d * (1 - s.w)
                case .copy: d = s
                case .clear: d = .zero
                }
                write(d, p, l)
            }
        }
    }

    /// A pixel as premultiplied RGBA in 0...1 (grey repeated; no alpha: opaque).
    private func read(_ p: UnsafeMutableRawPointer, _ l: Layout) -> SIMD4<Float> {
        let a = l.alpha.map { Float(p.load(fromByteOffset: $0, as: UInt8.self)) / 255 } ?? 1
        if let g = l.gray {
            let v = Float(p.load(fromByteOffset: g, as: UInt8.self)) / 255
            return SIMD4(v, v, v, a)
        }
        let (ri, gi, bi) = l.rgb!
        return SIMD4(
            Float(p.load(fromByteOffset: ri, as: UInt8.self)) / 255, Float(p.load(fromByteOffset: gi, as: UInt8.self)) / 255,
            Float(p.load(fromByteOffset: bi, as: UInt8.self)) / 255, a)
    }

    /// Stores premultiplied RGBA (colour kept as is where the layout has alpha; composited over
    /// black where it has none, so padding layouts stay opaque).
    private func write(_ v: SIMD4<Float>, _ p: UnsafeMutableRawPointer, _ l: Layout) {
        @inline(__always) func byte(_ f: Float) -> UInt8 { UInt8(min(max(f * 255, 0), 255).rounded()) }
        if let g = l.gray {
            p.storeBytes(of: byte(v.x), toByteOffset: g, as: UInt8.self)
            return
        }
        let (ri, gi, bi) = l.rgb!
        p.storeBytes(of: byte(v.x), toByteOffset: ri, as: UInt8.self)
        p.storeBytes(of: byte(v.y), toByteOffset: gi, as: UInt8.self)
        p.storeBytes(of: byte(v.z), toByteOffset: bi, as: UInt8.self)
        if let a = l.alpha { p.storeBytes(of: byte(v.w), toByteOffset: a, as: UInt8.self) }
        if let pad = l.padding { p.storeBytes(of: 255, toByteOffset: pad, as: UInt8.self) }
    }
}
#endif
