import Foundation
import Testing
@testable import Cyanotype

/// The vectorised pow used by colour stages, against Foundation's `pow`.
@Suite struct FastMathTests {
    @Test(arguments: [0.4545, 1.0 / 2.4, 1.1, 2.2, 2.4, 0.6, 3.7])
    func powMatchesLibm(power: Double) {
        var worst = 0.0, worstInUnit = 0.0
        var x = 1e-6
        while x < 40 {
            let v = SIMD4<Float>(Float(x), Float(x * 1.37), Float(-x), 0)
            let r = fastSignedPow(v, Float(power))
            for k in 0..<3 {
                let input = Double(v[k])
                let exact = input < 0 ? -pow(-input, power) : pow(input, power)
                let rel = abs(Double(r[k]) - exact) / max(abs(exact), 1e-30)
                worst = max(worst, rel)
                if abs(input) <= 1 { worstInUnit = max(worstInUnit, rel) }
            }
            #expect(r[3] == 0)
            x *= 1.013
        }
        // Pixel values live in [0, 1]: there the error is far below 16-bit quantisation.
        #expect(worstInUnit < 1e-5, "worst relative error in [0, 1]: \(worstInUnit)")
        #expect(worst < 1e-5, "worst relative error up to 40^p: \(worst)")
    }

    @Test func edgeCasesStayFinite() {
        let r = fastSignedPow(SIMD4<Float>(0, .nan, .infinity, Float.leastNonzeroMagnitude), 2.2)
        #expect(r[0] == 0 && r[1] == 0 && r[3] == 0)
        #expect(r[2] > 1e30)   // pow(inf) is huge, as libm's; writers clamp it
    }
}
