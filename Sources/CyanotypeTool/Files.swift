import Cyanotype
import Foundation

/// How the tools read image files, chosen by the command line (`--pixel-limit`,
/// `--no-auto-orient`) or the server's options, and handed to whatever reads and renders: a
/// value, so two commands (or the server and a test) never share settings by accident.
package struct FileReading: Sendable {
    /// The largest picture read or rendered (`--pixel-limit`), nil for the library's default.
    package var pixelLimit: Int?
    /// How RAW camera files develop (`--raw-exposure`, `--raw-wb`, `--raw-boost`, `--raw-draft`).
    package var raw = RAWDevelopOptions()
    /// Orientation applied (`--no-auto-orient` turns it off: pixels as stored, and the EXIF
    /// orientation tag is then kept too).
    package var autoOrient = true

    /// The library's defaults: orientation applied, the library's limits.
    package init(pixelLimit: Int? = nil, autoOrient: Bool = true) {
        self.pixelLimit = pixelLimit
        self.autoOrient = autoOrient
    }

    /// `--pixel-limit N` (also spelt `--limit`) and `--no-auto-orient` from the command line.
    package static func parse(_ args: ParsedArguments) throws(CLIError) -> FileReading {
        if args.has("limit") && args.has("pixel-limit") { throw .usage("give --limit or --pixel-limit, not both") }
        var reading = FileReading()
        reading.pixelLimit = try args.int(args.has("limit") ? "limit" : "pixel-limit", in: 1...(1 << 40))
        if args.has("no-auto-orient") {
            if args.has("auto-orient") { throw .usage("give --auto-orient or --no-auto-orient, not both") }
            reading.autoOrient = false
        }
        reading.raw = try RAWReading.parse(args)
        return reading
    }

    /// The library's read options for these settings.
    package var readOptions: [CIImageOption: Any] { readOptions(lenient: false) }

    /// The read options; `lenient` keeps what a truncated or damaged file holds (`--fail-on`).
    package func readOptions(lenient: Bool) -> [CIImageOption: Any] {
        var o: [CIImageOption: Any] = [.applyOrientationProperty: autoOrient, .rawDevelopment: raw]
        if lenient { o[.lenientDecoding] = true }
        if let pixelLimit { o[.decodeLimits] = DecodeLimits(maxPixels: pixelLimit, maxBytes: max(pixelLimit * 16, 2 << 30)) }
        return o
    }

    /// A context for rendering results, with the pixel limit.
    package func makeContext(cacheIntermediates: Bool = true) -> CIContext {
        var o: [CIContextOption: Any] = [.cacheIntermediates: cacheIntermediates]
        if let pixelLimit { o[.maximumRenderPixels] = pixelLimit }
        return CIContext(options: o)
    }

    /// The most pixels a file may declare when `--pixel-limit` is not given: the render limit
    /// (about 1 billion). Files that decode whole are held to the library's smaller default
    /// (16383^2) already; streamed ones (baseline JPEG, 8-bit PNG) are held to this.
    package static let defaultDeclaredPixelLimit = 1 << 30

    /// Refuses an image whose header declares more pixels than the pixel limit, before any
    /// pixel is decoded, whatever the recipe does with it afterwards (a 68-byte PNG claiming
    /// 100000x100000 would otherwise make a shrink-on-load render decode 10^10 pixels).
    package func checkDeclaredSize(_ image: CIImage, file: String) throws(CLIError) {
        let size = PixelSize(image.extent)
        let limit = pixelLimit ?? Self.defaultDeclaredPixelLimit
        let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
        if overflow || pixels > limit {
            throw .failure(Messages.reading(ImageFileError.tooLarge(width: size.width, height: size.height, limit: limit), file: file))
        }
    }

    /// The image at `path` (`-` reads stdin), upright; its declared size within the pixel
    /// limit. `lenient`: what a truncated or damaged file holds (`--fail-on`).
    package func readImage(_ path: String, lenient: Bool = false) throws(CLIError) -> CIImage {
        let image = try Files.read(path, options: readOptions(lenient: lenient), pixelLimit: pixelLimit)
        try checkDeclaredSize(image, file: path == "-" ? "<stdin>" : path)
        return image
    }
}

/// Reading image files through the library, with the CLI's rules: `-` for stdin, never
/// writing onto an input; the settings travel in a `FileReading`.
package enum Files {
    /// Standard input, read once (frames and images both look at it): the process has one.
    private static let stdin = StandardInputOnce()
    /// Standard input's bytes (read on first use, then the same bytes).
    package static func standardInput() throws(CLIError) -> Data { try stdin.data() }

    /// Standard input's bytes, read on first use and kept.
    private final class StandardInputOnce: @unchecked Sendable {
        private let lock = NSLock()
        private var bytes: Data?
        func data() throws(CLIError) -> Data {
            lock.lock()
            defer { lock.unlock() }
            if let bytes { return bytes }
            let data = try Console.readStandardInput()
            bytes = data
            return data
        }
    }

    /// What `path` names when it is neither a regular file nor a folder ("a character
    /// device", "a pipe" ...), following links; nil for files, folders and missing paths.
    /// Such paths cannot be read as files (`/dev/null`, `<(...)`): callers refuse them by name
    /// rather than let the read fail with an unrelated reason.
    package static func specialFileKind(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        switch st.st_mode & S_IFMT {
        case S_IFREG, S_IFDIR: return nil
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFIFO: return "a pipe"
        case S_IFSOCK: return "a socket"
        default: return "not a file"
        }
    }

    /// The image at `path` (`-` reads stdin) with `readOptions`; a folder, a missing path or a
    /// special file refused by name.
    /// A size refusal names `pixelLimit` when one was given (`--pixel-limit`) and the file is
    /// over it: the library holds streamed files to its larger render limit.
    static func read(_ path: String, options readOptions: [CIImageOption: Any], pixelLimit: Int? = nil) throws(CLIError) -> CIImage {
        func reading(_ e: ImageFileError, _ file: String) -> String {
            if case let .tooLarge(w, h, _) = e, let pixelLimit {
                let (pixels, overflow) = w.multipliedReportingOverflow(by: h)
                if overflow || pixels > pixelLimit { return Messages.reading(.tooLarge(width: w, height: h, limit: pixelLimit), file: file) }
            }
            return Messages.reading(e, file: file)
        }
        if path == "-" {
            let data = try standardInput()
            do {
                return try CIImage.read(data: data, options: readOptions, name: "stdin")
            } catch {
                if case .codec(_, let e) = error { throw .failure(reading(e, "<stdin>")) }
                throw .failure("<stdin>: \(error.description)")
            }
        }
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue {
            throw .failure("\(path): is a folder, not an image file")
        }
        guard FileManager.default.fileExists(atPath: path) else { throw .failure("\(path): no such file") }
        if let kind = specialFileKind(path) {
            throw .failure("\(path): not a regular file (\(kind)), so it cannot be read as an image; use - to read standard input")
        }
        do {
            return try CIImage.read(contentsOf: URL(fileURLWithPath: path), options: readOptions)
        } catch {
            if case .codec(_, let e) = error { throw .failure(reading(e, path)) }
            throw .failure("\(path): \(error.description)")
        }
    }

    /// Every format, as `--format` spells them.
    package static let formatNames = ["jpeg", "png", "webp", "tiff", "gif", "heic", "avif", "jxl"]
    /// "jpeg, png, webp, tiff, gif, heic, avif or jxl"
    package static var formatList: String { formatNames.dropLast().joined(separator: ", ") + " or " + formatNames.last! }
    /// Every extension read as an image (folders and globs in batch).
    package static let imageExtensions: [String] =
        ["jpg", "jpeg", "jpe", "jfif", "png", "webp", "tif", "tiff", "gif", "heic", "heif", "hif", "avif", "jxl"] + rawExtensions
    /// RAW camera files' extensions (developed with LibRaw; recognised by content, not name).
    package static let rawExtensions: [String] = [
        "dng", "cr2", "cr3", "crw", "nef", "nrw", "arw", "srf", "sr2", "raf", "orf", "rw2", "pef", "srw", "rwl", "3fr", "iiq", "erf",
        "mrw", "kdc", "dcr", "x3f", "raw",
    ]

    package static func displayName(_ f: ImageFileFormat) -> String {
        switch f {
        case .jpeg: return "JPEG"
        case .png: return "PNG"
        case .webp: return "WebP"
        case .tiff: return "TIFF"
        case .gif: return "GIF"
        case .heif: return "HEIF"
        case .avif: return "AVIF"
        case .jxl: return "JPEG XL"
        }
    }

    /// The format named by `--format`, else by the output's extension; PNG for stdout. An
    /// explicit format that disagrees with the extension is written, with a warning.
    package static func outputFormat(explicit: ImageFileFormat?, path: String) throws(CLIError) -> ImageFileFormat {
        let ext = (path as NSString).pathExtension
        let byName = path == "-" ? nil : format(named: ext)
        if let explicit {
            if let byName, byName != explicit {
                Console.warn("writing \(displayName(explicit)) into '\(path)', whose extension says \(displayName(byName))")
            }
            return explicit
        }
        if path == "-" { return .png }
        guard let byName else {
            let exts = ["jpg", "png", "webp", "tif", "gif", "heic", "avif", "jxl"].map { "." + $0 }.joined(separator: ", ")
            throw .usage("cannot tell the output format from '\(path)': name it \(exts), or pass --format \(formatNames.joined(separator: "|"))")
        }
        return byName
    }

    package static func format(named text: String) -> ImageFileFormat? {
        // The library's own extension table: jpg/jpeg, png, webp, tif/tiff, gif, heic/heif, avif, jxl.
        ImageFileFormat(pathExtension: text)
    }

    package static func fileExtension(_ f: ImageFileFormat) -> String {
        switch f {
        case .jpeg: return "jpg"
        case .heif: return "heic"
        case .tiff: return "tif"
        default: return f.rawValue
        }
    }

    /// The absolute path with symbolic links resolved (for an output that does not exist
    /// yet, its folder's links are resolved).
    package static func resolved(_ path: String) -> String {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        if FileManager.default.fileExists(atPath: url.path) { return url.resolvingSymlinksInPath().path }
        let dir = url.deletingLastPathComponent().resolvingSymlinksInPath()
        return dir.appendingPathComponent(url.lastPathComponent).path
    }

    /// Refuses an output that is one of the inputs.
    package static func checkNotOverwriting(output: String, inputs: [String]) throws(CLIError) {
        guard output != "-" else { return }
        let out = resolved(output)
        for input in inputs where input != "-" && resolved(input) == out {
            throw .usage("\(output): refusing to overwrite the input \(input); choose another output")
        }
    }
}
