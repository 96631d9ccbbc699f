// What the kernel programs of the corpus share: pictures made from bytes and read back as
// bytes in a context without colour management, the way kernel authors check their maths.
import CoreImage

enum KernelCorpus {
    /// No colour management: kernels see the bytes / 255 and write them back unchanged.
    static let context = CIContext(options: [.workingColorSpace: NSNull(), .outputColorSpace: NSNull()])

    /// An opaque picture whose pixel at (x, row from the top) is `rgb(x, row)`.
    static func picture(width: Int, height: Int, _ rgb: (Int, Int) -> (UInt8, UInt8, UInt8)) -> CIImage {
        var bytes = [UInt8]()
        for row in 0..<height {
            for x in 0..<width {
                let (r, g, b) = rgb(x, row)
                bytes += [r, g, b, 255]
            }
        }
        return CIImage(
            bitmapData: Data(bytes), bytesPerRow: width * 4, size: CGSize(width: width, height: height), format: .RGBA8, colorSpace: nil)
    }

    /// RGBA bytes of `rect`, rows from the top.
    static func bytes(_ image: CIImage, _ rect: CGRect) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(rect.width) * Int(rect.height) * 4)
        context.render(image, toBitmap: &out, rowBytes: Int(rect.width) * 4, bounds: rect, format: .RGBA8, colorSpace: nil)
        return out
    }

    /// A value in 0...1 as the byte the renderer writes.
    static func byte(_ v: Double) -> Int { Int((min(max(v, 0), 1) * 255).rounded()) }
}
