// `import UniformTypeIdentifiers` on Linux (Package.swift builds this target on Linux only):
// the type identifiers image and video code passes to Image I/O and AVFoundation.
import Foundation

/// A uniform type identifier (Apple's `UTType`) for the image and movie types this package reads
/// and writes, with their file extension and MIME type, and the `image`, `movie` and `data`
/// types they conform to. Only types listed here exist: `init?` answers nil for others.
public struct UTType: Hashable, Sendable, CustomStringConvertible {
    /// The identifier, e.g. `public.jpeg` (what `... as CFString` hands to Image I/O).
    public let identifier: String
    /// The usual file extension, without the dot.
    public let preferredFilenameExtension: String?
    /// The usual MIME type.
    public let preferredMIMEType: String?
    private let extensions: [String]
    private let parents: [String]

    private init(_ identifier: String, _ extensions: [String], _ mime: String?, _ parents: [String]) {
        self.identifier = identifier; self.extensions = extensions; self.parents = parents
        preferredFilenameExtension = extensions.first; preferredMIMEType = mime
    }

    /// JPEG images.
    public static let jpeg = UTType("public.jpeg", ["jpeg", "jpg", "jpe"], "image/jpeg", ["public.image"])
    /// PNG images.
    public static let png = UTType("public.png", ["png"], "image/png", ["public.image"])
    /// GIF images.
    public static let gif = UTType("com.compuserve.gif", ["gif"], "image/gif", ["public.image"])
    /// TIFF images.
    public static let tiff = UTType("public.tiff", ["tiff", "tif"], "image/tiff", ["public.image"])
    /// HEIC images (HEIF with HEVC).
    public static let heic = UTType("public.heic", ["heic"], "image/heic", ["public.heif", "public.image"])
    /// HEIF images.
    public static let heif = UTType("public.heif", ["heif"], "image/heif", ["public.image"])
    /// WebP images.
    public static let webP = UTType("org.webmproject.webp", ["webp"], "image/webp", ["public.image"])
    /// AVIF images.
    public static let avif = UTType("public.avif", ["avif"], "image/avif", ["public.image"])
    /// JPEG XL images.
    public static let jpegxl = UTType("public.jpeg-xl", ["jxl"], "image/jxl", ["public.image"])
    /// BMP images (an identifier only: this package does not read or write BMP).
    public static let bmp = UTType("com.microsoft.bmp", ["bmp"], "image/bmp", ["public.image"])
    /// MPEG-4 movies.
    public static let mpeg4Movie = UTType("public.mpeg-4", ["mp4", "mpeg4"], "video/mp4", ["public.movie"])
    /// QuickTime movies.
    public static let quickTimeMovie = UTType("com.apple.quicktime-movie", ["mov", "qt"], "video/quicktime", ["public.movie"])
    /// Any image.
    public static let image = UTType("public.image", [], nil, [])
    /// Any movie.
    public static let movie = UTType("public.movie", [], nil, [])
    /// Any bytes.
    public static let data = UTType("public.data", [], nil, [])

    private static let known: [UTType] = [
        .jpeg, .png, .gif, .tiff, .heic, .heif, .webP, .avif, .jpegxl, .bmp, .mpeg4Movie, .quickTimeMovie, .image, .movie, .data,
    ]

    /// The type with this identifier, nil when it is not one listed here.
    public init?(_ identifier: String) {
        guard let t = Self.known.first(where: { $0.identifier == identifier.lowercased() }) else { return nil }
        self = t
    }
    /// The type of files with this extension (case-insensitive, no dot), nil when unknown.
    public init?(filenameExtension: String) {
        let e = filenameExtension.lowercased()
        guard let t = Self.known.first(where: { $0.extensions.contains(e) }) else { return nil }
        self = t
    }
    /// The type with this MIME type, nil when unknown.
    public init?(mimeType: String) {
        let m = mimeType.lowercased()
        guard let t = Self.known.first(where: { $0.preferredMIMEType == m }) else { return nil }
        self = t
    }

    /// Whether this type is `type` or one of its kinds (every type conforms to `.data`).
    public func conforms(to type: UTType) -> Bool {
        type == self || type == .data || parents.contains(type.identifier)
    }
    /// Whether `type` conforms to this type.
    public func isSupertype(of type: UTType) -> Bool { type.conforms(to: self) }
    /// Whether this type conforms to `type`.
    public func isSubtype(of type: UTType) -> Bool { conforms(to: type) }

    /// The identifier.
    public var description: String { identifier }
    /// Two types are equal when their identifiers are.
    public static func == (l: UTType, r: UTType) -> Bool { l.identifier == r.identifier }
    /// Hashes the identifier.
    public func hash(into h: inout Hasher) { h.combine(identifier) }
}
