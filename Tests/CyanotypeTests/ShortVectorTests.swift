import Cyanotype
import Foundation
import Testing

/// The library follows Core Image for a vector shorter than an input needs: missing
/// components read as 0 (`CIVector.value(at:)` returns 0 past its count); the command line
/// refuses such a vector instead (issue #24, CyanotypeCLITests' ColorOutput).
@Suite struct ShortVectorTests {
    @Test func missingComponentsReadAsZero() throws {
        #expect(CIVector(x: 1).value(at: 3) == 0)
        let source = CIImage(color: CIColor(red: 0.8, green: 0.3, blue: 0.2)).cropped(to: CGRect(x: 0, y: 0, width: 2, height: 2))
        // gVector [1] is [1 0 0 0]: green' = red (formula; the red is well above the blue).
        let out = source.applyingFilter("CIColorMatrix", parameters: ["inputGVector": CIVector(x: 1)])
        var px = [Float](repeating: 0, count: 4)
        CIContext(options: [.workingColorSpace: NSNull()]).render(
            out, toBitmap: &px, rowBytes: 16, bounds: CGRect(x: 0, y: 0, width: 1, height: 1), format: .RGBAf, colorSpace: nil)
        #expect(abs(px[1] - px[0]) < 1e-6 && px[0] > px[2] + 0.3, "green is red's value: \(px)")
    }
}
