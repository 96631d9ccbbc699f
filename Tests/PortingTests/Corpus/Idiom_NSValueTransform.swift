// Older code passes transforms to CIAffineTransform boxed in an NSValue.
import CoreImage
import Foundation
import Testing

@Suite struct NSValueTransformIdiom {
    @Test func anNSValueTransformScalesTheImage() throws {
        let image = CIImage(color: .green).cropped(to: CGRect(x: 0, y: 0, width: 10, height: 6))
        let filter = try #require(CIFilter(name: "CIAffineTransform"))
        filter.setValue(image, forKey: kCIInputImageKey)
        let transform = CGAffineTransform(scaleX: 2, y: 0.5)
        filter.setValue(NSValue(cgAffineTransform: transform), forKey: kCIInputTransformKey)
        let out = try #require(filter.outputImage)
        #expect(out.extent == CGRect(x: 0, y: 0, width: 20, height: 3))
        #expect(NSValue(cgAffineTransform: transform).cgAffineTransformValue == transform)
    }
}
