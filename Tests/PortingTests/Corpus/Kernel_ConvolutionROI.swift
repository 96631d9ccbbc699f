// A general kernel: a horizontal box blur with a radius argument, a loop over samples and a
// ROI callback that widens the rect by the radius.
import CoreImage
import Testing

final class HorizontalBoxBlur {
    private static let kernel = CIKernel(
        source: """
            kernel vec4 hBox(sampler image, float radius) {
                vec4 sum = vec4(0.0);
                float count = 0.0;
                for (float i = -radius; i <= radius; i += 1.0) {
                    sum += sample(image, samplerTransform(image, destCoord() + vec2(i, 0.0)));
                    count += 1.0;
                }
                return sum / count;
            }
            """)

    static func apply(to image: CIImage, radius: Int) -> CIImage? {
        let r = CGFloat(radius)
        return kernel?.apply(
            extent: image.extent, roiCallback: { _, rect in rect.insetBy(dx: -r, dy: 0) },
            arguments: [image.clampedToExtent(), Float(radius)])
    }
}

@Suite struct KernelConvolutionProgram {
    @Test func stepEdgeIsAveraged() throws {
        let picture = KernelCorpus.picture(width: 10, height: 1) { x, _ in x < 5 ? (0, 0, 0) : (250, 250, 250) }
        let output = try #require(HorizontalBoxBlur.apply(to: picture, radius: 2))
        let bytes = KernelCorpus.bytes(output, picture.extent)
        // Five taps, edges clamped: pixel x averages x-2...x+2.
        for x in 0..<10 {
            let taps = (-2...2).map { min(max(x + $0, 0), 9) < 5 ? 0.0 : 250.0 }
            let want = Int((taps.reduce(0, +) / 5).rounded())
            #expect(abs(Int(bytes[x * 4]) - want) <= 1, "x \(x): \(bytes[x * 4]) vs \(want)")
        }
    }
}
