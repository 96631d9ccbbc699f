#if !canImport(CoreGraphics)
import Foundation

// Image I/O's names where Linux has no Core Foundation bridging: `url as CFURL`,
// `options as CFDictionary` and `"com.compuserve.gif" as CFString` compile as they do on
// Apple's platforms (CFString and CFURL are the Swift types, so those casts are identities;
// CFDictionary and CFData are the Foundation classes, which `as` bridges to on Linux too).
// A file that also imports CoreFoundation sees two CFURLs: qualify them there.

/// Core Foundation's URL type; plain `URL` here.
public typealias CFURL = URL
/// Core Foundation's dictionary type: `NSDictionary` here, so `[String: Any]` literals bridge
/// with `as CFDictionary` and results read back with `as? [String: Any]`.
public typealias CFDictionary = NSDictionary
/// Core Foundation's data type: `NSData` here (`data as CFData`).
public typealias CFData = NSData
/// Core Foundation's mutable data: `NSMutableData` here (what `CGImageDestinationCreateWithData` fills).
public typealias CFMutableData = NSMutableData
/// The first byte of `data` (Core Foundation's `CFDataGetBytePtr`), valid while `data` lives:
/// what pixel readers call on `cgImage.dataProvider?.data`.
public func CFDataGetBytePtr(_ data: CFData) -> UnsafePointer<UInt8> { data.bytes.assumingMemoryBound(to: UInt8.self) }
/// The number of bytes in `data`.
public func CFDataGetLength(_ data: CFData) -> Int { data.length }
/// Core Foundation's number type: `NSNumber` here (`NSNumber(value: x)`, `3 as CFNumber`; Linux
/// has no bridging coercion from a Swift number variable, but Image I/O options read a plain
/// `Int`, `Double`, `CGFloat` or `Bool` as it is).
public typealias CFNumber = NSNumber
/// Core Foundation's boolean type: `Bool` here, so `kCFBooleanTrue as CFBoolean` and
/// `value as? CFBoolean` work.
public typealias CFBoolean = Bool
/// Core Foundation's null type: `NSNull` here.
public typealias CFNull = NSNull
/// Core Foundation's array type: `NSArray` here (`array as CFArray`).
public typealias CFArray = NSArray
/// Core Foundation's true, for option dictionaries (`kCGImageSourceShouldCache: kCFBooleanTrue`).
public let kCFBooleanTrue: CFBoolean = true
/// Core Foundation's false.
public let kCFBooleanFalse: CFBoolean = false
/// Core Foundation's null value (`NSNull()` here), for dictionaries and arrays that need a placeholder;
/// implicitly unwrapped, as Apple declares it, so `kCFNull!` compiles too.
public var kCFNull: CFNull! { NSNull() }
/// The value of a Core Foundation boolean.
public func CFBooleanGetValue(_ boolean: CFBoolean) -> Bool { boolean }

/// How Image I/O reads option values: as Apple's bridging does, a number may come as `Int`,
/// `Double`, `CGFloat`, `Float`, any fixed-width integer, `Bool` or `NSNumber`, so every option
/// is read through these two functions, never with one `as?` cast.
enum OptionValue {
    /// `value` as a number (`numberValue`'s reading), or nil when it is none or absent.
    static func number(_ value: Any?) -> Double? { value.flatMap(numberValue) }
    /// `value` as a whole number (rounded towards zero), or nil when it is not a finite number.
    static func integer(_ value: Any?) -> Int? {
        guard let d = number(value), d.isFinite, abs(d) < 9e15 else { return nil }
        return Int(d)
    }
    /// `value` as a flag: a `Bool`, or a number (non-zero is true); nil when it is neither.
    static func flag(_ value: Any?) -> Bool? {
        if let b = value as? Bool { return b }
        return number(value).map { $0 != 0 }
    }
}

// MARK: Uniform type identifiers (what `CGImageSourceGetType` returns)

/// `public.jpeg`
public let kUTTypeJPEG: CFString = "public.jpeg"
/// `public.png`
public let kUTTypePNG: CFString = "public.png"
/// `com.compuserve.gif`
public let kUTTypeGIF: CFString = "com.compuserve.gif"
/// `public.tiff`
public let kUTTypeTIFF: CFString = "public.tiff"
/// `org.webmproject.webp` (Cyanotype: Core Services has no constant for it).
public let kUTTypeWebP: CFString = "org.webmproject.webp"
/// `public.heic`
public let kUTTypeHEIC: CFString = "public.heic"
/// `public.avif` (Cyanotype: Core Services has no constant for it).
public let kUTTypeAVIF: CFString = "public.avif"
/// `public.jpeg-xl` (Cyanotype: Core Services has no constant for it).
public let kUTTypeJPEGXL: CFString = "public.jpeg-xl"

// MARK: Source options (`CGImageSourceCreate...`, `...AtIndex`)

/// Bool: cache decoded pixels (accepted; Cyanotype keeps only the frame being decoded).
public let kCGImageSourceShouldCache: CFString = "kCGImageSourceShouldCache"
/// Bool: decode when the image is created rather than when drawn (accepted; images are decoded at creation).
public let kCGImageSourceShouldCacheImmediately: CFString = "kCGImageSourceShouldCacheImmediately"
/// String: the type to try first (accepted; the bytes decide).
public let kCGImageSourceTypeIdentifierHint: CFString = "kCGImageSourceTypeIdentifierHint"
/// Number: the largest width or height of a thumbnail, in pixels.
public let kCGImageSourceThumbnailMaxPixelSize: CFString = "kCGImageSourceThumbnailMaxPixelSize"
/// Bool: make a thumbnail from the full image when the file has none (Cyanotype reads no
/// embedded thumbnails, so this and `...FromImageAlways` both make one).
public let kCGImageSourceCreateThumbnailFromImageIfAbsent: CFString = "kCGImageSourceCreateThumbnailFromImageIfAbsent"
/// Bool: always make a thumbnail from the full image.
public let kCGImageSourceCreateThumbnailFromImageAlways: CFString = "kCGImageSourceCreateThumbnailFromImageAlways"
/// Bool: turn the thumbnail upright from the EXIF orientation.
public let kCGImageSourceCreateThumbnailWithTransform: CFString = "kCGImageSourceCreateThumbnailWithTransform"
/// Cyanotype: a `DecodeLimits` for the source (pixels, bytes, frames, total pixels).
public let kCyanotypeImageSourceDecodeLimits: CFString = "CyanotypeDecodeLimits"
/// Cyanotype: Bool, keep what a truncated file holds instead of failing (default false).
public let kCyanotypeImageSourceLenientDecoding: CFString = "CyanotypeLenientDecoding"

// MARK: Properties

/// Key of the file's size in bytes (container properties).
public let kCGImagePropertyFileSize: CFString = "FileSize"
/// The `{GIF}` dictionary.
public let kCGImagePropertyGIFDictionary: CFString = "{GIF}"
/// The `{PNG}` dictionary (APNG timing lives here).
public let kCGImagePropertyPNGDictionary: CFString = "{PNG}"
/// The `{WebP}` dictionary.
public let kCGImagePropertyWebPDictionary: CFString = "{WebP}"

/// GIF: plays of the animation; 0 means forever.
public let kCGImagePropertyGIFLoopCount: CFString = "LoopCount"
/// GIF: seconds before the next frame, at least 0.1 (smaller stored values read as 0.1, as browsers show them).
public let kCGImagePropertyGIFDelayTime: CFString = "DelayTime"
/// GIF: seconds before the next frame, as stored.
public let kCGImagePropertyGIFUnclampedDelayTime: CFString = "UnclampedDelayTime"
/// GIF: whether the file has a global colour table.
public let kCGImagePropertyGIFHasGlobalColorMap: CFString = "HasGlobalColorMap"
/// GIF: the canvas width.
public let kCGImagePropertyGIFCanvasPixelWidth: CFString = "CanvasPixelWidth"
/// GIF: the canvas height.
public let kCGImagePropertyGIFCanvasPixelHeight: CFString = "CanvasPixelHeight"
/// GIF: one dictionary per frame with its delay times (container properties).
public let kCGImagePropertyGIFFrameInfoArray: CFString = "FrameInfo"

/// APNG: plays of the animation; 0 means forever.
public let kCGImagePropertyAPNGLoopCount: CFString = "LoopCount"
/// APNG: seconds before the next frame, at least 0.1 as for GIF.
public let kCGImagePropertyAPNGDelayTime: CFString = "DelayTime"
/// APNG: seconds before the next frame, as stored.
public let kCGImagePropertyAPNGUnclampedDelayTime: CFString = "UnclampedDelayTime"
/// APNG: the canvas width.
public let kCGImagePropertyAPNGCanvasPixelWidth: CFString = "CanvasPixelWidth"
/// APNG: the canvas height.
public let kCGImagePropertyAPNGCanvasPixelHeight: CFString = "CanvasPixelHeight"
/// APNG: one dictionary per frame with its delay times (container properties).
public let kCGImagePropertyAPNGFrameInfoArray: CFString = "FrameInfo"

/// WebP: plays of the animation; 0 means forever.
public let kCGImagePropertyWebPLoopCount: CFString = "LoopCount"
/// WebP: seconds before the next frame, at least 0.1 as for GIF.
public let kCGImagePropertyWebPDelayTime: CFString = "DelayTime"
/// WebP: seconds before the next frame, as stored.
public let kCGImagePropertyWebPUnclampedDelayTime: CFString = "UnclampedDelayTime"
/// WebP: the canvas width.
public let kCGImagePropertyWebPCanvasPixelWidth: CFString = "CanvasPixelWidth"
/// WebP: the canvas height.
public let kCGImagePropertyWebPCanvasPixelHeight: CFString = "CanvasPixelHeight"
/// WebP: one dictionary per frame with its delay times (container properties).
public let kCGImagePropertyWebPFrameInfoArray: CFString = "FrameInfo"

/// Cyanotype: in a frame's `{GIF}`/`{PNG}`/`{WebP}` dictionary, the frame's own rectangle on
/// the canvas as a `CGRect` (top-left origin, pixels), before compositing.
public let kCyanotypePropertyFrameRect: CFString = "CyanotypeFrameRect"
/// Cyanotype: in a frame's dictionary, what happens to its rectangle before the next frame:
/// "none", "background" (cleared) or "previous" (restored).
public let kCyanotypePropertyFrameDisposal: CFString = "CyanotypeFrameDisposal"
/// Cyanotype: in a frame's dictionary, "over" (source-over) or "source" (replaces the canvas).
public let kCyanotypePropertyFrameBlend: CFString = "CyanotypeFrameBlend"
/// Cyanotype: the number of frames or pages (container properties; `CGImageSourceGetCount` too).
public let kCyanotypePropertyFrameCount: CFString = "CyanotypeFrameCount"

// MARK: Destination options

/// Cyanotype: Bool, GIF frames diffuse the palette's error (Floyd-Steinberg; default true).
public let kCyanotypeDestinationGIFDithering: CFString = "CyanotypeGIFDithering"
#endif
