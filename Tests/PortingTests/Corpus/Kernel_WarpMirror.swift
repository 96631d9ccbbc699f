// A mirror warp in CIKL: CIWarpKernel(source:) with destCoord and a ROI callback.
import CoreImage
import Testing

private let mirrorKernel = CIWarpKernel(
    source: """
        kernel vec2 mirrorX(float width) {
            vec2 p = destCoord();
            return vec2(width - p.x, p.y);
        }
        """)

extension CIImage {
    fileprivate func mirrored() -> CIImage? {
        let w = extent.width
        return mirrorKernel?.apply(
            extent: extent,
            roiCallback: { _, rect in CGRect(x: w - rect.maxX, y: rect.minY, width: rect.width, height: rect.height) },
            image: self, arguments: [w])
    }
}

@Suite struct KernelWarpProgram {
    @Test func leftAndRightSwap() throws {
        let picture = KernelCorpus.picture(width: 5, height: 2) { x, row in (UInt8(x * 50), UInt8(row * 100), 7) }
        let output = try #require(picture.mirrored())
        let bytes = KernelCorpus.bytes(output, picture.extent)
        for row in 0..<2 {
            for x in 0..<5 {
                let i = (row * 5 + x) * 4
                #expect(Array(bytes[i..<(i + 3)]) == [UInt8((4 - x) * 50), UInt8(row * 100), 7])
            }
        }
    }
}
