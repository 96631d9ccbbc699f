import Cyanotype
import Foundation
import Testing
@testable import CyanotypeCLI
@testable import CyanotypeTool

@Suite struct FilterSpecParsing {
    @Test func nameAndPairs() throws {
        let s = try FilterSpec.parse("  gaussianBlur   radius=4 inputCenter=[10 20]  ")
        #expect(s.name == "gaussianBlur")
        #expect(
            s.arguments == [
                .init(key: "radius", value: "4", quoted: false),
                .init(key: "inputCenter", value: "[10 20]", quoted: false),
            ])
    }

    @Test func quotedValuesKeepSpacesAndEscapes() throws {
        let s = try FilterSpec.parse(#"CIText inputMessage="hello \"big\" world" font="a\\b""#)
        #expect(s.arguments[0] == .init(key: "inputMessage", value: #"hello "big" world"#, quoted: true))
        #expect(s.arguments[1].value == #"a\b"#)
        #expect(try FilterSpec.parse(#"x a="""#).arguments[0] == .init(key: "a", value: "", quoted: true))
    }

    @Test func nameOnly() throws {
        #expect(try FilterSpec.parse("colorInvert") == FilterSpec(name: "colorInvert", arguments: []))
    }

    @Test(arguments: [
        ("", "empty filter spec"),
        ("radius=4", "must start with a filter name"),
        ("blur radius", "expected key=value, got 'radius'"),
        ("blur =4", "expected key=value"),
        ("blur radius=", "has no value"),
        (#"blur msg="open"#, "unterminated quote"),
        ("blur center=[1 2", "missing ']'"),
        (#"blur msg="a"b"#, "unexpected 'b'"),
    ])
    func malformedSpecs(text: String, message: String) {
        #expect {
            try FilterSpec.parse(text)
        } throws: { error in
            guard let e = error as? CLIError, case .usage(let m) = e else { return false }
            return m.contains(message)
        }
    }
}

@Suite struct NameResolution {
    @Test(arguments: ["CIGaussianBlur", "gaussianBlur", "GaussianBlur", "gaussianblur", "cigaussianblur"])
    func filterNames(spelling: String) throws {
        #expect(try Names.filter(spelling).name == "CIGaussianBlur")
    }

    @Test func unknownFilterSuggestsTheNearestName() {
        #expect(throws: CLIError.usage("unknown filter 'gausianBlur'; did you mean 'gaussianBlur'? (see 'cyanotype filters')")) {
            try Names.filter("gausianBlur")
        }
        #expect(throws: CLIError.usage("unknown filter 'CIGausianBlur'; did you mean 'gaussianBlur'? (see 'cyanotype filters')")) {
            try Names.filter("CIGausianBlur")
        }
        #expect(throws: CLIError.usage("unknown filter 'frobnicate' (see 'cyanotype filters')")) { try Names.filter("frobnicate") }
    }

    @Test(arguments: ["inputRadius", "radius", "RADIUS", "InputRadius"])
    func keys(spelling: String) throws {
        let d = try Names.filter("CIGaussianBlur")
        #expect(try Names.key(spelling, of: d).key == "inputRadius")
    }

    @Test func unknownKeySuggestsTheNearestKey() throws {
        let d = try Names.filter("CIGaussianBlur")
        #expect(throws: CLIError.usage("gaussianBlur has no input 'radus'; did you mean 'radius'? Its inputs are image, radius")) {
            try Names.key("radus", of: d)
        }
        #expect(throws: CLIError.usage("gaussianBlur has no input 'sigma'; its inputs are image, radius")) { try Names.key("sigma", of: d) }
    }

    /// Leading acronyms are lower-cased whole (Swift's naming rule); the old spellings still resolve.
    @Test(arguments: [
        ("CIGaussianBlur", "gaussianBlur"), ("CIQRCodeGenerator", "qrCodeGenerator"), ("CICMYKHalftone", "cmykHalftone"),
        ("CIPDF417BarcodeGenerator", "pdf417BarcodeGenerator"), ("CIKMeans", "kMeans"), ("CIXRay", "xRay"),
        ("CISRGBToneCurveToLinear", "srgbToneCurveToLinear"), ("CICode128BarcodeGenerator", "code128BarcodeGenerator"),
    ])
    func shortFilterNames(full: String, short: String) throws {
        #expect(Names.shortFilter(full) == short)
        #expect(try Names.filter(short).name == full)
    }

    @Test func oldShortSpellingsAreAliases() throws {
        #expect(try Names.filter("qRCodeGenerator").name == "CIQRCodeGenerator")
        #expect(try Names.filter("cMYKHalftone").name == "CICMYKHalftone")
        #expect(try Names.filter("pDF417BarcodeGenerator").name == "CIPDF417BarcodeGenerator")
    }

    @Test func shortKeys() {
        #expect(Names.shortKey("inputEV") == "ev")
        #expect(Names.shortKey("inputRadius") == "radius")
        #expect(Names.shortKey("inputRVector") == "rVector")
        #expect(Names.shortKey("inputGCR") == "gcr")
    }

    @Test func suggestions() {
        #expect(Suggest.distance("--fliter", "--filter") == 1)
        #expect(Suggest.nearest("aply", in: CLI.commands.map(\.spec.name)) == ["apply"])
        #expect(Suggest.nearest("clarendn", in: ["clarendon", "lark"]) == ["clarendon"])
        #expect(Suggest.nearest("zzzzzz", in: ["apply", "batch"]).isEmpty)
    }

    @Test func categories() throws {
        #expect(try Names.category("blur") == "CICategoryBlur")
        #expect(try Names.category("CICategoryBlur") == "CICategoryBlur")
        #expect(try Names.category("Generator") == "CICategoryGenerator")
        #expect(throws: CLIError.self) { try Names.category("nonsense") }
    }
}

@Suite struct ValueConversion {
    func input(_ filter: String, _ key: String) throws -> FilterInputDescriptor {
        try Names.key(key, of: Names.filter(filter))
    }
    func convert(_ filter: String, _ key: String, _ text: String, quoted: Bool = false) throws -> Any {
        try ValueParser.value(.init(key: key, value: text, quoted: quoted), for: input(filter, key), filter: filter) {
            (_: String) throws(CLIError) -> CIImage in CIImage.empty()
        }
    }

    @Test func numbersAndBooleans() throws {
        #expect((try convert("CIGaussianBlur", "radius", "4.5") as? NSNumber)?.doubleValue == 4.5)
        // Below the declared minimum: passed as written (with a warning on stderr); the filter
        // clamps it once, where every caller's value is clamped (FilterFactsTests).
        #expect((try convert("CIGaussianBlur", "radius", "-1e-2") as? NSNumber)?.doubleValue == -0.01)
        #expect((try convert("CIGaussianBlur", "radius", "true") as? NSNumber)?.boolValue == true)
        #expect((try convert("CIGaussianBlur", "radius", "4", quoted: true) as? NSNumber)?.doubleValue == 4)
    }

    @Test func vectors() throws {
        let v = try #require(try convert("CICheckerboardGenerator", "center", "[10 20.5]") as? CIVector)
        #expect(v.values == [10, 20.5])
        let r = try #require(try convert("CICrop", "rectangle", "[0, 0, 8, 4]") as? CIVector)
        #expect(r.cgRectValue == CGRect(x: 0, y: 0, width: 8, height: 4))
    }

    @Test func colours() throws {
        let hex = try #require(try convert("CIColorMonochrome", "color", "#ff8000") as? CIColor)
        #expect(hex.components == [1, CGFloat(0x80) / 255, 0, 1])
        let hexAlpha = try #require(try convert("CIColorMonochrome", "color", "#00000080") as? CIColor)
        #expect(hexAlpha.alpha == CGFloat(0x80) / 255)
        let vec = try #require(try convert("CIColorMonochrome", "color", "[0.1 0.2 0.3]") as? CIColor)
        #expect(vec.components == [0.1, 0.2, 0.3, 1])
    }

    @Test func transforms() throws {
        let t = try #require(try convert("CIAffineTransform", "transform", "[2 0 0 2 5 6]") as? CGAffineTransform)
        #expect(t == CGAffineTransform(a: 2, b: 0, c: 0, d: 2, tx: 5, ty: 6))
    }

    @Test func imagesGoThroughTheLoader() throws {
        var asked: [String] = []
        let v = try ValueParser.value(
            .init(key: "backgroundImage", value: "bg.png", quoted: false),
            for: input("CIMultiplyBlendMode", "backgroundImage"), filter: "CIMultiplyBlendMode"
        ) {
            (path: String) throws(CLIError) -> CIImage in
            asked.append(path)
            return CIImage.empty()
        }
        #expect(v is CIImage)
        #expect(asked == ["bg.png"])
    }

    @Test(arguments: [
        ("CIGaussianBlur", "radius", "abc", "expected a number, got 'abc'"),
        ("CIGaussianBlur", "radius", "nan", "expected a number"),
        ("CIGaussianBlur", "radius", "[1 2]", "expected a number"),
        ("CICheckerboardGenerator", "center", "10", "expected a vector"),
        ("CICheckerboardGenerator", "center", "[1 x]", "expected a vector"),
        ("CICheckerboardGenerator", "center", "[]", "expected a vector"),
        ("CIColorMonochrome", "color", "#12345", "expected a colour"),
        ("CIColorMonochrome", "color", "#gggggg", "expected a colour"),
        ("CIColorMonochrome", "color", "[1 2]", "expected a colour"),
        ("CIAffineTransform", "transform", "[1 0 0 1]", "expected a transform"),
    ])
    func malformedValues(filter: String, key: String, text: String, message: String) {
        #expect {
            try convert(filter, key, text)
        } throws: { error in
            guard let e = error as? CLIError, case .usage(let m) = e else { return false }
            return m.contains(message) && m.contains(Names.shortFilter(filter))
        }
    }

    @Test func resolvedFilterBuildsAnImage() throws {
        let f = try ResolvedFilter(parsing: "CICheckerboardGenerator width=4 color0=#ffffff") {
            (_: String) throws(CLIError) -> CIImage in CIImage.empty()
        }
        #expect(f.takesImage == false)
        #expect(try f.apply(to: nil).extent.isInfinite)
    }
}

@Suite struct ArgumentParsing {
    let spec = ApplyCommand.spec

    @Test func optionsAndPositionals() throws {
        let p = try spec.parse(["in.png", "-o", "out.jpg", "--filter", "a", "-f", "b", "--quality=80", "--explain"])
        #expect(p.positionals == ["in.png"])
        #expect(p.all("filter") == ["a", "b"])
        #expect(p.value("output") == "out.jpg")
        #expect(p.value("quality") == "80")
        #expect(p.has("explain"))
        #expect(try p.int("quality", in: 0...100) == 80)
    }

    @Test func attachedValues() throws {
        let p = try spec.parse(["in.png", "-q85", "--max-size=640", "-o", "out.jpg"])
        #expect(p.value("quality") == "85" && p.value("max-size") == "640")
        // A flag's letters are not a value: '-h' with more after it stays an unknown option.
        #expect(throws: CLIError.self) { try spec.parse(["in.png", "-hx"]) }
    }

    @Test func dashIsAPositionalAndAValue() throws {
        let p = try spec.parse(["-", "-o", "-"])
        #expect(p.positionals == ["-"])
        #expect(p.value("output") == "-")
    }

    @Test(arguments: [
        (["in.png", "--bogus"], "unknown option '--bogus'"),
        (["in.png", "-o"], "needs a value"),
        (["in.png", "-o", "a.png", "-o", "b.png"], "given more than once"),
        (["in.png", "--explain=yes"], "takes no value"),
    ])
    func usageErrors(args: [String], message: String) {
        #expect {
            try spec.parse(args)
        } throws: { error in
            guard let e = error as? CLIError, case .usage(let m) = e else { return false }
            return m.contains(message)
        }
    }

    /// apply takes several INPUTs only with --in-place: the command (not the parser) refuses
    /// the rest, so these run the tool.
    @Test(arguments: [
        (["apply", "in.png", "extra.png", "-o", "o.png"], "unexpected argument 'extra.png'"),
        (["apply", "-o", "o.png"], "missing INPUT"),
    ])
    func applyInputCount(args: [String], message: String) throws {
        let w = try Workspace()
        try w.solid("in.png", 4, 4)
        let r = try Tool.run(args, in: w.dir)
        #expect(r.status == 2 && r.stderr.contains(message), "\(r.stderr)")
    }

    @Test func helpSkipsPositionalChecks() throws {
        #expect(try spec.parse(["--help"]).has("help"))
    }

    @Test func badNumbers() throws {
        let p = try spec.parse(["in.png", "--quality", "101"])
        #expect(throws: CLIError.self) { try p.int("quality", in: 0...100) }
    }

    @Test func everyOptionIsInItsHelp() {
        for command in CLI.commands {
            for option in command.spec.options {
                #expect(command.spec.helpText.contains(option.name), "\(command.spec.name) help lacks \(option.name)")
            }
        }
    }

    @Test func sizes() throws {
        #expect(try GenerateCommand.parseSize("64x32") == (64, 32))
        #expect(try GenerateCommand.parseSize("64") == (64, 64))
        #expect(throws: CLIError.self) { try GenerateCommand.parseSize("64x") }
        #expect(throws: CLIError.self) { try GenerateCommand.parseSize("0x5") }
    }
}

@Suite struct Sharding {
    @Test func everyPathLandsInExactlyOneShard() throws {
        let paths = (0..<200).map { "dir\($0 % 7)/photo-\($0).jpg" }
        for n in 1...5 {
            for p in paths {
                #expect((0..<n).filter { BatchCommand.inShard(p, ($0, n)) }.count == 1)
            }
        }
    }

    @Test func hashIsStable() {
        // FNV-1a 64 of "a": a published test vector, so shards agree across machines and versions.
        #expect(BatchCommand.stableHash("a") == 0xaf63_dc4c_8601_ec8c)
    }

    @Test func shardSyntax() throws {
        #expect(try BatchCommand.parseShard("2/3") == (2, 3))
        for bad in ["3/3", "-1/3", "1", "a/b", "0/0"] {
            #expect(throws: CLIError.self) { try BatchCommand.parseShard(bad) }
        }
    }

    @Test func outputPaths() throws {
        func path(_ rel: String, _ format: ImageFileFormat?, _ template: String = BatchCommand.defaultTemplate) throws -> String {
            try BatchCommand.outputPath(for: BatchItem(input: "in/" + rel, relative: rel), in: "out", format: format, template: template)
        }
        #expect(try path("a/b.png", nil) == "out/a/b.png")
        #expect(try path("a/b.png", .jpeg) == "out/a/b.jpg")
        #expect(try path("a/b.JPEG", .jpeg) == "out/a/b.JPEG")
        #expect(try path("b.png", nil) == "out/b.png")
        // A template names the file inside the mirrored folder, unless it places it itself.
        #expect(try path("a/b.tif", .png, "{stem}-web.{ext}") == "out/a/b-web.png")
        #expect(try path("a/b.tif", .png, "{stem}-{srcext}.{ext}") == "out/a/b-tif.png")
        #expect(try path("a/b.tif", .png, "flat/{stem}.{ext}") == "out/flat/b.png")
        #expect(try path("a/b.tif", .png, "{dir}/x/{name}") == "out/a/x/b.tif")
        #expect(throws: CLIError.self) { try path("a/b.tif", nil, "../{stem}.{ext}") }
        #expect(throws: CLIError.self) { try path("a/b.tif", nil, "/tmp/{stem}.{ext}") }
    }

    @Test func shardFromTheEnvironment() throws {
        #expect(try BatchCommand.parseShard("auto", environment: ["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "4"]) == (3, 4))
        // Slurm arrays need not start at 0 or step by 1: --array=1-7:2 runs 1, 3, 5, 7.
        let stepped = ["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_STEP": "2", "SLURM_ARRAY_TASK_COUNT": "4"]
        #expect(try BatchCommand.parseShard("auto", environment: stepped) == (2, 4))
        #expect(try BatchCommand.parseShard("auto/8", environment: ["JOB_COMPLETION_INDEX": "7"]) == (7, 8))
        #expect(try BatchCommand.parseShard("auto/3", environment: ["AWS_BATCH_JOB_ARRAY_INDEX": "0"]) == (0, 3))
        #expect(throws: CLIError.self) { try BatchCommand.parseShard("auto", environment: ["JOB_COMPLETION_INDEX": "1"]) }
        #expect(throws: CLIError.self) { try BatchCommand.parseShard("auto", environment: [:]) }
        #expect(throws: CLIError.self) { try BatchCommand.parseShard("auto/2", environment: ["JOB_COMPLETION_INDEX": "2"]) }
    }
}

@Suite struct Font {
    @Test func glyphsAreFiveBySeven() {
        for (ch, rows) in BitmapFont.glyphs {
            #expect(rows.count == 7, "\(ch)")
            #expect(rows.allSatisfy { $0 < 32 }, "\(ch)")
        }
        for ch in "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789" { #expect(BitmapFont.glyphs[ch] != nil) }
    }

    @Test func labelImageSize() {
        let img = BitmapFont.image("Hi 2", scale: 2)
        #expect(img.extent == CGRect(x: 0, y: 0, width: (4 * 6 - 1) * 2, height: 14))
    }
}
