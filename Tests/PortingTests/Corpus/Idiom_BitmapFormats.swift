// Reading single channels and pairs into small float buffers (masks, depth, vectors),
// with the CIFormat names Core Image documents.
import CoreImage
import Testing

private func render<T: Numeric>(_ image: CIImage, format: CIFormat, components: Int, as type: T.Type) -> [T] {
    var out = [T](repeating: 0, count: components)
    out.withUnsafeMutableBytes { raw in
        CIContext().render(image, toBitmap: raw.baseAddress!, rowBytes: raw.count, bounds: CGRect(x: 0, y: 0, width: 1, height: 1), format: format, colorSpace: nil)
    }
    return out
}

@Suite struct BitmapFormatsIdiom {
    @Test func eachFormatHoldsItsComponents() {
        // sRGB components in, sRGB (the context's output space) out: the same numbers.
        let colour = CIImage(color: CIColor(red: 0.25, green: 0.5, blue: 0.75, alpha: 1)).cropped(to: CGRect(x: 0, y: 0, width: 1, height: 1))
        func near(_ a: [Float], _ b: [Double], _ tolerance: Double = 2e-3) -> Bool { zip(a, b).allSatisfy { abs(Double($0) - $1) < tolerance } && a.count == b.count }
        #expect(near(render(colour, format: .Rf, components: 1, as: Float.self), [0.25]))
        #expect(near(render(colour, format: .RGf, components: 2, as: Float.self), [0.25, 0.5]))
        #expect(near(render(colour, format: .Af, components: 1, as: Float.self), [1]))
        #expect(near(render(colour, format: .rgbXf, components: 4, as: Float.self), [0.25, 0.5, 0.75, 1]))
        // Luminance: Rec. 709 weights on linear light, encoded back.
        let y = SRGB.fromLinear(0.2126 * SRGB.toLinear(0.25) + 0.7152 * SRGB.toLinear(0.5) + 0.0722 * SRGB.toLinear(0.75))
        #expect(near(render(colour, format: .LAf, components: 2, as: Float.self), [y, 1], 3e-3))
        let half = render(colour, format: .RGh, components: 2, as: Float16.self).map { Float($0) }
        #expect(near(half, [0.25, 0.5]))
        let sixteen = render(colour, format: .RG16, components: 2, as: UInt16.self)
        #expect(sixteen.map(Int.init) == [Int((0.25 * 65535).rounded()), Int((0.5 * 65535).rounded())])
        let alpha16 = render(colour, format: .A16, components: 1, as: UInt16.self)
        #expect(alpha16 == [65535])
        let la16 = render(colour, format: .LA16, components: 2, as: UInt16.self)
        #expect(abs(Double(la16[0]) - y * 65535) <= 40 && la16[1] == 65535, "\(la16)")
    }
}
