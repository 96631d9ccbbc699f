import Foundation
import Testing
@testable import Cyanotype

/// The CIConvolution family, morphology and the median against direct references computed
/// here from the published definitions (premultiplied pixels, clear outside the image).
@Suite struct ConvolutionAndMorphologyTests {
    let w = 13, h = 9
    var pixels: [UInt8] { testPixels(width: w, height: h, alpha: true) }
    var input: CIImage { image(pixels, w, h) }

    /// Renders premultiplied linear float RGBA, rows top-down.
    let premulContext = CIContext(options: [
        .outputColorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!,
        .outputPremultiplied: true, .cacheIntermediates: false,
    ])
    func tiledContext(_ side: Int) -> CIContext {
        CIContext(options: [
            .tileSize: side, .outputColorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!,
            .outputPremultiplied: true, .cacheIntermediates: false,
        ])
    }

    /// Premultiplied linear pixel at (x, yUp), clear outside the image.
    func premul(_ x: Int, _ yUp: Int) -> [Double] {
        guard x >= 0, x < w, yUp >= 0, yUp < h else { return [0, 0, 0, 0] }
        let p = linearPixel(pixels, w, x, h - 1 - yUp)
        return [p[0] * p[3], p[1] * p[3], p[2] * p[3], p[3]]
    }

    /// Renders `rect` premultiplied; `at(x, yUp)` reads one pixel.
    func rendered(_ img: CIImage, _ rect: CGRect, context: CIContext? = nil) throws -> (pixels: [SIMD4<Float>], at: (Int, Int) -> SIMD4<Float>) {
        let px = try renderFloat(img, rect, context: context ?? premulContext)
        let rw = Int(rect.width), top = Int(rect.maxY) - 1, left = Int(rect.minX)
        return (px, { x, yUp in px[(top - yUp) * rw + (x - left)] })
    }

    // MARK: - Convolution

    /// Apple's definition, written out: weights row-major, top row first, not flipped; bias
    /// added; each component clamped to [0, 1]; the RGB variants keep the pixel's alpha.
    func convolutionReference(_ weights: [Double], columns: Int, rows: Int, bias: Double, rgbOnly: Bool, _ x: Int, _ yUp: Int) -> [Double] {
        var acc = [bias, bias, bias, bias]
        for j in 0..<rows {
            for i in 0..<columns {
                let p = premul(x + i - columns / 2, yUp + rows / 2 - j)
                for k in 0..<4 { acc[k] += weights[j * columns + i] * p[k] }
            }
        }
        var o = acc.map { min(max($0, 0), 1) }
        if rgbOnly { o[3] = premul(x, yUp)[3] }
        return o
    }

    static let shapes: [(name: String, columns: Int, rows: Int)] = [
        ("CIConvolution3X3", 3, 3), ("CIConvolution5X5", 5, 5), ("CIConvolution7X7", 7, 7),
        ("CIConvolution9Horizontal", 9, 1), ("CIConvolution9Vertical", 1, 9),
        ("CIConvolutionRGB3X3", 3, 3), ("CIConvolutionRGB5X5", 5, 5), ("CIConvolutionRGB7X7", 7, 7),
        ("CIConvolutionRGB9Horizontal", 9, 1), ("CIConvolutionRGB9Vertical", 1, 9),
    ]

    @Test(arguments: 0..<10) func convolutionMatchesTheDefinition(_ index: Int) throws {
        let (name, cols, rows) = Self.shapes[index]
        let n = cols * rows
        // Asymmetric weights, some negative, so orientation, sign and clamping all show.
        let weights = (0..<n).map { k in (Double((k * 7) % 11) - 3) / Double(2 * n) }
        let bias = 0.03
        let out = input.applyingFilter(name, parameters: ["inputWeights": CIVector(values: weights.map { CGFloat($0) }), "inputBias": bias])
        #expect(out.extent == input.extent)
        let r = try rendered(out, input.extent)
        for (x, yUp) in [(0, 0), (6, 4), (12, 8), (1, 7), (11, 2), (4, 0), (12, 5)] {
            let e = convolutionReference(weights, columns: cols, rows: rows, bias: bias, rgbOnly: name.contains("RGB"), x, yUp)
            #expect(close(r.at(x, yUp), e, tol: 1e-4, "\(name) at \(x),\(yUp)"))
        }
    }

    @Test func weightOrderIsTopRowFirstInDisplayOrder() throws {
        // Only the middle row's right weight: each output pixel is its right neighbour.
        let right = input.applyingFilter("CIConvolution3X3", parameters: ["inputWeights": CIVector(values: [0, 0, 0, 0, 0, 1, 0, 0, 0])])
        // Only the top row's centre weight: each output pixel is the pixel above it.
        let above = input.applyingFilter("CIConvolution3X3", parameters: ["inputWeights": CIVector(values: [0, 1, 0, 0, 0, 0, 0, 0, 0])])
        // CIConvolution9Vertical's first weight is the pixel 4 rows above.
        let fourAbove = input.applyingFilter("CIConvolution9Vertical", parameters: ["inputWeights": CIVector(values: [1, 0, 0, 0, 0, 0, 0, 0, 0])])
        let a = try rendered(right, input.extent), b = try rendered(above, input.extent), c = try rendered(fourAbove, input.extent)
        for (x, yUp) in [(0, 0), (5, 3), (12, 8), (7, 8), (2, 4)] {
            #expect(close(a.at(x, yUp), premul(x + 1, yUp), tol: 1e-5))
            #expect(close(b.at(x, yUp), premul(x, yUp + 1), tol: 1e-5))
            #expect(close(c.at(x, yUp), premul(x, yUp + 4), tol: 1e-5))
        }
    }

    @Test func identityKernelsLeaveTheImageUnchanged() throws {
        let reference = try rendered(input, input.extent).pixels
        for (name, _, _) in Self.shapes {
            // The default weights are the identity kernel.
            let out = input.applyingFilter(name, parameters: [:])
            #expect(out.extent == input.extent)
            #expect(try rendered(out, input.extent).pixels == reference, "\(name)")
        }
    }

    @Test func tiledConvolutionEqualsWholeRender() throws {
        let weights = (0..<49).map { CGFloat(($0 % 5) + 1) / 150 }
        for name in ["CIConvolution7X7", "CIConvolutionRGB7X7"] {
            let out = input.applyingFilter(name, parameters: ["inputWeights": CIVector(values: weights), "inputBias": -0.01])
            let whole = try rendered(out, input.extent).pixels
            for side in [3, 5, 7] {
                #expect(try rendered(out, input.extent, context: tiledContext(side)).pixels == whole, "\(name) tiles \(side)")
            }
        }
        let v = input.applyingFilter("CIConvolution9Vertical", parameters: ["inputWeights": CIVector(values: [1, 2, 3, 4, 5, 4, 3, 2, 1].map { $0 / 25 })])
        #expect(try rendered(v, input.extent, context: tiledContext(5)).pixels == rendered(v, input.extent).pixels)
    }

    @Test func aOnePixelCropReadsOnlyTheKernelsNeighbourhood() throws {
        let big = image(testPixels(width: 200, height: 150), 200, 150)
        let ctx = CIContext()
        for (name, cols, rows) in [("CIConvolution3X3", 3, 3), ("CIConvolution7X7", 7, 7), ("CIConvolution9Horizontal", 9, 1)] {
            let out = big.applyingFilter(name, parameters: [:])
            let crop = CGRect(x: 100, y: 70, width: 1, height: 1)
            _ = try ctx.renderToData(out.cropped(to: crop), from: crop)
            #expect(ctx.lastRenderStatistics.sourcePixels == cols * rows, "\(name)")
        }
    }

    @Test func infiniteInputsStayInfinite() throws {
        let red = CIImage(color: CIColor(red: 0.5, green: 0.25, blue: 0, alpha: 1))
        let out = red.applyingFilter("CIConvolution5X5", parameters: ["inputWeights": CIVector(values: Array(repeating: 0.04, count: 25))])
        #expect(out.extent.isInfinite)
        let r = try rendered(out, CGRect(x: -1000, y: 40, width: 3, height: 2))
        // 25 x 0.04 = 1: the constant (CIColor components are sRGB-encoded) comes back.
        #expect(close(r.at(-999, 41), [srgbToLinear(0.5), srgbToLinear(0.25), 0, 1], tol: 1e-5))
        let clamped = input.clampedToExtent().applyingFilter("CIConvolution3X3", parameters: [:])
        #expect(clamped.extent.isInfinite)
    }

    @Test func typedConvolutionAPI() throws {
        let weights = CIVector(values: [0, -1, 0, -1, 5, -1, 0, -1, 0])
        let f = CIFilter.convolution3X3()
        f.inputImage = input
        f.weights = weights
        f.bias = 0.02
        #expect(f.weights == weights && f.bias == 0.02)
        let typed = try #require(f.outputImage)
        let named = input.applyingFilter("CIConvolution3X3", parameters: ["inputWeights": weights, "inputBias": 0.02])
        #expect(try rendered(typed, input.extent).pixels == rendered(named, input.extent).pixels)
        let all: [CIFilter] = [
            CIFilter.convolution5X5(), CIFilter.convolution7X7(), CIFilter.convolution9Horizontal(), CIFilter.convolution9Vertical(),
            CIFilter.convolutionRGB3X3(), CIFilter.convolutionRGB5X5(), CIFilter.convolutionRGB7X7(),
            CIFilter.convolutionRGB9Horizontal(), CIFilter.convolutionRGB9Vertical(),
        ]
        #expect(all.map(\.name) == Self.shapes.dropFirst().map(\.name))
        let rgb = CIFilter.convolutionRGB5X5()
        rgb.inputImage = input
        #expect(rgb.weights.count == 25 && rgb.weights.value(at: 12) == 1)
        #expect(rgb.outputImage?.extent == input.extent)
    }

    @Test func badConvolutionParameters() throws {
        // Too few weights: the missing ones are 0 (CIVector.value(at:) past the end); extra ones are ignored.
        let short = input.applyingFilter("CIConvolution3X3", parameters: ["inputWeights": CIVector(values: [0, 0, 0, 0, 0.5])])
        let padded = input.applyingFilter("CIConvolution3X3", parameters: ["inputWeights": CIVector(values: [0, 0, 0, 0, 0.5, 0, 0, 0, 0, 7, 7])])
        let half = try rendered(short, input.extent)
        #expect(half.pixels == (try rendered(padded, input.extent).pixels))
        #expect(close(half.at(3, 3), premul(3, 3).map { $0 / 2 }, tol: 1e-5))
        let empty = input.applyingFilter("CIConvolution3X3", parameters: ["inputWeights": CIVector(values: [])])
        #expect(try rendered(empty, input.extent).pixels.allSatisfy { $0 == .zero })
        // NaN or infinite weights and bias are typed errors, not crashes.
        let f = CIFilter.convolution3X3()
        f.inputImage = input
        f.weights = CIVector(values: [0, 0, 0, 0, .infinity, 0, 0, 0, 0])
        #expect(throws: CIFilterError.nonFinite(filter: "CIConvolution3X3", key: "inputWeights")) { try f.makeOutputImage() }
        f.weights = CIVector(values: [0, 0, 0, 0, .nan, 0, 0, 0, 0])
        #expect(throws: CIFilterError.nonFinite(filter: "CIConvolution3X3", key: "inputWeights")) { try f.makeOutputImage() }
        f.weights = CIVector(values: [0, 0, 0, 0, 1, 0, 0, 0, 0])
        f.bias = .nan
        #expect(throws: CIFilterError.nonFinite(filter: "CIConvolution3X3", key: "inputBias")) { try f.makeOutputImage() }
        f.bias = 1e30
        // Huge values clamp to 1.
        #expect(try rendered(try f.makeOutputImage(), input.extent).pixels.allSatisfy { $0 == SIMD4(repeating: 1) })
    }

    // MARK: - Morphology

    /// Per-component extreme over every offset with dx² + dy² <= r².
    func diskReference(_ radius: Double, max isMax: Bool, _ x: Int, _ yUp: Int) -> [Double] {
        let reach = Int(radius)
        var o = premul(x, yUp)
        for dy in -reach...reach {
            for dx in -reach...reach where Double(dx * dx + dy * dy) <= radius * radius {
                let p = premul(x + dx, yUp + dy)
                for k in 0..<4 { o[k] = isMax ? max(o[k], p[k]) : min(o[k], p[k]) }
            }
        }
        return o
    }

    func rectangleReference(_ width: Int, _ height: Int, max isMax: Bool, _ x: Int, _ yUp: Int) -> [Double] {
        var o = premul(x, yUp)
        for dy in -((height - 1) / 2)...(height / 2) {
            for dx in -((width - 1) / 2)...(width / 2) {
                let p = premul(x + dx, yUp + dy)
                for k in 0..<4 { o[k] = isMax ? max(o[k], p[k]) : min(o[k], p[k]) }
            }
        }
        return o
    }

    @Test(arguments: [1.0, 1.5, 2.3, 3.0]) func discMorphologyMatchesTheDefinition(_ radius: Double) throws {
        let reach = Int(radius)
        let dilated = input.applyingFilter("CIMorphologyMaximum", parameters: [kCIInputRadiusKey: radius])
        let eroded = input.applyingFilter("CIMorphologyMinimum", parameters: [kCIInputRadiusKey: radius])
        let gradient = input.applyingFilter("CIMorphologyGradient", parameters: [kCIInputRadiusKey: radius])
        let grown = input.extent.insetBy(dx: CGFloat(-reach), dy: CGFloat(-reach))
        #expect(dilated.extent == grown && gradient.extent == grown && eroded.extent == input.extent)
        let d = try rendered(dilated, grown), e = try rendered(eroded, input.extent), g = try rendered(gradient, grown)
        for (x, yUp) in [(0, 0), (6, 4), (12, 8), (3, 7), (10, 1), (-reach, 4), (12 + reach, 8)] {
            let hi = diskReference(radius, max: true, x, yUp), lo = diskReference(radius, max: false, x, yUp)
            #expect(close(d.at(x, yUp), hi, tol: 1e-6, "max r \(radius) at \(x),\(yUp)"))
            #expect(close(g.at(x, yUp), [hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], hi[3]], tol: 1e-6, "gradient r \(radius) at \(x),\(yUp)"))
            if x >= 0 && x < w { #expect(close(e.at(x, yUp), lo, tol: 1e-6, "min r \(radius) at \(x),\(yUp)")) }
        }
    }

    @Test(arguments: [(5, 5), (1, 4), (4, 1), (2, 3), (6, 2)]) func rectangleMorphologyMatchesTheDefinition(_ size: (Int, Int)) throws {
        let (rw, rh) = size
        let dilated = input.applyingFilter("CIMorphologyRectangleMaximum", parameters: [kCIInputWidthKey: rw, "inputHeight": rh])
        let eroded = input.applyingFilter("CIMorphologyRectangleMinimum", parameters: [kCIInputWidthKey: rw, "inputHeight": rh])
        let grown = CGRect(x: -(rw / 2), y: -(rh / 2), width: w + rw - 1, height: h + rh - 1)
        #expect(dilated.extent == grown && eroded.extent == input.extent)
        let d = try rendered(dilated, grown), e = try rendered(eroded, input.extent)
        for (x, yUp) in [(0, 0), (6, 4), (12, 8), (3, 7), (10, 1)] {
            #expect(close(d.at(x, yUp), rectangleReference(rw, rh, max: true, x, yUp), tol: 1e-6, "max \(rw)x\(rh) at \(x),\(yUp)"))
            #expect(close(e.at(x, yUp), rectangleReference(rw, rh, max: false, x, yUp), tol: 1e-6, "min \(rw)x\(rh) at \(x),\(yUp)"))
        }
        // Outside the input only the dilation has pixels.
        let corner = (Int(grown.minX), Int(grown.minY))
        #expect(close(d.at(corner.0, corner.1), rectangleReference(rw, rh, max: true, corner.0, corner.1), tol: 1e-6))
    }

    @Test func morphologyIdentityParametersLeaveTheImageUnchanged() throws {
        let reference = try rendered(input, input.extent).pixels
        for (name, params) in [
            ("CIMorphologyMaximum", [kCIInputRadiusKey: 0.0]), ("CIMorphologyMinimum", [kCIInputRadiusKey: 0.7]),
            ("CIMorphologyRectangleMaximum", [kCIInputWidthKey: 1.0, "inputHeight": 1.0]),
            ("CIMorphologyRectangleMinimum", [kCIInputWidthKey: 1.0, "inputHeight": 1.0]),
        ] {
            let out = input.applyingFilter(name, parameters: params)
            #expect(out.extent == input.extent)
            #expect(try rendered(out, input.extent).pixels == reference, "\(name)")
        }
        // The gradient at radius 0 has no edges: black, with the image's alpha.
        let g = try rendered(input.applyingFilter("CIMorphologyGradient", parameters: [kCIInputRadiusKey: 0]), input.extent)
        #expect(zip(g.pixels, reference).allSatisfy { $0 == SIMD4(0, 0, 0, $1.w) })
        // Dilation then erosion of a constant is the constant.
        let grey = CIImage(color: CIColor(red: 0.3, green: 0.3, blue: 0.3, alpha: 1))
        let closed = grey.applyingFilter("CIMorphologyMaximum", parameters: [kCIInputRadiusKey: 3]).applyingFilter("CIMorphologyMinimum", parameters: [kCIInputRadiusKey: 3])
        #expect(closed.extent.isInfinite)
        #expect(try rendered(closed, CGRect(x: 5, y: 5, width: 4, height: 3)).pixels.allSatisfy { abs(Double($0.x) - srgbToLinear(0.3)) < 1e-5 && $0.w == 1 })
    }

    @Test func tiledMorphologyEqualsWholeRender() throws {
        let outs = [
            input.applyingFilter("CIMorphologyMaximum", parameters: [kCIInputRadiusKey: 2.5]),
            input.applyingFilter("CIMorphologyMinimum", parameters: [kCIInputRadiusKey: 2]),
            input.applyingFilter("CIMorphologyGradient", parameters: [kCIInputRadiusKey: 1.5]),
            input.applyingFilter("CIMorphologyRectangleMaximum", parameters: [kCIInputWidthKey: 4, "inputHeight": 3]),
            input.applyingFilter("CIMorphologyRectangleMinimum", parameters: [kCIInputWidthKey: 3, "inputHeight": 6]),
            input.applyingFilter("CIMedianFilter"),
        ]
        for out in outs {
            let e = out.extent
            let whole = try rendered(out, e).pixels
            for side in [3, 5] { #expect(try rendered(out, e, context: tiledContext(side)).pixels == whole, "\(out.node.label) tiles \(side)") }
        }
    }

    @Test func morphologyReadsOnlyItsNeighbourhood() throws {
        let big = image(testPixels(width: 200, height: 150), 200, 150)
        let ctx = CIContext()
        let crop = CGRect(x: 100, y: 70, width: 1, height: 1)
        for (out, side) in [
            (big.applyingFilter("CIMorphologyMaximum", parameters: [kCIInputRadiusKey: 3]), 7),
            (big.applyingFilter("CIMorphologyRectangleMinimum", parameters: [kCIInputWidthKey: 5, "inputHeight": 5]), 5),
            (big.applyingFilter("CIMedianFilter"), 3),
        ] {
            _ = try ctx.renderToData(out.cropped(to: crop), from: crop)
            #expect(ctx.lastRenderStatistics.sourcePixels == side * side, "\(out.node.label)")
        }
    }

    @Test func badMorphologyParameters() throws {
        // Negative radii act as 0; huge ones are capped (reach 250), not allocated.
        let neg = input.applyingFilter("CIMorphologyMaximum", parameters: [kCIInputRadiusKey: -4])
        #expect(neg.extent == input.extent)
        let huge = input.applyingFilter("CIMorphologyMaximum", parameters: [kCIInputRadiusKey: 1e12])
        #expect(huge.extent == input.extent.insetBy(dx: -250, dy: -250))
        let wide = input.applyingFilter("CIMorphologyRectangleMinimum", parameters: [kCIInputWidthKey: 1e9, "inputHeight": -3])
        #expect(wide.extent == input.extent)
        #expect(try rendered(wide, CGRect(x: 6, y: 4, width: 1, height: 1)).pixels == [.zero])
        let f = CIFilter.morphologyGradient()
        f.inputImage = input
        f.radius = .nan
        #expect(throws: CIFilterError.nonFinite(filter: "CIMorphologyGradient", key: "inputRadius")) { try f.makeOutputImage() }
        let r = CIFilter.morphologyRectangleMaximum()
        r.inputImage = input
        r.width = .infinity
        #expect(throws: CIFilterError.nonFinite(filter: "CIMorphologyRectangleMaximum", key: "inputWidth")) { try r.makeOutputImage() }
    }

    @Test func typedMorphologyAPI() throws {
        let f = CIFilter.morphologyMaximum()
        f.inputImage = input
        f.radius = 2
        #expect(
            try rendered(try #require(f.outputImage), input.extent).pixels
                == rendered(input.applyingFilter("CIMorphologyMaximum", parameters: [kCIInputRadiusKey: 2]), input.extent).pixels)
        let g = CIFilter.morphologyGradient()
        #expect(g.radius == 5)
        let m = CIFilter.morphologyMinimum()
        #expect(m.radius == 0)
        let rmax = CIFilter.morphologyRectangleMaximum(), rmin = CIFilter.morphologyRectangleMinimum()
        #expect(rmax.width == 5 && rmax.height == 5 && rmin.width == 5 && rmin.height == 5)
        rmin.inputImage = input
        rmin.width = 3
        rmin.height = 2
        #expect(
            try rendered(try #require(rmin.outputImage), input.extent).pixels
                == rendered(input.applyingFilter("CIMorphologyRectangleMinimum", parameters: [kCIInputWidthKey: 3, "inputHeight": 2]), input.extent).pixels)
        let med = CIFilter.median()
        med.inputImage = input
        #expect(med.outputImage?.extent == input.extent)
    }

    // MARK: - Median

    @Test func medianIsTheMiddleOfNineValues() throws {
        let out = input.applyingFilter("CIMedianFilter")
        #expect(out.extent == input.extent)
        let r = try rendered(out, input.extent)
        for (x, yUp) in [(0, 0), (6, 4), (12, 8), (3, 7), (10, 1), (0, 4), (7, 8)] {
            var e = [0.0, 0, 0, 0]
            for k in 0..<4 {
                var v: [Double] = []
                for dy in -1...1 { for dx in -1...1 { v.append(premul(x + dx, yUp + dy)[k]) } }
                e[k] = v.sorted()[4]
            }
            #expect(close(r.at(x, yUp), e, tol: 1e-6, "median at \(x),\(yUp)"))
        }
        // A flat image stays flat; a lone speck disappears.
        var speck = [UInt8](repeating: 0, count: 7 * 5 * 4)
        for i in stride(from: 3, to: speck.count, by: 4) { speck[i] = 255 }
        let flat = image(speck, 7, 5).clampedToExtent()
        speck[(2 * 7 + 3) * 4] = 255
        let spotted = image(speck, 7, 5).clampedToExtent().applyingFilter("CIMedianFilter").cropped(to: CGRect(x: 0, y: 0, width: 7, height: 5))
        #expect(try rendered(spotted, CGRect(x: 0, y: 0, width: 7, height: 5)).pixels == rendered(flat, CGRect(x: 0, y: 0, width: 7, height: 5)).pixels)
    }
}
