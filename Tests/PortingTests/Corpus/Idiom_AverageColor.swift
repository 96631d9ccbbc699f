// The "average colour of an image" helper found in countless apps: CIAreaAverage, a 1x1 bitmap.
import CoreImage
import Testing

extension CIImage {
    /// The mean colour as RGBA bytes, the way most helpers write it.
    fileprivate func averageColor(context: CIContext) -> [UInt8]? {
        let extentVector = CIVector(x: extent.origin.x, y: extent.origin.y, z: extent.size.width, w: extent.size.height)
        guard let filter = CIFilter(name: "CIAreaAverage", parameters: [kCIInputImageKey: self, kCIInputExtentKey: extentVector]),
            let outputImage = filter.outputImage
        else { return nil }
        var bitmap = [UInt8](repeating: 0, count: 4)
        context.render(outputImage, toBitmap: &bitmap, rowBytes: 4, bounds: CGRect(x: 0, y: 0, width: 1, height: 1), format: .RGBA8, colorSpace: nil)
        return bitmap
    }
}

@Suite struct AverageColorIdiom {
    let picture: CIImage = {
        let black = CIImage(color: .black).cropped(to: CGRect(x: 0, y: 0, width: 10, height: 10))
        let white = CIImage(color: .white).cropped(to: CGRect(x: 10, y: 0, width: 10, height: 10))
        return white.composited(over: black)
    }()

    @Test func theDefaultContextAveragesLinearLight() throws {
        let rgba = try #require(picture.averageColor(context: CIContext()))
        // Linear mean 0.5, encoded with the sRGB curve for the output (nil: the context's space).
        let expected = SRGB.fromLinear(0.5) * 255
        for c in 0..<3 { #expect(abs(Double(rgba[c]) - expected) <= 1, "\(rgba[c]) vs \(expected)") }
        #expect(rgba[3] == 255)
    }

    @Test func aContextWithoutColorManagementAveragesTheCodes() throws {
        let rgba = try #require(picture.averageColor(context: CIContext(options: [.workingColorSpace: kCFNull!])))
        for c in 0..<3 { #expect((127...128).contains(rgba[c]), "\(rgba[c])") }
        #expect(rgba[3] == 255)
    }
}
