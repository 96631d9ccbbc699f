// Generators need a crop before rendering: a checkerboard as a transparency backdrop.
import CoreImage
import CoreImage.CIFilterBuiltins
import Testing

@Suite struct CheckerboardGeneratorIdiom {
    @Test func squaresAlternateEveryWidth() throws {
        let board = CIFilter.checkerboardGenerator()
        board.center = CGPoint(x: 0, y: 0)
        board.color0 = .white
        board.color1 = .black
        board.width = 4
        board.sharpness = 1
        let image = try #require(board.outputImage).cropped(to: CGRect(x: 0, y: 0, width: 16, height: 16))
        #expect(image.extent.size == CGSize(width: 16, height: 16))
        var px = [UInt8](repeating: 0, count: 16 * 16 * 4)
        CIContext().render(image, toBitmap: &px, rowBytes: 64, bounds: image.extent, format: .RGBA8, colorSpace: nil)
        // Oracle: the square of pixel (x, y) is (x / 4 + y / 4) even -> color0, odd -> color1 (y up).
        for (x, y) in [(1, 1), (5, 1), (1, 5), (5, 5), (13, 10)] {
            let row = 15 - y
            let v = px[(row * 16 + x) * 4]
            let expected: UInt8 = ((x / 4 + y / 4) % 2 == 0) ? 255 : 0
            #expect(v == expected, "(\(x), \(y)): \(v)")
        }
    }
}
