import Cyanotype
import Foundation
@testable import Instafilter

let sRGB = CGColorSpace(name: CGColorSpace.sRGB)!

/// A w x h opaque sRGB test card (top row first): ramps and mixtures across the gamut, with
/// black and white corners.
func testCard(width w: Int = 32, height h: Int = 24) -> (image: CIImage, bytes: [UInt8]) {
    var b = [UInt8](repeating: 255, count: w * h * 4)
    for y in 0..<h {
        for x in 0..<w {
            let i = (y * w + x) * 4
            b[i] = UInt8((x * 255) / max(1, w - 1))
            b[i + 1] = UInt8((y * 255) / max(1, h - 1))
            b[i + 2] = UInt8(((x * 7 + y * 13) * 5) % 256)
        }
    }
    for i in [0, (w - 1) * 4] { b[i] = 0; b[i + 1] = 0; b[i + 2] = 0 }
    let last = ((h - 1) * w + w - 1) * 4
    b[last] = 255; b[last + 1] = 255; b[last + 2] = 255
    let img = CIImage(bitmapData: Data(b), bytesPerRow: w * 4, size: CGSize(width: w, height: h), format: .RGBA8, colorSpace: sRGB)
    return (img, b)
}

/// A smooth midtone image (for grain and resampling checks).
func smoothCard(width w: Int, height h: Int) -> CIImage {
    var b = [UInt8](repeating: 255, count: w * h * 4)
    for y in 0..<h {
        for x in 0..<w {
            let i = (y * w + x) * 4
            b[i] = UInt8(60 + (x * 120) / w); b[i + 1] = UInt8(70 + (y * 110) / h); b[i + 2] = UInt8(90 + ((x + y) * 60) / (w + h))
        }
    }
    return CIImage(bitmapData: Data(b), bytesPerRow: w * 4, size: CGSize(width: w, height: h), format: .RGBA8, colorSpace: sRGB)
}

/// 8-bit straight sRGB RGBA of `image`'s extent, top row first.
func pixels(_ image: CIImage, context: CIContext = Renderer.shared.context) throws -> [UInt8] {
    let r = try context.renderToData(image, from: image.extent, format: .RGBA8, colorSpace: sRGB, premultiplied: false)
    return [UInt8](r.data)
}

func maxDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
    zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
}
