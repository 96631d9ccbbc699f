internal import CyanotypeCodecs
import Foundation

/// A JPEG held as its decoded Y'CbCr planes (`JPEGPlanes`, JFIF's full-range BT.601 with
/// centred chroma) as a source: each tile row is converted to RGB as it is read, chroma
/// upsampled bilinearly in the same pass (libjpeg's "fancy" upsampling weights), and EXIF
/// `orientation` shows it upright by tiles (a whole-pixel turn, no copy of the picture). For
/// an untagged or sRGB-tagged file read in sRGB (or unmanaged).
func planarJPEGNode(_ p: JPEGPlanes, orientation: Int) throws -> RecipeNode {
    let subsampling: CIYCbCrFormat.Subsampling = p.chromaShift.y == 1 ? .yuv420 : p.chromaShift.x == 1 ? .yuv422 : .yuv444
    let format = CIYCbCrFormat(subsampling: subsampling, bitDepth: 8, matrix: .itu601, range: .full, chromaLocation: .center)
    let buffer: CIPlanarImageBuffer
    do {
        buffer = try CIPlanarImageBuffer(
            width: p.width, height: p.height, format: format,
            planes: [
                (UnsafeMutableRawPointer(p.luma), p.lumaRowBytes), (UnsafeMutableRawPointer(p.cb), p.chromaRowBytes),
                (UnsafeMutableRawPointer(p.cr), p.chromaRowBytes),
            ],
            release: { withExtendedLifetime(p) {} })
    } catch {
        throw ImageFileError.corrupt(detail: "JPEG planes: \(error)")
    }
    let node = YCbCrSourceNode(buffer: buffer, encoded: false)
    return RowOrientation(orientation, width: 1, height: 1).value == 1 ? node : CIImage(node: node).oriented(forExifOrientation: Int32(orientation)).node
}
