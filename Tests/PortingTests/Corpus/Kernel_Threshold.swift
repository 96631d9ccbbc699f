// A threshold filter as a CIFilter subclass around a CIKL colour kernel, compiled once.
import CoreImage
import Testing

final class ThresholdFilter: CIFilter {
    var inputImage: CIImage?
    var inputThreshold: CGFloat = 0.5

    static let kernel: CIColorKernel? = CIColorKernel(
        source: """
            kernel vec4 thresholdFilter(__sample image, float threshold) {
                float luma = dot(image.rgb, vec3(0.2126, 0.7152, 0.0722));
                return vec4(vec3(step(threshold, luma)), image.a);
            }
            """)

    override var outputImage: CIImage? {
        guard let input = inputImage, let kernel = ThresholdFilter.kernel else { return nil }
        return kernel.apply(extent: input.extent, arguments: [input, inputThreshold])
    }
}

@Suite struct KernelThresholdProgram {
    @Test func pixelsBecomeBlackOrWhite() throws {
        let picture = KernelCorpus.picture(width: 16, height: 2) { x, _ in (UInt8(x * 16), UInt8(x * 16), UInt8(x * 16)) }
        let filter = ThresholdFilter()
        filter.inputImage = picture
        filter.inputThreshold = 0.4
        let output = try #require(filter.outputImage)
        let bytes = KernelCorpus.bytes(output, picture.extent)
        for x in 0..<16 {
            let luma = Double(x * 16) / 255
            #expect(Int(bytes[x * 4]) == (luma >= 0.4 ? 255 : 0), "x \(x)")
            #expect(bytes[x * 4 + 3] == 255)
        }
    }
}
