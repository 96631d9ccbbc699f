import Foundation
import Testing
@testable import Cyanotype

@Suite struct AutomaticToneTests {
    /// A bimodal image: left half dark, right half bright, a little spread in each.
    func bimodal() -> CIImage {
        var px = [UInt8](repeating: 255, count: 16 * 4 * 4)
        for y in 0..<4 {
            for x in 0..<16 {
                let v: UInt8 = x < 8 ? UInt8(30 + x * 2) : UInt8(200 + x)
                let i = (y * 16 + x) * 4
                px[i] = v; px[i + 1] = v; px[i + 2] = v
            }
        }
        return image(px, 16, 4)
    }

    @Test func otsuSplitsTheTwoClasses() throws {
        let out = bimodal().applyingFilter("CIColorThresholdOtsu")
        let px = try render8(out, CGRect(x: 0, y: 0, width: 16, height: 4))
        for x in 0..<16 { #expect(px[x * 4] == (x < 8 ? 0 : 255), "x=\(x)") }
        // The threshold itself lies between the classes' luma values.
        let block = PixelBlock(rect: PixelRect(x: 0, y: 0, width: 2, height: 1))
        block.pixels[0] = SIMD4(repeating: 0.2); block.pixels[0].w = 1
        block.pixels[1] = SIMD4(repeating: 0.7); block.pixels[1].w = 1
        let t = otsuThreshold(block)
        #expect(t > 0.2 && t <= 0.7)
        #expect(CIFilter(name: "CIColorThresholdOtsu", parameters: [kCIInputImageKey: CIImage(color: .red)])?.outputImage == nil)
    }

    @Test func headroomMapsSourceToTargetAndKeepsShadows() throws {
        let values: [Float] = [0.1, 0.5, 0.74, 1.5, 3.0, 4.0, 6.0]
        let f = HeadroomStage(source: 4, target: 1)
        let row = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: values.count)
        defer { row.deallocate() }
        for (i, v) in values.enumerated() { row[i] = SIMD4(v, v * 0.5, 0, 1) }
        let dummy = UnsafeMutablePointer<UnsafeMutablePointer<SIMD4<Float>>>.allocate(capacity: 1)
        defer { dummy.deallocate() }
        f.run(row, extra: UnsafePointer(dummy), count: values.count, x: 0, y: 0)
        #expect(row[0].x == 0.1 && row[1].x == 0.5 && row[2].x == 0.74)  // below the knee: unchanged
        #expect(abs(row[5].x - 1) < 1e-5)  // source headroom -> target
        #expect(abs(row[5].y - 0.5) < 1e-5)  // channels scale together
        #expect(row[3].x < row[4].x && row[4].x < row[5].x && row[6].x <= 1.00001)
        // Source at or below target: identity.
        let img = image(testPixels(width: 4, height: 4), 4, 4)
        let same = img.applyingFilter("CIToneMapHeadroom", parameters: ["inputSourceHeadroom": 1, "inputTargetHeadroom": 2])
        #expect(try render8(same, img.extent) == render8(img, img.extent))
    }
}
