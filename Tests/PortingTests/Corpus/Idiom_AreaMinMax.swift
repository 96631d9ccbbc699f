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

@Suite struct AreaBoundsRedIdiom {
    @Test func theBoxOfRedPixelsComesBackAsNumbers() throws {
        // A 3 x 2 red patch at (2, 1) in an 8 x 4 black image.
        let black = CIImage(color: .black).cropped(to: CGRect(x: 0, y: 0, width: 8, height: 4))
        let red = CIImage(color: CIColor(red: 1, green: 0, blue: 0)).cropped(to: CGRect(x: 2, y: 1, width: 3, height: 2))
        let filter = try #require(CIFilter(name: "CIAreaBoundsRed"))
        filter.setValue(red.composited(over: black), forKey: kCIInputImageKey)
        filter.setValue(CIVector(cgRect: black.extent), forKey: kCIInputExtentKey)
        let out = try #require(filter.outputImage)
        var box = [Float](repeating: -1, count: 4)
        CIContext().render(out, toBitmap: &box, rowBytes: 16, bounds: CGRect(x: 0, y: 0, width: 1, height: 1), format: .RGBAf, colorSpace: nil)
        // Oracle: (x, y, width, height) as fractions of the region: 2/8, 1/4, 3/8, 2/4. The
        // height sits in alpha: it must not unpremultiply the others.
        let want: [Float] = [0.25, 0.25, 0.375, 0.5]
        for i in 0..<4 { #expect(abs(box[i] - want[i]) < 1e-5, "\(box)") }
    }
}
