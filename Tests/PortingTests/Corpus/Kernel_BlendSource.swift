// A custom blend from CIKL source: CIBlendKernel(source:), applied with apply(foreground:background:).
import CoreImage
import Testing

extension CIBlendKernel {
    fileprivate static let averageBlend = CIBlendKernel(
        source: "kernel vec4 averageBlend(__sample fore, __sample back) { return mix(back, fore, 0.5); }")
}

@Suite struct KernelBlendProgram {
    @Test func averagesForegroundAndBackgroundOverTheUnionOfExtents() throws {
        let fg = KernelCorpus.picture(width: 2, height: 1) { _, _ in (200, 100, 0) }
        let bg = KernelCorpus.picture(width: 4, height: 1) { _, _ in (0, 100, 200) }
        let blend = try #require(CIBlendKernel.averageBlend)
        let output = try #require(blend.apply(foreground: fg, background: bg))
        #expect(output.extent == CGRect(x: 0, y: 0, width: 4, height: 1))
        let bytes = KernelCorpus.bytes(output, output.extent)
        #expect(Array(bytes[0..<4]) == [100, 100, 100, 255])
        // Outside the foreground it is clear: half of the background.
        #expect(Array(bytes[12..<16]) == [0, 50, 100, 128])
    }
}
