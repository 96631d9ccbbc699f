// A filter chain by name with applyingFilter(_:parameters:) and kCIInput...Key constants.
import CoreImage
import Testing

@Suite struct FilterChainByNameIdiom {
    @Test func exposureThenAColorMatrix() {
        let input = CIImage(color: CIColor(red: 0.5, green: 0.25, blue: 0.75)).cropped(to: CGRect(x: 0, y: 0, width: 8, height: 8))
        let output =
            input
            .applyingFilter("CIExposureAdjust", parameters: [kCIInputEVKey: 1.0])
            .applyingFilter(
                "CIColorMatrix",
                parameters: [
                    "inputRVector": CIVector(x: 0, y: 1, z: 0, w: 0), "inputGVector": CIVector(x: 1, y: 0, z: 0, w: 0),
                    "inputBVector": CIVector(x: 0, y: 0, z: 0.5, w: 0), "inputAVector": CIVector(x: 0, y: 0, z: 0, w: 1),
                    "inputBiasVector": CIVector(x: 0, y: 0, z: 0, w: 0),
                ])
        var px = [Float](repeating: 0, count: 4)
        CIContext().render(
            output, toBitmap: &px, rowBytes: 16, bounds: CGRect(x: 3, y: 3, width: 1, height: 1), format: .RGBAf, colorSpace: CGColorSpace(name: CGColorSpace.linearSRGB))
        // Oracle in linear light: exposure doubles (2^EV), then red and green swap and blue halves.
        let r = 2 * SRGB.toLinear(0.5), g = 2 * SRGB.toLinear(0.25), b = 2 * SRGB.toLinear(0.75)
        let want = [g, r, 0.5 * b, 1]
        for i in 0..<4 { #expect(abs(Double(px[i]) - want[i]) < 1e-4, "\(px) vs \(want)") }
    }
}
