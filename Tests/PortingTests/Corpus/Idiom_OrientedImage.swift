// Turning a camera frame upright with oriented(_:), as capture pipelines do.
import CoreImage
import ImageIO
import Testing

@Suite struct OrientedImageIdiom {
    @Test func rightTurnsClockwiseAndSwapsTheSides() {
        // 6 x 2: a red pixel at the bottom-left corner, green elsewhere.
        let green = CIImage(color: CIColor(red: 0, green: 1, blue: 0)).cropped(to: CGRect(x: 0, y: 0, width: 6, height: 2))
        let red = CIImage(color: CIColor(red: 1, green: 0, blue: 0)).cropped(to: CGRect(x: 0, y: 0, width: 1, height: 1))
        let frame = red.composited(over: green)
        let upright = frame.oriented(.right)
        #expect(upright.extent.size == CGSize(width: 2, height: 6))
        // EXIF 6 shows the stored pixels turned 90 degrees clockwise: the stored bottom-left
        // corner ends at the top-left. Oracle: (x, y) -> (y, W - 1 - x) for W = 6, y up.
        let e = upright.extent
        var px = [UInt8](repeating: 0, count: 4)
        CIContext().render(upright, toBitmap: &px, rowBytes: 4, bounds: CGRect(x: e.minX, y: e.maxY - 1, width: 1, height: 1), format: .RGBA8, colorSpace: nil)
        #expect(px == [255, 0, 0, 255])
        CIContext().render(upright, toBitmap: &px, rowBytes: 4, bounds: CGRect(x: e.minX, y: e.minY, width: 1, height: 1), format: .RGBA8, colorSpace: nil)
        #expect(px == [0, 255, 0, 255])
        #expect(CGImagePropertyOrientation.right.rawValue == 6)
    }
}
