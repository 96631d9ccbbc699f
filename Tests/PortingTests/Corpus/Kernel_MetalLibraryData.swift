// Loading a kernel from a compiled .metallib, with the usual do/catch: on Linux the library
// cannot be read, so the typed error arrives and the app falls back to the source.
import CoreImage
import Foundation
import Testing

@Suite struct KernelMetalLibraryProgram {
    @Test func compiledLibraryIsRefusedWithATypedError() throws {
        let fakeLibrary = Data("MTLB".utf8) + Data(repeating: 0, count: 60)
        var kernel: CIColorKernel?
        do {
            kernel = try CIColorKernel(functionName: "invert", fromMetalLibraryData: fakeLibrary)
        } catch {
            #expect("\(error)".contains("metallib"))
            kernel =
                try CIKernel.kernels(
                    withMetalString: """
                        #include <CoreImage/CoreImage.h>
                        extern "C" { namespace coreimage {
                            [[stitchable]] float4 invert(sample_t s) { return float4(s.a - s.rgb, s.a); }
                        }}
                        """
                ).first as? CIColorKernel
        }
        let invert = try #require(kernel)
        let picture = KernelCorpus.picture(width: 1, height: 1) { _, _ in (10, 100, 250) }
        let bytes = KernelCorpus.bytes(try #require(invert.apply(extent: picture.extent, arguments: [picture])), picture.extent)
        #expect(Array(bytes) == [245, 155, 5, 255])
    }
}
