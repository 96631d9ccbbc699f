import Cyanotype
import CyanotypeTool
import CyanotypeVideo
import Foundation

/// `filters`, `describe` and `info`: what the library and a file say about themselves.
enum FiltersCommand {
    static let spec = CommandSpec(
        "filters", positionals: [],
        summary: "List the built-in filters, optionally of one category.",
        options: [
            OptionSpec("--category", value: "NAME", help: "Only this category: CICategoryBlur or blur."),
            OptionSpec("--json", help: "Print JSON: [{name, displayName, categories, summary}]."),
        ])

    static func run(_ args: ParsedArguments) throws(CLIError) {
        let category = try args.value("category").map { (c: String) throws(CLIError) in try Names.category(c) }
        let descriptors = CIFilter.filterNames(inCategory: category).compactMap { CIFilter.descriptor(forFilterName: $0) }
        if args.has("json") {
            let list: [[String: Any]] = descriptors.map(FilterJSON.summary)
            try Console.print(try JSONText.encode(list))
            return
        }
        let width = descriptors.map(\.name.count).max() ?? 0
        let shortWidth = descriptors.map { Names.shortFilter($0.name).count }.max() ?? 0
        var text = ""
        for d in descriptors {
            text +=
                d.name.padding(toLength: width + 2, withPad: " ", startingAt: 0)
                + Names.shortFilter(d.name).padding(toLength: shortWidth + 2, withPad: " ", startingAt: 0) + d.summary + "\n"
        }
        try Console.print(text, terminator: "")
    }
}

enum DescribeCommand {
    static let spec = CommandSpec(
        "describe", positionals: ["NAME"],
        summary: "Show a filter's inputs: keys, types, defaults and ranges.",
        options: [OptionSpec("--json", help: "Print the description as JSON.")])

    static func text(_ v: FilterValue) -> String { FilterJSON.text(v) }
    static func json(_ v: FilterValue) -> Any { FilterJSON.json(v) }
    static func number(_ d: Double) -> String { FilterJSON.number(d) }
    /// What to type for an input of this class.
    static func syntax(_ i: FilterInputDescriptor) -> String { FilterJSON.syntax(i) }

    static func run(_ args: ParsedArguments) throws(CLIError) {
        let d = try Names.filter(args.positionals[0])
        if args.has("json") {
            let obj = FilterJSON.description(d)
            try Console.print(try JSONText.encode(obj))
            return
        }
        var s = "\(d.name) (\(Names.shortFilter(d.name))): \(d.displayName)\n\(d.summary)\n"
        s += "Categories: " + d.categories.map { CIFilter.localizedName(forCategory: $0) }.joined(separator: ", ") + "\n"
        s += "Inputs:\n"
        for i in d.inputs {
            var line = "  \(i.key) (\(Names.shortKey(i.key))): \(i.className)"
            if let t = i.attributeType { line += ", " + t.replacingOccurrences(of: "CIAttributeType", with: "").lowercased() }
            line += "  \(syntax(i))"
            if let v = i.defaultValue { line += "  default \(text(v))" }
            if let range = InputLimits.text(i) { line += "  range \(range)" }
            if let limit = i.limit { line += " (\(limit.reason))" }
            if let lo = i.sliderMinimum, let hi = i.sliderMaximum { line += "  slider \(number(lo))...\(number(hi))" }
            s += line + "\n"
        }
        if d.inputs.contains(where: ResolvedFilter.isPlacement) {
            s += """
                Coordinates: in apply, batch, video and serve, points and rectangles are pixels from the
                picture's top-left corner (y down, as --crop); --origin bottom-left takes Core Image's
                (y up). Points left out are placed on the picture: Apple's default [150 150] is its
                centre, a quadrilateral's corners are its corners, and a vignette's or distortion's
                radius is scaled from Apple's 300 x 300 example to the picture's shorter side. The
                defaults above are Apple's.

                """
        }
        try Console.print(s, terminator: "")
    }
}

enum InfoCommand {
    static let spec = CommandSpec(
        "info", positionals: ["FILE..."],
        summary: "Show image files' size, format, bit depth, channels, orientation, profile, DPI, metadata, and their frames or pages; several files in turn.",
        options: [
            OptionSpec(
                "--json",
                help:
                    "Print every property with Image I/O's keys (PixelWidth, Depth, {Exif}, {GPS}...), as CGImageSourceCopyPropertiesAtIndex gives them, plus FileSize; animations add {GIF}/{PNG}/{WebP} LoopCount and FrameInfo, multi-page files CyanotypePages. Several files give an array, each object with File (and Error for a file that could not be read)."
            )
        ])

    static func run(_ args: ParsedArguments) throws(CLIError) {
        guard !args.positionals.isEmpty else { throw .usage("missing FILE for 'info'") }
        let json = args.has("json")
        // One file: its facts (a JSON object); several: each in turn (a JSON array), a file
        // that cannot be read reported on its own and the status 1 at the end, as identify does.
        if args.positionals.count == 1 {
            let path = args.positionals[0]
            if path != "-", let movie = try movieFacts(path) {
                try Console.print(json ? try JSONText.encode(movie.dictionary) : movie.lines.joined(separator: "\n"))
                return
            }
            let facts = try imageFacts(path, json: json)
            try Console.print(json ? try JSONText.encode(facts.dictionary) : facts.lines.joined(separator: "\n"))
            return
        }
        var objects: [[String: Any]] = []
        var blocks: [String] = []
        var failed = 0
        for path in args.positionals {
            do throws(CLIError) {
                if path != "-", let movie = try movieFacts(path) {
                    objects.append(movie.dictionary)
                    blocks.append(movie.lines.joined(separator: "\n"))
                } else {
                    let facts = try imageFacts(path, json: json)
                    objects.append(facts.dictionary.merging(["File": path]) { a, _ in a })
                    blocks.append(facts.lines.joined(separator: "\n"))
                }
            } catch {
                if case .brokenPipe = error { throw error }
                failed += 1
                Console.err("cyanotype info: error: \(error.description)\n")
                if json { objects.append(["File": path, "Error": error.description]) }
            }
        }
        try Console.print(json ? try JSONText.encode(objects) : blocks.joined(separator: "\n\n"))
        if failed > 0 { throw .failure("") }
    }

    /// A RAW camera file's facts: camera, lens, ISO, exposure, white balance and native size
    /// (`json`: Image I/O's dictionary with `{CyanotypeRAW}` and FileSize).
    static func rawFacts(_ data: Data, path: String, json: Bool) throws(CLIError) -> (lines: [String], dictionary: [String: Any]) {
        let name = path == "-" ? "<stdin>" : path
        let filter: CIRAWFilter
        do { filter = try CIRAWFilter.open(data: data, name: name) } catch { throw .failure("\(name): \(error.description)") }
        var p: [String: Any] = [:]
        for (k, v) in filter.properties { if let k = k as? String { p[k] = v } }
        if json {
            p["FileSize"] = data.count
            return ([], p)
        }
        let exif = p[kCGImagePropertyExifDictionary] as? [String: Any] ?? [:]
        let raw = p[kCyanotypePropertyRAW] as? [String: Any] ?? [:]
        func number(_ v: Any?) -> String { (v as? Double).map { DescribeCommand.number($0) } ?? "unknown" }
        var exposure = "unknown"
        if let t = exif[kCGImagePropertyExifExposureTime] as? Double, t > 0 {
            exposure = t < 1 ? "1/\(Int((1 / t).rounded())) s" : "\(DescribeCommand.number(t)) s"
        }
        var lines = [
            "file:          \(name) (\(data.count) bytes)",
            "format:        raw (\(raw["Decoder"] as? String ?? "LibRaw"))",
            "camera:        \(raw["Camera"] as? String ?? "unknown")",
            "lens:          \(exif[kCGImagePropertyExifLensModel] as? String ?? "unknown")",
            "iso:           \((exif[kCGImagePropertyExifISOSpeedRatings] as? [Int])?.first.map(String.init) ?? "unknown")",
            "exposure:      \(exposure), f/\(number(exif[kCGImagePropertyExifFNumber])), \(number(exif[kCGImagePropertyExifFocalLength])) mm",
            "native size:   \(Int(filter.nativeSize.width))x\(Int(filter.nativeSize.height))",
            "orientation:   \(filter.orientation.rawValue)",
        ]
        if let t = raw["WhiteBalanceTemperature"] as? Double, let tint = raw["WhiteBalanceTint"] as? Double {
            lines.append("white balance: as shot \(Int(t)) K, tint \(DescribeCommand.number(tint))")
        }
        return (lines, p)
    }

    /// A movie's facts, or nil when `path` does not name a movie (by its extension).
    static func movieFacts(_ path: String) throws(CLIError) -> MovieFacts? {
        guard VideoInfo.extensions.contains((path as NSString).pathExtension.lowercased()) else { return nil }
        do { return try MovieFacts(AVURLAsset(url: URL(fileURLWithPath: path))) } catch { throw .failure("\(error)") }
    }

    /// An image file's facts: the text lines and Image I/O's property dictionary (`json`: with
    /// FileSize, the format and the frames).
    static func imageFacts(_ path: String, json: Bool) throws(CLIError) -> (lines: [String], dictionary: [String: Any]) {
        let data: Data
        // A large still JPEG, PNG or WebP is read only as far as its header (no frames to list).
        var isWhole = true
        if path == "-" {
            data = try Console.readStandardInput()
        } else {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else { throw .failure("\(path): no such file") }
            if isDir.boolValue {
                throw .failure("\(path): is a folder, not an image file; give its files, e.g. cyanotype info \(path)/*.jpg")
            }
            if let kind = Files.specialFileKind(path) {
                throw .failure("\(path): not a regular file (\(kind)); use - to read standard input")
            }
            do { (data, isWhole) = try ImageFileHeader.bytes(ofFileAt: path) } catch {
                guard case .ioError(_, let detail) = error else { throw .failure("\(path): \(error)") }
                throw .failure("\(path): cannot read the file (\(detail))")
            }
        }
        if CIRAWFilter.isRAWFile(data) { return try rawFacts(data, path: path, json: json) }
        let header: ImageFileHeader
        do { header = try ImageFileHeader(reading: data) } catch { throw .failure(Messages.reading(error, file: path == "-" ? "<stdin>" : path)) }
        // Image I/O's dictionary, from the library (one header read, no pixels).
        var properties: [String: Any]
        do { properties = try ImageFileProperties.properties(ofImageData: data) } catch {
            throw .failure("\(path == "-" ? "<stdin>" : path): \(error.description)")
        }
        let gps = header.exifHasGPS
        let xmpGPS = header.xmpHasGPS
        // Animations and pages: Image I/O's {GIF}/{PNG}/{WebP} container keys, or the pages.
        let frames = isWhole ? try Frames.info(data, file: path) : [:]
        if json {
            properties["FileSize"] = data.count
            properties[kCyanotypePropertyFileFormat] = header.format.rawValue
            Frames.merge(frames, into: &properties)
            return ([], properties)
        }
        let profile: String? = properties[kCGImagePropertyProfileName] as? String
        let orientationNames = [
            1: "up", 2: "up mirrored", 3: "down", 4: "down mirrored",
            5: "left mirrored", 6: "right", 7: "right mirrored", 8: "left",
        ]
        var lines = [
            "file:        \(path == "-" ? "<stdin>" : path) (\(data.count) bytes)",
            "format:      \(header.format.rawValue)",
            "size:        \(header.width)x\(header.height)",
            "bit depth:   \(header.bitDepth)",
            "channels:    \(header.channels) (\(header.colorModel)\(header.hasAlpha ? " + alpha" : ""))",
            "orientation: \(header.orientation) (\(orientationNames[header.orientation] ?? "unknown"))",
            "profile:     \(profile ?? "none (sRGB assumed)")",
            "dpi:         \(header.dpi.map { DescribeCommand.number($0) } ?? "not set")",
        ]
        if let exif = header.exif { lines.append("exif:        \(exif.count) bytes\(gps ? ", with GPS position" : "")") }
        if let xmp = header.xmp { lines.append("xmp:         \(xmp.count) bytes\(xmpGPS ? ", with GPS position" : "")") }
        lines += Frames.infoLines(frames)
        return (lines, properties)
    }
}
