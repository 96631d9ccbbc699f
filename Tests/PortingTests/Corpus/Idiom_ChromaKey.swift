// Apple's documented chroma-key recipe ("Applying a Chroma Key Effect"): a colour cube whose
// cells in a hue band get alpha 0 (premultiplied), applied with CIColorCubeWithColorSpace, then
// the keyed foreground composited over a new background.
import CoreImage
import CoreImage.CIFilterBuiltins
import Foundation
import Testing

/// Hue in 0...1 of an RGB colour (the HSV hexcone).
private func hue(red: Float, green: Float, blue: Float) -> Float {
    let maxV = max(red, green, blue), minV = min(red, green, blue)
    let delta = maxV - minV
    guard delta > 0 else { return 0 }
    var h: Float
    if maxV == red {
        h = (green - blue) / delta
    } else if maxV == green {
        h = 2 + (blue - red) / delta
    } else {
        h = 4 + (red - green) / delta
    }
    h /= 6
    return h < 0 ? h + 1 : h
}

/// The chroma-key cube: colours whose hue lies in `fromHue...toHue` become clear.
private func chromaKeyFilter(fromHue: Float, toHue: Float) -> CIFilter {
    let size = 64
    var cube = [Float]()
    cube.reserveCapacity(size * size * size * 4)
    for z in 0..<size {
        let blue = Float(z) / Float(size - 1)
        for y in 0..<size {
            let green = Float(y) / Float(size - 1)
            for x in 0..<size {
                let red = Float(x) / Float(size - 1)
                let h = hue(red: red, green: green, blue: blue)
                let alpha: Float = (h >= fromHue && h <= toHue) ? 0 : 1
                cube += [red * alpha, green * alpha, blue * alpha, alpha]
            }
        }
    }
    let data = cube.withUnsafeBufferPointer { Data(buffer: $0) }
    let filter = CIFilter.colorCubeWithColorSpace()
    filter.cubeDimension = Float(size)
    filter.cubeData = data
    filter.colorSpace = CGColorSpace(name: CGColorSpace.sRGB)!
    return filter
}

@Suite struct ChromaKeyIdiom {
    @Test func greenScreenBecomesTransparentAndShowsTheBackground() throws {
        let green = CIImage(color: CIColor(red: 0, green: 1, blue: 0)).cropped(to: CGRect(x: 0, y: 0, width: 4, height: 4))
        let red = CIImage(color: CIColor(red: 1, green: 0, blue: 0)).cropped(to: CGRect(x: 4, y: 0, width: 4, height: 4))
        let foreground = red.composited(over: green)

        let key = chromaKeyFilter(fromHue: 0.3, toHue: 0.4)  // pure green's hue is 1/3
        key.setValue(foreground, forKey: kCIInputImageKey)
        let keyed = try #require(key.outputImage)

        let context = CIContext()
        var bytes = [UInt8](repeating: 7, count: 8 * 4)
        context.render(keyed, toBitmap: &bytes, rowBytes: 8 * 4, bounds: CGRect(x: 0, y: 0, width: 8, height: 1), format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
        // The cube's alpha applies: the green half is clear (premultiplied zeros), red is opaque red.
        #expect(Array(bytes[0..<4]) == [0, 0, 0, 0])
        #expect(Array(bytes[16..<20]) == [255, 0, 0, 255])

        let background = CIImage(color: CIColor(red: 0, green: 0, blue: 1)).cropped(to: foreground.extent)
        let composite = CIFilter.sourceOverCompositing()
        composite.inputImage = keyed
        composite.backgroundImage = background
        let out = try #require(composite.outputImage)
        context.render(out, toBitmap: &bytes, rowBytes: 8 * 4, bounds: CGRect(x: 0, y: 0, width: 8, height: 1), format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
        #expect(Array(bytes[0..<4]) == [0, 0, 255, 255])
        #expect(Array(bytes[28..<32]) == [255, 0, 0, 255])
    }
}
