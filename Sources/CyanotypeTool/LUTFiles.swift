import Cyanotype
import Foundation

/// Reading LUTs for `apply --lut`, `batch --lut` and `lut ...`: a `.cube`/`.3dl` file, a LUT
/// image in a layout, or the name of a built-in look when no file of that name exists.
package enum LUTFiles {
    /// The `--lut-layout` / `--layout` words: `strip` is resolved from the image's shape
    /// when reading (N x N^2 is a vertical strip) and is a horizontal strip when writing.
    package enum LayoutWord: String, CaseIterable {
        case tiles, hald, strip
    }

    package static func layoutWord(_ text: String?, option: String) throws(CLIError) -> LayoutWord? {
        guard let text else { return nil }
        guard let w = LayoutWord(rawValue: text.lowercased()) else {
            throw .usage("\(option) must be tiles, hald or strip, got '\(text)'")
        }
        return w
    }

    package static func interpolation(_ text: String?) throws(CLIError) -> LUTInterpolation? {
        guard let text else { return nil }
        guard let i = LUTInterpolation(rawValue: text.lowercased()) else {
            throw .usage("--interp must be trilinear or tetrahedral, got '\(text)'")
        }
        return i
    }

    /// The layout to read an image of `width` x `height` in.
    package static func readingLayout(_ word: LayoutWord?, width: Int, height: Int) -> LUTImageLayout? {
        switch word {
        case nil: return nil
        case .tiles: return .tiles
        case .hald: return .hald
        case .strip: return width >= 2 && height == width * width ? .verticalStrip : .horizontalStrip
        }
    }

    package static func writingLayout(_ word: LayoutWord?) -> LUTImageLayout {
        switch word {
        case nil, .tiles: return .tiles
        case .hald: return .hald
        case .strip: return .horizontalStrip
        }
    }

    /// What a LUT was read from, for `lut info`.
    package enum Source {
        case cube, threeDL
        case image(header: ImageFileHeader, layout: LUTImageLayout)
        case look(String)
    }

    /// The biggest LUT the CLI reads (the library's own limit; its readers default to 128).
    package static let maximumSize = LUT.sizeRange.upperBound

    /// The built-in look `name`, matched without regard to case, spaces, dashes or underscores.
    package static func lookName(_ name: String) -> String? {
        let names = LUTConfiguration.shared.lookNames
        if names.contains(name) { return name }
        let key = { (s: String) in s.lowercased().filter { $0.isLetter || $0.isNumber } }
        return names.first { key($0) == key(name) }
    }

    /// Reads the LUT `path` names (a file, else a built-in look). A file that is missing,
    /// unreadable or not a LUT is a failure (exit 1), named as spelled. A square image that is
    /// both a tile grid and a Hald CLUT is read in the layout its pixels fit (and says so), or
    /// refused with both named when they do not tell.
    package static func read(_ path: String, layout word: LayoutWord?) throws(CLIError) -> (lut: LUT, source: Source) {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if !fm.fileExists(atPath: path, isDirectory: &isDir) {
            if let name = lookName(path), let lut = LUTConfiguration.shared.look(named: name) {
                return (lut, .look(name))
            }
            let looks = LUTConfiguration.shared.lookNames
            throw .failure(
                "\(path): no such LUT file, and no built-in look has that name"
                    + Suggest.hint(path, in: looks) + " (the looks are \(looks.joined(separator: ", ")))")
        }
        if isDir.boolValue { throw .failure("\(path): is a folder, not a LUT file") }
        if let kind = Files.specialFileKind(path) {
            throw .failure("\(path): not a regular file (\(kind)), so it cannot be read as a LUT; give a .cube, .3dl or LUT image file")
        }
        let url = URL(fileURLWithPath: path)
        switch url.pathExtension.lowercased() {
        case "cube", "3dl":
            do {
                let lut = try LUT(contentsOf: url, maximumSize: maximumSize)
                return (lut, url.pathExtension.lowercased() == "cube" ? .cube : .threeDL)
            } catch {
                throw Messages.lut(error, file: path)
            }
        default:
            let data: Data
            do { data = try Data(contentsOf: url) } catch {
                throw .failure("\(path): cannot read the LUT file (\((error as NSError).localizedDescription))")
            }
            guard ImageFileFormat(sniffing: data) != nil, let header = try? ImageFileHeader(reading: data) else {
                throw Messages.lut(.unknownFileType(path: path), file: path)
            }
            var layout = readingLayout(word, width: header.width, height: header.height)
            if layout == nil { layout = try inferredLayout(data, header: header, path: path) }
            do {
                var lut = try LUT(imageData: data, layout: layout, maximumSize: maximumSize)
                if lut.title == nil { lut.title = url.deletingPathExtension().lastPathComponent }
                return (lut, .image(header: header, layout: layout ?? LUTImageLayout.assumed(width: header.width, height: header.height)))
            } catch {
                throw Messages.lut(error, file: path)
            }
        }
    }

    /// The layout of a LUT image whose size fits several, from its pixels; a usage error
    /// (pass --lut-layout) when they do not tell. Nil when the size fits one layout or none.
    package static func inferredLayout(_ data: Data, header: ImageFileHeader, path: String) throws(CLIError) -> LUTImageLayout? {
        let candidates = LUT.possibleLayouts(width: header.width, height: header.height)
        guard candidates.count > 1 else { return nil }
        let inference: LUTLayoutInference
        do { inference = try LUT.inferLayout(imageData: data, maximumSize: maximumSize) } catch { throw Messages.lut(error, file: path) }
        let names = inference.candidates.map { describe($0, header) }
        guard let chosen = inference.layout else {
            throw .usage(
                "\(path): a \(header.width)x\(header.height) image holds a LUT both as \(names.joined(separator: " and as ")), "
                    + "and its pixels do not tell which; pass --lut-layout \(inference.candidates.map { word($0) }.joined(separator: " or --lut-layout "))")
        }
        let others = inference.candidates.filter { $0 != chosen }.map { describe($0, header) }
        Console.note(
            "\(path): read as \(describe(chosen, header)); as \(others.joined(separator: " or as ")) its table would be far rougher "
                + "(pass --lut-layout to choose)")
        return chosen
    }

    /// "a Hald CLUT of level 5 (25^3)", "tiles (25^3)"
    package static func describe(_ layout: LUTImageLayout, _ h: ImageFileHeader) -> String {
        let l = Int(pow(Double(h.width), 1.0 / 3.0).rounded())
        switch layout {
        case .hald: return "a Hald CLUT of level \(l) (\(l * l)^3)"
        case .tiles: return "tiles (\(l * l)^3)"
        case .horizontalStrip, .verticalStrip: return "a strip"
        }
    }

    package static func word(_ layout: LUTImageLayout) -> String {
        switch layout {
        case .hald: return "hald"
        case .tiles: return "tiles"
        case .horizontalStrip, .verticalStrip: return "strip"
        }
    }

    /// `lut` resampled to `size` points per axis by evaluating it (tetrahedral, shaper
    /// included) on the new grid over its input domain.
    package static func resample(_ lut: LUT, size: Int) throws(CLIError) -> LUT {
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
    package static func encode(_ lut: LUT, for path: String, layout: LUTImageLayout) throws(CLIError) -> Data {
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
    package static func writeAtomically(_ data: Data, to path: String) throws(CLIError) {
        let url = URL(fileURLWithPath: path).absoluteURL.standardizedFileURL
        do {
            try CIContext().writeAtomically(data, to: url)
        } catch {
            throw Messages.writing(error, input: nil, output: path)
        }
    }
}
