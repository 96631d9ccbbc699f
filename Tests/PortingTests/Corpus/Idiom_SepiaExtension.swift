// A UIImage-free filter helper in the style of photo-editing tutorials: an extension that
// applies a named filter with an intensity and falls back to the input on failure.
import CoreImage
import Testing

extension CIImage {
    fileprivate func applying(_ name: String, intensity: Double) -> CIImage {
        guard let filter = CIFilter(name: name) else { return self }
        filter.setDefaults()
        filter.setValue(self, forKey: kCIInputImageKey)
        if filter.inputKeys.contains(kCIInputIntensityKey) { filter.setValue(intensity, forKey: kCIInputIntensityKey) }
        return filter.outputImage ?? self
    }
}

@Suite struct SepiaExtensionIdiom {
    @Test func zeroIntensityLeavesThePictureAndUnknownFiltersFallBack() {
        let image = CIImage(color: CIColor(red: 0.2, green: 0.4, blue: 0.6)).cropped(to: CGRect(x: 0, y: 0, width: 2, height: 2))
        let context = CIContext()
        var plain = [UInt8](repeating: 0, count: 4), toned = [UInt8](repeating: 0, count: 4), full = [UInt8](repeating: 0, count: 4)
        let sRGB = CGColorSpace(name: CGColorSpace.sRGB)
        context.render(image, toBitmap: &plain, rowBytes: 4, bounds: CGRect(x: 0, y: 0, width: 1, height: 1), format: .RGBA8, colorSpace: sRGB)
        context.render(
            image.applying("CISepiaTone", intensity: 0), toBitmap: &toned, rowBytes: 4, bounds: CGRect(x: 0, y: 0, width: 1, height: 1), format: .RGBA8, colorSpace: sRGB)
        context.render(image.applying("CISepiaTone", intensity: 1), toBitmap: &full, rowBytes: 4, bounds: CGRect(x: 0, y: 0, width: 1, height: 1), format: .RGBA8, colorSpace: sRGB)
        // Oracle: intensity 0 mixes none of the effect in; the input was (51, 102, 153).
        #expect(plain == [51, 102, 153, 255])
        for i in 0..<3 { #expect(abs(Int(toned[i]) - Int(plain[i])) <= 1) }
        // Full sepia is warm: red above blue.
        #expect(full[0] > full[2])
        #expect(image.applying("CINoSuchFilter", intensity: 1) === image)
    }
}
