#if !canImport(CoreGraphics)
import Foundation

/// Image I/O's view of a RAW camera file: one image, developed with `CIRAWFilter`'s defaults;
/// thumbnails from the embedded preview when it is large enough.
extension CGImageSource {
    /// Whether the source's bytes are a RAW camera file.
    var isRAW: Bool { RAWFile.isRAW(data) }

    /// A fresh filter for the RAW file (nil for other files and unreadable RAWs).
    func rawFilter() -> CIRAWFilter? {
        guard isRAW else { return nil }
        return try? CIRAWFilter.open(data: data, name: path.map { ($0 as NSString).lastPathComponent } ?? "data")
    }

    /// Image `index` of a RAW file developed with the defaults (8-bit sRGB, as stored: the
    /// orientation is in the properties); nil for other files.
    func rawCGImage(at index: Int) throws(ImageIOError) -> CGImage? {
        guard isRAW else { return nil }
        let filter: CIRAWFilter
        do { filter = try CIRAWFilter.open(data: data, name: path ?? "data") } catch { throw .codec(path: path, error.fileError) }
        guard index == 0 else { throw .codec(path: path, .invalidArgument("a RAW file has one image; index \(index) is out of range")) }
        filter.orientation = .up
        guard let image = filter.outputImage else { throw .codec(path: path, .corrupt(detail: "the RAW file gave no image")) }
        do {
            let r = try ImageIOContext.shared.renderToData(
                image, from: image.extent, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB), premultiplied: false)
            return CGImage(
                width: r.width, height: r.height, bytesPerRow: r.rowBytes, format: .RGBA8,
                colorSpace: CGColorSpace(name: CGColorSpace.sRGB), premultiplied: false, data: r.data)
        } catch {
            if let e = error as? RAWError { throw .codec(path: path, e.fileError) }
            throw .codec(path: path, .corrupt(detail: "\(error)"))
        }
    }

    /// The image a thumbnail of a RAW file is made from (as stored, its orientation in the
    /// properties): the embedded preview when `preferEmbedded` and its long side reaches
    /// `limit`, else the develop (half size when `limit` is half the long side or less).
    func rawThumbnailSource(limit: Double?, preferEmbedded: Bool) -> CIImage? {
        guard let filter = rawFilter() else { return nil }
        let props = filter.file.properties
        let (pw, ph) = filter.file.previewSize
        if preferEmbedded, let limit, Double(max(pw, ph)) >= limit, let jpeg = filter.file.previewJPEG(),
            let preview = try? CIImage.read(data: jpeg, name: "preview")
        {
            return CIImage(node: preview.node, properties: props)
        }
        filter.orientation = .up
        let long = Double(max(filter.file.width, filter.file.height))
        if let limit, limit > 0, limit <= long / 2 { filter.scaleFactor = Float(min(0.5, (limit + 2) / long)) }
        guard let image = filter.outputImage else { return nil }
        return CIImage(node: image.node, properties: props)
    }

    /// Image I/O's type identifier for a RAW file: Adobe's DNG, else the generic camera RAW.
    var rawTypeIdentifier: String? {
        guard isRAW else { return nil }
        return rawFilter()?.file.isDNG == true ? "com.adobe.raw-image" : "public.camera-raw-image"
    }
}
#endif
