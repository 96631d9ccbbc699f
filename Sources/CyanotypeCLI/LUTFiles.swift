import Cyanotype
import CyanotypeCodecs
import Foundation

/// Reading LUTs for `apply --lut`, `batch --lut` and `lut ...`: a `.cube`/`.3dl` file, a LUT
/// image in a layout, or the name of a built-in look when no file of that name exists.
enum LUTFiles {
    /// The `--lut-layout` / `--layout` words: `strip` is resolved from the image's shape
    /// when reading (N x N^2 is a vertical strip) and is a horizontal strip when writing.
    enum LayoutWord: String, CaseIterable {
        case tiles, hald, strip
    }

    static func layoutWord(_ text: String?, option: String) throws(CLIError) -> LayoutWord? {
        guard let text else { return nil }
        guard let w = LayoutWord(rawValue: text.lowercased()) else {
            throw .usage("\(option) must be tiles, hald or strip, got '\(text)'")
        }
        return w
    }

    static func interpolation(_ text: String?) throws(CLIError) -> LUTInterpolation? {
        guard let text else { return nil }
        guard let i = LUTInterpolation(rawValue: text.lowercased()) else {
            throw .usage("--interp must be trilinear or tetrahedral, got '\(text)'")
        }
        return i
    }

    /// The layout to read an image of `width` x `height` in.
    static func readingLayout(_ word: LayoutWord?, width: Int, height: Int) -> LUTImageLayout? {
        switch word {
        case nil: return nil
        case .tiles: return .tiles
        case .hald: return .hald
        case .strip: return width >= 2 && height == width * width ? .verticalStrip : .horizontalStrip
        }
    }

    static func writingLayout(_ word: LayoutWord?) -> LUTImageLayout {
        switch word {
        case nil, .tiles: return .tiles
        case .hald: return .hald
        case .strip: return .horizontalStrip
        }
    }

    /// What a LUT was read from, for `lut info`.
    enum Source {
        case cube, threeDL
        case image(header: ImageHeader, layout: LUTImageLayout)
        case look(String)
    }

    /// The biggest LUT the CLI reads (the library's own limit; its readers default to 128).
    static let maximumSize = LUT.sizeRange.upperBound

    /// The built-in look `name`, matched without regard to case, spaces, dashes or underscores.
    static func lookName(_ name: String) -> String? {
        let names = LUTConfiguration.shared.lookNames
        if names.contains(name) { return name }
        let key = { (s: String) in s.lowercased().filter { $0.isLetter || $0.isNumber } }
        return names.first { key($0) == key(name) }
    }

    /// Reads the LUT `path` names (a file, else a built-in look). Every failure is a usage
    /// error (exit 2) carrying the library's LUTError text, naming the file as spelled.
    static func read(_ path: String, layout word: LayoutWord?) throws(CLIError) -> (lut: LUT, source: Source) {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if !fm.fileExists(atPath: path, isDirectory: &isDir) {
            if let name = lookName(path), let lut = LUTConfiguration.shared.look(named: name) {
                return (lut, .look(name))
            }
            let looks = LUTConfiguration.shared.lookNames.joined(separator: ", ")
            let missing = LUTError.unreadableFile(path: path, reason: "no such file")
            throw .usage("\(missing.description) (and no built-in look has that name; the looks are \(looks))")
        }
        if isDir.boolValue {
            throw .usage(LUTError.unreadableFile(path: path, reason: "it is a folder").description)
        }
        let url = URL(fileURLWithPath: path)
        do throws(LUTError) {
            switch url.pathExtension.lowercased() {
            case "cube":
                return (try LUT(contentsOf: url, maximumSize: maximumSize), .cube)
            case "3dl":
                return (try LUT(contentsOf: url, maximumSize: maximumSize), .threeDL)
            default:
                let data: Data
                do { data = try Data(contentsOf: url) } catch {
                    throw LUTError.unreadableFile(path: path, reason: (error as NSError).localizedDescription)
                }
                guard ImageCodecs.sniff(data) != nil, let header = try? ImageCodecs.readHeader(data) else {
                    throw LUTError.unknownFileType(path: path)
                }
                let layout = readingLayout(word, width: header.width, height: header.height)
                var lut = try LUT(imageData: data, layout: layout, maximumSize: maximumSize)
                if lut.title == nil { lut.title = url.deletingPathExtension().lastPathComponent }
                return (lut, .image(header: header, layout: layout ?? LUTImageLayout.assumed(width: header.width, height: header.height)))
            }
        } catch {
            let text = error.description.replacingOccurrences(of: url.path, with: path)
            throw .usage(text.contains(path) ? text : "\(path): \(text)")
        }
    }

    /// `lut` resampled to `size` points per axis by evaluating it (tetrahedral, shaper
    /// included) on the new grid over its input domain.
    static func resample(_ lut: LUT, size: Int) throws(CLIError) -> LUT {
        let lo = lut.shaper?.domainMin ?? lut.domainMin
        let hi = lut.shaper?.domainMax ?? lut.domainMax
        do {
            var out = try LUT.make(size: size, title: lut.title, colorSpace: lut.colorSpace) { t in
                lut.apply(lo + t * (hi - lo), interpolation: .tetrahedral)
            }
            out.domainMin = lo
            out.domainMax = hi
            return out
        } catch {
            throw .usage(error.description)
        }
    }

    /// The bytes of `lut` as the file `path` names: `.cube`, `.3dl` (12-bit), or a 16-bit PNG
    /// in `layout`.
    static func encode(_ lut: LUT, for path: String, layout: LUTImageLayout) throws(CLIError) -> Data {
        do throws(LUTError) {
            switch (path as NSString).pathExtension.lowercased() {
            case "cube": return try lut.cubeData()
            case "3dl": return try lut.threeDLData(outputBitDepth: 12)
            case "png": return try lut.pngData(layout: layout, bitDepth: 16)
            default:
                throw LUTError.unknownFileType(path: path)
            }
        } catch {
            if case .unknownFileType = error {
                throw .usage("cannot tell the LUT format from '\(path)': name the output .cube, .3dl or .png")
            }
            throw .usage(error.description)
        }
    }

    /// Writes `data` to `path` through a temporary file and a rename.
    static func writeAtomically(_ data: Data, to path: String) throws(CLIError) {
        let url = URL(fileURLWithPath: path).absoluteURL.standardizedFileURL
        do {
            try CIContext().writeAtomically(data, to: url)
        } catch {
            throw .failure(error.description.replacingOccurrences(of: url.path, with: path))
        }
    }
}
