import Foundation
import Testing
@testable import Cyanotype

// Planar Y'CbCr frames go through the optimiser's sRGB folds as 8-bit bitmaps do: SDR BT.709
// R'G'B' is sRGB-encoded colour, so a LUT's "to sRGB" folds into the planar read
// (`sRGBEncodedSource`) and its "from sRGB" into the planar write (`RenderDestination`).
// Pixel-level checks (folded equals unfolded within a level) are in CyanotypeVideoTests.

@Suite struct PlanarFoldTests {
    let w = 16, h = 8

    func frame(_ format: CIYCbCrFormat) throws -> CIPlanarImageBuffer {
        try CIPlanarImageBuffer(width: w, height: h, format: format)
    }
    var rect: PixelRect { PixelRect(x: 0, y: 0, width: w, height: h) }
    let hdr = CIYCbCrFormat(bitDepth: 10, matrix: .itu2020, transferFunction: .pq, primaries: .itu2020)
    let sdr2020 = CIYCbCrFormat(bitDepth: 10, matrix: .itu2020, primaries: .itu2020)

    /// The optimised recipe of `image` rendered into a planar buffer of `format`, and the writer.
    func optimized(_ image: CIImage, into format: CIYCbCrFormat, colorManaged: Bool = true) throws -> (OptimizedRecipe, YCbCrWriter) {
        let writer = YCbCrWriter(buffer: try frame(format), bounds: rect, encodedInput: !colorManaged)
        let recipe = try Optimizer.optimize(image.node, Optimizer.Options(writer: writer, colorManaged: colorManaged))
        return (recipe, try #require(recipe.destination as? YCbCrWriter))
    }

    @Test func aLUTOnAnSDRFrameFoldsIntoThePlanarReadAndWrite() throws {
        let graded = CIImage(planarBuffer: try frame(CIYCbCrFormat())).applyingLUT(try LUT.identity(size: 5))
        let (recipe, writer) = try optimized(graded, into: CIYCbCrFormat())
        let run = try #require(recipe.root as? FusedColorNode)
        #expect(run.steps.map(\.stage.label) == ["lut \"identity 5\" 5^3 tetrahedral"], "\(run.label)")
        #expect((run.head as? YCbCrSourceNode)?.encoded == true)
        #expect(writer.encodedInput)
    }

    @Test func onlySDRBT709ColourFolds() throws {
        let lut = try LUT.identity(size: 5)
        // A PQ frame's values are not sRGB-encoded: the read keeps its conversion.
        let (pq, pqWriter) = try optimized(CIImage(planarBuffer: try frame(hdr)).applyingLUT(lut), into: CIYCbCrFormat())
        let pqRun = try #require(pq.root as? FusedColorNode)
        #expect(pqRun.steps.first?.stage.label == "to kCGColorSpaceSRGB" && (pqRun.head as? YCbCrSourceNode)?.encoded == false)
        #expect(pqWriter.encodedInput)
        // A BT.2020 destination converts primaries in linear light: the write keeps its conversion.
        let (wide, wideWriter) = try optimized(CIImage(planarBuffer: try frame(CIYCbCrFormat())).applyingLUT(lut), into: sdr2020)
        let wideRun = try #require(wide.root as? FusedColorNode)
        #expect(wideRun.steps.last?.stage.label == "from kCGColorSpaceSRGB" && (wideRun.head as? YCbCrSourceNode)?.encoded == true)
        #expect(!wideWriter.encodedInput)
        // Without colour management nothing folds (the writer takes values as they are).
        let (plain, plainWriter) = try optimized(
            CIImage(planarBuffer: try frame(CIYCbCrFormat())).applyingLUT(lut), into: CIYCbCrFormat(),
            colorManaged: false)
        #expect((plain.root as? FusedColorNode)?.steps.count == 3 && plainWriter.encodedInput)
    }

    @Test func aFrameIntoAnSRGBBitmapFoldsIntoTheRead() throws {
        // FFV1's RGB output renders frames into BGRA8 sRGB: the planar read folds there too.
        let graded = CIImage(planarBuffer: try frame(CIYCbCrFormat())).applyingLUT(try LUT.identity(size: 5))
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 16)
        defer { scratch.deallocate() }
        let bgra8 = try #require(
            DestinationWriter(
                base: scratch, rowBytes: 0, bounds: rect, format: .BGRA8,
                colorSpace: CGColorSpace(name: CGColorSpace.sRGB), premultiplied: true))
        let recipe = try Optimizer.optimize(graded.node, Optimizer.Options(writer: bgra8))
        let run = try #require(recipe.root as? FusedColorNode)
        #expect(run.steps.count == 1 && (run.head as? YCbCrSourceNode)?.encoded == true && recipe.writer?.space == nil)
    }

    @Test func anUnfilteredFrameOfTheSameFormatIsCopied() throws {
        let format = CIYCbCrFormat(subsampling: .yuv422)
        let src = try frame(format)
        for (i, p) in src.planes.enumerated() {
            for row in 0..<p.height { (p.baseAddress + row * p.bytesPerRow).initializeMemory(as: UInt8.self, repeating: UInt8(40 + 50 * i + row), count: p.width) }
        }
        let image = CIImage(planarBuffer: src).cropped(to: CGRect(x: 0, y: 0, width: w, height: h))
        let (recipe, writer) = try optimized(image, into: format)
        func unchanged(_ recipe: OptimizedRecipe, _ writer: YCbCrWriter) -> YCbCrSourceNode? {
            guard case .planes(let source) = Optimizer.passThrough(recipe, rect: writer.bounds, into: writer, colorManaged: true) else { return nil }
            return source
        }
        writer.copyPlanes(from: try #require(unchanged(recipe, writer)))
        for (s, d) in zip(src.planes, writer.buffer.planes) {
            for row in 0..<d.height {
                #expect(memcmp(s.baseAddress + row * s.bytesPerRow, d.baseAddress + row * d.bytesPerRow, d.width) == 0)
            }
        }
        // Another format, or a part of the frame, is rendered instead.
        #expect(unchanged(recipe, try optimized(image, into: CIYCbCrFormat()).1) == nil)
        let (partRecipe, partWriter) = try optimized(CIImage(planarBuffer: src).cropped(to: CGRect(x: 0, y: 0, width: w / 2, height: h)), into: format)
        #expect(unchanged(partRecipe, partWriter) == nil)
    }

    @Test func anUnfilteredSDRFrameIsReadAndWrittenAsRPrimeGPrimeBPrime() throws {
        // No filter: the frame's R'G'B' goes to the writer as it is, with no curve either way.
        let image = CIImage(planarBuffer: try frame(CIYCbCrFormat())).cropped(to: CGRect(x: 0, y: 0, width: w, height: h))
        let (recipe, writer) = try optimized(image, into: CIYCbCrFormat(subsampling: .yuv444))
        let head = (recipe.root as? CropNode)?.inputs.first ?? recipe.root
        #expect((head as? YCbCrSourceNode)?.encoded == true && writer.encodedInput)
        // Not for colour that is not sRGB-encoded (PQ), nor into a BT.2020 destination.
        let (pq, pqWriter) = try optimized(CIImage(planarBuffer: try frame(hdr)), into: CIYCbCrFormat())
        #expect((pq.root as? YCbCrSourceNode)?.encoded == false && !pqWriter.encodedInput)
        let (wide, wideWriter) = try optimized(CIImage(planarBuffer: try frame(CIYCbCrFormat())), into: sdr2020)
        #expect((wide.root as? YCbCrSourceNode)?.encoded == false && !wideWriter.encodedInput)
    }
}
