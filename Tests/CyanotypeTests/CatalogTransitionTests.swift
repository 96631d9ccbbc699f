import Foundation
import Testing
@testable import Cyanotype

// The page curl, ripple and accordion transitions: time 0 is the source and time 1 the
// target, bit for bit; in between, every pixel against the documented geometry written out
// here (the sheet rolled over a cylinder, the refracting ring, the folded stack).

@Suite struct CatalogTransitionTests {
    let source = TestPicture(40, 30)
    let target = secondPicture(40, 30)

    @Test(arguments: ["CIPageCurlTransition", "CIPageCurlWithShadowTransition", "CIRippleTransition", "CIAccordionFoldTransition"])
    func timeZeroIsTheSourceAndTimeOneTheTarget(_ name: String) throws {
        for (time, expected) in [(0.0, source.image), (1.0, target.image), (-3.0, source.image), (7.0, target.image)] {
            let out = source.image.applyingFilter(name, parameters: [kCIInputTargetImageKey: target.image, kCIInputTimeKey: time])
            #expect(out.extent == expected.extent, "\(name) at \(time)")
            #expect(try renderPremultiplied(out, source.extent) == renderPremultiplied(expected, source.extent), "\(name) at \(time)")
        }
    }

    /// The documented page curl at (x, y): back over front over target.
    func pageCurl(_ x: Double, _ y: Double, a: Double, r: Double, angle: Double, shadow: (amount: Double, width: Double)? = nil) -> [Double] {
        let n = (cos(angle), sin(angle))
        let p = x * n.0 + y * n.1
        func at(_ s: Double) -> (Double, Double) { (x + (s - p) * n.0, y + (s - p) * n.1) }
        var back = [0.0, 0, 0, 0], front = [0.0, 0, 0, 0], k = 1.0
        if p <= a {
            let (u, v) = at(2 * a + Double.pi * r - p); back = source.sample(u, v)
            front = source.sample(x, y)
        } else if p < a + r {
            let q = (p - a) / r
            let (u, v) = at(a + r * (Double.pi - asin(q))); back = source.sample(u, v)
            let (fu, fv) = at(a + r * asin(q)); front = source.sample(fu, fv)
            k = 0.4 + 0.6 * (1 - q * q).squareRoot()
        }
        var t = target.sample(x, y)
        if let shadow, p >= a {
            let d = p - a - r
            let veil = d <= 0 ? shadow.amount : d < shadow.width ? shadow.amount * pow(1 - d / shadow.width, 2) : 0
            t = t.map { $0 * (1 - veil) }
        }
        return (0..<4).map { c in
            let b = c < 3 ? back[c] * k : back[c], f = c < 3 ? front[c] * k : front[c]
            return b + (1 - back[3]) * (f + (1 - front[3]) * t[c])
        }
    }

    @Test func pageCurlRollsTheSheetOverACylinder() throws {
        for (angle, time, radius) in [(0.0, 0.4, 6.0), (0.7, 0.3, 4.5), (-2.4, 0.65, 9.0)] {
            let out = source.image.applyingFilter(
                "CIPageCurlTransition",
                parameters: [
                    kCIInputTargetImageKey: target.image, kCIInputTimeKey: time, kCIInputAngleKey: angle, kCIInputRadiusKey: radius,
                    kCIInputExtentKey: CIVector(x: 0, y: 0, z: 40, w: 30),
                ])
            let ps = [(0.0, 0.0), (40.0, 0.0), (40.0, 30.0), (0.0, 30.0)].map { $0.0 * cos(angle) + $0.1 * sin(angle) }
            let a = ps.max()! - time * (ps.max()! - ps.min()! + (1 + Double.pi / 2) * radius)
            #expect(out.extent.contains(source.extent))
            try expectMatches(out, CGRect(x: -10, y: -10, width: 60, height: 50), "page curl \(angle) \(time)", tol: 3e-4) { x, y in
                // Where the cylinder's edge is within a hair of the pixel, rounding decides.
                let p = x * cos(angle) + y * sin(angle)
                if abs(p - a - radius) < 1e-6 { return nil }
                return pageCurl(x, y, a: a, r: radius, angle: angle)
            }
            try expectTiledEqualsWhole(out, CGRect(x: -4, y: -4, width: 48, height: 38), "page curl")
        }
    }

    @Test func pageCurlWithShadowDarkensTheTargetAheadOfTheCurl() throws {
        let (angle, time, radius, size, amount) = (0.3, 0.45, 5.0, 0.8, 0.6)
        let out = source.image.applyingFilter(
            "CIPageCurlWithShadowTransition",
            parameters: [
                kCIInputTargetImageKey: target.image, kCIInputTimeKey: time, kCIInputAngleKey: angle, kCIInputRadiusKey: radius,
                "inputShadowSize": size, "inputShadowAmount": amount,
            ])
        // An empty extent (the default) sweeps the input's extent.
        let ps = [(0.0, 0.0), (40.0, 0.0), (40.0, 30.0), (0.0, 30.0)].map { $0.0 * cos(angle) + $0.1 * sin(angle) }
        let a = ps.max()! - time * (ps.max()! - ps.min()! + (1 + Double.pi / 2) * radius)
        try expectMatches(out, CGRect(x: -5, y: -5, width: 50, height: 40), "page curl with shadow", tol: 3e-4) { x, y in
            pageCurl(x, y, a: a, r: radius, angle: angle, shadow: (amount, 2 * radius * size))
        }
    }

    @Test func rippleRefractsAndCrossFadesInsideTheRing() throws {
        let (cx, cy, width, scale, time) = (17.3, 12.8, 9.0, 14.0, 0.45)
        let out = source.image.applyingFilter(
            "CIRippleTransition",
            parameters: [
                kCIInputTargetImageKey: target.image, kCIInputTimeKey: time, kCIInputCenterKey: CIVector(x: cx, y: cy),
                kCIInputWidthKey: width, kCIInputScaleKey: scale, kCIInputExtentKey: CIVector(x: 0, y: 0, z: 40, w: 30),
            ])
        let far = [(0.0, 0.0), (40.0, 0.0), (40.0, 30.0), (0.0, 30.0)].map { hypot($0.0 - cx, $0.1 - cy) }.max()!
        let R = time * (far + width)
        try expectMatches(out, source.extent, "ripple", tol: 3e-4) { x, y in
            let dx = x - cx, dy = y - cy, d = hypot(dx, dy)
            if d <= R - width { return target.sample(x, y) }
            if d >= R { return source.sample(x, y) }
            let u = (R - d) / width
            let shift = scale * sin(2 * Double.pi * u) / 2
            let (sx, sy) = (x + dx / d * shift, y + dy / d * shift)
            let w = u * u * (3 - 2 * u)
            let a = source.sample(sx, sy), b = target.sample(sx, sy)
            let g = -scale * Double.pi / width * sin(2 * Double.pi * u)
            let lit = -g * (-dx + dy) / (d * 2.0.squareRoot() * (g * g + 1).squareRoot())
            let f = 1 + 0.5 * lit * sin(Double.pi * u)
            return (0..<4).map { c in (a[c] * (1 - w) + b[c] * w) * (c < 3 ? f : 1) }
        }
    }

    @Test func accordionFoldsBothPicturesAboveTheBase() throws {
        let tall = secondPicture(40, 44)
        for (time, bottom, folds, shadow) in [(0.3, 6.0, 3.0, 0.4), (0.5, 0.0, 2.0, 0.1), (0.8, 10.0, 4.6, 1.0)] {
            let out = source.image.applyingFilter(
                "CIAccordionFoldTransition",
                parameters: [
                    kCIInputTargetImageKey: tall.image, kCIInputTimeKey: time, "inputBottomHeight": bottom,
                    "inputNumberOfFolds": folds, "inputFoldShadowAmount": shadow,
                ])
            #expect(out.extent == CGRect(x: 0, y: 0, width: 40, height: 44))
            let li = 30 - bottom, lt = 44 - bottom
            let l = (1 - time) * li + time * lt, squeeze = 1 - 0.8 * sin(Double.pi * time), H = squeeze * l
            let panels = 2 * Int(folds.rounded())
            try expectMatches(out, out.extent, "accordion \(time)", tol: 3e-4) { x, y in
                func folded(_ pic: TestPicture, _ length: Double) -> [Double] {
                    y < bottom ? pic.sample(x, y) : pic.sample(x, bottom + (y - bottom) * length / H)
                }
                let a = folded(source, li), b = folded(tall, lt)
                var k = 1.0
                if y >= bottom {
                    let panel = Int((y - bottom) / (H / Double(panels)))
                    if panel < panels && panel % 2 == 1 { k = 1 - shadow * (1 - squeeze * squeeze).squareRoot() }
                }
                return (0..<4).map { c in (a[c] * (1 - time) + b[c] * time) * (c < 3 ? k : 1) }
            }
        }
    }
}
