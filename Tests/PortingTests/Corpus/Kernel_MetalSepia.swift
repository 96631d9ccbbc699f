// A Metal-source colour kernel: `[[stitchable]]` inside `namespace coreimage`, compiled with
// CIKernel.kernels(withMetalString:) (Apple's run-time Metal compile).
import CoreImage
import Testing

private let metalSource = """
    #include <CoreImage/CoreImage.h>
    using namespace metal;

    extern "C" {
        namespace coreimage {
            [[stitchable]] float4 sepiaTone(sample_t s, float intensity) {
                float3x3 sepia = float3x3(float3(0.393, 0.349, 0.272),
                                          float3(0.769, 0.686, 0.534),
                                          float3(0.189, 0.168, 0.131));
                float3 toned = sepia * s.rgb;
                return float4(mix(s.rgb, saturate(toned), intensity), s.a);
            }
        }
    }
    """

@Suite struct KernelMetalSepiaProgram {
    @Test func sepiaMatrixAppliedAtFullIntensity() throws {
        let kernels = try CIKernel.kernels(withMetalString: metalSource)
        let sepia = try #require(kernels.first as? CIColorKernel)
        let picture = KernelCorpus.picture(width: 1, height: 1) { _, _ in (100, 50, 20) }
        let output = try #require(sepia.apply(extent: picture.extent, arguments: [picture, 1.0]))
        let bytes = KernelCorpus.bytes(output, picture.extent)
        let (r, g, b) = (100.0 / 255, 50.0 / 255, 20.0 / 255)
        let want = [
            0.393 * r + 0.769 * g + 0.189 * b, 0.349 * r + 0.686 * g + 0.168 * b, 0.272 * r + 0.534 * g + 0.131 * b,
        ].map { KernelCorpus.byte($0) }
        for c in 0..<3 { #expect(abs(Int(bytes[c]) - want[c]) <= 1, "channel \(c): \(bytes[c]) vs \(want[c])") }
    }
}
