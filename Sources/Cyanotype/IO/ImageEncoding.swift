internal import CyanotypeCodecs
import Foundation

/// Options for `CIContext`'s file representations, with Core Image's names.
public struct CIImageRepresentationOption: RawRepresentable, Hashable, Sendable {
    /// The option's key.
    public let rawValue: String
    /// The option with key `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Cyanotype: JPEG chroma subsampling, a `ChromaSubsampling` (default 4:2:0).
    public static let chromaSubsampling = CIImageRepresentationOption(rawValue: "cyanotype_chroma_subsampling")
    /// Cyanotype: Bool, progressive JPEG.
    public static let progressive = CIImageRepresentationOption(rawValue: "cyanotype_progressive")
    /// Cyanotype: Bool, lossless WebP, AVIF/HEIF or JPEG XL.
    public static let lossless = CIImageRepresentationOption(rawValue: "cyanotype_lossless")
    /// Cyanotype: Int 0...9, PNG compression level.
    public static let compressionLevel = CIImageRepresentationOption(rawValue: "cyanotype_compression_level")
    /// Cyanotype: a `TIFFCompression` for TIFF strips (default LZW).
    public static let tiffCompression = CIImageRepresentationOption(rawValue: "cyanotype_tiff_compression")
    /// Cyanotype: Bool, write no metadata (default false). Files then carry no ICC profile even
    /// when the colour space is not sRGB, no DPI, no EXIF and no XMP, and orientation 1.
    /// Otherwise the image's EXIF and XMP (`kCyanotypePropertyRawEXIF`, `kCyanotypePropertyRawXMP`)
    /// are written in every format, their orientation set to the image's `Orientation`
    /// property (1 once the pixels were turned upright); TIFF and JPEG XL also write that
    /// orientation in their own header.
    public static let stripMetadata = CIImageRepresentationOption(rawValue: "cyanotype_strip_metadata")
    /// Cyanotype: Double, dots per inch written into TIFF, PNG and JPEG files (default: the
    /// image's `kCGImagePropertyDPIWidth` property, when it has one).
    public static let dpi = CIImageRepresentationOption(rawValue: "cyanotype_dpi")
    /// Cyanotype: Bool, whether PNG, WebP, TIFF, HEIF and AVIF files get an alpha channel
    /// (default true); false writes colour (or grey) only, the rendered alpha ignored (flatten
    /// the image first). JPEG never has one.
    public static let alphaChannel = CIImageRepresentationOption(rawValue: "cyanotype_alpha_channel")
    /// Cyanotype: Bool, write one grey channel to PNG, TIFF, JPEG and JPEG XL when every rendered pixel
    /// has equal red, green and blue (default false: always colour). JPEG, PNG and TIFF output
    /// is then encoded after the render instead of during it. In a `CGImageDestination`'s properties,
    /// TIFF pages decide page by page.
    public static let grayscaleIfNeutral = CIImageRepresentationOption(rawValue: "cyanotype_grayscale_if_neutral")
    /// Cyanotype: Int, encoder effort: WebP 0...6 (libwebp's method), AVIF/HEIF 0...9, JPEG XL 1...9.
    public static let effort = CIImageRepresentationOption(rawValue: "cyanotype_effort")
    /// Cyanotype: a `PNGFilter`, the PNG row filter (default: the one `.compressionLevel`
    /// picks: none at 0, up at 1...5, adaptive at 6...9).
    public static let pngFilter = CIImageRepresentationOption(rawValue: "cyanotype_png_filter")
}

/// Image I/O's quality key (0...1), as Core Image users pass it.
public let kCGImageDestinationLossyCompressionQuality = "kCGImageDestinationLossyCompressionQuality"

extension CIImageRepresentationOption {
    /// Image I/O's quality key: a number 0...1 for JPEG, lossy WebP, HEIF, AVIF and lossy JPEG XL
    /// (default 0.9).
    public static let lossyCompressionQuality = CIImageRepresentationOption(rawValue: kCGImageDestinationLossyCompressionQuality)
}

extension CIContext {
    /// JPEG bytes of `image` (its extent), or nil; `encode(_:format:...)` says why.
    public func jpegRepresentation(of image: CIImage, colorSpace: CGColorSpace, options: [CIImageRepresentationOption: Any] = [:]) -> Data? {
        try? encode(image, as: .jpeg, colorSpace: colorSpace, options: options)
    }
    /// PNG bytes; `format` RGBA16 (or RGBAh/RGBAf) writes 16-bit samples, others 8-bit.
    public func pngRepresentation(of image: CIImage, format: CIFormat, colorSpace: CGColorSpace, options: [CIImageRepresentationOption: Any] = [:]) -> Data? {
        try? encode(image, as: .png, depth: format.isDeep ? 16 : 8, colorSpace: colorSpace, options: options)
    }
    /// Cyanotype: WebP bytes (lossy by quality, or lossless).
    public func webpRepresentation(of image: CIImage, colorSpace: CGColorSpace, options: [CIImageRepresentationOption: Any] = [:]) -> Data? {
        try? encode(image, as: .webp, colorSpace: colorSpace, options: options)
    }

    /// Writes `jpegRepresentation`'s bytes to `url` atomically; throws the `ImageIOError` that stopped it.
    public func writeJPEGRepresentation(of image: CIImage, to url: URL, colorSpace: CGColorSpace, options: [CIImageRepresentationOption: Any] = [:]) throws {
        try write(image, as: .jpeg, to: url, colorSpace: colorSpace, options: options)
    }
    /// Writes `pngRepresentation`'s bytes to `url` atomically; throws the `ImageIOError` that stopped it.
    public func writePNGRepresentation(of image: CIImage, to url: URL, format: CIFormat, colorSpace: CGColorSpace, options: [CIImageRepresentationOption: Any] = [:]) throws {
        try write(image, as: .png, to: url, depth: format.isDeep ? 16 : 8, colorSpace: colorSpace, options: options)
    }
    /// Cyanotype: writes `webpRepresentation`'s bytes to `url` atomically; throws the `ImageIOError` that stopped it.
    public func writeWEBPRepresentation(of image: CIImage, to url: URL, colorSpace: CGColorSpace, options: [CIImageRepresentationOption: Any] = [:]) throws {
        try write(image, as: .webp, to: url, colorSpace: colorSpace, options: options)
    }

    /// TIFF bytes: `format` RGBAf writes 32-bit float samples, RGBA16/RGBAh 16-bit, others
    /// 8-bit; LZW unless `.tiffCompression` says otherwise.
    public func tiffRepresentation(of image: CIImage, format: CIFormat, colorSpace: CGColorSpace, options: [CIImageRepresentationOption: Any] = [:]) -> Data? {
        try? encode(image, as: .tiff, depth: format.tiffDepth, colorSpace: colorSpace, options: options)
    }
    /// Writes `tiffRepresentation`'s bytes to `url` atomically; throws the `ImageIOError` that stopped it.
    public func writeTIFFRepresentation(of image: CIImage, to url: URL, format: CIFormat, colorSpace: CGColorSpace, options: [CIImageRepresentationOption: Any] = [:]) throws {
        try write(image, as: .tiff, to: url, depth: format.tiffDepth, colorSpace: colorSpace, options: options)
    }
    /// HEIF (HEVC) bytes at `.lossyCompressionQuality`, 8-bit whatever `format` says; nil when
    /// libheif has no HEVC encoder (`ImageFileFormat.heif.canEncode`).
    public func heifRepresentation(of image: CIImage, format: CIFormat, colorSpace: CGColorSpace, options: [CIImageRepresentationOption: Any] = [:]) -> Data? {
        try? encode(image, as: .heif, colorSpace: colorSpace, options: options)
    }
    /// Writes `heifRepresentation`'s bytes to `url` atomically; throws the `ImageIOError` that stopped it
    /// (also when libheif has no HEVC encoder).
    public func writeHEIFRepresentation(of image: CIImage, to url: URL, format: CIFormat, colorSpace: CGColorSpace, options: [CIImageRepresentationOption: Any] = [:]) throws {
        try write(image, as: .heif, to: url, colorSpace: colorSpace, options: options)
    }
    /// Cyanotype: AVIF (AV1 in HEIF) bytes at `.lossyCompressionQuality`, or lossless with `.lossless`.
    public func avifRepresentation(of image: CIImage, colorSpace: CGColorSpace, options: [CIImageRepresentationOption: Any] = [:]) -> Data? {
        try? encode(image, as: .avif, colorSpace: colorSpace, options: options)
    }
    /// Cyanotype: writes `avifRepresentation`'s bytes to `url` atomically; throws the `ImageIOError` that stopped it.
    public func writeAVIFRepresentation(of image: CIImage, to url: URL, colorSpace: CGColorSpace, options: [CIImageRepresentationOption: Any] = [:]) throws {
        try write(image, as: .avif, to: url, colorSpace: colorSpace, options: options)
    }
    /// Cyanotype: JPEG XL bytes, lossy at `.lossyCompressionQuality` or lossless with
    /// `.lossless`; `format` RGBAf writes float samples, RGBA16/RGBAh 16-bit, others 8-bit.
    public func jpegXLRepresentation(of image: CIImage, format: CIFormat, colorSpace: CGColorSpace, options: [CIImageRepresentationOption: Any] = [:]) -> Data? {
        try? encode(image, as: .jxl, depth: format.tiffDepth, colorSpace: colorSpace, options: options)
    }
    /// Cyanotype: writes `jpegXLRepresentation` to `url` atomically.
    public func writeJPEGXLRepresentation(of image: CIImage, to url: URL, format: CIFormat, colorSpace: CGColorSpace, options: [CIImageRepresentationOption: Any] = [:]) throws {
        try write(image, as: .jxl, to: url, depth: format.tiffDepth, colorSpace: colorSpace, options: options)
    }

    /// Encodes `image`'s extent as `format`: straight alpha, `colorSpace` (sRGB by default),
    /// 8-bit, or 16-bit for PNG, TIFF and JPEG XL when `depth` is 16, or 32-bit float for TIFF
    /// and JPEG XL when `depth` is 32. A colour space other than sRGB is embedded as an ICC
    /// profile (GIF holds none: its pixels are converted to sRGB), and the image's EXIF and XMP
    /// are written (unless `.stripMetadata`).
    public func encode(
        _ image: CIImage, as format: ImageFileFormat, depth: Int = 8, colorSpace: CGColorSpace? = nil,
        options: [CIImageRepresentationOption: Any] = [:]
    ) throws(ImageIOError) -> Data {
        let sink = ByteSink()
        try encode(image, as: format, depth: depth, colorSpace: colorSpace, options: options, into: sink)
        return sink.data
    }

    /// Writes `image` to `url` as `encode(_:as:depth:colorSpace:options:)` encodes it, atomically
    /// (a temporary file beside `url`, renamed into place; removed if anything fails). JPEG, PNG
    /// and TIFF output (8 or 16-bit, and float TIFF) is written as the rows are rendered, so
    /// neither the picture nor the file is whole in memory; the bytes are `encode`'s.
    public func write(
        _ image: CIImage, as format: ImageFileFormat, to url: URL, depth: Int = 8, colorSpace: CGColorSpace? = nil,
        options: [CIImageRepresentationOption: Any] = [:]
    ) throws(ImageIOError) {
        try writeAtomically(to: url) { sink throws(ImageIOError) in
            try encode(image, as: format, depth: depth, colorSpace: colorSpace, options: options, into: sink)
        }
    }

    /// `encode(_:as:depth:colorSpace:options:)` into `sink`.
    func encode(
        _ image: CIImage, as format: ImageFileFormat, depth: Int, colorSpace: CGColorSpace?,
        options: [CIImageRepresentationOption: Any], into sink: ByteSink
    ) throws(ImageIOError) {
        let rect = image.extent
        var opts = EncodeOptions()
        if let q = options[.lossyCompressionQuality].flatMap(numberValue) { opts.quality = min(max(q, 0), 1) }
        if let s = options[.chromaSubsampling] as? ChromaSubsampling { opts.chromaSubsampling = s }
        if let p = options[.progressive] as? Bool { opts.progressive = p }
        if let l = options[.lossless] as? Bool { opts.lossless = l }
        if let c = options[.compressionLevel].flatMap(numberValue) { opts.compressionLevel = Int(c) }
        if let t = options[.tiffCompression] as? TIFFCompression { opts.tiffCompression = t }
        if let e = options[.effort].flatMap(numberValue) { opts.effort = Int(e) }
        if let f = options[.pngFilter] as? PNGFilter { opts.pngFilter = f }
        let greyIfNeutral = ((options[.grayscaleIfNeutral] as? Bool) ?? false) && [.png, .tiff, .jpeg, .jxl].contains(format)
        // A format without a profile (GIF) gets sRGB values: other numbers would be misread.
        let space = format.holdsColorProfile ? colorSpace ?? outputColorSpace ?? .sRGBSpace : .sRGBSpace
        let strip = (options[.stripMetadata] as? Bool) ?? false
        if !strip { opts.addMetadata(of: image.properties, colorSpace: space, dpi: options[.dpi].flatMap(numberValue)) }
        let hasAlpha = format != .jpeg && ((options[.alphaChannel] as? Bool) ?? true)
        do {
            // JPEG, PNG (8 or 16-bit) and TIFF (8, 16-bit or float) stream: rows are rendered
            // band by band in the file's sample type and encoded as they finish, so neither the
            // picture nor the file is ever whole in memory (not when a grey file is wanted for
            // neutral pixels: that needs every pixel first). One render job decides whether
            // anything is rendered: an unfiltered bitmap already in memory goes to the encoder
            // as decoded (no render, no copy).
            if !greyIfNeutral && (format == .jpeg || format == .png || format == .tiff) {
                let samples: CIFormat = format == .jpeg || depth < 16 ? .RGBA8 : format == .tiff && depth == 32 ? .RGBAf : .RGBA16
                let (options, parallel, batch) = (opts, executor.parallelFor, min(4, max(2, executor.width)))
                let unchanged = try encodeStreaming(image, rect: rect, colorSpace: space, format: samples, takesYCbCr: format == .jpeg) {
                    width, height throws(ImageFileError) -> any BandEncoder in
                    switch format {
                    case .jpeg:
                        return JPEGBandEncoder(try JPEGStreamEncoder(width: width, height: height, options: options), sink: sink)
                    case .png:
                        return try PNGStreamEncoder(
                            width: width, height: height, hasAlpha: hasAlpha, sixteen: samples == .RGBA16, options: options, sink: sink,
                            batch: batch, parallel: parallel)
                    default:
                        let bits = samples == .RGBAf ? 32 : samples == .RGBA16 ? 16 : 8
                        return try TIFFStreamEncoder(width: width, height: height, bits: bits, hasAlpha: hasAlpha, options: options, sink: sink)
                    }
                }
                guard let unchanged else { return }
                try unchanged.data.withUnsafeBytes { raw in
                    if unchanged.format == .RGBA16 {
                        try ImageCodecs.encode(
                            rgba: raw.bindMemory(to: UInt16.self), width: unchanged.width, height: unchanged.height, hasAlpha: hasAlpha,
                            format: format, options: opts, parallel: executor.parallelFor, into: sink)
                    } else {
                        try ImageCodecs.encode(
                            rgba: raw.bindMemory(to: UInt8.self), width: unchanged.width, height: unchanged.height, hasAlpha: hasAlpha,
                            format: format, options: opts, parallel: executor.parallelFor, into: sink)
                    }
                }
                return
            }
            // The rest is rendered whole, then encoded: JPEG XL, WebP, HEIF/AVIF and GIF (their
            // libraries take a whole picture), and a grey-if-neutral file (every pixel is looked
            // at before the file's channels are known).
            if depth == 32 && (format == .tiff || format == .jxl) {
                let r = try renderToData(image, from: rect, format: .RGBAf, colorSpace: space, premultiplied: false)
                let data = try r.data.withUnsafeBytes { raw throws(ImageFileError) in
                    if greyIfNeutral { opts.grayscale = ImageCodecs.isNeutral(raw.bindMemory(to: Float.self)) }
                    return try ImageCodecs.encode(
                        rgbaF: raw.bindMemory(to: Float.self), width: r.width, height: r.height, hasAlpha: hasAlpha, format: format, options: opts,
                        parallel: executor.parallelFor)
                }
                try sink.append(data)
                return
            }
            if depth >= 16 && (format == .png || format == .tiff || format == .jxl) {
                let r = try renderToData(image, from: rect, format: .RGBA16, colorSpace: space, premultiplied: false)
                try r.data.withUnsafeBytes { raw in
                    if greyIfNeutral { opts.grayscale = ImageCodecs.isNeutral(raw.bindMemory(to: UInt16.self)) }
                    try ImageCodecs.encode(
                        rgba: raw.bindMemory(to: UInt16.self), width: r.width, height: r.height, hasAlpha: hasAlpha, format: format, options: opts,
                        parallel: executor.parallelFor, into: sink)
                }
                return
            }
            let encodeWhole = { (rgba: UnsafeBufferPointer<UInt8>, width: Int, height: Int) throws in
                if greyIfNeutral { opts.grayscale = ImageCodecs.isNeutral(rgba) }
                try ImageCodecs.encode(
                    rgba: rgba, width: width, height: height, hasAlpha: hasAlpha, format: format, options: opts,
                    parallel: self.executor.parallelFor, into: sink)
            }
            let pr = try renderablePixels(rect)
            let rowBytes = pr.width * 4
            var data = Data(count: rowBytes * pr.height)
            let outcome = try data.withUnsafeMutableBytes { raw in
                guard
                    let writer = DestinationWriter(
                        base: raw.baseAddress!, rowBytes: rowBytes, bounds: pr, format: .RGBA8, colorSpace: workingColorSpace == nil ? nil : space,
                        premultiplied: false, asValues: image.node.traits.producesData)
                else { throw CIRenderError.unsupportedFormat(.RGBA8) }
                return try Render(node: image.node, rect: pr, delivery: .bitmap(writer, lendsUnchanged: true), environment: environment).run()
            }
            if case .unchanged(let bitmap) = outcome {
                try bitmap.data.withUnsafeBytes { raw in try encodeWhole(raw.bindMemory(to: UInt8.self), bitmap.width, bitmap.height) }
            } else {
                try data.withUnsafeBytes { raw in try encodeWhole(raw.bindMemory(to: UInt8.self), pr.width, pr.height) }
            }
        } catch let e as CIRenderError {
            throw .render(e)
        } catch let e as ImageFileError {
            throw .codec(path: nil, e)
        } catch {
            throw .unsupportedOutput(String(describing: error))
        }
    }

    /// Writes to a temporary file beside `url`, then renames it into place, so a reader (or
    /// an interrupted run) never sees a half-written file.
    public func writeAtomically(_ data: Data, to url: URL) throws(ImageIOError) {
        try writeAtomically(to: url) { sink throws(ImageIOError) in
            do throws(ImageFileError) { try sink.append(data) } catch { throw .codec(path: nil, error) }
        }
    }

    /// Runs `fill` on a sink writing a temporary file beside `url` (created afresh, removed if
    /// anything fails), then renames the file into place. The sink's own write errors come out
    /// as `.writeFailed` on `url`; an input's errors as they are.
    private func writeAtomically(to url: URL, _ fill: (ByteSink) throws(ImageIOError) -> Void) throws(ImageIOError) {
        let dir = url.deletingLastPathComponent()
        let tmp = dir.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        // Recorded while it exists, so an interrupted command can remove it (TemporaryFiles).
        let fd = TemporaryFiles.create(tmp.path)
        guard fd >= 0 else { throw .writeFailed(path: url.path, detail: String(cString: strerror(errno))) }
        var closed = false
        defer {
            if !closed { close(fd) }
            TemporaryFiles.discard(tmp.path)  // gone after the rename; removes the partial file otherwise
        }
        do throws(ImageIOError) {
            let sink = ByteSink(fileDescriptor: fd, path: url.path)
            try fill(sink)
            do throws(ImageFileError) { try sink.flush() } catch { throw .codec(path: nil, error) }
        } catch .codec(nil, .ioError(let path, let detail)) where path == url.path {
            throw .writeFailed(path: url.path, detail: detail)  // the output's write, not an input's read
        }
        closed = true
        if close(fd) != 0 { throw .writeFailed(path: url.path, detail: String(cString: strerror(errno))) }
        // rename(2) replaces an existing file atomically (FileManager.replaceItemAt does not on
        // Linux: it can delete the old file and then fail).
        if TemporaryFiles.commit(tmp.path, to: url.path) != 0 {
            throw .writeFailed(path: url.path, detail: String(cString: strerror(errno)))
        }
    }
}

extension CIContext {
    /// Encodes the streaming way, in the memory of a few bands (`Render.Delivery.bands`) of
    /// `format` (RGBA8, RGBA16 or RGBAf rows): the
    /// recipe is optimised for this one render, so a file decoding on its thread decodes for
    /// it alone, at most a few bands ahead, and gives back its rows once no output row left
    /// reads them; the output is rendered top band first, each band handed to the encoder
    /// `makeEncoder(width, height)` returns as it completes and then reused. An unfiltered
    /// streaming-decoded file is encoded as its rows arrive. The bytes are those of rendering
    /// whole and encoding after. Returns, having written nothing, an unfiltered bitmap already
    /// in memory, which the caller encodes as it is; nil once encoded. `takesYCbCr`: the
    /// encoder is a JPEG one, which re-encodes an unchanged JPEG file from its planes.
    func encodeStreaming(
        _ image: CIImage, rect: CGRect, colorSpace: CGColorSpace, format: CIFormat = .RGBA8, takesYCbCr: Bool = false,
        makeEncoder: @escaping (_ width: Int, _ height: Int) throws(ImageFileError) -> any BandEncoder
    ) throws -> BitmapNode? {
        let pr = try renderablePixels(rect)
        guard let bytesPerPixel = format.bytesPerPixel else { throw CIRenderError.unsupportedFormat(format) }
        let rowBytes = pr.width * bytesPerPixel
        // The writer is planned here and rebased onto the ring of output bands before writing.
        let placeholder = UnsafeMutableRawPointer.allocate(byteCount: rowBytes, alignment: 64)
        defer { placeholder.deallocate() }
        guard
            let writer = DestinationWriter(
                base: placeholder, rowBytes: rowBytes, bounds: pr, format: format,
                colorSpace: workingColorSpace == nil ? nil : colorSpace, premultiplied: false)
        else { throw CIRenderError.unsupportedFormat(format) }
        let outcome = try Render(node: image.node, rect: pr, delivery: .bands(writer, takesYCbCr: takesYCbCr, makeEncoder: makeEncoder), environment: environment).run()
        if case .unchanged(let bitmap) = outcome { return bitmap }
        return nil
    }
}

extension CIFormat {
    var isDeep: Bool { self == .RGBA16 || self == .RGBAh || self == .RGBAf || self == .RGBX16 }
    /// TIFF keeps float: RGBAf -> 32, other deep formats -> 16, the rest 8.
    var tiffDepth: Int { self == .RGBAf ? 32 : isDeep ? 16 : 8 }
}

/// libjpeg-turbo's scanline encoder builds the file in memory (a few MB) and hands it over at
/// the end. One thread writes at a time (the render's feeder), as for the encoder it wraps.
final class JPEGBandEncoder: BandEncoder, @unchecked Sendable {
    private let encoder: JPEGStreamEncoder
    private let sink: ByteSink
    init(_ encoder: JPEGStreamEncoder, sink: ByteSink) {
        self.encoder = encoder
        self.sink = sink
    }
    func write(_ rows: UnsafeRawPointer, rowBytes: Int, count: Int) throws(ImageFileError) {
        try encoder.write(rows, rowBytes: rowBytes, count: count)
    }
    func finishStream() throws(ImageFileError) {
        let data = try encoder.finish()
        try sink.append(data)
    }
    func takeYCbCr(planes: Bool) throws(ImageFileError) -> Bool {
        let planes = planes && encoder.options.chromaSubsampling == .s444
        try encoder.take(planes ? .planes : .yCbCr8)
        return planes
    }
    func writePlanes(
        y: UnsafePointer<UnsafeMutablePointer<UInt8>?>, cb: UnsafePointer<UnsafeMutablePointer<UInt8>?>,
        cr: UnsafePointer<UnsafeMutablePointer<UInt8>?>
    ) throws(ImageFileError) {
        try encoder.writePlanes(y: y, cb: cb, cr: cr)
    }
}

extension PNGStreamEncoder: BandEncoder {
    func finishStream() throws(ImageFileError) { try finish() }
}

extension TIFFStreamEncoder: BandEncoder {
    func finishStream() throws(ImageFileError) { try finish() }
}

extension EncodeOptions {
    /// The metadata an encoder writes for pixels in `space` with `properties` (a `CIImage`'s,
    /// or an image destination's): the ICC profile of a colour space other than sRGB, the DPI
    /// (`dpi`, else the DPIWidth property), and the raw EXIF and XMP with their orientation set
    /// to the Orientation property (1 once the pixels were turned upright) and their ColorSpace
    /// to the one written; TIFF and JPEG XL write that orientation in their own header too.
    mutating func addMetadata(of properties: [String: Any], colorSpace space: CGColorSpace, dpi: Double?) {
        iccProfile = ICCProfile.profile(for: space)
        self.dpi = dpi ?? properties[kCGImagePropertyDPIWidth].flatMap(numberValue)
        let orientation = (properties[kCGImagePropertyOrientation] as? Int).flatMap { (1...8).contains($0) ? $0 : nil } ?? 1
        self.orientation = orientation
        var exif = properties[kCyanotypePropertyRawEXIF] as? Data
        // Text entries of the {TIFF} and {Exif} dictionaries that differ from the source's own
        // EXIF (edited by the caller) are written into it.
        let (ifd0, exifIFD) = EXIFTextEdits.changes(in: properties, comparedWith: exif)
        if !ifd0.isEmpty || !exifIFD.isEmpty { exif = ImageCodecs.exifSettingText(exif, ifd0: ifd0, exifIFD: exifIFD) }
        if let exif {
            // EXIF's ColorSpace follows the pixels: sRGB (1) when written untagged, else
            // uncalibrated (0xFFFF), as a camera's Adobe RGB or P3 file says.
            self.exif = ImageCodecs.exifSettingColorSpace(ImageCodecs.exifSettingOrientation(exif, orientation), sRGB: iccProfile == nil)
        }
        if let xmp = properties[kCyanotypePropertyRawXMP] as? Data { self.xmp = ImageCodecs.xmpSettingOrientation(xmp, orientation) }
    }
}

/// The text entries of Image I/O's `{TIFF}` and `{Exif}` dictionaries a destination writes
/// into the file's EXIF when the caller set or changed them.
enum EXIFTextEdits {
    /// {TIFF} keys and their IFD0 tags.
    static let tiffTags: [String: Int] = [
        kCGImagePropertyTIFFImageDescription: 0x010E, kCGImagePropertyTIFFMake: 0x010F, kCGImagePropertyTIFFModel: 0x0110,
        kCGImagePropertyTIFFSoftware: 0x0131, kCGImagePropertyTIFFDateTime: 0x0132, kCGImagePropertyTIFFArtist: 0x013B,
        kCGImagePropertyTIFFCopyright: 0x8298,
    ]
    /// {Exif} keys and their EXIF-directory tags.
    static let exifTags: [String: Int] = [
        kCGImagePropertyExifDateTimeOriginal: 0x9003, kCGImagePropertyExifDateTimeDigitized: 0x9004, kCGImagePropertyExifUserComment: 0x9286,
        kCGImagePropertyExifImageUniqueID: 0xA420, kCGImagePropertyExifCameraOwnerName: 0xA430, kCGImagePropertyExifBodySerialNumber: 0xA431,
        kCGImagePropertyExifLensMake: 0xA433, kCGImagePropertyExifLensModel: 0xA434,
    ]

    /// The string entries of `properties`' dictionaries that `exif` (parsed) does not already
    /// hold with the same value, by tag.
    static func changes(in properties: [String: Any], comparedWith exif: Data?) -> (ifd0: [Int: String], exif: [Int: String]) {
        let tiff = properties[kCGImagePropertyTIFFDictionary] as? [String: Any] ?? [:]
        let exifDictionary = properties[kCGImagePropertyExifDictionary] as? [String: Any] ?? [:]
        guard !tiff.isEmpty || !exifDictionary.isEmpty else { return ([:], [:]) }
        let source = exif.map(EXIFDictionary.parse) ?? [:]
        let sourceTIFF = source[kCGImagePropertyTIFFDictionary] as? [String: Any] ?? [:]
        let sourceExif = source[kCGImagePropertyExifDictionary] as? [String: Any] ?? [:]
        func edits(_ given: [String: Any], _ had: [String: Any], _ tags: [String: Int]) -> [Int: String] {
            var out: [Int: String] = [:]
            for (key, tag) in tags {
                guard let text = given[key] as? String, (had[key] as? String) != text else { continue }
                out[tag] = text
            }
            return out
        }
        return (edits(tiff, sourceTIFF, tiffTags), edits(exifDictionary, sourceExif, exifTags))
    }
}
