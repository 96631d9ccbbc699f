import Cyanotype
import Foundation

/// Reading and writing image files through the library, with the CLI's rules: `-` for
/// stdin/stdout, EXIF orientation applied, never writing onto an input.
enum Files {
    static var readOptions: [CIImageOption: Any] { [.applyOrientationProperty: true] }

    /// The image at `path` (`-` reads stdin), upright.
    static func readImage(_ path: String) throws(CLIError) -> CIImage {
        if path == "-" {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            do {
                return try CIImage.read(data: data, options: readOptions, name: "stdin")
            } catch {
                throw .failure("<stdin>: \(error.description)")
            }
        }
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue {
            throw .failure("\(path): is a folder, not an image file")
        }
        guard FileManager.default.fileExists(atPath: path) else { throw .failure("\(path): no such file") }
        let url = URL(fileURLWithPath: path)
        do {
            return try CIImage.read(contentsOf: url, options: readOptions)
        } catch {
            // Name the file as the user spelled it, not by the absolute path the library saw.
            let message = error.description.replacingOccurrences(of: url.path, with: path)
            throw .failure(message.hasPrefix(path) ? message : "\(path): \(message)")
        }
    }

    /// The format named by `--format`, else by the output's extension; PNG for stdout.
    static func outputFormat(explicit: String?, path: String) throws(CLIError) -> ImageFileFormat {
        if let explicit {
            guard let f = format(named: explicit) else {
                throw .usage("--format must be jpeg, png, webp, tiff, heic or avif, got '\(explicit)'")
            }
            return f
        }
        if path == "-" { return .png }
        let ext = (path as NSString).pathExtension
        guard let f = format(named: ext) else {
            throw .usage("cannot tell the output format from '\(path)': use a .jpg, .png or .webp name, or --format")
        }
        return f
    }

    static func format(named text: String) -> ImageFileFormat? {
        // The library's own extension table: jpg/jpeg, png, webp, tif/tiff, heic/heif, avif.
        ImageFileFormat(pathExtension: text)
    }

    static func fileExtension(_ f: ImageFileFormat) -> String {
        switch f {
        case .jpeg: return "jpg"
        case .heif: return "heic"
        case .tiff: return "tif"
        default: return f.rawValue
        }
    }

    /// The absolute path with symbolic links resolved (for an output that does not exist
    /// yet, its folder's links are resolved).
    static func resolved(_ path: String) -> String {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        if FileManager.default.fileExists(atPath: url.path) { return url.resolvingSymlinksInPath().path }
        let dir = url.deletingLastPathComponent().resolvingSymlinksInPath()
        return dir.appendingPathComponent(url.lastPathComponent).path
    }

    /// Refuses an output that is one of the inputs.
    static func checkNotOverwriting(output: String, inputs: [String]) throws(CLIError) {
        guard output != "-" else { return }
        let out = resolved(output)
        for input in inputs where input != "-" && resolved(input) == out {
            throw .usage("\(output): refusing to overwrite the input \(input); choose another output")
        }
    }

    /// Encodes `image` and writes it atomically (or to stdout for `-`).
    static func write(_ image: CIImage, to path: String, format: ImageFileFormat, settings: EncodeSettings,
                      context: CIContext) throws(CLIError) {
        var options: [CIImageRepresentationOption: Any] = [:]
        if let q = settings.quality { options[.lossyCompressionQuality] = Double(q) / 100 }
        let data: Data
        do {
            data = try context.encode(image, as: format, depth: settings.depth, options: options)
        } catch {
            throw .failure("\(path == "-" ? "<stdout>" : path): \(error.description)")
        }
        if path == "-" {
            FileHandle.standardOutput.write(data)
            return
        }
        // Temporary file beside the output, then rename(2): never a half-written output.
        let url = URL(fileURLWithPath: path).absoluteURL.standardizedFileURL
        do {
            try context.writeAtomically(data, to: url)
        } catch {
            throw .failure(error.description.replacingOccurrences(of: url.path, with: path))
        }
    }
}

/// How outputs are encoded: `--quality` (0...100, lossy formats) and `--depth` (8, or 16 for PNG).
struct EncodeSettings: Sendable {
    var quality: Int?
    var depth = 8
}
