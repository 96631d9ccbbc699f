// Rendering to a CGImage and reading its bytes through its data provider.
import CoreImage
import Foundation
import Testing

private func bytes(of cgImage: CGImage) -> [UInt8]? {
    guard let data = cgImage.dataProvider?.data else { return nil }
    let length = CFDataGetLength(data)
    let pointer: UnsafePointer<UInt8> = CFDataGetBytePtr(data)
    return Array(UnsafeBufferPointer(start: pointer, count: length))
}

@Suite struct CreateCGImageIdiom {
    @Test func theCGImageHoldsTheRenderedPixels() throws {
        let image = CIImage(color: CIColor(red: 1, green: 0.5, blue: 0)).cropped(to: CGRect(x: 0, y: 0, width: 3, height: 2))
        let context = CIContext()
        let cgImage = try #require(context.createCGImage(image, from: image.extent))
        #expect(cgImage.width == 3 && cgImage.height == 2)
        #expect(cgImage.bitsPerComponent == 8 && cgImage.bitsPerPixel == 32)
        let raw = try #require(bytes(of: cgImage))
        #expect(raw.count >= cgImage.bytesPerRow * 2)
        // sRGB in, sRGB out: the components come back (0.5 is code 127.5: either neighbour).
        #expect(raw[0] == 255 && (127...128).contains(raw[1]) && raw[2] == 0 && raw[3] == 255, "\(raw[0..<4])")
    }
}
