import Cyanotype
import CyanotypeTool
import Foundation

/// `cyanotype lut convert|identity|info`: 3D LUT files between formats and layouts.
enum LUTCommand {
    static let actions = ["convert", "identity", "info"]

    static let spec = CommandSpec(
        "lut", positionals: ["ACTION", "IN?", "OUT?"],
        summary: "Convert, make and inspect 3D LUTs (.cube, .3dl, PNG tile grids, strips, Hald CLUTs).",
        options: [
            OptionSpec("--output", short: "-o", value: "OUT", help: "Where 'identity' writes (.cube, .3dl or .png)."),
            OptionSpec("--lut-layout", value: "LAYOUT", help: "How to read an image input: tiles, hald or strip (default: from its shape)."),
            OptionSpec("--layout", value: "LAYOUT", help: "How to write an image output: tiles (default), hald or strip; 'identity' also takes cube."),
            OptionSpec("--size", value: "N", help: "'identity': points per axis (2-256); 'convert': resample to N^3."),
        ],
        notes: """
            Actions:
              convert IN OUT   Read IN (.cube, .3dl, a PNG/JPEG/WebP LUT image, or a built-in look name)
                               and write OUT: .cube, .3dl (12-bit) or .png (16-bit) chosen by OUT's
                               extension. --size N resamples the LUT to N^3 by evaluating it
                               (tetrahedral) on the new grid.
              identity         Write the identity LUT of --size N in --layout tiles|hald|strip|cube to
                               -o OUT (hald needs N = L^2: 4, 9, 16, 25, 36, 49, 64 ...).
              info FILE        Print a LUT's size, domain, shaper, title, layout and colour space.

            Layouts: tiles = sqrt(N) x sqrt(N) grid of N x N tiles (512x512 for 64^3); strip = N tiles in
            a row (N^2 x N; an N x N^2 image reads as a vertical strip); hald = Hald CLUT level L
            (L^3 x L^3 pixels, N = L^2). Square images read as tiles unless --lut-layout hald.
            Built-in looks: \(LUTConfiguration.shared.lookNames.joined(separator: ", ")).
            Outputs are written atomically and never onto the input.

            Examples:
              cyanotype lut convert film.cube film.png --layout hald
              cyanotype lut convert lookup.png lookup.cube --size 33
              cyanotype lut identity --size 64 --layout tiles -o identity.png
              cyanotype lut info film.cube
            """)

    static func run(_ args: ParsedArguments) throws(CLIError) {
        let action = args.positionals[0]
        let operands = Array(args.positionals.dropFirst())
        switch action {
        case "convert": try convert(args, operands)
        case "identity": try identity(args, operands)
        case "info": try info(args, operands)
        default:
            throw .usage("unknown lut action '\(action)'" + Suggest.hint(action, in: actions) + "; the actions are \(actions.joined(separator: ", "))")
        }
    }

    /// Refuses options that `action` does not use.
    static func allow(_ args: ParsedArguments, _ keys: Set<String>, action: String) throws(CLIError) {
        for key in args.values.keys.sorted() where !keys.contains(key) {
            throw .usage("--\(key) is not used by 'lut \(action)'")
        }
    }

    static func convert(_ args: ParsedArguments, _ operands: [String]) throws(CLIError) {
        try allow(args, ["lut-layout", "layout", "size", "output"], action: "convert")
        var operands = operands
        if let o = args.value("output") {
            guard operands.count == 1 else { throw .usage("give OUT either as the second argument or with -o, not both") }
            operands.append(o)
        }
        guard operands.count == 2 else { throw .usage("'lut convert' needs IN and OUT: cyanotype lut convert IN OUT") }
        let (input, output) = (operands[0], operands[1])
        let readWord = try LUTFiles.layoutWord(args.value("lut-layout"), option: "--lut-layout")
        let writeWord = try LUTFiles.layoutWord(args.value("layout"), option: "--layout")
        let size = try args.int("size", in: LUT.sizeRange.lowerBound...LUT.sizeRange.upperBound)
        try checkLayout(writeWord, for: output)
        try Files.checkNotOverwriting(output: output, inputs: [input])
        var lut = try LUTFiles.read(input, layout: readWord).lut
        if let size {
            if writeWord == .hald, !isSquare(size) {
                throw .usage("--size \(size) is not a square: a Hald CLUT of level L holds L^2 points per axis; use \(nearSquares(size))")
            }
            lut = try LUTFiles.resample(lut, size: size)
        } else if writeWord == .hald, !isSquare(lut.size) {
            // Hald CLUTs hold L^2 points per axis: resample to the nearest level and say so.
            let n = nearestSquare(lut.size)
            Console.note("\(input): \(lut.size)^3 is not a Hald size; resampled to \(n)^3 (Hald level \(isqrtInt(n))); pass --size to choose (\(nearSquares(lut.size)))")
            lut = try LUTFiles.resample(lut, size: n)
        }
        let data = try LUTFiles.encode(lut, for: output, layout: LUTFiles.writingLayout(writeWord))
        try LUTFiles.writeAtomically(data, to: output)
    }

    static func isqrtInt(_ n: Int) -> Int {
        var r = Int(Double(n).squareRoot())
        while r * r > n { r -= 1 }
        while (r + 1) * (r + 1) <= n { r += 1 }
        return r
    }
    static func isSquare(_ n: Int) -> Bool { let r = isqrtInt(n); return r * r == n }
    /// The square nearest `n` (at least 4; the larger on a tie).
    static func nearestSquare(_ n: Int) -> Int {
        let l = isqrtInt(n)
        let lo = max(4, l * l), hi = (l + 1) * (l + 1)
        return n - lo < hi - n ? lo : hi
    }
    /// "--size 16 or --size 25"
    static func nearSquares(_ n: Int) -> String {
        let l = isqrtInt(n)
        return Set([l * l, (l + 1) * (l + 1)].filter { $0 >= 4 }).sorted().map { "--size \($0)" }.joined(separator: " or ")
    }

    /// `--layout` only means something for an image output.
    static func checkLayout(_ word: LUTFiles.LayoutWord?, for output: String) throws(CLIError) {
        let ext = (output as NSString).pathExtension.lowercased()
        if let word, ext != "png" {
            throw .usage("--layout \(word.rawValue) is for .png outputs; '\(output)' is written as .\(ext) text")
        }
    }

    static func identity(_ args: ParsedArguments, _ operands: [String]) throws(CLIError) {
        try allow(args, ["layout", "size", "output"], action: "identity")
        guard operands.isEmpty else { throw .usage("unexpected argument '\(operands[0])' for 'lut identity' (use -o OUT)") }
        guard let output = args.value("output") else { throw .usage("missing -o OUT for 'lut identity'") }
        guard let size = try args.int("size", in: LUT.sizeRange.lowerBound...LUT.sizeRange.upperBound) else {
            throw .usage("missing --size N for 'lut identity' (e.g. --size 33 for a .cube, 64 for a 512x512 tile grid)")
        }
        let ext = (output as NSString).pathExtension.lowercased()
        let text = args.value("layout")?.lowercased()
        var layout = LUTImageLayout.tiles
        if text == "cube" || (text == nil && ext != "png") {
            guard ext == "cube" || ext == "3dl" else {
                throw .usage(
                    text == nil
                        ? "cannot tell the LUT format from '\(output)': name the output .cube, .3dl or .png"
                        : "--layout cube writes LUT text: name the output .cube (or .3dl), not '\(output)'")
            }
        } else {
            guard let word = text.map({ LUTFiles.LayoutWord(rawValue: $0) }) ?? .tiles else {
                throw .usage("--layout must be tiles, hald, strip or cube, got '\(args.value("layout") ?? "")'")
            }
            guard ext == "png" else {
                throw .usage("--layout \(word.rawValue) writes a PNG image: name the output .png, not '\(output)'")
            }
            layout = LUTFiles.writingLayout(word)
            if layout == .hald, !isSquare(size) {
                throw .usage("--size \(size) is not a square: a Hald CLUT of level L holds L^2 points per axis; use \(nearSquares(size))")
            }
        }
        try write(LUT.identity(size: size), to: output, layout: layout)
    }

    static func write(_ make: @autoclosure () throws(LUTError) -> LUT, to output: String, layout: LUTImageLayout) throws(CLIError) {
        let lut: LUT
        do { lut = try make() } catch { throw .usage(error.description) }
        try LUTFiles.writeAtomically(try LUTFiles.encode(lut, for: output, layout: layout), to: output)
    }

    static func info(_ args: ParsedArguments, _ operands: [String]) throws(CLIError) {
        try allow(args, ["lut-layout"], action: "info")
        guard operands.count == 1 else {
            throw .usage(operands.isEmpty ? "missing FILE for 'lut info'" : "unexpected argument '\(operands[1])' for 'lut info'")
        }
        let path = operands[0]
        let (lut, source) = try LUTFiles.read(path, layout: LUTFiles.layoutWord(args.value("lut-layout"), option: "--lut-layout"))
        func v(_ x: SIMD3<Float>) -> String { x.x == x.y && x.y == x.z ? "\(x.x)" : "\(x.x) \(x.y) \(x.z)" }
        var lines = ["file: \(path)"]
        switch source {
        case .cube: lines.append("format: .cube text")
        case .threeDL: lines.append("format: .3dl text")
        case .look(let name): lines.append("format: built-in look '\(name)'")
        case .image(let h, let layout):
            lines.append("format: \(h.format.rawValue) image \(h.width)x\(h.height), \(h.bitDepth)-bit")
            var text = "layout: \(name(of: layout))"
            let others = LUT.possibleLayouts(width: h.width, height: h.height).filter { $0 != layout }
            if !others.isEmpty {
                text += args.value("lut-layout") == nil ? " (chosen by its pixels; " : " (as asked; "
                text += "its size also fits \(others.map { LUTFiles.describe($0, h) }.joined(separator: ", ")))"
            }
            lines.append(text)
        }
        lines.append("size: \(lut.size) (\(lut.size)^3 = \(lut.size * lut.size * lut.size) entries)")
        lines.append("domain: \(v(lut.domainMin)) ... \(v(lut.domainMax))")
        if let s = lut.shaper {
            lines.append("shaper: 1D, \(s.values.count) points, domain \(v(s.domainMin)) ... \(v(s.domainMax))")
        } else {
            lines.append("shaper: none")
        }
        lines.append("title: \(lut.title ?? "(none)")")
        lines.append("colour space: \(lut.colorSpace.rawValue)")
        try Console.print(lines.joined(separator: "\n"))
    }

    static func name(of layout: LUTImageLayout) -> String {
        switch layout {
        case .tiles: return "tiles"
        case .hald: return "hald"
        case .horizontalStrip: return "strip (horizontal, N^2 x N)"
        case .verticalStrip: return "strip (vertical, N x N^2)"
        }
    }
}
