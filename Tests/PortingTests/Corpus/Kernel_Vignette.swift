// A radial vignette in CIKL: destCoord, a centre and radius, smoothstep, as effect apps write it.
import CoreImage
import Testing

extension CIImage {
    fileprivate func vignetted(radius: CGFloat) -> CIImage? {
        let source = """
            kernel vec4 vignette(__sample s, vec2 center, float radius) {
                float d = distance(destCoord(), center) / radius;
                float shade = 1.0 - smoothstep(0.5, 1.0, d);
                return vec4(s.rgb * shade, s.a);
            }
            """
        guard let kernel = CIColorKernel(source: source) else { return nil }
        let center = CIVector(x: extent.midX, y: extent.midY)
        return kernel.apply(extent: extent, arguments: [self, center, radius])
    }
}

@Suite struct KernelVignetteProgram {
    @Test func edgesDarkenByTheSmoothstepOfTheDistance() throws {
        let picture = KernelCorpus.picture(width: 21, height: 21) { _, _ in (200, 200, 200) }
        let output = try #require(picture.vignetted(radius: 10))
        let bytes = KernelCorpus.bytes(output, picture.extent)
        for (x, row) in [(10, 10), (0, 10), (3, 3), (18, 5)] {
            let dx = Double(x) + 0.5 - 10.5, dy = Double(20 - row) + 0.5 - 10.5
            let d = (dx * dx + dy * dy).squareRoot() / 10
            let t = min(max((d - 0.5) / 0.5, 0), 1)
            let shade = 1 - t * t * (3 - 2 * t)
            let want = KernelCorpus.byte(200.0 / 255 * shade)
            #expect(abs(Int(bytes[(row * 21 + x) * 4]) - want) <= 1, "(\(x), \(row)): \(bytes[(row * 21 + x) * 4]) vs \(want)")
        }
    }
}
