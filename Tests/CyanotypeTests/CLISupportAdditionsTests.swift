import Foundation
import Testing
@testable import Cyanotype

/// Library additions made for the command line (#13): the mirror extension and LUT layout
/// inference.
@Suite struct MirrorAndLayoutTests {
    /// Reflection about the edges, from the definition: period 2n, edge pixel repeated once.
    func reflect(_ v: Int, _ n: Int) -> Int {
        var m = v % (2 * n)
        if m < 0 { m += 2 * n }
        return m < n ? m : 2 * n - 1 - m
    }

    @Test func mirrorRepeatsTheImageReflected() throws {
        let (w, h) = (5, 3)
        let px = testPixels(width: w, height: h)
        let img = image(px, w, h)
        let mirrored = img.mirroredToExtent()
        #expect(mirrored.extent.isInfinite)
        // A window three times the image, straddling every edge and corner.
        let window = CGRect(x: -7, y: -4, width: 3 * w + 2, height: 3 * h + 1)
        let out = try render8(mirrored, window)
        let ww = Int(window.width), wh = Int(window.height)
        for row in 0..<wh {
            for col in 0..<ww {
                // Core Image y runs up: the window's top row is y = maxY - 1.
                let x = Int(window.minX) + col, y = Int(window.maxY) - 1 - row
                let sx = reflect(x, w), sy = reflect(y, h)
                let srcRow = h - 1 - sy
                for c in 0..<4 {
                    #expect(out[4 * (row * ww + col) + c] == px[4 * (srcRow * w + sx) + c], "(\(x), \(y)) channel \(c)")
                }
            }
        }
        // Inside the extent it is the image itself; a blur over it keeps the image opaque.
        #expect(try render8(mirrored, img.extent) == render8(img, img.extent))
        let blurred = mirrored.applyingGaussianBlur(sigma: 3).cropped(to: img.extent)
        let b = try render8(blurred, img.extent)
        #expect(stride(from: 3, to: b.count, by: 4).allSatisfy { b[$0] == 255 })
    }

    @Test func squareLUTImagesAreToldApartBySmoothness() throws {
        let graded = try LUT.make(size: 16) { v in SIMD3(v.x * v.x, 0.5 * v.y + 0.25, 1 - v.z) }
        for layout in [LUTImageLayout.tiles, .hald] {
            let png = try graded.pngData(layout: layout, bitDepth: 16)
            #expect(LUT.possibleLayouts(width: 64, height: 64) == [.tiles, .hald])
            let inference = try LUT.inferLayout(imageData: png)
            #expect(inference.layout == layout && inference.candidates.first == layout)
            #expect(inference.roughness[0] * 4 < inference.roughness[1], "\(inference)")
        }
        // A strip's size fits one layout: nothing to infer.
        let strip = try graded.pngData(layout: .horizontalStrip)
        #expect(try LUT.inferLayout(imageData: strip).layout == .horizontalStrip)
        // Noise is rough every way: no answer.
        var state: UInt32 = 12345
        let noise = try LUT.make(size: 4) { _ in
            state = state &* 1_103_515_245 &+ 12345
            return SIMD3(Float(state >> 16 & 255) / 255, Float(state >> 8 & 255) / 255, Float(state & 255) / 255)
        }
        #expect(try LUT.inferLayout(imageData: noise.pngData(layout: .tiles)).layout == nil)
    }
}
