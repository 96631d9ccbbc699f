// The typed builtins of CoreImage.CIFilterBuiltins: CIFilter.exposureAdjust() and friends.
import CoreImage
import CoreImage.CIFilterBuiltins
import Testing

private func brighten(_ image: CIImage, stops: Float) -> CIImage? {
    let exposure = CIFilter.exposureAdjust()
    exposure.inputImage = image
    exposure.ev = stops
    let invert = CIFilter.colorInvert()
    invert.inputImage = exposure.outputImage
    return invert.outputImage
}

@Suite struct TypedBuiltinsIdiom {
    @Test func exposureThenInvert() throws {
        let image = CIImage(color: CIColor(red: 0.2, green: 0.3, blue: 0.4)).cropped(to: CGRect(x: 0, y: 0, width: 2, height: 2))
        let out = try #require(brighten(image, stops: -1))
        var px = [UInt8](repeating: 0, count: 4)
        CIContext().render(out, toBitmap: &px, rowBytes: 4, bounds: CGRect(x: 0, y: 0, width: 1, height: 1), format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
        for (i, v) in [0.2, 0.3, 0.4].enumerated() {
            let want = SRGB.fromLinear(1 - 0.5 * SRGB.toLinear(v)) * 255
            #expect(abs(Double(px[i]) - want) <= 1, "\(px[i]) vs \(want)")
        }
    }
}
