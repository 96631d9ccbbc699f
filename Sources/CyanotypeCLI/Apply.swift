import Cyanotype
import CyanotypeTool
import Foundation
import Instafilter

/// Options shared by `apply` and `batch`, read once from the command line.
struct ApplyOptions {
    let pipeline: Pipeline
    let output: OutputOptions
    let explain: Bool
    /// Paths of images named inside filter specs: never overwritten.
    let specImagePaths: [String]
    /// `--fail-on`: which damage to an input stops the work.
    let failOn: FailOn
    /// `--pixel-limit` and `--no-auto-orient`: how inputs are read and results rendered.
    let reading: FileReading

    static let pipelineTable: [OptionSpec] = [
        OptionSpec("--output", short: "-o", value: "OUTPUT", help: "Where to write (a file, '-' for stdout; a folder for batch)."),
        OptionSpec(
            "--filter", short: "-f", value: "SPEC", repeatable: true,
            help: "A filter and its inputs, e.g. 'gaussianBlur radius=4'; applied in order."),
        OptionSpec("--crop", value: "WxH+X+Y", help: "Keep a W x H box whose top-left corner is X, Y pixels from the top left (or from the --gravity edge)."),
        OptionSpec("--rotate", value: "DEG", help: "Turn clockwise: 90, 180, 270 move pixels exactly; other angles resample, corners get --background."),
        OptionSpec("--flip", help: "Mirror top to bottom."),
        OptionSpec("--flop", help: "Mirror left to right."),
        OptionSpec(
            "--resize", value: "GEOM",
            help: "50%, 800x600 (fit inside), 800x600^ (cover the box, no crop: 900x600 from 3:2), 800x600! (exact), 800x, x600; > only shrinks, < only enlarges."),
        OptionSpec("--thumbnail", value: "SIZE", help: "A square SIZE x SIZE (or WxH, or WxH^) thumbnail: cover the box, then crop to it by --gravity (default center)."),
        OptionSpec("--max-size", value: "PX", help: "Downscale so the long edge is at most PX; never upscales."),
        OptionSpec("--gravity", value: "G", help: "Where a crop sits: northwest, north, northeast, west, center, east, southwest, south, southeast."),
        OptionSpec(
            "--edges", value: "MODE",
            help: "What filters and resizing read past the edges: clamp (default: edge pixels repeated), mirror, transparent (Core Image's own: borders fade)."),
        WorkingSpace.option,
        Origin.option,
        OptionSpec("--auto-orient", help: "Turn the pixels upright from the EXIF orientation (the default)."),
        OptionSpec("--no-auto-orient", help: "Keep the pixels as stored (the orientation tag is kept)."),
        OptionSpec("--lut", value: "FILE", help: "Apply a 3D LUT after the filters: .cube, .3dl, a LUT image, or a built-in look name."),
        OptionSpec("--lut-layout", value: "LAYOUT", help: "How a LUT image is laid out: tiles, hald or strip (default: from its shape and pixels)."),
        OptionSpec("--interp", value: "MODE", help: "LUT interpolation: tetrahedral (default) or trilinear."),
        OptionSpec("--preset", value: "NAME", help: "Apply a named look after the filters and the LUT (see 'cyanotype preset list')."),
        OptionSpec("--intensity", value: "X", help: "Strength 0 to 1 (default 1) of --preset, or of --lut when there is no preset."),
        OptionSpec(
            "--pixel-limit", value: "N",
            help:
                "The most pixels a file may declare (checked from its header before any decoding, shrink-on-load or not) or a result may have (default about 268 million for files decoded whole, 1 billion for streamed ones (baseline JPEG, 8-bit PNG) and for results)."
        ),
        OptionSpec("--limit", value: "N", help: "Same as --pixel-limit."),
        FailOn.option,
    ]

    static let table: [OptionSpec] =
        pipelineTable + RAWReading.options + OutputOptions.table
        + [OptionSpec("--explain", help: "Print the render plan instead of writing.")]

    /// How a filter SPEC is written: every command that takes `--filter` shows it.
    static let specSyntaxNotes = """
        SPEC is one shell word: a filter name then key=value pairs. Names and keys are Core Image's
        (CIGaussianBlur inputRadius=4) or short (gaussianBlur radius=4). Values: numbers, true/false,
        vectors [x y] [x y z w], colours [r g b a], #rrggbb[aa] or a CSS name, transforms [a b c d tx ty],
        images by path, strings in double quotes ("hello world", \\" for a quote). A number outside
        the input's range is brought inside it, with a warning. Points and rectangles are pixels
        from the picture's top-left corner (--origin bottom-left: Core Image's); points left out
        sit on the picture (Apple's [150 150] is its centre). --working-space srgb runs the filters
        on sRGB-encoded values instead of linear light. See 'cyanotype filters' and
        'cyanotype describe NAME'.
        """

    static let specNotes =
        specSyntaxNotes + """


            Order: --crop, --rotate, --flip, --flop; the filters in the order given; the LUT; the
            preset; then --resize or --thumbnail, then the --max-size cap. Geometry follows
            ImageMagick: top-left origin, clockwise turns. Filters that read past the picture's
            edges (blurs, sharpening, resizing) see the --edges extension, so an opaque picture
            stays opaque to its border.
            --lut FILE is read once (batch shares it across every file); a .cube/.3dl file, or a PNG,
            JPEG or WebP LUT image (tiles: 512x512 for 64^3; strip: N^2 x N or N x N^2; hald: L^3 x L^3).
            A square image can be both tiles and a Hald CLUT: the layout whose table is smooth is used
            and named; pass --lut-layout when the pixels do not tell. When no file of that name
            exists, FILE may name a built-in look: \(LUTConfiguration.shared.lookNames.joined(separator: ", ")).
            --intensity applies to --preset when there is one, otherwise to --lut.

            """ + OutputOptions.notes

    init(_ args: ParsedArguments) throws(CLIError) {
        let reading = try FileReading.parse(args)
        self.reading = reading
        output = try OutputOptions.parse(args)
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
        var pipeline = Pipeline()
        pipeline.geometry = try GeometryOptions.parse(args)
        var paths: [String] = []
        for text in args.all("filter") {
            pipeline.filters.append(
                try ResolvedFilter(parsing: text) { (path: String) throws(CLIError) -> CIImage in
                    paths.append(path)
                    return try reading.readImage(path)
                })
        }
        // Parsed once here: every image of a batch shares the table.
        pipeline.lut = try args.value("lut").map { (path: String) throws(CLIError) in try LUTFiles.read(path, layout: lutWord).lut }
        pipeline.interpolation = interpolation ?? .tetrahedral
        pipeline.lutIntensity = lutIntensity
        pipeline.preset = preset
        pipeline.workingSpace = try WorkingSpace.parse(args)
        pipeline.origin = try Origin.parse(args)
        self.pipeline = pipeline
        explain = args.has("explain")
        if let path = args.value("lut"), FileManager.default.fileExists(atPath: path) { paths.append(path) }
        specImagePaths = paths
        failOn = try FailOn.parse(args)
    }

    /// Reads `input`, runs the pipeline and writes `output` in `format`.
    func process(_ input: String, to output: String, format: ImageFileFormat, context: CIContext) throws(CLIError) {
        if let frames = try Frames.source(input, reading: reading) {
            try processFrames(frames, input: input, to: output, format: format, context: context)
            return
        }
        try failOn.reading(input) { (lenient: Bool) throws(CLIError) in
            let source = try reading.readImage(input, lenient: lenient)
            let image = try pipeline.run(on: source)
            guard !image.extent.isInfinite else {
                throw .failure("\(input): the result has no edges (an infinite image); add --crop WxH+X+Y")
            }
            guard !image.extent.isEmpty else { throw .failure("\(input): the result is empty") }
            try ImageWriter.write(
                image, source: SourceFacts(properties: source.properties), to: output, format: format, options: self.output,
                uncovers: pipeline.uncovers, keepsEdgesClear: pipeline.geometry.edges == .transparent,
                context: context, input: input)
        }
    }
}

enum ApplyCommand {
    static let spec = CommandSpec(
        "apply", positionals: ["INPUT..."],
        summary: "Apply filters, geometry and a look to one image (INPUT '-' reads stdin) and write the result.",
        options: ApplyOptions.table + [InPlace.option],
        notes: ApplyOptions.specNotes + """


            Examples:
              cyanotype apply photo.jpg -o out.jpg --filter 'sepiaTone intensity=0.8' --filter 'vignette intensity=1'
              cyanotype apply photo.jpg -o small.webp --resize 50% --quality 80 --strip gps
              cyanotype apply photo.jpg -o square.jpg --thumbnail 256
              cyanotype apply scan.tif -o page.png --crop 2000x3000+120+80 --rotate 90
              cyanotype apply photo.jpg -o graded.jpg --filter 'exposureAdjust ev=0.3' --lut film.cube --interp trilinear
              cyanotype apply photo.jpg -o warm.jpg --lut warmFilm --preset clarendon --intensity 0.5
              cat photo.png | cyanotype apply - -o - --filter colorInvert --working-space srgb > negative.png
              cyanotype apply --in-place *.jpg --max-size 2000 --strip gps
            """)

    static func run(_ args: ParsedArguments) throws(CLIError) {
        guard let input = args.positionals.first else { throw .usage("missing INPUT for 'apply'") }
        if args.has("in-place") { return try InPlace.run(args, options: try ApplyOptions(args)) }
        if args.positionals.count > 1 {
            throw .usage("unexpected argument '\(args.positionals[1])' for 'apply' (one INPUT with -o; --in-place rewrites several; 'cyanotype batch' writes many into a folder)")
        }
        let opts = try ApplyOptions(args)
        let output = args.value("output")
        if output == nil && !opts.explain { throw .usage("missing -o OUTPUT for 'apply'") }
        if opts.explain {
            let source = try opts.reading.readImage(input)
            let image = try opts.pipeline.run(on: source)
            // The plan for the output file's pixels: straight, at its depth, in the colour space
            // the file is written in (Display P3 kept where the format holds it, else sRGB).
            let format = try output.map { (o: String) throws(CLIError) in try Files.outputFormat(explicit: opts.output.format, path: o) }
            let space = opts.output.metadata.colorSpace(for: source.properties, format: format ?? opts.output.format ?? .png)
            let bits: CIFormat = opts.output.depth ?? 8 > 8 ? .RGBA16 : .RGBA8
            try Console.print(opts.reading.makeContext().explain(image, format: bits, colorSpace: space, premultiplied: false))
            return
        }
        guard let output else { return }
        let format = try Files.outputFormat(explicit: opts.output.format, path: output)
        try opts.output.check(for: format, path: output)
        try Files.checkNotOverwriting(output: output, inputs: [input] + opts.specImagePaths)
        try opts.process(input, to: output, format: format, context: opts.reading.makeContext())
    }
}

enum GenerateCommand {
    static let spec = CommandSpec(
        "generate", positionals: ["SPEC..."],
        summary: "Render a generator filter (gradients, patterns, barcodes) at --size.",
        options: [
            OptionSpec("--output", short: "-o", value: "OUTPUT", help: "Where to write (a file, or '-' for stdout)."),
            OptionSpec(
                "--size", value: "WxH",
                help:
                    "Output size in pixels, WxH or N for a square (default: the generator's own size when it has edges, as text does; else 512x512; barcodes: whole modules fitted into 512)."
            ),
            Origin.option,
        ] + OutputOptions.table.filter { !["--strip", "--keep"].contains($0.name) },
        notes: """
            Generators fill 0,0 to W,H; points and rectangles in SPEC count from the top left
            (--origin bottom-left: Core Image's). One with edges of its own (textImageGenerator,
            attributedTextImageGenerator) is written whole at its own size unless --size is given. Barcodes (QR, Aztec, PDF417, Code 128) are scaled to fit
            --size with whole-pixel modules, centred on white with a quiet zone, so scanners read
            them; a size too small for one pixel per module is refused.

            Examples:
              cyanotype generate CICheckerboardGenerator -o board.png --size 256x256
              cyanotype generate 'linearGradient point0=[0 0] point1=[512 0] color0=#ff0000 color1=#0000ff' -o ramp.png
              cyanotype generate 'qrCodeGenerator message="https://example.com"' -o qr.png --size 300
              cyanotype generate qrCodeGenerator message=hello -o hello.png   (words join into one SPEC)
            """)

    static func parseSize(_ text: String) throws(CLIError) -> (Int, Int) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        let bad = CLIError.usage("--size expects WxH (or N for a square) with sides from 1 to 65536, e.g. 512x512, got '\(text)'")
        if parts.count == 1, let n = Int(parts[0]), (1...65_536).contains(n) { return (n, n) }
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (1...65_536).contains(w), (1...65_536).contains(h) else {
            throw bad
        }
        return (w, h)
    }

    static func run(_ args: ParsedArguments) throws(CLIError) {
        guard let output = args.value("output") else { throw .usage("missing -o OUTPUT for 'generate'") }
        let requested = try args.value("size").map { (s: String) throws(CLIError) in try parseSize(s) }
        let origin = try Origin.parse(args)
        let reading = try FileReading.parse(args)
        let options = try OutputOptions.parse(args)
        let format = try Files.outputFormat(explicit: options.format, path: output)
        try options.check(for: format, path: output)
        var paths: [String] = []
        // The spec may come as one quoted argument or split into words by the shell.
        let filter = try ResolvedFilter(parsing: FilterSpec.joining(args.positionals)) { (path: String) throws(CLIError) -> CIImage in
            paths.append(path)
            return try reading.readImage(path)
        }
        if filter.takesImage && filter.values[kCIInputImageKey] == nil {
            throw .usage(Messages.missingInput(filter: filter.descriptor.name, key: kCIInputImageKey))
        }
        try Files.checkNotOverwriting(output: output, inputs: paths)
        let image: CIImage
        var opaque = false
        if let code = filter.descriptor.barcode {
            // One pixel per module: scaled, not cropped.
            image = try barcode(try filter.apply(to: nil), name: filter.shortName, quietZone: !code.includesQuietZone, size: requested)
            opaque = true
        } else {
            // Points written from the canvas's top left (a generator has no picture to default to).
            let (cw, ch) = requested ?? (512, 512)
            let generated = try filter.placed(in: CGRect(x: 0, y: 0, width: cw, height: ch), origin: origin).apply(to: nil)
            if requested == nil, !generated.extent.isInfinite, !generated.extent.isEmpty {
                // A generator with edges of its own (text) is written whole.
                image = generated
            } else {
                let (w, h) = requested ?? (512, 512)
                image = generated.cropped(to: CGRect(x: 0, y: 0, width: w, height: h))
            }
            guard !image.extent.isEmpty else {
                let (w, h) = requested ?? (512, 512)
                throw .failure("\(filter.shortName) produced nothing inside 0,0,\(w),\(h)")
            }
        }
        // Barcodes are black on white: written opaque, and grey where the format allows.
        let source = opaque ? SourceFacts(properties: [kCGImagePropertyHasAlpha: false, kCGImagePropertyColorModel: "Gray"]) : nil
        try ImageWriter.write(
            image, source: source, to: output, format: format, options: options, uncovers: opaque,
            keepsEdgesClear: false, context: reading.makeContext(), input: nil)
    }

    /// `code` (one pixel per module) scaled by the largest whole factor that fits `size`
    /// with a quiet zone (two modules added when `quietZone`: the code has none of its own),
    /// centred on white; without a size, fitted into 512 x 512.
    static func barcode(_ code: CIImage, name: String, quietZone: Bool, size: (Int, Int)?) throws(CLIError) -> CIImage {
        let e = code.extent
        guard !e.isInfinite, !e.isEmpty else { throw .failure("\(name) produced no barcode") }
        let w0 = PixelSize(e).width, h0 = PixelSize(e).height
        // A code without its own quiet zone (Aztec) gets two modules around it.
        let quiet = quietZone ? 2 : 0
        let needW = w0 + 2 * quiet, needH = h0 + 2 * quiet
        let fit = max(1, 512 / max(needW, needH))
        let (W, H) = size ?? (fit * needW, fit * needH)
        let k = min(W / needW, H / needH)
        guard k >= 1 else {
            throw .usage("\(name) needs at least \(needW)x\(needH) pixels (one per module, with its quiet zone); --size \(W)x\(H) is too small")
        }
        let x = (W - k * w0) / 2, y = (H - k * h0) / 2
        let kf = CGFloat(k)
        let placed = code.samplingNearest().transformed(
            by: CGAffineTransform(
                a: kf, b: 0, c: 0, d: kf, tx: CGFloat(x) - kf * e.minX, ty: CGFloat(H - y - k * h0) - kf * e.minY))
        let canvas = CGRect(x: 0, y: 0, width: W, height: H)
        return placed.composited(over: CIImage(color: CIColor(red: 1, green: 1, blue: 1))).cropped(to: canvas)
    }
}
