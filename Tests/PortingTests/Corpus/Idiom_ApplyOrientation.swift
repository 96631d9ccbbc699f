// Loading a camera JPEG upright: CIImage(contentsOf:options:) with .applyOrientationProperty.
import CoreImage
import Foundation
import Testing

private func uprightImage(at url: URL) -> CIImage? {
    CIImage(contentsOf: url, options: [.applyOrientationProperty: true])
}

@Suite struct ApplyOrientationIdiom {
    @Test(.enabled(if: Tools.path("exiftool") != nil && Tools.path("convert") != nil, "exiftool or ImageMagick missing"))
    func anOrientationSixPhotoComesInRotated() throws {
        let dir = try Tools.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("portrait.jpg")
        // Stored 60 x 20, left third red; EXIF orientation 6 (rotate 90 degrees clockwise to view).
        try Tools.run("convert", ["-size", "60x20", "xc:blue", "-fill", "red", "-draw", "rectangle 0,0 19,19", "-quality", "95", url.path])
        try Tools.run("exiftool", ["-q", "-overwrite_original", "-Orientation#=6", url.path])
        let raw = try #require(CIImage(contentsOf: url))
        #expect(raw.extent.size == CGSize(width: 60, height: 20))
        let upright = try #require(uprightImage(at: url))
        #expect(upright.extent.size == CGSize(width: 20, height: 60))
        #expect(raw.properties[kCGImagePropertyOrientation as String] as? Int == 6)

        // Rotated clockwise, the stored left edge (red) is at the top of the viewed picture.
        var top = [UInt8](repeating: 0, count: 4), bottom = [UInt8](repeating: 0, count: 4)
        let context = CIContext()
        let e = upright.extent
        context.render(upright, toBitmap: &top, rowBytes: 4, bounds: CGRect(x: e.minX + 10, y: e.maxY - 5, width: 1, height: 1), format: .RGBA8, colorSpace: nil)
        context.render(upright, toBitmap: &bottom, rowBytes: 4, bounds: CGRect(x: e.minX + 10, y: e.minY + 5, width: 1, height: 1), format: .RGBA8, colorSpace: nil)
        #expect(top[0] > 200 && top[2] < 60, "top \(top)")
        #expect(bottom[2] > 200 && bottom[0] < 60, "bottom \(bottom)")
    }
}
