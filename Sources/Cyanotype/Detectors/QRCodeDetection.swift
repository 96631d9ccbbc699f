internal import CDeferredLibraries
internal import CZbar
import Foundation

/// QR codes: the image rendered to 8-bit grey by the engine, read by zbar (opened on first use;
/// its absence is `CIDetectorError.libraryUnavailable`). zbar finds every symbol in one pass;
/// the corners are its location points.
enum QRCodeDetection {
    /// The largest side zbar is given: a phone photo's code stays readable, a poster-sized
    /// image is scaled down.
    static let maxSide = 4096

    static func detect(_ image: CIImage, _ context: CIContext, _ o: DetectorOptions) throws(CIDetectorError) -> [CIFeature] {
        if let message = DeferredLibrary.failure(loading: [CY_LIBRARY_ZBAR]) { throw .libraryUnavailable(message) }
        let raster = try GreyRaster(image, context, maxSide: maxSide)
        var found = scan(raster)
        if found.isEmpty && raster.width * raster.height > 1 << 20 {
            // A code drawn with soft module edges in a large photo: zbar's binariser reads it at half size.
            let half = try GreyRaster(image, context, maxSide: max(raster.width, raster.height) / 2)
            found = scan(half)
        }
        let limit = o.maxFeatureCount ?? Int.max
        return Array(found.prefix(limit))
    }

    /// Every QR symbol zbar finds in `raster`.
    static func scan(_ raster: GreyRaster) -> [CIFeature] {
        guard let scanner = zbar_image_scanner_create() else { return [] }
        defer { zbar_image_scanner_destroy(scanner) }
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1)
        guard let zimage = zbar_image_create() else { return [] }
        defer { zbar_image_destroy(zimage) }
        // "Y800": 8-bit grey.
        zbar_image_set_format(zimage, 0x3030_3859)
        zbar_image_set_size(zimage, UInt32(raster.width), UInt32(raster.height))
        var features: [CIFeature] = []
        raster.pixels.withUnsafeBufferPointer { buffer in
            // zbar reads the buffer during zbar_scan_image only (no cleanup handler: we own it).
            zbar_image_set_data(zimage, buffer.baseAddress, UInt(buffer.count), nil)
            guard zbar_scan_image(scanner, zimage) > 0 else { return }
            var symbol = zbar_image_first_symbol(zimage)
            while let s = symbol {
                defer { symbol = zbar_symbol_next(s) }
                guard zbar_symbol_get_type(s) == ZBAR_QRCODE else { continue }
                let count = Int(zbar_symbol_get_data_length(s))
                var bytes: [UInt8] = []
                if count > 0, let data = zbar_symbol_get_data(s) {
                    bytes = UnsafeRawBufferPointer(start: data, count: count).map { $0 }
                }
                let points = (0..<Int(zbar_symbol_get_loc_size(s))).map {
                    (Double(zbar_symbol_get_loc_x(s, UInt32($0))), Double(zbar_symbol_get_loc_y(s, UInt32($0))))
                }
                guard points.count == 4 else { continue }
                // zbar's QR points run from the symbol's top-left: top-left, bottom-left,
                // bottom-right, top-right (raster pixels, y down); each names a module, whose
                // outer corner is the symbol's.
                let cx = points.map(\.0).reduce(0, +) / 4, cy = points.map(\.1).reduce(0, +) / 4
                let outer = points.map { p in
                    raster.imagePoint(p.0 + (p.0 >= cx ? 1 : 0), p.1 + (p.1 >= cy ? 1 : 0))
                }
                let corners = Quadrilateral(topLeft: outer[0], topRight: outer[3], bottomLeft: outer[1], bottomRight: outer[2])
                features.append(CIQRCodeFeature(message: String(bytes: bytes, encoding: .utf8) ?? String(bytes: bytes, encoding: .isoLatin1), corners: corners))
            }
        }
        return features
    }
}
