import Foundation
import Testing
@testable import Instafilter

/// The vector blend loops against the per-channel scalar formulas.
@Suite struct BlendRowTests {
    @Test(arguments: CSSBlendMode.allCases)
    func vectorBlendsEqualScalarFormulas(mode: CSSBlendMode) {
        let steps: [Float] = [0, 0.1, 0.25, 0.3, 0.5, 0.5001, 0.7, 0.9, 1]
        var backdrop: [SIMD4<Float>] = [], fill: [SIMD4<Float>] = []
        for b in steps {
            for s in steps {
                backdrop.append(SIMD4(b, 1 - b, b * 0.5, 1))
                fill.append(SIMD4(s, s * s, 1 - s, 0.7 * s + 0.2))
            }
        }
        var vector = backdrop, scalar = backdrop
        var f1 = fill, f2 = fill
        vector.withUnsafeMutableBufferPointer { v in f1.withUnsafeMutableBufferPointer { blendRow(mode, v.baseAddress!, $0.baseAddress!, v.count) } }
        scalar.withUnsafeMutableBufferPointer { v in f2.withUnsafeMutableBufferPointer { blendRowScalar(mode, v.baseAddress!, $0.baseAddress!, v.count) } }
        for i in vector.indices {
            for k in 0..<4 { #expect(abs(vector[i][k] - scalar[i][k]) < 1e-6, "\(mode) backdrop \(backdrop[i]) fill \(fill[i]) lane \(k)") }
        }
    }
}
