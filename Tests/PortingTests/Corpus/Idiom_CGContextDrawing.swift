// Drawing with Core Graphics, then filtering with Core Image: a bitmap context's image as a CIImage.
import CoreImage
import Testing

private func badge(size: Int) -> CGImage? {
    guard
        let context = CGContext(
            data: nil, width: size, height: size, bitsPerComponent: 8, bytesPerRow: 0, space: CGColorSpaceCreateDeviceRGB(),
            bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue)
    else { return nil }
    context.setFillColor(red: 0, green: 0, blue: 1, alpha: 1)
    context.fill(CGRect(x: 0, y: 0, width: size, height: size))
    context.setFillColor(red: 1, green: 1, blue: 0, alpha: 1)
    context.fill(CGRect(x: 0, y: 0, width: size / 2, height: size / 2))
    return context.makeImage()
}

@Suite struct CGContextDrawingIdiom {
    @Test func theDrawnQuarterIsWhereCoreImageLooks() throws {
        let cgImage = try #require(badge(size: 8))
        let image = CIImage(cgImage: cgImage)
        #expect(image.extent == CGRect(x: 0, y: 0, width: 8, height: 8))
        let inverted = image.applyingFilter("CIColorInvert")
        var px = [UInt8](repeating: 0, count: 4)
        let context = CIContext()
        // Core Graphics and Core Image share a bottom-left origin: yellow there, inverted to blue.
        context.render(inverted, toBitmap: &px, rowBytes: 4, bounds: CGRect(x: 1, y: 1, width: 1, height: 1), format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
        #expect(px == [0, 0, 255, 255])
        context.render(inverted, toBitmap: &px, rowBytes: 4, bounds: CGRect(x: 6, y: 6, width: 1, height: 1), format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
        #expect(px == [255, 255, 0, 255])
    }
}
