// Finding the darkest and brightest values (auto-levels): CIAreaMinMax read as two pixels.
import CoreImage
import CoreImage.CIFilterBuiltins
import Testing

@Suite struct AreaMinMaxIdiom {
    @Test func minimumLeftMaximumRight() throws {
        let dark = CIImage(color: CIColor(red: 0.1, green: 0.2, blue: 0.3)).cropped(to: CGRect(x: 0, y: 0, width: 3, height: 3))
        let light = CIImage(color: CIColor(red: 0.9, green: 0.7, blue: 0.5)).cropped(to: CGRect(x: 3, y: 0, width: 3, height: 3))
        let image = light.composited(over: dark)
        let filter = CIFilter.areaMinMax()
        filter.inputImage = image
        filter.extent = image.extent
        let out = try #require(filter.outputImage)
        var px = [Float](repeating: 0, count: 8)
        CIContext().render(out, toBitmap: &px, rowBytes: 32, bounds: CGRect(x: 0, y: 0, width: 2, height: 1), format: .RGBAf, colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
        let want: [Double] = [0.1, 0.2, 0.3, 1, 0.9, 0.7, 0.5, 1]
        for i in 0..<8 { #expect(abs(Double(px[i]) - want[i]) < 1e-3, "\(px)") }
    }
}
