import Foundation
import Testing
@testable import Cyanotype

/// The vectorised log2/exp2/pow and the x^p table used by colour stages, against Foundation's
/// `log2`/`exp2`/`pow` in Double.
@Suite struct FastMathTests {
    /// Relative error of `got` against `exact`, for exact values a Float can hold as a normal.
    static func relative(_ got: Float, _ exact: Double) -> Double {
        abs(Double(got) - exact) / abs(exact)
    }

    @Test func log2HasAbsoluteErrorBelow2e7NearOne() {
        var worst = 0.0
        var x: Float = Float.leastNormalMagnitude
        while x < Float.greatestFiniteMagnitude / 2 {
            let v = SIMD4<Float>(x, x * 1.1, x.nextUp, x * 1.9)
            let r = fastLog2(v)
            for k in 0..<4 { worst = max(worst, abs(Double(r[k]) - log2(Double(v[k])))) }
            x *= 1.0213
        }
        // log2 near 1 is the hard case for an absolute bound: check it densely.
        for i in 0..<20_000 {
            let v = Float(0.7) + Float(i) * 0.00003
            worst = max(worst, abs(Double(fastLog2(SIMD4(repeating: v))[0]) - log2(Double(v))))
        }
        // The float result itself rounds to half an ulp of values up to 128 (3.8e-6).
        #expect(worst < 8e-6, "worst absolute error \(worst)")
        var worstNearOne = 0.0
        for i in 0..<20_000 {
            let v = Float(0.5) + Float(i) * 0.00005
            worstNearOne = max(worstNearOne, abs(Double(fastLog2(SIMD4(repeating: v))[0]) - log2(Double(v))))
        }
        #expect(worstNearOne < 2e-7, "worst absolute error for x in [0.5, 1.5]: \(worstNearOne)")
    }

    @Test func exp2HasRelativeErrorBelow3e7AndSaturates() {
        var worst = 0.0
        var y: Float = -126
        while y < 127.4 {
            let v = SIMD4<Float>(y, y + 0.25, y + 0.5, y + 0.75)
            let r = fastExp2(v)
            for k in 0..<4 where v[k] < 127.4 { worst = max(worst, Self.relative(r[k], exp2(Double(v[k])))) }
            y += 0.0137
        }
        #expect(worst < 3e-7, "worst relative error \(worst)")
        let s = fastExp2(SIMD4<Float>(-127, -1000, 200, 1e30))
        #expect(s[0] == 0 && s[1] == 0)
        #expect(s[2].isFinite && s[2] > 1e38 && s[3].isFinite && s[3] > 1e38)
    }

    @Test(arguments: [0.4545, 1.0 / 2.4, 1.1, 2.2, 2.4, 0.6, 3.7, 0.9, 0.05, 2, 8, 40])
    func powMatchesLibm(power requested: Double) {
        let power = Double(Float(requested))  // the power the code sees
        var worst = 0.0, worstInUnit = 0.0
        var x = 1.001e-30  // at and below 1e-30 the result is 0 by design
        while x < 1e30 {
            let v = SIMD4<Float>(Float(x), Float(x * 1.37), Float(-x), 0)
            let r = fastSignedPow(v, Float(power))
            for k in 0..<3 {
                let input = Double(v[k])
                let exact = input < 0 ? -pow(-input, power) : pow(input, power)
                // Results a Float holds as a normal, away from the saturation at 2^127.5.
                guard abs(exact) > 1e-37, abs(exact) < 1e38 else { continue }
                let rel = Self.relative(r[k], exact)
                worst = max(worst, rel)
                if abs(input) <= 1 && abs(input) >= 1e-6 { worstInUnit = max(worstInUnit, rel) }
            }
            #expect(r[3] == 0)
            x *= 1.013
        }
        // Pixel values live in [0, 1]: there the error is far below 16-bit quantisation.
        // The error grows with p beyond 5 (p times log2's): 4e-6 at p = 40.
        let bound = 5e-7 * max(1, power / 5)
        #expect(worstInUnit < bound, "worst relative error in [1e-6, 1]: \(worstInUnit)")
        #expect(worst < bound, "worst relative error over the float range: \(worst)")
        // White stays exactly white, and 2^n is exact.
        let one = fastSignedPow(SIMD4<Float>(1, -1, 2, 0.5), Float(requested))
        #expect(one[0] == 1 && one[1] == -1)
        if requested == 2 || requested == 8 { #expect(one[2] == Float(pow(2, power)) && one[3] == Float(pow(0.5, power))) }
    }

    @Test func edgeCasesStayFinite() {
        let r = fastSignedPow(SIMD4<Float>(0, .nan, .infinity, Float.leastNonzeroMagnitude), 2.2)
        #expect(r[0] == 0 && r[1] == 0 && r[3] == 0)
        #expect(r[2] > 1e30 && r[2].isFinite)  // pow(inf) is huge, as libm's; writers clamp it
        let n = fastSignedPow(SIMD4<Float>(-0.0, -.infinity, -Float.nan, 1e-31), 0.5)
        #expect(n[0] == 0 && n[0].sign == .minus)
        #expect(n[1] == -Float(pow(2.0, 64)))  // 2^(128 p)
        #expect(n[2] == 0 && n[3] == 0)
    }

    /// x^p through the table the way `GammaStage` reads it (index by the bits of |x|, the
    /// quadratic in the position within the cell, sign put back).
    static func lookup(_ t: PowerTable, _ x: Float) -> Float? {
        let bits = x.bitPattern & 0x7FFF_FFFF
        let j = Int(bits >> UInt32(23 - t.k))
        guard j < t.count else { return nil }
        let u = Float(bitPattern: ((bits << UInt32(t.k)) & 0x007F_FFFF) | 0x3F80_0000) - 1
        let c = t.cells[j]
        let m = c.x + u * (c.y + u * c.z)
        return x.sign == .minus ? -m : m
    }

    @Test(arguments: [0.9, 0.4545, 1.0 / 2.4, 2.2, 2.4, 3.7, 0.6, 1.1, 0.05, 2, 5, 7])
    func powerTableHasRelativeErrorBelow5e7(power requested: Double) throws {
        let power = Double(Float(requested))  // the power the table is built for
        let t = try #require(PowerTable(power: Float(power)))
        #expect(t.count == 135 << t.k && (3...8).contains(t.k))
        var worst = 0.0, worstAt: Float = 0
        func check(_ v: Float) {
            guard v.magnitude >= Float.leastNormalMagnitude, let got = Self.lookup(t, v) else { return }
            let exact = v < 0 ? -pow(-Double(v), power) : pow(Double(v), power)
            guard abs(exact) > 1e-37 else { return }
            let rel = Self.relative(got, exact)
            if rel > worst { worst = rel; worstAt = v }
        }
        // Every cell of every binade (cells hold the same shape scaled per binade): its start,
        // the value just below it, and points inside; denser where pixel values live.
        for e in -126..<8 {
            let base = Float(sign: .plus, exponent: e, significand: 1), cell = base / Float(1 << t.k)
            let inside = e >= -24 ? 5 : 1
            for j in 0..<(1 << t.k) {
                let start = base + cell * Float(j)
                check(start); check(-start); check(start.nextDown)
                for s in 1...inside { check(start + cell * Float(s) / Float(inside + 1)) }
            }
        }
        #expect(worst < 5e-7, "power \(power), k \(t.k): worst relative error \(worst) at \(worstAt)")
        // Cell starts are interpolation nodes: 1 gives exactly 1, powers of two their rounded power.
        #expect(Self.lookup(t, 1) == 1 && Self.lookup(t, -1) == -1)
        for e in [-100, -20, -3, -1, 1, 5] {
            #expect(Self.lookup(t, Float(sign: .plus, exponent: e, significand: 1)) == Float(pow(2, Double(e) * power)), "2^\(e)")
        }
        // Zero and denormals give 0; the table ends at 256.
        #expect(Self.lookup(t, 0) == 0 && Self.lookup(t, Float.leastNonzeroMagnitude) == 0)
        #expect(Self.lookup(t, 255.99) != nil && Self.lookup(t, 256) == nil && Self.lookup(t, .infinity) == nil && Self.lookup(t, .nan) == nil)
    }

    @Test func powerTableCoversOnlyPositiveModeratePowers() {
        for p: Float in [0, -1, -0.5, .nan, .infinity, 20, 100] { #expect(PowerTable(power: p) == nil, "power \(p)") }
        #expect(PowerTable(power: 0.9)?.k == 5)
        #expect(PowerTable(power: 2)?.k == 3)  // x^2 is a quadratic: exact in any cell
        #expect(PowerTable.cached(power: 0.9) === PowerTable.cached(power: 0.9))
    }
}
