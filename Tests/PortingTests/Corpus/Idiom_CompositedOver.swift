// Layering with composited(over:): a translucent overlay on a photo, as watermarking code does.
import CoreImage
import Testing

extension CIImage {
    /// A colour wash of `color` at `opacity` over the whole image.
    fileprivate func tinted(_ color: CIColor, opacity: CGFloat) -> CIImage {
        let overlay = CIImage(color: CIColor(red: color.red, green: color.green, blue: color.blue, alpha: opacity))
            .cropped(to: extent)
        return overlay.composited(over: self)
    }
}

@Suite struct CompositedOverIdiom {
    @Test func halfRedOverBlueMixesInLinearLight() {
        let blue = CIImage(color: CIColor(red: 0, green: 0, blue: 1)).cropped(to: CGRect(x: 0, y: 0, width: 4, height: 4))
        let out = blue.tinted(CIColor(red: 1, green: 0, blue: 0), opacity: 0.5)
        #expect(out.extent == blue.extent)
        var px = [UInt8](repeating: 0, count: 4)
        CIContext().render(out, toBitmap: &px, rowBytes: 4, bounds: CGRect(x: 1, y: 1, width: 1, height: 1), format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
        // Source over, premultiplied: 0.5 * red + (1 - 0.5) * blue; sRGB colours are linear 0 or 1.
        let half = SRGB.fromLinear(0.5) * 255
        #expect(abs(Double(px[0]) - half) <= 1 && px[1] == 0 && abs(Double(px[2]) - half) <= 1 && px[3] == 255, "\(px)")
    }
}
