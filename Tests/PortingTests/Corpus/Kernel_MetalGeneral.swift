// A Metal-source general kernel: coreimage::sampler, s.sample(s.transform(...)), dest.coord().
import CoreImage
import Testing

private let edgeSource = """
    #include <CoreImage/CoreImage.h>
    extern "C" { namespace coreimage {
        [[stitchable]] float4 horizontalEdge(sampler src, destination dest) {
            float2 p = dest.coord();
            float4 left = src.sample(src.transform(p - float2(1.0, 0.0)));
            float4 right = src.sample(src.transform(p + float2(1.0, 0.0)));
            return float4(abs(right.rgb - left.rgb), 1.0);
        }
    }}
    """

@Suite struct KernelMetalGeneralProgram {
    @Test func edgesLightUp() throws {
        let kernel = try #require(CIKernel.kernels(withMetalString: edgeSource).first)
        let applied = kernel.apply(extent: CGRect(x: 0, y: 0, width: 6, height: 1), roiCallback: { _, r in r.insetBy(dx: -1, dy: 0) }, arguments: [])
        #expect(applied == nil)  // a sampler argument is missing
        let picture = KernelCorpus.picture(width: 6, height: 1) { x, _ in x < 3 ? (10, 10, 10) : (210, 110, 10) }
        let edges = kernel.apply(extent: picture.extent, roiCallback: { _, r in r.insetBy(dx: -1, dy: 0) }, arguments: [picture.clampedToExtent()])
        let output = try #require(edges)
        let bytes = KernelCorpus.bytes(output, picture.extent)
        #expect(Array(bytes[0..<4]) == [0, 0, 0, 255])
        #expect(Array(bytes[8..<12]) == [200, 100, 0, 255])
        #expect(Array(bytes[12..<16]) == [200, 100, 0, 255])
        #expect(Array(bytes[20..<24]) == [0, 0, 0, 255])
    }
}
