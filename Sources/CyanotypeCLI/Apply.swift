import Cyanotype
import Foundation
import Instafilter

/// The filters of a command line in order, then the LUT, then the preset, plus the optional
/// downscale, applied to one image.
struct Pipeline: Sendable {
    let filters: [ResolvedFilter]
    let maxSize: Int?
    /// A 3D LUT (`--lut`), read once, applied after the filters and before the preset.
    var lut: LUT? = nil
    var interpolation: LUTInterpolation = .tetrahedral
    /// The LUT's strength, 0...1 (`--intensity` when there is no preset).
    var lutIntensity: Float = 1
    /// A named look (Instafilter), applied after the filters, at its intensity.
    var preset: BaseFilter? = nil

    /// Applies every filter in order. A filter that is not a geometry adjustment keeps the
    /// image's extent (a blur does not grow the picture; a generator fills it), then the
    /// image is downscaled with CILanczosScaleTransform if its long edge is above `maxSize`.
    func run(on input: CIImage) throws(CLIError) -> CIImage {
        var image = input
        for f in filters {
            let before = image.extent
            var out = try f.apply(to: image)
            if !f.descriptor.categories.contains(kCICategoryGeometryAdjustment), !before.isInfinite,
               out.extent.isInfinite || out.extent.contains(before) {
                out = out.cropped(to: before)
            }
            image = out
        }
        if let lut { image = image.applyingLUT(lut, interpolation: interpolation, intensity: lutIntensity) }
        if let preset { image = preset.apply(to: image) }
        if let maxSize, !image.extent.isInfinite {
            let long = max(image.extent.width, image.extent.height)
            if long > CGFloat(maxSize) {
                let scale = CGFloat(maxSize) / long
                guard let lanczos = CIFilter(name: "CILanczosScaleTransform") else {
                    throw .failure("CILanczosScaleTransform is not available in this build")
                }
                lanczos.setValue(image, forKey: kCIInputImageKey)
                lanczos.setValue(NSNumber(value: Double(scale)), forKey: kCIInputScaleKey)
                lanczos.setValue(NSNumber(value: 1.0), forKey: kCIInputAspectRatioKey)
                do { image = try lanczos.makeOutputImage() } catch { throw .failure(error.description) }
            }
        }
        return image
    }
}

/// Options shared by `apply` and `batch`, read once from the command line.
struct ApplyOptions {
    let pipeline: Pipeline
    let format: String?
    let settings: EncodeSettings
    let explain: Bool
    /// Paths of images named inside filter specs: never overwritten.
    let specImagePaths: [String]

    static let table: [OptionSpec] = [
        OptionSpec("--output", short: "-o", value: "OUTPUT", help: "Where to write (a file, '-' for stdout; a folder for batch)."),
        OptionSpec("--filter", short: "-f", value: "SPEC", repeatable: true,
                   help: "A filter and its inputs, e.g. 'gaussianBlur radius=4'; applied in order."),
        OptionSpec("--quality", short: "-q", value: "Q", help: "JPEG/WebP quality 0-100 (default 90)."),
        OptionSpec("--max-size", value: "PX", help: "Downscale (Lanczos) so the long edge is at most PX; never upscales."),
        OptionSpec("--format", value: "FMT", help: "jpeg, png, webp, tiff, heic or avif (default: from the output name; png for '-')."),
        OptionSpec("--depth", value: "BITS", help: "8 or 16 bits per sample (16: PNG and TIFF only)."),
        OptionSpec("--explain", help: "Print the render plan (CIContext.explain) instead of writing."),
        OptionSpec("--lut", value: "FILE", help: "Apply a 3D LUT after the filters: .cube, .3dl, a LUT image, or a built-in look name."),
        OptionSpec("--lut-layout", value: "LAYOUT", help: "How a LUT image is laid out: tiles, hald or strip (default: from its shape)."),
        OptionSpec("--interp", value: "MODE", help: "LUT interpolation: tetrahedral (default) or trilinear."),
        OptionSpec("--preset", value: "NAME", help: "Apply a named look after the filters and the LUT (see 'cyanotype preset list')."),
        OptionSpec("--intensity", value: "X", help: "Strength 0 to 1 (default 1) of --preset, or of --lut when there is no preset."),
    ]

    static let specNotes = """
        SPEC is one shell word: a filter name then key=value pairs. Names and keys are Core Image's
        (CIGaussianBlur inputRadius=4) or short (gaussianBlur radius=4). Values: numbers, true/false,
        vectors [x y] [x y z w], colours [r g b a] or #rrggbb[aa], transforms [a b c d tx ty],
        images by path, strings in double quotes ("hello world", \\" for a quote).
        See 'cyanotype filters' and 'cyanotype describe NAME'.

        Order: the filters in the order given, then the LUT, then the preset, then --max-size.
        --lut FILE is read once (batch shares it across every file); a .cube/.3dl file, or a PNG,
        JPEG or WebP LUT image (tiles: 512x512 for 64^3; strip: N^2 x N or N x N^2; hald: pass
        --lut-layout hald, square images read as tiles otherwise). When no file of that name
        exists, FILE may name a built-in look: \(LUTConfiguration.shared.lookNames.joined(separator: ", ")).
        --intensity applies to --preset when there is one, otherwise to --lut.
        """

    init(_ args: ParsedArguments) throws(CLIError) {
        let lutWord = try LUTFiles.layoutWord(args.value("lut-layout"), option: "--lut-layout")
        let interpolation = try LUTFiles.interpolation(args.value("interp"))
        if !args.has("lut"), args.has("lut-layout") || args.has("interp") {
            throw .usage("--\(args.has("lut-layout") ? "lut-layout" : "interp") needs --lut")
        }
        let preset = try args.value("preset").map { (name: String) throws(CLIError) in try Presets.make(name) }
        var lutIntensity: Float = 1
        if let text = args.value("intensity") {
            guard preset != nil || args.has("lut") else { throw .usage("--intensity needs --preset or --lut") }
            guard let x = Double(text), x.isFinite, (0...1).contains(x) else {
                throw .usage("--intensity expects a number from 0 to 1, got '\(text)'")
            }
            if let preset { preset.intensity = x } else { lutIntensity = Float(x) }
        }
        // Parsed once here: every image of a batch shares the table.
        let lut = try args.value("lut").map { (path: String) throws(CLIError) in try LUTFiles.read(path, layout: lutWord).lut }
        if let d = try args.int("depth", in: 8...16) {
            guard d == 8 || d == 16 else { throw .usage("--depth must be 8 or 16, got '\(d)'") }
            settings = EncodeSettings(quality: try args.int("quality", in: 0...100), depth: d)
        } else {
            settings = EncodeSettings(quality: try args.int("quality", in: 0...100), depth: 8)
        }
        let maxSize = try args.int("max-size", in: 1...1_000_000)
        var paths: [String] = []
        var filters: [ResolvedFilter] = []
        for text in args.all("filter") {
            filters.append(try ResolvedFilter(parsing: text) { (path: String) throws(CLIError) -> CIImage in
                paths.append(path)
                return try Files.readImage(path)
            })
        }
        pipeline = Pipeline(filters: filters, maxSize: maxSize, lut: lut, interpolation: interpolation ?? .tetrahedral,
                            lutIntensity: lutIntensity, preset: preset)
        format = args.value("format")
        explain = args.has("explain")
        if let path = args.value("lut"), FileManager.default.fileExists(atPath: path) { paths.append(path) }
        specImagePaths = paths
        if let f = format, Files.format(named: f) == nil { throw .usage("--format must be jpeg, png, webp, tiff, heic or avif, got '\(f)'") }
    }

    func checkDepth(for format: ImageFileFormat) throws(CLIError) {
        if settings.depth == 16 && format != .png && format != .tiff {
            throw .usage("--depth 16 needs PNG or TIFF output (\(format.rawValue) is 8-bit)")
        }
    }
}

enum ApplyCommand {
    static let spec = CommandSpec(
        "apply", positionals: ["INPUT"],
        summary: "Apply filters to one image (INPUT '-' reads stdin) and write the result.",
        options: ApplyOptions.table,
        notes: ApplyOptions.specNotes + """


            Examples:
              cyanotype apply photo.jpg -o out.jpg --filter 'sepiaTone intensity=0.8' --filter 'vignette intensity=1'
              cyanotype apply photo.jpg -o small.webp --max-size 1024 --quality 80
              cyanotype apply photo.jpg -o graded.jpg --filter 'exposureAdjust ev=0.3' --lut film.cube --interp trilinear
              cyanotype apply photo.jpg -o look.jpg --lut lookup.png --lut-layout hald --intensity 0.7
              cyanotype apply photo.jpg -o warm.jpg --lut warmFilm --preset clarendon --intensity 0.5
              cat photo.png | cyanotype apply - -o - --filter colorInvert > inverted.png
            """)

    static func run(_ args: ParsedArguments) throws(CLIError) {
        let input = args.positionals[0]
        let opts = try ApplyOptions(args)
        let output = args.value("output")
        if output == nil && !opts.explain { throw .usage("missing -o OUTPUT for 'apply'") }
        var format = ImageFileFormat.png
        if let output {
            format = try Files.outputFormat(explicit: opts.format, path: output)
            try opts.checkDepth(for: format)
            try Files.checkNotOverwriting(output: output, inputs: [input] + opts.specImagePaths)
        }
        let image = try opts.pipeline.run(on: try Files.readImage(input))
        let context = CIContext()
        if opts.explain {
            // The plan for the output file's pixels: straight sRGB at its depth.
            let bits: CIFormat = opts.settings.depth == 16 ? .RGBA16 : .RGBA8
            print(context.explain(image, format: bits, colorSpace: CGColorSpace(name: CGColorSpace.sRGB), premultiplied: false))
            return
        }
        guard let output else { return }
        guard !image.extent.isInfinite else {
            throw .failure("the result has an infinite extent; add a crop, e.g. --filter 'crop rectangle=[0 0 512 512]'")
        }
        try Files.write(image, to: output, format: format, settings: opts.settings, context: context)
    }
}

enum GenerateCommand {
    static let spec = CommandSpec(
        "generate", positionals: ["SPEC"],
        summary: "Render a generator filter (checkerboard, gradients, constant colour) cropped to 0,0,W,H.",
        options: [
            OptionSpec("--output", short: "-o", value: "OUTPUT", help: "Where to write (a file, or '-' for stdout)."),
            OptionSpec("--size", value: "WxH", help: "Output size in pixels (default 512x512)."),
            OptionSpec("--format", value: "FMT", help: "jpeg, png, webp, tiff, heic or avif (default: from the output name)."),
            OptionSpec("--quality", short: "-q", value: "Q", help: "JPEG/WebP quality 0-100."),
            OptionSpec("--depth", value: "BITS", help: "8 or 16 bits per sample (16: PNG and TIFF only)."),
        ],
        notes: """
            Examples:
              cyanotype generate CICheckerboardGenerator -o board.png --size 256x256
              cyanotype generate 'linearGradient point0=[0 0] point1=[512 0] color0=#ff0000 color1=#0000ff' -o ramp.png
            """)

    static func parseSize(_ text: String) throws(CLIError) -> (Int, Int) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (1...65_536).contains(w), (1...65_536).contains(h) else {
            throw .usage("--size expects WxH with sides from 1 to 65536, e.g. 512x512, got '\(text)'")
        }
        return (w, h)
    }

    static func run(_ args: ParsedArguments) throws(CLIError) {
        guard let output = args.value("output") else { throw .usage("missing -o OUTPUT for 'generate'") }
        let (w, h) = try parseSize(args.value("size") ?? "512x512")
        let format = try Files.outputFormat(explicit: args.value("format"), path: output)
        let depth = try args.int("depth", in: 8...16) ?? 8
        guard depth == 8 || (depth == 16 && format == .png) else { throw .usage("--depth must be 8, or 16 for PNG output") }
        var paths: [String] = []
        let filter = try ResolvedFilter(parsing: args.positionals[0]) { (path: String) throws(CLIError) -> CIImage in
            paths.append(path)
            return try Files.readImage(path)
        }
        if filter.takesImage && filter.values[kCIInputImageKey] == nil {
            throw .usage("\(filter.descriptor.name) needs an input image: use 'cyanotype apply INPUT --filter ...'")
        }
        try Files.checkNotOverwriting(output: output, inputs: paths)
        let image = try filter.apply(to: nil).cropped(to: CGRect(x: 0, y: 0, width: w, height: h))
        guard !image.extent.isEmpty else { throw .failure("\(filter.descriptor.name) produced nothing inside 0,0,\(w),\(h)") }
        let settings = EncodeSettings(quality: try args.int("quality", in: 0...100), depth: depth)
        try Files.write(image, to: output, format: format, settings: settings, context: CIContext())
    }
}
