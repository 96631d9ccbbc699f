// Selective colour: CIBlendWithMask keeps the input where the mask is white.
import CoreImage
import CoreImage.CIFilterBuiltins
import Testing

@Suite struct BlendWithMaskIdiom {
    @Test func theMaskChoosesBetweenTheImages() throws {
        let rect = CGRect(x: 0, y: 0, width: 8, height: 4)
        let colour = CIImage(color: CIColor(red: 1, green: 0, blue: 0)).cropped(to: rect)
        let grey = CIImage(color: CIColor(red: 0.5, green: 0.5, blue: 0.5)).cropped(to: rect)
        let mask = CIImage(color: .white).cropped(to: CGRect(x: 0, y: 0, width: 4, height: 4))
            .composited(over: CIImage(color: .black).cropped(to: rect))
        let blend = CIFilter.blendWithMask()
        blend.inputImage = colour
        blend.backgroundImage = grey
        blend.maskImage = mask
        let out = try #require(blend.outputImage)
        var px = [UInt8](repeating: 0, count: 8 * 4)
        CIContext().render(out, toBitmap: &px, rowBytes: 32, bounds: CGRect(x: 0, y: 0, width: 8, height: 1), format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
        #expect(Array(px[0..<4]) == [255, 0, 0, 255])
        // 0.5 in sRGB is code 127.5: either neighbour.
        #expect(px[28...30].allSatisfy { (127...128).contains($0) } && px[31] == 255, "\(px[28..<32])")
    }
}
