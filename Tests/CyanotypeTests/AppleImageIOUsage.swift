// Image I/O code as Apple's users write it: the same text compiles against Apple's ImageIO and
// CoreImage and against Cyanotype (no `@testable`, no Cyanotype names below this line).
import Foundation

#if canImport(ImageIO)
import CoreImage
import ImageIO
#else
import Cyanotype
#endif

enum AppleStyleImageIO {
    /// Writes an animated GIF that loops forever, each frame shown for `delay` seconds.
    static func writeGIF(frames: [CGImage], delay: Double, to url: URL) -> Bool {
        guard let destination = CGImageDestinationCreateWithURL(url as CFURL, "com.compuserve.gif" as CFString, frames.count, nil) else {
            return false
        }
        let fileProperties = [kCGImagePropertyGIFDictionary as String: [kCGImagePropertyGIFLoopCount as String: 0]]
        CGImageDestinationSetProperties(destination, fileProperties as CFDictionary)
        let frameProperties = [kCGImagePropertyGIFDictionary as String: [kCGImagePropertyGIFDelayTime as String: delay]]
        for frame in frames {
            CGImageDestinationAddImage(destination, frame, frameProperties as CFDictionary)
        }
        return CGImageDestinationFinalize(destination)
    }

    /// Writes pages into memory (TIFF) through `CGImageDestinationCreateWithData`.
    static func tiffData(pages: [CGImage]) -> Data? {
        let data = NSMutableData()
        guard let destination = CGImageDestinationCreateWithData(data as CFMutableData, "public.tiff" as CFString, pages.count, nil) else {
            return nil
        }
        for page in pages { CGImageDestinationAddImage(destination, page, nil) }
        guard CGImageDestinationFinalize(destination) else { return nil }
        return data as Data
    }

    /// Every frame's delay, as a player reads them.
    static func frameDelays(at url: URL) -> [Double] {
        guard let source = CGImageSourceCreateWithURL(url as CFURL, nil) else { return [] }
        let count = CGImageSourceGetCount(source)
        var delays: [Double] = []
        for index in 0..<count {
            guard let properties = CGImageSourceCopyPropertiesAtIndex(source, index, nil) as? [String: Any],
                let gif = properties[kCGImagePropertyGIFDictionary as String] as? [String: Any],
                let delay = gif[kCGImagePropertyGIFUnclampedDelayTime as String] as? Double
            else { continue }
            delays.append(delay)
        }
        return delays
    }

    /// The file's loop count and type.
    static func loopCountAndType(at url: URL) -> (Int?, String?) {
        guard let source = CGImageSourceCreateWithURL(url as CFURL, nil) else { return (nil, nil) }
        let properties = CGImageSourceCopyProperties(source, nil) as? [String: Any]
        let gif = properties?[kCGImagePropertyGIFDictionary as String] as? [String: Any]
        let type = CGImageSourceGetType(source) as String?
        return (gif?[kCGImagePropertyGIFLoopCount as String] as? Int, type)
    }

    /// Every frame as an image.
    static func frames(from data: Data) -> [CGImage] {
        guard let source = CGImageSourceCreateWithData(data as CFData, nil) else { return [] }
        return (0..<CGImageSourceGetCount(source)).compactMap { CGImageSourceCreateImageAtIndex(source, $0, nil) }
    }

    /// A thumbnail no larger than `maxPixelSize`, turned upright.
    static func thumbnail(of data: Data, maxPixelSize: Int) -> CGImage? {
        guard let source = CGImageSourceCreateWithData(data as CFData, nil) else { return nil }
        let options =
            [
                kCGImageSourceCreateThumbnailFromImageAlways: true,
                kCGImageSourceCreateThumbnailWithTransform: true,
                kCGImageSourceThumbnailMaxPixelSize: maxPixelSize,
            ] as CFDictionary
        return CGImageSourceCreateThumbnailAtIndex(source, 0, options)
    }

    /// A frame as a Core Image image.
    static func ciImage(from url: URL, index: Int) -> CIImage? {
        guard let source = CGImageSourceCreateWithURL(url as CFURL, nil) else { return nil }
        return CIImage(cgImageSource: source, index: index, options: nil)
    }
}
