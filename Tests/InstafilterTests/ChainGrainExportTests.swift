import Cyanotype
import Foundation
import Testing
@testable import Instafilter

@Suite struct GrainTests {
    func luma(_ p: [UInt8]) -> [Double] {
        stride(from: 0, to: p.count, by: 4).map { (i: Int) -> Double in
            let r = Double(p[i]), g = Double(p[i + 1]), b = Double(p[i + 2])
            return 0.2126 * r + 0.7152 * g + 0.0722 * b
        }
    }

    @Test func deterministicPerSeed() throws {
        let img = smoothCard(width: 48, height: 32)
        let a = InstaGrain(); a.seed = 7; a.grainAmount = 0.5
        let b = InstaGrain(); b.seed = 7; b.grainAmount = 0.5
        let c = InstaGrain(); c.seed = 8; c.grainAmount = 0.5
        let pa = try pixels(a.apply(to: img)), pb = try pixels(b.apply(to: img)), pc = try pixels(c.apply(to: img))
        #expect(pa == pb)
        #expect(pa != pc)
        #expect(maxDifference(pa, try pixels(img)) > 3, "grain is visible")
        // Same bytes from a fresh context (no cached state involved).
        #expect(pa == (try pixels(a.apply(to: img), context: CIContext())))
    }

    @Test(arguments: [0.5, 1.0, 3.0])
    func meanBrightnessBarelyMoves(scale: Double) throws {
        let img = smoothCard(width: 96, height: 64)
        let g = InstaGrain(); g.grainAmount = 1; g.grainScale = scale; g.seed = 42
        let before = luma(try pixels(img)), after = luma(try pixels(g.apply(to: img)))
        let mean = zip(before, after).map { $1 - $0 }.reduce(0, +) / Double(before.count)
        print("grain scale \(scale): mean change \(mean)/255")
        #expect(abs(mean) < 1, "mean change \(mean)/255")
    }

    @Test func strongestInMidtones() throws {
        let w = 64, h = 8
        func flat(_ v: UInt8) -> CIImage {
            CIImage(
                bitmapData: Data([UInt8](repeating: v, count: w * h * 4).enumerated().map { $0.offset % 4 == 3 ? 255 : $0.element }),
                bytesPerRow: w * 4, size: CGSize(width: w, height: h), format: .RGBA8, colorSpace: sRGB)
        }
        let g = InstaGrain(); g.grainAmount = 0.6; g.grainScale = 1
        func spread(_ v: UInt8) throws -> Double {
            let l = luma(try pixels(g.apply(to: flat(v))))
            let m = l.reduce(0, +) / Double(l.count)
            return (l.map { ($0 - m) * ($0 - m) }.reduce(0, +) / Double(l.count)).squareRoot()
        }
        let dark = try spread(12), mid = try spread(128), light = try spread(245)
        #expect(mid > 2 * dark && mid > 2 * light, "spread dark \(dark), mid \(mid), light \(light)")
    }
}

@Suite struct FilterChainTests {
    @Test func editing() throws {
        let chain = FilterChain()
        let clarendon = InstaClarendon()
        chain.append(clarendon)
        chain.append(InstaGrain())
        chain.insert(InstaLark(), at: 0)
        #expect(chain.filters.map(\.name) == ["lark", "clarendon", "grain"])
        #expect(chain.move(from: 2, to: 0))
        #expect(chain.filters.map(\.name) == ["grain", "lark", "clarendon"])
        #expect(chain.replace(at: 1, with: InstaMoon())?.name == "lark")
        #expect(chain.remove(at: 0)?.name == "grain")
        #expect(chain.remove(at: 9) == nil)
        #expect(chain.filters.map(\.name) == ["moon", "clarendon"])
        // A snapshot does not see later edits.
        let snap = chain.snapshot
        clarendon.intensity = 0.2
        chain.append(InstaToaster())
        #expect(snap.filters.count == 2 && snap.filters[1].intensity == 1)
    }

    @Test func chainRendersLikeItsSteps() throws {
        let (img, _) = testCard()
        let chain = FilterChain([InstaClarendon(), InstaWillow()])
        let direct = InstaWillow().apply(to: InstaClarendon().apply(to: img))
        #expect(try pixels(Renderer.shared.render(image: img, with: chain)) == (try pixels(direct)))
        #expect(Renderer.shared.render(image: img, with: chain).extent == img.extent)
        #expect(Renderer.shared.render(image: img, with: FilterChain()).extent == img.extent)
    }

    @Test func jsonRoundTrip() throws {
        let chain = FilterChain()
        let c = InstaClarendon(); c.intensity = 0.7
        chain.append(c)
        let g = InstaGrain(); g.grainAmount = 0.3; g.grainScale = 2; g.seed = 7
        chain.append(g)
        chain.append(try CSSFilterList(css: "contrast(1.1) hue-rotate(-20deg)"))
        chain.append(try CoreImageStep(filterName: "CISepiaTone", parameters: ["inputIntensity": .number(0.5)]))
        chain.append(try CoreImageStep(filterName: "CIVignette", parameters: ["inputRadius": .number(2)]))
        chain.append(InstaPortra())
        let json = try chain.recipeJSON()
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.contains("\"look\" : \"clarendon\""))
        #expect(text.contains("\"filter\" : \"CISepiaTone\""))
        let back = try FilterChain(recipeJSON: json)
        #expect(try back.recipeJSON() == json)
        #expect(back.filters.map(\.name) == chain.filters.map(\.name))
        #expect(back[0].intensity == 0.7)
        let g2 = try #require(back[1] as? InstaGrain)
        #expect(g2.grainAmount == 0.3 && g2.grainScale == 2 && g2.seed == 7)
        let (img, _) = testCard()
        #expect(try pixels(back.apply(to: img)) == (try pixels(chain.apply(to: img))))
    }

    @Test func readsAHandWrittenRecipe() throws {
        let json = #"{"steps": [{"look": "1977"}, {"css": "sepia(50%)", "intensity": 0.5}, {"filter": "CIColorControls", "parameters": {"inputSaturation": 0.5}}]}"#
        let chain = try FilterChain(recipeJSON: Data(json.utf8))
        #expect(chain.filters.map(\.name) == ["1977", "css", "CIColorControls"])
    }

    @Test func unknownNamesGiveTypedErrors() {
        func load(_ s: String) throws(RecipeError) { _ = try FilterChain(recipeJSON: Data(s.utf8)) }
        #expect(throws: RecipeError.unknownLook("clarendun", known: FilterRegistry.names)) { try load(#"{"steps": [{"look": "clarendun"}]}"#) }
        #expect(throws: RecipeError.unknownParameter(filter: "grain", key: "size", valid: ["intensity", "grainAmount", "grainScale", "seed"])) {
            try load(#"{"steps": [{"look": "grain", "parameters": {"size": 2}}]}"#)
        }
        #expect(throws: RecipeError.unknownParameter(filter: "clarendon", key: "amount", valid: ["intensity"])) {
            try load(#"{"steps": [{"look": "clarendon", "parameters": {"amount": 2}}]}"#)
        }
        #expect(throws: RecipeError.unknownCoreImageFilter("CINoSuchFilter")) { try load(#"{"steps": [{"filter": "CINoSuchFilter"}]}"#) }
        do {
            try load(#"{"steps": [{"filter": "CISepiaTone", "parameters": {"inputAmount": 1}}]}"#)
            Issue.record("expected an error")
        } catch {
            guard case .unknownCoreImageKey(let f, let k, let valid) = error else { Issue.record("wrong error \(error)"); return }
            #expect(f == "CISepiaTone" && k == "inputAmount" && valid.contains("inputIntensity"))
            #expect(error.description.contains("has no input 'inputAmount'"))
        }
        #expect(throws: RecipeError.self) { try load(#"{"steps": [{"look": "moon", "css": "sepia(1)"}]}"#) }
        #expect(throws: RecipeError.self) { try load(#"{"steps": [{"look": "moon", "intensity": 3}]}"#) }
        #expect(throws: RecipeError.self) { try load(#"{"nope": 1}"#) }
        #expect(RecipeError.unknownLook("x", known: ["a", "b"]).description == "unknown look 'x'; known looks: a, b")
    }

    @Test func sharedAcrossThreads() async throws {
        let (img, _) = testCard()
        let chain = FilterChain([InstaClarendon(), InstaGrain()])
        let expected = try pixels(Renderer.shared.render(image: img, with: chain))
        try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for i in 0..<8 {
                group.addTask {
                    if i % 2 == 0 { chain.append(InstaMoon()); _ = chain.remove(at: 2) }
                    return try pixels(Renderer.shared.render(image: img, with: FilterChain(chain.snapshot.filters.prefix(2).map { $0 })))
                }
            }
            for try await p in group { #expect(p == expected) }
        }
    }
}

@Suite struct ExportTests {
    @Test func formatsAndQuality() throws {
        let img = smoothCard(width: 64, height: 48)
        let chain = FilterChain([InstaClarendon()])
        let jpgHigh = try Renderer.shared.export(image: img, with: chain, format: .jpeg(compressionQuality: 0.95))
        let jpgLow = try Renderer.shared.export(image: img, with: chain, format: .jpeg(compressionQuality: 0.1))
        let png = try Renderer.shared.export(image: img, with: chain, format: .png)
        let webp = try Renderer.shared.export(image: img, with: chain, format: .webp(quality: 0.8))
        #expect(Array(jpgHigh.prefix(3)) == [0xFF, 0xD8, 0xFF])
        #expect(jpgLow.count < jpgHigh.count)
        #expect(Array(png.prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
        #expect(String(decoding: webp.prefix(4), as: UTF8.self) == "RIFF" && String(decoding: webp[8..<12], as: UTF8.self) == "WEBP")
        // PNG is lossless: it holds exactly the rendered look.
        let back = try CIImage.read(data: png)
        #expect(try pixels(back) == (try pixels(Renderer.shared.render(image: img, with: chain))))
        let q = try CIImage.read(data: jpgHigh)
        #expect(maxDifference(try pixels(q), try pixels(back)) < 24)
    }

    @Test(.enabled(if: ImageFileFormat.heif.canEncode && ImageFileFormat.avif.canEncode, "libheif has no HEVC/AV1 encoder here"))
    func heifAndAVIF() throws {
        let img = smoothCard(width: 64, height: 48)
        let chain = FilterChain([InstaLark()])
        for (format, expected) in [(ExportFormat.heif(quality: 0.9), ImageFileFormat.heif), (.avif(quality: 0.9), .avif)] {
            let data = try Renderer.shared.export(image: img, with: chain, format: format)
            #expect(ImageFileFormat(sniffing: data) == expected)
            let back = try CIImage.read(data: data)
            #expect(back.extent.size == img.extent.size)
        }
        #expect(ExportFormat.heif(quality: 1).fileExtension == "heic")
    }

    @Test func maxSizeDownscalesBeforeTheLook() throws {
        let img = smoothCard(width: 64, height: 48)
        let chain = FilterChain([InstaClarendon()])
        let png = try Renderer.shared.export(image: img, with: chain, format: .png, maxSize: 32)
        let small = try CIImage.read(data: png)
        #expect(small.extent.size == CGSize(width: 32, height: 24))
        // Filter-then-downscale gives nearly the same pixels as the export (downscale first).
        let f = CIFilter.lanczosScaleTransform()
        f.inputImage = chain.apply(to: img).clampedToExtent()
        f.scale = 0.5
        let reference = try #require(f.outputImage).cropped(to: CGRect(x: 0, y: 0, width: 32, height: 24))
        let a = try pixels(small), b = try pixels(reference)
        let mean = Double(zip(a, b).map { abs(Int($0) - Int($1)) }.reduce(0, +)) / Double(a.count)
        #expect(mean < 1.5 && maxDifference(a, b) <= 6, "mean \(mean), max \(maxDifference(a, b))")
        // No upscaling, odd sizes rounded, and a bad maxSize is an error.
        #expect(try CIImage.read(data: Renderer.shared.export(image: img, with: chain, format: .png, maxSize: 500)).extent.size == CGSize(width: 64, height: 48))
        #expect(try CIImage.read(data: Renderer.shared.export(image: img, with: chain, format: .png, maxSize: 25)).extent.size == CGSize(width: 25, height: 19))
        #expect(throws: ExportError.invalidMaxSize(0)) { try Renderer.shared.export(image: img, with: chain, format: .png, maxSize: 0) }
        #expect(throws: ExportError.infiniteImage) { try Renderer.shared.export(image: CIImage(color: .red), with: chain, format: .png) }
    }

    @Test func appliesExifOrientationAndWritesFiles() throws {
        let img = smoothCard(width: 32, height: 24)
        let png = try Renderer.shared.context.encode(img, as: .png)
        let rotated = try CIImage.read(data: png, options: [.properties: [kCGImagePropertyOrientation: 6]])
        let out = try Renderer.shared.export(image: rotated, with: FilterChain(), format: .png)
        #expect(try CIImage.read(data: out).extent.size == CGSize(width: 24, height: 32))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("instafilter-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("out.jpg")
        try Renderer.shared.export(image: img, with: InstaLark(), format: .jpeg(compressionQuality: 0.8), maxSize: 16, to: url)
        let again = try CIImage.read(contentsOf: url)
        #expect(again.extent.size == CGSize(width: 16, height: 12))
        // From a file URL too.
        let fromFile = try Renderer.shared.export(contentsOf: url, with: InstaMoon(), format: .png)
        #expect(try CIImage.read(data: fromFile).extent.size == CGSize(width: 16, height: 12))
    }

    @Test func debugRenderShowsThePlan() {
        let (img, _) = testCard()
        let text = Renderer.debugRender(FilterChain([InstaClarendon(), InstaGrain()]), input: img)
        #expect(text.contains("css look clarendon"))
        #expect(!text.isEmpty)
    }
}
