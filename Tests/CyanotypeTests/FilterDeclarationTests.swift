import Foundation
import Testing
@testable import Cyanotype

// Every filter declared once, in its table: the generated typed API is fresh, a filter of our
// own is declared as Apple's are, declared limits are applied by the argument reader and shown
// by the descriptor, and the families register every member under its own name.

private let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

/// The `python3` on PATH, if any.
private let python3: URL? = {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("python3") }
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }
}()

/// Runs scripts/generate-catalog.py with `arguments`; its exit status and output.
private func runGenerator(_ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = python3
    process.arguments = [repositoryRoot.appendingPathComponent("scripts/generate-catalog.py").path] + arguments
    process.currentDirectoryURL = repositoryRoot
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// The generated files in `folder`, by name.
private func generatedFiles(in folder: URL) throws -> [String: Data] {
    var out: [String: Data] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".generated.swift") {
        out[name] = try Data(contentsOf: folder.appendingPathComponent(name))
    }
    return out
}

private func temporaryFile(_ name: String) -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-\(UUID().uuidString)-\(name)")
}

@Suite struct FilterDeclarationTests {
    @Test("the committed catalogue is what the script generates now", .enabled(if: python3 != nil, "python3 is not installed, so the catalogue cannot be regenerated here"))
    func catalogueIsFresh() throws {
        let out = temporaryFile("Catalog")
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try runGenerator(["--out", out.path])
        #expect(run.status == 0, "generate-catalog.py failed: \(run.output)")
        let committedFolder = repositoryRoot.appendingPathComponent("Sources/Cyanotype/Filters/Catalog")
        let fresh = try generatedFiles(in: out), committed = try generatedFiles(in: committedFolder)
        #expect(fresh.count > 2, "the script wrote \(fresh.keys.sorted())")
        #expect(Set(committed.keys) == Set(fresh.keys), "the catalogue's files differ: run python3 scripts/generate-catalog.py")
        for (name, text) in fresh {
            #expect(committed[name] == text, "\(name) is stale: run python3 scripts/generate-catalog.py and commit the result")
        }
    }

    @Test(
        "a filter of our own is declared as Apple's are: one table in Swift, from which the script writes its typed API",
        .enabled(if: python3 != nil, "python3 is not installed, so the catalogue script cannot run here"))
    func ourOwnFilterIsDeclaredTheSameWay() throws {
        let fixtures = repositoryRoot.appendingPathComponent("Tests/CyanotypeTests/Fixtures/Declarations")
        let out = temporaryFile("Catalog")
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try runGenerator(["--filters", fixtures.appendingPathComponent("Filters").path, "--out", out.path])
        #expect(run.status == 0, "generate-catalog.py failed: \(run.output)")
        let text = try generatedFiles(in: out).sorted { $0.key < $1.key }.map { String(decoding: $0.value, as: UTF8.self) }
            .joined(separator: "\n")
        for expected in [
            "        exampleGlow,\n",
            "/// Typed access to the inputs of CYExampleGlow.\n///\n/// The image over a blur of itself tinted by `color`.\npublic protocol CYExampleGlow: CIFilterProtocol {",
            "    /// The glow's standard deviation, in pixels.\n    ///\n    /// Core Image: `inputRadius`, distance; default 10, identity 0, minimum 0, slider 0...100.\n",
            "    /// Cyanotype limits it to 0...250: the glow is a Gaussian blur, limited as every blur is.\n    var radius: Float { get set }",
            "    /// Core Image: `inputColor`, color; default (1, 0.9, 0.6, 1).\n    var color: CIColor { get set }",
            "public static func exampleGlow() -> CIFilter & CYExampleGlow { CYExampleGlowBuiltinFilter() }",
        ] {
            #expect(text.contains(expected), "the generated catalogue lacks: \(expected)")
        }
    }

    @Test(
        "the script rejects a declaration it cannot read, naming the place and what to write",
        .enabled(if: python3 != nil, "python3 is not installed, so the catalogue script cannot run here"))
    func scriptRejectsDeclarationsItCannotRead() throws {
        let folder = temporaryFile("Filters")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out").path
        let file = folder.appendingPathComponent("Bad.swift")
        let cases = [
            ("BuiltinFilter(Catalog.CIGaussianBlur)", "Bad.swift:2: a built-in's first argument must be its table, a FilterDescriptor(...) literal"),
            (
                "BuiltinFilter(FilterDescriptor(\"CIX\", \"X\", \"x\", categories: [.blur], inputs: [.numbr(\"inputRadius\", \"Radius\", .distance)]))",
                "an input is one of .image, .number, .bool, .vector, .color, .other(...), not '.numbr'"
            ),
            (
                "BuiltinFilter(FilterDescriptor(\"CIX\", \"X\", \"x\", categories: [.blur], inputs: [.number(\"inputRadius\", \"Radius\", .distance, limit: .noSuchLimit)]))",
                "no `static let noSuchLimit = FilterInputLimit(...)` under Filters/"
            ),
        ]
        for (declaration, message) in cases {
            try "extension BuiltinFilters {\n    static let bad = \(declaration) { args in try args.image() }\n}\n"
                .write(to: file, atomically: true, encoding: .utf8)
            let run = try runGenerator(["--filters", folder.path, "--out", out])
            #expect(run.status != 0 && run.output.contains(message), "\(run.output)")
        }
    }

    @Test func declaredLimitsAreShownByTheDescriptor() throws {
        let radius = try #require(CIFilter.descriptor(forFilterName: "CIGaussianBlur")?.input(kCIInputRadiusKey))
        let limit = try #require(radius.limit)
        #expect(limit.minimum == nil && limit.maximum == 250)
        #expect(limit.rangeDescription == "at most 250")
        #expect(limit.description.hasPrefix("at most 250: a tile reads its input"))
        // Apple's range stays Apple's; the effective range combines both.
        #expect(radius.minimum == 0 && radius.maximum == nil)
        #expect(radius.effectiveMinimum == 0 && radius.effectiveMaximum == 250)
        #expect(radius.effectiveValue(-3) == 0 && radius.effectiveValue(40) == 40 && radius.effectiveValue(900) == 250)
        #expect(limit.contains(250) && !limit.contains(250.5))
        // Attributes are Apple's only.
        let attributes = try #require(CIFilter(name: "CIGaussianBlur")?.attributes[kCIInputRadiusKey] as? [String: Any])
        #expect(attributes[kCIAttributeMax] == nil)
        #expect(
            Set(attributes.keys) == [
                kCIAttributeClass, kCIAttributeDisplayName, kCIAttributeType, kCIAttributeDefault,
                kCIAttributeIdentity, kCIAttributeMin, kCIAttributeSliderMin, kCIAttributeSliderMax,
            ])
        // A position's limit applies to each coordinate.
        let centre = try #require(CIFilter.descriptor(forFilterName: "CIPixellate")?.input(kCIInputCenterKey))
        #expect(centre.effectiveMinimum == -1_099_511_627_776 && centre.effectiveMaximum == 1_099_511_627_776)
        // Inputs without a limit of ours have none.
        #expect(CIFilter.descriptor(forFilterName: "CISepiaTone")?.input(kCIInputIntensityKey)?.limit == nil)
    }

    @Test func everyDeclaredLimitIsAppliedByTheArgumentReader() throws {
        var checked = 0
        for name in CIFilter.filterNames(inCategory: nil) {
            guard let descriptor = CIFilter.descriptor(forFilterName: name) else { continue }
            for input in descriptor.inputs {
                guard let limit = input.limit else { continue }
                #expect(!input.isImage)
                if let lo = input.effectiveMinimum, let hi = input.effectiveMaximum { #expect(lo <= hi, "\(name) \(input.key)") }
                for value in [-1e18, -1e-9, 1e-9, 1e18] {
                    let expected = input.effectiveValue(value)
                    if input.className == "CIVector" {
                        let args = FilterArguments(descriptor: descriptor, values: [input.key: CIVector(x: value, y: -value)])
                        let p = try args.point(input.key)
                        #expect(p.x == limit.clamped(value) && p.y == limit.clamped(-value), "\(name) \(input.key) \(value)")
                    } else {
                        let args = FilterArguments(descriptor: descriptor, values: [input.key: value])
                        #expect(try args.number(input.key) == expected, "\(name) \(input.key) \(value)")
                        #expect(limit.contains(expected), "\(name) \(input.key) \(value)")
                    }
                }
                checked += 1
            }
        }
        #expect(checked >= 40)
    }

    @Test("a value beyond a declared limit renders exactly as the limit itself")
    func beyondTheLimitRendersAsTheLimit() throws {
        let photo = image(testPixels(width: 24, height: 20), 24, 20)
        let other = image(testPixels(width: 24, height: 20, alpha: true), 24, 20)
        let rect = CGRect(x: 0, y: 0, width: 24, height: 20)
        // (filter, key, beyond, at the limit, other inputs)
        let cases: [(String, String, Any, Any, [String: Any])] = [
            ("CIVignette", kCIInputRadiusKey, 0.0, 0.001, [kCIInputIntensityKey: 0.8]),
            ("CIVignette", kCIInputRadiusKey, 0.0004, 0.001, [kCIInputIntensityKey: 0.8]),
            ("CICMYKHalftone", kCIInputWidthKey, -2.0, 1.0, [:]),
            ("CICMYKHalftone", kCIInputSharpnessKey, 7.0, 1.0, [:]),
            ("CIKaleidoscope", "inputCount", 9000.0, 4096.0, [kCIInputCenterKey: CIVector(x: 12, y: 10)]),
            ("CIKaleidoscope", kCIInputCenterKey, CIVector(x: 1e15, y: -1e15), CIVector(x: 1_099_511_627_776, y: -1_099_511_627_776), [:]),
            ("CITriangleKaleidoscope", "inputDecay", 0.0, 1e-12, ["inputPoint": CIVector(x: 12, y: 10), "inputSize": 9.0]),
            ("CITriangleKaleidoscope", "inputDecay", 4.0, 1.0, ["inputPoint": CIVector(x: 12, y: 10), "inputSize": 9.0]),
            ("CITriangleKaleidoscope", "inputSize", 0.0, 1.0 / 1024, ["inputPoint": CIVector(x: 12, y: 10)]),
            ("CIOpTile", kCIInputScaleKey, 1e9, 1_048_576.0, [kCIInputCenterKey: CIVector(x: 12, y: 10), kCIInputWidthKey: 6.0]),
            ("CIFourfoldRotatedTile", kCIInputWidthKey, 0.0, 1.0 / 1024, [kCIInputCenterKey: CIVector(x: 12, y: 10)]),
            ("CIPixellate", kCIInputCenterKey, CIVector(x: -3e14, y: 5), CIVector(x: -1_099_511_627_776, y: 5), [:]),
            ("CIStarShineGenerator", kCIInputRadiusKey, 0.0, 0.001, [kCIInputCenterKey: CIVector(x: 12, y: 10)]),
            ("CIStarShineGenerator", "inputCrossWidth", 0.0, 0.001, [kCIInputCenterKey: CIVector(x: 12, y: 10)]),
            ("CILenticularHaloGenerator", "inputHaloWidth", 0.0, 0.001, [kCIInputCenterKey: CIVector(x: 12, y: 10), "inputHaloRadius": 8.0]),
            ("CIFlashTransition", "inputFadeThreshold", 0.0, 0.001, [kCIInputTimeKey: 0.3, kCIInputCenterKey: CIVector(x: 12, y: 10)]),
            ("CIMorphologyMaximum", kCIInputRadiusKey, -4.0, 0.0, [:]),
        ]
        for (name, key, beyond, atLimit, others) in cases {
            func render(_ value: Any) throws -> [SIMD4<Float>] {
                let filter = try #require(CIFilter(name: name))
                for k in filter.inputKeys where CIFilter.descriptor(forFilterName: name)?.input(k)?.isImage == true {
                    filter.setValue(k == kCIInputImageKey ? photo : other, forKey: k)
                }
                for (k, v) in others { filter.setValue(v, forKey: k) }
                filter.setValue(value, forKey: key)
                let output = try filter.makeOutputImage()
                return try renderFloat(output, rect)
            }
            let a = try render(beyond), b = try render(atLimit)
            #expect(
                a.elementsEqual(b) {
                    $0.x.bitPattern == $1.x.bitPattern && $0.y.bitPattern == $1.y.bitPattern
                        && $0.z.bitPattern == $1.z.bitPattern && $0.w.bitPattern == $1.w.bitPattern
                }, "\(name) \(key): \(beyond) differs from \(atLimit)")
        }
    }

    /// What a family declares once reaches each row that gives none of its own, and a row can
    /// take an earlier row's inputs; what a row gives itself wins (expected values written out).
    @Test func familyRowsTakeWhatTheirFamilyDeclaresOnce() throws {
        let rows = BuiltinFilter.family(
            categories: [.blur, .builtIn], macOS: "10.4", iOS: "5", protocol: "CITestShared",
            inputs: [.number("inputAmount", "Amount", .scalar, default: 1)],
            [
                (FilterDescriptor("CITestFirst", "First", "The first row.", factory: "testFirst", inputs: [.image()]), 0),
                (
                    FilterDescriptor(
                        "CITestSecond", "Second", "The second row.", categories: [.stylize], macOS: "12.0", factory: "testSecond",
                        protocol: "CITestOwn", inputsLike: "CITestFirst"),
                    1
                ),
            ]
        ) { args, _ throws(CIFilterError) in try args.image() }
        let first = rows[0].descriptor, second = rows[1].descriptor
        #expect(first.categories == ["CICategoryBlur", "CICategoryBuiltIn"])
        #expect(first.availableMacOS == "10.4" && first.availableIOS == "5")
        #expect(first.typedAPI?.factory == "testFirst" && first.typedAPI?.protocol == "CITestShared")
        #expect(first.inputs.map(\.key) == ["inputImage", "inputAmount"])
        #expect(second.categories == ["CICategoryStylize"])
        #expect(second.availableMacOS == "12.0" && second.availableIOS == "5")
        #expect(second.typedAPI?.protocol == "CITestOwn")
        #expect(second.inputs.map(\.key) == ["inputImage", "inputAmount"])
        #expect(second.input("inputAmount")?.defaultValue == .number(1))
    }

    @Test func familyMembersAreRegisteredUnderTheirOwnNames() throws {
        let families: [[BuiltinFilter]] = [
            BuiltinFilters.convolutions, BuiltinFilters.photoEffects, BuiltinFilters.morphology,
            BuiltinFilters.maskBlends, BuiltinFilters.composites, BuiltinFilters.monochromeScreens,
            BuiltinFilters.areaReductions, BuiltinFilters.areaHistograms, BuiltinFilters.sweeps,
            BuiltinFilters.wallpaperTiles, BuiltinFilters.lineAverages, BuiltinFilters.rampLooks,
            BuiltinFilters.linearGradients, BuiltinFilters.twoColorPatterns, BuiltinFilters.roundedRectangles,
            BuiltinFilters.affineClampAndTile, BuiltinFilters.radialDistortions,
        ]
        #expect(families.map(\.count) == [10, 8, 5, 4, 30, 4, 9, 3, 2, 10, 2, 2, 2, 2, 2, 2, 4])
        for member in families.joined() {
            #expect(CIFilter(name: member.descriptor.name)?.name == member.descriptor.name)
        }
        // Every typed class is built on the filter of its own name (family members by index).
        for (name, make) in BuiltinFilters.typed {
            #expect(make().builtin?.descriptor.name == name)
        }
        #expect(Set(BuiltinFilters.all.map(\.descriptor.name)).count == BuiltinFilters.all.count)
        // The family's limits reach only the members that have the input.
        #expect(CIFilter.descriptor(forFilterName: "CIMorphologyGradient")?.input(kCIInputRadiusKey)?.limit?.maximum == 250)
        #expect(CIFilter.descriptor(forFilterName: "CIMorphologyRectangleMinimum")?.input("inputHeight")?.limit?.maximum == 501)
    }

    @Test func declarationsCarryOurDocumentation() throws {
        let convolution = try #require(CIFilter.descriptor(forFilterName: "CIConvolution9Vertical"))
        // The row's own sentence, then the family's.
        #expect(convolution.documentation.hasPrefix("9 taps along the column (topmost weight first) on RGBA, plus bias."))
        #expect(convolution.documentation.contains("with the **top** row (as displayed) first"))
        #expect(convolution.input(kCIInputWeightsKey)?.documentation?.hasPrefix("The kernel's weights, row by row from the top") == true)
        let blur = try #require(CIFilter.descriptor(forFilterName: "CIGaussianBlur"))
        #expect(blur.documentation.hasPrefix("A true Gaussian of standard deviation `radius`"))
        #expect(blur.input(kCIInputRadiusKey)?.documentation == "The standard deviation (sigma) of the Gaussian, in pixels; 0 returns the image as it is.")
    }
}
