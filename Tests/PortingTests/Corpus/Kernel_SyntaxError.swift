// Kernel source with a mistake: Core Image returns nil (and logs where), and the calling code
// falls back, as well-behaved apps do.
import CoreImage
import Testing

extension CIImage {
    fileprivate func brightened(by amount: Float) -> CIImage {
        // Missing semicolon after the return statement.
        let broken = "kernel vec4 brighten(__sample s, float amount) { return vec4(s.rgb + amount, s.a) }"
        guard let kernel = CIColorKernel(source: broken) else {
            return applyingFilter("CIColorControls", parameters: [kCIInputBrightnessKey: amount])
        }
        return kernel.apply(extent: extent, arguments: [self, amount]) ?? self
    }
}

@Suite struct KernelSyntaxErrorProgram {
    @Test func brokenSourceGivesNilAndTheFallbackRuns() throws {
        #expect(CIColorKernel(source: "kernel vec4 brighten(__sample s) { return s }") == nil)
        #expect(CIKernel.kernels(withString: "kernel vec4 k(__sample s) { return undefinedName; }") == nil)
        #expect(CIWarpKernel(source: "kernel vec2 w() { return destCoord( ; }") == nil)
        let picture = KernelCorpus.picture(width: 1, height: 1) { _, _ in (100, 100, 100) }
        let bytes = KernelCorpus.bytes(picture.brightened(by: 0.2), picture.extent)
        // CIColorControls' brightness adds to each channel.
        #expect(abs(Int(bytes[0]) - (100 + 51)) <= 1, "\(bytes[0])")
    }
}
