#if !canImport(CoreGraphics)
internal import CyanotypeCodecs
import Foundation

/// Image I/O's image destination: images written into one file (frames of a GIF, APNG or
/// WebP animation, pages of a TIFF, or one image of any format), to a URL or into a
/// `CFMutableData`.
///
/// Frames of an animation are encoded as they are added (a GIF frame gets its own palette
/// then), so memory holds the encoded file, not every frame; the loop count may still be set
/// at any time before `CGImageDestinationFinalize`.
public final class CGImageDestination: @unchecked Sendable {
    let format: ImageFileFormat
    let capacity: Int
    let url: URL?
    let output: NSMutableData?
    private let lock = NSLock()
    private var properties: [String: Any] = [:]
    private var encoder: FrameEncoder?
    /// The one image of a single-image destination, encoded at the end.
    private var single: (CGImage, [String: Any])?
    private var added = 0
    private var finalized = false
    /// Cyanotype: why the last call failed.
    public private(set) var error: ImageIOError?

    init(format: ImageFileFormat, count: Int, url: URL?, output: NSMutableData?, options: [String: Any]) {
        self.format = format
        capacity = count
        self.url = url
        self.output = output
        properties = options
    }

    /// Whether frames go through the animation / page encoder.
    private var writesFrames: Bool { capacity > 1 && FrameEncoder.canWriteFrames(format) }

    func setProperties(_ p: [String: Any]) {
        lock.lock(); defer { lock.unlock() }
        properties.merge(p) { _, new in new }
    }

    /// Adds an image; throws a typed error when it cannot be encoded.
    public func add(_ image: CGImage, properties frameProperties: [String: Any]) throws(ImageIOError) {
        lock.lock(); defer { lock.unlock() }
        do throws(ImageIOError) {
            guard !finalized else { throw .unsupportedOutput("the destination was already finalized") }
            guard added < max(capacity, 1) else {
                throw .unsupportedOutput("the destination was created for \(capacity) image\(capacity == 1 ? "" : "s")")
            }
            if !writesFrames {
                single = (image, frameProperties)
                added += 1
                return
            }
            if encoder == nil {
                var all = properties
                all.merge(frameProperties) { old, _ in old }
                let dithering = OptionValue.flag(all[kCyanotypeDestinationGIFDithering]) ?? true
                var options = encodeOptions(all)
                // The file's metadata from the destination's and the first frame's properties:
                // its ICC profile (from the image's colour space), EXIF and XMP (GIF holds none).
                if !(OptionValue.flag(all[CIImageRepresentationOption.stripMetadata.rawValue]) ?? false) {
                    options.addMetadata(of: all, colorSpace: image.colorSpace ?? .sRGBSpace, dpi: nil)
                }
                do {
                    encoder = try FrameEncoder(format: format, options: options, pageCount: capacity, dithering: dithering)
                } catch {
                    throw .codec(path: url?.path, error)
                }
            }
            guard let encoder else { return }
            let delay = Self.delay(frameProperties) ?? Self.delay(properties) ?? 0.1
            let deep = (format == .png || format == .tiff) && image.format != .RGBA8
            let pixels = try ImageIOPixels(
                image, depth: format == .tiff && image.format == .RGBAf ? 32 : deep ? 16 : 8,
                colorSpace: format.holdsColorProfile ? nil : .sRGBSpace)
            do {
                switch pixels.storage {
                case .u8(let p):
                    try p.withUnsafeBufferPointer { (b) throws(ImageFileError) in
                        try encoder.add(rgba8: b, width: pixels.width, height: pixels.height, hasAlpha: pixels.hasAlpha, delay: delay)
                    }
                case .u16(let p):
                    try p.withUnsafeBufferPointer { (b) throws(ImageFileError) in
                        try encoder.add(rgba16: b, width: pixels.width, height: pixels.height, hasAlpha: pixels.hasAlpha, delay: delay)
                    }
                case .f32(let p):
                    try p.withUnsafeBufferPointer { (b) throws(ImageFileError) in
                        try encoder.add(rgbaF: b, width: pixels.width, height: pixels.height, hasAlpha: pixels.hasAlpha, delay: delay)
                    }
                }
            } catch {
                throw .codec(path: url?.path, error)
            }
            added += 1
        } catch {
            self.error = error
            throw error
        }
    }

    /// Writes the file (or fills the data); throws a typed error naming the file.
    public func finalize() throws(ImageIOError) {
        lock.lock(); defer { lock.unlock() }
        do throws(ImageIOError) {
            guard !finalized else { throw .unsupportedOutput("the destination was already finalized") }
            guard added > 0 else { throw .unsupportedOutput("no image was added to the destination") }
            finalized = true
            let bytes: Data
            if let encoder {
                do {
                    bytes = try encoder.finish(loopCount: Self.loopCount(properties))
                } catch {
                    throw .codec(path: url?.path, error)
                }
            } else if let (image, frameProperties) = single {
                var all = properties
                all.merge(frameProperties) { _, new in new }
                bytes = try Self.encodeSingle(image, format: format, properties: all)
            } else {
                throw .unsupportedOutput("no image was added to the destination")
            }
            if let url {
                try ImageIOContext.shared.writeAtomically(bytes, to: url)
            } else if let output {
                output.setData(bytes)
            }
        } catch {
            self.error = error
            throw error
        }
    }

    /// One image through `CIContext`'s encoder (profiles, depth, quality as for `encode`).
    static func encodeSingle(_ image: CGImage, format: ImageFileFormat, properties p: [String: Any]) throws(ImageIOError) -> Data {
        var options: [CIImageRepresentationOption: Any] = [:]
        for (k, v) in p { options[CIImageRepresentationOption(rawValue: k)] = v }
        if format == .gif {
            let pixels = try ImageIOPixels(image, depth: 8, colorSpace: .sRGBSpace)
            let dithering = OptionValue.flag(p[kCyanotypeDestinationGIFDithering]) ?? true
            do throws(ImageFileError) {
                let e = try FrameEncoder(format: .gif, options: EncodeOptions(), dithering: dithering)
                guard case .u8(let px) = pixels.storage else { throw ImageFileError.invalidArgument("8-bit pixels expected") }
                try px.withUnsafeBufferPointer { (b) throws(ImageFileError) in
                    try e.add(rgba8: b, width: pixels.width, height: pixels.height, hasAlpha: pixels.hasAlpha, delay: delay(p) ?? 0)
                }
                return try e.finish(loopCount: loopCount(p))
            } catch {
                throw .codec(path: nil, error)
            }
        }
        // The properties travel with the image: its EXIF, XMP, orientation and DPI are written.
        let ci = CIImage(cgImage: image).settingProperties(p)
        let depth = image.format == .RGBAf && format == .tiff ? 32 : image.format == .RGBA8 ? 8 : 16
        return try ImageIOContext.shared.encode(ci, as: format, depth: depth, colorSpace: image.colorSpace ?? .sRGBSpace, options: options)
    }

    /// Encoder settings from a properties dictionary: Image I/O's quality key and Cyanotype's
    /// representation options (lossless, effort, compression, ...).
    func encodeOptions(_ p: [String: Any]) -> EncodeOptions {
        var o = EncodeOptions()
        if let q = OptionValue.number(p[kCGImageDestinationLossyCompressionQuality]) { o.quality = min(max(q, 0), 1) }
        if let l = OptionValue.flag(p[CIImageRepresentationOption.lossless.rawValue]) { o.lossless = l }
        if let e = OptionValue.integer(p[CIImageRepresentationOption.effort.rawValue]) { o.effort = e }
        if let c = OptionValue.integer(p[CIImageRepresentationOption.compressionLevel.rawValue]) { o.compressionLevel = c }
        if let t = p[CIImageRepresentationOption.tiffCompression.rawValue] as? TIFFCompression { o.tiffCompression = t }
        if let g = OptionValue.flag(p[CIImageRepresentationOption.grayscaleIfNeutral.rawValue]) { o.grayscaleIfNeutral = g }
        return o
    }

    /// The format's own dictionary in `p` ({GIF}, {PNG} or {WebP}; any of them is read).
    static func frameDictionary(_ p: [String: Any]) -> [String: Any]? {
        for key in [kCGImagePropertyGIFDictionary, kCGImagePropertyPNGDictionary, kCGImagePropertyWebPDictionary] {
            if let d = p[key] as? [String: Any] { return d }
        }
        return nil
    }

    /// The delay in seconds (unclamped delay first).
    static func delay(_ p: [String: Any]) -> Double? {
        guard let d = frameDictionary(p) else { return nil }
        return OptionValue.number(d[kCGImagePropertyGIFUnclampedDelayTime]) ?? OptionValue.number(d[kCGImagePropertyGIFDelayTime])
    }

    static func loopCount(_ p: [String: Any]) -> Int? {
        OptionValue.integer(frameDictionary(p)?[kCGImagePropertyGIFLoopCount])
    }
}

/// A `CGImage`'s pixels as straight-alpha samples for an encoder: copied (and unpremultiplied)
/// when they already are RGBA8, rendered through `CIContext` otherwise.
struct ImageIOPixels {
    enum Storage { case u8([UInt8]), u16([UInt16]), f32([Float]) }
    let width: Int, height: Int
    let storage: Storage
    let hasAlpha: Bool

    /// `colorSpace`: the space the samples are wanted in (nil: the image's own; GIF asks for
    /// sRGB, having no profile to say otherwise).
    init(_ image: CGImage, depth: Int, colorSpace target: CGColorSpace? = nil) throws(ImageIOError) {
        width = image.width
        height = image.height
        let space = target ?? image.colorSpace ?? .sRGBSpace
        let converts = target.map { $0 != (image.colorSpace ?? .sRGBSpace) } ?? false
        if depth == 8, !converts, image.format == .RGBA8, image.bytesPerRow >= image.width * 4, image.data.count >= image.bytesPerRow * (image.height - 1) + image.width * 4 {
            var px = [UInt8](repeating: 0, count: image.width * image.height * 4)
            let w = image.width, rowBytes = image.bytesPerRow, premultiplied = image.isPremultiplied
            image.data.withUnsafeBytes { raw in
                let src = raw.bindMemory(to: UInt8.self).baseAddress!
                px.withUnsafeMutableBufferPointer { out in
                    for y in 0..<image.height {
                        let s = src + y * rowBytes, d = out.baseAddress! + y * w * 4
                        d.update(from: s, count: w * 4)
                        if premultiplied {
                            for i in 0..<w {
                                let a = Int(d[i * 4 + 3])
                                if a == 0 || a == 255 { continue }
                                for c in 0..<3 { d[i * 4 + c] = UInt8(min(255, (Int(d[i * 4 + c]) * 255 + a / 2) / a)) }
                            }
                        }
                    }
                }
            }
            hasAlpha = ImageIOPixels.anyClear(px)
            storage = .u8(px)
            return
        }
        let ci = CIImage(cgImage: image)
        let format: CIFormat = depth == 32 ? .RGBAf : depth == 16 ? .RGBA16 : .RGBA8
        let r: (data: Data, width: Int, height: Int, rowBytes: Int)
        do {
            r = try ImageIOContext.shared.renderToData(
                ci, from: ci.extent, format: format, colorSpace: space, premultiplied: false)
        } catch let e as CIRenderError {
            throw .render(e)
        } catch {
            throw .unsupportedOutput("\(error)")
        }
        switch depth {
        case 32:
            let f = r.data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            hasAlpha = stride(from: 3, to: f.count, by: 4).contains { f[$0] < 1 }
            storage = .f32(f)
        case 16:
            let w = r.data.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
            hasAlpha = stride(from: 3, to: w.count, by: 4).contains { w[$0] != 65535 }
            storage = .u16(w)
        default:
            let b = [UInt8](r.data)
            hasAlpha = ImageIOPixels.anyClear(b)
            storage = .u8(b)
        }
    }

    static func anyClear(_ px: [UInt8]) -> Bool {
        px.withUnsafeBufferPointer { p in
            var i = 3
            while i < p.count {
                if p[i] != 255 { return true }
                i += 4
            }
            return false
        }
    }
}

// MARK: - Image I/O's functions

/// A destination writing `count` images of `type` (a uniform type identifier:
/// "com.compuserve.gif", "public.png" (APNG when `count` > 1), "org.webmproject.webp",
/// "public.tiff", "public.jpeg", "public.heic", "public.avif", "public.jpeg-xl") to `url`; nil
/// for other types.
public func CGImageDestinationCreateWithURL(_ url: CFURL, _ type: CFString, _ count: Int, _ options: CFDictionary?) -> CGImageDestination? {
    guard let format = ImageFileFormat(typeIdentifier: type), count >= 1 else { return nil }
    return CGImageDestination(format: format, count: count, url: url, output: nil, options: options as? [String: Any] ?? [:])
}

/// A destination filling `data` at `CGImageDestinationFinalize`.
public func CGImageDestinationCreateWithData(_ data: CFMutableData, _ type: CFString, _ count: Int, _ options: CFDictionary?) -> CGImageDestination? {
    guard let format = ImageFileFormat(typeIdentifier: type), count >= 1 else { return nil }
    return CGImageDestination(format: format, count: count, url: nil, output: data, options: options as? [String: Any] ?? [:])
}

/// File-level properties: the loop count (`{GIF}`/`{PNG}`/`{WebP}` `LoopCount`; 0 loops
/// forever; when none is set a GIF gets no loop block and plays once, APNG and WebP store 0),
/// `kCGImageDestinationLossyCompressionQuality`, and Cyanotype's options.
public func CGImageDestinationSetProperties(_ idst: CGImageDestination, _ properties: CFDictionary?) {
    idst.setProperties(properties as? [String: Any] ?? [:])
}

/// Adds an image; for animations its `{GIF}`/`{PNG}`/`{WebP}` `DelayTime` (or
/// `UnclampedDelayTime`) sets how long it shows (default 0.1 s). Failures are kept for
/// `CGImageDestinationFinalize` to report (`CGImageDestination.error` says why).
public func CGImageDestinationAddImage(_ idst: CGImageDestination, _ image: CGImage, _ properties: CFDictionary?) {
    try? idst.add(image, properties: properties as? [String: Any] ?? [:])
}

/// Adds image `index` of `isrc`, with its delay unless `properties` give one.
public func CGImageDestinationAddImageFromSource(_ idst: CGImageDestination, _ isrc: CGImageSource, _ index: Int, _ properties: CFDictionary?) {
    guard let image = try? isrc.createImage(at: index) else { return }
    var p = isrc.properties(at: index, raw: true) ?? [:]
    for (k, v) in properties as? [String: Any] ?? [:] { p[k] = v }
    try? idst.add(image, properties: p)
}

/// Writes the file; false when any image could not be added or the file not written.
public func CGImageDestinationFinalize(_ idst: CGImageDestination) -> Bool {
    if idst.error != nil { return false }
    do {
        try idst.finalize()
        return true
    } catch {
        return false
    }
}

/// The uniform type identifiers a destination writes here.
public func CGImageDestinationCopyTypeIdentifiers() -> [CFString] {
    ImageFileFormat.allCases.filter(\.canEncode).map(\.typeIdentifier)
}
#endif
