// Rendering into the colour spaces video and print code names: Rec. 709, Rec. 2020, DCI-P3,
// ProPhoto, ACEScg, linear generic RGB and XYZ.
import CoreImage
import Testing

/// One pixel of `image` as floats in `space`.
private func components(_ image: CIImage, in space: CGColorSpace) -> [Float] {
    var px = [Float](repeating: 0, count: 4)
    CIContext().render(image, toBitmap: &px, rowBytes: 16, bounds: CGRect(x: 0, y: 0, width: 1, height: 1), format: .RGBAf, colorSpace: space)
    return px
}

@Suite struct NamedColorSpacesIdiom {
    @Test func everyNamedSpaceExistsAndWhiteStaysWhite() throws {
        let names = [
            CGColorSpace.itur_709, CGColorSpace.itur_2020, CGColorSpace.dcip3, CGColorSpace.genericRGBLinear, CGColorSpace.acescgLinear,
            CGColorSpace.rommrgb, CGColorSpace.displayP3, CGColorSpace.linearSRGB, CGColorSpace.extendedLinearITUR_2020,
        ]
        let white = CIImage(color: .white).cropped(to: CGRect(x: 0, y: 0, width: 1, height: 1))
        for name in names {
            let space = try #require(CGColorSpace(name: name), "\(name)")
            let px = components(white, in: space)
            for c in 0..<3 { #expect(abs(px[c] - 1) < 2e-3, "\(name): \(px)") }
        }
        #expect(CGColorSpace(name: CGColorSpace.genericXYZ) != nil)
    }

    @Test func rec709EncodesWithItsOwnCurve() throws {
        // Linear 0.18 (mid grey) in BT.709's curve: 1.099 * 0.18^0.45 - 0.099.
        let grey = CIImage(color: CIColor(red: 0.18, green: 0.18, blue: 0.18, colorSpace: CGColorSpace(name: CGColorSpace.linearSRGB)!)!)
            .cropped(to: CGRect(x: 0, y: 0, width: 1, height: 1))
        let px = components(grey, in: try #require(CGColorSpace(name: CGColorSpace.itur_709)))
        let want = 1.099 * pow(0.18, 0.45) - 0.099
        #expect(abs(Double(px[0]) - want) < 1e-3, "\(px[0]) vs \(want)")
        // DCI-P3 is a 2.6 power curve: 0.18^(1/2.6) for a grey (its white is adapted to D65).
        let p3 = components(grey, in: try #require(CGColorSpace(name: CGColorSpace.dcip3)))
        #expect(abs(Double(p3[1]) - pow(0.18, 1 / 2.6)) < 5e-3, "\(p3)")
    }

    @Test func xyzOfSRGBRedIsItsFirstColumnAdapted() throws {
        // Oracle: IEC 61966-2-1's matrix gives red's XYZ (0.4124, 0.2126, 0.0193) under D65;
        // Bradford's cone matrix adapts it to equal-energy white, where XYZ (1, 1, 1) is white.
        let m: [[Double]] = [[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367], [0.0389, -0.0685, 1.0296]]
        func times(_ a: [[Double]], _ v: [Double]) -> [Double] { a.map { r in zip(r, v).map(*).reduce(0, +) } }
        let d65 = times(m, [0.3127 / 0.3290, 1, (1 - 0.3127 - 0.3290) / 0.3290]), e = times(m, [1, 1, 1])
        let cone = times(m, [0.4124, 0.2126, 0.0193]).enumerated().map { $0.element * e[$0.offset] / d65[$0.offset] }
        // Inverse of the cone matrix by Cramer's rule.
        let a = m[0][0], b = m[0][1], c = m[0][2], d = m[1][0], f = m[1][1], g = m[1][2], h = m[2][0], i = m[2][1], j = m[2][2]
        let det = a * (f * j - g * i) - b * (d * j - g * h) + c * (d * i - f * h)
        let inverse = [
            [(f * j - g * i) / det, (c * i - b * j) / det, (b * g - c * f) / det],
            [(g * h - d * j) / det, (a * j - c * h) / det, (c * d - a * g) / det],
            [(d * i - f * h) / det, (b * h - a * i) / det, (a * f - b * d) / det],
        ]
        let want = times(inverse, cone)
        let red = CIImage(color: CIColor(red: 1, green: 0, blue: 0)).cropped(to: CGRect(x: 0, y: 0, width: 1, height: 1))
        let xyz = components(red, in: try #require(CGColorSpace(name: CGColorSpace.genericXYZ)))
        for k in 0..<3 { #expect(abs(Double(xyz[k]) - want[k]) < 2e-3, "\(xyz) vs \(want)") }
        let white = components(CIImage(color: .white).cropped(to: CGRect(x: 0, y: 0, width: 1, height: 1)), in: try #require(CGColorSpace(name: CGColorSpace.genericXYZ)))
        for k in 0..<3 { #expect(abs(white[k] - 1) < 2e-3, "\(white)") }
    }
}
