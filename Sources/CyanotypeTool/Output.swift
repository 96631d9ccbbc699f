import Cyanotype
import Foundation

/// Which metadata the output keeps (`--strip`, `--keep`). DPI is always kept; orientation is
/// always written upright (the pixels are turned).
package struct MetadataPolicy: Equatable, Sendable {
    package var keepsEXIF = true
    package var keepsGPS = true
    package var keepsICC = true
    package var keepsXMP = true

    package static let words = ["all", "exif", "gps", "icc", "xmp"]

    package static func parse(strip: [String], keep: [String]) throws(CLIError) -> MetadataPolicy {
        func set(_ values: [String], option: String) throws(CLIError) -> Set<String> {
            var out = Set<String>()
            for word in values.flatMap({ $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() } }) {
                guard words.contains(word) else {
                    throw .usage("\(option) takes \(words.joined(separator: ", ")) (comma-separated), got '\(word)'" + Suggest.hint(word, in: words))
                }
                if word == "all" { out.formUnion(["exif", "gps", "icc", "xmp"]) } else { out.insert(word) }
            }
            return out
        }
        let kept = try set(keep, option: "--keep")
        var stripped = try set(strip, option: "--strip")
        // EXIF holds the GPS block: keeping GPS keeps the EXIF it lives in.
        if kept.contains("gps") && stripped.contains("exif") && !kept.contains("exif") {
            if strip.contains(where: { $0.lowercased().contains("exif") }) {
                throw .usage("--keep gps needs the EXIF block it lives in: it cannot go with --strip exif")
            }
            stripped.remove("exif")
        }
        stripped.subtract(kept)
        return MetadataPolicy(
            keepsEXIF: !stripped.contains("exif"), keepsGPS: !stripped.contains("gps") && !stripped.contains("exif"),
            keepsICC: !stripped.contains("icc"), keepsXMP: !stripped.contains("xmp"))
    }

    /// The properties to write with the result: the source's, less what is stripped (GPS from
    /// EXIF and from XMP alike), with the pixel dimensions EXIF and XMP state set to the
    /// result's size. A block whose GPS cannot be removed safely (malformed) is dropped whole.
    package func properties(from source: [String: Any], width: Int, height: Int) -> [String: Any] {
        var p = source
        if let exif = p[kCyanotypePropertyRawEXIF] as? Data {
            if !keepsEXIF {
                // The dictionaries read from that EXIF go with it (a destination would write
                // their text entries back).
                for key in [kCyanotypePropertyRawEXIF, kCGImagePropertyTIFFDictionary, kCGImagePropertyExifDictionary, kCGImagePropertyGPSDictionary] {
                    p[key] = nil
                }
            } else {
                var kept: Data? = exif
                if !keepsGPS { kept = ImageMetadata.exifRemovingGPS(exif) }
                p[kCyanotypePropertyRawEXIF] = kept.map { ImageMetadata.exifSettingPixelDimensions($0, width: width, height: height) }
            }
        }
        if let xmp = p[kCyanotypePropertyRawXMP] as? Data {
            if !keepsXMP {
                p[kCyanotypePropertyRawXMP] = nil
            } else {
                var kept: Data? = xmp
                if !keepsGPS { kept = ImageMetadata.xmpRemovingGPS(xmp) }
                p[kCyanotypePropertyRawXMP] = kept.map { ImageMetadata.xmpSettingPixelDimensions($0, width: width, height: height) }
            }
        }
        return p
    }

    /// The colour space to write in `format`: the source's when it is one the tool writes a
    /// profile for (Display P3), ICC is kept and the format holds a profile (GIF does not);
    /// otherwise sRGB (untagged: every reader assumes it).
    package func colorSpace(for source: [String: Any]?, format: ImageFileFormat) -> CGColorSpace {
        let srgb = CGColorSpace(name: CGColorSpace.sRGB) ?? CGColorSpace(name: CGColorSpace.sRGB)!
        guard keepsICC, format.holdsColorProfile, let name = (source?[kCGImagePropertyProfileName] as? String)?.lowercased(),
            name.contains("display p3"), !name.contains("linear"),
            let p3 = CGColorSpace(name: CGColorSpace.displayP3)
        else { return srgb }
        return p3
    }
}

/// `--alpha`: auto keeps an alpha channel when the input has one; keep always writes one
/// (where the format can); drop flattens onto `--background`.
package enum AlphaMode: String, CaseIterable, Sendable { case auto, keep, drop }

/// How results are encoded: format, depth, channels, encoder settings and metadata, shared by
/// apply, batch and generate.
package struct OutputOptions: @unchecked Sendable {
    package var format: ImageFileFormat?
    package var depth: Int?
    package var quality: Int?
    package var progressive = false
    package var subsample: ChromaSubsampling?
    package var compression: Int?
    package var pngFilter: Cyanotype.PNGFilter?
    package var effort: Int?
    package var lossless = false
    package var alpha: AlphaMode = .auto
    package var background = CIColor(red: 1, green: 1, blue: 1)
    package var metadata = MetadataPolicy()

    package init() {}

    package static let table: [OptionSpec] = [
        OptionSpec("--format", value: "FMT", help: "\(Files.formatList) (default: from the output name; png for '-')."),
        OptionSpec("--quality", short: "-q", value: "Q", help: "JPEG/WebP/HEIF/AVIF/JPEG XL quality 0-100 (default 90)."),
        OptionSpec("--depth", value: "BITS", help: "8, 16 (PNG, TIFF, JPEG XL) or 32 (float TIFF or JPEG XL) bits per sample (default: the input's, where the format holds it)."),
        OptionSpec("--alpha", value: "MODE", help: "auto (keep the input's alpha channel; default), keep (always write one), drop (flatten onto --background)."),
        OptionSpec(
            "--background", value: "COLOR",
            help:
                "What transparent parts become when alpha is not written (JPEG, --alpha drop, an opaque input's uncovered corners): #rrggbb, [r g b], or a CSS colour name (default white)."
        ),
        OptionSpec("--strip", value: "WHAT", repeatable: true, help: "Leave metadata out: all, exif, gps (from EXIF and XMP), icc or xmp (comma-separated)."),
        OptionSpec("--keep", value: "WHAT", repeatable: true, help: "Keep metadata despite --strip, e.g. --strip all --keep icc."),
        OptionSpec("--progressive", help: "JPEG: write a progressive file."),
        OptionSpec("--subsample", value: "MODE", help: "JPEG chroma subsampling: 444, 422 or 420 (default 444 at --quality 90 or more, else 420, as ImageMagick and vips)."),
        OptionSpec("--compression", value: "0-9", help: "PNG zlib level (default 2: fast, row filter 'up'; 6-9 try every filter: smallest, slowest)."),
        OptionSpec("--png-filter", value: "F", help: "PNG row filter: none, sub, up, average, paeth or adaptive (default: the one --compression picks)."),
        OptionSpec("--effort", value: "N", help: "Encoder effort: WebP 0-6, AVIF/HEIF 0-9, JPEG XL 1-9 (higher: smaller and slower)."),
        OptionSpec("--lossless", help: "WebP/AVIF/JPEG XL: lossless."),
    ]

    package static let notes = """
        Output: the input's bit depth and channels are kept where the format holds them (16-bit
        PNG/TIFF stay 16-bit, grey stays grey in PNG/TIFF/JPEG, RGB does not gain alpha); an
        opaque input stays opaque. Metadata is kept the same way on every path (filters,
        resizing, geometry, batch) and in every format: EXIF and XMP (GPS included unless
        --strip gps; orientation set upright; pixel dimensions updated), DPI (JPEG, PNG, TIFF),
        and a Display P3 profile; other profiles (and P3 into GIF, which holds none) are converted
        to sRGB, and EXIF's ColorSpace then says sRGB. --strip icc writes sRGB.
        """

    package static func parse(_ args: ParsedArguments) throws(CLIError) -> OutputOptions {
        var o = OutputOptions()
        if let f = args.value("format") {
            guard let format = Files.format(named: f) else {
                throw .usage("--format must be \(Files.formatList), got '\(f)'" + Suggest.hint(f, in: Files.formatNames))
            }
            o.format = format
        }
        if let d = try args.int("depth", in: 1...32) {
            guard [8, 16, 32].contains(d) else { throw .usage("--depth must be 8, 16 or 32, got '\(d)'") }
            o.depth = d
        }
        o.quality = try args.int("quality", in: 0...100)
        o.progressive = args.has("progressive")
        o.lossless = args.has("lossless")
        if let s = try args.choice("subsample", ["444", "422", "420"]) { o.subsample = ChromaSubsampling(rawValue: "s" + s) }
        o.compression = try args.int("compression", in: 0...9)
        if let f = try args.choice("png-filter", Cyanotype.PNGFilter.allCases.map(\.rawValue)) { o.pngFilter = Cyanotype.PNGFilter(rawValue: f) }
        o.effort = try args.int("effort", in: 0...9)
        if let a = try args.choice("alpha", AlphaMode.allCases.map(\.rawValue)) { o.alpha = AlphaMode(rawValue: a) ?? .auto }
        if let b = args.value("background") {
            if ["none", "transparent"].contains(b.lowercased()) {
                if args.value("alpha") == nil { o.alpha = .keep }
            } else {
                guard let c = Colors.parse(b) else {
                    throw .usage(
                        "--background expects #rrggbb, [r g b] (0-1), none, or a CSS colour name (white, black, tomato, rebeccapurple ...; 148 in all), got '\(b)'"
                            + Suggest.hint(b, in: Colors.names))
                }
                o.background = c
            }
        }
        o.metadata = try MetadataPolicy.parse(strip: args.all("strip"), keep: args.all("keep"))
        if args.has("keep") && !args.has("strip") { Console.note("--keep only matters with --strip: metadata is kept by default") }
        return o
    }

    /// The JPEG chroma subsampling chosen when `--subsample` is not given: full colour (4:4:4)
    /// at quality 90 or more (the default quality is 90), 4:2:0 below, as ImageMagick and vips
    /// choose. nil for other formats.
    package func defaultSubsampling(for format: ImageFileFormat) -> ChromaSubsampling? {
        guard format == .jpeg else { return nil }
        return (quality ?? 90) >= 90 ? .s444 : .s420
    }

    /// The bit depth written for an input of `sourceDepth` bits (nil: none, as for generate).
    package func depth(for format: ImageFileFormat, sourceDepth: Int?) -> Int {
        if let depth { return depth }
        guard let s = sourceDepth, s > 8 else { return 8 }
        switch format {
        case .tiff, .jxl: return s == 32 ? 32 : 16
        case .png: return 16
        default: return 8
        }
    }

    /// Refuses what `format` cannot hold; warns about settings it ignores.
    package func check(for format: ImageFileFormat, path: String) throws(CLIError) {
        if let d = depth {
            if d == 16 && format != .png && format != .tiff && format != .jxl {
                throw .usage("--depth 16 needs PNG, TIFF or JPEG XL output (\(Files.displayName(format)) is 8-bit)")
            }
            if d == 32 && format != .tiff && format != .jxl { throw .usage("--depth 32 (float) needs TIFF or JPEG XL output") }
        }
        if let e = effort, format == .webp, e > 6 { throw .usage("--effort for WebP is 0-6, got \(e)") }
        if let e = effort, format == .jxl, e < 1 { throw .usage("--effort for JPEG XL is 1-9, got \(e)") }
        for note in ignoredSettings(for: format) { Console.warn("\(note) (\(path == "-" ? "<stdout>" : path) is \(Files.displayName(format)))") }
    }

    /// The settings given that `format` does not use.
    package func ignoredSettings(for format: ImageFileFormat) -> [String] {
        var out: [String] = []
        if progressive && format != .jpeg { out.append("--progressive applies to JPEG only") }
        if subsample != nil && format != .jpeg { out.append("--subsample applies to JPEG only") }
        if compression != nil && format != .png { out.append("--compression applies to PNG only") }
        if pngFilter != nil && format != .png { out.append("--png-filter applies to PNG only") }
        if effort != nil && ![.webp, .avif, .heif, .jxl].contains(format) { out.append("--effort applies to WebP, AVIF, HEIF and JPEG XL only") }
        if lossless && ![.webp, .avif, .heif, .jxl].contains(format) { out.append("--lossless applies to WebP, AVIF and JPEG XL only") }
        if quality != nil && [.png, .tiff].contains(format) { out.append("--quality applies to lossy formats only") }
        return out
    }
}

/// Colours for `--background`: the CSS named colours, #rrggbb or [r g b].
package enum Colors {
    package static var names: [String] { CSSColors.names }

    package static func parse(_ text: String) -> CIColor? {
        ValueParser.color(text)
    }
}

/// What the input file was, from its properties: what the output keeps.
package struct SourceFacts {
    package let properties: [String: Any]
    package init(properties: [String: Any]) { self.properties = properties }
    package var depth: Int { properties[kCGImagePropertyDepth] as? Int ?? 8 }
    package var hasAlpha: Bool { properties[kCGImagePropertyHasAlpha] as? Bool ?? true }
    package var isGray: Bool { (properties[kCGImagePropertyColorModel] as? String) == "Gray" }
}

/// Encoding a result with the output rules, to a file (atomically) or to stdout.
package enum ImageWriter {
    /// Writes `image` to `path` in `format`. `source` is the input's properties (nil for
    /// generated images); `uncovers` says the recipe may have left parts of an opaque input
    /// clear (they are flattened onto the background unless alpha is written); `input` names
    /// the file to blame when its pixels cannot be decoded.
    package static func write(
        _ image: CIImage, source: SourceFacts?, to path: String, format: ImageFileFormat, options o: OutputOptions,
        uncovers: Bool, keepsEdgesClear: Bool, context: CIContext, input: String?
    ) throws(CLIError) {
        if path == "-" {
            try Console.out(
                try encode(
                    image, source: source, format: format, options: o, uncovers: uncovers, keepsEdgesClear: keepsEdgesClear,
                    context: context, input: input, output: path))
            return
        }
        let job = prepare(image, source: source, format: format, options: o, uncovers: uncovers, keepsEdgesClear: keepsEdgesClear)
        // Written as it is encoded (JPEG, PNG and TIFF as their rows render) into a temporary file
        // beside the output, then renamed: never a half-written output.
        let url = URL(fileURLWithPath: path).absoluteURL.standardizedFileURL
        do {
            try context.write(job.image, as: format, to: url, depth: job.depth, colorSpace: job.colorSpace, options: job.options)
        } catch {
            throw Messages.writing(error, input: input, output: path)
        }
    }

    /// The bytes `write` would write: `image` encoded as `format` with the output rules
    /// (alpha, background, depth, metadata); `output` names the destination in messages.
    package static func encode(
        _ image: CIImage, source: SourceFacts?, format: ImageFileFormat, options o: OutputOptions,
        uncovers: Bool, keepsEdgesClear: Bool, context: CIContext, input: String?, output path: String
    ) throws(CLIError) -> Data {
        let job = prepare(image, source: source, format: format, options: o, uncovers: uncovers, keepsEdgesClear: keepsEdgesClear)
        do {
            return try context.encode(job.image, as: format, depth: job.depth, colorSpace: job.colorSpace, options: job.options)
        } catch {
            throw Messages.writing(error, input: input, output: path)
        }
    }

    /// `image` composited over an opaque `background`, blended in sRGB-encoded values as
    /// browsers, vips and ImageMagick flatten ((0,128,255) at alpha 128 over magenta gives
    /// (127,64,255)), not in the linear working space.
    package static func flattened(_ image: CIImage, onto background: CIColor) -> CIImage {
        let backdrop = WorkingSpace.encodedConstant(background).cropped(to: image.extent)
        return WorkingSpace.decoded(WorkingSpace.encoded(image).composited(over: backdrop))
    }

    /// What to encode under the output rules: the image flattened onto the background where
    /// alpha is not written, with the kept metadata, and the encoder's depth, colour space and
    /// options.
    private static func prepare(
        _ image: CIImage, source: SourceFacts?, format: ImageFileFormat, options o: OutputOptions, uncovers: Bool, keepsEdgesClear: Bool
    ) -> (image: CIImage, depth: Int, colorSpace: CGColorSpace, options: [CIImageRepresentationOption: Any]) {
        let writesAlpha: Bool
        switch (format, o.alpha) {
        case (.jpeg, _), (_, .drop): writesAlpha = false
        case (_, .keep): writesAlpha = true
        case (_, .auto): writesAlpha = source.map { $0.hasAlpha || keepsEdgesClear } ?? true
        }
        var result = image
        let mayBeClear = source.map { $0.hasAlpha || uncovers || keepsEdgesClear } ?? true
        if !writesAlpha && mayBeClear && !result.extent.isInfinite {
            result = flattened(result, onto: o.background)
        }
        let e = PixelSize(result.extent)
        if let source {
            result = result.settingProperties(o.metadata.properties(from: source.properties, width: e.width, height: e.height))
        } else {
            result = result.settingProperties([:])
        }
        var options: [CIImageRepresentationOption: Any] = [.alphaChannel: writesAlpha]
        if let q = o.quality { options[.lossyCompressionQuality] = Double(q) / 100 }
        if o.progressive { options[.progressive] = true }
        if let s = o.subsample ?? o.defaultSubsampling(for: format) { options[.chromaSubsampling] = s }
        if let c = o.compression { options[.compressionLevel] = c }
        if let f = o.pngFilter { options[.pngFilter] = f }
        if let e = o.effort { options[.effort] = e }
        if o.lossless { options[.lossless] = true }
        if source?.isGray == true { options[.grayscaleIfNeutral] = true }
        return (result, o.depth(for: format, sourceDepth: source?.depth), o.metadata.colorSpace(for: source?.properties, format: format), options)
    }
}

/// Whole pixels of an extent.
package struct PixelSize {
    package let width: Int, height: Int
    package init(_ r: CGRect) {
        width = r.isInfinite || r.isEmpty ? 0 : Int((r.maxX - 1e-9).rounded(.up) - (r.minX + 1e-9).rounded(.down))
        height = r.isInfinite || r.isEmpty ? 0 : Int((r.maxY - 1e-9).rounded(.up) - (r.minY + 1e-9).rounded(.down))
    }
}
