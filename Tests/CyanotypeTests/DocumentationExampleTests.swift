#if canImport(CoreImage)
import CoreImage
import CoreImage.CIFilterBuiltins
#else
import Cyanotype
#endif
import Foundation
import Testing

/// The code in the DocC articles (Sources/Cyanotype/Cyanotype.docc), compiled and run here.
/// `everySnippetIsCompiledHere` fails when an article's Swift code is not in this file
/// (compared without whitespace, so formatting either side does not matter), so the articles
/// cannot drift from code that builds.
@Suite struct DocumentationExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Two small test images: a warm flat colour and a horizontal ramp.
    static let image = CIImage(color: CIColor(red: 0.9, green: 0.6, blue: 0.3)).cropped(to: CGRect(x: 0, y: 0, width: 32, height: 24))
    static let otherImage = CIFilter(
        name: "CILinearGradient",
        parameters: [
            "inputPoint0": CIVector(x: 0, y: 0), "inputPoint1": CIVector(x: 32, y: 0),
            "inputColor0": CIColor(red: 0, green: 0, blue: 1), "inputColor1": CIColor(red: 1, green: 1, blue: 0),
        ])!.outputImage!.cropped(to: CGRect(x: 0, y: 0, width: 32, height: 24))

    /// `text` with every space and line break removed.
    static func withoutWhitespace(_ text: String) -> String {
        String(text.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) }.map(Character.init))
    }

    /// The RGBA8 pixel at `(x, y)` (counted from the top row, as memory holds it).
    func pixel(_ image: CIImage, _ x: Int, _ y: Int) throws -> [UInt8] {
        let r = try CIContext().renderToData(image, from: image.extent)
        let i = y * r.rowBytes + x * 4
        return Array(r.data[i..<i + 4])
    }

    @Test func everySnippetIsCompiledHere() throws {
        let code = Self.withoutWhitespace(try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8))
        let catalog = Self.root.appendingPathComponent("Sources/Cyanotype/Cyanotype.docc")
        let articles = try FileManager.default.contentsOfDirectory(atPath: catalog.path).filter { $0.hasSuffix(".md") }
        #expect(articles.count == 4, "\(articles.sorted())")
        var snippets = 0
        for article in articles.sorted() {
            let text = try String(contentsOf: catalog.appendingPathComponent(article), encoding: .utf8)
            for block in text.components(separatedBy: "```swift\n").dropFirst() {
                let body = block.components(separatedBy: "```").first ?? ""
                let found = code.contains(Self.withoutWhitespace(body))
                #expect(found, "\(article): this snippet is not in DocumentationExampleTests.swift:\n\(body)")
                snippets += 1
            }
        }
        #expect(snippets >= 14)
    }

    // MARK: Cyanotype.md

    @Test func landingPage() throws {
        let photo = CIImage(color: CIColor(red: 0.8, green: 0.5, blue: 0.3))
            .cropped(to: CGRect(x: 0, y: 0, width: 640, height: 480))
        let sepia = CIFilter.sepiaTone()
        sepia.inputImage = photo
        sepia.intensity = 0.8
        let vignetted = sepia.outputImage!.applyingFilter("CIVignette", parameters: [kCIInputIntensityKey: 1.0])
        let context = CIContext()
        let bitmap = context.createCGImage(vignetted, from: vignetted.extent)

        #expect(bitmap?.width == 640 && bitmap?.height == 480)
    }

    // MARK: PortingFromCoreImage.md

    @Test func whatIsTheSame() throws {
        let image = CIImage(color: CIColor(red: 0.9, green: 0.6, blue: 0.3))
            .cropped(to: CGRect(x: 0, y: 0, width: 64, height: 64))
        let blur = CIFilter.gaussianBlur()
        blur.inputImage = image.clampedToExtent()
        blur.radius = 4
        let softened = blur.outputImage!.cropped(to: image.extent)
            .applyingFilter("CISharpenLuminance", parameters: [kCIInputSharpnessKey: 0.6])
        let context = CIContext()
        let rendered = context.createCGImage(softened, from: softened.extent)

        #expect(rendered?.width == 64)
        // A flat colour stays flat through a clamped blur and sharpening.
        #expect(try pixel(softened, 10, 10) == pixel(image, 10, 10))
    }

    @Test func kernelsBehindIf() throws {
        let image = Self.image
        #if !os(Linux)
        let invert = CIColorKernel(source: "kernel vec4 invert(__sample s) { return vec4(s.a - s.rgb, s.a); }")!
        #else
        let invert = CIColorKernel(name: "invert") { row in
            for i in row.output.indices {
                let p = row.output[i]
                row.output[i] = SIMD4(p.w - p.x, p.w - p.y, p.w - p.z, p.w)
            }
        }
        #endif
        let inverted = invert.apply(extent: image.extent, arguments: [image])

        // Inverted in linear light: sRGB(1 - linear(0.9)) is 0.3 in sRGB codes, about 76.
        let p = try pixel(try #require(inverted), 0, 0)
        let expected = { (v: Double) -> Int in
            let linear = v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
            let l = 1 - linear
            return Int(((l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055) * 255).rounded())
        }
        #expect(abs(Int(p[0]) - expected(0.9)) <= 1 && abs(Int(p[2]) - expected(0.3)) <= 1)
    }

    @Test func subclassesAndRegistration() throws {
        let image = Self.image
        final class Brighten: CIFilter {
            var inputImage: CIImage?
            var inputAmount: Double = 0.5

            override var inputKeys: [String] { [kCIInputImageKey, "inputAmount"] }

            override var outputImage: CIImage? {
                inputImage?.applyingFilter("CIExposureAdjust", parameters: [kCIInputEVKey: inputAmount])
            }

            override func setValue(_ value: Any?, forKey key: String) {
                switch key {
                case kCIInputImageKey: inputImage = value as? CIImage
                case "inputAmount": inputAmount = (value as? Double) ?? 0.5
                default: super.setValue(value, forKey: key)
                }
            }

            override func value(forKey key: String) -> Any? {
                switch key {
                case kCIInputImageKey: return inputImage
                case "inputAmount": return inputAmount
                default: return super.value(forKey: key)
                }
            }
        }

        final class BrightenVendor: NSObject, CIFilterConstructor {
            func filter(withName name: String) -> CIFilter? { Brighten() }
        }

        CIFilter.registerName(
            "Brighten", constructor: BrightenVendor(),
            classAttributes: [kCIAttributeFilterCategories: [kCICategoryColorAdjustment]])
        let brighten = CIFilter(name: "Brighten")!
        brighten.setValue(image, forKey: kCIInputImageKey)
        let brighter = brighten.outputImage

        let before = try pixel(image, 0, 0), after = try pixel(try #require(brighter), 0, 0)
        #expect(after[1] > before[1] && after[2] > before[2])
        #expect(brighten.value(forKey: "inputAmount") as? Double == 0.5)
        #expect(CIFilter.filterNames(inCategory: kCICategoryColorAdjustment).contains("Brighten"))
    }

    @Test func errorsYouCanCatch() throws {
        let image = Self.image
        #if os(Linux)
        let segmentation = CIFilter(name: "CIPersonSegmentation")!
        segmentation.setValue(image, forKey: kCIInputImageKey)
        do {
            _ = try segmentation.makeOutputImage()
        } catch {
            print(error)  // CIPersonSegmentation cannot run here: it needs ...
        }
        #endif
        #expect(CIFilter(name: "CIPersonSegmentation")?.outputImage == nil)
    }

    // MARK: WritingKernels.md

    @Test func colourKernels() throws {
        let image = Self.image, otherImage = Self.otherImage
        let warmth: Float = 0.1
        let warm = CIColorKernel(name: "warm") { row in
            let out = row.output
            for i in out.indices {
                let p = out[i]
                out[i] = SIMD4(p.x + warmth * p.w, p.y, p.z - warmth * p.w, p.w)
            }
        }
        let warmer = warm.apply(extent: image.extent, arguments: [image])

        let average = CIColorKernel(name: "average") { row in
            let other = row.input(0)
            for i in row.output.indices {
                row.output[i] = (row.output[i] + other[i]) * 0.5
            }
        }
        let mixed = average.apply(extent: image.extent, arguments: [image, otherImage])

        let before = try pixel(image, 3, 3), after = try pixel(try #require(warmer), 3, 3)
        #expect(after[0] > before[0] && after[1] == before[1] && after[2] < before[2])
        let m = try pixel(try #require(mixed), 0, 0)
        #expect(m[2] > before[2])  // half of the gradient's blue end
    }

    @Test func straightColourAndGenerators() throws {
        let image = Self.image
        let posterize = CIColorKernel(name: "posterize 4", premultiplied: false) { row in
            for i in row.output.indices {
                let p = row.output[i]
                let levels = (SIMD3(p.x, p.y, p.z) * 3).rounded(.toNearestOrEven) / 3
                row.output[i] = SIMD4(levels, p.w)
            }
        }
        let posterized = posterize.apply(extent: image.extent, arguments: [image])

        let ramp = CIColorKernel(name: "ramp") { row in
            for i in row.output.indices {
                let v = Float(row.x + i) / 255
                row.output[i] = SIMD4(v, v, v, 1)
            }
        }
        let gradient = ramp.apply(extent: CGRect(x: 0, y: 0, width: 256, height: 16), arguments: [])

        // Linear 0.9 and 0.3 in sRGB codes are about 0.79 and 0.30 linear: levels 2/3 and 1/3.
        #expect(
            try pixel(try #require(posterized), 0, 0)[0]
                == pixel(
                    CIImage(color: CIColor(red: 2.0 / 3, green: 0, blue: 0, colorSpace: CGColorSpace(name: CGColorSpace.linearSRGB)!)!).cropped(
                        to: CGRect(x: 0, y: 0, width: 1, height: 1)), 0, 0)[0])
        let g = try #require(gradient)
        #expect(g.extent.width == 256)
        #expect(try pixel(g, 0, 0)[0] == 0 && pixel(g, 255, 0)[0] == 255)
    }

    @Test func blendKernels() throws {
        let image = Self.image, otherImage = Self.otherImage
        let lighter = CIBlendKernel(name: "lighter") { row in
            let background = row.input(0)
            for i in row.output.indices {
                let f = row.output[i], b = background[i]
                row.output[i] = SIMD4(max(f.x, b.x), max(f.y, b.y), max(f.z, b.z), max(f.w, b.w))
            }
        }
        let lightened = lighter.apply(foreground: image, background: otherImage)

        let screened = CIBlendKernel.screen.apply(foreground: image, background: otherImage)
        let overlaid = CIBlendKernel.overlay.apply(
            foreground: image, background: otherImage,
            colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!)

        let f = try pixel(image, 31, 0), b = try pixel(otherImage, 31, 0), l = try pixel(try #require(lightened), 31, 0)
        #expect(l[0] == max(f[0], b[0]) && l[1] == max(f[1], b[1]) && l[2] == max(f[2], b[2]))
        #expect(try pixel(try #require(screened), 0, 0)[2] >= f[2])
        #expect(try #require(overlaid).extent == image.extent)
    }

    @Test func warpKernels() throws {
        let image = Self.otherImage
        let amplitude: Float = 4
        let wave = CIWarpKernel(name: "wave") { row in
            let y = Float(row.y) + 0.5
            for k in row.sourcePoints.indices {
                let x = Float(row.x + k) + 0.5
                row.sourcePoints[k] = SIMD2(x, y + amplitude * sin(x / 10))
            }
        }
        let waved = wave.apply(
            extent: image.extent,
            roiCallback: { _, rect in rect.insetBy(dx: 0, dy: -CGFloat(amplitude)) },
            image: image, arguments: [])

        // A horizontal gradient moved vertically is the same gradient inside the image.
        let w = try #require(waved)
        #expect(try pixel(w, 16, 12) == pixel(image, 16, 12))
    }

    @Test func generalKernels() throws {
        let image = Self.otherImage
        let box = CIKernel(name: "box 3x3") { tile in
            let source = tile.inputs[0]
            let minX = Int(tile.rect.minX), minY = Int(tile.rect.minY)
            for r in 0..<Int(tile.rect.height) {
                let out = tile.outputRow(r)
                let y = minY + r
                for i in out.indices {
                    var sum = SIMD4<Float>.zero
                    for dy in -1...1 {
                        for dx in -1...1 { sum += source.pixel(x: minX + i + dx, y: y + dy) }
                    }
                    out[i] = sum / 9
                }
            }
        }
        let boxBlurred = box.apply(
            extent: image.extent,
            roiCallback: { _, rect in rect.insetBy(dx: -1, dy: -1) },
            arguments: [image])

        // Inside, a box blur of a linear ramp is the ramp; at the edge, a third is clear.
        let b = try #require(boxBlurred)
        let inside = try pixel(b, 16, 12), original = try pixel(image, 16, 12)
        #expect(zip(inside, original).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
        #expect(try pixel(b, 16, 0)[3] < 200)
    }
}
