// Green-screen removal with CIKernel.kernels(withString:) and a __color argument.
import CoreImage
import Testing

private let chromaKeySource = """
    /* Removes pixels near the key colour. */
    kernel vec4 chromaKey(__sample s, __color key, float tolerance) {
        float d = distance(s.rgb, key.rgb);
        float keep = d < tolerance ? 0.0 : 1.0;
        return s * keep;
    }
    """

@Suite struct KernelChromaKeyProgram {
    @Test func greenGoesTransparent() throws {
        let kernels = try #require(CIKernel.kernels(withString: chromaKeySource))
        let chromaKey = try #require(kernels.first as? CIColorKernel)
        #expect(chromaKey.name == "chromaKey")
        let picture = KernelCorpus.picture(width: 4, height: 1) { x, _ in x < 2 ? (0, 255, 0) : (200, 40, 90) }
        let key = CIColor(red: 0, green: 1, blue: 0)
        let output = try #require(chromaKey.apply(extent: picture.extent, arguments: [picture, key, 0.2]))
        let bytes = KernelCorpus.bytes(output, picture.extent)
        #expect(Array(bytes[0..<8]) == [0, 0, 0, 0, 0, 0, 0, 0])
        #expect(Array(bytes[8..<12]) == [200, 40, 90, 255])
    }
}
