// A fade for captions: CILinearGradient between two colours, composited over a picture.
import CoreImage
import CoreImage.CIFilterBuiltins
import Testing

@Suite struct LinearGradientIdiom {
    @Test func theEndsHaveTheEndColoursAndTheMiddleIsBetween() throws {
        let gradient = CIFilter.linearGradient()
        gradient.point0 = CGPoint(x: 0, y: 0)
        gradient.point1 = CGPoint(x: 100, y: 0)
        gradient.color0 = CIColor(red: 0, green: 0, blue: 0)
        gradient.color1 = CIColor(red: 1, green: 1, blue: 1)
        let image = try #require(gradient.outputImage).cropped(to: CGRect(x: 0, y: 0, width: 101, height: 1))
        var row = [Float](repeating: 0, count: 101 * 4)
        CIContext().render(image, toBitmap: &row, rowBytes: 101 * 16, bounds: image.extent, format: .RGBAf, colorSpace: CGColorSpace(name: CGColorSpace.linearSRGB))
        // Oracle: linear interpolation in the working space, t = (x + 0.5) / 100 at pixel centres, clamped.
        for x in [0, 25, 50, 99] {
            let t = min(1, (Double(x) + 0.5) / 100)
            #expect(abs(Double(row[x * 4]) - t) < 0.01, "x \(x): \(row[x * 4]) vs \(t)")
        }
        #expect(row[100 * 4] == 1 && row[100 * 4 + 3] == 1)
    }
}
