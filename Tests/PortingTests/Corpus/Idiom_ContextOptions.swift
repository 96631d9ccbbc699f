// Contexts configured the ways apps configure them: working space, no cache, software.
import CoreImage
import Testing

@Suite struct ContextOptionsIdiom {
    @Test func optionsAreAcceptedAndTheWorkingSpaceIsHonoured() {
        let managed = CIContext(options: [
            .workingColorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!, .cacheIntermediates: false, .useSoftwareRenderer: true,
            .highQualityDownsample: true, .outputPremultiplied: true, .priorityRequestLow: false, .name: "thumbnails",
        ])
        let raw = CIContext(options: [CIContextOption.workingColorSpace: NSNull(), CIContextOption.outputColorSpace: NSNull()])
        let image = CIImage(color: CIColor(red: 0.5, green: 0.5, blue: 0.5)).cropped(to: CGRect(x: 0, y: 0, width: 2, height: 2))
        let darker = image.applyingFilter("CIExposureAdjust", parameters: [kCIInputEVKey: -1])
        var a = [UInt8](repeating: 0, count: 4), b = [UInt8](repeating: 0, count: 4)
        managed.render(darker, toBitmap: &a, rowBytes: 4, bounds: CGRect(x: 0, y: 0, width: 1, height: 1), format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
        raw.render(darker, toBitmap: &b, rowBytes: 4, bounds: CGRect(x: 0, y: 0, width: 1, height: 1), format: .RGBA8, colorSpace: nil)
        // Linear light halves: sRGB(0.5 * linear(0.5)); unmanaged, the code itself halves.
        #expect(abs(Double(a[0]) - SRGB.fromLinear(0.5 * SRGB.toLinear(0.5)) * 255) <= 1, "\(a)")
        #expect(abs(Double(b[0]) - 0.25 * 255) <= 1, "\(b)")
    }
}
