// The blur that does not fade at the edges: clampedToExtent, blur, crop back.
import CoreImage
import Testing

extension CIImage {
    fileprivate func blurredKeepingEdges(radius: Double) -> CIImage {
        clampedToExtent().applyingGaussianBlur(sigma: radius).cropped(to: extent)
    }
}

@Suite struct ClampBlurCropIdiom {
    @Test func aFlatImageKeepsItsColourUpToTheEdge() {
        let flat = CIImage(color: CIColor(red: 0.3, green: 0.6, blue: 0.9)).cropped(to: CGRect(x: 0, y: 0, width: 32, height: 24))
        let out = flat.blurredKeepingEdges(radius: 6)
        #expect(out.extent == flat.extent)
        var edge = [UInt8](repeating: 0, count: 4), centre = [UInt8](repeating: 0, count: 4)
        let context = CIContext()
        let sRGB = CGColorSpace(name: CGColorSpace.sRGB)
        context.render(out, toBitmap: &edge, rowBytes: 4, bounds: CGRect(x: 0, y: 0, width: 1, height: 1), format: .RGBA8, colorSpace: sRGB)
        context.render(out, toBitmap: &centre, rowBytes: 4, bounds: CGRect(x: 16, y: 12, width: 1, height: 1), format: .RGBA8, colorSpace: sRGB)
        // Oracle: a weighted mean of one colour is that colour (opaque, no grey border).
        for (i, v) in [0.3, 0.6, 0.9].enumerated() {
            #expect(abs(Double(edge[i]) - v * 255) <= 1, "edge \(edge)")
            #expect(abs(Double(centre[i]) - v * 255) <= 1, "centre \(centre)")
        }
        #expect(edge[3] == 255)
    }
}
