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

    @Test func xyzOfSRGBRedIsItsFirstColumn() throws {
        // Oracle: IEC 61966-2-1's matrix, red's XYZ (0.4124, 0.2126, 0.0193) under D65,
        // adapted to equal-energy white (Bradford) for XYZ with white (1, 1, 1).
        let red = CIImage(color: CIColor(red: 1, green: 0, blue: 0)).cropped(to: CGRect(x: 0, y: 0, width: 1, height: 1))
        let xyz = components(red, in: try #require(CGColorSpace(name: CGColorSpace.genericXYZ)))
        #expect(abs(Double(xyz[1]) - 0.2126) < 0.01, "\(xyz)")
    }
}
