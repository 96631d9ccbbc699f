// A "swap red and blue" look as a colour cube built from data (CIColorCube by name).
import CoreImage
import Foundation
import Testing

private func swapRedBlueCube(size: Int) -> Data {
    var values = [Float]()
    for b in 0..<size {
        for g in 0..<size {
            for r in 0..<size {
                let scale = Float(size - 1)
                values.append(contentsOf: [Float(b) / scale, Float(g) / scale, Float(r) / scale, 1])
            }
        }
    }
    return values.withUnsafeBufferPointer { Data(buffer: $0) }
}

@Suite struct ColorCubeFromDataIdiom {
    @Test func redAndBlueTradePlaces() throws {
        let size = 16
        let filter = try #require(CIFilter(name: "CIColorCube"))
        filter.setValue(size, forKey: "inputCubeDimension")
        filter.setValue(swapRedBlueCube(size: size), forKey: "inputCubeData")
        filter.setValue(CIImage(color: CIColor(red: 0.8, green: 0.4, blue: 0.1)).cropped(to: CGRect(x: 0, y: 0, width: 2, height: 2)), forKey: kCIInputImageKey)
        let out = try #require(filter.outputImage)
        var px = [Float](repeating: 0, count: 4)
        // Read in the working space (linear): a cube that is linear in each axis maps exactly.
        CIContext().render(
            out, toBitmap: &px, rowBytes: 16, bounds: CGRect(x: 0, y: 0, width: 1, height: 1), format: .RGBAf, colorSpace: CGColorSpace(name: CGColorSpace.linearSRGB))
        let want = [SRGB.toLinear(0.1), SRGB.toLinear(0.4), SRGB.toLinear(0.8), 1]
        for i in 0..<4 { #expect(abs(Double(px[i]) - want[i]) < 1e-4, "\(px) vs \(want)") }
    }
}
