import Cyanotype
import CyanotypeTool
import Foundation

/// `cyanotype demo`: the sample photo through a tour of the built-in filters, each written
/// as its own JPEG, plus a labelled contact sheet built with the library.
enum DemoCommand {
    static let spec = CommandSpec(
        "demo", positionals: [],
        summary: "Filter the sample photo (Samples/astronaut.png) through filters, LUT looks and presets; write each result plus a contact sheet.",
        options: [
            OptionSpec("--output", short: "-o", value: "DIR", help: "Folder to write into (default ./cyanotype-demo)."),
            OptionSpec("--input", value: "FILE", help: "Use this photo instead of the shipped sample."),
            OptionSpec("--max-size", value: "PX", help: "Work on a copy whose long edge is at most PX (default 512)."),
        ],
        notes: """
            The sample is looked for in: --input; $CYANOTYPE_SAMPLES (a folder holding astronaut.png);
            Samples/astronaut.png in the executable's folder or any folder above it; the source checkout.
            """)

    /// A demo step: a label for the sheet, a file name and filter specs (the CLI's own syntax).
    struct Step {
        let label: String
        let file: String
        let specs: [String]
        /// Blur-like filters read past the edges: clamp the input first so borders stay sharp.
        var clamp = false
        /// An Instafilter look (`--preset` name) instead of filter specs.
        var preset: String? = nil
        /// A built-in LUT look (`--lut` name, from `LUTConfiguration.shared.lookNames`) instead of filter specs.
        var lut: String? = nil
    }

    /// The built-in LUT looks the tour shows, those of them this build has.
    static let lutLooks: [(name: String, label: String, file: String)] = [
        ("warmFilm", "lut warm film", "24-lut-warm-film"),
        ("tealOrange", "lut teal/orange", "25-lut-teal-orange"),
        ("crossProcess", "lut x-process", "26-lut-cross-process"),
        ("bwHighContrast", "lut b/w contrast", "27-lut-bw-high-contrast"),
    ]

    static func steps(width w: CGFloat, height h: CGFloat) -> [Step] {
        let cx = Int(w / 2), cy = Int(h / 2), r = Int(max(w, h) * 0.6)
        return [
            Step(label: "original", file: "00-original", specs: []),
            Step(label: "sepia", file: "01-sepia", specs: ["sepiaTone intensity=0.9"]),
            Step(label: "color controls", file: "02-color-controls", specs: ["colorControls saturation=1.6 contrast=1.15 brightness=0.02"]),
            Step(label: "vibrance", file: "03-vibrance", specs: ["vibrance amount=0.9"]),
            Step(label: "exposure +1", file: "04-exposure", specs: ["exposureAdjust ev=1"]),
            Step(label: "hue adjust", file: "05-hue-adjust", specs: ["hueAdjust angle=2.1"]),
            Step(label: "monochrome", file: "06-monochrome", specs: ["colorMonochrome color=[0.55 0.7 0.9 1] intensity=1"]),
            Step(label: "invert", file: "07-invert", specs: ["colorInvert"]),
            Step(label: "gaussian blur", file: "08-gaussian-blur", specs: ["gaussianBlur radius=\(max(2, Int(w / 80)))"], clamp: true),
            Step(label: "unsharp mask", file: "09-unsharp-mask", specs: ["unsharpMask radius=2.5 intensity=1.2"], clamp: true),
            Step(label: "bloom", file: "10-bloom", specs: ["bloom radius=\(max(2, Int(w / 50))) intensity=1"], clamp: true),
            Step(label: "vignette", file: "11-vignette", specs: ["vignette intensity=1 radius=1.5"]),
            Step(label: "warm", file: "12-temperature-warm", specs: ["temperatureAndTint neutral=[6500 0] targetNeutral=[4800 0]"]),
            Step(label: "gamma 0.7", file: "13-gamma", specs: ["gammaAdjust power=0.7"]),
            Step(
                label: "multiply radial", file: "14-multiply-radial",
                specs: [
                    "multiplyBlendMode backgroundImage=radial",
                    "radialGradient center=[\(cx) \(cy)] radius0=\(r / 4) radius1=\(r) color0=[1 0.95 0.8 1] color1=[0.15 0.2 0.45 1]",
                ]),
            Step(label: "lanczos 1/2", file: "15-lanczos-half", specs: ["lanczosScaleTransform scale=0.5"]),
            Step(label: "clarendon", file: "16-preset-clarendon", specs: [], preset: "clarendon"),
            Step(label: "lark", file: "17-preset-lark", specs: [], preset: "lark"),
            Step(label: "nashville", file: "18-preset-nashville", specs: [], preset: "nashville"),
            Step(label: "x-pro ii", file: "19-preset-xpro2", specs: [], preset: "xpro2"),
            Step(label: "portra (grain)", file: "20-preset-portra", specs: [], preset: "portra"),
            Step(label: "tri-x (grain)", file: "21-preset-trix", specs: [], preset: "trix"),
            Step(label: "inkwell", file: "22-preset-inkwell", specs: [], preset: "inkwell"),
            Step(label: "1977", file: "23-preset-1977", specs: [], preset: "1977"),
        ]
            + lutLooks.filter { LUTConfiguration.shared.lookNames.contains($0.name) }.map {
                Step(label: $0.label, file: $0.file, specs: [], lut: $0.name)
            }
    }

    /// Where the sample photo is, in the documented order.
    static func findSample(explicit: String?) throws(CLIError) -> String {
        if let explicit { return explicit }
        let fm = FileManager.default
        if let env = ProcessInfo.processInfo.environment["CYANOTYPE_SAMPLES"], !env.isEmpty {
            for candidate in [(env as NSString).appendingPathComponent("astronaut.png"), env] where candidate.hasSuffix(".png") {
                if fm.fileExists(atPath: candidate) { return candidate }
            }
        }
        var starts: [URL] = []
        if let exe = try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            starts.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        if let arg0 = CommandLine.arguments.first, arg0.contains("/") {
            starts.append(URL(fileURLWithPath: arg0).resolvingSymlinksInPath().deletingLastPathComponent())
        }
        for start in starts {
            var dir = start.standardizedFileURL
            while true {
                let candidate = dir.appendingPathComponent("Samples/astronaut.png").path
                if fm.fileExists(atPath: candidate) { return candidate }
                let parent = dir.deletingLastPathComponent()
                if parent.path == dir.path { break }
                dir = parent
            }
        }
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Samples/astronaut.png").standardizedFileURL.path
        if fm.fileExists(atPath: source) { return source }
        throw .failure("cannot find the sample photo Samples/astronaut.png: pass --input FILE or set CYANOTYPE_SAMPLES to the Samples folder")
    }

    static func run(_ args: ParsedArguments) throws(CLIError) {
        let started = Date()
        let outputDir = args.value("output") ?? "cyanotype-demo"
        let maxSize = try args.int("max-size", in: 16...8192) ?? 512
        let samplePath = try findSample(explicit: args.value("input"))
        do {
            try FileManager.default.createDirectory(atPath: outputDir, withIntermediateDirectories: true)
        } catch {
            throw .failure("\(outputDir): cannot create the folder (\((error as NSError).localizedDescription))")
        }
        let context = CIContext()
        let sRGB = CGColorSpace(name: CGColorSpace.sRGB)
        // Work on a downscaled copy so the tour is quick, rendered once to memory.
        var downscale = Pipeline()
        downscale.geometry.maxSize = maxSize
        let original = try freeze(downscale.run(on: FileReading().readImage(samplePath)), context, sRGB)
        try Console.print("demo: \(samplePath) (\(Int(original.extent.width))x\(Int(original.extent.height)) working copy)")
        var jpeg = OutputOptions()
        jpeg.quality = 90

        var tiles: [(label: String, image: CIImage)] = []
        for step in steps(width: original.extent.width, height: original.extent.height) {
            let result = try apply(step, to: original, context: context, space: sRGB)
            let path = (outputDir as NSString).appendingPathComponent(step.file + ".jpg")
            try Files.checkNotOverwriting(output: path, inputs: [samplePath])
            try ImageWriter.write(
                result, source: nil, to: path, format: .jpeg, options: jpeg, uncovers: false,
                keepsEdgesClear: false, context: context, input: nil)
            try Console.print("  wrote \(path)")
            tiles.append((step.label, result))
        }
        let sheetPath = (outputDir as NSString).appendingPathComponent("contact-sheet.png")
        try Files.checkNotOverwriting(output: sheetPath, inputs: [samplePath])
        let sheet = contactSheet(tiles, tile: min(maxSize, 192))
        try ImageWriter.write(
            sheet, source: nil, to: sheetPath, format: .png, options: OutputOptions(), uncovers: false,
            keepsEdgesClear: false, context: context, input: nil)
        try Console.print("  wrote \(sheetPath)")
        try Console.print(String(format: "demo: %d images and a contact sheet in %.2f s", tiles.count, Date().timeIntervalSince(started)))
    }

    /// Renders `image` once to 8-bit sRGB memory, so later steps read pixels, not the recipe.
    static func freeze(_ image: CIImage, _ context: CIContext, _ space: CGColorSpace?) throws(CLIError) -> CIImage {
        do {
            let r = try context.renderToData(image, from: image.extent, format: .RGBA8, colorSpace: space)
            return CIImage(
                bitmapData: r.data, bytesPerRow: r.rowBytes, size: CGSize(width: r.width, height: r.height),
                format: .RGBA8, colorSpace: space)
        } catch {
            throw .failure("rendering failed: \(error)")
        }
    }

    static func apply(_ step: Step, to original: CIImage, context: CIContext, space: CGColorSpace?) throws(CLIError) -> CIImage {
        if let name = step.preset { return try freeze(Presets.make(name).apply(to: original), context, space) }
        if let name = step.lut {
            let look: LUT
            do { look = try LUTConfiguration.shared.requireLook(named: name) } catch { throw .failure(error.description) }
            return try freeze(original.applyingLUT(look), context, space)
        }
        guard let first = step.specs.first else { return original }
        let extent = original.extent
        // The second spec, when there is one, is the generator behind `backgroundImage`.
        let background = try step.specs.dropFirst().first.map { (text: String) throws(CLIError) in
            try ResolvedFilter(parsing: text) { (_: String) throws(CLIError) -> CIImage in original }.apply(to: nil).cropped(to: extent)
        }
        let filter = try ResolvedFilter(parsing: first) { (_: String) throws(CLIError) -> CIImage in background ?? original }
        let input = step.clamp ? original.clampedToExtent() : original
        var out = try filter.apply(to: input)
        if !filter.descriptor.categories.contains(kCICategoryGeometryAdjustment) { out = out.cropped(to: extent) }
        return try freeze(out, context, space)
    }

    /// A grid of thumbnails (at most `tile` px) with their labels, over a dark background.
    static func contactSheet(_ tiles: [(label: String, image: CIImage)], tile: Int) -> CIImage {
        let columns = 4, gap = 8
        let scale = tile >= 128 ? 2 : 1
        let labelHeight = BitmapFont.glyphHeight * scale + 6
        let rows = (tiles.count + columns - 1) / columns
        let cellHeight = tile + labelHeight
        let width = columns * tile + (columns + 1) * gap
        let height = rows * cellHeight + (rows + 1) * gap
        let sheetRect = CGRect(x: 0, y: 0, width: width, height: height)
        var sheet = CIImage(color: CIColor(red: 0.11, green: 0.12, blue: 0.14)).cropped(to: sheetRect)
        for (k, t) in tiles.enumerated() {
            let col = k % columns, row = k / columns
            let x = gap + col * (tile + gap)
            let bottom = height - (gap + row * (cellHeight + gap)) - cellHeight
            // Thumbnail: fitted into the tile square, centred above the label.
            let e = t.image.extent
            let fit = min(1, CGFloat(tile) / max(e.width, e.height))
            let tw = (e.width * fit).rounded(), th = (e.height * fit).rounded()
            let thumb = t.image
                .transformed(by: CGAffineTransform(translationX: -e.minX, y: -e.minY), highQualityDownsample: false)
                .transformed(by: CGAffineTransform(scaleX: fit, y: fit), highQualityDownsample: true)
                .transformed(
                    by: CGAffineTransform(
                        translationX: CGFloat(x) + (CGFloat(tile) - tw) / 2,
                        y: CGFloat(bottom + labelHeight) + (CGFloat(tile) - th) / 2))
            sheet = thumb.composited(over: sheet)
            // Label: as many characters as fit under the tile.
            let fitChars = max(1, (tile + scale) / ((BitmapFont.glyphWidth + 1) * scale))
            let label = BitmapFont.image(String(t.label.prefix(fitChars)), scale: scale, color: (230, 232, 236))
            let lw = CGFloat(BitmapFont.width(of: String(t.label.prefix(fitChars)), scale: scale))
            sheet = label.transformed(by: CGAffineTransform(translationX: CGFloat(x) + (CGFloat(tile) - lw) / 2, y: CGFloat(bottom + 3)))
                .composited(over: sheet)
        }
        return sheet.cropped(to: sheetRect)
    }
}
