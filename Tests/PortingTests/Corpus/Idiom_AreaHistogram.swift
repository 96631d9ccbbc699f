// A histogram read back as numbers: CIAreaHistogram, rendered to a float bitmap, bins read.
import CoreImage
import CoreImage.CIFilterBuiltins
import Testing

/// 256 bins per channel: fractions of the image's pixels (each channel's bins sum to 1).
private func histogram(of image: CIImage, context: CIContext) -> [[Float]]? {
    let filter = CIFilter.areaHistogram()
    filter.inputImage = image
    filter.extent = image.extent
    filter.count = 256
    filter.scale = 1
    guard let output = filter.outputImage else { return nil }
    var bins = [Float](repeating: 0, count: 256 * 4)
    context.render(output, toBitmap: &bins, rowBytes: 256 * 4 * MemoryLayout<Float>.size, bounds: CGRect(x: 0, y: 0, width: 256, height: 1), format: .RGBAf, colorSpace: nil)
    return (0..<4).map { c in (0..<256).map { bins[$0 * 4 + c] } }
}

@Suite struct AreaHistogramIdiom {
    @Test func halfBlackHalfWhiteFillsTheFirstAndLastBins() throws {
        let black = CIImage(color: .black).cropped(to: CGRect(x: 0, y: 0, width: 8, height: 8))
        let white = CIImage(color: .white).cropped(to: CGRect(x: 8, y: 0, width: 8, height: 8))
        let picture = white.composited(over: black)
        let bins = try #require(histogram(of: picture, context: CIContext()))
        // Oracle: 64 of 128 pixels are black, 64 white; alpha is 1 everywhere.
        for c in 0..<3 {
            #expect(abs(bins[c][0] - 0.5) < 1e-5, "channel \(c) bin 0: \(bins[c][0])")
            #expect(abs(bins[c][255] - 0.5) < 1e-5, "channel \(c) bin 255: \(bins[c][255])")
            #expect(bins[c][1..<255].allSatisfy { $0 == 0 })
        }
        #expect(bins[3][0] == 0)
        #expect(abs(bins[3][255] - 1) < 1e-5)
    }

    @Test func eightBitBinsAreReadTheSameWay() throws {
        // The same histogram read as RGBA8 (scale 1: a bin of 0.5 is code 128 or 127).
        let black = CIImage(color: .black).cropped(to: CGRect(x: 0, y: 0, width: 4, height: 4))
        let white = CIImage(color: .white).cropped(to: CGRect(x: 4, y: 0, width: 4, height: 4))
        let filter = CIFilter(
            name: "CIAreaHistogram",
            parameters: [
                kCIInputImageKey: white.composited(over: black), kCIInputExtentKey: CIVector(cgRect: CGRect(x: 0, y: 0, width: 8, height: 4)),
                "inputCount": 2, kCIInputScaleKey: 1,
            ])
        let output = try #require(filter?.outputImage)
        var bytes = [UInt8](repeating: 0, count: 2 * 4)
        CIContext().render(output, toBitmap: &bytes, rowBytes: 8, bounds: CGRect(x: 0, y: 0, width: 2, height: 1), format: .RGBA8, colorSpace: nil)
        for c in 0..<3 {
            #expect((127...128).contains(bytes[c]), "bin 0 channel \(c): \(bytes[c])")
            #expect((127...128).contains(bytes[4 + c]), "bin 1 channel \(c): \(bytes[4 + c])")
        }
        #expect(bytes[3] == 0 && bytes[7] == 255)
    }
}
