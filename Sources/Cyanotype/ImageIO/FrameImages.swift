#if !canImport(CoreGraphics)
internal import CyanotypeCodecs
import Foundation

extension CIImage {
    /// Frame `index` (the `.frameIndex` option) of encoded bytes: the frame table is read now,
    /// the frame decoded (with the ones before it, for animations) when first rendered.
    static func readFrame(_ data: Data, index: Int, options o: [CIImageOption: Any], name: String) throws(ImageIOError) -> CIImage {
        let limits = ((o[.decodeLimits] as? DecodeLimits) ?? .default)
        let strict = !(OptionValue.flag(o[.lenientDecoding]) ?? false)
        let decoder: FrameDecoder
        do { decoder = try FrameDecoder(data: data, limits: limits, strict: strict) } catch { throw .codec(path: nil, error) }
        let seq = decoder.sequence
        guard index >= 0, index < seq.frameCount else {
            throw .codec(path: nil, .invalidArgument("frame \(index) does not exist (the file has \(seq.frameCount))"))
        }
        let header = seq.header(at: index)
        let size = seq.isAnimation ? (seq.canvasWidth, seq.canvasHeight) : (header.width, header.height)
        let space: CGColorSpace? = o[.colorSpace] is NSNull ? nil : (o[.colorSpace] as? CGColorSpace ?? .sRGBSpace)
        let box = FrameDecoderBox(decoder)
        let source = LazySourceNode(extent: CGRect(x: 0, y: 0, width: size.0, height: size.1), name: "\(name) frame \(index)") {
            try bitmapNode(try box.frame(index), colorSpace: space)
        }
        var props = (o[.properties] as? [String: Any]) ?? ImageIOProperties.frame(seq, index, raw: true)
        var image = CIImage(node: source)
        if OptionValue.flag(o[.applyOrientationProperty]) ?? false, header.orientation != 1 {
            image = image.oriented(forExifOrientation: Int32(header.orientation))
            props[kCGImagePropertyOrientation] = 1
        }
        return CIImage(node: image.node, properties: props)
    }
}

/// A frame decoder shared by a lazy source (used under a lock: decoders are single-threaded).
final class FrameDecoderBox: @unchecked Sendable {
    private let lock = NSLock()
    private let decoder: FrameDecoder
    init(_ d: FrameDecoder) { decoder = d }
    func frame(_ index: Int) throws -> DecodedBitmap {
        lock.lock(); defer { lock.unlock() }
        return try decoder.frame(at: index)
    }
}
#endif
